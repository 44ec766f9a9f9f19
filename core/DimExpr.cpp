//===- DimExpr.cpp - Sizes computed from symbolic dims --------------------===//

#include "core/DimExpr.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <numeric>
#include <unordered_map>

using namespace pipert;

struct DimExpr::Atom {
  enum Kind { Name, FloorDiv, CeilDiv, Mod, Min, Max } kind = Name;
  std::string name;
  DimExpr a, b;
  std::string key;    ///< Its canonical text.
  unsigned depth = 0; ///< 1 + its operands' depth() for a function.
};

namespace {

/// floor(a / b) and ceil(a / b) for b != 0 and not INT64_MIN / -1, without
/// overflow.
int64_t floorDivide(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t ceilDivide(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

/// Whether `text` is a single atom or a non-negative integer: then it needs
/// no parentheses as an operand.
bool isSimple(const std::string &text) {
  if (text.empty())
    return true;
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return std::isdigit((unsigned char)c); }))
    return true;
  // A remainder's own text is in parentheses: "(W % H)".
  bool parenthesized = text[0] == '(';
  if (!(parenthesized || std::isalpha((unsigned char)text[0]) ||
        text[0] == '_'))
    return false;
  // A name, or a function call (a name, then parentheses that close at the
  // end), or a parenthesized text: "H - floor(W / 2)" is none of them.
  size_t open = text.find('(');
  if (open == std::string::npos)
    return text.find(' ') == std::string::npos;
  for (size_t i = 0; i < open; ++i)
    if (!(std::isalnum((unsigned char)text[i]) || text[i] == '_'))
      return false;
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 != text.size())
      return false;
  }
  return true;
}

std::string parenthesize(const std::string &text) {
  return isSimple(text) ? text : "(" + text + ")";
}

} // namespace

DimExpr::DimExpr() = default;

std::string DimExpr::Term::key() const {
  std::string text;
  for (size_t i = 0; i < atoms.size(); ++i)
    text += (i ? " * " : "") + atoms[i]->key;
  return text;
}

DimExpr DimExpr::constant(int64_t value) {
  DimExpr expr;
  if (value != 0)
    expr.terms.push_back(Term{value, {}});
  return expr;
}

DimExpr DimExpr::fromAtom(std::shared_ptr<const Atom> atom) {
  DimExpr expr;
  expr.terms.push_back(Term{1, {std::move(atom)}});
  return expr;
}

DimExpr DimExpr::symbol(std::string name) {
  auto atom = std::make_shared<Atom>();
  atom->kind = Atom::Name;
  atom->key = name;
  atom->name = std::move(name);
  return fromAtom(std::move(atom));
}

void DimExpr::normalize() {
  for (Term &term : terms)
    std::sort(term.atoms.begin(), term.atoms.end(),
              [](const auto &x, const auto &y) { return x->key < y->key; });
  std::map<std::string, Term> merged;
  for (Term &term : terms) {
    std::string key = term.key();
    auto [it, inserted] = merged.emplace(key, term);
    if (!inserted)
      overflowed |= __builtin_add_overflow(it->second.coefficient,
                                           term.coefficient,
                                           &it->second.coefficient);
  }
  terms.clear();
  // Terms with atoms in key order, those added before those subtracted,
  // then the constant: "32 * ceil(H / 32) - H".
  for (bool negative : {false, true})
    for (auto &[key, term] : merged)
      if (!key.empty() && term.coefficient != 0 &&
          (term.coefficient < 0) == negative)
        terms.push_back(term);
  if (auto it = merged.find(""); it != merged.end() && it->second.coefficient)
    terms.push_back(it->second);
}

namespace pipert {
DimExpr operator+(const DimExpr &a, const DimExpr &b) {
  DimExpr sum = a;
  sum.terms.insert(sum.terms.end(), b.terms.begin(), b.terms.end());
  sum.overflowed |= b.overflowed;
  sum.large |= b.large;
  sum.normalize();
  sum.large |= sum.terms.size() > DimExpr::kMaxTerms;
  return sum;
}

DimExpr operator-(const DimExpr &a, const DimExpr &b) {
  return a + DimExpr::constant(-1) * b;
}

DimExpr operator*(const DimExpr &a, const DimExpr &b) {
  DimExpr product;
  product.overflowed = a.overflowed || b.overflowed;
  // Products that cancel count once they are normalized ((A + 1) * (A - 1)
  // has 2 terms); the raw products are bounded so that multiplying out
  // stays cheap (at 256 * 256, nested squares of polynomials in one name,
  // whose terms' texts grow with their degree, took minutes).
  constexpr size_t kMaxProducts = 16 * DimExpr::kMaxTerms;
  product.large = a.large || b.large ||
                  a.terms.size() * b.terms.size() > kMaxProducts;
  if (product.large)
    return product; // Its terms are not multiplied out: see tooLarge().
  for (const DimExpr::Term &x : a.terms)
    for (const DimExpr::Term &y : b.terms) {
      DimExpr::Term term{0, x.atoms};
      product.overflowed |= __builtin_mul_overflow(
          x.coefficient, y.coefficient, &term.coefficient);
      term.atoms.insert(term.atoms.end(), y.atoms.begin(), y.atoms.end());
      product.terms.push_back(std::move(term));
    }
  product.normalize();
  product.large |= product.terms.size() > DimExpr::kMaxTerms;
  return product;
}
} // namespace pipert

bool DimExpr::isConstant() const {
  return terms.empty() || (terms.size() == 1 && terms[0].atoms.empty());
}

int64_t DimExpr::getConstant() const {
  return terms.empty() ? 0 : terms[0].coefficient;
}

namespace {
/// Interval arithmetic on the values a size takes whatever the names'
/// sizes (each name in [0, inf)), in 128 bits with kInfinity standing for
/// any magnitude past 2^100: each operation's result bounds every value it
/// can take, so the sum's bounds are sound (if loose).
using Wide = __int128;
constexpr Wide kInfinity = Wide(1) << 100;

Wide clampWide(Wide v) {
  return v > kInfinity ? kInfinity : v < -kInfinity ? -kInfinity : v;
}

Wide multiplyWide(Wide a, Wide b) {
  if (a == 0 || b == 0)
    return 0;
  Wide magnitudeA = a < 0 ? -a : a, magnitudeB = b < 0 ? -b : b;
  bool negative = (a < 0) != (b < 0);
  if (magnitudeA >= kInfinity || magnitudeB >= kInfinity ||
      magnitudeA > kInfinity / magnitudeB)
    return negative ? -kInfinity : kInfinity;
  return negative ? -(magnitudeA * magnitudeB) : magnitudeA * magnitudeB;
}

struct Bounds {
  Wide lo, hi;
};

Bounds anything() { return {-kInfinity, kInfinity}; }

Bounds multiplyBounds(Bounds x, Bounds y) {
  Wide c[4] = {multiplyWide(x.lo, y.lo), multiplyWide(x.lo, y.hi),
               multiplyWide(x.hi, y.lo), multiplyWide(x.hi, y.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

/// floor(a / b) or ceil(a / b) for b >= 1, either possibly infinite.
Wide divideWide(Wide a, Wide b, bool ceil) {
  if (b >= kInfinity)
    return a >= 0 ? 0 : (ceil ? 0 : -1);
  if (a >= kInfinity || a <= -kInfinity)
    return a;
  Wide q = a / b, r = a % b;
  if (r != 0 && ceil && a > 0)
    q += 1;
  if (r != 0 && !ceil && a < 0)
    q -= 1;
  return q;
}

Bounds boundsOfAtom(const DimExpr::Atom &atom);
} // namespace

bool DimExpr::isNeverNegative() const { return sign() > 0; }
bool DimExpr::isAlwaysNegative() const { return sign() < 0; }

int DimExpr::sign() const {
  if (overflowed || large)
    return 0;
  auto [lo, hi] = bounds();
  return lo >= 0 ? 1 : hi < 0 ? -1 : 0;
}

std::pair<__int128, __int128> DimExpr::bounds() const {
  if (overflowed || large)
    return {-kInfinity, kInfinity};
  Bounds sum{0, 0};
  for (const Term &term : terms) {
    Bounds product{term.coefficient, term.coefficient};
    for (const auto &atom : term.atoms)
      product = multiplyBounds(product, boundsOfAtom(*atom));
    sum = {clampWide(sum.lo + product.lo), clampWide(sum.hi + product.hi)};
  }
  return {sum.lo, sum.hi};
}

namespace {
Bounds boundsOfAtom(const DimExpr::Atom &atom) {
  if (atom.kind == DimExpr::Atom::Name)
    return {0, kInfinity}; // a size
  auto [aLo, aHi] = atom.a.bounds();
  auto [bLo, bHi] = atom.b.bounds();
  switch (atom.kind) {
  case DimExpr::Atom::Min:
    return {std::min(aLo, bLo), std::min(aHi, bHi)};
  case DimExpr::Atom::Max:
    return {std::max(aLo, bLo), std::max(aHi, bHi)};
  case DimExpr::Atom::FloorDiv:
  case DimExpr::Atom::CeilDiv: {
    // A divisor of 0 fails the run: the values it takes are then >= 1.
    // (A divisor that may be negative bounds nothing here.)
    if (bLo < 0)
      return anything();
    bLo = std::max<Wide>(bLo, 1);
    if (bHi < bLo)
      return anything();
    bool ceil = atom.kind == DimExpr::Atom::CeilDiv;
    // Monotone in a, and in b for a's either sign: the corners bound it.
    Wide c[4] = {divideWide(aLo, bLo, ceil), divideWide(aLo, bHi, ceil),
                 divideWide(aHi, bLo, ceil), divideWide(aHi, bHi, ceil)};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  case DimExpr::Atom::Mod:
    // The remainder takes the divisor's sign and is smaller than it.
    if (bLo >= 0)
      return {0, bHi >= kInfinity ? kInfinity : std::max<Wide>(bHi - 1, 0)};
    if (bHi <= 0)
      return {bLo <= -kInfinity ? -kInfinity : std::min<Wide>(bLo + 1, 0), 0};
    return anything();
  case DimExpr::Atom::Name:
    break;
  }
  return anything();
}
} // namespace

int64_t DimExpr::knownFactor() const {
  // Every atom is an integer, so each term is a multiple of its
  // coefficient.
  // In magnitudes, as u64: |INT64_MIN| is no i64 (std::gcd of it was
  // undefined); 2^63 is given as 2^62, which divides it too.
  uint64_t factor = 0;
  for (const Term &term : terms) {
    uint64_t c = uint64_t(term.coefficient);
    factor = std::gcd(factor, term.coefficient < 0 ? 0 - c : c);
  }
  return factor > uint64_t(INT64_MAX) ? int64_t(factor / 2) : int64_t(factor);
}

std::string pipert::describeTooDeep() {
  return "its functions (ceil, floor, //, %, min, max) nest more than " +
         std::to_string(DimExpr::kMaxDepth) + " levels deep";
}

unsigned DimExpr::depth() const {
  unsigned deepest = 0;
  for (const Term &term : terms)
    for (const auto &atom : term.atoms)
      deepest = std::max(deepest, atom->depth);
  return deepest;
}

bool DimExpr::isSymbol() const {
  return terms.size() == 1 && terms[0].coefficient == 1 &&
         terms[0].atoms.size() == 1 && terms[0].atoms[0]->kind == Atom::Name;
}

DimExpr DimExpr::floorDiv(const DimExpr &a, const DimExpr &b) {
  return makeFunction(Atom::FloorDiv, a, b);
}
DimExpr DimExpr::ceilDiv(const DimExpr &a, const DimExpr &b) {
  return makeFunction(Atom::CeilDiv, a, b);
}
DimExpr DimExpr::mod(const DimExpr &a, const DimExpr &b) {
  return makeFunction(Atom::Mod, a, b);
}
DimExpr DimExpr::min(const DimExpr &a, const DimExpr &b) {
  return makeFunction(Atom::Min, a, b);
}
DimExpr DimExpr::max(const DimExpr &a, const DimExpr &b) {
  return makeFunction(Atom::Max, a, b);
}

DimExpr DimExpr::makeFunction(int kindValue, const DimExpr &a,
                              const DimExpr &b) {
  DimExpr result = foldFunction(kindValue, a, b);
  result.overflowed |= a.overflowed || b.overflowed;
  result.large |= a.large || b.large;
  return result;
}

DimExpr DimExpr::foldFunction(int kindValue, const DimExpr &a,
                              const DimExpr &b) {
  auto kind = Atom::Kind(kindValue);
  if (a.isConstant() && b.isConstant()) {
    int64_t x = a.getConstant(), y = b.getConstant();
    // The one quotient past the 64-bit integers: INT64_MIN / -1.
    bool wraps = x == INT64_MIN && y == -1;
    switch (kind) {
    case Atom::Min: return DimExpr::constant(std::min(x, y));
    case Atom::Max: return DimExpr::constant(std::max(x, y));
    case Atom::FloorDiv:
    case Atom::CeilDiv:
      if (wraps) {
        DimExpr wrapped = DimExpr::constant(INT64_MIN);
        wrapped.overflowed = true;
        return wrapped;
      }
      if (y != 0)
        return DimExpr::constant(kind == Atom::FloorDiv ? floorDivide(x, y)
                                                        : ceilDivide(x, y));
      break;
    case Atom::Mod:
      if (wraps)
        return DimExpr::constant(0);
      if (y != 0)
        return DimExpr::constant(x - floorDivide(x, y) * y);
      break;
    case Atom::Name: break;
    }
  }
  if ((kind == Atom::FloorDiv || kind == Atom::CeilDiv) && b.isConstant() &&
      b.getConstant() == 1)
    return a;
  if ((kind == Atom::Min || kind == Atom::Max) && a == b)
    return a;
  // min/max of two expressions a constant apart.
  if (kind == Atom::Min || kind == Atom::Max) {
    DimExpr difference = a - b;
    if (difference.isConstant())
      return (difference.getConstant() < 0) == (kind == Atom::Min) ? a : b;
  }
  auto atom = std::make_shared<Atom>();
  atom->kind = kind;
  atom->a = a;
  atom->b = b;
  atom->depth = 1 + std::max(a.depth(), b.depth());
  std::string x = a.str(), y = b.str();
  // min and max are symmetric: a canonical order of their operands.
  if ((kind == Atom::Min || kind == Atom::Max) && y < x) {
    std::swap(atom->a, atom->b);
    std::swap(x, y);
  }
  switch (kind) {
  case Atom::FloorDiv: atom->key = "floor(" + parenthesize(x) + " / " + parenthesize(y) + ")"; break;
  case Atom::CeilDiv: atom->key = "ceil(" + parenthesize(x) + " / " + parenthesize(y) + ")"; break;
  case Atom::Mod: atom->key = "(" + parenthesize(x) + " % " + parenthesize(y) + ")"; break;
  case Atom::Min: atom->key = "min(" + x + ", " + y + ")"; break;
  case Atom::Max: atom->key = "max(" + x + ", " + y + ")"; break;
  case Atom::Name: break;
  }
  DimExpr expr;
  expr.terms.push_back({1, {std::move(atom)}});
  return expr;
}

std::string DimExpr::str() const {
  if (terms.empty())
    return "0";
  std::string text;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term &term = terms[i];
    int64_t c = term.coefficient;
    bool negative = c < 0;
    uint64_t magnitude = negative ? uint64_t(0) - uint64_t(c) : uint64_t(c);
    std::string body;
    if (term.atoms.empty())
      body = std::to_string(magnitude);
    else if (magnitude == 1)
      body = term.key();
    else
      body = std::to_string(magnitude) + " * " + term.key();
    if (i == 0)
      text = (negative ? "-" : "") + body;
    else
      text += (negative ? " - " : " + ") + body;
  }
  return text;
}

std::string DimExpr::toC(const std::string &prefix) const {
  auto atomToC = [&](const Atom &atom) -> std::string {
    std::string a = atom.a.toC(prefix), b = atom.b.toC(prefix);
    switch (atom.kind) {
    case Atom::Name: return prefix + atom.name;
    case Atom::FloorDiv: return "pipe_dim_floordiv(" + a + ", " + b + ")";
    case Atom::CeilDiv: return "(-pipe_dim_floordiv(-" + a + ", " + b + "))";
    case Atom::Mod: return "pipe_dim_mod(" + a + ", " + b + ")";
    // Calls, not `a < b ? a : b`: that writes each operand twice, so a
    // size of nested mins grew as 2^depth (25 levels took minutes).
    case Atom::Min: return "pipe_dim_min(" + a + ", " + b + ")";
    case Atom::Max: return "pipe_dim_max(" + a + ", " + b + ")";
    }
    return "";
  };
  if (terms.empty())
    return "0LL";
  std::string text;
  for (const Term &term : terms) {
    std::string product = std::to_string(term.coefficient) + "LL";
    for (const auto &atom : term.atoms)
      product += " * " + atomToC(*atom);
    text += (text.empty() ? "" : " + ") + product;
  }
  return "(" + text + ")";
}

namespace {
/// Recursive descent over the syntax in DimExpr::parse's comment.
class DimParser {
public:
  explicit DimParser(std::string_view text) : text(text) {}

  std::optional<DimExpr> parse(std::string *error) {
    std::optional<DimExpr> expr = parseSum();
    skipSpace();
    if (expr && pos != text.size())
      fail("unexpected '" + std::string(1, text[pos]) + "'");
    if (expr && message.empty() && expr->tooLarge())
      fail("it has more than " + std::to_string(DimExpr::kMaxTerms) +
           " terms once its products are multiplied out");
    if (expr && message.empty() && expr->overflows())
      fail("its constant arithmetic passes the 64-bit integers");
    if (!message.empty()) {
      if (error)
        *error = message;
      return std::nullopt;
    }
    return expr;
  }

private:
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool consume(std::string_view token) {
    skipSpace();
    if (text.substr(pos, token.size()) != token)
      return false;
    pos += token.size();
    return true;
  }
  std::nullopt_t fail(const std::string &why) {
    if (message.empty())
      message = why;
    return std::nullopt;
  }

  /// One level of nesting (parentheses, a function, unary minus) while it
  /// is in scope; false past DimExpr::kMaxTextNesting, which bounds the
  /// parser's recursion. The outermost sum is no level, as an
  /// expression's outermost is not (frontend/Parser.cpp): 1000
  /// parentheses are 1000 levels.
  struct Nested {
    DimParser &parser;
    explicit Nested(DimParser &parser) : parser(parser) { ++parser.nesting; }
    ~Nested() { --parser.nesting; }
    bool ok() {
      if (parser.nesting <= DimExpr::kMaxTextNesting + 1)
        return true;
      parser.fail("a size nested more than " +
                  std::to_string(DimExpr::kMaxTextNesting) +
                  " levels deep (parentheses included)");
      return false;
    }
  };

  /// `additive`, when given: set when the sum has a + or - of its own
  /// (not one inside parentheses).
  std::optional<DimExpr> parseSum(bool *additive = nullptr) {
    Nested level(*this);
    if (!level.ok())
      return std::nullopt;
    std::optional<DimExpr> lhs = parseProduct();
    while (lhs) {
      size_t before = pos;
      skipSpace();
      if (additive && pos < text.size() &&
          (text[pos] == '+' || text[pos] == '-'))
        *additive = true;
      pos = before;
      if (consume("+")) {
        auto rhs = parseProduct();
        if (!rhs)
          return std::nullopt;
        lhs = *lhs + *rhs;
      } else if (consume("-")) {
        if (consumeLeastMagnitude()) { // "N - 9223372036854775808"
          lhs = *lhs + DimExpr::constant(INT64_MIN);
          continue;
        }
        auto rhs = parseProduct();
        if (!rhs)
          return std::nullopt;
        lhs = *lhs - *rhs;
      } else {
        break;
      }
    }
    return lhs;
  }

  std::optional<DimExpr> parseProduct() {
    std::optional<DimExpr> lhs = parseUnary();
    while (lhs) {
      if (consume("//")) {
        auto rhs = parseUnary();
        if (!rhs)
          return std::nullopt;
        lhs = DimExpr::floorDiv(*lhs, *rhs);
      } else if (consume("*")) {
        auto rhs = parseUnary();
        if (!rhs)
          return std::nullopt;
        lhs = *lhs * *rhs;
      } else if (consume("%")) {
        auto rhs = parseUnary();
        if (!rhs)
          return std::nullopt;
        lhs = DimExpr::mod(*lhs, *rhs);
      } else {
        break;
      }
    }
    return lhs;
  }

  /// After a '-': the digits of 2^63 alone (not a factor of a product),
  /// which do not fit a 64-bit integer but negated are the least one, as
  /// str() writes it ("-9223372036854775808", "N - 9223372036854775808").
  bool consumeLeastMagnitude() {
    skipSpace();
    static constexpr std::string_view least = "9223372036854775808";
    size_t end = pos + least.size();
    if (text.substr(pos, least.size()) != least ||
        (end < text.size() && std::isdigit((unsigned char)text[end])))
      return false;
    size_t after = end;
    while (after < text.size() && text[after] == ' ')
      ++after;
    if (after < text.size() &&
        (text[after] == '*' || text[after] == '/' || text[after] == '%'))
      return false;
    pos = end;
    return true;
  }

  std::optional<DimExpr> parseUnary() {
    if (consume("-")) {
      if (consumeLeastMagnitude())
        return DimExpr::constant(INT64_MIN);
      Nested level(*this);
      if (!level.ok())
        return std::nullopt;
      auto operand = parseUnary();
      if (!operand)
        return std::nullopt;
      return DimExpr::constant(0) - *operand;
    }
    return parsePrimary();
  }

  std::optional<DimExpr> parsePrimary() {
    skipSpace();
    if (pos >= text.size())
      return fail("expected a size");
    if (consume("(")) {
      auto inner = parseSum();
      if (!inner)
        return std::nullopt;
      if (!consume(")"))
        return fail("expected ')'");
      return inner;
    }
    char c = text[pos];
    if (std::isdigit((unsigned char)c)) {
      int64_t value = 0;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
        int digit = text[pos++] - '0';
        if (value > (INT64_MAX - digit) / 10)
          return fail("a size does not fit in 64 bits");
        value = value * 10 + digit;
      }
      return DimExpr::constant(value);
    }
    if (!(std::isalpha((unsigned char)c) || c == '_'))
      return fail("unexpected '" + std::string(1, c) + "'");
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum((unsigned char)text[pos]) || text[pos] == '_'))
      ++pos;
    std::string name(text.substr(start, pos - start));
    bool division = name == "ceil" || name == "floor";
    bool pair = name == "min" || name == "max";
    if (!(division || pair) || !consume("("))
      return DimExpr::symbol(name);
    // ceil(a / b) reads as the division it looks like: `/` binds as `*`
    // does, so a sum on either side must be in parentheses (ceil(H - 1 /
    // 8) was read as ceil((H - 1) / 8), and ceil(H / 2 + 1) as ceil(H /
    // 3), where the body refuses both). str() writes them so.
    bool additive = false;
    auto a = parseSum(division ? &additive : nullptr);
    if (!a)
      return std::nullopt;
    skipSpace();
    if (additive && pos < text.size() && text[pos] == '/')
      return fail("the dividend of " + name + "(a / b) is a sum: put it in "
                  "parentheses, e.g. " + name + "((H - 1) / 8)");
    if (!consume(division ? "/" : ","))
      return fail(division ? "expected '/' in " + name + "(a / b)"
                           : "expected ',' in " + name + "(a, b)");
    auto b = division ? parseUnary() : parseSum();
    if (!b)
      return std::nullopt;
    if (!consume(")"))
      return fail(division ? "expected ')' after the divisor of " + name +
                                 "(a / b): put a divisor that is more than a "
                                 "name, a number or a call in parentheses, "
                                 "e.g. " + name + "(H / (W + 1))"
                           : std::string("expected ')'"));
    if (name == "ceil")
      return DimExpr::ceilDiv(*a, *b);
    if (name == "floor")
      return DimExpr::floorDiv(*a, *b);
    return name == "min" ? DimExpr::min(*a, *b) : DimExpr::max(*a, *b);
  }

  std::string_view text;
  size_t pos = 0;
  unsigned nesting = 0;
  std::string message;
};
} // namespace

bool DimExpr::dividesByZero() const {
  for (const Term &term : terms)
    for (const auto &atom : term.atoms) {
      if (atom->kind == Atom::Name)
        continue;
      bool divides = atom->kind == Atom::FloorDiv ||
                     atom->kind == Atom::CeilDiv || atom->kind == Atom::Mod;
      if ((divides && atom->b.isConstant() && atom->b.getConstant() == 0) ||
          atom->a.dividesByZero() || atom->b.dividesByZero())
        return true;
    }
  return false;
}

namespace {
/// Texts parsed so far. Types carry sizes as text, so the compiler reads
/// the same few again and again (a concat of 200 parts read each part's
/// offset, a sum of up to 200 terms, thousands of times: 20 s), as does
/// the runtime on every run. A JIT user may compile without end, so the
/// cache starts over at a bound.
class ParseCache {
public:
  std::shared_ptr<const DimExpr> find(std::string_view text) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = parsed.find(std::string(text));
    return it == parsed.end() ? nullptr : it->second;
  }
  void add(std::string_view text, std::shared_ptr<const DimExpr> expr) {
    constexpr size_t kMaxEntries = 4096;
    std::lock_guard<std::mutex> lock(mutex);
    if (parsed.size() >= kMaxEntries)
      parsed.clear();
    parsed.emplace(std::string(text), std::move(expr));
  }

private:
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const DimExpr>> parsed;
};

ParseCache &getParseCache() {
  static ParseCache cache;
  return cache;
}
} // namespace

std::optional<DimExpr> DimExpr::parse(std::string_view text,
                                      std::string *error) {
  if (std::shared_ptr<const DimExpr> known = parseCached(std::string(text)))
    return *known;
  return DimParser(text).parse(error); // again, for why it failed
}

std::shared_ptr<const DimExpr> DimExpr::parseCached(const std::string &text) {
  if (std::shared_ptr<const DimExpr> known = getParseCache().find(text))
    return known;
  std::optional<DimExpr> expr = DimParser(text).parse(nullptr);
  if (!expr)
    return nullptr;
  auto shared = std::make_shared<const DimExpr>(std::move(*expr));
  getParseCache().add(text, shared);
  return shared;
}

std::optional<int64_t>
DimExpr::evaluate(const std::map<std::string, int64_t> &sizes,
                  std::string *missing, Failure *failure) const {
  // Sizes are 64-bit: a sum or product past them has no value (2^62 * 4
  // must not wrap to 0 and pass as a size).
  auto fail = [&](Failure why) -> std::optional<int64_t> {
    if (missing)
      missing->clear();
    if (failure)
      *failure = why;
    return std::nullopt;
  };
  int64_t total = 0;
  for (const Term &term : terms) {
    int64_t product = term.coefficient;
    for (const auto &atom : term.atoms) {
      int64_t value;
      if (atom->kind == Atom::Name) {
        auto it = sizes.find(atom->name);
        if (it == sizes.end()) {
          if (missing)
            *missing = atom->name;
          if (failure)
            *failure = Failure::Unbound;
          return std::nullopt;
        }
        value = it->second;
      } else {
        auto a = atom->a.evaluate(sizes, missing, failure);
        if (!a)
          return std::nullopt;
        auto b = atom->b.evaluate(sizes, missing, failure);
        if (!b)
          return std::nullopt;
        bool divides = atom->kind == Atom::FloorDiv ||
                       atom->kind == Atom::CeilDiv || atom->kind == Atom::Mod;
        if (divides && *b == 0)
          return fail(Failure::DividesByZero);
        if (divides && *b == -1 && *a == INT64_MIN)
          return fail(Failure::Overflows);
        switch (atom->kind) {
        case Atom::FloorDiv: value = floorDivide(*a, *b); break;
        case Atom::CeilDiv: value = ceilDivide(*a, *b); break;
        case Atom::Mod: value = *a - floorDivide(*a, *b) * *b; break;
        case Atom::Min: value = std::min(*a, *b); break;
        case Atom::Max: value = std::max(*a, *b); break;
        case Atom::Name: value = 0; break;
        }
      }
      if (__builtin_mul_overflow(product, value, &product))
        return fail(Failure::Overflows);
    }
    if (__builtin_add_overflow(total, product, &total))
      return fail(Failure::Overflows);
  }
  if (failure)
    *failure = Failure::None;
  return total;
}

void DimExpr::collectSymbols(std::set<std::string> &symbols) const {
  for (const Term &term : terms)
    for (const auto &atom : term.atoms) {
      if (atom->kind == Atom::Name) {
        symbols.insert(atom->name);
      } else {
        atom->a.collectSymbols(symbols);
        atom->b.collectSymbols(symbols);
      }
    }
}

std::optional<int64_t>
pipert::evaluateDim(const std::string &symbol,
                    const std::map<std::string, int64_t> &sizes,
                    std::string *missing, DimExpr::Failure *failure) {
  if (auto it = sizes.find(symbol); it != sizes.end())
    return it->second;
  std::shared_ptr<const DimExpr> expr = DimExpr::parseCached(symbol);
  if (!expr) {
    if (missing)
      *missing = symbol;
    if (failure)
      *failure = DimExpr::Failure::Unbound;
    return std::nullopt;
  }
  return expr->evaluate(sizes, missing, failure);
}
