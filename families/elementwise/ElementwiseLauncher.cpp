//===- ElementwiseLauncher.cpp - Launching elementwise kernels ------------===//
//
// Picks one of an elementwise kernel's variants per launch (see
// ElementwiseParams.h) from the shapes and the pointers' alignment, and
// its grid, and says which it picked (RunStats::elementwiseVariants).
//
//===----------------------------------------------------------------------===//

#include "families/elementwise/ElementwiseParams.h"

#include "runtime/CudaDriver.h"
#include "runtime/KernelLauncher.h"

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace pipert;

namespace {

/// Whether every pointer is aligned to `alignment` bytes.
bool allAligned(const std::vector<CUdeviceptr> &ptrs, unsigned alignment) {
  for (CUdeviceptr ptr : ptrs)
    if (ptr % alignment != 0)
      return false;
  return true;
}

class ElementwiseLauncher : public KernelLauncher {
public:
  ElementwiseLauncher(const PlanKernel &kernel, ElementwiseParams params)
      : kernel(kernel), params(params) {}

  Status load(const CudaDriver &cu, CUmodule module) override {
    if (kernel.entries.size() != kNumElementwiseEntries ||
        kernel.entries[kElementwiseMain].empty() ||
        kernel.entries[kElementwiseFallback].empty())
      return Status::error("elementwise kernel '" + kernel.name +
                           "' lacks its main or fallback entry");
    for (size_t e = 0; e < kNumElementwiseEntries; ++e)
      if (!kernel.entries[e].empty())
        if (Status s = getFunction(cu, module, kernel.entries[e],
                                   &functions[e]);
            !s.ok())
          return s;
    if (functions[kElementwiseSpan] && functions[kElementwiseSpanStaged])
      stagedSpan = prefersStagedSpan(cu);
    return Status();
  }

  Status launch(const LaunchContext &ctx) override;

private:
  /// The kernel's arrays: its outputs and its inputs of rank above 0
  /// (rank-0 inputs are read once, at index 0, and need no alignment).
  std::vector<CUdeviceptr> arrays(const LaunchContext &ctx) const {
    std::vector<CUdeviceptr> result;
    for (int b : kernel.inputs)
      if (!ctx.shapes[b].empty())
        result.push_back(ctx.ptrs[b]);
    for (int b : kernel.outputs)
      result.push_back(ctx.ptrs[b]);
    return result;
  }

  /// Whether the span entry storing warps' groups through shared memory
  /// leaves as many blocks resident an SM as the plain one: its stores are
  /// then faster, but its extra registers can cost a block, and a block
  /// costs more than the stores save (ElementwiseEmitter.cpp has the
  /// figures). PIPE_TUNE_STAGED_STORES=0 or 1 decides instead, for
  /// measurements.
  bool prefersStagedSpan(const CudaDriver &cu) const {
    static const char *forced = std::getenv("PIPE_TUNE_STAGED_STORES");
    if (forced && *forced)
      return std::string(forced) != "0";
    int plain = 0, staged = 0;
    constexpr int kThreads = 256; // as launch() launches the span entries
    if (cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &plain, functions[kElementwiseSpan], kThreads, 0) !=
            CUDA_SUCCESS ||
        cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &staged, functions[kElementwiseSpanStaged], kThreads, 0) !=
            CUDA_SUCCESS)
      return false;
    return staged >= plain;
  }

  const PlanKernel &kernel;
  ElementwiseParams params;
  CUfunction functions[kNumElementwiseEntries] = {};
  bool stagedSpan = false;
};

Status ElementwiseLauncher::launch(const LaunchContext &ctx) {
  const std::vector<std::vector<int64_t>> &shapes = ctx.shapes;
  long long n = numElementsOf(shapes[kernel.outputs.front()]);
  if (n == 0)
    return Status();
  // Pointers, n, then the symbolic dims the index arithmetic needs.
  std::vector<CUdeviceptr> args;
  for (int b : kernel.inputs)
    args.push_back(ctx.ptrs[b]);
  for (int b : kernel.outputs)
    args.push_back(ctx.ptrs[b]);
  std::vector<long long> dims = dimValues(ctx, kernel.dimArgs);
  std::vector<void *> argPointers;
  for (CUdeviceptr &arg : args)
    argPointers.push_back(&arg);
  argPointers.push_back(&n);
  for (long long &value : dims)
    argPointers.push_back(&value);
  // The domain's divisors (pipe_divisors<rank>: every multiplier, then
  // every shift; one unused pair for a rank-0 domain).
  const std::vector<int64_t> &domainShape = shapes[kernel.outputs.front()];
  const size_t rank = std::max<size_t>(1, domainShape.size());
  std::vector<uint32_t> divisors(2 * rank, 0);
  for (size_t d = 0; d < domainShape.size(); ++d) {
    ElementwiseDivisor divisor = ElementwiseDivisor::of(domainShape[d]);
    divisors[d] = divisor.mul;
    divisors[rank + d] = divisor.shift;
  }
  argPointers.push_back(divisors.data());
  addGuardArgs(ctx, kernel, argPointers);

  // The fast variant when it applies (see ElementwiseParams.h).
  bool fast;
  if (!params.coordinates) {
    // Vector accesses need 16-byte alignment of every array (scalars are
    // read once, at index 0).
    fast = params.elementsPerThread > 1 && allAligned(arrays(ctx), 16);
    fast &= n < (1ll << 31); // its indices are 32-bit
  } else {
    fast = n < (1ll << 31);
    for (int b : kernel.inputs)
      fast &= numElementsOf(shapes[b]) < (1ll << 31);
    // A dim used as a value may be another tensor's (IndexNarrowing.cpp
    // computes dims as ints in the 32-bit variants).
    for (long long value : dims)
      fast &= value < (1ll << 31);
  }
  size_t chosen = fast ? kElementwiseMain : kElementwiseFallback;
  unsigned threads = 256;
  long long perThread =
      fast && !params.coordinates ? params.elementsPerThread : 1;
  long long wanted = (n / perThread + threads - 1) / threads;
  // Rows of at least a block's width: one row per block at a time.
  const std::vector<int64_t> &domain = shapes[kernel.outputs.front()];
  long long rowLength = domain.empty() ? 1 : domain.back();
  unsigned threadsY = 1;
  if (fast && functions[kElementwiseTiles] && rowLength >= 32 &&
      domain[params.tileDim] >= 32) {
    // 32x8 threads per 32x32 tile.
    chosen = kElementwiseTiles;
    threads = 32;
    threadsY = 8;
    wanted = (n / rowLength / domain[params.tileDim]) *
             ((domain[params.tileDim] + 31) / 32) * ((rowLength + 31) / 32);
  } else if (fast && functions[kElementwiseVector] &&
             rowLength % params.vectorWidth == 0 &&
             allAligned(arrays(ctx), 16)) {
    // One group of vectorWidth elements per thread, every group at once.
    chosen = kElementwiseVector;
    wanted = (n / params.vectorWidth / params.vectorPlanes + threads - 1) /
             threads;
  } else if (fast && functions[kElementwiseSpan] && rowLength < 128 &&
             allAligned(arrays(ctx), 16)) {
    // Short rows the groups do not divide (channels): groups across rows,
    // each element's (or row's) coordinates carried from the group's
    // first. Long rows go to the row variant.
    chosen = stagedSpan ? kElementwiseSpanStaged : kElementwiseSpan;
    wanted = std::max(1LL, (n / params.spanWidth + threads - 1) / threads);
  } else if (fast && functions[kElementwiseRows] && rowLength >= 128) {
    // 128 threads, 4 elements each per pass over a row.
    chosen = kElementwiseRows;
    threads = 128;
    wanted = n / rowLength;
  }
  // One wave of resident blocks (2048 threads per SM); a grid-stride loop
  // covers the rest.
  // A tuning knob for benchmarks: blocks per SM for flat kernels.
  static const int blocksPerSm = [] {
    const char *value = std::getenv("PIPE_TUNE_BLOCKS_PER_SM");
    return value ? std::atoi(value) : 0;
  }();
  long long cap = (long long)ctx.device.multiprocessors *
                  (blocksPerSm > 0 ? blocksPerSm : 2048 / (threads * threadsY));
  if (wanted > cap && chosen == kElementwiseRows)
    cap *= 4; // rows are short work items: more blocks balance better
  // The vector variants run one step (group) per thread over the whole
  // grid, unlooped: measured on an H200 (bench/sweep.sh), f32 -> u8 over
  // 2^28 elements took 0.315 ms so against 0.328 ms with one wave of
  // looping blocks; normalize on an H100, bench/NOTES.md change 15.
  // The vector and span variants take one group a thread and no loop
  // (ElementwiseVariants.cpp), so their grid covers every group whatever
  // the knob.
  const bool groupPerThread =
      chosen == kElementwiseVector || chosen == kElementwiseSpan ||
      chosen == kElementwiseSpanStaged;
  const bool flatWholeGrid =
      fast && !params.coordinates && chosen == kElementwiseMain;
  if (groupPerThread || (flatWholeGrid && blocksPerSm <= 0))
    cap = (1ll << 31) - 1;
  if (Status s = launchKernel(ctx, functions[chosen], kernel.entries[chosen],
                              std::min(wanted, cap), threads, threadsY,
                              argPointers);
      !s.ok())
    return s;
  ctx.stats.elementwiseVariants.push_back(kernel.entries[chosen]);
  return Status();
}

} // namespace

namespace pipert {
Result<std::unique_ptr<KernelLauncher>>
createElementwiseLauncher(const Plan &plan, size_t index) {
  return createLauncherOf<ElementwiseLauncher, ElementwiseParams>(plan, index);
}
} // namespace pipert
