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

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <set>

namespace pipec {

class Parser {
public:
  /// Limits that keep a program's cost bounded by its size: past them the
  /// parser reports an error naming the limit instead of exhausting the
  /// stack or the memory. An expression's height (operators, calls,
  /// parentheses and subscripts nested in one another, counting the
  /// chained operators of `a + b + ...`).
  static constexpr unsigned kMaxExprHeight = 1000;
  /// `if`/`for` blocks nested in one another.
  static constexpr unsigned kMaxBlockDepth = 64;
  /// Statements a pipeline's unrolled loops make (a `for`'s body is copied
  /// once per iteration; nested loops multiply), and their iterations.
  static constexpr unsigned kMaxUnrolledStatements = 20000;
  static constexpr unsigned kMaxUnrolledIterations = 65536;

  /// Parses the main buffer of `sourceMgr`.
  explicit Parser(llvm::SourceMgr &sourceMgr);

  /// The module, or nullopt after a syntax error (already reported).
  std::optional<ModuleAST> parseModule();
  /// How many errors of the binding rules the parse reported and went on
  /// from (a loop variable bound in the body, a name bound twice): the
  /// module is then wrong, but Sema still checks it,
  /// so that its errors are reported too.
  unsigned getRuleErrors() const { return ruleErrors; }

private:
  PipelineAST *parsePipeline(ModuleAST &module);
  bool parseValueDecl(ValueDeclAST &decl);
  bool parseType(TypeAST &type);
  bool parseBinding(BindingAST &binding);
  bool parseBlock(std::vector<BindingAST> &out, const std::string &what);
  bool parseStatement(std::vector<BindingAST> &out);
  bool parseIf(std::vector<BindingAST> &out);
  bool parseFor(std::vector<BindingAST> &out);
  /// The unrolled iterations of a `for` whose header parseFor has read.
  bool parseLoopBody(std::vector<BindingAST> &out, llvm::SMLoc loc,
                     const std::string &var, int64_t lo, int64_t most,
                     ExprPtr bound);
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
  /// `expr` with its height set from its operands', or null after an error
  /// when that passes kMaxExprHeight.
  ExprPtr bounded(ExprPtr expr);
  /// Counts one level of parser recursion (an expression or a unary
  /// operand inside another); false after an error past kMaxExprHeight.
  bool enterNesting();
  /// Reports an expression past kMaxExprHeight at `loc`; false.
  bool tooDeep(llvm::SMLoc loc);

  void consume() { tok = lexer.next(); }
  bool consumeIf(TokenKind kind);
  bool expect(TokenKind kind, llvm::StringRef context);
  void skipNewlines();
  /// Reports a broken binding rule (see getRuleErrors); true: the parse
  /// goes on.
  bool ruleError(llvm::SMLoc loc, const llvm::Twine &message);
  /// Counts one statement (or loop iteration) that a loop's unrolling
  /// makes; past its limit, reports it (at `loc`) and gives false.
  bool countUnrolled(llvm::SMLoc loc, bool iteration);
  unsigned ruleErrors = 0;
  llvm::DenseSet<const char *> ruleErrorsAt;
  bool error(llvm::SMLoc loc, const llvm::Twine &message,
             llvm::SourceMgr::DiagKind kind = llvm::SourceMgr::DK_Error);

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
  /// The pipeline's parameters, and the variables of the loops being
  /// parsed: names no statement may bind.
  std::set<std::string> params, loopVariables;
  /// The dims the parameters' types name: a loop variable cannot take one
  /// (in the body, the name is that dim's size).
  std::set<std::string> dimNames;
  unsigned nextVersion = 0;
  /// Nesting of `if`/`for` blocks: 0 at a pipeline's top level.
  unsigned depth = 0;
  /// Levels of parseExpression/parseUnary on the stack.
  unsigned exprNesting = 0;
  /// Statements parsed inside `for` bodies in this pipeline, each
  /// iteration's copy counted, and the outermost loop's location.
  unsigned unrolledStatements = 0, unrolledIterations = 0;
  unsigned loopDepth = 0;
  llvm::SMLoc outermostLoop;
};

} // namespace pipec

#endif // PIPE_FRONTEND_PARSER_H
