//===- LayoutReference.cpp - The layout ops on the CPU, one by one --------===//
//
// The reference executor's layout ops, written from their definitions (the
// ops' ODS descriptions and docs/language.md) and nothing else: for every
// result element, the coordinates of the element it is, by plain loops.
// They share no code with the index maps the kernels compute
// (IndexMapOpInterface), so that the two check each other.
//
//===----------------------------------------------------------------------===//

#include "reference/LayoutReference.h"

#include "core/DimExpr.h"
#include "core/StorageTypes.h"
#include "families/check/CheckParams.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace mlir::pipe;
using pipert::HostTensor;
using pipert::Status;

namespace {

/// Row-major coordinates of flat index `i` in `shape`.
std::vector<int64_t> coordinatesOf(int64_t i, const std::vector<int64_t> &shape) {
  std::vector<int64_t> c(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    c[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return c;
}

/// The flat index of coordinates `c` in `shape`.
int64_t flatIndex(const std::vector<int64_t> &c,
                  const std::vector<int64_t> &shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    i = i * shape[d] + c[d];
  return i;
}

/// Element `i` of an integer, bool or float tensor as an integer.
int64_t intAt(const HostTensor &t, int64_t i) {
  int64_t value = 0;
  pipert::visitStorageType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T &x = t.as<T>()[i];
    if constexpr (std::is_same_v<T, pipe_bool>)
      value = x.v;
    else if constexpr (std::is_same_v<T, pipe_f16> ||
                       std::is_same_v<T, pipe_bf16>)
      value = int64_t(pipe_to_float(x));
    else if constexpr (std::is_same_v<T, pipe_u64>)
      // Saturated, as the kernels read it (pipe_index): 2^63 and above
      // would wrap to negative positions.
      value = x > pipe_u64(INT64_MAX) ? INT64_MAX : int64_t(x);
    else
      value = int64_t(x);
  });
  return value;
}

/// Whether `t` holds floats (f16, bf16, f32, f64).
bool isFloat(const HostTensor &t) {
  bool floating = false;
  pipert::visitStorageType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    floating = !std::is_integral_v<T> && !std::is_same_v<T, pipe_bool>;
  });
  return floating;
}

/// Element `i` of a float tensor as an f64.
double floatAt(const HostTensor &t, int64_t i) {
  double value = 0;
  pipert::visitStorageType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_integral_v<T> && !std::is_same_v<T, pipe_bool>)
      value = pipe_cast<double>(t.as<T>()[i]);
  });
  return value;
}

/// A per-sample parameter's element for result coordinates `c`: its rank
/// leading coordinates pick it.
int64_t paramAt(const HostTensor &param, const std::vector<int64_t> &c) {
  std::vector<int64_t> lead(c.begin(), c.begin() + param.shape().size());
  return intAt(param, flatIndex(lead, param.shape()));
}

/// "[3, 5]": the coordinates of a bad sample.
std::string describeSample(const std::vector<int64_t> &lead) {
  std::string text = "[";
  for (size_t d = 0; d < lead.size(); ++d)
    text += (d ? ", " : "") + std::to_string(lead[d]);
  return text + "]";
}


/// out[c] = in[source(c)] for every result coordinate c; `source` gives
/// false (with an error set) to stop.
template <typename Source>
void gather(const HostTensor &in, HostTensor &out, Source source) {
  size_t bytes = pipert::dtypeSize(in.dtype());
  const auto *src = static_cast<const unsigned char *>(in.data());
  auto *dst = static_cast<unsigned char *>(out.data());
  std::vector<int64_t> s(in.shape().size());
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    std::vector<int64_t> c = coordinatesOf(i, out.shape());
    if (!source(c, s))
      return;
    std::memcpy(dst + i * bytes, src + flatIndex(s, in.shape()) * bytes, bytes);
  }
}

/// One value of `out`'s dtype converted from a double (pad and crop fills).
/// A crop's or pad's fill, a value of the tensor's dtype (the verifier
/// says so): integers as their bits, so 64-bit ones stay exact.
void fillElement(HostTensor &out, int64_t i, TypedAttr value) {
  pipert::visitStorageType(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (auto integer = dyn_cast<IntegerAttr>(value)) {
      llvm::APInt bits = integer.getValue();
      if constexpr (std::is_integral_v<T>)
        out.as<T>()[i] = T(bits.getZExtValue());
      else
        out.as<T>()[i] = pipe_cast<T>(double(bits.getZExtValue()));
    } else {
      out.as<T>()[i] =
          pipe_cast<T>(cast<FloatAttr>(value).getValue().convertToDouble());
    }
  });
}

std::string where(Operation *op) {
  std::string location = describeLocation(op->getLoc());
  return location.empty() ? "" : " at " + location;
}

} // namespace

Status pipec::runLayoutReference(
    Operation *op, llvm::function_ref<const HostTensor &(Value)> valueOf,
    const std::map<std::string, int64_t> &sizes, HostTensor &out) {
  std::string error;
  // A dim's value. The run bound every dim its plan names before it
  // started, so one that does not evaluate is the compiler's fault (or a
  // hand-written .mlir's): the op stops with an internal error.
  auto dimValue = [&](const std::string &text) -> int64_t {
    std::string missing;
    if (auto value = pipert::evaluateDim(text, sizes, &missing))
      return *value;
    if (error.empty())
      error = "internal error: the reference executor cannot evaluate dim '" +
              text + "' of " + op->getName().getStringRef().str() + where(op) +
              (missing.empty() ? "" : " ('" + missing + "' is not bound)");
    return 0;
  };
  auto sizeOf = [&](Attribute attr) {
    return dimValue(cast<StringAttr>(attr).getValue().str());
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case<SliceOp>([&](SliceOp slice) {
        const HostTensor &in = valueOf(slice.getInput());
        std::vector<int64_t> starts;
        for (Attribute start : slice.getStarts())
          starts.push_back(sizeOf(start));
        if (!error.empty())
          return;
        gather(in, out, [&](const auto &c, auto &s) {
          size_t next = 0;
          for (size_t d = 0; d < s.size(); ++d)
            s[d] = slice.getDropped()[d]
                       ? starts[d]
                       : starts[d] + slice.getSteps()[d] * c[next++];
          return true;
        });
      })
      .Case<CropOp>([&](CropOp crop) {
        const HostTensor &in = valueOf(crop.getInput());
        size_t bytes = pipert::dtypeSize(in.dtype());
        ArrayRef<int64_t> axes = crop.getAxes();
        for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
          std::vector<int64_t> c = coordinatesOf(i, out.shape()), s = c;
          bool inside = true;
          for (auto [j, axis] : llvm::enumerate(axes)) {
            const HostTensor &anchor = valueOf(crop.getAnchors()[j]);
            int64_t a = paramAt(anchor, c);
            int64_t size = in.shape()[axis], window = out.shape()[axis];
            // (a > size - window, not a + window > size: that sum can
            // pass the 64-bit integers.)
            if (crop.getOutOfBounds() == OutOfBounds::error &&
                (a < 0 || a > size - window)) {
              std::vector<int64_t> lead(c.begin(),
                                        c.begin() + anchor.shape().size());
              error = "crop" + where(op) + ": the anchor along dim " +
                      std::to_string(axis) + " of sample " +
                      describeSample(lead) + " is " + std::to_string(a) +
                      ", outside [0, " + std::to_string(size - window) +
                      "]" + (size < window ? pipert::kEmptyRangeNote : "") +
                      "; nothing was written";
              return;
            }
            // The anchor into [-window, size] first: the same positions
            // inside and out, and a + c cannot pass the 64-bit integers.
            s[axis] = std::clamp<int64_t>(a, -window, size) + c[axis];
            if (s[axis] < 0 || s[axis] >= size) {
              inside = false;
              s[axis] = std::clamp<int64_t>(s[axis], 0, size - 1);
            }
          }
          if (!inside && crop.getOutOfBounds() == OutOfBounds::pad) {
            fillElement(out, i, crop.getFill());
            continue;
          }
          std::memcpy(static_cast<char *>(out.data()) + i * bytes,
                      static_cast<const char *>(in.data()) +
                          flatIndex(s, in.shape()) * bytes,
                      bytes);
        }
      })
      .Case<FlipOp>([&](FlipOp flip) {
        const HostTensor &in = valueOf(flip.getInput());
        gather(in, out, [&](const auto &c, auto &s) {
          s = c;
          bool when = !flip.getWhen() || paramAt(valueOf(flip.getWhen()), c);
          if (when)
            for (int64_t axis : flip.getAxes())
              s[axis] = in.shape()[axis] - 1 - c[axis];
          return true;
        });
      })
      .Case<PadOp>([&](PadOp pad) {
        const HostTensor &in = valueOf(pad.getInput());
        size_t bytes = pipert::dtypeSize(in.dtype());
        std::vector<int64_t> befores;
        for (Attribute before : pad.getBefore())
          befores.push_back(sizeOf(before));
        if (!error.empty())
          return;
        for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
          std::vector<int64_t> c = coordinatesOf(i, out.shape()), s = c;
          bool inside = true;
          for (auto [axis, before] : llvm::zip(pad.getAxes(), befores)) {
            int64_t x = c[axis] - before;
            int64_t size = in.shape()[axis];
            if (x >= 0 && x < size) {
              s[axis] = x;
              continue;
            }
            switch (pad.getBorder()) {
            case Border::constant:
              inside = false;
              break;
            case Border::clamp:
              s[axis] = std::clamp<int64_t>(x, 0, size - 1);
              break;
            case Border::wrap:
              s[axis] = ((x % size) + size) % size;
              break;
            case Border::reflect101: {
              // dcb|abcd|cba: mirror without repeating the edge.
              int64_t period = 2 * size - 2;
              int64_t m = period ? ((x % period) + period) % period : 0;
              s[axis] = m < size ? m : period - m;
              break;
            }
            }
          }
          if (!inside) {
            fillElement(out, i, pad.getFill());
            continue;
          }
          std::memcpy(static_cast<char *>(out.data()) + i * bytes,
                      static_cast<const char *>(in.data()) +
                          flatIndex(s, in.shape()) * bytes,
                      bytes);
        }
      })
      .Case<TakeOp>([&](TakeOp take) {
        const HostTensor &in = valueOf(take.getInput());
        const HostTensor &indices = valueOf(take.getIndices());
        int64_t axis = take.getAxis(), rank = int64_t(indices.shape().size());
        int64_t size = in.shape()[axis];
        gather(in, out, [&](const auto &c, auto &s) {
          for (int64_t d = 0; d < axis; ++d)
            s[d] = c[d];
          std::vector<int64_t> at(c.begin() + axis, c.begin() + axis + rank);
          int64_t index = intAt(indices, flatIndex(at, indices.shape()));
          if (index < -size || index >= size) {
            error = "take" + where(op) + ": index " + std::to_string(index) +
                    " at " + describeSample(at) +
                    " of the indices is outside [" + std::to_string(-size) +
                    ", " + std::to_string(size - 1) + "]" +
                    (size == 0 ? pipert::kEmptyRangeNote : "") +
                    "; nothing was written";
            return false;
          }
          s[axis] = index < 0 ? index + size : index;
          for (int64_t d = axis + 1; d < int64_t(s.size()); ++d)
            s[d] = c[d + rank - 1];
          return true;
        });
      })
      .Case<ConcatOp>([&](ConcatOp concat) {
        int64_t axis = concat.getAxis();
        size_t bytes = pipert::dtypeSize(out.dtype());
        for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
          std::vector<int64_t> c = coordinatesOf(i, out.shape());
          for (Value input : concat.getInputs()) {
            const HostTensor &part = valueOf(input);
            if (c[axis] < part.shape()[axis]) {
              std::memcpy(static_cast<char *>(out.data()) + i * bytes,
                          static_cast<const char *>(part.data()) +
                              flatIndex(c, part.shape()) * bytes,
                          bytes);
              break;
            }
            c[axis] -= part.shape()[axis];
          }
        }
      })
      .Case<CoordinateOp>([&](CoordinateOp coordinate) {
        // Along a split batch, from the run's first sample (0 unsharded).
        int64_t offset = 0;
        if (coordinate->hasAttr("pipe.batch_offset"))
          if (auto it = sizes.find(pipert::kBatchOffsetDim); it != sizes.end())
            offset = it->second;
        pipert::visitStorageType(out.dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int64_t i = 0, n = out.numElements(); i < n; ++i)
            out.as<T>()[i] = pipe_cast<T>(pipe_i64(
                offset + coordinatesOf(i, out.shape())[coordinate.getAxis()]));
        });
      })
      .Case<EraseOp>([&](EraseOp erase) {
        const HostTensor &in = valueOf(erase.getInput());
        const HostTensor &fill = valueOf(erase.getFill());
        size_t bytes = pipert::dtypeSize(in.dtype());
        size_t k = erase.getAxes().size();
        bool shared = erase.getShapes().size() == k;
        for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
          std::vector<int64_t> c = coordinatesOf(i, out.shape());
          bool erased = false;
          for (int64_t r = 0; r < erase.getRegions() && !erased; ++r) {
            bool inside = true;
            for (size_t j = 0; j < k && inside; ++j) {
              int64_t a = paramAt(valueOf(erase.getAnchors()[r * k + j]), c);
              int64_t extent =
                  paramAt(valueOf(erase.getShapes()[shared ? j : r * k + j]), c);
              int64_t x = c[erase.getAxes()[j]];
              // x - a in unsigned arithmetic is exact when a <= x, where
              // a + extent could pass the 64-bit integers.
              inside = a <= x && extent > 0 &&
                       uint64_t(x) - uint64_t(a) < uint64_t(extent);
            }
            erased = inside;
          }
          const HostTensor &from = erased ? fill : in;
          int64_t at = erased ? flatIndex(std::vector<int64_t>(
                                              c.begin(),
                                              c.begin() + fill.shape().size()),
                                          fill.shape())
                              : i;
          std::memcpy(static_cast<char *>(out.data()) + i * bytes,
                      static_cast<const char *>(from.data()) + at * bytes,
                      bytes);
        }
      })
      .Case<CheckBoundsOp>([&](CheckBoundsOp check) {
        const HostTensor &value = valueOf(check.getValue());
        if (value.numBytes() > 0)
          std::memcpy(out.data(), value.data(), value.numBytes());
        // lo, hi and the message of each column (one for all elements, or
        // one per index of the last dim).
        size_t columns = check.getLo().size();
        auto text = [](ArrayAttr texts, size_t c) {
          return cast<StringAttr>(texts[c]).getValue().str();
        };
        for (int64_t i = 0, n = value.numElements(); i < n; ++i) {
          std::vector<int64_t> at = coordinatesOf(i, value.shape());
          size_t c = columns > 1 ? size_t(at.back()) : 0;
          int64_t lo = dimValue(text(check.getLo(), c));
          int64_t hi = dimValue(text(check.getHi(), c));
          if (!error.empty())
            return;
          std::string shown;
          if (isFloat(value)) {
            // Floats in f64; NaN is in no bounds.
            double x = floatAt(value, i);
            if (x >= double(lo) && x <= double(hi))
              continue;
            shown = pipert::formatCheckFloat(x);
          } else {
            int64_t x = intAt(value, i);
            // u64 past 2^63 is out of any bounds (not a negative index).
            bool huge = value.dtype() == pipert::DType::U64 &&
                        value.as<uint64_t>()[i] > uint64_t(INT64_MAX);
            if (!huge && x >= lo && x <= hi)
              continue;
            shown = huge ? std::to_string(value.as<uint64_t>()[i])
                         : std::to_string(x);
          }
          if (columns > 1)
            at.pop_back();
          error = pipert::formatCheckMessage(text(check.getMessages(), c),
                                             describeSample(at), shown, lo,
                                             hi) +
                  "; nothing was written";
          return;
        }
      })
      .Case<DimOp>([&](DimOp dim) {
        *out.as<pipe_i64>() = dimValue(dim.getDim().str());
      })
      .Default([&](Operation *other) {
        error = "internal error: the reference executor has no layout op " +
                other->getName().getStringRef().str();
      });
  return error.empty() ? Status() : Status::error(error);
}
