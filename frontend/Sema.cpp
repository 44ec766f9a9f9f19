//===- Sema.cpp - Name, dtype and dim checking for .pipe ------------------===//

#include "frontend/Sema.h"

#include "dialect/PipeSpellings.inc"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace pipec;
using llvm::SMLoc;

static const char *const kDTypes[] = {"bool", "u8",  "i8",   "u16", "i16",
                                      "u32",  "i32", "u64",  "i64", "f16",
                                      "bf16", "f32", "f64"};
static const char *const kDTypeList =
    "bool u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64";

llvm::ArrayRef<const char *> pipec::getDTypeNames() { return kDTypes; }

bool pipec::isDType(llvm::StringRef name) {
  return llvm::is_contained(kDTypes, name);
}
bool pipec::isFloatDType(llvm::StringRef name) {
  return name == "f16" || name == "bf16" || name == "f32" || name == "f64";
}
bool pipec::isUnsignedDType(llvm::StringRef name) {
  return name.starts_with("u");
}
bool pipec::isIntegerDType(llvm::StringRef name) {
  return name.starts_with("u") || name.starts_with("i");
}
unsigned pipec::getDTypeBits(llvm::StringRef name) {
  if (name == "bool")
    return 1;
  unsigned bits = 0;
  name.drop_while([](char c) { return !isdigit(c); }).getAsInteger(10, bits);
  return bits;
}

std::optional<std::string> pipec::promoteDTypes(llvm::StringRef a,
                                                llvm::StringRef b) {
  if (a == b)
    return a.str();
  if (a == "bool")
    return b.str();
  if (b == "bool")
    return a.str();
  bool fa = isFloatDType(a), fb = isFloatDType(b);
  if (fa && fb) {
    // f16 and bf16 hold different ranges and precisions: f32 holds both.
    if ((a == "f16" && b == "bf16") || (a == "bf16" && b == "f16"))
      return std::string("f32");
    return (getDTypeBits(a) >= getDTypeBits(b) ? a : b).str();
  }
  if (fa || fb) // A float with an integer: the float (as JAX does).
    return (fa ? a : b).str();
  unsigned ba = getDTypeBits(a), bb = getDTypeBits(b);
  bool ua = isUnsignedDType(a), ub = isUnsignedDType(b);
  if (ua == ub)
    return (ba >= bb ? a : b).str();
  // Signed with unsigned: the smallest signed dtype that holds both.
  unsigned signedBits = ua ? bb : ba, unsignedBits = ua ? ba : bb;
  if (signedBits > unsignedBits)
    return "i" + std::to_string(signedBits);
  if (unsignedBits < 64)
    return "i" + std::to_string(unsignedBits * 2);
  return std::nullopt;
}

bool pipec::isReductionCall(llvm::StringRef name, size_t numArgs) {
  if (name == "min" || name == "max")
    return numArgs == 1;
  return name == "sum" || name == "mean" || name == "prod" || name == "any" ||
         name == "all";
}

std::string pipec::getReductionDType(llvm::StringRef kind,
                                     llvm::StringRef dtype) {
  if (kind == "any" || kind == "all")
    return "bool";
  if (kind == "min" || kind == "max")
    return dtype.str();
  if (kind == "mean")
    return dtype == "f64" ? "f64" : "f32";
  if (isFloatDType(dtype))
    return dtype.str();
  return isUnsignedDType(dtype) ? "u64" : "i64";
}

std::string ExprType::str() const {
  std::string text = isWeakLiteral() ? "literal" : dtype;
  if (dims.empty())
    return text;
  text += "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + dims[i].str();
  return text + "]";
}

const char *pipec::getSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Rem: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::LogicalAnd: return "&&";
  case BinaryOp::LogicalOr: return "||";
  }
  return "?";
}

const char *pipec::getSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::LogicalNot: return "!";
  case UnaryOp::BitNot: return "~";
  }
  return "?";
}

namespace {

/// What an operator or function does with its operands' dtype.
enum class Accepts {
  Numeric,       ///< not bool; result: the operand dtype
  FloatResult,   ///< integers and bool become f32 first
  IntegerOrBool, ///< & | ^ ~
  Integer,       ///< << >>
  Bool,          ///< && || !
  Any,           ///< == !=
};

/// A spelling of an elementwise op (dialect/PipeSource.td): a function name
/// or an operator, its arity, and what it accepts.
struct Spelling {
  const char *name;
  bool isOperator;
  unsigned arity;
  Accepts accepts;
};
const Spelling kSpellings[] = {
#define PIPE_SPELLING(Class, name, isOperator, arity, accepts)                 \
  {name, bool(isOperator), arity, Accepts::accepts},
    PIPE_ELEMENTWISE_SPELLINGS(PIPE_SPELLING)
#undef PIPE_SPELLING
};

/// The spelling `name` of `arity` operands, or null.
const Spelling *findSpelling(llvm::StringRef name, bool isOperator,
                             size_t arity) {
  for (const Spelling &spelling : kSpellings)
    if (spelling.isOperator == isOperator && spelling.arity == arity &&
        name == spelling.name)
      return &spelling;
  return nullptr;
}

/// Functions that are not one op: compositions, and ops with operands of
/// different roles. (The structured functions come from the ODS records
/// too, as PIPE_FUNCTIONS.)
const char *const kSpecialFunctions[] = {
    "select", "clamp", "transpose", "reshape", "sum", "mean", "prod", "any",
    "all", "min", "max", "gaussian_blur", "cpu", "gpu"};

/// Checks one pipeline. Errors are counted, not fatal: each statement is
/// checked even after an earlier one failed, so a user sees all of them.
class PipelineChecker {
public:
  PipelineChecker(PipelineAST &pipeline, llvm::SourceMgr &sourceMgr)
      : pipeline(pipeline), sourceMgr(sourceMgr) {}

  bool check();

private:
  bool error(SMLoc loc, const llvm::Twine &message) {
    // A `for` body is checked once per unrolled iteration: say each error
    // once.
    if (reported.insert({loc.getPointer(), message.str()}).second)
      sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error, message);
    ++numErrors;
    return false;
  }
  void note(SMLoc loc, const llvm::Twine &message) {
    sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Note, message);
  }

  bool checkType(const TypeAST &type, llvm::StringRef what,
                 llvm::StringRef name);
  bool checkExpr(ExprAST &expr);
  bool checkBinary(BinaryExprAST &expr);
  bool checkUnary(UnaryExprAST &expr);
  bool checkCall(CallExprAST &expr);
  bool checkList(ListExprAST &expr);
  bool checkTranspose(CallExprAST &expr);
  /// The second operand of transpose or reshape, positional or named
  /// `keyword`, with the first operand checked; null after an error.
  ExprAST *layoutOperand(CallExprAST &expr, llvm::StringRef keyword,
                         llvm::StringRef usage);
  bool checkReshape(CallExprAST &expr);
  bool checkReduction(CallExprAST &expr);
  bool checkGaussianBlur(CallExprAST &expr);
  /// `axes = [...]` of a call on `input`: integer literals, negative ones
  /// counting from the end, each dim once; sorted into `expr.axes`.
  bool checkAxes(CallExprAST &expr, ExprAST &list, const ExprType &input);
  /// `dtype = <name>`: the dtype it names, or nullopt after an error.
  std::optional<std::string> dtypeArgument(ExprAST &value);

  /// The dtype `operands` are converted to for `what` (promotion, weak
  /// literals), checked against `accepts`; reports and returns nullopt if
  /// there is none. `operandDType` gets the dtype the op computes in.
  std::optional<std::string> operandDType(llvm::ArrayRef<ExprAST *> operands,
                                          Accepts accepts, SMLoc loc,
                                          const std::string &what);
  /// The broadcast dims of `operands` (NumPy rules over symbolic dims).
  std::optional<std::vector<DimAST>>
  broadcastDims(llvm::ArrayRef<ExprAST *> operands, SMLoc loc,
                const std::string &what);
  /// Whether the weak literal `literal` can take `dtype`; reports if not.
  bool checkLiteralFits(const ExprAST &literal, llvm::StringRef dtype);

  PipelineAST &pipeline;
  llvm::SourceMgr &sourceMgr;
  unsigned numErrors = 0;
  std::set<std::pair<const char *, std::string>> reported;

  struct Binding {
    SMLoc loc;
    ExprType type;
    /// Its expression had an error: uses of it report nothing more.
    bool poisoned = false;
  };
  llvm::StringMap<Binding> bindings;
  /// Dims that parameters bind at run time.
  llvm::StringSet<> knownDims;
};

} // namespace

bool PipelineChecker::checkType(const TypeAST &type, llvm::StringRef what,
                                llvm::StringRef name) {
  if (!isDType(type.dtype))
    return error(type.loc, "unknown dtype '" + type.dtype + "' for " + what +
                               " '" + name + "' (dtypes: " + kDTypeList + ")");
  return true;
}

bool PipelineChecker::check() {
  llvm::StringMap<SMLoc> declared;
  auto declare = [&](const ValueDeclAST &decl) {
    auto [it, inserted] = declared.try_emplace(decl.name, decl.loc);
    if (!inserted) {
      error(decl.loc, "'" + decl.name + "' is declared twice");
      note(it->second, "first declared here");
    }
  };
  auto checkMemory = [&](const ValueDeclAST &decl) {
    if (!decl.memory.empty() && decl.memory != "host" && decl.memory != "device")
      error(decl.memoryLoc, "'@" + decl.memory + "' is not a placement; write "
                            "@host or @device");
  };
  for (ValueDeclAST &param : pipeline.params) {
    declare(param);
    checkMemory(param);
    // A parameter with a bad dtype still binds its name and dims (poisoned),
    // so that its uses report nothing more.
    bool ok = checkType(param.type, "parameter", param.name);
    for (const DimAST &dim : param.type.dims)
      if (dim.isSymbolic())
        knownDims.insert(dim.symbol);
    bindings[param.name] = {param.loc, {param.type.dtype, param.type.dims}, !ok};
  }
  llvm::StringMap<ValueDeclAST *> results;
  for (ValueDeclAST &result : pipeline.results) {
    declare(result);
    checkMemory(result);
    results[result.name] = &result;
    if (!checkType(result.type, "result", result.name))
      continue;
    for (const DimAST &dim : result.type.dims)
      if (dim.isSymbolic() && !knownDims.contains(dim.symbol))
        error(dim.loc, "dim '" + dim.symbol + "' of result '" + result.name +
                           "' is not a dim of any parameter, so its size is "
                           "unknown at run time");
  }

  llvm::StringSet<> assigned;
  for (BindingAST &binding : pipeline.body) {
    bool ok = checkExpr(*binding.value);
    // The parser binds an `if`'s condition as if@k and a `for`'s bound as
    // for@k (see Parser::parseIf and parseFor).
    llvm::StringRef internal = llvm::StringRef(binding.name).split('@').first;
    const ExprType &valueType = binding.value->type;
    if (ok && internal == "if" && valueType.dtype != "bool")
      ok = error(binding.value->getLoc(),
                 "the condition of 'if' must be bool, not " + valueType.str() +
                     "; compare first, e.g. x > 0");
    if (ok && internal == "for" &&
        (!valueType.dims.empty() ||
         !(valueType.isWeakLiteral() ? !valueType.weakFloat
                                     : isIntegerDType(valueType.dtype))))
      ok = error(binding.value->getLoc(),
                 "the bound of 'for' is an integer scalar, not " +
                     valueType.str());
    if (auto it = bindings.find(binding.name); it != bindings.end()) {
      bool isParam = llvm::any_of(pipeline.params, [&](auto &p) {
        return p.name == binding.name;
      });
      error(binding.loc, "'" + binding.name + "' is already bound" +
                             (isParam ? " as a parameter" : "") +
                             "; names are bound once");
      note(it->second.loc, "'" + binding.name + "' is bound here");
      continue;
    }
    ExprType type = binding.value->type;
    auto result = results.find(binding.name);
    if (ok && result != results.end()) {
      const TypeAST &declaredType = result->second->type;
      ExprType expected{declaredType.dtype, declaredType.dims};
      if (type.isWeakLiteral()) {
        if (type.dims != expected.dims) {
          error(binding.loc,
                "dim mismatch: result '" + binding.name + "' is declared " +
                    expected.str() + " but is assigned " +
                    (type.dims.empty()
                         ? std::string("a scalar literal")
                         : "a list of " + type.dims[0].str() + " elements"));
        } else if (llvm::isa<NumberExprAST>(*binding.value)
                       ? checkLiteralFits(*binding.value, expected.dtype)
                       : true) {
          binding.value->type = expected;
          type = expected;
        }
      } else if (type.dtype != expected.dtype) {
        error(binding.loc, "type mismatch: result '" + binding.name +
                               "' is declared " + expected.str() +
                               " but the expression is " + type.str() +
                               "; convert it with a cast, e.g. " +
                               expected.dtype + "(...)");
      } else if (type.dims != expected.dims) {
        error(binding.loc, "dim mismatch: result '" + binding.name +
                               "' is declared " + expected.str() +
                               " but the expression is " + type.str());
      }
      assigned.insert(binding.name);
    }
    bindings[binding.name] = {binding.loc, type, !ok};
  }
  for (ValueDeclAST &result : pipeline.results)
    if (!assigned.contains(result.name) &&
        !llvm::any_of(pipeline.body,
                      [&](auto &b) { return b.name == result.name; }))
      error(result.loc, "result '" + result.name + "' is never assigned");
  return numErrors == 0;
}

bool PipelineChecker::checkLiteralFits(const ExprAST &literal,
                                       llvm::StringRef dtype) {
  if (auto *list = llvm::dyn_cast<ListExprAST>(&literal)) {
    bool ok = true;
    for (const ExprPtr &element : list->elements)
      ok &= checkLiteralFits(*element, dtype);
    return ok;
  }
  auto *number = llvm::dyn_cast<NumberExprAST>(&literal);
  if (!number || isFloatDType(dtype))
    return true;
  if (number->isFloat)
    return error(literal.getLoc(), "float literal cannot be a " + dtype +
                                       " value; write an integer, or convert "
                                       "the other operand to a float");
  if (dtype == "bool")
    return error(literal.getLoc(), "a number cannot be a bool value; write "
                                   "true or false, or compare, e.g. x != 0");
  int64_t value = number->intValue;
  unsigned bits = getDTypeBits(dtype);
  bool fits;
  if (number->exceedsInt64)
    fits = dtype == "u64";
  else if (isUnsignedDType(dtype))
    fits = value >= 0 && (bits == 64 || uint64_t(value) < (uint64_t(1) << bits));
  else
    fits = bits == 64 || (value >= -(int64_t(1) << (bits - 1)) &&
                          value < (int64_t(1) << (bits - 1)));
  if (!fits)
    return error(literal.getLoc(),
                 "literal " +
                     (number->exceedsInt64 ? std::to_string(uint64_t(value))
                                           : std::to_string(value)) +
                     " does not fit in " + dtype);
  return true;
}

/// The dtype a weak literal takes next to a tensor of dtype `strong`.
static std::string resolveWeak(const ExprType &weak, llvm::StringRef strong) {
  if (strong == "bool")
    return weak.weakFloat ? "f32" : "i32";
  if (weak.weakFloat && !isFloatDType(strong))
    return "f32";
  return strong.str();
}

std::optional<std::string>
PipelineChecker::operandDType(llvm::ArrayRef<ExprAST *> operands,
                              Accepts accepts, SMLoc loc,
                              const std::string &what) {
  // Promote the strong operands; weak literals then take the result.
  std::optional<std::string> dtype;
  const ExprAST *first = nullptr;
  for (ExprAST *operand : operands) {
    if (operand->type.isWeakLiteral())
      continue;
    if (!dtype) {
      dtype = operand->type.dtype;
      first = operand;
      continue;
    }
    std::optional<std::string> promoted =
        promoteDTypes(*dtype, operand->type.dtype);
    if (!promoted) {
      error(loc, "type mismatch: " + what + " has operands " +
                     first->type.str() + " and " + operand->type.str() +
                     ", and no dtype holds both; convert one with a cast, "
                     "e.g. f64(...)");
      return std::nullopt;
    }
    dtype = promoted;
  }
  if (!dtype) {
    // Only literals: their default dtypes (i32, f32).
    bool anyFloat = llvm::any_of(
        operands, [](ExprAST *operand) { return operand->type.weakFloat; });
    dtype = anyFloat ? "f32" : "i32";
  } else {
    for (ExprAST *operand : operands)
      if (operand->type.isWeakLiteral())
        dtype = *promoteDTypes(*dtype, resolveWeak(operand->type, *dtype));
  }
  for (ExprAST *operand : operands)
    if (operand->type.isWeakLiteral() && !checkLiteralFits(*operand, *dtype))
      return std::nullopt;

  switch (accepts) {
  case Accepts::Numeric:
    if (*dtype == "bool") {
      error(loc, what + " does not take bool values; convert first, e.g. "
                        "i32(mask)");
      return std::nullopt;
    }
    break;
  case Accepts::FloatResult:
    if (!isFloatDType(*dtype))
      dtype = "f32";
    break;
  case Accepts::IntegerOrBool:
    if (isFloatDType(*dtype)) {
      error(loc, what + " takes integers or bool, not " + *dtype);
      return std::nullopt;
    }
    break;
  case Accepts::Integer:
    if (!isIntegerDType(*dtype)) {
      error(loc, what + " takes integers, not " + *dtype);
      return std::nullopt;
    }
    break;
  case Accepts::Bool:
    for (ExprAST *operand : operands)
      if (operand->type.dtype != "bool") {
        error(operand->getLoc(),
              what + " takes bool values, not " + operand->type.str() +
                  "; compare first, e.g. x != 0");
        return std::nullopt;
      }
    break;
  case Accepts::Any:
    break;
  }
  return dtype;
}

std::optional<std::vector<DimAST>>
PipelineChecker::broadcastDims(llvm::ArrayRef<ExprAST *> operands, SMLoc loc,
                               const std::string &what) {
  std::vector<DimAST> dims;
  const ExprAST *owner = nullptr;
  for (ExprAST *operand : operands) {
    const std::vector<DimAST> &next = operand->type.dims;
    if (next.empty())
      continue;
    if (!owner) {
      dims = next;
      owner = operand;
      continue;
    }
    // Align trailing dims; a missing or literal-1 dim stretches.
    size_t rank = std::max(dims.size(), next.size());
    std::vector<DimAST> result(rank);
    for (size_t i = 0; i < rank; ++i) {
      const DimAST *a = i < rank - dims.size() ? nullptr
                                               : &dims[i - (rank - dims.size())];
      const DimAST *b = i < rank - next.size() ? nullptr
                                               : &next[i - (rank - next.size())];
      auto isOne = [](const DimAST *d) {
        return !d || (!d->isSymbolic() && d->size == 1);
      };
      if (!a || !b) // a dim only one side has (a literal 1 stays 1)
        result[i] = a ? *a : *b;
      else if (*a == *b)
        result[i] = *a;
      else if (isOne(a))
        result[i] = *b;
      else if (isOne(b))
        result[i] = *a;
      else {
        error(loc, "dim mismatch: " + what + " has operands " +
                       owner->type.str() + " and " + operand->type.str() +
                       ", which do not broadcast (" + a->str() + " vs " +
                       b->str() + ")");
        return std::nullopt;
      }
    }
    dims = std::move(result);
  }
  return dims;
}

/// Folds literal arithmetic; the result is a weak literal.
static std::unique_ptr<NumberExprAST> foldLiterals(BinaryOp op,
                                                   const NumberExprAST &l,
                                                   const NumberExprAST &r,
                                                   SMLoc loc) {
  bool isFloat = l.isFloat || r.isFloat || op == BinaryOp::Div;
  auto asDouble = [](const NumberExprAST &n) {
    if (n.isFloat)
      return n.floatValue;
    return n.exceedsInt64 ? double(uint64_t(n.intValue)) : double(n.intValue);
  };
  double lf = asDouble(l), rf = asDouble(r);
  auto folded = std::make_unique<NumberExprAST>(loc, isFloat, 0, 0.0);
  if (isFloat) {
    switch (op) {
    case BinaryOp::Add: folded->floatValue = lf + rf; break;
    case BinaryOp::Sub: folded->floatValue = lf - rf; break;
    case BinaryOp::Mul: folded->floatValue = lf * rf; break;
    case BinaryOp::Div: folded->floatValue = lf / rf; break;
    case BinaryOp::Pow: folded->floatValue = std::pow(lf, rf); break;
    default: return nullptr;
    }
    return folded;
  }
  // Wrap like the 64-bit integers they are.
  uint64_t a = uint64_t(l.intValue), b = uint64_t(r.intValue);
  switch (op) {
  case BinaryOp::Add: folded->intValue = int64_t(a + b); break;
  case BinaryOp::Sub: folded->intValue = int64_t(a - b); break;
  case BinaryOp::Mul: folded->intValue = int64_t(a * b); break;
  default: return nullptr;
  }
  folded->floatValue = double(folded->intValue);
  // Arithmetic on a literal above INT64_MAX stays a u64-only literal.
  folded->exceedsInt64 = l.exceedsInt64 || r.exceedsInt64;
  return folded;
}

bool PipelineChecker::checkExpr(ExprAST &expr) {
  switch (expr.getKind()) {
  case ExprAST::Kind::Number:
    expr.type = ExprType{};
    expr.type.weakFloat = llvm::cast<NumberExprAST>(expr).isFloat;
    return true;
  case ExprAST::Kind::Bool:
    expr.type = ExprType{"bool", {}};
    return true;
  case ExprAST::Kind::Name: {
    auto &name = llvm::cast<NameExprAST>(expr);
    auto it = bindings.find(name.name);
    if (it == bindings.end())
      return error(expr.getLoc(), "unknown name '" + name.name + "'");
    if (it->second.poisoned)
      return false;
    expr.type = it->second.type;
    return true;
  }
  case ExprAST::Kind::Unary:
    return checkUnary(llvm::cast<UnaryExprAST>(expr));
  case ExprAST::Kind::Binary:
    return checkBinary(llvm::cast<BinaryExprAST>(expr));
  case ExprAST::Kind::Call:
    return checkCall(llvm::cast<CallExprAST>(expr));
  case ExprAST::Kind::List:
    return checkList(llvm::cast<ListExprAST>(expr));
  }
  return false;
}

bool PipelineChecker::checkList(ListExprAST &list) {
  if (list.elements.empty())
    return error(list.getLoc(), "a list literal needs at least one element");
  bool anyFloat = false;
  for (ExprPtr &element : list.elements) {
    auto *number = llvm::dyn_cast<NumberExprAST>(element.get());
    if (!number)
      return error(element->getLoc(),
                   "list elements must be number literals");
    anyFloat |= number->isFloat;
  }
  DimAST dim;
  dim.loc = list.getLoc();
  dim.size = int64_t(list.elements.size());
  list.type = ExprType{"", {dim}, anyFloat};
  return true;
}

static Accepts acceptsOf(BinaryOp op) {
  const Spelling *spelling = findSpelling(getSpelling(op), true, 2);
  assert(spelling && "an operator of the parser has no op (dialect/PipeOps.td)");
  return spelling->accepts;
}

static bool isComparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt ||
         op == BinaryOp::Le || op == BinaryOp::Gt || op == BinaryOp::Ge;
}

bool PipelineChecker::checkBinary(BinaryExprAST &expr) {
  bool lhsOk = checkExpr(*expr.lhs);
  bool rhsOk = checkExpr(*expr.rhs);
  if (!lhsOk || !rhsOk)
    return false;
  std::string what = std::string("'") + getSpelling(expr.op) + "'";
  ExprAST *operands[] = {expr.lhs.get(), expr.rhs.get()};
  std::optional<std::vector<DimAST>> dims =
      broadcastDims(operands, expr.getLoc(), what);
  if (!dims)
    return false;
  std::optional<std::string> dtype =
      operandDType(operands, acceptsOf(expr.op), expr.getLoc(), what);
  if (!dtype)
    return false;
  expr.operandDType = *dtype;
  expr.type = ExprType{isComparison(expr.op) ? "bool" : *dtype, *dims};
  return true;
}

bool PipelineChecker::checkUnary(UnaryExprAST &expr) {
  if (!checkExpr(*expr.operand))
    return false;
  std::string what = std::string("'") + getSpelling(expr.op) + "'";
  ExprAST *operands[] = {expr.operand.get()};
  // Unary minus is 0 - x (MLIRGen); the others are ops.
  Accepts accepts = Accepts::Numeric;
  if (expr.op != UnaryOp::Neg) {
    const Spelling *spelling = findSpelling(getSpelling(expr.op), true, 1);
    assert(spelling && "a unary operator has no op (dialect/PipeOps.td)");
    accepts = spelling->accepts;
  }
  if (expr.operand->type.isWeakLiteral()) {
    expr.type = expr.operand->type; // folded away by foldLiteralTrees
    return true;
  }
  std::optional<std::string> dtype =
      operandDType(operands, accepts, expr.getLoc(), what);
  if (!dtype)
    return false;
  expr.type = ExprType{*dtype, expr.operand->type.dims};
  return true;
}

/// The function names a call may use besides casts: every function
/// spelling of an elementwise op, and the special functions.
bool pipec::isBuiltinFunction(llvm::StringRef name) {
  return llvm::is_contained(kSpecialFunctions, name) ||
         llvm::any_of(kSpellings, [&](const Spelling &spelling) {
           return !spelling.isOperator && name == spelling.name;
         });
}

std::vector<std::string> pipec::listLanguage() {
  std::set<std::string> lines;
  for (const char *name : kSpecialFunctions)
    lines.insert(std::string("function ") + name);
  for (const Spelling &spelling : kSpellings)
    lines.insert((spelling.isOperator ? "operator " : "elementwise ") +
                 std::string(spelling.name) + " " +
                 std::to_string(spelling.arity));
  for (const char *dtype : kDTypes)
    lines.insert(std::string("dtype ") + dtype);
  return std::vector<std::string>(lines.begin(), lines.end());
}

bool PipelineChecker::checkCall(CallExprAST &expr) {
  const std::string &callee = expr.callee;
  if (!isDType(callee) && !isBuiltinFunction(callee))
    return error(expr.getLoc(), "unknown function '" + callee + "'");
  if (callee == "transpose")
    return checkTranspose(expr);
  if (callee == "reshape")
    return checkReshape(expr);
  if (isReductionCall(callee, expr.args.size()))
    return checkReduction(expr);
  if (callee == "gaussian_blur")
    return checkGaussianBlur(expr);
  if (callee == "cpu" || callee == "gpu") {
    // x.cpu() / x.gpu(): an explicit copy; the placement pass keeps it or
    // says why it is not needed.
    if (expr.args.size() != 1 || !expr.kwargs.empty())
      return error(expr.getLoc(), "'" + callee + "' moves one tensor, e.g. x." +
                                      callee + "()");
    if (!checkExpr(*expr.args[0]))
      return false;
    if (expr.args[0]->type.isWeakLiteral())
      return error(expr.args[0]->getLoc(), "'" + callee +
                                               "' moves a tensor, not a literal");
    expr.type = expr.args[0]->type;
    return true;
  }
  if (!expr.kwargs.empty())
    return error(expr.kwargs.front().loc, "'" + callee +
                                              "' takes no keyword argument '" +
                                              expr.kwargs.front().name + "'");
  // Casts take one argument; clamp is max then min; the others are ops.
  unsigned arity = 1;
  Accepts accepts = Accepts::Any;
  if (callee == "select") {
    arity = 3;
  } else if (callee == "clamp") {
    arity = 3;
    accepts = Accepts::Numeric;
  } else if (!isDType(callee)) {
    const Spelling *spelling = nullptr;
    for (const Spelling &candidate : kSpellings)
      if (!candidate.isOperator && callee == candidate.name &&
          (!spelling || candidate.arity == expr.args.size()))
        spelling = &candidate;
    assert(spelling && "isBuiltinFunction let an unknown function through");
    arity = spelling->arity;
    accepts = spelling->accepts;
  }
  if (expr.args.size() != arity)
    return error(expr.getLoc(),
                 (isDType(callee) ? "the cast '" : "'") + callee + "' takes " +
                     std::to_string(arity) + " argument" +
                     (arity == 1 ? "" : "s") + ", got " +
                     std::to_string(expr.args.size()));
  bool ok = true;
  for (ExprPtr &arg : expr.args)
    ok &= checkExpr(*arg);
  if (!ok)
    return false;
  std::string what = "'" + callee + "'";
  std::vector<ExprAST *> args;
  for (ExprPtr &arg : expr.args)
    args.push_back(arg.get());
  std::optional<std::vector<DimAST>> dims =
      broadcastDims(args, expr.getLoc(), what);
  if (!dims)
    return false;

  if (isDType(callee)) {
    ExprAST &arg = *expr.args[0];
    // A cast of a literal converts it at its own precision.
    expr.operandDType = arg.type.isWeakLiteral()
                            ? (arg.type.weakFloat ? "f64" : "i64")
                            : arg.type.dtype;
    if (arg.type.isWeakLiteral() && !checkLiteralFits(arg, expr.operandDType))
      return false;
    expr.type = ExprType{callee, *dims};
    return true;
  }
  if (!expr.loopCarried.empty()) {
    // select(i < n, updated, before) for a name a `for` body updates.
    const ExprType &updated = expr.args[1]->type, &before = expr.args[2]->type;
    if (!updated.isWeakLiteral() && !before.isWeakLiteral() &&
        (updated.dtype != before.dtype || updated.dims != before.dims))
      return error(expr.getLoc(),
                   "'" + expr.loopCarried + "' is " + before.str() +
                       " before the loop but the loop makes it " +
                       updated.str() + "; a value a loop updates keeps its "
                       "dtype and dims (convert it, e.g. " + before.dtype +
                       "(...))");
  }
  if (callee == "select") {
    ExprAST &condition = *expr.args[0];
    if (condition.type.dtype != "bool")
      return error(condition.getLoc(),
                   "the condition of 'select' must be bool, not " +
                       condition.type.str() + "; compare first, e.g. x > 0");
    args.erase(args.begin());
  }
  std::optional<std::string> dtype =
      operandDType(args, accepts, expr.getLoc(), what);
  if (!dtype)
    return false;
  expr.operandDType = *dtype;
  expr.type = ExprType{*dtype, *dims};
  return true;
}

ExprAST *PipelineChecker::layoutOperand(CallExprAST &expr,
                                        llvm::StringRef keyword,
                                        llvm::StringRef usage) {
  // f(x, operand) or f(x, keyword = operand)
  ExprAST *operand = expr.args.size() == 2 ? expr.args[1].get() : nullptr;
  for (KeywordArgAST &kwarg : expr.kwargs) {
    if (kwarg.name != keyword) {
      error(kwarg.loc, "'" + expr.callee + "' takes no keyword argument '" +
                           kwarg.name + "'");
      return nullptr;
    }
    operand = kwarg.value.get();
  }
  if (expr.args.empty() || !operand ||
      expr.args.size() + expr.kwargs.size() != 2) {
    error(expr.getLoc(), usage);
    return nullptr;
  }
  if (!checkExpr(*expr.args[0]))
    return nullptr;
  return operand;
}

bool PipelineChecker::checkTranspose(CallExprAST &expr) {
  ExprAST *perm = layoutOperand(expr, "perm",
                                "'transpose' takes a tensor and a permutation, "
                                "e.g. transpose(x, [0, 3, 1, 2])");
  if (!perm)
    return false;
  const ExprType &input = expr.args[0]->type;
  auto *list = llvm::dyn_cast<ListExprAST>(perm);
  std::vector<int64_t> permutation;
  if (list)
    for (ExprPtr &element : list->elements)
      if (auto *number = llvm::dyn_cast<NumberExprAST>(element.get());
          number && !number->isFloat)
        permutation.push_back(number->intValue);
  std::vector<int64_t> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  bool isPermutation = list && permutation.size() == list->elements.size() &&
                       permutation.size() == input.dims.size();
  for (size_t i = 0; isPermutation && i < sorted.size(); ++i)
    isPermutation = sorted[i] == int64_t(i);
  if (!isPermutation)
    return error(perm->getLoc(),
                 "the permutation of 'transpose' must list each dim of " +
                     input.str() + " once, as integer literals 0 to " +
                     std::to_string(int64_t(input.dims.size()) - 1));
  if (input.isWeakLiteral())
    return error(expr.args[0]->getLoc(), "transpose a tensor, not a literal");
  expr.permutation = permutation;
  std::vector<DimAST> dims;
  for (int64_t p : permutation)
    dims.push_back(input.dims[p]);
  expr.type = ExprType{input.dtype, dims};
  return true;
}

bool PipelineChecker::checkReshape(CallExprAST &expr) {
  // The dims are literals or known dim names.
  ExprAST *shape = layoutOperand(expr, "shape",
                                 "'reshape' takes a tensor and a shape, e.g. "
                                 "reshape(x, [N, 3, H, W])");
  if (!shape)
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral())
    return error(expr.args[0]->getLoc(), "reshape a tensor, not a literal");
  auto *list = llvm::dyn_cast<ListExprAST>(shape);
  if (!list)
    return error(shape->getLoc(), "the shape of 'reshape' must be a list of "
                                  "dims, e.g. [N, 3, H, W]");
  std::vector<DimAST> dims;
  for (ExprPtr &element : list->elements) {
    DimAST dim;
    dim.loc = element->getLoc();
    if (auto *name = llvm::dyn_cast<NameExprAST>(element.get())) {
      if (!knownDims.contains(name->name))
        return error(dim.loc, "'" + name->name +
                                  "' is not a dim of any parameter");
      dim.symbol = name->name;
    } else if (auto *number = llvm::dyn_cast<NumberExprAST>(element.get());
               number && !number->isFloat && number->intValue >= 0) {
      dim.size = number->intValue;
    } else {
      return error(dim.loc, "a dim of 'reshape' is a dim name or a "
                            "non-negative integer literal");
    }
    dims.push_back(dim);
  }
  // The element count must provably stay: the same symbols, the same
  // product of literal sizes.
  auto count = [](const std::vector<DimAST> &ds) {
    std::map<std::string, int> symbols;
    int64_t product = 1;
    for (const DimAST &d : ds) {
      if (d.isSymbolic())
        ++symbols[d.symbol];
      else
        product *= d.size;
    }
    return std::make_pair(symbols, product);
  };
  if (count(dims) != count(input.dims)) {
    ExprType target{input.dtype, dims};
    return error(expr.getLoc(), "'reshape' of " + input.str() + " to " +
                                    target.str() +
                                    " does not keep the number of elements");
  }
  expr.type = ExprType{input.dtype, dims};
  return true;
}

bool PipelineChecker::checkAxes(CallExprAST &expr, ExprAST &value,
                                const ExprType &input) {
  int64_t rank = int64_t(input.dims.size());
  std::vector<ExprAST *> elements;
  if (auto *list = llvm::dyn_cast<ListExprAST>(&value)) {
    for (ExprPtr &element : list->elements)
      elements.push_back(element.get());
  } else {
    elements.push_back(&value);
  }
  std::vector<int64_t> axes;
  for (ExprAST *element : elements) {
    auto *number = llvm::dyn_cast<NumberExprAST>(element);
    if (!number || number->isFloat)
      return error(element->getLoc(),
                   "an axis of '" + expr.callee +
                       "' is an integer literal, e.g. axes = [1, 2]");
    int64_t axis = number->intValue < 0 ? number->intValue + rank
                                        : number->intValue;
    if (axis < 0 || axis >= rank)
      return error(element->getLoc(),
                   "axis " + std::to_string(number->intValue) +
                       " is out of range for " + input.str() + " (rank " +
                       std::to_string(rank) + ")");
    if (llvm::is_contained(axes, axis))
      return error(element->getLoc(), "axis " + std::to_string(axis) +
                                          " is listed twice");
    axes.push_back(axis);
  }
  if (axes.empty())
    return error(value.getLoc(), "'" + expr.callee + "' needs at least one "
                                 "axis");
  std::sort(axes.begin(), axes.end());
  expr.axes = axes;
  return true;
}

std::optional<std::string> PipelineChecker::dtypeArgument(ExprAST &value) {
  auto *name = llvm::dyn_cast<NameExprAST>(&value);
  if (!name || !isDType(name->name)) {
    error(value.getLoc(), std::string("dtype = names a dtype (") + kDTypeList +
                              ")");
    return std::nullopt;
  }
  return name->name;
}

bool PipelineChecker::checkReduction(CallExprAST &expr) {
  const std::string &kind = expr.callee;
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'" + kind + "' reduces one tensor, e.g. " +
                                    kind + "(x, axes = [1, 2])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral())
    return error(expr.args[0]->getLoc(), "'" + kind +
                                             "' reduces a tensor, not a "
                                             "literal");
  if (input.dims.empty())
    return error(expr.args[0]->getLoc(),
                 "'" + kind + "' reduces a tensor of rank 1 or more, not " +
                     input.str());
  bool numeric = kind != "any" && kind != "all";
  if (numeric && input.dtype == "bool" && kind != "sum" && kind != "mean")
    return error(expr.args[0]->getLoc(),
                 "'" + kind + "' of bool is not defined; use any/all, or "
                 "convert first, e.g. u8(x)");
  std::optional<std::string> requested;
  bool hasAxes = false;
  for (KeywordArgAST &kwarg : expr.kwargs) {
    if (kwarg.name == "axes") {
      if (!checkAxes(expr, *kwarg.value, input))
        return false;
      hasAxes = true;
    } else if (kwarg.name == "keepdims") {
      auto *value = llvm::dyn_cast<BoolExprAST>(kwarg.value.get());
      if (!value)
        return error(kwarg.value->getLoc(), "keepdims is true or false");
      expr.keepdims = value->value;
    } else if (kwarg.name == "dtype" && kind != "any" && kind != "all") {
      requested = dtypeArgument(*kwarg.value);
      if (!requested)
        return false;
      if (kind == "mean" && !isFloatDType(*requested))
        return error(kwarg.value->getLoc(),
                     "'mean' gives a float dtype (f16 bf16 f32 f64), not " +
                         *requested);
    } else {
      return error(kwarg.loc, "'" + kind + "' takes no keyword argument '" +
                                  kwarg.name + "' (it takes axes, keepdims" +
                                  (numeric ? ", dtype" : "") + ")");
    }
  }
  if (!hasAxes)
    for (int64_t d = 0; d < int64_t(input.dims.size()); ++d)
      expr.axes.push_back(d);
  std::vector<DimAST> dims;
  for (int64_t d = 0; d < int64_t(input.dims.size()); ++d) {
    if (!llvm::is_contained(expr.axes, d)) {
      dims.push_back(input.dims[d]);
    } else if (expr.keepdims) {
      DimAST one;
      one.loc = input.dims[d].loc;
      one.size = 1;
      dims.push_back(one);
    }
  }
  expr.operandDType = input.dtype;
  expr.type = ExprType{requested ? *requested
                                 : getReductionDType(kind, input.dtype),
                       dims};
  return true;
}

/// A number literal as a person would write it: 4, -1, 2.5.
static std::string describeNumber(const NumberExprAST &number) {
  if (!number.isFloat)
    return std::to_string(number.intValue);
  char text[32];
  snprintf(text, sizeof text, "%g", number.floatValue);
  return text;
}

bool PipelineChecker::checkGaussianBlur(CallExprAST &expr) {
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "'gaussian_blur' blurs one tensor, e.g. "
                                "gaussian_blur(x, window = 5, axes = [1, 2])");
  if (!checkExpr(*expr.args[0]))
    return false;
  const ExprType &input = expr.args[0]->type;
  if (input.isWeakLiteral() || input.dims.empty())
    return error(expr.args[0]->getLoc(), "'gaussian_blur' blurs a tensor of "
                                         "rank 1 or more");
  if (input.dtype == "bool")
    return error(expr.args[0]->getLoc(), "'gaussian_blur' of bool is not "
                                         "defined; convert first, e.g. u8(x)");
  ExprAST *window = nullptr, *sigma = nullptr;
  bool hasAxes = false;
  std::optional<std::string> requested;
  SMLoc fillLoc;
  expr.border = "reflect101";
  for (KeywordArgAST &kwarg : expr.kwargs) {
    ExprAST &value = *kwarg.value;
    if (kwarg.name == "window") {
      window = &value;
    } else if (kwarg.name == "sigma") {
      sigma = &value;
    } else if (kwarg.name == "axes") {
      if (!checkAxes(expr, value, input))
        return false;
      hasAxes = true;
    } else if (kwarg.name == "border") {
      auto *name = llvm::dyn_cast<NameExprAST>(&value);
      if (!name || (name->name != "reflect101" && name->name != "clamp" &&
                    name->name != "constant" && name->name != "wrap"))
        return error(value.getLoc(), "border is one of reflect101, clamp, "
                                     "constant, wrap");
      expr.border = name->name;
    } else if (kwarg.name == "fill") {
      auto *number = llvm::dyn_cast<NumberExprAST>(&value);
      if (!number)
        return error(value.getLoc(), "fill is a number literal");
      expr.fill = number->isFloat ? number->floatValue : double(number->intValue);
      fillLoc = kwarg.loc;
    } else if (kwarg.name == "dtype") {
      requested = dtypeArgument(value);
      if (!requested)
        return false;
      if (*requested == "bool")
        return error(value.getLoc(), "'gaussian_blur' cannot give bool");
    } else {
      return error(kwarg.loc, "'gaussian_blur' takes no keyword argument '" +
                                  kwarg.name +
                                  "' (it takes window, sigma, axes, border, "
                                  "fill, dtype)");
    }
  }
  if (fillLoc.isValid() && expr.border != "constant")
    return error(fillLoc, "fill applies only with border = constant");
  int64_t rank = int64_t(input.dims.size());
  if (!hasAxes)
    for (int64_t d = rank > 1 ? 1 : 0; d < rank; ++d)
      expr.axes.push_back(d);
  if (!window && !sigma)
    return error(expr.getLoc(), "'gaussian_blur' needs a window, a sigma, or "
                                "both, e.g. window = 5");
  // A literal is checked here; a tensor has the input's leading dims (one
  // value per sample) or none, and is checked when the pipeline runs.
  auto checkParam = [&](ExprAST *param, bool isWindow) -> bool {
    if (!param)
      return true;
    const char *what = isWindow ? "window" : "sigma";
    if (auto *number = llvm::dyn_cast<NumberExprAST>(param)) {
      param->type = ExprType{};
      param->type.weakFloat = number->isFloat;
      double v = number->isFloat ? number->floatValue : double(number->intValue);
      if (isWindow && (number->isFloat || v < 1 || int64_t(v) % 2 == 0))
        return error(param->getLoc(), "the window of 'gaussian_blur' is an "
                                      "odd positive integer, not " +
                                          describeNumber(*number));
      if (!isWindow && !(v > 0))
        return error(param->getLoc(), "the sigma of 'gaussian_blur' must be "
                                      "positive");
      return true;
    }
    if (!checkExpr(*param))
      return false;
    const ExprType &type = param->type;
    if (type.isWeakLiteral())
      return error(param->getLoc(), std::string("the ") + what +
                                        " is a number or a tensor");
    if (isWindow ? !isIntegerDType(type.dtype)
                 : !(isFloatDType(type.dtype) || isIntegerDType(type.dtype)))
      return error(param->getLoc(),
                   std::string("the ") + what + " of 'gaussian_blur' is " +
                       (isWindow ? "an integer" : "a number") + ", not " +
                       type.dtype);
    bool prefix = type.dims.size() <= size_t(expr.axes.front());
    for (size_t d = 0; prefix && d < type.dims.size(); ++d)
      prefix = type.dims[d] == input.dims[d];
    if (!prefix)
      return error(param->getLoc(),
                   std::string("the ") + what + " " + type.str() +
                       " must be a scalar or have the leading dims of " +
                       input.str() + " before the first blurred axis (one " +
                       what + " per sample)");
    return true;
  };
  if (!checkParam(window, true) || !checkParam(sigma, false))
    return false;
  expr.operandDType = input.dtype;
  expr.type = ExprType{requested ? *requested : input.dtype, input.dims};
  return true;
}

/// Replaces literal-only subtrees by their folded value, bottom up, so that
/// MLIRGen sees one literal per weakly typed operand.
static void foldLiteralTrees(std::unique_ptr<ExprAST> &expr) {
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(expr.get())) {
    foldLiteralTrees(binary->lhs);
    foldLiteralTrees(binary->rhs);
    auto *l = llvm::dyn_cast<NumberExprAST>(binary->lhs.get());
    auto *r = llvm::dyn_cast<NumberExprAST>(binary->rhs.get());
    if (l && r)
      if (auto folded = foldLiterals(binary->op, *l, *r, binary->getLoc()))
        expr = std::move(folded);
  } else if (auto *unary = llvm::dyn_cast<UnaryExprAST>(expr.get())) {
    foldLiteralTrees(unary->operand);
    auto *number = llvm::dyn_cast<NumberExprAST>(unary->operand.get());
    if (number && unary->op == UnaryOp::Neg) {
      number->intValue = int64_t(0 - uint64_t(number->intValue));
      number->floatValue = -number->floatValue;
      // -9223372036854775808 is the one such literal an i64 holds.
      if (number->exceedsInt64 && number->intValue == INT64_MIN)
        number->exceedsInt64 = false;
      // The literal now starts at the '-'.
      expr = std::make_unique<NumberExprAST>(
          unary->getLoc(), number->isFloat, number->intValue,
          number->floatValue, number->exceedsInt64);
    }
  } else if (auto *call = llvm::dyn_cast<CallExprAST>(expr.get())) {
    for (auto &arg : call->args)
      foldLiteralTrees(arg);
    for (KeywordArgAST &kwarg : call->kwargs)
      foldLiteralTrees(kwarg.value);
  } else if (auto *list = llvm::dyn_cast<ListExprAST>(expr.get())) {
    for (auto &element : list->elements)
      foldLiteralTrees(element);
  }
}

bool pipec::checkModule(ModuleAST &module, llvm::SourceMgr &sourceMgr) {
  bool ok = true;
  llvm::StringMap<SMLoc> names;
  for (PipelineAST &pipeline : module.pipelines) {
    auto [it, inserted] = names.try_emplace(pipeline.name, pipeline.loc);
    if (!inserted) {
      sourceMgr.PrintMessage(pipeline.loc, llvm::SourceMgr::DK_Error,
                             "pipeline '" + pipeline.name +
                                 "' is defined twice");
      sourceMgr.PrintMessage(it->second, llvm::SourceMgr::DK_Note,
                             "first defined here");
      ok = false;
    }
    for (BindingAST &binding : pipeline.body)
      foldLiteralTrees(binding.value);
    ok &= PipelineChecker(pipeline, sourceMgr).check();
  }
  return ok;
}
