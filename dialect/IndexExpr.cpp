//===- IndexExpr.cpp - Integer expressions of a kernel's coordinates ------===//

#include "dialect/IndexExpr.h"

#include "dialect/PipeDialect.h"

#include "core/DimExpr.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::pipe;

/// The bit of Node::coordinates for coordinate `d`.
static uint64_t coordinateBit(int64_t d) {
  return uint64_t(1) << std::min<int64_t>(std::max<int64_t>(d, 0), 63);
}

/// The coordinates its operands read.
static uint64_t coordinatesOf(ArrayRef<IndexExpr> operands) {
  uint64_t bits = 0;
  for (const IndexExpr &operand : operands)
    bits |= operand.getCoordinateBits();
  return bits;
}

IndexExpr IndexExpr::make(Kind kind, ArrayRef<IndexExpr> operands) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->operands.assign(operands.begin(), operands.end());
  node->coordinates = coordinatesOf(operands);
  return IndexExpr(std::move(node));
}

IndexExpr IndexExpr::constant(int64_t value) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Constant;
  node->constant = value;
  return IndexExpr(std::move(node));
}

IndexExpr IndexExpr::coordinate(int64_t d) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Coordinate;
  node->constant = d;
  node->coordinates = coordinateBit(d);
  return IndexExpr(std::move(node));
}

IndexExpr IndexExpr::dim(StringRef name) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Dim;
  node->name = name.str();
  return IndexExpr(std::move(node));
}

IndexExpr IndexExpr::dimOf(RankedTensorType type, int64_t d) {
  if (!type.isDynamicDim(d))
    return constant(type.getDimSize(d));
  return dim(getDimNames(type)[d]);
}

IndexExpr IndexExpr::scalar(Value value) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Scalar;
  node->value = value;
  return IndexExpr(std::move(node));
}

IndexExpr IndexExpr::read(Value tensor, ArrayRef<IndexExpr> coordinates) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Read;
  node->value = tensor;
  node->operands.assign(coordinates.begin(), coordinates.end());
  node->coordinates = coordinatesOf(coordinates);
  return IndexExpr(std::move(node));
}

static bool bothConstant(const IndexExpr &a, const IndexExpr &b) {
  return a.getKind() == IndexExpr::Kind::Constant &&
         b.getKind() == IndexExpr::Kind::Constant;
}

static int64_t floorDivide(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

namespace mlir {
namespace pipe {
IndexExpr operator+(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return IndexExpr::constant(a.getConstant() + b.getConstant());
  if (a.isConstant(0))
    return b;
  if (b.isConstant(0))
    return a;
  return IndexExpr::make(IndexExpr::Kind::Add, {a, b});
}

IndexExpr operator*(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return IndexExpr::constant(a.getConstant() * b.getConstant());
  if (a.isConstant(0) || b.isConstant(0))
    return IndexExpr::constant(0);
  if (a.isConstant(1))
    return b;
  if (b.isConstant(1))
    return a;
  return IndexExpr::make(IndexExpr::Kind::Mul, {a, b});
}

IndexExpr operator-(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return IndexExpr::constant(a.getConstant() - b.getConstant());
  return a + IndexExpr::constant(-1) * b;
}
} // namespace pipe
} // namespace mlir

IndexExpr IndexExpr::floorDiv(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b) && b.getConstant() != 0)
    return constant(floorDivide(a.getConstant(), b.getConstant()));
  if (b.isConstant(1))
    return a;
  return make(Kind::FloorDiv, {a, b});
}

IndexExpr IndexExpr::mod(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b) && b.getConstant() != 0)
    return constant(a.getConstant() -
                    floorDivide(a.getConstant(), b.getConstant()) *
                        b.getConstant());
  if (b.isConstant(1))
    return constant(0);
  return make(Kind::Mod, {a, b});
}

IndexExpr IndexExpr::min(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return constant(std::min(a.getConstant(), b.getConstant()));
  return make(Kind::Min, {a, b});
}

IndexExpr IndexExpr::max(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return constant(std::max(a.getConstant(), b.getConstant()));
  return make(Kind::Max, {a, b});
}

IndexExpr IndexExpr::abs(IndexExpr a) {
  // (The lowest i64 stays itself, as the kernels' negation wraps it.)
  if (a.getKind() == Kind::Constant)
    return constant(a.getConstant() < 0
                        ? int64_t(0 - uint64_t(a.getConstant()))
                        : a.getConstant());
  return make(Kind::Abs, {a});
}

IndexExpr IndexExpr::select(IndexExpr condition, IndexExpr a, IndexExpr b) {
  if (condition.getKind() == Kind::Constant)
    return condition.getConstant() ? a : b;
  return make(Kind::Select, {condition, a, b});
}

IndexExpr IndexExpr::lt(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return constant(a.getConstant() < b.getConstant());
  return make(Kind::Lt, {a, b});
}

IndexExpr IndexExpr::eq(IndexExpr a, IndexExpr b) {
  if (bothConstant(a, b))
    return constant(a.getConstant() == b.getConstant());
  return make(Kind::Eq, {a, b});
}

IndexExpr IndexExpr::clamp(IndexExpr x, IndexExpr lo, IndexExpr hi) {
  return min(max(x, lo), hi);
}

bool IndexExpr::dependsOn(int64_t d) const {
  if (getKind() == Kind::Coordinate)
    return getIndex() == d;
  if (!(node->coordinates & coordinateBit(d)))
    return false;
  if (d < 63)
    return true;
  return llvm::any_of(getOperands(),
                      [&](const IndexExpr &operand) {
                        return operand.dependsOn(d);
                      });
}

bool IndexExpr::isComputed(bool scalars) const {
  switch (getKind()) {
  case Kind::Read:
  case Kind::Min:
  case Kind::Max:
  case Kind::Select:
    return true;
  case Kind::Scalar:
    return scalars;
  default:
    return llvm::any_of(getOperands(), [&](const IndexExpr &operand) {
      return operand.isComputed(scalars);
    });
  }
}

IndexExpr
IndexExpr::substitute(llvm::function_ref<IndexExpr(int64_t)> by) const {
  switch (getKind()) {
  case Kind::Constant:
  case Kind::Dim:
  case Kind::Scalar:
    return *this;
  case Kind::Coordinate:
    if (IndexExpr replacement = by(getIndex()))
      return replacement;
    return *this;
  default:
    break;
  }
  SmallVector<IndexExpr> operands;
  for (const IndexExpr &operand : getOperands())
    operands.push_back(operand.substitute(by));
  switch (getKind()) {
  case Kind::Read: return read(getValue(), operands);
  case Kind::Add: return operands[0] + operands[1];
  case Kind::Mul: return operands[0] * operands[1];
  case Kind::FloorDiv: return floorDiv(operands[0], operands[1]);
  case Kind::Mod: return mod(operands[0], operands[1]);
  case Kind::Min: return min(operands[0], operands[1]);
  case Kind::Max: return max(operands[0], operands[1]);
  case Kind::Abs: return abs(operands[0]);
  case Kind::Select: return select(operands[0], operands[1], operands[2]);
  case Kind::Lt: return lt(operands[0], operands[1]);
  case Kind::Eq: return eq(operands[0], operands[1]);
  default: llvm_unreachable("leaves are handled above");
  }
}

std::optional<std::pair<IndexExpr, IndexExpr>>
IndexExpr::linearIn(int64_t d) const {
  if (!dependsOn(d))
    return std::make_pair(*this, constant(0));
  switch (getKind()) {
  case Kind::Coordinate:
    return std::make_pair(constant(0), constant(1));
  case Kind::Add: {
    auto a = getOperands()[0].linearIn(d), b = getOperands()[1].linearIn(d);
    if (!a || !b)
      return std::nullopt;
    return std::make_pair(a->first + b->first, a->second + b->second);
  }
  case Kind::Mul: {
    const IndexExpr &x = getOperands()[0], &y = getOperands()[1];
    if (x.dependsOn(d) && y.dependsOn(d))
      return std::nullopt;
    const IndexExpr &moving = x.dependsOn(d) ? x : y;
    const IndexExpr &factor = x.dependsOn(d) ? y : x;
    auto linear = moving.linearIn(d);
    if (!linear)
      return std::nullopt;
    return std::make_pair(linear->first * factor, linear->second * factor);
  }
  case Kind::Select: {
    // A choice that does not move along d, between two lines (a flip).
    const IndexExpr &condition = getOperands()[0];
    if (condition.dependsOn(d))
      return std::nullopt;
    auto a = getOperands()[1].linearIn(d), b = getOperands()[2].linearIn(d);
    if (!a || !b)
      return std::nullopt;
    return std::make_pair(select(condition, a->first, b->first),
                          select(condition, a->second, b->second));
  }
  default:
    return std::nullopt;
  }
}

void IndexExpr::collectValues(SmallVectorImpl<Value> &values) const {
  if (getKind() == Kind::Scalar || getKind() == Kind::Read)
    values.push_back(getValue());
  for (const IndexExpr &operand : getOperands())
    operand.collectValues(values);
}

void IndexExpr::collectDims(SmallVectorImpl<std::string> &dims) const {
  if (getKind() == Kind::Dim)
    dims.push_back(getName().str());
  for (const IndexExpr &operand : getOperands())
    operand.collectDims(dims);
}

IndexCoordinates mlir::pipe::getDomainCoordinates(int64_t rank) {
  IndexCoordinates coordinates;
  for (int64_t d = 0; d < rank; ++d)
    coordinates.push_back(IndexExpr::coordinate(d));
  return coordinates;
}

bool mlir::pipe::isSameIndexExpr(const IndexExpr &a, const IndexExpr &b) {
  if (a.getKind() != b.getKind() || a.getConstant() != b.getConstant() ||
      a.getName() != b.getName() || a.getValue() != b.getValue() ||
      a.getOperands().size() != b.getOperands().size())
    return false;
  for (auto [x, y] : llvm::zip(a.getOperands(), b.getOperands()))
    if (!isSameIndexExpr(x, y))
      return false;
  return true;
}

/// Whether `e` reads coordinate `d` other than through the parameters it
/// reads (a crop's anchors) and the conditions it chooses by (a flip's
/// flags): whether `d` is the coordinate it moves along.
static bool movesAlong(const IndexExpr &e, int64_t d) {
  switch (e.getKind()) {
  case IndexExpr::Kind::Coordinate:
    return e.getIndex() == d;
  case IndexExpr::Kind::Read:
    return false;
  case IndexExpr::Kind::Select:
    return movesAlong(e.getOperands()[1], d) ||
           movesAlong(e.getOperands()[2], d);
  default:
    return llvm::any_of(e.getOperands(), [&](const IndexExpr &operand) {
      return movesAlong(operand, d);
    });
  }
}

/// Whether `step` is 1 or -1, or a choice between such.
static bool isUnitStep(const IndexExpr &step) {
  if (step.isConstant(1) || step.isConstant(-1))
    return true;
  return step.getKind() == IndexExpr::Kind::Select &&
         isUnitStep(step.getOperands()[1]) && isUnitStep(step.getOperands()[2]);
}

std::optional<InjectiveInverse>
mlir::pipe::invertInjectiveRead(ArrayRef<IndexExpr> read,
                                RankedTensorType source,
                                RankedTensorType domain) {
  int64_t rank = domain.getRank();
  if (source.getRank() != rank || int64_t(read.size()) != rank)
    return std::nullopt;
  // The domain coordinate each source coordinate moves with: one, its own.
  SmallVector<int64_t> movesWith(rank, -1);
  SmallVector<bool> taken(rank, false);
  for (int64_t k = 0; k < rank; ++k) {
    for (int64_t d = 0; d < rank; ++d) {
      if (!movesAlong(read[k], d))
        continue;
      if (movesWith[k] >= 0)
        return std::nullopt; // two coordinates make one
      movesWith[k] = d;
    }
    int64_t d = movesWith[k];
    // A dim of one read at 0 moves with nothing (a broadcast's, a
    // transpose's of one channel): it pairs with a domain dim of one below.
    if (d < 0 && read[k].isConstant(0) && !source.isDynamicDim(k) &&
        source.getDimSize(k) == 1)
      continue;
    if (d < 0 || taken[d])
      return std::nullopt; // a constant, or a coordinate read twice
    taken[d] = true;
  }
  InjectiveInverse inverse;
  inverse.coordinates.resize(rank);
  SmallVector<bool> solved(rank, false);
  // Each domain dim no source coordinate moves with is one (its element
  // is 0) and takes one of the source's dims of one.
  int64_t ones = llvm::count(movesWith, -1);
  for (int64_t d = 0; d < rank; ++d) {
    if (taken[d])
      continue;
    if (domain.isDynamicDim(d) || domain.getDimSize(d) != 1 || ones-- == 0)
      return std::nullopt;
    inverse.coordinates[d] = IndexExpr::constant(0);
    solved[d] = true;
  }
  auto ready = [&](const IndexExpr &e, int64_t d) {
    for (int64_t j = 0; j < rank; ++j)
      if (j != d && e.dependsOn(j) && !solved[j])
        return false;
    return true;
  };
  auto known = [&](const IndexExpr &e) {
    return e.substitute([&](int64_t j) { return inverse.coordinates[j]; });
  };
  auto sameSize = [&](int64_t k, int64_t d) {
    return source.isDynamicDim(k) == domain.isDynamicDim(d) &&
           source.getDimSize(k) == domain.getDimSize(d) &&
           getDimNames(source)[k] == getDimNames(domain)[d];
  };
  // c_d in source coordinates for `e` = offset + c_d or offset - c_d, the
  // offset over coordinates solved already; whether it is the identity or
  // the reversal of equal sizes (`exact`).
  auto invertLine = [&](const IndexExpr &e, int64_t d, int64_t k,
                        bool &exact) -> IndexExpr {
    auto line = e.linearIn(d);
    if (!line || line->second.dependsOn(d) || line->first.dependsOn(d))
      return IndexExpr();
    IndexExpr offset = known(line->first), p = IndexExpr::coordinate(k);
    if (line->second.isConstant(1)) {
      exact = offset.isConstant(0) && sameSize(k, d);
      return p - offset;
    }
    if (line->second.isConstant(-1)) {
      IndexExpr last = IndexExpr::dimOf(source, k) - IndexExpr::constant(1);
      exact = isSameIndexExpr(offset, last) && sameSize(k, d);
      return offset - p;
    }
    // A step chosen by a condition (a crop of a flip per sample: anchor +
    // (flag ? size - 1 - c : c)): its own inverse, when it is 1 or -1.
    if (isUnitStep(line->second)) {
      exact = false;
      return (p - offset) * known(line->second);
    }
    return IndexExpr();
  };
  // Offsets and conditions read other coordinates: solve theirs first.
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t k = 0; k < rank; ++k) {
      int64_t d = movesWith[k];
      const IndexExpr &e = read[k];
      if (d < 0 || solved[d] || !ready(e, d))
        continue;
      bool exact = false;
      IndexExpr c;
      if (e.getKind() != IndexExpr::Kind::Select) {
        c = invertLine(e, d, k, exact);
      } else {
        const IndexExpr &condition = e.getOperands()[0];
        if (condition.dependsOn(d))
          return std::nullopt;
        bool exactA = false, exactB = false;
        IndexExpr a = invertLine(e.getOperands()[1], d, k, exactA);
        IndexExpr b = invertLine(e.getOperands()[2], d, k, exactB);
        if (a && b)
          c = IndexExpr::select(known(condition), a, b);
        exact = exactA && exactB;
      }
      if (!c)
        return std::nullopt;
      inverse.coordinates[d] = c;
      inverse.partial |= !exact;
      solved[d] = true;
      progress = true;
    }
  }
  if (llvm::is_contained(solved, false))
    return std::nullopt; // offsets or conditions that read each other
  return inverse;
}

IndexRead mlir::pipe::resolveIndexMaps(Value value, IndexCoordinates coordinates) {
  IndexRead read;
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      read.arg = arg;
      read.source = cast<RankedTensorType>(arg.getType());
      read.coordinates = std::move(coordinates);
      return read;
    }
    // A rank-0 value the chain reads (a computed scalar, broadcast), unless
    // it is a map's own result (a slice that drops every dim), which reads
    // its source at constant coordinates.
    if (cast<RankedTensorType>(value.getType()).getRank() == 0 &&
        !value.getDefiningOp<IndexMapOpInterface>()) {
      read.scalar = value;
      return read;
    }
    if (auto coordinate = value.getDefiningOp<CoordinateOp>()) {
      read.index = coordinates[coordinate.getAxis()];
      // Along a split batch: from the shard's first sample.
      if (coordinate->hasAttr("pipe.batch_offset"))
        read.index = read.index + IndexExpr::dim(pipert::kBatchOffsetDim);
      return read;
    }
    auto map = value.getDefiningOp<IndexMapOpInterface>();
    if (!map)
      return read;
    coordinates = map.mapIndex(coordinates);
    value = map.getSource();
  }
}
