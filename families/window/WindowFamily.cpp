//===- WindowFamily.cpp - box_filter, erode, dilate, median, conv2d -------===//
//
// The compiler half of the window family: a `pipe.window` becomes one
// kernel whose values core/PipeWindow.h defines (the reference calls the
// same functions). A `pipe.window_kernel` (pipe-fuse-window-prologues)
// computes its input's elements where the taps read them, from its
// prologue: the kernel reads a source struct instead of an array. The window's sizes, anchors, border and fill are
// compiled in, so that the taps' loops unroll and a median's taps stay in
// registers (its sorting network is emitted as straight-line exchanges).
// With 32-bit indices (when the tensor allows them) a thread computes
// several outputs down a column and loads each input row their windows
// share once (pipe_window_rows), its work item located by multiplying,
// not dividing; with 64-bit ones, a thread per output element.
//
//===----------------------------------------------------------------------===//

#include "families/window/WindowParams.h"

#include "codegen/IndexCodegen.h"
#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"
#include "codegen/PipeStencilEmbedded.h"
#include "codegen/PipeWindowEmbedded.h"

#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// What the emitter needs of a pipe.window or a pipe.window_kernel.
struct WindowSpec {
  Operation *op;
  WindowKind kind;
  ArrayRef<int64_t> axes, sizes;
  Border border;
  double fill;
  RankedTensorType input, result;
  /// The fused op, or null for a pipe.window.
  WindowKernelOp fused;
  /// The loops' `out`: the result's array, or a fused op's epilogue
  /// (emitEpilogueSink).
  std::string sink;

  bool hasEpilogue() const {
    return fused && !WindowKernelOp(fused).hasTrivialEpilogue();
  }
  /// The statement that stores `value` of the rows loop's output r.
  std::string storeRow(const std::string &value) const {
    if (!hasEpilogue())
      return "out[first + r * g.stride0] = " + value + ";\n";
    return "out.store(column, i0 + r, i1, first + r * g.stride0, " + value +
           ");\n";
  }
  /// The statement that stores `value` of the elements loop's element e.
  std::string storeElement(const std::string &value) const {
    if (!hasEpilogue())
      return "out[e] = " + value + ";\n";
    return "out.store(e, " + value + ");\n";
  }

  static WindowSpec of(Operation *op) {
    if (auto window = dyn_cast<WindowOp>(op))
      return {op,
              window.getKind(),
              window.getAxes(),
              window.getWindow(),
              window.getBorder(),
              window.getFill().convertToDouble(),
              cast<RankedTensorType>(window.getInput().getType()),
              cast<RankedTensorType>(window.getResult().getType()),
              {}};
    auto fused = cast<WindowKernelOp>(op);
    return {op,
            fused.getKind(),
            fused.getAxes(),
            fused.getWindow(),
            fused.getBorder(),
            fused.getFill().convertToDouble(),
            fused.getInputType(),
            fused.getWindowType(),
            fused};
  }
  WindowKind getKind() const { return kind; }
  ArrayRef<int64_t> getAxes() const { return axes; }
  Border getBorder() const { return border; }
};

/// Whether a median packs two outputs' taps in a word (8- and 16-bit
/// integers): its exchanges then cost half, and it takes twice the rows.
bool isPackedMedian(const WindowSpec &window) {
  Type element = window.input.getElementType();
  return window.getKind() == WindowKind::median &&
         (element.isInteger(8) || element.isInteger(16));
}

/// How many outputs along axis 0 a thread computes (pipe_window_rows): 8
/// share most of the loads (a 5-row window loads 12 rows for 8 outputs,
/// not 40), erode and dilate 16 (measured: erode3 0.123 ms at 8, 0.103 at
/// 16; box5 and sobel lose at 16); a median keeps R windows of taps in
/// registers, so fewer. PIPE_TUNE_WINDOW_ROWS=n (1 to 64) sets it for all
/// but medians, for measurements.
int getRowsPerThread(const WindowSpec &window, int64_t taps) {
  WindowKind kind = window.getKind();
  if (kind == WindowKind::median) {
    int rows = taps <= 9 ? 4 : taps <= 25 ? 2 : 1;
    return isPackedMedian(window) ? 2 * rows : rows;
  }
  if (const char *tuned = std::getenv("PIPE_TUNE_WINDOW_ROWS"))
    if (int rows = std::atoi(tuned); rows >= 1 && rows <= 64)
      return rows;
  return kind == WindowKind::min || kind == WindowKind::max ? 16 : 8;
}

/// The fill as the reference reads it: in Acc for the sums (the number as
/// written), in the input's dtype for the selections.
std::string getFillOf(WindowKind kind, StringRef in, StringRef acc,
                      StringRef fill) {
  if (kind == WindowKind::box || kind == WindowKind::correlate)
    return ("(" + acc + ")" + fill).str();
  return ("pipe_cast<" + in + ">(" + fill + ")").str();
}

/// The median's network on t (an array of `taps` values) as straight-line
/// calls of `exchange` (pipe_window_exchange, or pipe_window_exchange2 on
/// packed pairs): the taps stay in registers.
void emitMedianNetwork(llvm::raw_ostream &os, StringRef exchange, StringRef t,
                       int64_t taps, StringRef indent) {
  short pairs[2 * PIPE_WINDOW_MAX_EXCHANGES];
  int count = pipe_window_median_network(int(taps), pairs);
  for (int c = 0; c < count; ++c)
    os << (c % 4 == 0 ? indent : " ") << exchange << "(" << t << "["
       << pairs[2 * c] << "], " << t << "[" << pairs[2 * c + 1] << "]);"
       << (c % 4 == 3 || c + 1 == count ? "\n" : "");
}

/// Axis 1's stride in elements when the dims after it are known (3 for
/// [N, H, W, 3]; 1 for a window over one axis, whose axis 1 is of length
/// 1), else 0. The row loop then loads a row's taps at constant offsets.
/// Strides past 2^20 count as unknown: they gain nothing as constants.
int64_t getKnownStride1(const WindowSpec &window) {
  RankedTensorType input = window.input;
  ArrayRef<int64_t> axes = window.getAxes();
  if (axes.size() == 1)
    return 1;
  int64_t stride = 1;
  for (int64_t d = axes.back() + 1; d < input.getRank(); ++d) {
    if (input.isDynamicDim(d))
      return 0;
    stride *= input.getDimSize(d);
    if (stride > (1 << 20))
      return 0;
  }
  return stride;
}

/// The 64-bit kernels' loop: a thread per output element (grid-stride),
/// the value from core/PipeWindow.h's functions, as the reference computes
/// it.
void emitElementLoop(llvm::raw_ostream &os, const WindowSpec &window,
                     StringRef name, StringRef source,
                     StringRef in, StringRef out, StringRef acc,
                     StringRef fill, int64_t taps) {
  int border = int(window.getBorder());
  std::string fillValue = getFillOf(window.getKind(), in, acc, fill);
  os << "__device__ __forceinline__ void " << name << "_elements(const "
     << source << " &in,\n"
     << "    const float *__restrict__ weights, " << window.sink
     << " out, long long total,\n"
     << "    const pipe_window_geometry<long long> &g, long long "
        "weightStride) {\n"
     << "  const long long step = (long long)gridDim.x * blockDim.x;\n"
     << "  for (long long e = (long long)blockIdx.x * blockDim.x + "
        "threadIdx.x; e < total; e += step) {\n"
     << "    const pipe_window_element<long long> el = "
        "pipe_window_locate<long long>(e, g);\n";
  switch (window.getKind()) {
  case WindowKind::box:
    os << "    "
       << window.storeElement("pipe_window_sum<" + acc.str() + ", " +
                              out.str() + ", long long>(in, el, g, " +
                              std::to_string(border) + ", " + fillValue +
                              ", (const float *)0)");
    break;
  case WindowKind::correlate:
    os << "    const float *w = weights + (weightStride ? e / weightStride * "
       << taps << " : 0);\n"
       << "    "
       << window.storeElement("pipe_window_sum<" + acc.str() + ", " +
                              out.str() + ", long long>(in, el, g, " +
                              std::to_string(border) + ", " + fillValue +
                              ", w)");
    break;
  case WindowKind::min:
  case WindowKind::max:
    os << "    "
       << window.storeElement(
              "pipe_window_extreme<long long>(in, el, g, " +
              std::to_string(border) + ", " + fillValue + ", " +
              (window.getKind() == WindowKind::max ? "true" : "false") + ")");
    break;
  case WindowKind::median:
    os << "    " << in << " t[" << taps << "];\n"
       << "    pipe_window_gather<long long>(in, el, g, " << border << ", "
       << fillValue << ", t);\n";
    emitMedianNetwork(os, "pipe_window_exchange", "t", taps, "    ");
    os << "    " << window.storeElement("t[" + std::to_string(taps / 2) + "]");
    break;
  }
  os << "  }\n}\n\n";
}

/// The 32-bit kernels' loop: a thread per `rows` outputs along axis 0 of
/// one column (pipe_window_rows), grid-stride over the columns' groups of
/// rows. Consecutive threads take consecutive columns, so that each load
/// and store of a warp is of consecutive elements. Each output's taps are
/// the reference's, in its order, into an accumulator of its own.
void emitRowLoop(llvm::raw_ostream &os, const WindowSpec &window,
                 StringRef name, StringRef source,
                 StringRef in, StringRef out, StringRef acc, StringRef fill,
                 int64_t size0, int64_t size1, int rows) {
  int64_t taps = size0 * size1;
  WindowKind kind = window.getKind();
  std::string fillValue = getFillOf(kind, in, acc, fill);
  os << "__device__ __forceinline__ void " << name << "_rows(const "
     << source << " &in,\n"
     << "    const float *__restrict__ weights, " << window.sink
     << " out, int total,\n"
     << "    const pipe_window_geometry<int> &g, long long weightStride) {\n"
     << "  constexpr int R = " << rows << ";\n"
     << "  // Work items: the columns (every element but its position along "
        "axis 0)\n"
     << "  // times their groups of R rows, the group above the column.\n"
     << "  const int groups = (g.n0 + R - 1) / R;\n"
     << "  const int items = total / g.n0 * groups;\n"
     << "  const pipe_window_divider byStride0 = "
        "pipe_window_make_divider(g.stride0),\n"
     << "      byGroups = pipe_window_make_divider(groups),\n"
     << "      byStride1 = pipe_window_make_divider(g.stride1),\n"
     << "      byN1 = pipe_window_make_divider(g.n1);\n"
     << "  const int step = gridDim.x * blockDim.x;\n"
     << "  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < items; "
        "w += step) {\n"
     << "    const unsigned q0 = pipe_window_divide(w, byStride0);\n"
     << "    const int inner = w - (int)q0 * g.stride0;\n"
     << "    const unsigned outer = pipe_window_divide(q0, byGroups);\n"
     << "    const int i0 = ((int)q0 - (int)outer * groups) * R;\n"
     << "    const unsigned q1 = pipe_window_divide(inner, byStride1);\n"
     << "    const int i1 = (int)q1 - (int)pipe_window_divide(q1, byN1) * "
        "g.n1;\n"
     << "    const int column = (int)outer * g.n0 * g.stride0 + inner - i1 * "
        "g.stride1;\n"
     << "    const int first = column + i0 * g.stride0 + i1 * g.stride1;\n";
  int64_t stride1 = getKnownStride1(window);
  std::string visit = "    pipe_window_rows<R, " + std::to_string(size0) +
                      ", " + std::to_string(size1) + ", " +
                      std::to_string(int(window.getBorder())) + ", " +
                      std::to_string(stride1) + ">(in, " +
                      "column, i0, i1, g,\n        [&](int r, int k, " +
                      in.str() + " v, bool fill) {\n";
  std::string tap = "fill ? " + fillValue + " : ";
  auto store = [&](const std::string &value) {
    return "    PIPE_WINDOW_UNROLL\n    for (int r = 0; r < R; ++r)\n      "
           "if (i0 + r < g.n0)\n        " +
           window.storeRow(value);
  };
  switch (kind) {
  case WindowKind::box:
  case WindowKind::correlate:
    if (kind == WindowKind::correlate)
      os << "    const float *wk = weights + (weightStride ? (long long)first "
            "/ weightStride * "
         << taps << " : 0);\n";
    os << "    " << acc << " acc[R];\n"
       << "    PIPE_WINDOW_UNROLL\n    for (int r = 0; r < R; ++r)\n"
       << "      acc[r] = 0;\n"
       << visit << "          const " << acc << " x = " << tap << "pipe_cast<"
       << acc << ">(v);\n";
    if (kind == WindowKind::correlate)
      os << "          acc[r] = pipe_window_fma((" << acc
         << ")wk[k], x, acc[r]);\n";
    else
      os << "          acc[r] += x;\n";
    os << "        });\n"
       << store("pipe_cast<" + out.str() + ">(" +
                (kind == WindowKind::box
                     ? "acc[r] / (" + acc.str() + ")" + std::to_string(taps)
                     : std::string("acc[r]")) +
                ")");
    break;
  case WindowKind::min:
  case WindowKind::max:
    os << "    " << in << " best[R];\n"
       << visit << "          pipe_window_extreme_step(best[r], " << tap
       << "v, k, " << (kind == WindowKind::max ? "true" : "false") << ");\n"
       << "        });\n"
       << store("best[r]");
    break;
  case WindowKind::median: {
    Type element = window.input.getElementType();
    if (isPackedMedian(window)) {
      // 8- and 16-bit integers: two outputs' taps in the halves of a word,
      // each exchange two 16-bit minimums and maximums at once (an integer
      // exchange is exactly a min and a max).
      bool isSigned = !element.isUnsignedInteger();
      std::string half = isSigned ? "(unsigned short)(short)" : "(unsigned)";
      os << "    unsigned t[R / 2][" << taps << "];\n"
         << visit << "          const " << in << " x = " << tap << "v;\n"
         << "          if (r % 2 == 0)\n"
         << "            t[r / 2][k] = " << half << "x;\n"
         << "          else\n"
         << "            t[r / 2][k] |= (unsigned)(" << half
         << "x) << 16;\n"
         << "        });\n"
         << "    PIPE_WINDOW_UNROLL\n    for (int p = 0; p < R / 2; ++p) "
            "{\n";
      emitMedianNetwork(os,
                        isSigned ? "pipe_window_exchange2<true>"
                                 : "pipe_window_exchange2<false>",
                        "t[p]", taps, "      ");
      os << "    }\n"
         << store("(" + in.str() + ")(t[r / 2][" + std::to_string(taps / 2) +
                  "] >> (16 * (r % 2)))");
      break;
    }
    os << "    " << in << " t[R][" << taps << "];\n"
       << visit << "          t[r][k] = " << tap << "v;\n"
       << "        });\n"
       << "    PIPE_WINDOW_UNROLL\n    for (int r = 0; r < R; ++r) {\n";
    emitMedianNetwork(os, "pipe_window_exchange", "t[r]", taps, "      ");
    os << "    }\n" << store("t[r][" + std::to_string(taps / 2) + "]");
    break;
  }
  }
  os << "  }\n}\n\n";
}

/// How a fused region (a pipe.window_kernel's prologue or epilogue) runs
/// at one element of the window's domain (its input's shape). Inputs it
/// reads directly are read at the element's index `at`; where it reads
/// through index maps or uses coordinates, the 32-bit entry's code takes
/// axis 0's and 1's coordinates from the row and column pipe_window_rows
/// gives and decodes the others from `column` (the same for all of a
/// thread's elements: computed once), and the 64-bit entry's decodes all
/// of them from `at`. The 32-bit code indexes in 32 bits (the launcher
/// takes its entry only while every input has fewer than 2^31 elements)
/// where the maps' coordinates are sums and products of coordinates and
/// dims, not of values they read (a crop's anchors may be anything before
/// they are clamped).
class FusedRegion {
public:
  /// `block`'s arguments after its `skip` leading ones are read from
  /// <prefix><k>.
  FusedRegion(Block &block, unsigned skip, std::string prefix,
              const WindowSpec &window)
      : block(block), skip(skip), prefix(std::move(prefix)),
        domain(window.input), axes(window.axes) {
    gathers = llvm::any_of(block.without_terminator(), [](Operation &o) {
      return isa<IndexMapOpInterface, CoordinateOp>(o);
    });
    auto computed = [](const IndexExpr &e) { return e.isComputed(true); };
    narrow = llvm::none_of(block.without_terminator(), [&](Operation &o) {
      if (!pipec::isGatheredValue(&o))
        return false;
      auto type = cast<RankedTensorType>(o.getResult(0).getType());
      pipec::IndexRead read = pipec::resolveIndexMaps(
          o.getResult(0), getDomainCoordinates(type.getRank()));
      return (read.index && computed(read.index)) ||
             llvm::any_of(read.coordinates, computed);
    });
  }

  LogicalResult verify() {
    for (Operation &inner : block.without_terminator())
      if (!isa<ElementwiseOpInterface, IndexMapOpInterface, CoordinateOp>(
              inner))
        return inner.emitOpError() << "internal error: has no CUDA lowering";
    return success();
  }

  /// Adds the dims the region's code reads to `dims`.
  void collectDims(ValueRange inputs, std::set<std::string> &dims) {
    if (gathers) {
      collectDimSymbols(domain, dims);
      for (Value input : inputs)
        collectDimSymbols(cast<RankedTensorType>(input.getType()), dims);
    }
    pipec::collectIndexDims(block, dims);
  }

  /// Emits the region at the element (column, row, col, at), in 32 bits
  /// where it can, or at `at` (`wide`); returns the yielded values' names.
  SmallVector<std::string> emit(llvm::raw_ostream &os, bool wide) {
    std::string index = wide || !narrow ? "long long" : "int";
    if (gathers)
      for (int64_t d = 0, rank = domain.getRank(); d < rank; ++d) {
        os << "    const " << index << " c" << d << " = ";
        if (wide)
          os << "at / " << strideOf(d, index) << " % " << sizeOf(d, index)
             << ";\n";
        else if (d == axes[0])
          os << "row;\n";
        else if (axes.size() > 1 && d == axes[1])
          os << "col;\n";
        else
          os << "(" << index << ")column / " << strideOf(d, index) << " % "
             << sizeOf(d, index) << ";\n";
      }
    pipec::IndexStyle style;
    style.signedType = style.offsetType = index;
    style.coordinate = [](int64_t d) { return "c" + std::to_string(d); };
    style.dim = [&](StringRef name) {
      std::string size = getDimCExpression(name);
      return index == "long long" ? size : "(" + index + ")" + size;
    };
    return pipec::emitFusedBlock(
        os, block, "    ", skip,
        [&](unsigned k) {
          bool scalar =
              cast<RankedTensorType>(block.getArgument(k + skip).getType())
                  .getRank() == 0;
          return prefix + std::to_string(k) + (scalar ? "[0]" : "[at]");
        },
        [&](Operation *map, const llvm::DenseMap<Value, std::string> &names) {
          style.scalar = [&](Value value) { return names.lookup(value); };
          style.load = [&](BlockArgument arg, const std::string &offset) {
            return prefix + std::to_string(arg.getArgNumber() - skip) + "[" +
                   offset + "]";
          };
          return pipec::printGatherWith(map, style);
        });
  }

private:
  std::string sizeOf(int64_t d, const std::string &type) {
    std::string size = pipec::printDimSize(domain, d);
    return type == "long long" ? size : "(" + type + ")" + size;
  }
  std::string strideOf(int64_t d, const std::string &type) {
    std::string stride = type == "long long" ? "1LL" : "1";
    for (int64_t t = domain.getRank() - 1; t > d; --t)
      stride += " * " + sizeOf(t, type);
    return "(" + stride + ")";
  }

  Block &block;
  unsigned skip;
  std::string prefix;
  RankedTensorType domain;
  ArrayRef<int64_t> axes;
  bool gathers = false, narrow = false;
};

/// The struct through which a pipe.window_kernel's loops read the
/// window's input (pipe_window_rows's source): members in<k> (the
/// prologue's inputs) and d_<name> for each of `dims`, which it adds the
/// symbolic dims it needs to. at(column, row, col, at) and operator[](at)
/// run the prologue at element `at` of the input (FusedRegion).
LogicalResult emitPrologueSource(const WindowSpec &window,
                                 const std::string &type,
                                 std::set<std::string> &dims,
                                 llvm::raw_ostream &os) {
  WindowKernelOp fused = window.fused;
  FusedRegion prologue(fused.getPrologue().front(), 0, "in", window);
  if (failed(prologue.verify()))
    return failure();
  prologue.collectDims(fused.getPrologueInputs(), dims);
  std::string in = getCppScalarType(window.input.getElementType());
  os << "struct " << type << " {\n  typedef " << in << " value_type;\n";
  for (auto [k, input] : llvm::enumerate(fused.getPrologueInputs()))
    os << "  const "
       << getCppScalarType(
              cast<RankedTensorType>(input.getType()).getElementType())
       << " *__restrict__ in" << k << ";\n";
  for (const std::string &dim : dims)
    os << "  long long d_" << dim << ";\n";
  os << "  __device__ __forceinline__ " << in
     << " at(int column, int row, int col, int at) const {\n"
     << "    (void)column; (void)row; (void)col;\n";
  std::string value = prologue.emit(os, /*wide=*/false).front();
  os << "    return " << value << ";\n"
     << "  }\n"
     << "  __device__ __forceinline__ " << in
     << " operator[](long long at) const {\n";
  value = prologue.emit(os, /*wide=*/true).front();
  os << "    return " << value << ";\n"
     << "  }\n};\n\n";
  return success();
}

/// The struct through which a pipe.window_kernel's loops store each value
/// the window makes: members ep<k> (the epilogue's inputs), out<k> (the
/// results) and d_<name> for each of `dims`, which it adds the symbolic
/// dims it needs to. store(column, row, col, at, value) and store(at,
/// value) run the epilogue at element `at` (FusedRegion) and store its
/// results there.
LogicalResult emitEpilogueSink(const WindowSpec &window,
                               const std::string &type,
                               std::set<std::string> &dims,
                               llvm::raw_ostream &os) {
  WindowKernelOp fused = window.fused;
  FusedRegion epilogue(fused.getEpilogue().front(), 1, "ep", window);
  if (failed(epilogue.verify()))
    return failure();
  epilogue.collectDims(fused.getEpilogueInputs(), dims);
  os << "struct " << type << " {\n";
  for (auto [k, input] : llvm::enumerate(fused.getEpilogueInputs()))
    os << "  const "
       << getCppScalarType(
              cast<RankedTensorType>(input.getType()).getElementType())
       << " *__restrict__ ep" << k << ";\n";
  for (auto [k, result] : llvm::enumerate(fused.getResults()))
    os << "  "
       << getCppScalarType(
              cast<RankedTensorType>(result.getType()).getElementType())
       << " *__restrict__ out" << k << ";\n";
  for (const std::string &dim : dims)
    os << "  long long d_" << dim << ";\n";
  std::string value = getCppScalarType(window.result.getElementType());
  for (bool wide : {false, true}) {
    os << "  __device__ __forceinline__ void store("
       << (wide ? "long long at, " : "int column, int row, int col, int at, ")
       << value << " lead0) const {\n";
    if (!wide)
      os << "    (void)column; (void)row; (void)col;\n";
    SmallVector<std::string> yielded = epilogue.emit(os, wide);
    for (auto [k, name] : llvm::enumerate(yielded))
      os << "    out" << k << "[at] = " << name << ";\n";
    os << "  }\n";
  }
  os << "};\n\n";
  return success();
}

class WindowFamily : public pipec::KernelFamily {
public:
  StringRef getName() const override { return "window"; }
  bool matches(Operation *op) const override {
    return isa<WindowOp, WindowKernelOp>(op);
  }
  std::string getKernelName(Operation *, StringRef pipeline,
                            unsigned index) const override {
    return (pipeline + "_w" + Twine(index)).str();
  }
  bool canBeGuarded() const override { return true; }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    WindowSpec window = WindowSpec::of(op);
    RankedTensorType input = window.input, result = window.result;
    std::string in = getCppScalarType(input.getElementType());
    std::string out = getCppScalarType(result.getElementType());
    std::string acc = input.getElementType().isF64() ||
                              result.getElementType().isF64()
                          ? "double"
                          : "float";
    ArrayRef<int64_t> sizes = window.sizes;
    int64_t size0 = sizes[0], size1 = sizes.size() > 1 ? sizes[1] : 1;
    int64_t taps = size0 * size1;
    char fill[48];
    std::snprintf(fill, sizeof(fill), "(double)%.17g", window.fill);
    std::string text;
    llvm::raw_string_ostream os(text);
    if (options.withPrelude)
      os << pipec::getCudaPrelude() << "\n";
    os << kPipeStencilSource << "\n" << kPipeWindowSource << "\n";
    WindowKernelOp fused = window.fused;
    bool prologue = fused && !fused.hasTrivialPrologue();
    bool epilogue = window.hasEpilogue();
    os << "// " << name << ": " << stringifyWindowKind(window.kind)
       << " axes " << pipec::formatList(window.axes) << " window "
       << pipec::formatList(sizes) << " " << input << " -> " << result
       << (prologue ? ", its input computed by a prologue" : "")
       << (epilogue ? ", its values taken by an epilogue" : "") << "\n";
    // What the loops read the input through: the array, or the prologue;
    // and store the values through: the array, or the epilogue.
    std::string source = "pipe_window_array<" + in + ">";
    std::set<std::string> sourceDims, sinkDims;
    SmallVector<std::string> inputTypes;
    if (fused)
      for (Value value : fused.getPrologueInputs())
        inputTypes.push_back(getCppScalarType(
            cast<RankedTensorType>(value.getType()).getElementType()));
    else
      inputTypes.push_back(in);
    if (prologue) {
      source = name + "_source";
      if (failed(emitPrologueSource(window, source, sourceDims, os)))
        return failure();
    }
    window.sink = out + " *__restrict__";
    if (epilogue) {
      window.sink = "const " + name + "_epilogue &";
      if (failed(emitEpilogueSink(window, name + "_epilogue", sinkDims, os)))
        return failure();
    }
    std::set<std::string> dims = sourceDims;
    dims.insert(sinkDims.begin(), sinkDims.end());
    emitElementLoop(os, window, name, source, in, out, acc, fill, taps);
    int rows = getRowsPerThread(window, taps);
    emitRowLoop(os, window, name, source, in, out, acc, fill, size0, size1,
                rows);
    // Two entries, each with the registers its loop needs: 32-bit indices
    // (the launcher takes it while every index, and every row a thread's
    // windows reach past its last output, stays below 2^31), and 64-bit.
    std::string geometry = std::to_string(size0) + ", " +
                           std::to_string(size0 / 2) + ", " +
                           std::to_string(size1) + ", " +
                           std::to_string(size1 / 2) + "};\n";
    std::string opening = "  const " + source + " src = {";
    for (size_t k = 0; k < inputTypes.size(); ++k)
      opening += (k ? ", in" : "in") + std::to_string(k);
    for (const std::string &dim : prologue ? sourceDims
                                           : std::set<std::string>())
      opening += ", d_" + dim;
    opening += "};\n";
    if (epilogue) {
      opening += "  const " + name + "_epilogue out = {";
      std::string separator;
      for (size_t k = 0; k < fused.getEpilogueInputs().size(); ++k, separator = ", ")
        opening += separator + "ep" + std::to_string(k);
      for (size_t k = 0; k < fused.getNumResults(); ++k, separator = ", ")
        opening += separator + "out" + std::to_string(k);
      for (const std::string &dim : sinkDims)
        opening += ", d_" + dim;
      opening += "};\n";
    }
    for (bool wide : {false, true}) {
      os << "extern \"C\" __global__ void __launch_bounds__(256)\n"
         << name << (wide ? "_wide" : "") << "(";
      for (auto [k, type] : llvm::enumerate(inputTypes))
        os << "const " << type << " *__restrict__ in" << k << ",\n    ";
      os << "const float *__restrict__ weights, ";
      if (epilogue) {
        for (auto [k, value] : llvm::enumerate(fused.getEpilogueInputs()))
          os << "const "
             << getCppScalarType(
                    cast<RankedTensorType>(value.getType()).getElementType())
             << " *__restrict__ ep" << k << ", ";
        for (auto [k, value] : llvm::enumerate(fused.getResults()))
          os << getCppScalarType(
                    cast<RankedTensorType>(value.getType()).getElementType())
             << " *__restrict__ out" << k << ", ";
        os << "\n";
      } else {
        os << out << " *__restrict__ out,\n";
      }
      os << "    long long total, long long n0, long long stride0, long long "
            "n1,\n"
         << "    long long stride1, long long weightStride";
      for (const std::string &dim : dims)
        os << ", long long d_" << dim;
      os << pipec::getGuardedKernelOpening(options) << opening;
      if (wide)
        os << "  const pipe_window_geometry<long long> g = {n0, stride0, n1, "
              "stride1, "
           << geometry << "  " << name
           << "_elements(src, weights, out, total, g, weightStride);\n}\n\n";
      else
        os << "  const pipe_window_geometry<int> g = {(int)n0, (int)stride0, "
              "(int)n1, (int)stride1, "
           << geometry << "  " << name
           << "_rows(src, weights, out, (int)total, g, weightStride);\n}\n\n";
    }
    pipert::WindowParams params;
    params.axes.assign(window.axes.begin(), window.axes.end());
    params.rows = rows;
    params.inputs = int64_t(inputTypes.size());
    params.weights = fused ? bool(fused.getWeights())
                           : bool(cast<WindowOp>(op).getWeights());
    params.epilogueInputs =
        epilogue ? int64_t(fused.getEpilogueInputs().size()) : 0;
    pipert::PlanKernel kernel;
    kernel.name = name;
    kernel.entries = {name, name + "_wide"};
    kernel.source = std::move(text);
    kernel.domain = pipec::getPlanBuffer(result, "").dims;
    kernel.dimArgs.assign(dims.begin(), dims.end());
    kernel.location = describeLocation(op->getLoc());
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
