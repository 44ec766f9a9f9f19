//===- ASTDump.cpp - Prints the .pipe syntax tree (--emit=ast) ------------===//

#include "frontend/AST.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/Format.h"

using namespace pipec;

namespace {
class Dumper {
public:
  explicit Dumper(llvm::raw_ostream &os) : os(os) {}

  void dump(const ExprAST &expr, int depth) {
    indent(depth);
    switch (expr.getKind()) {
    case ExprAST::Kind::Number: {
      auto &number = llvm::cast<NumberExprAST>(expr);
      if (number.isFloat)
        os << "Number " << llvm::format("%g", number.floatValue);
      else
        os << "Number "
           << (number.exceedsInt64 ? std::to_string(uint64_t(number.intValue))
                                   : std::to_string(number.intValue));
      break;
    }
    case ExprAST::Kind::Name:
      os << "Name " << llvm::cast<NameExprAST>(expr).name;
      break;
    case ExprAST::Kind::Unary:
      os << "Unary " << getSpelling(llvm::cast<UnaryExprAST>(expr).op);
      break;
    case ExprAST::Kind::Binary:
      os << "Binary " << getSpelling(llvm::cast<BinaryExprAST>(expr).op);
      break;
    case ExprAST::Kind::Call:
      os << "Call " << llvm::cast<CallExprAST>(expr).callee;
      break;
    case ExprAST::Kind::Bool:
      os << "Bool " << (llvm::cast<BoolExprAST>(expr).value ? "true" : "false");
      break;
    case ExprAST::Kind::List:
      os << "List";
      break;
    case ExprAST::Kind::Subscript:
      os << "Subscript";
      break;
    }
    os << " : " << expr.type.str() << "\n";
    if (auto *unary = llvm::dyn_cast<UnaryExprAST>(&expr))
      dump(*unary->operand, depth + 1);
    if (auto *binary = llvm::dyn_cast<BinaryExprAST>(&expr)) {
      dump(*binary->lhs, depth + 1);
      dump(*binary->rhs, depth + 1);
    }
    if (auto *call = llvm::dyn_cast<CallExprAST>(&expr)) {
      for (const ExprPtr &arg : call->args)
        dump(*arg, depth + 1);
      for (const KeywordArgAST &kwarg : call->kwargs) {
        indent(depth + 1);
        os << kwarg.name << " =\n";
        dump(*kwarg.value, depth + 2);
      }
    }
    if (auto *list = llvm::dyn_cast<ListExprAST>(&expr))
      for (const ExprPtr &element : list->elements)
        dump(*element, depth + 1);
    if (auto *subscript = llvm::dyn_cast<SubscriptExprAST>(&expr)) {
      dump(*subscript->base, depth + 1);
      for (const SliceAST &item : subscript->items) {
        indent(depth + 1);
        os << (item.isIndex ? "Index" : "Slice") << "\n";
        for (const ExprPtr *part : {&item.start, &item.stop, &item.step})
          if (*part)
            dump(**part, depth + 2);
      }
    }
  }

  void dump(const PipelineAST &pipeline) {
    os << "Pipeline " << pipeline.name << "\n";
    for (const ValueDeclAST &param : pipeline.params)
      decl("Param", param);
    for (const ValueDeclAST &result : pipeline.results)
      decl("Result", result);
    for (const BindingAST &binding : pipeline.body) {
      indent(1);
      os << "Bind " << binding.name << "\n";
      dump(*binding.value, 2);
    }
  }

private:
  void indent(int depth) { os.indent(depth * 2); }
  void decl(const char *what, const ValueDeclAST &decl) {
    indent(1);
    os << what << " " << decl.name << " : "
       << ExprType{decl.type.dtype, decl.type.dims}.str() << "\n";
  }
  llvm::raw_ostream &os;
};
} // namespace

void pipec::dumpAST(const ModuleAST &module, llvm::raw_ostream &os) {
  Dumper dumper(os);
  for (const PipelineAST &pipeline : module.pipelines)
    dumper.dump(pipeline);
}
