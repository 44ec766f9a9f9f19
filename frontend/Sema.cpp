//===- Sema.cpp - Name, dtype and dim checking for .pipe ------------------===//

#include "frontend/Sema.h"
#include "frontend/SemaChecker.h"

#include "dialect/PipeSpellings.inc"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace pipec;
using namespace pipec::sema;
using llvm::SMLoc;

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

/// A function of a structured op (dialect/PipeSource.td): its name, the
/// most positional arguments it takes and its keywords.
struct Function {
  const char *name;
  unsigned positional;
  const char *keywords;
};
const Function kFunctions[] = {
#define PIPE_FUNCTION(Class, name, positional, keywords)                       \
  {name, positional, keywords},
    PIPE_FUNCTIONS(PIPE_FUNCTION)
#undef PIPE_FUNCTION
};

/// Functions that are no op of their own: clamp is max then min.
const char *const kSpecialFunctions[] = {"clamp"};

bool hasElementwiseSpelling(llvm::StringRef name, size_t arity) {
  return llvm::any_of(kSpellings, [&](const Spelling &spelling) {
    return !spelling.isOperator && name == spelling.name &&
           (arity == 0 || spelling.arity == arity);
  });
}

const Function *findFunction(llvm::StringRef name) {
  for (const Function &function : kFunctions)
    if (name == function.name)
      return &function;
  return nullptr;
}

} // namespace

/// The dtype of a dim's value on its own (`W - 1`): i64, or f32 with a
/// float in it.
static std::string dimValueDType(const ExprType &type) {
  return type.weakFloat ? "f32" : "i64";
}

bool PipelineChecker::checkType(const TypeAST &type, llvm::StringRef what,
                                llvm::StringRef name) {
  if (!isDType(type.dtype))
    return error(type.loc, "unknown dtype '" + type.dtype + "' for " + what +
                               " '" + name + "' (dtypes: " + getDTypeList() +
                               ")");
  for (const DimAST &dim : type.dims)
    if (dim.isSymbolic())
      if (auto expr = pipert::DimExpr::parse(dim.symbol);
          expr && expr->dividesByZero())
        return error(dim.loc, "dim '" + dim.symbol + "' of " + what + " '" +
                                  name + "' divides by zero");
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
    for (const DimAST &dim : param.type.dims) {
      if (!dim.isSymbolic())
        continue;
      // A parameter binds its dims: each one a literal or a name.
      if (!pipert::DimExpr::parse(dim.symbol)->isSymbol()) {
        ok = error(dim.loc, "a parameter's dim is a literal or a name, which "
                            "its tensor binds; '" + dim.symbol +
                            "' is a size computed from dims (results and "
                            "values may have those)");
        continue;
      }
      // The runtime passes the random seed and run number to kernels as
      // dims of these names (core/DimExpr.h).
      if (llvm::StringRef(dim.symbol).starts_with("__pipe")) {
        ok = error(dim.loc, "dim names beginning with '__pipe' are "
                            "reserved");
        continue;
      }
      knownDims.insert(dim.symbol);
    }
    bindings[param.name] = {param.loc, {param.type.dtype, param.type.dims}, !ok};
  }
  // A dim's name is a value of its own (its size): no parameter, result
  // or binding may take it, or the name would mean two things.
  auto dimNameTaken = [&](const std::string &name, SMLoc loc,
                          const char *what) {
    if (!knownDims.contains(name))
      return false;
    error(loc, "'" + name + "' is the name of a dim; a " + what +
                   " cannot take it (in the body, " + name +
                   " is that dim's size)");
    return true;
  };
  for (ValueDeclAST &param : pipeline.params)
    dimNameTaken(param.name, param.loc, "parameter");
  llvm::StringMap<ValueDeclAST *> results;
  for (ValueDeclAST &result : pipeline.results) {
    dimNameTaken(result.name, result.loc, "result");
    declare(result);
    checkMemory(result);
    results[result.name] = &result;
    if (!checkType(result.type, "result", result.name))
      continue;
    for (const DimAST &dim : result.type.dims) {
      if (!dim.isSymbolic())
        continue;
      std::set<std::string> symbols;
      pipert::DimExpr::parse(dim.symbol)->collectSymbols(symbols);
      for (const std::string &symbol : symbols)
        if (!knownDims.contains(symbol))
          error(dim.loc, "dim '" + symbol + "' of result '" + result.name +
                             "' is not a dim of any parameter, so its size is "
                             "unknown at run time");
    }
  }

  llvm::StringSet<> assigned;
  for (BindingAST &binding : pipeline.body) {
    iteration = binding.iteration;
    bool ok = checkExpr(*binding.value);
    // Inside `if` and `for` too, where the name is a version (N@k).
    std::string source = llvm::StringRef(binding.name).split('@').first.str();
    if (!results.count(binding.name) &&
        dimNameTaken(source, binding.loc, "binding"))
      continue;
    // The parser binds an `if`'s condition as if@k and a `for`'s bound as
    // for@k (see Parser::parseIf and parseFor).
    llvm::StringRef internal = llvm::StringRef(binding.name).split('@').first;
    // A for's bound is i64(bound) (Parser::parseLoopBody): its own type
    // is the one to check.
    const ExprType &valueType =
        internal == "for"
            ? llvm::cast<CallExprAST>(*binding.value).args[0]->type
            : binding.value->type;
    if (ok && internal == "if" && valueType.dtype != "bool")
      ok = error(binding.value->getLoc(),
                 "the condition of 'if' must be bool, not " + valueType.str() +
                     "; compare first, e.g. x > 0");
    if (ok && internal == "for" &&
        (!valueType.dims.empty() ||
         !(valueType.isWeakLiteral() ? !valueType.weakFloat
                                     : isIntegerDType(valueType.dtype))))
      ok = error(llvm::cast<CallExprAST>(*binding.value).args[0]->getLoc(),
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
    // What the name's uses see: a weak literal or dim expression stays weak
    // where it is used, also when it is a result too (which is emitted in
    // the result's dtype).
    std::optional<ExprType> weakUse;
    if (type.isWeakLiteral())
      weakUse = type;
    // Not so a result that an `if` or a `for` updates (the parser's
    // versions of its name, `r@k`, which folding leaves as names): from
    // its first binding it is a value of the result's dtype, so that `r =
    // 0` then `r = i32(r - c)` in a loop subtracts in i32 from the first
    // iteration on, as in every later one (a loop keeps an updated value's
    // dtype), not in c's dtype.
    auto version = results.find(internal);
    bool isVersion = internal != binding.name && version != results.end();
    // A dim's value so updated is the i64 it is on its own (f32 with a
    // float in it), as when a result is bound to it at the top level: a
    // result of another dtype takes a cast (it was left weak, and the
    // loop's `r - c` then computed in c's dtype: u8).
    if (ok && isVersion && type.isWeakLiteral() && type.weakDim) {
      std::string dimDType = dimValueDType(type);
      if (version->second->type.dtype != dimDType)
        ok = error(binding.value->getLoc(),
                   "type mismatch: result '" + internal.str() +
                       "' is declared " + version->second->type.dtype +
                       " but is bound here to a dim's value, " + dimDType +
                       "; convert it with a cast, e.g. " +
                       version->second->type.dtype + "(...)");
      else if (literalTakes(binding, ExprType{dimDType, type.dims}, type))
        weakUse.reset();
    }
    if (ok && type.isWeakLiteral() && !type.weakDim && isVersion) {
      bool scalar = type.dims.empty();
      ok = literalTakes(binding,
                        ExprType{version->second->type.dtype, type.dims}, type);
      if (ok && scalar)
        scalarLiteralVersions.insert(binding.name);
      if (ok)
        weakUse.reset();
    }
    auto result = results.find(binding.name);
    if (ok && result != results.end()) {
      const TypeAST &declaredType = result->second->type;
      ExprType expected{declaredType.dtype, declaredType.dims};
      // A dim's value on its own is i64 (f32 with a float in it): another
      // dtype takes a cast, as any expression's does.
      std::string dimDType = dimValueDType(type);
      if (type.isWeakLiteral() && type.weakDim && type.dims.empty() &&
          expected.dims.empty() && expected.dtype != dimDType) {
        error(binding.loc, "type mismatch: result '" + binding.name +
                               "' is declared " + expected.str() +
                               " but the expression is a dim's value, " +
                               dimDType + "; convert it with a cast, e.g. " +
                               expected.dtype + "(...)");
      } else if (type.isWeakLiteral()) {
        if (type.dims != expected.dims) {
          error(binding.loc,
                "dim mismatch: result '" + binding.name + "' is declared " +
                    expected.str() + " but is assigned " +
                    (type.dims.empty()
                         ? std::string("a scalar literal")
                         : "a list of " + type.dims[0].str() + " elements"));
        } else {
          literalTakes(binding, expected, type);
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
    bindings[binding.name] = {binding.loc, weakUse ? *weakUse : type, !ok};
  }
  iteration.clear();
  for (ValueDeclAST &result : pipeline.results)
    if (!assigned.contains(result.name) &&
        !llvm::any_of(pipeline.body,
                      [&](auto &b) { return b.name == result.name; }))
      error(result.loc, "result '" + result.name + "' is never assigned");
  return numErrors == 0;
}

bool PipelineChecker::literalTakes(BindingAST &binding, const ExprType &as,
                                   ExprType &type) {
  // (A tree over a `~`, `z = ~0`, takes the result's dtype too.)
  if (isLiteralTree(*binding.value) &&
      !checkLiteralFits(*binding.value, as.dtype))
    return false;
  binding.value->type = as;
  type = as;
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
    bool anyDim = llvm::any_of(
        operands, [](ExprAST *operand) { return operand->type.weakDim; });
    dtype = anyFloat ? "f32" : anyDim ? "i64" : "i32";
  } else {
    for (ExprAST *operand : operands)
      if (operand->type.isWeakLiteral())
        dtype = *promoteDTypes(*dtype, resolveWeak(operand->type, *dtype));
  }
  // `~` of a literal is folded by the dtype the literal takes: one that
  // takes a float has no bits to flip.
  if (isFloatDType(*dtype))
    for (ExprAST *operand : operands)
      if (operand->type.isWeakLiteral() && !operand->type.weakDim)
        if (const UnaryExprAST *bitNot = findLiteralBitNot(*operand)) {
          error(bitNot->getLoc(),
                "'~' takes integers, but this literal is " + *dtype +
                    " here, as " + what + " computes; write the integer's "
                    "value, or apply '~' to an integer tensor");
          return std::nullopt;
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
                               const std::string &what,
                               const std::string &mismatch) {
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
        error(loc, (mismatch.empty()
                        ? "dim mismatch: " + what + " has operands " +
                              owner->type.str() + " and " +
                              operand->type.str() + ", which do not broadcast"
                        : mismatch) +
                       " (" + a->str() + " vs " + b->str() + ")");
        return std::nullopt;
      }
    }
    dims = std::move(result);
  }
  return dims;
}

bool PipelineChecker::checkExpr(ExprAST &expr) {
  if (!checkExprOfKind(expr))
    return false;
  // An op's dims are sizes it derives from its operands' (a chain of
  // x[::2] nests ceil in ceil): each must be one the later stages read.
  for (size_t d = 0; d < expr.type.dims.size(); ++d) {
    const DimAST &dim = expr.type.dims[d];
    if (!dim.isSymbolic() || llvm::isa<NameExprAST>(expr))
      continue;
    std::shared_ptr<const pipert::DimExpr> size =
        pipert::DimExpr::parseCached(dim.symbol);
    if (size && size->depth() <= pipert::DimExpr::kMaxDepth)
      continue;
    // (Too deep, or no size at all: more than kMaxTerms terms.)
    std::string why = pipert::describeTooDeep();
    if (!size)
      pipert::DimExpr::parse(dim.symbol, &why);
    std::string text = dim.symbol.size() > 60
                           ? dim.symbol.substr(0, 57) + "..."
                           : dim.symbol;
    return error(expr.getLoc(), "dim " + std::to_string(d) +
                                    " of this value would be '" + text +
                                    "': " + why);
  }
  return true;
}

bool PipelineChecker::checkExprOfKind(ExprAST &expr) {
  switch (expr.getKind()) {
  case ExprAST::Kind::Number:
    expr.type = ExprType{};
    expr.type.weakFloat = llvm::cast<NumberExprAST>(expr).isFloat;
    return true;
  case ExprAST::Kind::Bool:
    expr.type = ExprType{"bool", {}};
    return true;
  case ExprAST::Kind::Name:
    return checkName(llvm::cast<NameExprAST>(expr));
  case ExprAST::Kind::Subscript:
    return checkSubscript(llvm::cast<SubscriptExprAST>(expr));
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

bool PipelineChecker::checkName(NameExprAST &name) {
  auto it = bindings.find(name.name);
  if (it != bindings.end()) {
    if (it->second.poisoned)
      return false;
    name.type = it->second.type;
    return true;
  }
  // A dim's size as a value: an integer known when the pipeline runs,
  // weakly typed like a literal (and i64 alone).
  if (knownDims.contains(name.name)) {
    name.isDim = true;
    name.type = ExprType{};
    name.type.weakDim = true;
    return true;
  }
  return error(name.getLoc(), "unknown name '" + name.name + "'");
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

/// The weak type of an operation on dims and literals alone, with at least
/// one dim (`W - 1`, `min(H, W)`), computed in `dtype`; none otherwise.
static std::optional<ExprType> weakDimType(llvm::ArrayRef<ExprAST *> operands,
                                           const std::vector<DimAST> &dims,
                                           llvm::StringRef dtype) {
  if (!llvm::all_of(operands,
                    [](ExprAST *e) { return e->type.isWeakLiteral(); }) ||
      !llvm::any_of(operands, [](ExprAST *e) { return e->type.weakDim; }))
    return std::nullopt;
  ExprType type{"", dims};
  type.weakFloat = isFloatDType(dtype);
  type.weakDim = true;
  return type;
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
  // Integer literals that folding left to the run time (`7 // 0`: docs,
  // Literals) stay weak: computed in 64 bits (their quotient is 0 in any
  // dtype), their user converts it.
  auto isIntegerNumber = [](const ExprAST &operand) {
    auto *number = llvm::dyn_cast<NumberExprAST>(&operand);
    return number && !number->isFloat;
  };
  if (isIntegerNumber(*expr.lhs) && isIntegerNumber(*expr.rhs) &&
      !isComparison(expr.op)) {
    bool wide = llvm::cast<NumberExprAST>(*expr.lhs).exceedsInt64 ||
                llvm::cast<NumberExprAST>(*expr.rhs).exceedsInt64;
    expr.operandDType = wide ? "u64" : "i64";
    if (!checkLiteralFits(*expr.lhs, expr.operandDType) ||
        !checkLiteralFits(*expr.rhs, expr.operandDType))
      return false;
    expr.type = ExprType{"", *dims};
    return true;
  }
  // Integer literals over a `~` (`~0 & 255`), which folding leaves to the
  // run time, stay weak as the `~` is: the tree computes in the dtype it
  // takes (MLIRGen: an empty operand dtype), where each literal of it
  // must fit (checkLiteralFits). Floats, comparisons and dims go on below.
  const Accepts accepts = acceptsOf(expr.op);
  if (!isComparison(expr.op) && accepts != Accepts::FloatResult &&
      llvm::all_of(operands,
                   [](ExprAST *e) {
                     return e->type.isWeakLiteral() && !e->type.weakFloat &&
                            !e->type.weakDim;
                   }) &&
      llvm::any_of(operands, [](ExprAST *e) {
        return findLiteralBitNot(*e) != nullptr;
      })) {
    expr.operandDType.clear();
    expr.type = ExprType{"", *dims};
    return true;
  }
  std::optional<std::string> dtype =
      operandDType(operands, accepts, expr.getLoc(), what);
  if (!dtype)
    return false;
  expr.operandDType = *dtype;
  expr.type = ExprType{isComparison(expr.op) ? "bool" : *dtype, *dims};
  // Arithmetic on dims (and literals) alone stays weakly typed, computed
  // in i64 (f32 with a float): `W - 1` takes the other operand's dtype.
  if (!isComparison(expr.op))
    if (std::optional<ExprType> weak = weakDimType(operands, *dims, *dtype))
      expr.type = *weak;
  return true;
}

bool PipelineChecker::checkUnary(UnaryExprAST &expr) {
  if (!checkExpr(*expr.operand))
    return false;
  std::string what = std::string("'") + getSpelling(expr.op) + "'";
  ExprAST *operands[] = {expr.operand.get()};
  const Spelling *spelling = findSpelling(getSpelling(expr.op), true, 1);
  assert(spelling && "a unary operator has no op (dialect/PipeOps.td)");
  const Accepts accepts = spelling->accepts;
  if (expr.operand->type.isWeakLiteral()) {
    // A number literal takes the same rules as a tensor would: `!` is of
    // bool (there is no weak bool: `true` has the bool dtype), `~` of
    // integers.
    if (accepts == Accepts::Bool)
      return error(expr.operand->getLoc(),
                   what + " takes bool values, not a number literal; "
                          "compare first, e.g. x != 0, or write ~ for the "
                          "bits of an integer");
    if ((accepts == Accepts::IntegerOrBool || accepts == Accepts::Integer) &&
        expr.operand->type.weakFloat)
      return error(expr.operand->getLoc(),
                   what + " takes integers, not a float literal");
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
         hasElementwiseSpelling(name, 0) || findFunction(name);
}

std::vector<std::string> pipec::listLanguage() {
  std::set<std::string> lines;
  for (const char *name : kSpecialFunctions)
    lines.insert(std::string("function ") + name);
  for (const Function &function : kFunctions)
    lines.insert(std::string("function ") + function.name);
  for (const Spelling &spelling : kSpellings)
    lines.insert((spelling.isOperator ? "operator " : "elementwise ") +
                 std::string(spelling.name) + " " +
                 std::to_string(spelling.arity));
  for (const char *dtype : getDTypeNames())
    lines.insert(std::string("dtype ") + dtype);
  return std::vector<std::string>(lines.begin(), lines.end());
}

bool PipelineChecker::checkCall(CallExprAST &expr) {
  const std::string &callee = expr.callee;
  size_t count = expr.args.size();
  // A cast, clamp, or an elementwise function of this many operands.
  if (isDType(callee) || callee == "clamp" || callee == "select" ||
      hasElementwiseSpelling(callee, count))
    return checkElementwiseCall(expr);
  // A structured op's function: its keywords, then its own checks (min
  // and max of one tensor reduce). An elementwise function of another
  // arity reports that.
  const Function *function = findFunction(callee);
  if (function && (count <= function->positional ||
                   !hasElementwiseSpelling(callee, 0))) {
    if (!checkKeywords(expr, function->keywords))
      return false;
#define PIPE_FUNCTION(Class, name, positional, keywords)                       \
  if (callee == name)                                                          \
    return check##Class##Op(expr) &&                                           \
           checkPositionalCount(expr, positional, keywords);
    PIPE_FUNCTIONS(PIPE_FUNCTION)
#undef PIPE_FUNCTION
  }
  if (hasElementwiseSpelling(callee, 0))
    return checkElementwiseCall(expr);
  return error(expr.getLoc(), "unknown function '" + callee + "'");
}

bool PipelineChecker::checkElementwiseCall(CallExprAST &expr) {
  const std::string &callee = expr.callee;
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
  // (Before the select's own checks: their message would name it.)
  if (!expr.loopCarried.empty()) {
    // select(i < n, updated, before) for a name a `for` body updates.
    const ExprType &updated = expr.args[1]->type, &before = expr.args[2]->type;
    // A result's scalar literal (`acc = 0`) the loop may make a tensor.
    auto *name = llvm::dyn_cast<NameExprAST>(expr.args[2].get());
    bool literalBefore = name && scalarLiteralVersions.contains(name->name);
    if (!updated.isWeakLiteral() && !before.isWeakLiteral() &&
        (updated.dtype != before.dtype ||
         (updated.dims != before.dims && !literalBefore)))
      return error(expr.getLoc(),
                   "'" + expr.loopCarried + "' is " + before.str() +
                       " before the loop but the loop makes it " +
                       updated.str() + "; a value a loop updates keeps its "
                       "dtype and dims" +
                       (updated.dtype != before.dtype
                            ? " (convert it, e.g. " + before.dtype + "(...))"
                            : std::string()));
  }
  // An if's merge of a name: the branches' values, not a select's operands
  // (the user wrote no select).
  std::string mismatch;
  if (!expr.versionMerge.empty() && expr.loopCarried.empty()) {
    // The branches first: where they agree, what does not broadcast is
    // the condition.
    if (!broadcastDims({args[1], args[2]}, expr.getLoc(), what,
                       expr.versionMerge + " is " + expr.args[1]->type.str() +
                           " or " + expr.args[2]->type.str() +
                           ", dims that do not broadcast: an if's branches "
                           "must leave a name dims that broadcast"))
      return false;
    mismatch = "the if's condition is " + expr.args[0]->type.str() + " and " +
               expr.versionMerge + " is " + expr.args[1]->type.str() +
               (expr.args[1]->type.dims == expr.args[2]->type.dims
                    ? ""
                    : " or " + expr.args[2]->type.str()) +
               ", dims that do not broadcast: a condition broadcasts with "
               "the values it chooses between";
  }
  std::optional<std::vector<DimAST>> dims =
      broadcastDims(args, expr.getLoc(), what, mismatch);
  if (!dims)
    return false;

  if (isDType(callee)) {
    ExprAST &arg = *expr.args[0];
    // A cast of a literal converts it at its own precision (an integer
    // past the i64s is a u64's).
    auto *literal = llvm::dyn_cast<NumberExprAST>(&arg);
    expr.operandDType = !arg.type.isWeakLiteral() ? arg.type.dtype
                        : arg.type.weakFloat      ? "f64"
                        : literal && literal->exceedsInt64 ? "u64"
                                                           : "i64";
    if (arg.type.isWeakLiteral() && !checkLiteralFits(arg, expr.operandDType))
      return false;
    expr.type = ExprType{callee, *dims};
    return true;
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
  // A function of dims and literals alone (`min(H, W)`) is weakly typed,
  // as their arithmetic is (checkBinary): computed in its operand dtype,
  // its user converts it.
  if (callee != "select")
    if (std::optional<ExprType> weak = weakDimType(args, *dims, *dtype))
      expr.type = *weak;
  return true;
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
    // Names bound to literals are the literals where they are used (each
    // name is bound once: the parser versions a loop's or an if's).
    bool folded = true;
    llvm::StringMap<const ExprAST *> literals;
    llvm::StringSet<> resultNames;
    for (const ValueDeclAST &result : pipeline.results)
      resultNames.insert(result.name);
    for (BindingAST &binding : pipeline.body) {
      folded &= foldLiteralTrees(binding.value, sourceMgr, &literals);
      const ExprAST &value = *binding.value;
      // A number or list literal, or a tree over a `~` (`n = ~1`), which
      // folding leaves: the `~` applies in the dtype it takes where used.
      // Or `true` or `false`, a bool scalar either way, but a literal
      // where a keyword wants one (`keepdims = kd`).
      bool literal =
          llvm::isa<BoolExprAST>(value) ||
          (isLiteralTree(value) &&
           (llvm::isa<NumberExprAST, ListExprAST>(value) ||
            findLiteralBitNot(value)));
      // (Not an if's condition: `if 1` is an error there, and the merges'
      // selects would say it again about a condition the user never wrote.
      // Nor a version of a result that an `if` or a `for` updates, `r@k`:
      // that is a value of the result's dtype, PipelineChecker::check.)
      auto [base, version] = llvm::StringRef(binding.name).split('@');
      bool updatedResult = !version.empty() && resultNames.contains(base);
      if (literal && base != "if" && !updatedResult)
        literals[binding.name] = &value;
    }
    ok &= folded && PipelineChecker(pipeline, sourceMgr).check();
  }
  return ok;
}
