//===- ResampleFamily.cpp - warp_affine, rotate, resize to CUDA -----------===//
//
// The compiler half of the resample family: a `pipe.resample` becomes one
// kernel whose values core/PipeResample.h defines (the reference runs the
// same functions). An antialiased resize, which is separable, takes the
// output a tile at a time, a block each, through shared memory
// (pipe_resize_tile); the others a block per output row, each thread a
// pixel of the row at a time (its taps and weights found once for all its
// channels), with no shared memory and no barrier. Every thread of a
// block finds its sample's matrix itself (the same one).
//
//===----------------------------------------------------------------------===//

#include "families/resample/ResampleParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "codegen/PipeResampleEmbedded.h"
#include "core/PipeScalar.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;
using namespace mlir::pipe;

namespace {

class ResampleFamily : public pipec::KernelFamily {
  static constexpr int kRowThreads = 128, kMinBlocksPerSM = 8;
  // pipe_resize_tile's blocks: its shared memory (~38 KiB) lets 5 share
  // an SM.
  static constexpr int kTiledThreads = 256, kMinTiledBlocksPerSM = 4;
  static constexpr int64_t kMostTiledChannels = 4;

public:
  StringRef getName() const override { return "resample"; }
  bool matches(Operation *op) const override { return isa<ResampleOp>(op); }
  std::string getKernelName(Operation *, StringRef pipeline,
                            unsigned index) const override {
    return (pipeline + "_s" + Twine(index)).str();
  }
  bool canBeGuarded() const override { return true; }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    auto resample = cast<ResampleOp>(op);
    auto input = cast<RankedTensorType>(resample.getInput().getType());
    auto result = cast<RankedTensorType>(resample.getResult().getType());
    pipert::ResampleParams params;
    params.transform = int(resample.getTransform());
    std::string in = getCppScalarType(input.getElementType());
    std::string out = getCppScalarType(result.getElementType());
    // A separable resize (antialiased linear, cubic, lanczos) takes the
    // output a tile at a time through shared memory (pipe_resize_tile);
    // the others a row a block, a pixel a thread.
    params.tiled = resample.getTransform() == ResampleTransform::resize &&
                   pipe_resample_separable(int(resample.getInterp()),
                                           resample.getAntialias());
    // Blocks that must fit on an SM at once: caps the registers (255 a
    // thread otherwise, two blocks an SM, with the taps' arrays and loops
    // inlined). PIPE_TUNE_RESAMPLE_MIN_BLOCKS overrides, for sweeps.
    int minBlocks = params.tiled ? kMinTiledBlocksPerSM : kMinBlocksPerSM;
    if (const char *tuned = std::getenv("PIPE_TUNE_RESAMPLE_MIN_BLOCKS"))
      minBlocks = std::atoi(tuned);
    int threads = params.tiled ? kTiledThreads : kRowThreads;
    std::string text;
    llvm::raw_string_ostream os(text);
    if (options.withPrelude)
      os << pipec::getCudaPrelude() << "\n";
    os << kPipeResampleSource << "\n";
    os << "// " << name << ": " << stringifyResampleTransform(
                                      resample.getTransform())
       << " " << input << " -> " << result << "\n";
    auto opening = [&](const std::string &entry) {
      os << "extern \"C\" __global__ void __launch_bounds__(" << threads
         << (minBlocks > 0 ? ", " + std::to_string(minBlocks) : "") << ")\n"
         << entry << "(const " << in << " *__restrict__ in,\n"
         << "    const float *__restrict__ param, " << out
         << " *__restrict__ out,\n"
         << "    long long rows, long long h, long long w, long long channels,\n"
         << "    long long oh, long long ow, long long paramDivisor"
         << pipec::getGuardedKernelOpening(options);
    };
    pipert::PlanKernel kernel;
    kernel.entries = {name};
    char fill[40];
    std::snprintf(fill, sizeof(fill), "(float)%.17g",
                  resample.getFill().convertToDouble());
    if (params.tiled) {
      // A known, small channel count lets a thread sum a whole pixel.
      int64_t channels = input.getShape().back();
      if (ShapedType::isDynamic(channels) || channels > kMostTiledChannels)
        channels = 0;
      // Two entries: with the pixel path for tiles the tiled path cannot
      // take, and without it (fewer registers, no spills) for resizes
      // whose every tile it can (pipe_resize_tiles_fit, the launcher).
      for (bool fallback : {true, false}) {
        std::string entry = fallback ? name : name + "_fits";
        opening(entry);
        os << "  __shared__ pipe_resize_shared pipe_tile;\n"
           << "  pipe_resize_tiles<" << channels << ", "
           << (fallback ? "true" : "false")
           << ">(in, param, out, rows, h, w, channels, oh, ow, "
              "paramDivisor,\n      "
           << int(resample.getInterp()) << ", "
           << (resample.getAntialias() ? "true" : "false") << ", "
           << int(resample.getBorder()) << ", " << fill << ", pipe_tile);\n}\n";
        if (!fallback)
          kernel.entries.push_back(entry);
      }
      params.interp = int(resample.getInterp());
      params.antialias = resample.getAntialias();
      params.valueBytes = int(getElementBytes(input.getElementType()));
    } else {
      // A thread per output pixel: its taps once, then every channel.
      opening(name);
      os << "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) "
            "{\n"
         << "    const long long sample = row / oh, oy = row % oh;\n"
         << "    const float *p = pipe_resample_param(param, "
         << params.transform << ", sample, paramDivisor);\n"
         << "    const pipe_affine a = pipe_resample_matrix(" << params.transform
         << ", p, h, w, oh, ow);\n"
         << "    const pipe_box box = pipe_resample_region(" << params.transform
         << ", p, h, w);\n"
         << "    const " << in << " *image = in + sample * h * w * channels;\n"
         << "    " << out << " *line = out + row * ow * channels;\n"
         << "    for (long long ox = threadIdx.x; ox < ow; ox += blockDim.x)\n"
         << "      pipe_resample_pixel(image, h, w, channels, a, box, oh, ow, "
            "oy, ox, "
         << int(resample.getInterp()) << ", " << int(resample.getBorder())
         << ", " << fill << ", "
         << (resample.getAntialias() ? "true" : "false")
         << ", line + ox * channels);\n"
         << "  }\n}\n";
    }
    kernel.name = name;
    kernel.source = std::move(text);
    kernel.domain = pipec::getPlanBuffer(result, "").dims;
    kernel.location = describeLocation(resample.getLoc());
    kernel.params = params.encode();
    return kernel;
  }

  std::string describe(const pipert::PlanKernel &kernel) const override {
    auto params = pipert::ResampleParams::decode(kernel.params);
    std::string transform =
        params ? stringifyResampleTransform(
                     ResampleTransform(params->transform)).str()
               : "?";
    return "resample " + kernel.name + " " + transform + " to " +
           pipert::describeDims(kernel.domain);
  }
};

} // namespace

namespace pipec {
const KernelFamily &getResampleFamily() {
  static const ResampleFamily family;
  return family;
}
} // namespace pipec
