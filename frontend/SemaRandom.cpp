//===- SemaRandom.cpp - Checking the random sources -----------------------===//
//
// uniform, normal, coin_flip and randint (pipe.random): the shape they
// draw, their parameters (literals, sizes or tensors that broadcast to the
// shape), the dtype and an op's own seed.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "core/DimExpr.h"

#include "llvm/Support/Casting.h"

#include <charconv>
#include <cmath>

using namespace pipec;
using namespace pipec::sema;
using pipert::DimExpr;

namespace {

/// "[N, 2]", or "a scalar" for no dims.
std::string describeShape(const std::vector<DimAST> &dims) {
  if (dims.empty())
    return "a scalar";
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + dims[i].str();
  return text + "]";
}

} // namespace

/// Whether a value of `type` broadcasts to `dims` (NumPy: its dims align
/// with the last ones, each equal or a literal 1).
static bool broadcastsTo(const ExprType &type, const std::vector<DimAST> &dims) {
  if (type.dims.size() > dims.size())
    return false;
  size_t offset = dims.size() - type.dims.size();
  for (size_t d = 0; d < type.dims.size(); ++d) {
    const DimAST &dim = type.dims[d];
    if (!(dim == dims[offset + d]) && !(!dim.isSymbolic() && dim.size == 1))
      return false;
  }
  return true;
}

bool PipelineChecker::checkRandomOp(CallExprAST &expr) {
  const std::string &callee = expr.callee;
  bool randint = callee == "randint";
  // The shape drawn: sizes, one value when absent.
  std::vector<DimAST> dims;
  if (ExprAST *shape = keyword(expr, "shape")) {
    std::optional<std::vector<DimExpr>> sizes =
        sizesOf(*shape, "the shape of '" + callee + "'");
    if (!sizes)
      return false;
    for (const DimExpr &size : *sizes) {
      if (size.isAlwaysNegative())
        return error(shape->getLoc(), "a size cannot be negative");
      dims.push_back(toDim(size, shape->getLoc()));
      expr.shape.push_back(size.str());
    }
  }
  // A parameter: a number literal (an integer, or a size, for randint), a
  // list literal (a small constant tensor) or a tensor of numbers that
  // broadcasts to the shape.
  auto checkParam = [&](ExprAST &param, const std::string &what) {
    if (randint && isSize(param))
      return checkExpr(param);
    if (!checkExpr(param))
      return false;
    const ExprType &type = param.type;
    if (type.isWeakLiteral()) {
      if (randint && type.weakFloat)
        return error(param.getLoc(), what + " is an integer");
      if (!type.dims.empty() && !broadcastsTo(type, dims))
        return error(param.getLoc(),
                     what + ", a list of " + type.dims[0].str() +
                         " numbers, does not broadcast to the shape drawn, " +
                         describeShape(dims) +
                         " (NumPy's rules: its dims align with the last ones)");
      return true;
    }
    if (randint ? !isIntegerDType(type.dtype) : type.dtype == "bool")
      return error(param.getLoc(), what + " must be " +
                                       (randint ? "an integer" : "a number") +
                                       ", not " + type.str());
    if (!broadcastsTo(type, dims))
      return error(param.getLoc(),
                   what + " " + type.str() + " does not broadcast to the " +
                       "shape drawn, " + describeShape(dims) +
                       " (NumPy's rules: its dims align with the last ones)");
    return true;
  };

  std::string dtype = randint ? "i32" : callee == "coin_flip" ? "bool" : "f32";
  if (ExprAST *value = keyword(expr, "dtype")) {
    std::optional<std::string> requested = dtypeArgument(*value);
    if (!requested)
      return false;
    if ((callee == "uniform" || callee == "normal") &&
        !isFloatDType(*requested))
      return error(value->getLoc(), "'" + callee + "' draws floats, not " +
                                        *requested);
    if (randint && !isIntegerDType(*requested))
      return error(value->getLoc(), "'randint' draws integers, not " +
                                        *requested);
    dtype = *requested;
  }
  if (!checkOwnSeed(expr))
    return false;

  if (callee == "uniform") {
    if (ExprAST *range = keyword(expr, "range")) {
      auto *list = llvm::dyn_cast<ListExprAST>(range);
      if (!list || list->elements.size() != 2)
        return error(range->getLoc(), "'uniform' takes range = [lo, hi]");
      for (ExprPtr &bound : list->elements)
        if (!checkParam(*bound, "a bound of uniform's range"))
          return false;
      std::optional<double> lo = literalValue(*list->elements[0]);
      std::optional<double> hi = literalValue(*list->elements[1]);
      for (const std::optional<double> &bound : {lo, hi})
        if (bound && std::isnan(*bound))
          return error(range->getLoc(), "a bound of uniform's range is nan; "
                                        "it must be a number");
      if (lo && hi && !(*lo <= *hi))
        return error(range->getLoc(),
                     "uniform's range [" + formatNumber(*lo) + ", " +
                         formatNumber(*hi) + "] is empty: lo must not "
                                             "exceed hi");
    }
  } else if (callee == "normal") {
    if (ExprAST *mean = keyword(expr, "mean")) {
      if (!checkParam(*mean, "normal's mean"))
        return false;
      for (const ExprAST *literal : literalsOf(*mean))
        if (std::optional<double> value = literalValue(*literal);
            value && std::isnan(*value))
          return error(literal->getLoc(), "normal's mean is nan; it must be "
                                          "a number");
    }
    if (ExprAST *stddev = keyword(expr, "stddev")) {
      if (!checkParam(*stddev, "normal's stddev"))
        return false;
      // The run-time check of a stddev from a tensor (MLIRGenImage.cpp),
      // at compile time.
      for (const ExprAST *literal : literalsOf(*stddev))
        if (std::optional<double> value = literalValue(*literal);
            value && !(*value >= 0 && *value <= 0x1p62))
          return error(literal->getLoc(),
                       "normal's stddev is " + formatNumber(*value) +
                           (std::isnan(*value) ? "; it must be a number"
                            : *value < 0       ? "; it cannot be negative"
                                               : "; it must be finite and at "
                                                 "most 2^62, as a stddev "
                                                 "from a tensor must"));
    }
  } else if (callee == "coin_flip") {
    ExprAST *p = keyword(expr, "probability");
    if (ExprAST *alias = keyword(expr, "p")) {
      if (p)
        return error(alias->getLoc(), "'coin_flip' takes probability = or "
                                      "p =, not both");
      p = alias;
    }
    if (p) {
      if (!checkParam(*p, "coin_flip's probability"))
        return false;
      for (const ExprAST *literal : literalsOf(*p))
        if (std::optional<double> value = literalValue(*literal);
            value && !(*value >= 0 && *value <= 1))
          return error(literal->getLoc(), "coin_flip's probability is " +
                                              formatNumber(*value) +
                                              "; it must lie in [0, 1]");
    }
  } else { // randint(lo, hi)
    ExprAST *lo = expr.args.size() > 0 ? expr.args[0].get() : nullptr;
    ExprAST *hi = expr.args.size() > 1 ? expr.args[1].get() : nullptr;
    for (auto [name, slot] : {std::pair{"lo", &lo}, std::pair{"hi", &hi}}) {
      if (ExprAST *given = keyword(expr, name)) {
        if (*slot)
          return error(given->getLoc(), std::string("'randint' has its ") +
                                            name + " twice");
        *slot = given;
      }
    }
    if (!lo || !hi)
      return error(expr.getLoc(), "'randint' takes lo and hi: integers in "
                                  "[lo, hi), e.g. randint(0, 10, shape = "
                                  "[N])");
    if (!checkParam(*lo, "randint's lo") || !checkParam(*hi, "randint's hi"))
      return false;
    // (checkParam admits integers only.) Exactly, in 128 bits: u64 bounds
    // pass the i64s and the doubles' precision.
    auto exact = [](const ExprAST &bound) -> std::optional<__int128> {
      auto *number = llvm::dyn_cast<NumberExprAST>(&bound);
      if (!number || number->isFloat)
        return std::nullopt;
      return number->exactValue();
    };
    auto text = [](__int128 value) {
      return value < 0 ? "-" + std::to_string(uint64_t(-value))
                       : std::to_string(uint64_t(value));
    };
    std::optional<__int128> low = exact(*lo), high = exact(*hi);
    if (low && high && !(*low < *high))
      return error(expr.getLoc(), "randint's range [" + text(*low) + ", " +
                                      text(*high) +
                                      ") is empty: lo must be below hi");
    if (llvm::isa<ListExprAST>(*lo) && !checkLiteralFits(*lo, dtype))
      return false;
    if (low && !checkLiteralFits(*lo, dtype))
      return false;
    for (const ExprAST *literal : literalsOf(*hi)) {
      // hi itself is never drawn: hi - 1 must fit.
      std::optional<__int128> bound = exact(*literal);
      if (bound && *bound - 1 > getIntegerRange(dtype).second)
        return error(literal->getLoc(), "randint's hi " + text(*bound) +
                                            " draws up to " + text(*bound - 1) +
                                            ", which " + dtype +
                                            " cannot hold");
    }
  }
  if (!countRandomCall(expr))
    return false;
  expr.type = ExprType{dtype, dims};
  return true;
}

bool PipelineChecker::checkOwnSeed(CallExprAST &expr) {
  ExprAST *seed = keyword(expr, "seed");
  if (!seed)
    return true;
  auto *number = llvm::dyn_cast<NumberExprAST>(seed);
  if (!number || number->isFloat ||
      (number->intValue < 0 && !number->exceedsInt64))
    return error(seed->getLoc(), "the seed of '" + expr.callee +
                                     "' is an integer literal from 0 to "
                                     "18446744073709551615");
  expr.seed = uint64_t(number->intValue);
  return true;
}

bool PipelineChecker::countRandomCall(CallExprAST &expr) {
  // Streams number the random ops of a pipeline (core/PipeRandom.h).
  if (++randomOps > kMaxRandomOps)
    return error(expr.getLoc(), "a pipeline draws from at most " +
                                    std::to_string(kMaxRandomOps) +
                                    " random calls (loops count each "
                                    "iteration's)");
  return true;
}
