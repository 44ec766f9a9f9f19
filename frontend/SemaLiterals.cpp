//===- SemaLiterals.cpp - Folding arithmetic on literals ------------------===//
//
// Literals are weakly typed (docs/language.md, Literals): arithmetic on
// literals alone is folded before the checks, exactly in the 64-bit
// integers or in doubles, every operator with its run-time meaning
// (core/PipeScalar.h), so that MLIRGen sees one literal per weakly typed
// operand.
//
//===----------------------------------------------------------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "core/PipeScalar.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Casting.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>

using namespace pipec;
using namespace pipec::sema;
using llvm::SMLoc;

/// `value` as an integer literal at `loc`, or null when no 64-bit integer
/// (i64 or u64) holds it.
static std::unique_ptr<NumberExprAST> makeIntLiteral(SMLoc loc,
                                                     __int128 value) {
  if (value < __int128(INT64_MIN) || value > __int128(UINT64_MAX))
    return nullptr;
  bool exceeds = value > __int128(INT64_MAX);
  int64_t bits = int64_t(uint64_t(value));
  return std::make_unique<NumberExprAST>(
      loc, false, bits, exceeds ? double(uint64_t(bits)) : double(bits),
      exceeds);
}

/// Folds literal arithmetic; the result is a weak literal. Integers are
/// folded exactly: `overflows` is set, and null returned, when the result
/// fits no 64-bit integer.
static std::unique_ptr<NumberExprAST> foldLiterals(BinaryOp op,
                                                   const NumberExprAST &l,
                                                   const NumberExprAST &r,
                                                   SMLoc loc, bool &overflows) {
  bool isFloat = l.isFloat || r.isFloat || op == BinaryOp::Div;
  double lf = l.asDouble(), rf = r.asDouble();
  auto folded = std::make_unique<NumberExprAST>(loc, isFloat, 0, 0.0);
  if (isFloat) {
    switch (op) {
    case BinaryOp::Add: folded->floatValue = lf + rf; break;
    case BinaryOp::Sub: folded->floatValue = lf - rf; break;
    case BinaryOp::Mul: folded->floatValue = lf * rf; break;
    case BinaryOp::Div:
      folded->floatValue = lf / rf;
      if (!l.isFloat && !r.isFloat && !l.exceedsInt64 && !r.exceedsInt64)
        folded->integerQuotient = {l.intValue, r.intValue};
      break;
    case BinaryOp::Pow: folded->floatValue = std::pow(lf, rf); break;
    // Python's (the run time's: core/PipeScalar.h).
    case BinaryOp::FloorDiv: folded->floatValue = pipe_floordiv(lf, rf); break;
    case BinaryOp::Rem: folded->floatValue = pipe_rem(lf, rf); break;
    default: return nullptr;
    }
    return folded;
  }
  // Operands are below 2^64 in magnitude: a product fits 128 bits.
  const __int128 a = l.exactValue(), b = r.exactValue();
  const __int128 lowest = INT64_MIN, highest = UINT64_MAX;
  // floor(a / b), b != 0.
  auto floorDiv = [](__int128 n, __int128 d) {
    __int128 q = n / d;
    return (n % d != 0 && (n < 0) != (d < 0)) ? q - 1 : q;
  };
  __int128 value;
  switch (op) {
  case BinaryOp::Add: value = a + b; break;
  case BinaryOp::Sub: value = a - b; break;
  case BinaryOp::Mul:
    // Two magnitudes below 2^64 can pass the 128-bit integers.
    if (__builtin_mul_overflow(a, b, &value))
      value = highest + 1; // past the literals
    break;
  // By zero, left as they are: a size that divides by zero is an error,
  // a tensor's quotient 0 in its dtype.
  case BinaryOp::FloorDiv:
    if (b == 0)
      return nullptr;
    value = floorDiv(a, b);
    break;
  case BinaryOp::Rem:
    if (b == 0)
      return nullptr;
    value = a - floorDiv(a, b) * b;
    break;
  case BinaryOp::Pow:
    if (b < 0) {
      // As at run time: 0 unless the base is 1 or -1.
      value = a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
      break;
    }
    value = 1;
    for (__int128 e = 0; e < b; ++e) {
      if (__builtin_mul_overflow(value, a, &value)) {
        value = highest + 1; // past the literals
        break;
      }
      if (value < lowest || value > highest || a == 0 || a == 1)
        break; // past the literals (or settled): no need to go on
      if (a == -1) {
        value = (b & 1) ? -1 : 1;
        break;
      }
    }
    break;
  // Shifts by a count outside [0, 64) give 0, or -1 for >> of a negative
  // (the integers' rule at run time, in 64 bits); others are exact.
  case BinaryOp::Shl:
    if (b < 0 || b >= 64)
      value = 0;
    else if (a > highest >> int(b) || a < -((-lowest) >> int(b)))
      value = highest + 1; // past the literals
    else
      value = a * (__int128(1) << int(b));
    break;
  case BinaryOp::Shr:
    if (b < 0 || b >= 64)
      value = a < 0 ? -1 : 0;
    else
      value = floorDiv(a, __int128(1) << int(b));
    break;
  // Bits of two's complement 64-bit words, where both fit one kind of
  // word (else left to the run time, in the dtype it gets).
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor: {
    const bool signedWords = a <= INT64_MAX && b <= INT64_MAX;
    if (!signedWords && (a < 0 || b < 0))
      return nullptr;
    const uint64_t x = uint64_t(a), y = uint64_t(b);
    const uint64_t bits = op == BinaryOp::BitAnd  ? (x & y)
                          : op == BinaryOp::BitOr ? (x | y)
                                                  : (x ^ y);
    value = signedWords ? __int128(int64_t(bits)) : __int128(bits);
    break;
  }
  default: return nullptr;
  }
  folded = makeIntLiteral(loc, value);
  overflows = !folded;
  return folded;
}

/// `expr` as a list literal of numbers, or null.
static ListExprAST *getNumberList(ExprAST &expr) {
  auto *list = llvm::dyn_cast<ListExprAST>(&expr);
  if (!list || !llvm::all_of(list->elements, [](const ExprPtr &element) {
        return llvm::isa<NumberExprAST>(*element);
      }))
    return nullptr;
  return list;
}

/// The list literal at `loc` of `map` of each index's element (null, and
/// so the list, when one cannot be made).
static std::unique_ptr<ListExprAST> mapNumberList(
    SMLoc loc, size_t count,
    llvm::function_ref<std::unique_ptr<NumberExprAST>(size_t)> map) {
  std::vector<ExprPtr> elements;
  for (size_t i = 0; i < count; ++i) {
    std::unique_ptr<NumberExprAST> element = map(i);
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
  }
  return std::make_unique<ListExprAST>(loc, std::move(elements));
}

/// A copy of a number or list literal, or of an operator tree over them
/// (`~0 & 255`), at `loc` (its inner nodes where they were written).
static std::unique_ptr<ExprAST> copyLiteral(const ExprAST &literal, SMLoc loc) {
  if (auto *number = llvm::dyn_cast<NumberExprAST>(&literal)) {
    auto copy = std::make_unique<NumberExprAST>(loc, number->isFloat,
                                                number->intValue,
                                                number->floatValue,
                                                number->exceedsInt64);
    copy->integerQuotient = number->integerQuotient;
    return copy;
  }
  if (auto *boolean = llvm::dyn_cast<BoolExprAST>(&literal))
    return std::make_unique<BoolExprAST>(loc, boolean->value);
  if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&literal))
    return std::make_unique<UnaryExprAST>(
        loc, unary->op,
        copyLiteral(*unary->operand, unary->operand->getLoc()));
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(&literal))
    return std::make_unique<BinaryExprAST>(
        loc, binary->op, copyLiteral(*binary->lhs, binary->lhs->getLoc()),
        copyLiteral(*binary->rhs, binary->rhs->getLoc()));
  auto &list = llvm::cast<ListExprAST>(literal);
  std::vector<ExprPtr> elements;
  for (const ExprPtr &element : list.elements)
    elements.push_back(copyLiteral(*element, element->getLoc()));
  return std::make_unique<ListExprAST>(loc, std::move(elements));
}

/// The first `~` in a tree of literals (unary and binary operators over
/// numbers and dims), or null.
const UnaryExprAST *sema::findLiteralBitNot(const ExprAST &expr) {
  if (const auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr))
    return unary->op == UnaryOp::BitNot ? unary
                                         : findLiteralBitNot(*unary->operand);
  if (const auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr)) {
    if (const UnaryExprAST *found = findLiteralBitNot(*binary->lhs))
      return found;
    return findLiteralBitNot(*binary->rhs);
  }
  return nullptr;
}

bool sema::isLiteralTree(const ExprAST &expr) {
  if (llvm::isa<NumberExprAST>(expr))
    return true;
  if (const auto *list = llvm::dyn_cast<ListExprAST>(&expr))
    return llvm::all_of(list->elements, [](const ExprPtr &element) {
      return llvm::isa<NumberExprAST>(*element);
    });
  if (const auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr))
    return isLiteralTree(*unary->operand);
  if (const auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr))
    return isLiteralTree(*binary->lhs) && isLiteralTree(*binary->rhs);
  return false;
}

bool sema::foldLiteralTrees(std::unique_ptr<ExprAST> &expr,
                            llvm::SourceMgr &sourceMgr,
                            const llvm::StringMap<const ExprAST *> *literals) {
  if (auto *name = llvm::dyn_cast<NameExprAST>(expr.get()); name && literals) {
    if (auto it = literals->find(name->name); it != literals->end())
      expr = copyLiteral(*it->second, name->getLoc());
    return true;
  }
  auto overflow = [&](SMLoc loc, const llvm::Twine &what) {
    sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error,
                           what + " of integer literals is outside the 64-bit "
                                  "integers (-9223372036854775808 to "
                                  "18446744073709551615)");
    return false;
  };
  bool ok = true;
  auto fold = [&](std::unique_ptr<ExprAST> &child) {
    ok &= foldLiteralTrees(child, sourceMgr, literals);
  };
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(expr.get())) {
    fold(binary->lhs);
    fold(binary->rhs);
    auto *l = llvm::dyn_cast<NumberExprAST>(binary->lhs.get());
    auto *r = llvm::dyn_cast<NumberExprAST>(binary->rhs.get());
    bool overflows = false;
    if (l && r) {
      if (auto folded =
              foldLiterals(binary->op, *l, *r, binary->getLoc(), overflows))
        expr = std::move(folded);
      else if (overflows)
        return overflow(binary->getLoc(),
                        llvm::Twine("'") + getSpelling(binary->op) + "'");
      return ok;
    }
    // A list is weakly typed like a number: arithmetic with a number or a
    // list of as many numbers folds element by element, or not at all
    // (a comparison, a division by zero: left to the run time).
    auto *ll = getNumberList(*binary->lhs), *rl = getNumberList(*binary->rhs);
    if (!(ll || l) || !(rl || r) || !(ll || rl) ||
        (ll && rl && ll->elements.size() != rl->elements.size()))
      return ok;
    size_t count = ll ? ll->elements.size() : rl->elements.size();
    auto folded = mapNumberList(binary->getLoc(), count, [&](size_t i) {
      auto &a = ll ? llvm::cast<NumberExprAST>(*ll->elements[i]) : *l;
      auto &b = rl ? llvm::cast<NumberExprAST>(*rl->elements[i]) : *r;
      SMLoc at = (ll ? ll->elements[i] : rl->elements[i])->getLoc();
      return overflows ? nullptr
                       : foldLiterals(binary->op, a, b, at, overflows);
    });
    if (overflows)
      return overflow(binary->getLoc(),
                      llvm::Twine("'") + getSpelling(binary->op) + "'");
    if (folded)
      expr = std::move(folded);
  } else if (auto *unary = llvm::dyn_cast<UnaryExprAST>(expr.get())) {
    fold(unary->operand);
    if (unary->op != UnaryOp::Neg)
      return ok;
    // The literal (or list) now starts at the '-'.
    auto negate = [&](const NumberExprAST &number,
                      SMLoc at) -> std::unique_ptr<NumberExprAST> {
      if (number.isFloat)
        return std::make_unique<NumberExprAST>(at, true, 0,
                                               -number.floatValue);
      return makeIntLiteral(at, -number.exactValue());
    };
    if (auto *number = llvm::dyn_cast<NumberExprAST>(unary->operand.get())) {
      auto negated = negate(*number, unary->getLoc());
      if (!negated)
        return overflow(unary->getLoc(), "'-'");
      expr = std::move(negated);
    } else if (auto *list = getNumberList(*unary->operand)) {
      auto negated = mapNumberList(
          unary->getLoc(), list->elements.size(), [&](size_t i) {
            const ExprAST &element = *list->elements[i];
            return negate(llvm::cast<NumberExprAST>(element),
                          element.getLoc());
          });
      if (!negated)
        return overflow(unary->getLoc(), "'-'");
      expr = std::move(negated);
    }
  } else {
    forEachOperand(*expr, fold);
  }
  return ok;
}

/// The value of a number literal as written (after literal folding).
std::optional<double> sema::literalValue(const ExprAST &expr) {
  if (auto *number = llvm::dyn_cast<NumberExprAST>(&expr))
    return number->asDouble();
  return std::nullopt;
}

/// The number literals of a parameter: itself, or a list literal's
/// elements (none for a tensor).
std::vector<const ExprAST *> sema::literalsOf(const ExprAST &expr) {
  if (auto *list = llvm::dyn_cast<ListExprAST>(&expr)) {
    std::vector<const ExprAST *> elements;
    for (const ExprPtr &element : list->elements)
      elements.push_back(element.get());
    return elements;
  }
  if (llvm::isa<NumberExprAST>(expr))
    return {&expr};
  return {};
}

/// The shortest text that reads back as `value` (1.0000000001 stays so);
/// NaN as "nan", whatever its sign.
std::string sema::formatNumber(double value) {
  if (std::isnan(value))
    return "nan";
  char text[64];
  auto [end, failed] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}

// Whether a weak literal fits the dtype it takes (docs: Literals).
bool PipelineChecker::checkLiteralFits(const ExprAST &literal,
                                       llvm::StringRef dtype) {
  if (auto *list = llvm::dyn_cast<ListExprAST>(&literal)) {
    bool ok = true;
    for (const ExprPtr &element : list->elements)
      ok &= checkLiteralFits(*element, dtype);
    return ok;
  }
  // `~` of a literal is applied in the dtype it takes (`x & ~1`), so its
  // operand must fit that dtype as any literal does.
  if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&literal)) {
    // One that takes a float has no bits to flip (a dim's, computed in i64
    // and then converted, has).
    if (unary->op == UnaryOp::BitNot && isFloatDType(dtype) &&
        !unary->type.weakDim)
      return error(unary->getLoc(),
                   "'~' takes integers, but this literal is " + dtype.str() +
                       " here; write the integer's value, or apply '~' to "
                       "an integer tensor");
    return checkLiteralFits(*unary->operand, dtype);
  }
  // So is a tree over a `~` (its operand dtype is the one it takes); a
  // tree computed in i64 (`300 // 0`) converts its result.
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(&literal)) {
    if (!binary->operandDType.empty())
      return true;
    bool lhs = checkLiteralFits(*binary->lhs, dtype);
    return checkLiteralFits(*binary->rhs, dtype) && lhs;
  }
  auto *number = llvm::dyn_cast<NumberExprAST>(&literal);
  // (An unknown dtype, a result's misspelled one, is reported where it is
  // written.)
  if (!number || !isDType(dtype))
    return true;
  if (isFloatDType(dtype)) {
    // An integer literal must fit the dtype it takes (docs: Literals): an
    // f16's finite values end at 65504 (65520 and past round to inf).
    if (!number->isFloat && dtype == "f16" &&
        std::fabs(number->asDouble()) >= getFloatRange(dtype).roundsToInf)
      return error(literal.getLoc(),
                   "literal " +
                       (number->exceedsInt64
                            ? std::to_string(uint64_t(number->intValue))
                            : std::to_string(number->intValue)) +
                       " does not fit in f16 (its largest finite value is "
                       "65504); convert the other operand, e.g. f32(...)");
    return true;
  }
  if (number->isFloat)
    return error(literal.getLoc(), "float literal cannot be " +
                                       std::string(dtype.starts_with("i")
                                                       ? "an "
                                                       : "a ") +
                                       dtype +
                                       " value; write an integer, or convert "
                                       "the other operand to a float");
  if (dtype == "bool")
    return error(literal.getLoc(), "a number cannot be a bool value; write "
                                   "true or false, or compare, e.g. x != 0");
  int64_t value = number->intValue;
  auto [least, most] = getIntegerRange(dtype);
  const __int128 exact = number->exactValue();
  if (exact < least || exact > most)
    return error(literal.getLoc(),
                 "literal " +
                     (number->exceedsInt64 ? std::to_string(uint64_t(value))
                                           : std::to_string(value)) +
                     " does not fit in " + dtype);
  return true;
}
