//===- Lexer.h - Tokens of the .pipe language -------------------*- C++ -*-===//
//
// Splits a .pipe buffer into tokens, each with its position in the buffer
// (an llvm::SMLoc) so that every later diagnostic can point at the source.
// Newlines end statements, except inside parentheses and brackets.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_LEXER_H
#define PIPE_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace pipec {

enum class TokenKind {
  Eof,
  Newline,
  Identifier,
  Integer,
  Float,
  KwPipeline, KwTrue, KwFalse, KwIf, KwElse, KwFor,
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  Comma, Colon, Semicolon, Equal, Arrow, Dot, DotDot, At,
  // Operators, loosest-binding first.
  PipePipe, AmpAmp, Pipe, Caret, Amp, EqualEqual, NotEqual,
  Less, LessEqual, Greater, GreaterEqual, LessLess, GreaterGreater,
  Plus, Minus, Star, Slash, SlashSlash, Percent, StarStar,
  Bang, Tilde,
  Error,
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef text;
  llvm::SMLoc getLoc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(TokenKind k) const { return kind == k; }
};

/// A human name for a token kind, for "expected X" diagnostics.
const char *getTokenKindName(TokenKind kind);

class Lexer {
public:
  /// A UTF-8 byte order mark at the start (some Windows editors write
  /// one) is skipped: it is no token.
  explicit Lexer(llvm::StringRef buffer)
      : buffer(buffer),
        cur(buffer.begin() + (buffer.starts_with("\xEF\xBB\xBF") ? 3 : 0)) {}

  /// Lexes and returns the next token.
  Token next();

private:
  Token make(TokenKind kind, const char *start) {
    return Token{kind, llvm::StringRef(start, cur - start)};
  }
  Token lexNumber(const char *start);
  /// Consumes `c` if it is next.
  bool match(char c) {
    if (cur == buffer.end() || *cur != c)
      return false;
    ++cur;
    return true;
  }

  llvm::StringRef buffer;
  const char *cur;
  /// Open ( and [ not yet closed: newlines inside them are spaces.
  int nesting = 0;
};

} // namespace pipec

#endif // PIPE_FRONTEND_LEXER_H
