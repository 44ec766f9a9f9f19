//===- WindowFamily.cpp - box_filter, erode, dilate, median, conv2d -------===//
//
// The compiler half of the window family: a `pipe.window` becomes one
// kernel, a thread per output element (grid-stride), whose value
// core/PipeWindow.h defines (the reference calls the same functions). The
// window's sizes, anchors, border and fill are compiled in, so that the
// taps' loops unroll and a median's taps stay in registers (its sorting
// network is emitted as straight-line exchanges). Indices are 32-bit when
// the tensor allows it, and an element's position along the axes is found
// by multiplying (pipe_window_locate_fast): divisions would be most of the
// work of a small window.
//
//===----------------------------------------------------------------------===//

#include "families/window/WindowParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "codegen/PipeStencilEmbedded.h"
#include "codegen/PipeWindowEmbedded.h"

#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>

using namespace mlir;
using namespace mlir::pipe;

namespace {

class WindowFamily : public pipec::KernelFamily {
public:
  StringRef getName() const override { return "window"; }
  bool matches(Operation *op) const override { return isa<WindowOp>(op); }
  std::string getKernelName(Operation *, StringRef pipeline,
                            unsigned index) const override {
    return (pipeline + "_w" + Twine(index)).str();
  }
  bool canBeGuarded() const override { return true; }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    auto window = cast<WindowOp>(op);
    auto input = cast<RankedTensorType>(window.getInput().getType());
    auto result = cast<RankedTensorType>(window.getResult().getType());
    std::string in = getCppScalarType(input.getElementType());
    std::string out = getCppScalarType(result.getElementType());
    std::string acc = input.getElementType().isF64() ||
                              result.getElementType().isF64()
                          ? "double"
                          : "float";
    ArrayRef<int64_t> sizes = window.getWindow();
    int64_t size0 = sizes[0], size1 = sizes.size() > 1 ? sizes[1] : 1;
    int64_t taps = size0 * size1;
    char fill[48];
    std::snprintf(fill, sizeof(fill), "(double)%.17g",
                  window.getFill().convertToDouble());
    int border = int(window.getBorder());
    std::string text;
    llvm::raw_string_ostream os(text);
    if (options.withPrelude)
      os << pipec::getCudaPrelude() << "\n";
    os << kPipeStencilSource << "\n" << kPipeWindowSource << "\n";
    os << "// " << name << ": " << stringifyWindowKind(window.getKind())
       << " axes " << pipec::formatList(window.getAxes()) << " window "
       << pipec::formatList(sizes) << " " << input << " -> " << result
       << "\n";
    // The element loop, for 32- and 64-bit indices.
    os << "template <typename I>\n__device__ __forceinline__ void " << name
       << "_elements(const " << in << " *__restrict__ in,\n"
       << "    const float *__restrict__ weights, " << out
       << " *__restrict__ out, I total,\n"
       << "    const pipe_window_geometry<I> &g, long long weightStride) {\n"
       << "  const I step = (I)gridDim.x * blockDim.x;\n"
       << "  pipe_window_dividers d;\n"
       << "  if constexpr (sizeof(I) == 4)\n"
       << "    d = pipe_window_make_dividers(g);\n"
       << "  for (I e = (I)blockIdx.x * blockDim.x + threadIdx.x; e < total; "
          "e += step) {\n"
       << "    pipe_window_element<I> el;\n"
       << "    if constexpr (sizeof(I) == 4)\n"
       << "      el = pipe_window_locate_fast(e, g, d);\n"
       << "    else\n"
       << "      el = pipe_window_locate<I>(e, g);\n";
    switch (window.getKind()) {
    case WindowKind::box:
      os << "    out[e] = pipe_window_sum<" << acc << ", " << out
         << ", I>(in, el, g, " << border << ", (" << acc << ")" << fill
         << ", (const float *)0);\n";
      break;
    case WindowKind::correlate:
      os << "    const float *w = weights + (weightStride ? (long long)e / "
            "weightStride * "
         << taps << " : 0);\n"
         << "    out[e] = pipe_window_sum<" << acc << ", " << out
         << ", I>(in, el, g, " << border << ", (" << acc << ")" << fill
         << ", w);\n";
      break;
    case WindowKind::min:
    case WindowKind::max:
      os << "    out[e] = pipe_window_extreme<I>(in, el, g, " << border
         << ", pipe_cast<" << in << ">(" << fill << "), "
         << (window.getKind() == WindowKind::max ? "true" : "false")
         << ");\n";
      break;
    case WindowKind::median: {
      // The network's exchanges as straight-line code: the taps stay in
      // registers.
      short pairs[2 * PIPE_WINDOW_MAX_EXCHANGES];
      int count = pipe_window_median_network(int(taps), pairs);
      os << "    " << in << " t[" << taps << "];\n"
         << "    pipe_window_gather<I>(in, el, g, " << border << ", pipe_cast<"
         << in << ">(" << fill << "), t);\n";
      for (int c = 0; c < count; ++c)
        os << (c % 4 == 0 ? "    " : " ") << "pipe_window_exchange(t["
           << pairs[2 * c] << "], t[" << pairs[2 * c + 1] << "]);"
           << (c % 4 == 3 || c + 1 == count ? "\n" : "");
      os << "    out[e] = t[" << taps / 2 << "];\n";
      break;
    }
    }
    os << "  }\n}\n\n";
    os << "extern \"C\" __global__ void __launch_bounds__(256)\n"
       << name << "(const " << in << " *__restrict__ in,\n"
       << "    const float *__restrict__ weights, " << out
       << " *__restrict__ out,\n"
       << "    long long total, long long n0, long long stride0, long long "
          "n1,\n"
       << "    long long stride1, long long weightStride"
       << pipec::getGuardedKernelOpening(options);
    std::string geometry = std::to_string(size0) + ", " +
                           std::to_string(size0 / 2) + ", " +
                           std::to_string(size1) + ", " +
                           std::to_string(size1 / 2) + "};\n";
    os << "  if (total + (long long)gridDim.x * blockDim.x <= 0x7fffffffLL) "
          "{\n"
       << "    const pipe_window_geometry<int> g = {(int)n0, (int)stride0, "
          "(int)n1, (int)stride1, "
       << geometry << "    " << name
       << "_elements<int>(in, weights, out, (int)total, g, weightStride);\n"
       << "  } else {\n"
       << "    const pipe_window_geometry<long long> g = {n0, stride0, n1, "
          "stride1, "
       << geometry << "    " << name
       << "_elements<long long>(in, weights, out, total, g, "
          "weightStride);\n"
       << "  }\n}\n";
    pipert::WindowParams params;
    params.axes.assign(window.getAxes().begin(), window.getAxes().end());
    pipert::PlanKernel kernel;
    kernel.name = name;
    kernel.entries = {name};
    kernel.source = std::move(text);
    kernel.domain = pipec::getPlanBuffer(result, "").dims;
    kernel.location = describeLocation(window.getLoc());
    kernel.params = params.encode();
    return kernel;
  }

  std::string describe(const pipert::PlanKernel &kernel) const override {
    auto params = pipert::WindowParams::decode(kernel.params);
    return "window " + kernel.name + " " +
           pipert::describeDims(kernel.domain) + " axes " +
           (params ? pipec::formatList(params->axes) : std::string("?"));
  }
};

} // namespace

namespace pipec {
const KernelFamily &getWindowFamily() {
  static const WindowFamily family;
  return family;
}
} // namespace pipec
