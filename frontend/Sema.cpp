//===- Sema.cpp - Name, dtype and dim checking for .pipe ------------------===//

#include "frontend/Sema.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Casting.h"

#include <cmath>

using namespace pipec;
using llvm::SMLoc;

static const char *const kSupportedDTypes[] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"};
static const char *const kPlannedDTypes[] = {"bool", "f16", "bf16"};

bool pipec::isSupportedDType(llvm::StringRef name) {
  return llvm::is_contained(kSupportedDTypes, name);
}
bool pipec::isKnownDType(llvm::StringRef name) {
  return isSupportedDType(name) || llvm::is_contained(kPlannedDTypes, name);
}
bool pipec::isFloatDType(llvm::StringRef name) { return name.starts_with("f"); }
bool pipec::isUnsignedDType(llvm::StringRef name) {
  return name.starts_with("u");
}
unsigned pipec::getDTypeBits(llvm::StringRef name) {
  unsigned bits = 0;
  name.drop_front(1).getAsInteger(10, bits);
  return bits;
}

std::string ExprType::str() const {
  if (isWeakLiteral())
    return "literal";
  std::string text = dtype;
  if (dims.empty())
    return text;
  text += "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + dims[i].str();
  return text + "]";
}

namespace {

/// Checks one pipeline. Errors are counted, not fatal: each statement is
/// checked even after an earlier one failed, so a user sees all of them.
class PipelineChecker {
public:
  PipelineChecker(PipelineAST &pipeline, llvm::SourceMgr &sourceMgr)
      : pipeline(pipeline), sourceMgr(sourceMgr) {}

  bool check();

private:
  bool error(SMLoc loc, const llvm::Twine &message) {
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
  bool checkCall(CallExprAST &expr);
  /// Whether the weak literal `literal` can take `dtype`; reports if not.
  bool checkLiteralFits(const ExprAST &literal, llvm::StringRef dtype);
  bool checkSameDims(const ExprType &lhs, const ExprType &rhs, SMLoc loc,
                     llvm::StringRef context);

  PipelineAST &pipeline;
  llvm::SourceMgr &sourceMgr;
  unsigned numErrors = 0;

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
  if (!isKnownDType(type.dtype))
    return error(type.loc, "unknown dtype '" + type.dtype + "' for " + what +
                               " '" + name +
                               "' (dtypes: u8 i8 u16 i16 u32 i32 u64 i64 f32 "
                               "f64)");
  if (!isSupportedDType(type.dtype))
    return error(type.loc, "dtype '" + type.dtype +
                               "' is not supported yet (supported: u8 i8 u16 "
                               "i16 u32 i32 u64 i64 f32 f64)");
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
  for (ValueDeclAST &param : pipeline.params) {
    declare(param);
    if (!checkType(param.type, "parameter", param.name))
      continue;
    for (const DimAST &dim : param.type.dims)
      if (dim.isSymbolic())
        knownDims.insert(dim.symbol);
    bindings[param.name] = {param.loc, {param.type.dtype, param.type.dims}};
  }
  llvm::StringMap<ValueDeclAST *> results;
  for (ValueDeclAST &result : pipeline.results) {
    declare(result);
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
        if (!expected.dims.empty()) {
          error(binding.value->getLoc(),
                "result '" + binding.name + "' is declared " + expected.str() +
                    " but is assigned a scalar literal");
        } else if (checkLiteralFits(*binding.value, expected.dtype)) {
          binding.value->type = expected;
          type = expected;
        }
      } else if (type.dtype != expected.dtype) {
        error(binding.loc,
              "type mismatch: result '" + binding.name + "' is declared " +
                  expected.str() + " but the expression is " + type.str());
      } else if (type.dims.size() != expected.dims.size() ||
                 type.dims != expected.dims) {
        error(binding.loc,
              "dim mismatch: result '" + binding.name + "' is declared " +
                  expected.str() + " but the expression is " + type.str());
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
  auto *number = llvm::dyn_cast<NumberExprAST>(&literal);
  if (!number)
    return true;
  if (isFloatDType(dtype))
    return true;
  if (number->isFloat)
    return error(literal.getLoc(),
                 "float literal cannot be a " + dtype +
                     " operand; convert the tensor first, e.g. f32(x)");
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

bool PipelineChecker::checkSameDims(const ExprType &lhs, const ExprType &rhs,
                                    SMLoc loc, llvm::StringRef context) {
  if (lhs.dims.empty() || rhs.dims.empty())
    return true; // A scalar broadcasts.
  if (lhs.dims.size() != rhs.dims.size())
    return error(loc, "dim mismatch: " + context + " has operands " +
                          lhs.str() + " and " + rhs.str() +
                          " of different ranks");
  for (size_t i = 0; i < lhs.dims.size(); ++i)
    if (!(lhs.dims[i] == rhs.dims[i]))
      return error(loc, "dim mismatch: dim " + std::to_string(i) + " is " +
                            lhs.dims[i].str() + " in the left operand (" +
                            lhs.str() + ") but " + rhs.dims[i].str() +
                            " in the right (" + rhs.str() + ")");
  return true;
}

/// Folds literal arithmetic; the result is a weak literal.
static void foldLiterals(BinaryExprAST &expr, std::unique_ptr<ExprAST> &out) {
  auto *l = llvm::cast<NumberExprAST>(expr.lhs.get());
  auto *r = llvm::cast<NumberExprAST>(expr.rhs.get());
  bool isFloat = l->isFloat || r->isFloat || expr.op == '/';
  auto asDouble = [](const NumberExprAST *n) {
    if (n->isFloat)
      return n->floatValue;
    return n->exceedsInt64 ? double(uint64_t(n->intValue)) : double(n->intValue);
  };
  double lf = asDouble(l), rf = asDouble(r);
  auto folded = std::make_unique<NumberExprAST>(expr.getLoc(), isFloat, 0, 0.0);
  if (isFloat) {
    switch (expr.op) {
    case '+': folded->floatValue = lf + rf; break;
    case '-': folded->floatValue = lf - rf; break;
    case '*': folded->floatValue = lf * rf; break;
    case '/': folded->floatValue = lf / rf; break;
    }
  } else {
    // Wrap like the 64-bit integers they are.
    uint64_t a = uint64_t(l->intValue), b = uint64_t(r->intValue);
    switch (expr.op) {
    case '+': folded->intValue = int64_t(a + b); break;
    case '-': folded->intValue = int64_t(a - b); break;
    case '*': folded->intValue = int64_t(a * b); break;
    }
    folded->floatValue = double(folded->intValue);
    // Arithmetic on a literal above INT64_MAX stays a u64-only literal.
    folded->exceedsInt64 = l->exceedsInt64 || r->exceedsInt64;
  }
  out = std::move(folded);
}

bool PipelineChecker::checkExpr(ExprAST &expr) {
  switch (expr.getKind()) {
  case ExprAST::Kind::Number:
    expr.type = ExprType{};
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
  case ExprAST::Kind::Unary: {
    auto &unary = llvm::cast<UnaryExprAST>(expr);
    if (!checkExpr(*unary.operand))
      return false;
    expr.type = unary.operand->type;
    return true;
  }
  case ExprAST::Kind::Binary:
    return checkBinary(llvm::cast<BinaryExprAST>(expr));
  case ExprAST::Kind::Call:
    return checkCall(llvm::cast<CallExprAST>(expr));
  }
  return false;
}

bool PipelineChecker::checkBinary(BinaryExprAST &expr) {
  bool lhsOk = checkExpr(*expr.lhs);
  bool rhsOk = checkExpr(*expr.rhs);
  if (!lhsOk || !rhsOk)
    return false;
  const ExprType &lhs = expr.lhs->type;
  const ExprType &rhs = expr.rhs->type;
  std::string context = std::string("'") + expr.op + "'";
  if (lhs.isWeakLiteral() && rhs.isWeakLiteral()) {
    // Both are literals (possibly after folding): the result is one too.
    expr.type = ExprType{};
    return true;
  }
  std::string dtype;
  if (lhs.isWeakLiteral() || rhs.isWeakLiteral()) {
    const ExprType &strong = lhs.isWeakLiteral() ? rhs : lhs;
    ExprAST &literal = lhs.isWeakLiteral() ? *expr.lhs : *expr.rhs;
    dtype = strong.dtype;
    // `/` makes integer operands f32 before dividing.
    if (!(expr.op == '/' && !isFloatDType(dtype)) &&
        !checkLiteralFits(literal, dtype))
      return false;
    expr.type = ExprType{dtype, strong.dims};
  } else {
    if (lhs.dtype != rhs.dtype)
      return error(expr.getLoc(),
                   "type mismatch: " + context + " has operands " + lhs.str() +
                       " and " + rhs.str() +
                       "; convert one with a cast, e.g. " + rhs.dtype + "(" +
                       "...)");
    if (!checkSameDims(lhs, rhs, expr.getLoc(), context))
      return false;
    dtype = lhs.dtype;
    expr.type = ExprType{dtype, lhs.dims.empty() ? rhs.dims : lhs.dims};
  }
  expr.operandDType = dtype;
  if (expr.op == '/' && !isFloatDType(dtype)) {
    expr.operandDType = "f32";
    expr.type.dtype = "f32";
  }
  return true;
}

bool PipelineChecker::checkCall(CallExprAST &expr) {
  if (!isKnownDType(expr.callee))
    return error(expr.getLoc(), "unknown function '" + expr.callee + "'");
  if (!isSupportedDType(expr.callee))
    return error(expr.getLoc(), "dtype '" + expr.callee +
                                    "' is not supported yet (supported: u8 i8 "
                                    "u16 i16 u32 i32 u64 i64 f32 f64)");
  if (expr.args.size() != 1)
    return error(expr.getLoc(), "the cast '" + expr.callee +
                                    "' takes one argument, got " +
                                    std::to_string(expr.args.size()));
  if (!checkExpr(*expr.args[0]))
    return false;
  expr.type = ExprType{expr.callee, expr.args[0]->type.dims};
  return true;
}

/// Replaces literal-only subtrees by their folded value, bottom up, so that
/// MLIRGen sees one literal per weakly typed operand.
static void foldLiteralTrees(std::unique_ptr<ExprAST> &expr) {
  if (auto *binary = llvm::dyn_cast<BinaryExprAST>(expr.get())) {
    foldLiteralTrees(binary->lhs);
    foldLiteralTrees(binary->rhs);
    if (llvm::isa<NumberExprAST>(binary->lhs.get()) &&
        llvm::isa<NumberExprAST>(binary->rhs.get()))
      foldLiterals(*binary, expr);
  } else if (auto *unary = llvm::dyn_cast<UnaryExprAST>(expr.get())) {
    foldLiteralTrees(unary->operand);
    if (auto *number = llvm::dyn_cast<NumberExprAST>(unary->operand.get())) {
      number->intValue = int64_t(0 - uint64_t(number->intValue));
      number->floatValue = -number->floatValue;
      // -9223372036854775808 is the one such literal an i64 holds.
      if (number->exceedsInt64 && number->intValue == INT64_MIN)
        number->exceedsInt64 = false;
      std::unique_ptr<ExprAST> operand = std::move(unary->operand);
      expr = std::move(operand);
    }
  } else if (auto *call = llvm::dyn_cast<CallExprAST>(expr.get())) {
    for (auto &arg : call->args)
      foldLiteralTrees(arg);
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
