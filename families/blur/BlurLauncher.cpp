//===- BlurLauncher.cpp - Launching gaussian blurs ------------------------===//
//
// A blur (see PipeBlur.cuh): `prepare` resolves each sample's window and
// sigma and its weights, then one pass per axis runs through f32 scratch
// buffers. A bad sample is caught on the GPU: prepare records it in the
// blur's device word of the run's slot (tagged with the run's number, so
// that nothing resets it between runs), every pass then writes nothing,
// and the first pass writes the sample's verdict into mapped pinned host
// memory, which verdict() reads once the run is done. A good run copies
// nothing.
//
//===----------------------------------------------------------------------===//

#include "families/blur/BlurParams.h"

#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "runtime/CudaDriver.h"
#include "runtime/KernelLauncher.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>

using namespace pipert;

namespace {

static_assert(kRunNumberBits <= 64 - PIPE_BLUR_RUN_SHIFT,
              "a run's number must fit above the blur's sample code");

class BlurLauncher : public KernelLauncher {
public:
  BlurLauncher(const PlanKernel &kernel, BlurParams params)
      : kernel(kernel), params(std::move(params)) {}

  Status load(const CudaDriver &cu, CUmodule module) override;
  void release(const CudaDriver &cu) override {
    if (report)
      cu.cuMemFreeHost(report);
    if (words)
      cu.cuMemFree(words);
  }
  Status launch(const LaunchContext &ctx) override;
  bool hasVerdict() const override { return true; }
  void beginRun() override { std::memset(report, 0xff, sizeof(pipe_blur_status)); }
  Status verdict() const override;
  Status forgetRuns(const CudaDriver &cu, CUstream stream) override {
    return checkCuda(cu.cuMemsetD8Async(words, 0, kRunSlots * kRunWordBytes,
                                        stream),
                     "cuMemsetD8Async", "for blur status words");
  }

private:
  const PlanKernel &kernel;
  BlurParams params;
  std::vector<CUfunction> functions;
  /// The verdict, in mapped pinned memory, and its device address.
  void *report = nullptr;
  CUdeviceptr reportDevice = 0;
  /// Its device words, one per run slot (Launch.h), for the first bad
  /// sample.
  CUdeviceptr words = 0;
};

Status BlurLauncher::load(const CudaDriver &cu, CUmodule module) {
  if (kernel.entries.size() != params.axes.size() + 1)
    return Status::error("blur kernel '" + kernel.name +
                         "' does not have one entry per axis after prepare");
  functions.resize(kernel.entries.size());
  for (size_t e = 0; e < kernel.entries.size(); ++e)
    if (Status s = getFunction(cu, module, kernel.entries[e], &functions[e]);
        !s.ok())
      return s;
  if (Status s = checkCuda(cu.cuMemHostAlloc(&report, sizeof(pipe_blur_status),
                                             CU_MEMHOSTALLOC_DEVICEMAP),
                           "cuMemHostAlloc", "for a blur's verdict");
      !s.ok())
    return s;
  std::memset(report, 0xff, sizeof(pipe_blur_status));
  if (Status s = checkCuda(cu.cuMemHostGetDevicePointer(&reportDevice, report,
                                                        0),
                           "cuMemHostGetDevicePointer", "for a blur's verdict");
      !s.ok())
    return s;
  if (Status s = checkCuda(cu.cuMemAlloc(&words, kRunSlots * kRunWordBytes),
                           "cuMemAlloc", "for blur status words");
      !s.ok())
    return s;
  std::vector<unsigned char> zeros(kRunSlots * kRunWordBytes, 0);
  return checkCuda(cu.cuMemcpyHtoD(words, zeros.data(), zeros.size()),
                   "cuMemcpyHtoD", "for blur status words");
}

Status BlurLauncher::launch(const LaunchContext &ctx) {
  const std::vector<int64_t> &shape = ctx.shapes[kernel.inputs.front()];
  long long n = 1, samples = 1;
  for (int64_t d : shape)
    n *= d;
  if (n == 0)
    return Status();
  for (int d = 0; d < params.sampleRank; ++d)
    samples *= shape[d];
  // The passes index one line (rows) or one block of lines (columns) in 32
  // bits.
  for (int64_t axis : params.axes) {
    long long span = 1;
    for (int64_t d = axis; d < int64_t(shape.size()); ++d)
      span *= shape[d];
    if (span >= (1ll << 31))
      return Status::error(
          "gaussian_blur" +
          (kernel.location.empty() ? "" : " at " + kernel.location) +
          ": blurring axis " + std::to_string(axis) + " spans " +
          std::to_string(span) +
          " elements per position of the dims before it; 2^31 or more is "
          "not supported");
  }
  // Device memory of this run: per-sample parameters, scratch.
  CUdeviceptr sampleParams = 0, scratch[2] = {0, 0};
  if (Status s = ctx.allocations.allocate(
          size_t(samples) * sizeof(pipe_blur_params), "blur parameters",
          &sampleParams);
      !s.ok())
    return s;
  CUdeviceptr weights = 0;
  if (Status s = ctx.allocations.allocate(
          size_t(samples) * PIPE_BLUR_WMAX * sizeof(float), "blur weights",
          &weights);
      !s.ok())
    return s;
  size_t passes = params.axes.size();
  for (size_t k = 0; k < std::min<size_t>(2, passes - 1); ++k)
    if (Status s = ctx.allocations.allocate(size_t(n) * sizeof(float),
                                            "blur scratch", &scratch[k]);
        !s.ok())
      return s;
  // prepare(window, sigma, params, weights, bad, run, samples, windowPer,
  //         sigmaPer)
  CUdeviceptr window = 0, sigma = 0;
  long long windowPer = samples, sigmaPer = samples;
  size_t next = 1;
  auto perElement = [&](int buffer) {
    long long elements = 1;
    for (int64_t d : ctx.shapes[buffer])
      elements *= d;
    return std::max(1LL, samples / std::max(1LL, elements));
  };
  if (params.hasWindow) {
    window = ctx.ptrs[kernel.inputs[next]];
    windowPer = perElement(kernel.inputs[next++]);
  }
  if (params.hasSigma) {
    sigma = ctx.ptrs[kernel.inputs[next]];
    sigmaPer = perElement(kernel.inputs[next++]);
  }
  CUdeviceptr word = words + (ctx.runNumber % kRunSlots) * kRunWordBytes;
  unsigned long long run = ctx.runNumber;
  {
    CUdeviceptr guard = ctx.guardWord;
    std::vector<void *> args = {&window,  &sigma, &sampleParams,
                                &weights, &word,  &run,
                                &samples, &windowPer, &sigmaPer};
    if (kernel.guarded || kernel.raisesGuard)
      args.push_back(&guard);
    if (Status s = launchKernel(
            ctx, functions[0], kernel.entries[0],
            std::min(samples, ctx.device.multiprocessors * 8LL), 128, 1, args);
        !s.ok())
      return s;
  }
  // Passes, the last axis first: input -> scratch -> ... -> output.
  long long sms = ctx.device.multiprocessors;
  CUdeviceptr from = ctx.ptrs[kernel.inputs.front()];
  CUdeviceptr report = reportDevice;
  for (size_t p = 0; p < passes; ++p) {
    int64_t axis = params.axes[passes - 1 - p];
    CUdeviceptr to = p + 1 == passes ? ctx.ptrs[kernel.outputs.front()]
                                     : scratch[p % 2];
    long long outer = 1, length = shape[axis], inner = 1, perSample = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
      inner *= shape[d];
    for (int64_t d = params.sampleRank; d < axis; ++d)
      perSample *= shape[d];
    std::vector<void *> args = {&from,  &to,    &sampleParams, &weights,
                                &word,  &report, &run,   &outer,
                                &length, &inner, &perSample};
    bool rows = axis == int64_t(shape.size()) - 1;
    const long long segs = (length + PIPE_BLUR_SEG - 1) / PIPE_BLUR_SEG,
                    rsegs = (length + PIPE_BLUR_COL_ROWS - 1) /
                            PIPE_BLUR_COL_ROWS,
                    cblocks = (inner + 31) / 32;
    const long long items = rows ? outer * segs : outer * rsegs * cblocks;
    // A pass takes one item per block, the block's coordinates (segment and
    // line; column block, row segment and block of lines), where the grid
    // can hold them: no division to find its item (PipeBlur.cuh). Lines of
    // the contiguous pass go over y and z. Else a flat grid, each block
    // taking every grid-th item.
    const long long lineBlocksY = std::min(outer, 65535LL),
                    lineBlocksZ = (outer + lineBlocksY - 1) / lineBlocksY;
    Grid grid;
    if (rows && segs < (1ll << 31) && lineBlocksZ <= 65535)
      grid = Grid{unsigned(segs), unsigned(lineBlocksY), unsigned(lineBlocksZ)};
    else if (!rows && cblocks < (1ll << 31) && rsegs <= 65535 &&
             outer <= 65535)
      grid = Grid{unsigned(cblocks), unsigned(rsegs), unsigned(outer)};
    else
      grid = Grid{unsigned(std::min(items, sms * 32))};
    if (Status s = launchKernel(ctx, functions[1 + p], kernel.entries[1 + p],
                                grid, rows ? PIPE_BLUR_ROW_THREADS : 32,
                                rows ? 1 : PIPE_BLUR_COL_THREADS_Y, args);
        !s.ok())
      return s;
    from = to;
  }
  return Status();
}

Status BlurLauncher::verdict() const {
  pipe_blur_status status;
  std::memcpy(&status, report, sizeof status);
  // Code 0 (sample 0, no error): a check before the blur failed, and the
  // check reports it.
  if (status.first == ~0ull || status.first == 0)
    return Status();
  return Status::error(describeBlurError(kernel.location,
                                         (long long)(status.first / 8),
                                         int(status.first % 8), status.window,
                                         status.sigma));
}

} // namespace

namespace pipert {
Result<std::unique_ptr<KernelLauncher>> createBlurLauncher(const Plan &plan,
                                                           size_t index) {
  return createLauncherOf<BlurLauncher, BlurParams>(plan, index);
}
} // namespace pipert


/// A sigma (an f32) as the fewest digits that read back as it: "1e-09",
/// "0.33333334", "1e+07", not std::to_string's "-0.000000" for -1e-9.
static std::string formatSigma(double sigma) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, sigma);
    if (float(std::strtod(text, nullptr)) == float(sigma))
      break;
  }
  return text;
}

std::string pipert::describeBlurError(const std::string &location,
                                      long long sample, int error,
                                      long long window, double sigma) {
  // The codes of pipe_blur_error (core/PipeStencil.h).
  // Windows are taken as i32s, saturating: one at either end may stand
  // for any value past it (an i64 of 2^40 is 2147483647).
  std::string windowText = std::to_string(window);
  if (window == INT32_MAX)
    windowText += " or more (taken as an i32)";
  else if (window == INT32_MIN)
    windowText += " or less (taken as an i32)";
  std::string what;
  switch (error) {
  case 1:
    what = "its window is " + windowText + "; a window must be positive";
    break;
  case 2:
    what = "its window is " + windowText + "; a window must be odd";
    break;
  case 3:
    what = "its sigma is " + formatSigma(sigma) +
           "; sigma must be positive";
    break;
  default:
    // A window decides when it is given (a sigma alone gives window 0).
    what = window > 0 ? "its window is " + windowText +
                            "; a window is at most 2^24 + 1 (16777217) taps"
                      : "its sigma is " + formatSigma(sigma) +
                            ", which needs a window of more than 2^24 + 1 "
                            "(16777217) taps";
    break;
  }
  return "gaussian_blur" + (location.empty() ? "" : " at " + location) +
         ": sample " + std::to_string(sample) + ": " + what +
         "; nothing was written";
}
