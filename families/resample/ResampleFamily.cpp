//===- ResampleFamily.cpp - warp_affine, rotate, resize to CUDA -----------===//
//
// The compiler half of the resample family: a `pipe.resample` becomes one
// kernel, a block per output row, each thread a pixel of the row at a time
// (its taps and weights found once for all its channels), whose values
// core/PipeResample.h defines (the reference runs the same functions).
// Every thread of a block finds the row's matrix itself (the same one).
// An antialiased resize, which is separable, sums the row's input columns
// in shared memory first (pipe_resize_row); the others use no shared
// memory and no barrier.
//
//===----------------------------------------------------------------------===//

#include "families/resample/ResampleParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "codegen/PipeResampleEmbedded.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;
using namespace mlir::pipe;

namespace {

class ResampleFamily : public pipec::KernelFamily {
  static constexpr int kMinBlocksPerSM = 8;

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
    // Blocks of 128 that must fit on an SM at once: caps the registers
    // (255 a thread otherwise, two blocks an SM, with the taps' arrays and
    // loops inlined). PIPE_TUNE_RESAMPLE_MIN_BLOCKS overrides, for sweeps.
    int minBlocks = kMinBlocksPerSM;
    if (const char *tuned = std::getenv("PIPE_TUNE_RESAMPLE_MIN_BLOCKS"))
      minBlocks = std::atoi(tuned);
    std::string text;
    llvm::raw_string_ostream os(text);
    if (options.withPrelude)
      os << pipec::getCudaPrelude() << "\n";
    os << kPipeResampleSource << "\n";
    os << "// " << name << ": " << stringifyResampleTransform(
                                      resample.getTransform())
       << " " << input << " -> " << result << "\n"
       << "extern \"C\" __global__ void __launch_bounds__(128"
       << (minBlocks > 0 ? ", " + std::to_string(minBlocks) : "") << ")\n"
       << name << "(const " << in << " *__restrict__ in,\n"
       << "    const float *__restrict__ param, " << out
       << " *__restrict__ out,\n"
       << "    long long rows, long long h, long long w, long long channels,\n"
       << "    long long oh, long long ow, long long paramDivisor"
       << pipec::getGuardedKernelOpening(options);
    char fill[40];
    std::snprintf(fill, sizeof(fill), "(float)%.17g",
                  resample.getFill().convertToDouble());
    // An antialiased resize takes a row at a time (pipe_resize_row);
    // the others a pixel per thread.
    bool byRows = resample.getAntialias() &&
                  resample.getInterp() == Interp::linear;
    if (byRows)
      os << "  __shared__ float pipe_row[PIPE_RESAMPLE_ROW];\n";
    os << "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n"
       << "    const long long sample = row / oh, oy = row % oh;\n"
       << "    const float *p = pipe_resample_param(param, " << params.transform
       << ", sample, paramDivisor);\n"
       << "    const pipe_affine a = pipe_resample_matrix(" << params.transform
       << ", p, h, w, oh, ow);\n"
       << "    const pipe_box box = pipe_resample_region(" << params.transform
       << ", p, h, w);\n"
       << "    const " << in << " *image = in + sample * h * w * channels;\n"
       << "    " << out << " *line = out + row * ow * channels;\n";
    if (byRows)
      os << "    pipe_resize_row(image, h, w, channels, a, box, oh, ow, oy, "
         << int(resample.getBorder()) << ", " << fill
         << ", line, pipe_row);\n";
    else
      // A thread per output pixel: its taps once, then every channel.
      os << "    for (long long ox = threadIdx.x; ox < ow; ox += blockDim.x)\n"
         << "      pipe_resample_pixel(image, h, w, channels, a, box, oh, ow, "
            "oy, ox, "
         << int(resample.getInterp()) << ", " << int(resample.getBorder())
         << ", " << fill << ", "
         << (resample.getAntialias() ? "true" : "false")
         << ", line + ox * channels);\n";
    os << "  }\n}\n";
    pipert::PlanKernel kernel;
    kernel.name = name;
    kernel.entries = {name};
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
