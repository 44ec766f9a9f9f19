//===- CheckFamily.cpp - Checks of values, on the GPU ---------------------===//
//
// The compiler half of the check family: a `pipe.check_bounds` becomes a
// kernel that looks at every element and, for one outside [lo, hi], raises
// the check's word (which element came first, tagged with the run's
// number) and the run's guard word (which every kernel after it reads
// before it writes anything); the last of its blocks to finish writes the
// first bad element and its value into mapped host memory. No run copies
// anything. Its output is its input's memory.
//
//===----------------------------------------------------------------------===//

#include "families/check/CheckParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pipe;

namespace {

class CheckFamily : public pipec::KernelFamily {
public:
  StringRef getName() const override { return "check"; }
  bool matches(Operation *op) const override { return isa<CheckBoundsOp>(op); }
  std::string getKernelName(Operation *, StringRef pipeline,
                            unsigned index) const override {
    return (pipeline + "_c" + Twine(index)).str();
  }
  int getAliasedInput() const override { return 0; }
  bool raisesGuard(Operation *) const override { return true; }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    auto check = cast<CheckBoundsOp>(op);
    auto type = cast<RankedTensorType>(check.getValue().getType());
    size_t columns = check.getLo().size();
    pipert::CheckParams params;
    params.unsigned64 = type.getElementType().isUnsignedInteger(64);
    params.floating = isa<FloatType>(type.getElementType());
    for (size_t c = 0; c < columns; ++c)
      params.columns.push_back(
          {cast<StringAttr>(check.getLo()[c]).getValue().str(),
           cast<StringAttr>(check.getHi()[c]).getValue().str(),
           cast<StringAttr>(check.getMessages()[c]).getValue().str()});
    std::string scalar = getCppScalarType(type.getElementType());
    std::string text;
    llvm::raw_string_ostream os(text);
    if (options.withPrelude)
      os << pipec::getCudaPrelude() << "\n";
    // The bounds: `bounds` holds lo and hi of each column (the launcher
    // passes them by value, in a struct).
    os << "// " << name << ": every element of " << type << " in";
    for (const auto &column : params.columns)
      os << " [" << column.lo << ", " << column.hi << "]";
    os << (columns > 1 ? " by its last coordinate" : "") << "\n"
       << "struct " << name << "_bounds { long long v[" << 2 * columns
       << "]; };\n"
       << "extern \"C\" __global__ void __launch_bounds__(256)\n"
       << name << "(const " << scalar
       << " *__restrict__ value, long long n, " << name << "_bounds bounds,\n"
       << "    unsigned long long *__restrict__ first,\n"
       << "    unsigned long long *__restrict__ guard, unsigned long long run,\n"
       << "    unsigned long long *__restrict__ blocksDone,\n"
       << "    volatile long long *report) {\n"
       << "  pipe_wait_for_previous_kernel();\n"
       << "  for (long long i = (long long)blockIdx.x * blockDim.x + "
          "threadIdx.x; i < n;\n"
       << "       i += (long long)gridDim.x * blockDim.x) {\n"
       ;
    // Unsigned 64-bit values past 2^63 stay unsigned: never in bounds that
    // fit a long long (they would read as negative indices).
    bool wide = type.getElementType().isUnsignedInteger(64);
    if (params.floating)
      // Compared in f64 (every float dtype and every bound fit); NaN fails.
      os << "    const double x = pipe_cast<double>(value[i]);\n"
         << "    const bool huge = false;\n";
    else if (wide)
      os << "    const unsigned long long u = value[i];\n"
         << "    const long long x = u > 9223372036854775807ull ? -1 : "
            "(long long)u;\n"
         << "    const bool huge = u > 9223372036854775807ull;\n";
    else
      os << "    const long long x = pipe_index(value[i]);\n"
         << "    const bool huge = false;\n";
    if (columns > 1)
      os << "    const int c = (int)(i % " << columns << ");\n";
    else
      os << "    const int c = 0;\n";
    // The first bad element's word: the run's number above the index's
    // complement, so that atomicMax keeps the lowest index of the latest
    // run (CheckParams.h).
    os << "    if (!huge && x >= " << (params.floating ? "(double)" : "")
       << "bounds.v[2 * c] && x <= " << (params.floating ? "(double)" : "")
       << "bounds.v[2 * c + 1])\n"
       << "      continue;\n"
       << "    atomicMax(first, (run << " << pipert::kCheckIndexBits
       << ") | (" << pipert::kCheckIndexMask
       << "ull - (unsigned long long)i));\n"
       << "    atomicMax(guard, run << " << pipert::kCheckIndexBits << ");\n"
       << "  }\n"
       // The last block to finish (CUDA's threadFenceReduction sample)
       // reports the first bad element and its value into mapped host
       // memory, so that neither is copied afterwards (the value may be a
       // temporary of the run, freed by then). One launch instead of a
       // check and a one-thread report after it: that launch cost about
       // 1.5 us of crop_mirror_normalize's 80 (bench/NOTES.md).
       << "  __threadfence();\n"
       << "  __syncthreads();\n"
       << "  if (threadIdx.x != 0 || atomicAdd(blocksDone, 1ull) + 1 != "
          "gridDim.x)\n"
       << "    return;\n"
       << "  *blocksDone = 0;\n"
       << "  const unsigned long long word = "
          "*(volatile unsigned long long *)first;\n"
       << "  if ((word >> " << pipert::kCheckIndexBits << ") != run)\n"
       << "    return;\n"
       << "  const long long i = (long long)(" << pipert::kCheckIndexMask
       << "ull - (word & " << pipert::kCheckIndexMask << "ull));\n"
       << "  report[1] = i;\n"
       << (params.floating
               ? "  report[2] = __double_as_longlong(pipe_cast<double>(value[i]));\n"
               : "  report[2] = (long long)value[i];\n")
       << "  __threadfence_system();\n"
       << "  report[0] = (long long)run;\n}\n";
    pipert::PlanKernel kernel;
    kernel.name = name;
    kernel.entries = {name};
    kernel.source = std::move(text);
    kernel.domain = pipec::getPlanBuffer(type, "").dims;
    kernel.location = describeLocation(check.getLoc());
    kernel.params = params.encode();
    return kernel;
  }

  std::string describe(const pipert::PlanKernel &kernel) const override {
    auto params = pipert::CheckParams::decode(kernel.params);
    std::string bounds;
    if (params)
      for (const auto &column : params->columns)
        bounds += " [" + column.lo + ", " + column.hi + "]";
    return "check " + kernel.name + " " + pipert::describeDims(kernel.domain) +
           " in" + (params ? bounds : " ?");
  }

  std::string
  describeBadInputCopy(const pipert::PlanKernel &kernel) const override {
    return "check at " + kernel.location +
           ": the first value out of bounds and where it is, 24 bytes "
           "written by its kernel into mapped host memory, only when one is "
           "(checked on the GPU, so that values in device memory need not "
           "come to the host; values in host memory are checked there, "
           "before the run)";
  }
};

} // namespace

namespace pipec {
const KernelFamily &getCheckFamily() {
  static const CheckFamily family;
  return family;
}
} // namespace pipec
