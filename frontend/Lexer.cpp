//===- Lexer.cpp - Tokens of the .pipe language ---------------------------===//

#include "frontend/Lexer.h"

#include <cctype>

using namespace pipec;

const char *pipec::getTokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof: return "end of file";
  case TokenKind::Newline: return "end of line";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::Integer: return "integer";
  case TokenKind::Float: return "number";
  case TokenKind::KwPipeline: return "'pipeline'";
  case TokenKind::KwTrue: return "'true'";
  case TokenKind::KwFalse: return "'false'";
  case TokenKind::Dot: return "'.'";
  case TokenKind::DotDot: return "'..'";
  case TokenKind::KwIf: return "'if'";
  case TokenKind::KwElse: return "'else'";
  case TokenKind::KwFor: return "'for'";
  case TokenKind::At: return "'@'";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::Comma: return "','";
  case TokenKind::Colon: return "':'";
  case TokenKind::Semicolon: return "';'";
  case TokenKind::Equal: return "'='";
  case TokenKind::Arrow: return "'->'";
  case TokenKind::PipePipe: return "'||'";
  case TokenKind::AmpAmp: return "'&&'";
  case TokenKind::Pipe: return "'|'";
  case TokenKind::Caret: return "'^'";
  case TokenKind::Amp: return "'&'";
  case TokenKind::EqualEqual: return "'=='";
  case TokenKind::NotEqual: return "'!='";
  case TokenKind::Less: return "'<'";
  case TokenKind::LessEqual: return "'<='";
  case TokenKind::Greater: return "'>'";
  case TokenKind::GreaterEqual: return "'>='";
  case TokenKind::LessLess: return "'<<'";
  case TokenKind::GreaterGreater: return "'>>'";
  case TokenKind::Plus: return "'+'";
  case TokenKind::Minus: return "'-'";
  case TokenKind::Star: return "'*'";
  case TokenKind::Slash: return "'/'";
  case TokenKind::SlashSlash: return "'//'";
  case TokenKind::Percent: return "'%'";
  case TokenKind::StarStar: return "'**'";
  case TokenKind::Bang: return "'!'";
  case TokenKind::Tilde: return "'~'";
  case TokenKind::Error: return "invalid character";
  }
  return "token";
}

Token Lexer::lexNumber(const char *start) {
  bool isFloat = false;
  while (isdigit(*cur))
    ++cur;
  if (*cur == '.' && isdigit(cur[1])) {
    isFloat = true;
    ++cur;
    while (isdigit(*cur))
      ++cur;
  }
  if (*cur == 'e' || *cur == 'E') {
    const char *p = cur + 1;
    if (*p == '+' || *p == '-')
      ++p;
    if (isdigit(*p)) {
      isFloat = true;
      cur = p;
      while (isdigit(*cur))
        ++cur;
    }
  }
  // "12abc" is one bad token, not a number followed by a name.
  if (isalpha(*cur) || *cur == '_') {
    while (isalnum(*cur) || *cur == '_')
      ++cur;
    return make(TokenKind::Error, start);
  }
  return make(isFloat ? TokenKind::Float : TokenKind::Integer, start);
}

Token Lexer::next() {
  while (true) {
    if (cur == buffer.end())
      return Token{TokenKind::Eof, llvm::StringRef(cur, 0)};
    char c = *cur;
    if (c == '#') {
      while (cur != buffer.end() && *cur != '\n')
        ++cur;
      continue;
    }
    // "\r\n" is one end of line, located at its '\r' (at the '\n', a
    // diagnostic pointed past the line's end: line 2, column 1, no text).
    bool crlf = c == '\r' && cur + 1 != buffer.end() && cur[1] == '\n';
    if (c == '\n' || crlf) {
      const char *start = cur;
      cur += crlf ? 2 : 1;
      if (nesting > 0)
        continue;
      return make(TokenKind::Newline, start);
    }
    if (isspace(static_cast<unsigned char>(c))) {
      ++cur;
      continue;
    }
    break;
  }
  const char *start = cur;
  char c = *cur++;
  if (isalpha(c) || c == '_') {
    while (isalnum(*cur) || *cur == '_')
      ++cur;
    Token token = make(TokenKind::Identifier, start);
    if (token.text == "pipeline")
      token.kind = TokenKind::KwPipeline;
    else if (token.text == "true")
      token.kind = TokenKind::KwTrue;
    else if (token.text == "false")
      token.kind = TokenKind::KwFalse;
    else if (token.text == "if")
      token.kind = TokenKind::KwIf;
    else if (token.text == "else")
      token.kind = TokenKind::KwElse;
    else if (token.text == "for")
      token.kind = TokenKind::KwFor;
    return token;
  }
  if (isdigit(c) || (c == '.' && isdigit(*cur))) {
    cur = start;
    return lexNumber(start);
  }
  switch (c) {
  case '(': ++nesting; return make(TokenKind::LParen, start);
  case ')': if (nesting > 0) --nesting; return make(TokenKind::RParen, start);
  case '[': ++nesting; return make(TokenKind::LBracket, start);
  case ']': if (nesting > 0) --nesting; return make(TokenKind::RBracket, start);
  case '{': return make(TokenKind::LBrace, start);
  case '}': return make(TokenKind::RBrace, start);
  case ',': return make(TokenKind::Comma, start);
  case '.':
    return make(match('.') ? TokenKind::DotDot : TokenKind::Dot, start);
  case '@': return make(TokenKind::At, start);
  case ':': return make(TokenKind::Colon, start);
  case ';': return make(TokenKind::Semicolon, start);
  case '=':
    return make(match('=') ? TokenKind::EqualEqual : TokenKind::Equal, start);
  case '+': return make(TokenKind::Plus, start);
  case '%': return make(TokenKind::Percent, start);
  case '^': return make(TokenKind::Caret, start);
  case '~': return make(TokenKind::Tilde, start);
  case '*': return make(match('*') ? TokenKind::StarStar : TokenKind::Star, start);
  case '/':
    return make(match('/') ? TokenKind::SlashSlash : TokenKind::Slash, start);
  case '|': return make(match('|') ? TokenKind::PipePipe : TokenKind::Pipe, start);
  case '&': return make(match('&') ? TokenKind::AmpAmp : TokenKind::Amp, start);
  case '!':
    return make(match('=') ? TokenKind::NotEqual : TokenKind::Bang, start);
  case '<':
    if (match('<'))
      return make(TokenKind::LessLess, start);
    return make(match('=') ? TokenKind::LessEqual : TokenKind::Less, start);
  case '>':
    if (match('>'))
      return make(TokenKind::GreaterGreater, start);
    return make(match('=') ? TokenKind::GreaterEqual : TokenKind::Greater,
                start);
  case '-':
    return make(match('>') ? TokenKind::Arrow : TokenKind::Minus, start);
  default: {
    // A character outside the language: the whole of it when it is UTF-8
    // (a lead byte and its continuation bytes), so that the message shows
    // the character rather than half of it.
    unsigned char lead = static_cast<unsigned char>(c);
    int more = lead >= 0xF0 && lead < 0xF8   ? 3
               : lead >= 0xE0 && lead < 0xF0 ? 2
               : lead >= 0xC0 && lead < 0xE0 ? 1
                                             : 0;
    for (; more > 0 && cur != buffer.end() &&
           (static_cast<unsigned char>(*cur) & 0xC0) == 0x80;
         --more)
      ++cur;
    return make(TokenKind::Error, start);
  }
  }
}
