//===- DimExpr.h - Sizes computed from symbolic dims ------------*- C++ -*-===//
//
// A tensor's dim is a literal, a symbolic name bound from the parameters
// when the pipeline runs (N, H), or an expression of them: a slice gives
// `H - 32`, a concat `C + 3`, padding to a multiple `32 * ceil(H / 32)`.
// The frontend builds them, types carry them as text (the canonical form
// below, so that two equal sizes have equal text), and the runtime
// evaluates them once the names are bound.
//
// Canonical form: a sum of terms, each an integer times a product of atoms
// (names, and the functions ceil(a / b), floor(a / b), a % b, min(a, b),
// max(a, b) of canonical expressions), terms in a fixed order, the
// constant last: "H + W - 32", "2 * W", "32 * ceil(H / 32)". Sums and
// products of names are normalized (H - 16 - 16 == H - 32, W + W == 2 * W);
// the functions are simplified when their operands are constants.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_DIMEXPR_H
#define PIPE_CORE_DIMEXPR_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipert {

/// Values of a run that kernels take as dims do (`long long d_<name>`)
/// and that no program can name (Sema reserves the prefix `__pipe`): the
/// random seed and the random run number (core/PipeRandom.h, pipe.random),
/// and the index of the run's first sample in the whole batch (0 unless
/// the run is one shard of it: coordinates along the batch dim count from
/// there, see pipe-shard-batch). The runtime and the reference bind them
/// beside the program's dims.
inline constexpr const char *kSeedDim = "__pipe_seed";
inline constexpr const char *kRandomRunDim = "__pipe_random_run";
inline constexpr const char *kBatchOffsetDim = "__pipe_batch_offset";

class DimExpr {
public:
  /// The constant 0.
  DimExpr();
  static DimExpr constant(int64_t value);
  static DimExpr symbol(std::string name);

  friend DimExpr operator+(const DimExpr &a, const DimExpr &b);
  friend DimExpr operator-(const DimExpr &a, const DimExpr &b);
  friend DimExpr operator*(const DimExpr &a, const DimExpr &b);
  /// floor(a / b) and ceil(a / b) for a positive divisor, a % b (with b's
  /// sign, as Python), min and max.
  static DimExpr floorDiv(const DimExpr &a, const DimExpr &b);
  static DimExpr ceilDiv(const DimExpr &a, const DimExpr &b);
  static DimExpr mod(const DimExpr &a, const DimExpr &b);
  static DimExpr min(const DimExpr &a, const DimExpr &b);
  static DimExpr max(const DimExpr &a, const DimExpr &b);

  bool isConstant() const;
  /// The value of a constant expression.
  int64_t getConstant() const;
  /// Whether it is one name alone (a symbolic dim a parameter binds).
  bool isSymbol() const;
  /// Whether some constant arithmetic that made it passed the 64-bit
  /// integers (its text then holds the wrapped value): `2^62 * 2 + H`.
  /// Callers that take sizes from users refuse such an expression.
  bool overflows() const { return overflowed; }
  /// The most terms a normalized sum may have: a product of sums is
  /// multiplied out, so (D0 + 1) * ... * (D13 + 1) would have 2^14 (and
  /// take minutes). Past it, tooLarge() holds and the terms are not kept.
  static constexpr size_t kMaxTerms = 256;
  bool tooLarge() const { return large; }
  /// The most functions (ceil, floor, %, min, max) a size may nest in one
  /// another. Every walk of a DimExpr (str, evaluate, the CUDA of toC)
  /// recurses through its nesting; the frontend refuses a deeper size,
  /// written or made by the ops (a chain of x[::2]), with a caret.
  static constexpr unsigned kMaxDepth = 100;
  /// How deep its functions nest: 0 for "H + 1", 2 for "ceil(min(H, W) / 2)".
  unsigned depth() const;
  /// A positive integer that divides its value whatever the names' sizes
  /// (the gcd of its coefficients: 32 for "32 * ceil(W / 32)", 1 for
  /// "W + 1"); 0 for the constant 0.
  int64_t knownFactor() const;

  /// Whether its value is >= 0 (< 0) whatever the names' sizes, as far as
  /// bounds() can tell (names are sizes, never negative): "2 * W + 1" is
  /// never negative, "W - 2 * W - 1", "min(-1, W)" and "W % 3 - 3" always
  /// are, "W - H" neither as far as it knows.
  bool isNeverNegative() const;
  bool isAlwaysNegative() const;
  /// Bounds on every value it takes whatever the names' sizes (each in
  /// [0, inf)), as far as interval arithmetic tells: 2^100 in magnitude
  /// stands for no bound. (What the two above are made of.)
  std::pair<__int128, __int128> bounds() const;

  /// The canonical text, which parse() reads back.
  std::string str() const;
  /// `str()` as C, each name N written `prefix + N`, in 64-bit integers:
  /// "(d_H - 32LL)".
  std::string toC(const std::string &prefix) const;
  /// Parses the canonical form, and what a person writes in a type:
  /// integers, names, + - * // %, ceil(a / b), floor(a / b), min(a, b),
  /// max(a, b), parentheses. On failure, `error` says why. It reads back
  /// the text of any size str() writes (depth() past kMaxDepth included:
  /// callers that take sizes from users check that); text nested more
  /// than kMaxTextNesting levels (parentheses included) is refused.
  static constexpr unsigned kMaxTextNesting = 1000;
  static std::optional<DimExpr> parse(std::string_view text,
                                      std::string *error = nullptr);
  /// parse() without the copy: the runtime evaluates the same few
  /// expressions on every run, and parsing one takes microseconds (pad32's
  /// run took 28.6 us of host time on the H200's host, bench/NOTES.md).
  /// Both remember what they parsed (thread-safe). Null when `text` does
  /// not parse (parse() then says why).
  static std::shared_ptr<const DimExpr> parseCached(const std::string &text);

  /// Why evaluate() gave nothing.
  enum class Failure { None, Unbound, DividesByZero, Overflows };
  /// Its value once `sizes` binds its names; nothing when a name is unbound
  /// (`missing` names it), a divisor is 0, or a sum or product passes the
  /// 64-bit integers; `failure` says which.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &sizes,
                                  std::string *missing = nullptr,
                                  Failure *failure = nullptr) const;
  /// The names it uses.
  void collectSymbols(std::set<std::string> &symbols) const;
  /// Whether some // % ceil floor in it divides by a constant 0 (whatever
  /// the names' sizes).
  bool dividesByZero() const;

  bool operator==(const DimExpr &other) const { return str() == other.str(); }
  bool operator!=(const DimExpr &other) const { return !(*this == other); }

  /// An atom: a name, or a function of canonical expressions.
  struct Atom;

private:
  /// coefficient * product of atoms (sorted); an empty product is the
  /// constant term.
  struct Term {
    int64_t coefficient = 0;
    std::vector<std::shared_ptr<const Atom>> atoms;
    std::string key() const;
  };
  std::vector<Term> terms; ///< Sorted by key, no zero coefficients.
  bool overflowed = false; ///< See overflows().
  bool large = false;      ///< See tooLarge().
  void normalize();
  /// +1 when isNeverNegative(), -1 when isAlwaysNegative(), else 0.
  int sign() const;
  static DimExpr fromAtom(std::shared_ptr<const Atom> atom);
  /// A function atom (Atom::Kind `kind`) of `a` and `b`, or its value when
  /// it is known.
  static DimExpr makeFunction(int kind, const DimExpr &a, const DimExpr &b);
  static DimExpr foldFunction(int kind, const DimExpr &a, const DimExpr &b);
};

/// Why a size whose depth() passes DimExpr::kMaxDepth is refused.
std::string describeTooDeep();

/// Its value under `sizes`: a literal dim's own, a symbol's, an
/// expression's; nothing when some name is unbound (`missing` names it).
std::optional<int64_t> evaluateDim(const std::string &symbol,
                                   const std::map<std::string, int64_t> &sizes,
                                   std::string *missing = nullptr,
                                   DimExpr::Failure *failure = nullptr);

} // namespace pipert

#endif // PIPE_CORE_DIMEXPR_H
