//===- ResampleLauncher.cpp - Launching warp_affine, rotate, resize -------===//
//
// One launch per resample (see ResampleFamily.cpp): a block of 128
// threads per output row, or of PIPE_RESIZE_THREADS per run of output
// tiles, a few per SM's worth, or per 8 strips of output columns (a warp
// each) where the resize fits them. The sizes come from the input's and the
// output's shapes.
//
//===----------------------------------------------------------------------===//

#include "families/resample/ResampleParams.h"

#include "core/PipeScalar.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"
#include "core/PipeResizeTiles.h"
#include "core/PipeResizeStrips.h"

#include "runtime/CudaDriver.h"
#include "runtime/KernelLauncher.h"

#include <algorithm>
#include <cstdlib>

using namespace pipert;

namespace {

class ResampleLauncher : public KernelLauncher {
public:
  ResampleLauncher(const PlanKernel &kernel, ResampleParams params)
      : kernel(kernel), params(params) {}

  Status load(const CudaDriver &cu, CUmodule module) override {
    size_t images = params.hasParam ? 2 : 1;
    if (kernel.entries.size() !=
            (params.tiled ? (params.strips ? 3u : 2u) : 1u) ||
        kernel.inputs.size() < images ||
        (!params.epilogue && kernel.inputs.size() != images) ||
        kernel.outputs.empty() ||
        (!params.epilogue && kernel.outputs.size() != 1))
      return Status::error("resample kernel '" + kernel.name +
                           "' does not have its entries, inputs and "
                           "outputs");
    if (Status s = getFunction(cu, module, kernel.entries[0], &function);
        !s.ok())
      return s;
    if (params.tiled)
      if (Status s = getFunction(cu, module, kernel.entries[1], &fitsFunction);
          !s.ok())
        return s;
    if (params.strips)
      return getFunction(cu, module, kernel.entries[2], &stripsFunction);
    return Status();
  }

  Status launch(const LaunchContext &ctx) override {
    const std::vector<int64_t> &in = ctx.shapes[kernel.inputs[0]];
    // The resampled images' shape: the output's, or, where an epilogue
    // writes the outputs instead, the kernel's domain.
    const std::vector<int64_t> out =
        params.epilogue ? resolveDims(ctx, kernel.domain)
                        : ctx.shapes[kernel.outputs[0]];
    size_t rank = in.size();
    long long rows = 1;
    for (size_t d = 0; d + 2 < rank; ++d)
      rows *= out[d];
    long long h = in[rank - 3], w = in[rank - 2], channels = in[rank - 1];
    long long oh = out[rank - 3], ow = out[rank - 2];
    if (rows == 0 || ow * channels == 0)
      return Status();
    CUdeviceptr input = ctx.ptrs[kernel.inputs[0]];
    CUdeviceptr param = 0;
    long long paramDivisor = 0;
    if (params.hasParam) {
      param = ctx.ptrs[kernel.inputs[1]];
      paramDivisor = pipe_resample_param_divisor(
          in.data(), int(rank),
          int(ctx.shapes[kernel.inputs[1]].size()) -
              pipe_resample_param_rank(params.transform));
    }
    CUdeviceptr output = ctx.ptrs[kernel.outputs[0]];
    std::vector<void *> args = {&input, &param};
    if (!params.epilogue)
      args.push_back(&output);
    for (void *size : {&rows, &h, &w, &channels, &oh, &ow, &paramDivisor})
      args.push_back(size);
    // An epilogue's inputs and results, then its dims (ResampleParams.h).
    std::vector<CUdeviceptr> buffers;
    std::vector<long long> dims;
    if (params.epilogue) {
      for (size_t k = params.hasParam ? 2 : 1; k < kernel.inputs.size(); ++k)
        buffers.push_back(ctx.ptrs[kernel.inputs[k]]);
      for (int result : kernel.outputs)
        buffers.push_back(ctx.ptrs[result]);
      dims = dimValues(ctx, kernel.dimArgs);
      for (CUdeviceptr &buffer : buffers)
        args.push_back(&buffer);
      for (long long &dim : dims)
        args.push_back(&dim);
    }
    addGuardArgs(ctx, kernel, args);
    // A strip of 32 output columns a warp where the resize fits it (a
    // row of input whole words, at an aligned address): no block-wide
    // barriers (bench/NOTES.md). PIPE_TUNE_RESIZE_STRIPS=0 takes the
    // tiles instead, for comparisons.
    static const bool stripsTuned = [] {
      const char *value = std::getenv("PIPE_TUNE_RESIZE_STRIPS");
      return !value || std::atoi(value) != 0;
    }();
    // (Its units are counted in ints: at most 2^30 of them.)
    const long long units =
        oh > 0 ? rows / oh * ((ow + 31) / 32) *
                     ((oh + PIPE_RESIZE_STRIP_ROWS - 1) / PIPE_RESIZE_STRIP_ROWS)
               : 0;
    if (params.strips && stripsTuned && input % 4 == 0 &&
        units <= (1ll << 30) &&
        pipe_resize_strips_fit(h, w, channels, oh, ow, params.interp,
                               params.antialias, params.valueBytes)) {
      const long long warps = PIPE_RESIZE_THREADS / 32;
      long long blocks = std::min<long long>(
          (units + warps - 1) / warps,
          (long long)ctx.device.multiprocessors * 16);
      return launchKernel(ctx, stripsFunction, kernel.entries[2], blocks,
                          PIPE_RESIZE_THREADS, 1, args);
    }
    if (params.tiled) {
      long long tilesY =
          (oh + PIPE_RESIZE_TILE_ROWS - 1) / PIPE_RESIZE_TILE_ROWS;
      long long tilesX =
          (ow + PIPE_RESIZE_TILE_COLS - 1) / PIPE_RESIZE_TILE_COLS;
      long long tiles = rows / oh * tilesY * tilesX;
      // Each block takes a run of consecutive tiles (pipe_resize_tiles).
      // Short runs balance best: 32 blocks an SM (8 waves of the 4 that
      // fit at once) beat one wave on an H100 (bench/NOTES.md: resize
      // 0.673 -> 0.640 ms, train_aug 0.767 -> 0.608 ms), whose windows
      // cost unevenly. A tuning knob for sweeps:
      // PIPE_TUNE_RESIZE_BLOCKS_PER_SM.
      static const int perSm = [] {
        const char *value = std::getenv("PIPE_TUNE_RESIZE_BLOCKS_PER_SM");
        return value && std::atoi(value) > 0 ? std::atoi(value) : 32;
      }();
      long long blocks = std::min<long long>(
          tiles, (long long)ctx.device.multiprocessors * perSm);
      // The entry without the pixel path when no tile needs it: 14% less
      // time for a resize by 2 on an H100 (bench/NOTES.md).
      bool fits = pipe_resize_tiles_fit(h, w, channels, oh, ow, params.interp,
                                        params.antialias, params.valueBytes);
      return launchKernel(ctx, fits ? fitsFunction : function,
                          kernel.entries[fits ? 1 : 0], blocks,
                          PIPE_RESIZE_THREADS, 1, args);
    }
    long long blocks =
        std::min<long long>(rows, (long long)ctx.device.multiprocessors * 16);
    return launchKernel(ctx, function, kernel.entries[0], blocks, 128, 1, args);
  }

private:
  const PlanKernel &kernel;
  ResampleParams params;
  CUfunction function = nullptr, fitsFunction = nullptr,
             stripsFunction = nullptr;
};

} // namespace

namespace pipert {
Result<std::unique_ptr<KernelLauncher>>
createResampleLauncher(const Plan &plan, size_t index) {
  return createLauncherOf<ResampleLauncher, ResampleParams>(plan, index);
}
} // namespace pipert
