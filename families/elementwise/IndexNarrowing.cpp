//===- IndexNarrowing.cpp - 64-bit integers computed in 32 bits ----------===//
//
// Coordinates, dims and the index arithmetic over them are si64 values in
// the dialect (sizes can pass 2^31), but the 32-bit variants of a kernel run
// only where every coordinate and dim is below 2^31. There, a value whose
// range provably fits in 32 bits is computed as an int: the same value, in
// half the instructions (a 64-bit compare is three SASS instructions, a
// 32-bit one one). erase's region tests on f32[64, 2, 1024, 1024] were
// 100 of 195 instructions a thread in 64 bits (bench/NOTES.md).
//
// The ranges are intervals found in one forward pass over the body: inputs
// and casts from narrower integers have their dtype's range, constants
// their value, coordinates and dims [0, 2^31) (the launcher takes the
// 32-bit variants only when every dim argument is below 2^31, not only
// the kernel's own tensors' dims), and add, sub, mul, min, max,
// neg, abs and select combine their operands' (none when the 64-bit result
// could wrap). A narrowed value is declared pipe_i32; the ops that compute
// it take their si64 operands as pipe_i32, and the ops that do not take
// narrowed operands back as pipe_i64, except comparisons, which compare
// in 32 bits when all their si64 operands fit.
//
//===----------------------------------------------------------------------===//

#include "families/elementwise/KernelEmitter.h"

#include <limits>

namespace pipec::elementwise {

namespace {
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

bool isSigned64(Value value) {
  auto type = dyn_cast<IntegerType>(tensorTypeOf(value).getElementType());
  return type && type.getWidth() == 64 && !type.isUnsigned();
}

bool fitsInt32(const std::optional<ValueRange> &range) {
  return range && range->lo >= kInt32Min && range->hi <= kInt32Max;
}

/// The range of an integer dtype narrower than 64 bits; none for wider
/// integers and floats.
std::optional<ValueRange> rangeOfType(Value value) {
  auto type = dyn_cast<IntegerType>(tensorTypeOf(value).getElementType());
  if (!type || type.getWidth() >= 64)
    return std::nullopt;
  const unsigned width = type.getWidth();
  if (width == 1 || type.isUnsigned())
    return ValueRange{0, (int64_t(1) << width) - 1};
  return ValueRange{-(int64_t(1) << (width - 1)),
                    (int64_t(1) << (width - 1)) - 1};
}

/// [lo, hi] when both fit in 64 bits; none otherwise (the 64-bit result
/// could wrap).
std::optional<ValueRange> checked(__int128 lo, __int128 hi) {
  constexpr __int128 min = std::numeric_limits<int64_t>::min();
  constexpr __int128 max = std::numeric_limits<int64_t>::max();
  if (lo < min || hi > max)
    return std::nullopt;
  return ValueRange{int64_t(lo), int64_t(hi)};
}
} // namespace

std::optional<ValueRange> KernelEmitter::rangeOf(Value value) {
  auto it = ranges.find(value);
  return it == ranges.end() ? rangeOfType(value) : it->second;
}

std::optional<ValueRange> KernelEmitter::computeRange(Operation &op) {
  Value result = op.getResult(0);
  auto operand = [&](unsigned i) { return rangeOf(op.getOperand(i)); };
  if (isa<IndexMapOpInterface, CoordinateOp>(op)) {
    auto read = reads.find(&op);
    if (read == reads.end())
      return std::nullopt;
    if (read->second.scalar)
      return rangeOf(read->second.scalar);
    if (!read->second.arg && narrowIndices &&
        read->second.index.getKind() == IndexExpr::Kind::Coordinate)
      return ValueRange{0, kInt32Max};
    return rangeOfType(result);
  }
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto attr = dyn_cast<IntegerAttr>(constant.getValue());
    if (!attr || attr.getValue().getBitWidth() > 64)
      return rangeOfType(result);
    auto type = cast<IntegerType>(attr.getType());
    const llvm::APInt &bits = attr.getValue();
    // Unsigned integers and bools (true is 1, not -1) extend with zeros.
    const bool zeroExtends = type.isUnsigned() || bits.getBitWidth() == 1;
    if (zeroExtends && bits.isNegative() && bits.getBitWidth() == 64)
      return std::nullopt; // past int64_t
    int64_t v = zeroExtends ? int64_t(bits.getZExtValue())
                            : bits.getSExtValue();
    return ValueRange{v, v};
  }
  if (isa<DimOp>(op))
    return narrowIndices ? std::optional<ValueRange>(ValueRange{0, kInt32Max})
                         : std::nullopt;
  std::optional<ValueRange> own = rangeOfType(result);
  std::optional<ValueRange> combined;
  if (isa<CastOp>(op)) {
    std::optional<ValueRange> source = operand(0);
    if (isa<IntegerType>(tensorTypeOf(op.getOperand(0)).getElementType()))
      combined = source;
  } else if (isa<AddOp, SubOp, MulOp, MinOp, MaxOp>(op)) {
    std::optional<ValueRange> a = operand(0), b = operand(1);
    if (a && b) {
      __int128 alo = a->lo, ahi = a->hi, blo = b->lo, bhi = b->hi;
      if (isa<AddOp>(op))
        combined = checked(alo + blo, ahi + bhi);
      else if (isa<SubOp>(op))
        combined = checked(alo - bhi, ahi - blo);
      else if (isa<MulOp>(op)) {
        __int128 p[] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
        combined = checked(*std::min_element(p, p + 4),
                           *std::max_element(p, p + 4));
      } else if (isa<MinOp>(op))
        combined = ValueRange{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
      else
        combined = ValueRange{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
  } else if (isa<NegOp>(op)) {
    if (std::optional<ValueRange> a = operand(0))
      combined = checked(-__int128(a->hi), -__int128(a->lo));
  } else if (isa<AbsOp>(op)) {
    if (std::optional<ValueRange> a = operand(0)) {
      __int128 lo = a->lo >= 0 ? a->lo : a->hi <= 0 ? -__int128(a->hi) : 0;
      __int128 hi = std::max(-__int128(a->lo), __int128(a->hi));
      combined = checked(lo, hi);
    }
  } else if (isa<SelectOp>(op)) {
    std::optional<ValueRange> a = operand(1), b = operand(2);
    if (a && b)
      combined = ValueRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
  }
  // A result narrower than 64 bits wraps into its dtype: past it, the
  // dtype's range.
  if (combined && (!own || (combined->lo >= own->lo && combined->hi <= own->hi)))
    return combined;
  return own;
}

void KernelEmitter::computeRanges() {
  ranges.clear();
  for (Operation &op : body.without_terminator())
    if (op.getNumResults() == 1)
      ranges[op.getResult(0)] = computeRange(op);
}

bool KernelEmitter::narrowsResult(Operation &op) {
  if (!narrowIndices || op.getNumResults() != 1 ||
      !isSigned64(op.getResult(0)) || !fitsInt32(rangeOf(op.getResult(0))))
    return false;
  if (!isa<IndexMapOpInterface, CoordinateOp, ConstantOp, DimOp, CastOp, AddOp,
           SubOp, MulOp, MinOp, MaxOp, NegOp, AbsOp, SelectOp>(op))
    return false;
  return llvm::all_of(op.getOperands(), [&](Value operand) {
    return !isSigned64(operand) || fitsInt32(rangeOf(operand));
  });
}

std::string KernelEmitter::operandAs(Value operand, bool narrowOp) {
  std::string name = nameOf(operand);
  if (!isSigned64(operand))
    return name;
  if (narrowOp)
    return narrowed.contains(operand) ? name : "(pipe_i32)" + name;
  return narrowed.contains(operand) ? "(pipe_i64)" + name : name;
}

bool KernelEmitter::comparesNarrow(Operation &op) {
  if (!narrowIndices || !isa<EqOp, NeOp, LtOp, LeOp, GtOp, GeOp>(op))
    return false;
  bool any = false;
  for (Value operand : op.getOperands()) {
    if (!isSigned64(operand))
      return false;
    if (!fitsInt32(rangeOf(operand)))
      return false;
    any |= narrowed.contains(operand);
  }
  return any;
}

} // namespace pipec::elementwise
