//===- IndexExpr.h - Integer expressions of a kernel's coordinates -*- C++ -*-//
//
// What an index map (IndexMapOpInterface) says: for a result element at
// some coordinates, the coordinates of the source element it is. A
// coordinate is an IndexExpr over the kernel's domain coordinates, the
// program's symbolic dims (and dim expressions), rank-0 values of the
// kernel, and elements of other tensors the kernel reads (per-sample
// parameters: a crop's anchors, a flip's flags). Codegen prints them as C
// and asks which coordinates they depend on, and how (linearly along the
// last one, or not), to pick and shape a kernel's variants.
//
// Expressions are immutable and shared; the builders fold constants and
// drop identities (x + 0, x * 1), so that a plain broadcast prints as the
// bare coordinate it is.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_DIALECT_INDEXEXPR_H
#define PIPE_DIALECT_INDEXEXPR_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace pipe {

class IndexExpr {
public:
  enum class Kind : uint8_t {
    Constant,   ///< An integer.
    Coordinate, ///< The kernel's domain coordinate `getIndex()`.
    Dim,        ///< A symbolic dim, or a dim expression (getName()).
    Scalar,     ///< A rank-0 value of the kernel (getValue()).
    Read,       ///< getValue()'s element at getOperands() (coordinates).
    Add,
    Mul,
    FloorDiv, ///< Rounding toward negative infinity.
    Mod,      ///< With the divisor's sign (floored), as Python's %.
    Min,
    Max,
    Abs,    ///< |getOperands()[0]|
    Select, ///< getOperands()[0] != 0 ? [1] : [2]
    Lt,     ///< 1 if [0] < [1], else 0.
    Eq,
  };

  IndexExpr() = default;

  Kind getKind() const { return node->kind; }
  int64_t getConstant() const { return node->constant; }
  /// The coordinate's dim (Coordinate).
  int64_t getIndex() const { return node->constant; }
  llvm::StringRef getName() const { return node->name; }
  Value getValue() const { return node->value; }
  llvm::ArrayRef<IndexExpr> getOperands() const { return node->operands; }
  bool isConstant(int64_t value) const {
    return getKind() == Kind::Constant && getConstant() == value;
  }
  explicit operator bool() const { return bool(node); }

  /// Whether it reads domain coordinate `d`.
  bool dependsOn(int64_t d) const;
  /// Whether it is computed from what the kernel reads (a Read, and a
  /// Scalar when `scalars`: a crop's anchors) or from choices (min, max,
  /// select: a border rule, a flip's flags) rather than from coordinates,
  /// dims and constants alone, whose sums and products the emitters can
  /// bound (in 32 bits) and decompose (into planes).
  bool isComputed(bool scalars) const;
  /// Bit d set when it reads coordinate d (bit 63: some coordinate from 63
  /// on).
  uint64_t getCoordinateBits() const { return node->coordinates; }
  /// It with every coordinate `d` replaced by `by(d)` (or kept where `by`
  /// gives a null expression).
  IndexExpr substitute(llvm::function_ref<IndexExpr(int64_t)> by) const;

  /// When it is `base + step * c<d>` with `base` and `step` not depending
  /// on coordinate `d`: the pair; else nothing.
  std::optional<std::pair<IndexExpr, IndexExpr>> linearIn(int64_t d) const;

  /// Every value it reads (Scalar and Read leaves).
  void collectValues(llvm::SmallVectorImpl<Value> &values) const;
  /// Every dim name it uses.
  void collectDims(llvm::SmallVectorImpl<std::string> &dims) const;

  // Leaves.
  static IndexExpr constant(int64_t value);
  static IndexExpr coordinate(int64_t d);
  static IndexExpr dim(llvm::StringRef name);
  /// The size of `type`'s dim `d`: a literal or its symbol.
  static IndexExpr dimOf(RankedTensorType type, int64_t d);
  static IndexExpr scalar(Value value);
  static IndexExpr read(Value tensor, llvm::ArrayRef<IndexExpr> coordinates);

  // Operations (folding constants and identities).
  friend IndexExpr operator+(IndexExpr a, IndexExpr b);
  friend IndexExpr operator-(IndexExpr a, IndexExpr b);
  friend IndexExpr operator*(IndexExpr a, IndexExpr b);
  static IndexExpr floorDiv(IndexExpr a, IndexExpr b);
  static IndexExpr mod(IndexExpr a, IndexExpr b);
  static IndexExpr min(IndexExpr a, IndexExpr b);
  static IndexExpr max(IndexExpr a, IndexExpr b);
  /// |a|: one use of `a` where max(a, -a) would make two (a map's
  /// expression is its source's, copied into each use: chained maps that
  /// use their coordinate twice grow exponentially).
  static IndexExpr abs(IndexExpr a);
  static IndexExpr select(IndexExpr condition, IndexExpr a, IndexExpr b);
  static IndexExpr lt(IndexExpr a, IndexExpr b);
  static IndexExpr eq(IndexExpr a, IndexExpr b);
  /// min(max(x, lo), hi).
  static IndexExpr clamp(IndexExpr x, IndexExpr lo, IndexExpr hi);

private:
  struct Node {
    Kind kind;
    int64_t constant = 0;
    std::string name;
    Value value;
    std::vector<IndexExpr> operands; // std::vector: IndexExpr is incomplete here
    /// Bit d: whether it reads coordinate d (the last bit: any from 63
    /// on). Kept so that dependsOn() is no walk: linearIn() asks it at
    /// every level, which made a chain of 2000 flips take seconds.
    uint64_t coordinates = 0;
  };
  explicit IndexExpr(std::shared_ptr<const Node> node) : node(std::move(node)) {}
  static IndexExpr make(Kind kind, llvm::ArrayRef<IndexExpr> operands);
  std::shared_ptr<const Node> node;
};

/// The source coordinates an index map gives for some result coordinates.
using IndexCoordinates = llvm::SmallVector<IndexExpr, 4>;

/// The identity coordinates of a domain of rank `rank`: c0, c1, ...
IndexCoordinates getDomainCoordinates(int64_t rank);

/// Whether `a` and `b` are the same expression, node for node.
bool isSameIndexExpr(const IndexExpr &a, const IndexExpr &b);

/// What a chain of index maps reads for one element: input `arg` of the
/// kernel's body at `coordinates` (one per dim of the input), or, when the
/// chain ends at a value that is not an input (a coordinate op, a rank-0
/// value), that value's index expression (`index`) or the value itself.
struct IndexRead {
  BlockArgument arg;
  RankedTensorType source;
  IndexCoordinates coordinates;
  /// The value of a chain that ends at a rank-0 value.
  Value scalar;
  /// The value of a chain that ends at a coordinate (pipe.coordinate): the
  /// coordinate there, in the domain's coordinates.
  IndexExpr index;
};

/// Follows `value` (a value of a fused body, read at `coordinates`) through
/// the index maps that compute it to what they read. Null arg and scalar
/// when the chain ends elsewhere (fusion never makes such a chain).
IndexRead resolveIndexMaps(Value value, IndexCoordinates coordinates);

/// The inverse of an index map chain that reads each element of its
/// source at most once (invertInjectiveRead).
struct InjectiveInverse {
  /// The domain coordinates as expressions of the source's: Coordinate(k)
  /// here stands for source coordinate k.
  IndexCoordinates coordinates;
  /// Whether some source elements are read by no element of the domain
  /// (a crop, a slice): their `coordinates` fall outside the domain.
  bool partial = false;
};

/// `read` are the coordinates at which a chain of index maps reads a
/// tensor of type `source` for each element of a domain of type `domain`.
/// When each source coordinate k is a distinct domain coordinate d, read
/// at c_d + offset or at offset - c_d, the offset and any condition that
/// chooses between two such (a flip per sample) reading only the other
/// coordinates (a transpose, a flip, a crop or slice at anchors per
/// sample), each element of the source is read at most once: returns the
/// domain coordinates in terms of the source's; else nothing. Not
/// `partial` when every element is read exactly once (the offsets 0 or
/// size - 1 of the same sizes).
std::optional<InjectiveInverse>
invertInjectiveRead(llvm::ArrayRef<IndexExpr> read, RankedTensorType source,
                    RankedTensorType domain);

} // namespace pipe
} // namespace mlir

#endif // PIPE_DIALECT_INDEXEXPR_H
