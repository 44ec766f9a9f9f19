//===- BlurEmitter.cpp - pipe.gaussian_blur ops to CUDA C++ ---------------===//
//
// A blur's source is the templates of PipeBlur.cuh instantiated for
// its dtypes and border: a `prepare` entry, then one entry per axis, the
// last axis first. The first pass reads the input's dtype, the last writes
// the result's, and passes in between read and write f32.
//
//===----------------------------------------------------------------------===//

#include "families/blur/BlurParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "core/PipeScalar.h"
#include "core/PipeStencil.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// The blur's source: `<name>_prepare`, then one entry per axis, the last
/// axis first (added to `entries`).
std::string emitBlur(GaussianBlurOp op, const std::string &name,
                     std::vector<std::string> &entries,
                     const pipec::KernelOptions &options) {
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
  if (options.withPrelude)
    os << pipec::getCudaPrelude(/*withStencils=*/true) << "\n";
  os << "// " << name << ": gaussian_blur of " << inputType << " along [";
  llvm::interleaveComma(op.getAxes(), os);
  os << "], border " << stringifyBorder(op.getBorder()) << "\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256)\n"
     << name << "_prepare(const pipe_i32 *window, const float *sigma, "
        "pipe_blur_params *params, float *weights, unsigned long long *bad, "
        "unsigned long long run, long long samples, long long windowPer, "
        "long long sigmaPer";
  // After a kernel that found bad input (KernelOptions::guarded): that
  // stops the passes as a bad sample does, with code 0, which is no blur
  // error. A bad sample of its own raises the guard (raisesGuard), so that
  // the kernels after it do not read the output it leaves unwritten.
  bool takesGuard = options.guarded || options.raisesGuard;
  if (takesGuard)
    os << ", unsigned long long *__restrict__ pipe_guard";
  os << ") {\n"
     << "  pipe_wait_for_previous_kernel();\n";
  if (options.guarded)
    os << "  if (pipe_check_failed(pipe_guard, run)) {\n"
       << "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
       << "      atomicMax(bad, (run << PIPE_BLUR_RUN_SHIFT) | "
          "PIPE_BLUR_CODE_MASK);\n"
       << "    return;\n  }\n";
  os << "  pipe_blur_prepare(window, sigma, params, weights, bad, "
     << (options.raisesGuard ? "pipe_guard" : "nullptr")
     << ", run, samples, windowPer, sigmaPer);\n}\n\n";
  entries = {name + "_prepare"};
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
    entries.push_back(entry);
  }
  return text;
}

/// The compiler half of the blur family: a `pipe.gaussian_blur` becomes a
/// plan kernel whose launcher (BlurLauncher.cpp) runs prepare and the
/// passes, and reports a bad sample after the run.
class BlurFamily : public pipec::KernelFamily {
public:
  StringRef getName() const override { return "blur"; }
  bool matches(Operation *op) const override { return isa<GaussianBlurOp>(op); }
  std::string getKernelName(Operation *, StringRef pipeline,
                            unsigned index) const override {
    return (pipeline + "_b" + Twine(index)).str();
  }
  bool needsStencilPrelude() const override { return true; }
  bool canBeGuarded() const override { return true; }
  /// A window or sigma computed at run time is checked on the GPU (Sema
  /// checks constants).
  bool raisesGuard(Operation *op) const override {
    auto blur = cast<GaussianBlurOp>(op);
    auto atRunTime = [](Value param) {
      return param && !param.getDefiningOp<ConstantOp>();
    };
    return atRunTime(blur.getWindow()) || atRunTime(blur.getSigma());
  }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    bool withPrelude = options.withPrelude;
    auto blur = cast<GaussianBlurOp>(op);
    pipert::PlanKernel kernel;
    kernel.name = name;
    kernel.source =
        emitBlur(blur, name, kernel.entries, options);
    auto inputType = cast<RankedTensorType>(blur.getInput().getType());
    kernel.domain = pipec::getPlanBuffer(inputType, "").dims;
    kernel.location = describeLocation(blur.getLoc());
    pipert::BlurParams params;
    params.axes.assign(blur.getAxes().begin(), blur.getAxes().end());
    params.hasWindow = bool(blur.getWindow());
    params.hasSigma = bool(blur.getSigma());
    for (Value param : {blur.getWindow(), blur.getSigma()})
      if (param)
        params.sampleRank =
            std::max<int>(params.sampleRank,
                          cast<RankedTensorType>(param.getType()).getRank());
    kernel.params = params.encode();
    return kernel;
  }

  std::string describe(const pipert::PlanKernel &kernel) const override {
    auto params = pipert::BlurParams::decode(kernel.params);
    return "blur " + kernel.name + " " + pipert::describeDims(kernel.domain) +
           " axes " + (params ? pipec::formatList(params->axes) : "?");
  }

  std::vector<std::pair<std::string, pipert::PlanBuffer>>
  describeScratch(const pipert::PlanKernel &kernel) const override {
    // The passes go input -> scratch -> ... -> output through f32 copies
    // of the input's shape: one for two passes, two for more.
    auto params = pipert::BlurParams::decode(kernel.params);
    size_t copies = params ? std::min<size_t>(2, params->axes.size() - 1) : 0;
    std::vector<std::pair<std::string, pipert::PlanBuffer>> scratch;
    for (size_t c = 0; c < copies; ++c) {
      pipert::PlanBuffer buffer;
      buffer.dtype = pipert::DType::F32;
      buffer.dims = kernel.domain;
      scratch.push_back({"scratch between passes", buffer});
    }
    return scratch;
  }

  std::string
  describeBadInputCopy(const pipert::PlanKernel &kernel) const override {
    return "gaussian_blur at " + kernel.location +
           ": which sample's window or sigma is wrong, 24 bytes written by "
           "its kernel into mapped host memory, only when one is (checked on "
           "the GPU, so that they need not come to the host first)";
  }
};

} // namespace

namespace pipec {
const KernelFamily &getBlurFamily() {
  static const BlurFamily family;
  return family;
}
} // namespace pipec
