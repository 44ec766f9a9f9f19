//===- Parser.cpp - Recursive-descent parser for .pipe --------------------===//
//
// The grammar is written above each parseX function.
//
//===----------------------------------------------------------------------===//

#include "frontend/Parser.h"

#include "core/DimExpr.h"

#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace pipec;
using llvm::SMLoc;

Parser::Parser(llvm::SourceMgr &sourceMgr)
    : sourceMgr(sourceMgr),
      lexer(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer()) {
  consume();
}

bool Parser::error(SMLoc loc, const llvm::Twine &message,
                   llvm::SourceMgr::DiagKind kind) {
  sourceMgr.PrintMessage(loc, kind, message);
  return false;
}

bool Parser::ruleError(SMLoc loc, const llvm::Twine &message) {
  // A loop's body is read once per iteration: said once.
  if (!ruleErrorsAt.insert(loc.getPointer()).second)
    return true;
  error(loc, message);
  ++ruleErrors;
  return true;
}

/// How a diagnostic names `token`: "end of line", or its text quoted.
/// A token's text for a message: control bytes and stray UTF-8 bytes as
/// \xNN (a NUL printed raw cut the message short), characters as written.
static std::string printableTokenText(llvm::StringRef text) {
  std::string printed;
  bool wholeCharacter =
      text.size() > 1 && static_cast<unsigned char>(text[0]) >= 0xC0;
  for (char ch : text) {
    unsigned char byte = static_cast<unsigned char>(ch);
    if ((byte < 0x20 || byte == 0x7F || byte >= 0x80) && !wholeCharacter) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      printed += escaped;
    } else {
      printed += ch;
    }
  }
  return printed;
}

static std::string describeToken(const Token &token) {
  if (token.is(TokenKind::Eof) || token.is(TokenKind::Newline))
    return getTokenKindName(token.kind);
  return "'" + printableTokenText(token.text) + "'";
}

bool Parser::consumeIf(TokenKind kind) {
  if (!tok.is(kind))
    return false;
  consume();
  return true;
}

bool Parser::expect(TokenKind kind, llvm::StringRef context) {
  if (consumeIf(kind))
    return true;
  std::string found = describeToken(tok);
  return error(tok.getLoc(), llvm::Twine("expected ") + getTokenKindName(kind) +
                                 " " + context + ", found " + found);
}

void Parser::skipNewlines() {
  while (tok.is(TokenKind::Newline) || tok.is(TokenKind::Semicolon))
    consume();
}

namespace {
/// Leaves one level of Parser::exprNesting when it goes out of scope.
struct NestingScope {
  unsigned &nesting;
  ~NestingScope() { --nesting; }
};

} // namespace

ExprPtr Parser::bounded(ExprPtr expr) {
  unsigned height = 0;
  forEachOperand(*expr, [&](const ExprPtr &operand) {
    height = std::max(height, operand->height);
  });
  expr->height = height + 1;
  // A leaf is height 1 and nests nothing: x + 1 + ... with 1000 operators
  // is 1000 levels, the limit.
  if (expr->height <= kMaxExprHeight + 1)
    return expr;
  tooDeep(expr->getLoc());
  return nullptr;
}

bool Parser::enterNesting() {
  // The outermost expression is no level: 1000 parentheses are 1000.
  return ++exprNesting <= kMaxExprHeight + 1 || tooDeep(tok.getLoc());
}

bool Parser::tooDeep(SMLoc loc) {
  return error(loc, "expression nested more than " +
                        llvm::Twine(kMaxExprHeight) +
                        " levels deep (operators, calls and parentheses in "
                        "one another); split it into named bindings");
}

/// module ::= pipeline*
std::optional<ModuleAST> Parser::parseModule() {
  // Lines end with \n (or \r\n). A bare \r (classic Mac OS) would make the
  // file one line to the lexer and to every diagnostic's line number.
  llvm::StringRef text =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  for (size_t at = text.find('\r'); at != llvm::StringRef::npos;
       at = text.find('\r', at + 1))
    if (at + 1 == text.size() || text[at + 1] != '\n') {
      error(SMLoc::getFromPointer(text.data() + at),
            "a carriage return without a line feed: lines end with \\n or "
            "\\r\\n (save the file with Unix or Windows line endings)");
      return std::nullopt;
    }
  ModuleAST module;
  skipNewlines();
  while (!tok.is(TokenKind::Eof)) {
    if (!parsePipeline(module))
      return std::nullopt;
    skipNewlines();
  }
  return module;
}

/// pipeline ::= 'pipeline' ident '(' (decl (',' decl)*)? ')'
///              '->' '(' decl (',' decl)* ')' '{' binding* '}'
PipelineAST *Parser::parsePipeline(ModuleAST &module) {
  if (!tok.is(TokenKind::KwPipeline)) {
    error(tok.getLoc(), "expected 'pipeline' at the top level");
    return nullptr;
  }
  PipelineAST pipeline;
  pipeline.loc = tok.getLoc();
  consume();
  if (!tok.is(TokenKind::Identifier)) {
    expect(TokenKind::Identifier, "naming the pipeline");
    return nullptr;
  }
  pipeline.name = tok.text.str();
  consume();
  if (!expect(TokenKind::LParen, "before the parameters"))
    return nullptr;
  if (!tok.is(TokenKind::RParen)) {
    do {
      pipeline.params.emplace_back();
      if (!parseValueDecl(pipeline.params.back()))
        return nullptr;
    } while (consumeIf(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "after the parameters"))
    return nullptr;
  // A long signature may put its results on the next line.
  while (tok.is(TokenKind::Newline))
    consume();
  if (!expect(TokenKind::Arrow, "before the results") ||
      !expect(TokenKind::LParen, "before the results"))
    return nullptr;
  do {
    pipeline.results.emplace_back();
    if (!parseValueDecl(pipeline.results.back()))
      return nullptr;
  } while (consumeIf(TokenKind::Comma));
  if (!expect(TokenKind::RParen, "after the results"))
    return nullptr;
  skipNewlines();
  current.clear();
  visible.clear();
  params.clear();
  loopVariables.clear();
  unrolledStatements = unrolledIterations = 0;
  dimNames.clear();
  for (const ValueDeclAST &param : pipeline.params) {
    visible.insert(param.name);
    params.insert(param.name);
    for (const DimAST &dim : param.type.dims)
      if (dim.isSymbolic())
        if (std::optional<pipert::DimExpr> expr =
                pipert::DimExpr::parse(dim.symbol))
          expr->collectSymbols(dimNames);
  }
  if (!parseBlock(pipeline.body, "the body of pipeline '" + pipeline.name + "'"))
    return nullptr;
  finishVersions(pipeline);
  module.pipelines.push_back(std::move(pipeline));
  return &module.pipelines.back();
}

/// decl ::= ident ':' type ('@' ident)?
bool Parser::parseValueDecl(ValueDeclAST &decl) {
  if (!tok.is(TokenKind::Identifier))
    return expect(TokenKind::Identifier, "naming a parameter or result");
  decl.loc = tok.getLoc();
  decl.name = tok.text.str();
  consume();
  if (!expect(TokenKind::Colon, "after '" + decl.name + "'") ||
      !parseType(decl.type))
    return false;
  if (!tok.is(TokenKind::At))
    return true;
  consume();
  decl.memoryLoc = tok.getLoc();
  if (!tok.is(TokenKind::Identifier))
    return expect(TokenKind::Identifier, "after '@' (host or device)");
  decl.memory = tok.text.str();
  consume();
  return true;
}

/// type ::= ident ('[' dim (',' dim)* ']')?
/// dim  ::= ident | integer | dim-expression
/// A dim expression (`H - 32`, `32 * ceil(H / 32)`) is everything up to the
/// next ',' or ']' outside parentheses, read by core/DimExpr.h.
bool Parser::parseType(TypeAST &type) {
  if (!tok.is(TokenKind::Identifier))
    return expect(TokenKind::Identifier, "naming a dtype (u8, i32, f32, ...)");
  type.loc = tok.getLoc();
  type.dtype = tok.text.str();
  consume();
  if (!consumeIf(TokenKind::LBracket))
    return true;
  do {
    DimAST dim;
    dim.loc = tok.getLoc();
    std::string text;
    // As written in the source, for messages (`text` has a space between
    // each two tokens: "ceil ( H / 2 )").
    llvm::StringRef written;
    int depth = 0;
    // A ']', a line's end or a '{' ends the dim inside parentheses too: an
    // unclosed '(' is said there, not after swallowing the rest of the
    // file.
    while (!tok.is(TokenKind::Eof) && !tok.is(TokenKind::RBracket) &&
           !tok.is(TokenKind::Newline) && !tok.is(TokenKind::LBrace) &&
           !(depth == 0 && tok.is(TokenKind::Comma))) {
      if (tok.is(TokenKind::LParen))
        ++depth;
      else if (tok.is(TokenKind::RParen) && --depth < 0)
        break;
      // A keyword would be a dim the body cannot name (true is bool there).
      if (tok.is(TokenKind::KwPipeline) || tok.is(TokenKind::KwTrue) ||
          tok.is(TokenKind::KwFalse) || tok.is(TokenKind::KwIf) ||
          tok.is(TokenKind::KwElse) || tok.is(TokenKind::KwFor))
        return error(tok.getLoc(), "'" + tok.text.str() +
                                       "' is a keyword, not a dim's name");
      text += (text.empty() ? "" : " ") + tok.text.str();
      if (!written.data())
        written = tok.text;
      else
        written = llvm::StringRef(written.data(),
                                  tok.text.end() - written.data());
      consume();
    }
    if (text.empty())
      return expect(TokenKind::Identifier, "or an integer as a dim");
    if (depth > 0)
      return error(tok.getLoc(), "expected ')' to close the '(' of dim '" +
                                     written.str() + "'");
    std::string why;
    std::optional<pipert::DimExpr> expr = pipert::DimExpr::parse(text, &why);
    if (expr && expr->depth() > pipert::DimExpr::kMaxDepth)
      why = pipert::describeTooDeep();
    if (!expr || !why.empty()) {
      // The caret shows where; a long text is cut to what a line holds.
      std::string shown = written.str();
      if (shown.size() > 60)
        shown = shown.substr(0, 57) + "...";
      return error(dim.loc, "dim '" + shown + "' is not a size: " + why);
    }
    if (expr->isConstant()) {
      dim.size = expr->getConstant();
      if (dim.size < 0)
        return error(dim.loc, "dim '" + expr->str() + "' is negative");
    } else if (expr->isAlwaysNegative()) {
      return error(dim.loc, "dim '" + expr->str() +
                                "' is negative whatever the dims' sizes");
    } else {
      dim.symbol = expr->str();
    }
    type.dims.push_back(dim);
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RBracket, "after the dims");
}

/// block ::= '{' statement* '}'
bool Parser::parseBlock(std::vector<BindingAST> &out, const std::string &what) {
  if (!expect(TokenKind::LBrace, "to open " + what))
    return false;
  skipNewlines();
  while (!tok.is(TokenKind::RBrace)) {
    if (tok.is(TokenKind::Eof))
      return error(tok.getLoc(), "expected '}' to close " + what);
    if (!parseStatement(out))
      return false;
    if (tok.is(TokenKind::Eof))
      return error(tok.getLoc(), "expected '}' to close " + what);
    if (!tok.is(TokenKind::RBrace) && !tok.is(TokenKind::Newline) &&
        !tok.is(TokenKind::Semicolon))
      return expect(TokenKind::Newline, "after the statement");
    skipNewlines();
  }
  consume();
  return true;
}

std::string Parser::newVersion(llvm::StringRef name) {
  return (name + "@" + llvm::Twine(nextVersion++)).str();
}

/// statement ::= binding | if | for
/// Inside `if` and `for`, a binding makes a new version of its name.
bool Parser::countUnrolled(SMLoc loc, bool iteration) {
  unsigned &count = iteration ? unrolledIterations : unrolledStatements;
  unsigned most = iteration ? kMaxUnrolledIterations : kMaxUnrolledStatements;
  if (loopDepth == 0 || ++count <= most)
    return true;
  error(outermostLoop,
        "the loops here unroll to more than " + llvm::Twine(most) +
            (iteration ? " iterations" : " statements") +
            " (each iteration copies its body; nested loops multiply): lower "
            "their 'max' or nest fewer");
  return error(loc,
               iteration ? "the iteration that passed the limit"
                         : "the statement that passed the limit",
               llvm::SourceMgr::DK_Note);
}

bool Parser::parseStatement(std::vector<BindingAST> &out) {
  if (tok.is(TokenKind::KwIf))
    return parseIf(out);
  if (tok.is(TokenKind::KwFor))
    return parseFor(out);
  SMLoc loc = tok.getLoc();
  if (!countUnrolled(loc, /*iteration=*/false))
    return false;
  BindingAST binding;
  if (!parseBinding(binding))
    return false;
  std::string name = binding.name;
  // Names are bound once, parameters and loop variables included (inside
  // `if` and `for` a binding of a name bound before is its new version).
  // A binding that breaks them is reported and left out; the parse goes on.
  if (params.count(name) && depth > 0)
    return ruleError(binding.loc, "'" + name + "' is a parameter; names are "
                                  "bound once, parameters included: bind a "
                                  "new name");
  if (loopVariables.count(name))
    return ruleError(binding.loc, "'" + name + "' is the loop's variable; it "
                                  "cannot be bound in the body");
  if (depth == 0) {
    if (auto it = current.find(name); it != current.end()) {
      // Bound already by an `if` (both branches) or updated by a `for`:
      // a second top-level binding would otherwise be dropped unseen.
      ruleError(binding.loc, "'" + name + "' is already bound; names are "
                             "bound once");
      for (const BindingAST &earlier : out)
        if (earlier.name == it->second)
          error(earlier.loc,
                "'" + name + "' is bound by the 'if' or 'for' here",
                llvm::SourceMgr::DK_Note);
      return true;
    }
  }
  if (depth > 0) {
    binding.name = newVersion(name);
    current[name] = binding.name;
  }
  visible.insert(name);
  out.push_back(std::move(binding));
  return true;
}

namespace {
ExprPtr nameRef(SMLoc loc, const std::string &name) {
  return std::make_unique<NameExprAST>(loc, name);
}
ExprPtr selectOf(SMLoc loc, ExprPtr condition, ExprPtr a, ExprPtr b,
                 std::string merges) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(condition));
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  auto select = std::make_unique<CallExprAST>(loc, "select", std::move(args),
                                              std::vector<KeywordArgAST>{});
  select->versionMerge = std::move(merges);
  return select;
}
} // namespace

/// if ::= 'if' expr block ('else' block)?
/// Both branches run (predication); each name a branch binds that is bound
/// in both, or was visible before, becomes select(condition, then, else).
bool Parser::parseIf(std::vector<BindingAST> &out) {
  SMLoc loc = tok.getLoc();
  consume();
  ExprPtr condition = parseExpression();
  if (!condition)
    return false;
  std::string conditionName = newVersion("if");
  out.push_back({loc, conditionName, std::move(condition)});
  auto before = current;
  auto visibleBefore = visible;
  auto branch = [&](std::map<std::string, std::string> &bound,
                    const std::string &what) {
    if (depth >= kMaxBlockDepth)
      return error(loc, "'if' nested more than " + llvm::Twine(kMaxBlockDepth) +
                            " blocks deep");
    ++depth;
    size_t first = out.size();
    bool ok = parseBlock(out, what);
    --depth;
    // The names the branch binds at its own level: a name bound only in a
    // block nested in it is local to that block (it has no version here,
    // and once became a reference to the name '').
    for (size_t i = first; i < out.size(); ++i) {
      llvm::StringRef name = llvm::StringRef(out[i].name).split('@').first;
      if (name.empty() || name == "if" || name == "for")
        continue;
      if (auto it = current.find(name.str()); it != current.end())
        bound[name.str()] = it->second;
    }
    current = before;
    visible = visibleBefore;
    return ok;
  };
  std::map<std::string, std::string> thenBound, elseBound;
  if (!branch(thenBound, "the 'if' branch"))
    return false;
  Lexer saved = lexer;
  Token savedTok = tok;
  skipNewlines();
  if (tok.is(TokenKind::KwElse)) {
    consume();
    if (!branch(elseBound, "the 'else' branch"))
      return false;
  } else {
    lexer = saved;
    tok = savedTok;
  }
  std::set<std::string> names;
  for (auto &entry : thenBound)
    names.insert(entry.first);
  for (auto &entry : elseBound)
    names.insert(entry.first);
  for (const std::string &name : names) {
    bool wasVisible = visibleBefore.count(name) != 0;
    if (!wasVisible && (!thenBound.count(name) || !elseBound.count(name)))
      continue; // local to its branch
    auto versionOf = [&](std::map<std::string, std::string> &bound) {
      if (auto it = bound.find(name); it != bound.end())
        return it->second;
      auto it = before.find(name);
      return it == before.end() ? name : it->second;
    };
    // Each side read where it was bound, when that is in this block (a
    // literal's error then points at the literal, not at the if).
    auto boundAt = [&](const std::string &version) {
      for (auto it = out.rbegin(); it != out.rend(); ++it)
        if (it->name == version)
          return it->value->getLoc();
      return loc;
    };
    std::string thenVersion = versionOf(thenBound);
    std::string elseVersion = versionOf(elseBound);
    std::string merged = newVersion(name);
    out.push_back({loc, merged,
                   selectOf(loc, nameRef(loc, conditionName),
                            nameRef(boundAt(thenVersion), thenVersion),
                            nameRef(boundAt(elseVersion), elseVersion),
                            "'" + name + "' after the if")});
    current[name] = merged;
    visible.insert(name);
  }
  return true;
}

/// for ::= 'for' ident 'in' integer '..' expr 'max' integer block
/// Unrolled `max` times; iteration k binds the loop variable to lo + k and,
/// for each name bound before the loop that the body binds again, keeps
/// the body's version only where lo + k < the bound (predication).
bool Parser::parseFor(std::vector<BindingAST> &out) {
  SMLoc loc = tok.getLoc();
  consume();
  if (!tok.is(TokenKind::Identifier))
    return expect(TokenKind::Identifier, "naming the loop variable");
  std::string var = tok.text.str();
  SMLoc varLoc = tok.getLoc();
  // Reported, and the loop read on with a variable no source name can
  // reach (the body's uses of the name keep their meaning before the
  // loop, and nothing is reported twice).
  bool renamed = true;
  if (visible.count(var) || loopVariables.count(var))
    ruleError(varLoc, "the loop variable '" + var + "' is already bound" +
                          (params.count(var) ? " as a parameter" : "") +
                          "; name the loop variable anew");
  else if (dimNames.count(var))
    ruleError(varLoc, "the loop variable '" + var + "' would hide the dim " +
                          var + " (in the body, " + var +
                          " is that dim's size); name the loop variable "
                          "anew");
  else
    renamed = false;
  std::string written = var;
  if (renamed)
    var += "#refused";
  consume();
  if (!tok.is(TokenKind::Identifier) || tok.text != "in")
    return error(tok.getLoc(), "expected 'in' after 'for " + written +
                                   "', found " + describeToken(tok));
  consume();
  auto integer = [&](int64_t &value, const char *what) {
    if (!tok.is(TokenKind::Integer))
      return error(tok.getLoc(), std::string("expected an integer literal as ") +
                                     what + ", found " + describeToken(tok));
    // (An integer literal past the i64s is one: say what is wrong with it.)
    if (tok.text.getAsInteger(10, value))
      return error(tok.getLoc(), std::string(what) + " " + tok.text.str() +
                                     " does not fit in an i64");
    consume();
    return true;
  };
  int64_t lo = 0, most = 0;
  SMLoc loLoc = tok.getLoc();
  if (!integer(lo, "the loop's first value") ||
      !expect(TokenKind::DotDot, "between the loop's bounds"))
    return false;
  ExprPtr bound = parseExpression();
  if (!bound)
    return false;
  if (!tok.is(TokenKind::Identifier) || tok.text != "max")
    return error(tok.getLoc(),
                 "expected 'max K' after the bound, K the most iterations as "
                 "an integer literal (the loop is unrolled K times), found " +
                     describeToken(tok));
  consume();
  SMLoc mostLoc = tok.getLoc();
  if (!integer(most, "the most iterations"))
    return false;
  // Reported, and the loop read on as if it said 64: its body's errors
  // are reported too.
  if (most > 64) {
    ruleError(mostLoc, "at most 64 iterations: the loop is unrolled, and "
                       "each iteration is a copy of its body");
    most = 64;
  }
  if (most > 0 && lo > INT64_MAX - (most - 1))
    return error(loLoc, "the loop variable would pass 9223372036854775807 (the "
                        "largest i64) in its last iteration");
  if (depth >= kMaxBlockDepth)
    return error(loc, "'for' nested more than " + llvm::Twine(kMaxBlockDepth) +
                          " blocks deep");
  if (loopDepth++ == 0)
    outermostLoop = loc;
  loopVariables.insert(var);
  bool ok = parseLoopBody(out, loc, var, lo, most, std::move(bound));
  loopVariables.erase(var);
  --loopDepth;
  return ok;
}

bool Parser::parseLoopBody(std::vector<BindingAST> &out, SMLoc loc,
                           const std::string &var, int64_t lo, int64_t most,
                           ExprPtr bound) {
  std::string boundName = newVersion("for");
  // Compared with each iteration's lo + k as an i64: the bound's own dtype
  // could not hold every lo + k (250 .. n with n: u8 reached 256). Sema
  // checks the bound inside the cast.
  SMLoc boundLoc = bound->getLoc();
  std::vector<ExprPtr> boundArgs;
  boundArgs.push_back(std::move(bound));
  out.push_back({loc, boundName,
                 std::make_unique<CallExprAST>(boundLoc, "i64",
                                               std::move(boundArgs),
                                               std::vector<KeywordArgAST>{})});
  auto visibleBefore = visible;
  Lexer bodyLexer = lexer;
  Token bodyTok = tok;
  // Parse the body once per iteration (once, discarded, for max 0).
  for (int64_t k = 0; k < std::max<int64_t>(most, 1); ++k) {
    // Iterations count apart from statements: loops of empty loops bind
    // nothing and still unroll (64^4 iterations took all the memory).
    if (!countUnrolled(loc, /*iteration=*/true))
      return false;
    lexer = bodyLexer;
    tok = bodyTok;
    auto before = current;
    // Each iteration sees what the loop saw: names local to the body are
    // not bound before its next copy.
    visible = visibleBefore;
    std::vector<BindingAST> body;
    std::string varVersion = newVersion(var);
    body.push_back({loc, varVersion,
                    std::make_unique<NumberExprAST>(loc, false, lo + k,
                                                    double(lo + k))});
    current[var] = varVersion;
    visible.insert(var);
    ++depth;
    bool ok = parseBlock(
        body, "the body of 'for " +
                  llvm::StringRef(var).split('#').first.str() + "'");
    --depth;
    if (!ok)
      return false;
    if (most == 0) {
      current = before; // the body never runs: its bindings are dropped
      break;
    }
    // Carried names: visible before the loop and bound again by the body
    // (with where the body last binds each).
    std::map<std::string, std::pair<std::string, SMLoc>> carried;
    for (size_t i = 1; i < body.size(); ++i) {
      std::string name = llvm::StringRef(body[i].name).split('@').first.str();
      if (visibleBefore.count(name) && name != var)
        carried[name] = {current[name], body[i].loc};
    }
    std::string iteration = llvm::StringRef(var).split('#').first.str() +
                            " = " + std::to_string(lo + k);
    for (BindingAST &binding : body) {
      binding.iteration = binding.iteration.empty()
                              ? iteration
                              : iteration + ", " + binding.iteration;
      out.push_back(std::move(binding));
    }
    current = before;
    for (auto &[name, update] : carried) {
      auto &[version, updateLoc] = update;
      auto it = before.find(name);
      std::string previous = it == before.end() ? name : it->second;
      std::string merged = newVersion(name);
      ExprPtr taken = std::make_unique<BinaryExprAST>(
          loc, BinaryOp::Lt,
          std::make_unique<NumberExprAST>(loc, false, lo + k, double(lo + k)),
          nameRef(loc, boundName));
      ExprPtr select = selectOf(updateLoc, std::move(taken),
                                nameRef(updateLoc, version),
                                nameRef(updateLoc, previous),
                                "'" + name + "' updated by the for loop");
      llvm::cast<CallExprAST>(*select).loopCarried = name;
      out.push_back({loc, merged, std::move(select)});
      current[name] = merged;
    }
  }
  visible = visibleBefore;
  return true;
}

namespace {
void renameIn(ExprAST &expr, const std::map<std::string, std::string> &names) {
  if (auto *name = llvm::dyn_cast<NameExprAST>(&expr)) {
    if (auto it = names.find(name->name); it != names.end())
      name->name = it->second;
  }
  forEachOperand(expr, [&](ExprPtr &operand) { renameIn(*operand, names); });
}
} // namespace

void Parser::finishVersions(PipelineAST &pipeline) {
  // The first binding of a rebound name becomes one more version, and the
  // final version takes the name.
  std::map<std::string, std::string> renames;
  for (auto &[name, version] : current) {
    if (version == name)
      continue;
    renames[name] = newVersion(name);
    renames[version] = name;
  }
  if (renames.empty())
    return;
  for (BindingAST &binding : pipeline.body) {
    if (auto it = renames.find(binding.name); it != renames.end())
      binding.name = it->second;
    renameIn(*binding.value, renames);
  }
}

/// binding ::= ident '=' expr
bool Parser::parseBinding(BindingAST &binding) {
  if (!tok.is(TokenKind::Identifier))
    return expect(TokenKind::Identifier, "to start a statement 'name = expr'");
  binding.loc = tok.getLoc();
  binding.name = tok.text.str();
  consume();
  if (!expect(TokenKind::Equal, "after '" + binding.name + "'"))
    return false;
  binding.value = parseExpression();
  return binding.value != nullptr;
}

/// Binary operators with C's precedence (higher binds tighter); `**` is
/// handled by parseUnary/parsePower, above the unary operators.
static std::optional<std::pair<int, BinaryOp>> getBinaryOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::PipePipe: return {{1, BinaryOp::LogicalOr}};
  case TokenKind::AmpAmp: return {{2, BinaryOp::LogicalAnd}};
  case TokenKind::Pipe: return {{3, BinaryOp::BitOr}};
  case TokenKind::Caret: return {{4, BinaryOp::BitXor}};
  case TokenKind::Amp: return {{5, BinaryOp::BitAnd}};
  case TokenKind::EqualEqual: return {{6, BinaryOp::Eq}};
  case TokenKind::NotEqual: return {{6, BinaryOp::Ne}};
  case TokenKind::Less: return {{7, BinaryOp::Lt}};
  case TokenKind::LessEqual: return {{7, BinaryOp::Le}};
  case TokenKind::Greater: return {{7, BinaryOp::Gt}};
  case TokenKind::GreaterEqual: return {{7, BinaryOp::Ge}};
  case TokenKind::LessLess: return {{8, BinaryOp::Shl}};
  case TokenKind::GreaterGreater: return {{8, BinaryOp::Shr}};
  case TokenKind::Plus: return {{9, BinaryOp::Add}};
  case TokenKind::Minus: return {{9, BinaryOp::Sub}};
  case TokenKind::Star: return {{10, BinaryOp::Mul}};
  case TokenKind::Slash: return {{10, BinaryOp::Div}};
  case TokenKind::SlashSlash: return {{10, BinaryOp::FloorDiv}};
  case TokenKind::Percent: return {{10, BinaryOp::Rem}};
  default: return std::nullopt;
  }
}

/// expr ::= unary (binop unary)*     (left-associative, C precedence:
///          || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / // %))
ExprPtr Parser::parseExpression() {
  NestingScope scope{exprNesting};
  if (!enterNesting())
    return nullptr;
  ExprPtr lhs = parseUnary();
  if (!lhs)
    return nullptr;
  return parseBinaryRHS(0, std::move(lhs));
}

ExprPtr Parser::parseBinaryRHS(int minPrecedence, ExprPtr lhs) {
  while (true) {
    auto op = getBinaryOp(tok.kind);
    if (!op || op->first < minPrecedence)
      return lhs;
    SMLoc loc = tok.getLoc();
    consume();
    ExprPtr rhs = parseUnary();
    if (!rhs)
      return nullptr;
    auto next = getBinaryOp(tok.kind);
    if (next && next->first > op->first) {
      rhs = parseBinaryRHS(op->first + 1, std::move(rhs));
      if (!rhs)
        return nullptr;
    }
    lhs = bounded(std::make_unique<BinaryExprAST>(
        loc, op->second, std::move(lhs), std::move(rhs)));
    if (!lhs)
      return nullptr;
  }
}

/// unary ::= ('-' | '!' | '~') unary | power
/// power ::= primary ('**' unary)?      (right-associative; -2 ** 2 is -4)
ExprPtr Parser::parseUnary() {
  std::optional<UnaryOp> op;
  if (tok.is(TokenKind::Minus))
    op = UnaryOp::Neg;
  else if (tok.is(TokenKind::Bang))
    op = UnaryOp::LogicalNot;
  else if (tok.is(TokenKind::Tilde))
    op = UnaryOp::BitNot;
  if (op) {
    SMLoc loc = tok.getLoc();
    consume();
    NestingScope scope{exprNesting};
    if (!enterNesting())
      return nullptr;
    ExprPtr operand = parseUnary();
    if (!operand)
      return nullptr;
    return bounded(std::make_unique<UnaryExprAST>(loc, *op, std::move(operand)));
  }
  ExprPtr base = parsePostfix();
  if (!base || !tok.is(TokenKind::StarStar))
    return base;
  SMLoc loc = tok.getLoc();
  consume();
  NestingScope scope{exprNesting};
  if (!enterNesting())
    return nullptr;
  ExprPtr exponent = parseUnary();
  if (!exponent)
    return nullptr;
  return bounded(std::make_unique<BinaryExprAST>(
      loc, BinaryOp::Pow, std::move(base), std::move(exponent)));
}

/// postfix ::= primary ('.' ident '(' ')' | '[' slice (',' slice)* ']')*
/// slice   ::= expr | expr? ':' expr? (':' expr?)?
/// `x.cpu()` is `cpu(x)`: a method call takes its receiver as the first
/// argument. `x[...]` is NumPy's basic slicing.
ExprPtr Parser::parsePostfix() {
  ExprPtr expr = parsePrimary();
  while (expr && (tok.is(TokenKind::Dot) || tok.is(TokenKind::LBracket))) {
    if (tok.is(TokenKind::LBracket)) {
      expr = parseSubscript(std::move(expr));
      continue;
    }
    consume();
    if (!tok.is(TokenKind::Identifier)) {
      expect(TokenKind::Identifier, "naming a method after '.', e.g. x.cpu()");
      return nullptr;
    }
    SMLoc loc = tok.getLoc();
    std::string name = tok.text.str();
    consume();
    if (!expect(TokenKind::LParen, "after '." + name + "'") ||
        !expect(TokenKind::RParen, "after '." + name + "(': methods take no "
                                   "arguments"))
      return nullptr;
    std::vector<ExprPtr> args;
    args.push_back(std::move(expr));
    expr = bounded(std::make_unique<CallExprAST>(
        loc, name, std::move(args), std::vector<KeywordArgAST>{}));
  }
  return expr;
}

ExprPtr Parser::parseSubscript(ExprPtr base) {
  SMLoc loc = tok.getLoc();
  consume(); // '['
  std::vector<SliceAST> items;
  auto isEnd = [&]() {
    return tok.is(TokenKind::Colon) || tok.is(TokenKind::Comma) ||
           tok.is(TokenKind::RBracket);
  };
  do {
    SliceAST item;
    item.loc = tok.getLoc();
    if (!isEnd() && !(item.start = parseExpression()))
      return nullptr;
    if (!consumeIf(TokenKind::Colon)) {
      if (!item.start) {
        error(tok.getLoc(), "expected an index or a slice 'a:b', found " +
                                describeToken(tok));
        return nullptr;
      }
      item.isIndex = true;
    } else {
      if (!isEnd() && !(item.stop = parseExpression()))
        return nullptr;
      if (consumeIf(TokenKind::Colon) && !isEnd() &&
          !(item.step = parseExpression()))
        return nullptr;
    }
    items.push_back(std::move(item));
  } while (consumeIf(TokenKind::Comma));
  if (!expect(TokenKind::RBracket, "to close the subscript"))
    return nullptr;
  return bounded(std::make_unique<SubscriptExprAST>(loc, std::move(base),
                                                    std::move(items)));
}

/// primary ::= integer | float | 'true' | 'false' | ident
///           | ident '(' (arg (',' arg)*)? ')' | '(' expr ')'
///           | '[' (expr (',' expr)*)? ']'
/// arg     ::= expr | ident '=' expr
ExprPtr Parser::parsePrimary() {
  SMLoc loc = tok.getLoc();
  switch (tok.kind) {
  case TokenKind::Integer: {
    uint64_t value;
    // Out of range: said, and read on as a 1 (which no check refuses) so
    // that the rest of the file is checked too.
    if (tok.text.getAsInteger(10, value)) {
      ruleError(loc, "integer literal '" + tok.text +
                         "' is too large (the largest is "
                         "18446744073709551615)");
      value = 1;
    }
    consume();
    return std::make_unique<NumberExprAST>(loc, false, int64_t(value),
                                           double(value),
                                           value > uint64_t(INT64_MAX));
  }
  case TokenKind::Float: {
    std::string text = tok.text.str();
    errno = 0;
    double value = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(value)) {
      ruleError(loc, "float literal '" + tok.text + "' is out of range");
      value = 1;
    }
    consume();
    return std::make_unique<NumberExprAST>(loc, true, 0, value);
  }
  case TokenKind::Identifier: {
    std::string name = tok.text.str();
    consume();
    if (!consumeIf(TokenKind::LParen)) {
      auto it = current.find(name);
      return std::make_unique<NameExprAST>(
          loc, it == current.end() ? name : it->second);
    }
    std::vector<ExprPtr> args;
    std::vector<KeywordArgAST> kwargs;
    if (!tok.is(TokenKind::RParen)) {
      do {
        // `key = value`: an identifier followed by '=' (never '==').
        if (tok.is(TokenKind::Identifier)) {
          Lexer saved = lexer;
          Token key = tok;
          consume();
          if (tok.is(TokenKind::Equal)) {
            consume();
            ExprPtr value = parseExpression();
            if (!value)
              return nullptr;
            kwargs.push_back({key.getLoc(), key.text.str(), std::move(value)});
            continue;
          }
          lexer = saved;
          tok = key;
        }
        // Said, then read as if in its place: the rest of the file is
        // checked, without errors about this call's arguments that moving
        // it would not have.
        if (!kwargs.empty())
          ruleError(tok.getLoc(), "a positional argument cannot follow "
                                  "keyword arguments in the call to '" +
                                      name + "'");
        ExprPtr arg = parseExpression();
        if (!arg)
          return nullptr;
        args.push_back(std::move(arg));
      } while (consumeIf(TokenKind::Comma));
    }
    if (!expect(TokenKind::RParen, "after the arguments of '" + name + "'"))
      return nullptr;
    return bounded(std::make_unique<CallExprAST>(loc, name, std::move(args),
                                                 std::move(kwargs)));
  }
  case TokenKind::KwTrue:
  case TokenKind::KwFalse: {
    bool value = tok.is(TokenKind::KwTrue);
    consume();
    return std::make_unique<BoolExprAST>(loc, value);
  }
  case TokenKind::LBracket: {
    consume();
    std::vector<ExprPtr> elements;
    if (!tok.is(TokenKind::RBracket)) {
      do {
        ExprPtr element = parseExpression();
        if (!element)
          return nullptr;
        elements.push_back(std::move(element));
      } while (consumeIf(TokenKind::Comma));
    }
    if (!expect(TokenKind::RBracket, "to close the list"))
      return nullptr;
    return bounded(std::make_unique<ListExprAST>(loc, std::move(elements)));
  }
  case TokenKind::LParen: {
    consume();
    ExprPtr inner = parseExpression();
    if (!inner || !expect(TokenKind::RParen, "to close '('"))
      return nullptr;
    return inner;
  }
  case TokenKind::Error:
    error(loc, "invalid token '" + printableTokenText(tok.text) + "'");
    return nullptr;
  default: {
    error(loc, "expected an expression, found " + describeToken(tok));
    return nullptr;
  }
  }
}
