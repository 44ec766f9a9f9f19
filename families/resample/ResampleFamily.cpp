//===- ResampleFamily.cpp - warp_affine, rotate, resize to CUDA -----------===//
//
// The compiler half of the resample family: a `pipe.resample` becomes one
// kernel whose values core/PipeResample.h defines (the reference runs the
// same functions). An antialiased resize, which is separable, takes the
// output a tile at a time, a block each, through shared memory
// (pipe_resize_tile), or, where the channels are known and the resize
// fits, a strip of 32 output columns a warp (pipe_resize_strips: the
// launcher picks); the others a block per output row, each thread a
// pixel of the row at a time (its taps and weights found once for all its
// channels), with no shared memory and no barrier. Every thread of a
// block finds its sample's matrix itself (the same one). A resample fused
// with the kernel that consumes it (pipe.resample_kernel) hands each
// value, cast to the images' dtype, to its epilogue (ResampleEpilogue.h)
// instead of storing it.
//
//===----------------------------------------------------------------------===//

#include "families/resample/ResampleEpilogue.h"
#include "families/resample/ResampleParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "codegen/PipeResampleEmbedded.h"
#include "codegen/PipeResizeStripsEmbedded.h"
#include "codegen/PipeResizeTilesEmbedded.h"
#include "core/PipeScalar.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"
#include "core/PipeResizeTiles.h"
#include "core/PipeResizeStrips.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// What the kernels need of a pipe.resample or a pipe.resample_kernel.
struct ResampleAttributes {
  ResampleTransform transform;
  Interp interp;
  Border border;
  double fill;
  bool antialias;
  Location loc;
  template <typename ResampleLike> static ResampleAttributes of(ResampleLike op) {
    return {op.getTransform(), op.getInterp(),
            op.getBorder(),    op.getFill().convertToDouble(),
            op.getAntialias(), op.getLoc()};
  }
  ResampleTransform getTransform() const { return transform; }
  Interp getInterp() const { return interp; }
  Border getBorder() const { return border; }
  bool getAntialias() const { return antialias; }
};

class ResampleFamily : public pipec::KernelFamily {
  static constexpr int kRowThreads = 128, kMinBlocksPerSM = 8;
  // pipe_resize_tile's blocks: its shared memory (~38 KiB) lets 5 share
  // an SM. pipe_resize_strips' (8 warps, 46 KiB) take the same bounds:
  // four an SM, 64 registers a thread (76 bytes spilled for u8, by ptxas
  // -v of 2026-11-28), ran 7-11% faster on an H100 than three (80
  // registers), and 9% faster again after the kernel's 2026-11-28
  // changes: bench/NOTES.md.
  static constexpr int kTiledThreads = 256, kMinTiledBlocksPerSM = 4;
  static constexpr int64_t kMostTiledChannels = 4;

public:
  StringRef getName() const override { return "resample"; }
  bool matches(Operation *op) const override {
    return isa<ResampleOp, ResampleKernelOp>(op);
  }
  std::string getKernelName(Operation *, StringRef pipeline,
                            unsigned index) const override {
    return (pipeline + "_s" + Twine(index)).str();
  }
  bool canBeGuarded() const override { return true; }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    // A plain resample, or one fused with the kernel that consumes it
    // (its epilogue: the kernel's body run on each value as it is made).
    auto fused = dyn_cast<ResampleKernelOp>(op);
    ResampleAttributes resample =
        fused ? ResampleAttributes::of(fused)
              : ResampleAttributes::of(cast<ResampleOp>(op));
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    auto result = fused ? fused.getResampledType()
                        : cast<RankedTensorType>(op->getResult(0).getType());
    pipert::ResampleParams params;
    params.transform = int(resample.getTransform());
    params.epilogue = bool(fused);
    params.hasParam = fused ? bool(fused.getParam())
                            : bool(cast<ResampleOp>(op).getParam());
    std::string in = getCppScalarType(input.getElementType());
    std::string out = getCppScalarType(result.getElementType());
    std::string epilogueType = name + "_epilogue", epilogue =
                                   "pipe_resample_no_epilogue()";
    std::set<std::string> dims;
    std::string epilogueSource;
    if (fused) {
      llvm::raw_string_ostream epi(epilogueSource);
      if (failed(pipec::resample::emitEpilogueStruct(fused, epilogueType,
                                                     dims, epi)))
        return failure();
      // Filled from the entry's arguments, in the struct's order.
      epilogue = epilogueType + "{";
      bool first = true;
      auto member = [&](const std::string &arg) {
        epilogue += (first ? "" : ", ") + arg;
        first = false;
      };
      for (size_t k = 0; k < fused.getEpilogueInputs().size(); ++k)
        member("ep" + std::to_string(k));
      for (size_t k = 0; k < fused.getNumResults(); ++k)
        member("out" + std::to_string(k));
      for (const std::string &dim : dims)
        member("d_" + dim);
      epilogue += "}";
    }
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
    if (params.tiled)
      os << kPipeResizeTilesSource << "\n" << kPipeResizeStripsSource << "\n";
    os << "// " << name << ": " << stringifyResampleTransform(
                                      resample.getTransform())
       << " " << input << " -> " << result << "\n";
    os << epilogueSource;
    // A fused resample's entries take the epilogue's inputs, results and
    // dims where a plain one's take `out` (ResampleParams.h).
    auto opening = [&](const std::string &entry) {
      os << "extern \"C\" __global__ void __launch_bounds__(" << threads
         << (minBlocks > 0 ? ", " + std::to_string(minBlocks) : "") << ")\n"
         << entry << "(const " << in << " *__restrict__ in,\n"
         << "    const float *__restrict__ param, ";
      if (!fused)
        os << out << " *__restrict__ out,\n    ";
      os << "long long rows, long long h, long long w, long long channels,\n"
         << "    long long oh, long long ow, long long paramDivisor";
      if (fused) {
        for (auto [k, input] : llvm::enumerate(fused.getEpilogueInputs()))
          os << ",\n    const "
             << getCppScalarType(
                    cast<RankedTensorType>(input.getType()).getElementType())
             << " *__restrict__ ep" << k;
        for (auto [k, value] : llvm::enumerate(fused.getResults()))
          os << ",\n    "
             << getCppScalarType(
                    cast<RankedTensorType>(value.getType()).getElementType())
             << " *__restrict__ out" << k;
        for (const std::string &dim : dims)
          os << ", long long d_" << dim;
      }
      os << pipec::getGuardedKernelOpening(options);
      if (fused)
        os << "  " << out << " *const out = nullptr; // never stored into\n"
           << "  const " << epilogueType << " pipe_epi = " << epilogue
           << ";\n";
      else
        os << "  const pipe_resample_no_epilogue pipe_epi;\n";
    };
    pipert::PlanKernel kernel;
    kernel.entries = {name};
    char fill[40];
    std::snprintf(fill, sizeof(fill), "(float)%.17g",
                  resample.fill);
    if (params.tiled) {
      // A known, small channel count lets a thread sum a whole pixel.
      int64_t channels = input.getShape().back();
      if (ShapedType::isDynamic(channels) || channels > kMostTiledChannels)
        channels = 0;
      // Two entries: with the pixel path for tiles the tiled path cannot
      // take, and without it (fewer registers, no spills) for resizes
      // whose every tile it can (pipe_resize_tiles_fit, the launcher).
      // How a tile finds its taps (pipe_resize_tiles): in parallel, down
      // columns of tiles keeping the columns', by default.
      // PIPE_TUNE_RESIZE_TAPS=serial (a position a thread, down columns)
      // or rows (a position a thread, along rows: as before) for sweeps.
      std::string taps = "true, true";
      if (const char *tuned = std::getenv("PIPE_TUNE_RESIZE_TAPS"))
        taps = std::string(tuned) == "serial" ? "false, true"
               : std::string(tuned) == "rows" ? "false, false"
                                               : taps;
      for (bool fallback : {true, false}) {
        std::string entry = fallback ? name : name + "_fits";
        opening(entry);
        os << "  __shared__ pipe_resize_shared pipe_tile;\n"
           << "  pipe_resize_tiles<" << channels << ", "
           << (fallback ? "true" : "false") << ", " << taps
           << ">(in, param, out, rows, h, w, channels, oh, ow, "
              "paramDivisor,\n      "
           << int(resample.getInterp()) << ", "
           << (resample.getAntialias() ? "true" : "false") << ", "
           << int(resample.getBorder()) << ", " << fill
           << ", pipe_epi, pipe_tile);\n}\n";
        if (!fallback)
          kernel.entries.push_back(entry);
      }
      // A third entry where the channels are known: a strip of 32 output
      // columns a warp, no block-wide barrier (pipe_resize_strips), for
      // the resizes it fits (pipe_resize_strips_fit, the launcher).
      if (channels > 0) {
        // The tiles' launch bounds (kMinTiledBlocksPerSM) suit it too.
        std::string entry = name + "_strips";
        opening(entry);
        // A warp's shared room each (pipe_resize_strips indexes it by
        // warp); the launcher's blocks are PIPE_RESIZE_THREADS threads.
        static_assert(kTiledThreads == PIPE_RESIZE_THREADS,
                      "the strips' shared rooms are one a warp");
        os << "  __shared__ pipe_resize_strip_shared pipe_strips["
           << kTiledThreads / 32 << "];\n"
           << "  pipe_resize_strips<" << channels
           << ">(in, param, out, rows, h, w, oh, ow, paramDivisor, "
           << int(resample.getInterp()) << ", "
           << (resample.getAntialias() ? "true" : "false")
           << ", pipe_epi, pipe_strips);\n}\n";
        kernel.entries.push_back(entry);
        params.strips = true;
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
         << "    for (long long ox = threadIdx.x; ox < ow; ox += blockDim.x) "
            "{\n";
      std::string taps = std::to_string(int(resample.getInterp())) + ", " +
                         std::to_string(int(resample.getBorder())) + ", " +
                         fill + ", " +
                         (resample.getAntialias() ? "true" : "false");
      if (fused)
        // The pixel's channels (at most PIPE_RESAMPLE_MOST_FUSED_CHANNELS:
        // fusion's condition) into registers, then each to the epilogue.
        os << "      " << out
           << " pixel[PIPE_RESAMPLE_MOST_FUSED_CHANNELS];\n"
           << "      pipe_resample_pixel(image, h, w, channels, a, box, oh, "
              "ow, oy, ox, "
           << taps << ", pixel);\n"
           << "      for (int ch = 0; ch < (int)channels; ++ch)\n"
           << "        pipe_epi.store(sample, oy, ox, ch, pixel[ch]);\n";
      else
        os << "      pipe_resample_pixel(image, h, w, channels, a, box, oh, "
              "ow, oy, ox, "
           << taps << ", line + ox * channels);\n";
      os << "    }\n  }\n}\n";
    }
    kernel.name = name;
    kernel.source = std::move(text);
    kernel.domain = pipec::getPlanBuffer(result, "").dims;
    kernel.location = describeLocation(resample.loc);
    kernel.dimArgs.assign(dims.begin(), dims.end());
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
