//===- SemaSampleParams.cpp - The layout functions' per-sample values -----===//
//
// What crop, erase and the other layout and image functions take per
// sample: a size, a scalar, or a tensor with the input's leading dims
// before the first laid-out axis (isSamplePrefix); k values a box as a
// list or as a tensor [..., R * k] or [..., R, k] (checkSampleValues,
// whose reading of the two forms MLIRGen takes from the AST).
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "llvm/Support/Casting.h"

using namespace pipec;
using namespace pipec::sema;

/// Whether `type`'s dims are `input`'s first dims, up to `firstAxis`.
bool pipec::sema::isSamplePrefix(const ExprType &type, const ExprType &input,
                                 int64_t firstAxis) {
  if (type.dims.size() > size_t(firstAxis))
    return false;
  for (size_t d = 0; d < type.dims.size(); ++d)
    if (!(type.dims[d] == input.dims[d]))
      return false;
  return true;
}

bool PipelineChecker::checkSampleParam(ExprAST &param, const ExprType &input,
                                       int64_t firstAxis, llvm::StringRef kind,
                                       llvm::StringRef what) {
  if (kind != "bool" && isSize(param)) {
    if (!checkExpr(param))
      return false;
    if (kind != "integer")
      return true;
    param.size = sizeOf(param, what);
    return param.size.has_value();
  }
  if (auto *boolean = llvm::dyn_cast<BoolExprAST>(&param)) {
    if (kind != "bool")
      return error(param.getLoc(), what + " is " +
                                       (kind == "integer" ? "an integer"
                                                          : "a number") +
                                       ", not bool");
    return checkExpr(*boolean);
  }
  if (!checkExpr(param))
    return false;
  const ExprType &type = param.type;
  if (kind == "number" && type.isWeakLiteral() && type.dims.empty())
    return true;
  if (type.isWeakLiteral())
    return error(param.getLoc(),
                 what + (kind == "number"
                             ? " is a number, or a tensor with one value per "
                               "sample; not a list of literals"
                         : kind == "bool"
                             ? " is true, false, or a bool tensor with one "
                               "value per sample; not a number"
                             : " is a size known from the dims, or a tensor"));
  bool fits = kind == "bool"      ? type.dtype == "bool"
              : kind == "integer" ? isIntegerDType(type.dtype)
                                  : type.dtype != "bool";
  if (!fits)
    return error(param.getLoc(), what + " must be " +
                                     (kind == "bool"      ? "bool"
                                      : kind == "integer" ? "an integer"
                                                          : "a number") +
                                     ", not " + type.str());
  if (!isSamplePrefix(type, input, firstAxis))
    return error(param.getLoc(),
                 what + " " + type.str() +
                     " must be a scalar or have the leading dims of " +
                     input.str() + " before dim " + std::to_string(firstAxis) +
                     " (one value per sample)");
  return true;
}

/// Which reading of a per-sample tensor of `type` whose last dims hold
/// `count` values ([..., count], or [..., count / per, per]: 1 or 2
/// trailing dims) `input`'s sample dims before `firstAxis` allow: the
/// preferred one (two trailing dims when `preferTwo`) if its leading dims
/// are the samples', else the other if its are; 0 when neither reading
/// fits the trailing dims. The leading dims of the result may still not be
/// the samples' (the caller says so).
static size_t sampleTrailingDims(const ExprType &type, const ExprType &input,
                                 int64_t firstAxis, int64_t count, int64_t per,
                                 bool preferTwo) {
  auto literal = [](const DimAST &dim, int64_t size) {
    return !dim.isSymbolic() && dim.size == size;
  };
  size_t rank = type.dims.size();
  bool one = rank >= 1 && literal(type.dims[rank - 1], count);
  bool two = per >= 1 && count % per == 0 && rank >= 2 &&
             literal(type.dims[rank - 1], per) &&
             literal(type.dims[rank - 2], count / per);
  auto samples = [&](size_t trailing) {
    ExprType leading = type;
    leading.dims.resize(rank - trailing);
    return isSamplePrefix(leading, input, firstAxis);
  };
  size_t first = preferTwo ? 2 : 1, second = preferTwo ? 1 : 2;
  auto fits = [&](size_t trailing) { return trailing == 1 ? one : two; };
  if (fits(first) && (samples(first) || !fits(second) || !samples(second)))
    return first;
  return fits(second) ? second : 0;
}

bool PipelineChecker::checkSampleTensor(ExprAST &param, const ExprType &input,
                                        int64_t firstAxis, int64_t count,
                                        int64_t per, llvm::StringRef what,
                                        bool preferTwo, bool *split) {
  if (!checkExpr(param))
    return false;
  const ExprType &type = param.type;
  if (type.isWeakLiteral() || !isIntegerDType(type.dtype))
    return error(param.getLoc(), what + " must be integers, not " + type.str());
  // [..., count] or [..., count / per, per].
  size_t rank = type.dims.size();
  size_t trailing =
      sampleTrailingDims(type, input, firstAxis, count, per, preferTwo);
  if (!trailing)
    return error(param.getLoc(),
                 what + " " + type.str() + " needs " + std::to_string(count) +
                     (count == 1 ? " value" : " values") +
                     " a sample, in its last dim" +
                     (per > 1 ? " (or its last two, [" +
                                    std::to_string(count / per) + ", " +
                                    std::to_string(per) + "])"
                              : ""));
  ExprType leading = type;
  leading.dims.resize(rank - trailing);
  if (!isSamplePrefix(leading, input, firstAxis))
    return error(param.getLoc(),
                 what + " " + type.str() + " must have the leading dims of " +
                     input.str() + " before dim " + std::to_string(firstAxis) +
                     " (one row per sample), or none");
  if (split)
    *split = trailing == 2;
  return true;
}

std::optional<int64_t>
PipelineChecker::checkSampleValues(ExprAST &param, const ExprType &input,
                                   int64_t firstAxis, int64_t count,
                                   int64_t per, llvm::StringRef what,
                                   bool *split) {
  if (split)
    *split = false;
  if (auto *list = llvm::dyn_cast<ListExprAST>(&param)) {
    int64_t given = int64_t(list->elements.size());
    if ((count && given != count) || (!count && (given == 0 || given % per))) {
      error(param.getLoc(),
            what + " has " + std::to_string(given) + " values but needs " +
                (count ? std::to_string(count)
                       : "a multiple of " + std::to_string(per)));
      return std::nullopt;
    }
    bool ok = true;
    for (ExprPtr &element : list->elements)
      ok &= checkSampleParam(*element, input, firstAxis, "integer", what);
    list->type = ExprType{};
    if (!ok)
      return std::nullopt;
    return given;
  }
  // [..., R, k] is read as R boxes of k values when k > 1 (as a list of
  // them would be), [..., n] as n values; either way round when only the
  // other reading's leading dims are the samples' ([N, 1, k], [N, R, 1],
  // [1, k] without samples).
  bool preferTwo = per > 1;
  if (!count) {
    // The count comes from the tensor's last dims.
    if (!checkExpr(param))
      return std::nullopt;
    const ExprType &type = param.type;
    if (type.isWeakLiteral() || type.dims.empty() ||
        type.dims.back().isSymbolic()) {
      error(param.getLoc(), what + " must be a list, or a tensor whose last "
                                   "dim is a literal count");
      return std::nullopt;
    }
    size_t rank = type.dims.size();
    int64_t last = type.dims.back().size;
    auto samples = [&](size_t trailing) {
      ExprType leading = type;
      leading.dims.resize(rank - trailing);
      return isSamplePrefix(leading, input, firstAxis);
    };
    // [..., R, k] with R a name, where only that reading's leading dims
    // are the samples' ([N, 2] over samples [N, C] is one box a sample):
    // the boxes a sample has are counted when compiling, so R must be a
    // literal.
    if (per > 1 && last == per && rank >= 2 &&
        type.dims[rank - 2].isSymbolic() && samples(2) && !samples(1)) {
      std::string example = "[";
      for (size_t d = 0; d + 2 < rank; ++d)
        example += type.dims[d].str() + ", ";
      example += "4, " + std::to_string(per) + "]";
      error(param.getLoc(),
            what + " " + type.str() + " has '" + type.dims[rank - 2].str() +
                "' boxes a sample: their count must be a literal, known "
                "when compiling (e.g. " + example + " for 4 boxes)");
      return std::nullopt;
    }
    bool two = rank >= 2 && !type.dims[rank - 2].isSymbolic() && last == per;
    preferTwo = two && (per > 1 ? samples(2) || !samples(1)
                                : samples(2) && !samples(1));
    count = preferTwo ? type.dims[rank - 2].size * per : last;
  }
  if (!checkSampleTensor(param, input, firstAxis, count, per, what, preferTwo,
                         split))
    return std::nullopt;
  return count;
}
