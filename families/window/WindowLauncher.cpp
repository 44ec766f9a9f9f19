//===- WindowLauncher.cpp - Launching box_filter, erode, conv2d, ... ------===//
//
// One launch per window op (see WindowFamily.cpp): blocks of 256 threads,
// at most one wave of them (as many as the SMs hold at once), grid-stride;
// the entry with 32-bit indices where the tensor allows them, else the one
// with 64-bit indices. The axes' lengths and strides come from the
// output's shape, which is the window's input's (a fused window's input is
// computed, not stored).
//
//===----------------------------------------------------------------------===//

#include "families/window/WindowParams.h"

#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"

#include "runtime/CudaDriver.h"
#include "runtime/KernelLauncher.h"

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace pipert;

namespace {

class WindowLauncher : public KernelLauncher {
public:
  WindowLauncher(const PlanKernel &kernel, WindowParams params)
      : kernel(kernel), params(std::move(params)) {}

  Status load(const CudaDriver &cu, CUmodule module) override {
    size_t inputs = size_t(params.inputs) + (params.weights ? 1 : 0) +
                    size_t(params.epilogueInputs);
    if (kernel.entries.size() != 2 || kernel.inputs.size() != inputs ||
        kernel.outputs.empty())
      return Status::error("window kernel '" + kernel.name +
                           "' does not have two entries, the inputs its "
                           "params say and an output");
    for (size_t e = 0; e < 2; ++e) {
      if (Status s = getFunction(cu, module, kernel.entries[e], &functions[e]);
          !s.ok())
        return s;
      // The blocks an SM holds at once: the grid is one wave of them (a
      // second, partial wave would leave most SMs idle at the end).
      int blocks = 0;
      if (cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
              &blocks, functions[e], kThreads, 0) != CUDA_SUCCESS)
        blocks = 0;
      blocksPerSM[e] = std::max(blocks, 1);
    }
    return Status();
  }

  Status launch(const LaunchContext &ctx) override {
    const std::vector<int64_t> &in = ctx.shapes[kernel.outputs[0]];
    long long total = numElementsOf(in);
    if (total == 0)
      return Status();
    // Each axis's length and stride, in elements.
    long long n[2] = {1, 1}, stride[2] = {1, 1};
    for (size_t i = 0; i < params.axes.size(); ++i) {
      size_t axis = size_t(params.axes[i]);
      if (axis >= in.size())
        return Status::error("window kernel '" + kernel.name +
                             "' has an axis past its input's rank");
      n[i] = in[axis];
      for (size_t d = axis + 1; d < in.size(); ++d)
        stride[i] *= in[d];
    }
    size_t inputs = size_t(params.inputs);
    std::vector<CUdeviceptr> buffers(inputs);
    for (size_t k = 0; k < inputs; ++k)
      buffers[k] = ctx.ptrs[kernel.inputs[k]];
    CUdeviceptr weights = 0;
    long long weightStride = 0;
    if (params.weights) {
      int weightBuffer = kernel.inputs[inputs];
      weights = ctx.ptrs[weightBuffer];
      std::vector<long long> shape(in.begin(), in.end());
      weightStride = pipe_window_weight_stride(
          shape.data(), int(shape.size()), int(ctx.shapes[weightBuffer].size()),
          int(params.axes.size()));
    }
    // The epilogue's inputs (after the weights), then the results.
    std::vector<CUdeviceptr> sinks;
    for (size_t k = 0; k < size_t(params.epilogueInputs); ++k)
      sinks.push_back(
          ctx.ptrs[kernel.inputs[inputs + (params.weights ? 1 : 0) + k]]);
    for (int output : kernel.outputs)
      sinks.push_back(ctx.ptrs[output]);
    std::vector<long long> dims = dimValues(ctx, kernel.dimArgs);
    std::vector<void *> args;
    for (CUdeviceptr &buffer : buffers)
      args.push_back(&buffer);
    args.push_back(&weights);
    for (CUdeviceptr &sink : sinks)
      args.push_back(&sink);
    for (void *arg : {(void *)&total, (void *)&n[0], (void *)&stride[0],
                      (void *)&n[1], (void *)&stride[1],
                      (void *)&weightStride})
      args.push_back(arg);
    for (long long &dim : dims)
      args.push_back(&dim);
    addGuardArgs(ctx, kernel, args);
    // The 32-bit entry's indices: the elements, the grid's step past the
    // last, and the rows a thread's windows reach past its outputs (under
    // 2048: 64 outputs, windows up to 1024).
    // PIPE_TUNE_WINDOW_WIDE=1 takes the 64-bit entry whatever the size:
    // the tests check it on tensors of ordinary sizes that way.
    static const char *forced = std::getenv("PIPE_TUNE_WINDOW_WIDE");
    long long wave = (long long)ctx.device.multiprocessors *
                     std::max(blocksPerSM[0], blocksPerSM[1]) * kThreads;
    // (A fused window's source indexes its inputs in 32 bits there.)
    long long largest = total;
    for (size_t k = 0; k < inputs; ++k)
      largest = std::max<long long>(largest,
                                    numElementsOf(ctx.shapes[kernel.inputs[k]]));
    bool wide = (forced && std::string(forced) == "1") ||
                largest + wave + 2048 > 0x7fffffffLL;
    size_t e = wide ? 1 : 0;
    // Work items: the 32-bit entry's are columns' groups of `rows`.
    long long items = total;
    if (!wide)
      items = total / n[0] * ((n[0] + params.rows - 1) / params.rows);
    long long blocks = std::min<long long>(
        (items + kThreads - 1) / kThreads,
        (long long)ctx.device.multiprocessors * blocksPerSM[e]);
    return launchKernel(ctx, functions[e], kernel.entries[e], blocks, kThreads,
                        1, args);
  }

private:
  const PlanKernel &kernel;
  WindowParams params;
  static constexpr int kThreads = 256; // the entries' __launch_bounds__
  CUfunction functions[2] = {nullptr, nullptr};
  int blocksPerSM[2] = {1, 1};
};

} // namespace

namespace pipert {
Result<std::unique_ptr<KernelLauncher>> createWindowLauncher(const Plan &plan,
                                                             size_t index) {
  return createLauncherOf<WindowLauncher, WindowParams>(plan, index);
}
} // namespace pipert
