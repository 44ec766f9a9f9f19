//===- ElementwiseParams.h - What an elementwise kernel carries -*- C++ -*-===//
//
// Shared by the elementwise family's compiler half (ElementwiseFamily.cpp)
// and its launcher (ElementwiseLauncher.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_ELEMENTWISE_ELEMENTWISEPARAMS_H
#define PIPE_FAMILIES_ELEMENTWISE_ELEMENTWISEPARAMS_H

#include "runtime/KernelParams.h"

#include <cstdint>
#include <string>

namespace pipert {

/// An elementwise kernel's entries, in PlanKernel::entries' order; every
/// one takes (const T0 *in0, ..., T *out0, ..., long long n, then the
/// PlanKernel::dimArgs) over the `n` elements of the outputs' shape; an
/// input of rank 0 is read at index 0.
///  - Flat indexing (every input read at the element's own index): `Main`
///    handles `elementsPerThread` consecutive elements per step with
///    16-byte loads and stores, and needs every pointer 16-byte aligned;
///    `Fallback` takes any alignment.
///  - Coordinates (inputs read through index maps): `Main` computes
///    indices in 32 bits and needs every tensor it touches to have fewer
///    than 2^31 elements and every dim argument to be below 2^31; `Fallback` uses 64 bits; `Vector` (32 bits) gives
///    each thread `vectorWidth` consecutive elements of the last dim (in
///    each of `vectorPlanes` planes: every value of a small dim before it),
///    for last dims that many divide, every array 16-byte aligned; `Span` (32
///    bits) gives each thread `spanWidth` consecutive elements that span
///    rows (whole rows of a short static last dim, such as 3 channels, when
///    spanWidth is a multiple of it), for short last dims the groups do not
///    divide, every array 16-byte aligned; `Rows`
///    (32 bits) gives each block whole rows of the last dim; `Tiles` (32
///    bits, 32x8 threads) reads an input transposed through 32x32 tiles in
///    shared memory, over the domain dim `tileDim` and the last.
enum ElementwiseEntry {
  kElementwiseMain,
  kElementwiseFallback,
  kElementwiseVector,
  kElementwiseRows,
  kElementwiseTiles,
  kElementwiseSpan,
  /// `Span` storing each whole warp's groups through shared memory (for
  /// groups of more than 16 bytes, every gathered input read in the
  /// result's row order); the launcher takes it instead of
  /// `Span` where it leaves as many blocks resident an SM.
  kElementwiseSpanStaged,
  kNumElementwiseEntries
};

/// The multiplier and shift that divide by `divisor` (1 to 2^31 - 1) every
/// numerator below 2^31, as pipe_fast_div does on the device: n / divisor
/// == ((n * mul >> 32) + n) >> shift (PipeKernel.cuh's pipe_divisors).
/// Sizes past 2^31 (whose kernels take the 64-bit variants, which divide)
/// give mul = shift = 0.
struct ElementwiseDivisor {
  uint32_t mul = 0;
  uint32_t shift = 0;

  static ElementwiseDivisor of(int64_t divisor) {
    ElementwiseDivisor result;
    if (divisor < 1 || divisor > 0x7fffffff)
      return result;
    while ((uint64_t(1) << result.shift) < uint64_t(divisor))
      ++result.shift;
    const uint64_t d = uint64_t(divisor);
    result.mul =
        uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << result.shift) - d)) /
                     d +
                 1);
    return result;
  }
  uint32_t divide(uint32_t n) const {
    return uint32_t(((uint64_t(n) * mul >> 32) + n) >> shift);
  }
};

struct ElementwiseParams {
  bool coordinates = false;
  int vectorWidth = 1;
  /// The vector variant's groups are vectorWidth elements of the last dim
  /// in each of this many planes (every value of a small dim before it).
  int vectorPlanes = 1;
  int spanWidth = 1;
  int elementsPerThread = 1;
  int tileDim = -1;

  std::string encode() const {
    return KernelParamWriter()
        .add("coordinates", coordinates)
        .add("vector_width", vectorWidth)
        .add("vector_planes", vectorPlanes)
        .add("span_width", spanWidth)
        .add("elements_per_thread", elementsPerThread)
        .add("tile_dim", tileDim)
        .str();
  }
  static Result<ElementwiseParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("elementwise", text);
    if (!reader)
      return reader.status();
    ElementwiseParams params;
    params.coordinates = reader->getInt("coordinates") != 0;
    params.vectorWidth = int(reader->getInt("vector_width"));
    params.vectorPlanes = int(reader->getInt("vector_planes"));
    params.spanWidth = int(reader->getInt("span_width"));
    params.elementsPerThread = int(reader->getInt("elements_per_thread"));
    params.tileDim = int(reader->getInt("tile_dim"));
    if (!reader->status().ok())
      return reader->status();
    if (params.vectorWidth < 1 || params.vectorPlanes < 1 ||
        params.spanWidth < 1 ||
        params.elementsPerThread < 1)
      return Status::error("an 'elementwise' kernel has a vector width, "
                           "plane count, span width or elements per thread "
                           "below 1");
    return params;
  }
};

} // namespace pipert

#endif // PIPE_FAMILIES_ELEMENTWISE_ELEMENTWISEPARAMS_H
