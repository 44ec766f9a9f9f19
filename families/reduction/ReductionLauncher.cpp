//===- ReductionLauncher.cpp - Launching reductions -----------------------===//
//
// A reduction over [O, R, C] (see ReductionEmitter.cpp): the launcher
// picks the entry and splits long rows into chunks whose count depends on
// the shape only, so that results do not depend on the GPU. Every entry
// takes: prologue inputs, epilogue inputs, outputs, partials, O, R, C,
// chunks, chunkLen, vectorOk, then the dims in dimArgs.
//
//===----------------------------------------------------------------------===//

#include "families/reduction/ReductionParams.h"

#include "runtime/CudaDriver.h"
#include "runtime/KernelLauncher.h"

#include <algorithm>

using namespace pipert;

namespace {

class ReductionLauncher : public KernelLauncher {
public:
  ReductionLauncher(const PlanKernel &kernel, ReductionParams params)
      : kernel(kernel), params(std::move(params)) {}

  Status load(const CudaDriver &cu, CUmodule module) override {
    if (kernel.entries.size() != 4)
      return Status::error("reduction kernel '" + kernel.name +
                           "' does not have its four entries");
    for (size_t e = 0; e < 4; ++e)
      if (Status s = getFunction(cu, module, kernel.entries[e], &functions[e]);
          !s.ok())
        return s;
    return Status();
  }

  Status launch(const LaunchContext &ctx) override;

private:
  const PlanKernel &kernel;
  ReductionParams params;
  CUfunction functions[4] = {};
};

Status ReductionLauncher::launch(const LaunchContext &ctx) {
  std::vector<int64_t> domain = resolveDims(ctx, kernel.domain);
  const std::vector<int64_t> &axes = params.axes;
  bool contiguous = axes.back() - axes.front() + 1 == int64_t(axes.size());
  long long O = 1, R = 1, C = 1;
  for (int d = 0; d < int(domain.size()); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (reduced)
      R *= domain[d];
    else if (contiguous && d > axes.back())
      C *= domain[d];
    else
      O *= domain[d];
  }
  if (O * C == 0)
    return Status();
  // Enough blocks to fill the GPU, but chunks of at least this many elements
  // (rows) so that each block's fixed cost is paid for.
  constexpr long long kTargetBlocks = 2048, kMinInnerChunk = 16384,
                      kMinOuterChunk = 64, kShortRow = 64;
  int entry;
  long long chunks = 1, chunkLen = R, blocks;
  unsigned threads = 256;
  long long sms = ctx.device.multiprocessors;
  if (C == 1 && R <= kShortRow) {
    entry = kReduceRows;
    blocks = std::min((O + threads - 1) / threads, sms * 8);
  } else if (C == 1) {
    entry = kReduceInner;
    long long most = std::max(1LL, (R + kMinInnerChunk - 1) / kMinInnerChunk);
    chunks = std::min(most, std::max(1LL, (kTargetBlocks + O - 1) / O));
    chunkLen = (R + chunks - 1) / chunks;
    chunkLen = (chunkLen + 15) / 16 * 16;
    chunks = std::max(1LL, (R + chunkLen - 1) / chunkLen);
    blocks = std::min(O * chunks, sms * 8);
  } else {
    entry = kReduceOuter;
    long long cblocks = (C + 255) / 256;
    long long most = std::max(1LL, (R + kMinOuterChunk - 1) / kMinOuterChunk);
    chunks = std::min(most, std::max(1LL, kTargetBlocks / (O * cblocks)));
    chunkLen = std::max(1LL, (R + chunks - 1) / chunks);
    chunks = std::max(1LL, (R + chunkLen - 1) / chunkLen);
    blocks = std::min(O * chunks * cblocks, sms * 8);
  }
  CUdeviceptr partials = 0;
  if (chunks > 1)
    if (Status s = ctx.allocations.allocate(
            size_t(O * chunks * C) * size_t(params.accBytes),
            "partial sums of " + kernel.name, &partials);
        !s.ok())
      return s;
  std::vector<CUdeviceptr> pointers;
  int vectorOk = 1;
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    CUdeviceptr ptr = ctx.ptrs[kernel.inputs[i]];
    pointers.push_back(ptr);
    if (int(i) < params.numPrologueInputs &&
        !ctx.shapes[kernel.inputs[i]].empty() && ptr % 16 != 0)
      vectorOk = 0;
  }
  for (int b : kernel.outputs)
    pointers.push_back(ctx.ptrs[b]);
  pointers.push_back(partials);
  long long scalars[5] = {O, R, C, chunks, chunkLen};
  std::vector<long long> dims = dimValues(ctx, kernel.dimArgs);
  std::vector<void *> args;
  for (CUdeviceptr &ptr : pointers)
    args.push_back(&ptr);
  for (long long &value : scalars)
    args.push_back(&value);
  args.push_back(&vectorOk);
  for (long long &value : dims)
    args.push_back(&value);
  addGuardArgs(ctx, kernel, args);
  if (Status s = launchKernel(ctx, functions[entry], kernel.entries[entry],
                              blocks, threads, 1, args);
      !s.ok())
    return s;
  if (chunks == 1)
    return Status();
  // A warp per result (8 per block).
  return launchKernel(ctx, functions[kReduceFinal],
                      kernel.entries[kReduceFinal],
                      std::min((O * C + 7) / 8, sms * 16), threads, 1, args);
}

} // namespace

namespace pipert {
Result<std::unique_ptr<KernelLauncher>>
createReductionLauncher(const Plan &plan, size_t index) {
  return createLauncherOf<ReductionLauncher, ReductionParams>(plan, index);
}
} // namespace pipert
