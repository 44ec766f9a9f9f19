//===- BlurEmitter.cpp - pipe.gaussian_blur ops to CUDA C++ ---------------===//
//
// A blur's source is the templates of codegen/PipeBlur.cuh instantiated for
// its dtypes and border: a `prepare` entry, then one entry per axis, the
// last axis first. The first pass reads the input's dtype, the last writes
// the result's, and passes in between read and write f32.
//
//===----------------------------------------------------------------------===//

#include "codegen/CudaEmitter.h"

#include "codegen/PlanBuilder.h"
#include "core/PipeScalar.h"
#include "core/PipeStencil.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::pipe;

// The runtime launches the kernels by its own copy of their geometry.
namespace geometry = pipert::blurgeometry;
static_assert(geometry::kStatusBytes == sizeof(pipe_blur_status));
static_assert(geometry::kRunBits == 64 - PIPE_BLUR_RUN_SHIFT);
static_assert(geometry::kParamsBytes == sizeof(pipe_blur_params));
static_assert(geometry::kWeightsPerSample == PIPE_BLUR_WMAX);
static_assert(geometry::kRowSegment == PIPE_BLUR_SEG);
static_assert(geometry::kRowThreads == PIPE_BLUR_ROW_THREADS);
static_assert(geometry::kColumnRows == PIPE_BLUR_COL_ROWS);
static_assert(geometry::kColumnThreadsY == PIPE_BLUR_COL_THREADS_Y);

FailureOr<std::string> pipec::emitCudaBlur(GaussianBlurOp op,
                                           const std::string &name,
                                           KernelInfo &info,
                                           bool withPrelude) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  std::string in = getCppScalarType(inputType.getElementType());
  std::string out = getCppScalarType(resultType.getElementType());
  // A tuning knob for benchmarks, not a user setting: loads in flight per
  // thread while staging (PipeBlur.cuh).
  if (const char *batch = std::getenv("PIPE_TUNE_BLUR_BATCH"))
    if (int value = std::atoi(batch); value > 0 && value <= 64)
      os << "#define PIPE_BLUR_STAGE_BATCH " << value << "\n";
  if (withPrelude)
    os << getCudaPrelude(/*withStencils=*/true) << "\n";
  os << "// " << name << ": gaussian_blur of " << inputType << " along [";
  llvm::interleaveComma(op.getAxes(), os);
  os << "], border " << stringifyBorder(op.getBorder()) << "\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256)\n"
     << name << "_prepare(const pipe_i32 *window, const float *sigma, "
        "pipe_blur_params *params, float *weights, unsigned long long *bad, "
        "unsigned long long run, long long samples, long long windowPer, "
        "long long sigmaPer) {\n"
     << "  pipe_wait_for_previous_kernel();\n"
     << "  pipe_blur_prepare(window, sigma, params, weights, bad, run, "
        "samples, windowPer, sigmaPer);\n}\n\n";
  info.entries = {name + "_prepare"};
  int border = int(op.getBorder());
  std::string fill;
  {
    llvm::raw_string_ostream f(fill);
    f << "(float)" << llvm::format("%.17g", op.getFill().convertToDouble());
  }
  ArrayRef<int64_t> axes = op.getAxes();
  int64_t last = inputType.getRank() - 1;
  for (int64_t a = int64_t(axes.size()) - 1, pass = 0; a >= 0; --a, ++pass) {
    bool first = a == int64_t(axes.size()) - 1, final = a == 0;
    std::string from = first ? in : "float", to = final ? out : "float";
    bool rows = axes[a] == last;
    std::string entry = name + "_axis" + std::to_string(axes[a]);
    os << "extern \"C\" __global__ void __launch_bounds__("
       << (rows ? PIPE_BLUR_ROW_THREADS : 32 * PIPE_BLUR_COL_THREADS_Y) << ", "
       << (rows ? PIPE_BLUR_ROW_MIN_BLOCKS : PIPE_BLUR_COL_MIN_BLOCKS) << ")\n"
       << entry << "(const " << from << " *in, " << to
       << " *out, const pipe_blur_params *params, const float *weights, "
          "const unsigned long long *bad, pipe_blur_status *report, unsigned "
          "long long run, long long outer, long long length, long long inner, "
          "long long perSample) {\n"
       << "  pipe_wait_for_previous_kernel();\n";
    std::string firstPass = first ? "true" : "false";
    // The last pass forwards, each one before it the other way (see
    // PipeBlur.cuh, the order of items).
    const char *backwards = (axes.size() - 1 - pass) % 2 ? "true" : "false";
    if (rows)
      os << "  (void)inner;\n  pipe_blur_rows<" << from << ", " << to << ", "
         << border << ", " << backwards
         << ">(in, out, params, weights, bad, report, run, " << firstPass
         << ", outer, length, perSample, " << fill << ");\n}\n\n";
    else
      os << "  pipe_blur_cols<" << from << ", " << to << ", " << border << ", "
         << backwards << ">(in, out, params, weights, bad, report, run, "
         << firstPass << ", outer, length, inner, perSample, " << fill
         << ");\n}\n\n";
    info.entries.push_back(entry);
  }
  return text;
}
