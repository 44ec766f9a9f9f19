//===- Parser.h - Recursive-descent parser for .pipe ------------*- C++ -*-===//
//
// Builds a ModuleAST from a buffer registered in an llvm::SourceMgr. Syntax
// errors are reported through the SourceMgr (file:line:col, the line and a
// caret); parsing stops at the first one.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_PARSER_H
#define PIPE_FRONTEND_PARSER_H

#include "frontend/AST.h"
#include "frontend/Lexer.h"

#include "llvm/Support/SourceMgr.h"

namespace pipec {

class Parser {
public:
  /// Parses the main buffer of `sourceMgr`.
  explicit Parser(llvm::SourceMgr &sourceMgr);

  /// The module, or nullopt after a syntax error (already reported).
  std::optional<ModuleAST> parseModule();

private:
  PipelineAST *parsePipeline(ModuleAST &module);
  bool parseValueDecl(ValueDeclAST &decl);
  bool parseType(TypeAST &type);
  bool parseBinding(BindingAST &binding);
  ExprPtr parseExpression();
  ExprPtr parseBinaryRHS(int minPrecedence, ExprPtr lhs);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();

  void consume() { tok = lexer.next(); }
  bool consumeIf(TokenKind kind);
  bool expect(TokenKind kind, llvm::StringRef context);
  void skipNewlines();
  bool error(llvm::SMLoc loc, const llvm::Twine &message);

  llvm::SourceMgr &sourceMgr;
  Lexer lexer;
  Token tok;
};

} // namespace pipec

#endif // PIPE_FRONTEND_PARSER_H
