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

#include <map>
#include <set>

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
  bool parseBlock(std::vector<BindingAST> &out, const std::string &what);
  bool parseStatement(std::vector<BindingAST> &out);
  bool parseIf(std::vector<BindingAST> &out);
  bool parseFor(std::vector<BindingAST> &out);
  /// A fresh internal name for a version of `name` (`name@k`; '@' cannot
  /// appear in a source name).
  std::string newVersion(llvm::StringRef name);
  /// Gives each name rebound by `if`/`for` its final version under its own
  /// name, so that later stages see one binding per name.
  void finishVersions(PipelineAST &pipeline);
  ExprPtr parseExpression();
  ExprPtr parseBinaryRHS(int minPrecedence, ExprPtr lhs);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parseSubscript(ExprPtr base);
  ExprPtr parsePrimary();

  void consume() { tok = lexer.next(); }
  bool consumeIf(TokenKind kind);
  bool expect(TokenKind kind, llvm::StringRef context);
  void skipNewlines();
  bool error(llvm::SMLoc loc, const llvm::Twine &message);

  llvm::SourceMgr &sourceMgr;
  Lexer lexer;
  Token tok;
  /// `if` and `for` are desugared while parsing into plain bindings: each
  /// binding inside them gets a fresh version, and `current` maps a source
  /// name to the version in effect (names read are resolved through it).
  std::map<std::string, std::string> current;
  /// The source names bound so far in the enclosing scopes, parameters
  /// included.
  std::set<std::string> visible;
  unsigned nextVersion = 0;
  /// Nesting of `if`/`for` blocks: 0 at a pipeline's top level.
  unsigned depth = 0;
};

} // namespace pipec

#endif // PIPE_FRONTEND_PARSER_H
