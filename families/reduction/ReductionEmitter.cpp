//===- ReductionEmitter.cpp - pipe.reduce_kernel ops to CUDA C++ ----------===//
//
// A reduction is laid out as [O, R, C]: O outer positions, R reduced
// elements each, C inner positions, where the reduced axes are contiguous
// dims of the domain (O the dims before them, C those after). Reduced axes
// that are not contiguous are read by coordinates, with O all the kept dims
// and C = 1. Four entries share one signature:
//  - `_inner` (C = 1): a block per (row o, chunk of R); threads stride the
//    chunk with 16-byte vector loads where every input allows;
//  - `_rows` (C = 1, short rows): a thread per row;
//  - `_outer` (C > 1): a thread per inner position c, looping over its
//    chunk of R, so that a warp's loads are contiguous;
//  - `_final`: combines the chunks' partial results, a warp per result, in
//    a fixed order.
// With one chunk per row, the first three apply the epilogue themselves.
// The prologue (the elementwise ops that make the reduced value) runs on
// each loaded element, the epilogue on each result: the reduced tensor is
// read once and nothing in between is stored.
//
// Each thread accumulates in RD::local, the block in a fixed shared-memory
// tree, chunks in index order: a result depends on the shape only.
//
//===----------------------------------------------------------------------===//

#include "families/reduction/ReductionParams.h"

#include "codegen/IndexCodegen.h"
#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::pipe;

namespace {

RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

std::string cppTypeOf(Value value) {
  return getCppScalarType(tensorTypeOf(value).getElementType());
}


bool isLiteralOne(RankedTensorType type, int64_t i) {
  return !type.isDynamicDim(i) && type.getDimSize(i) == 1;
}

class ReductionEmitter {
public:
  ReductionEmitter(ReduceKernelOp op, bool guarded)
      : op(op), prologue(op.getPrologue().front()),
        epilogue(op.getEpilogue().front()), guarded(guarded) {}

  /// Emits the entries and sets `info`'s entries and dims.
  LogicalResult emit(llvm::raw_ostream &os, pipert::PlanKernel &info) {
    for (Block *block : {&prologue, &epilogue})
      for (Operation &inner : block->without_terminator())
        if (!isa<ElementwiseOpInterface, IndexMapOpInterface, CoordinateOp>(
                inner))
          return inner.emitOpError() << "internal error: has no CUDA lowering";
    RankedTensorType domain = op.getInputDomainType();
    rank = domain.getRank();
    ArrayRef<int64_t> axes = op.getAxes();
    contiguous = axes.back() - axes.front() + 1 == int64_t(axes.size());
    bool gathers = llvm::any_of(prologue.without_terminator(), [](Operation &o) {
      return isa<IndexMapOpInterface, CoordinateOp>(o);
    });
    flat = contiguous && !gathers;
    for (int64_t d = 0; d < rank; ++d) {
      if (op.isReducedAxis(d))
        reducedDims.push_back(d);
      else if (contiguous && d > axes.back())
        innerDims.push_back(d);
      else
        outerDims.push_back(d);
    }
    collectDimArgs();
    std::string name = op.getKernelName().str();
    info.entries = {name + "_inner", name + "_rows", name + "_outer",
                    name + "_final"};
    info.dimArgs.assign(dimArgs.begin(), dimArgs.end());

    Value reduced = op.getReducedValue();
    os << "typedef pipe_reducer<" << pipec::getReductionKindName(op.getKind())
       << ", " << cppTypeOf(reduced) << "> RD_" << name << ";\n";
    rd = "RD_" + name;
    emitParamsMacro(os, name);
    emitValue(os, name);
    emitFinish(os, name);
    emitBlockReduce(os, name);
    emitInner(os, name);
    emitRows(os, name);
    emitOuter(os, name);
    emitFinal(os, name);
    return success();
  }

private:
  void collectDimArgs() {
    auto add = [&](RankedTensorType type) {
      collectDimSymbols(type, dimArgs);
    };
    add(op.getInputDomainType());
    add(op.getReductionType());
    for (Block *block : {&prologue, &epilogue})
      pipec::collectIndexDims(*block, dimArgs);
  }

  /// The signature every entry shares, as a macro; and its argument list.
  void emitParamsMacro(llvm::raw_ostream &os, const std::string &name) {
    SmallVector<std::string> params, args;
    auto add = [&](const std::string &type, const std::string &arg) {
      params.push_back(type + " " + arg);
      args.push_back(arg);
    };
    for (auto [k, input] : llvm::enumerate(op.getPrologueInputs()))
      add("const " + cppTypeOf(input) + " *__restrict__", "in" + std::to_string(k));
    for (auto [k, input] : llvm::enumerate(op.getEpilogueInputs()))
      add("const " + cppTypeOf(input) + " *__restrict__", "ep" + std::to_string(k));
    for (auto [k, result] : llvm::enumerate(op.getResults()))
      add(cppTypeOf(result) + " *__restrict__", "out" + std::to_string(k));
    add(rd + "::acc *__restrict__", "partials");
    for (const char *arg : {"O", "R", "C", "chunks", "chunkLen"})
      add("long long", arg);
    add("int", "vectorOk");
    for (const std::string &dim : dimArgs)
      add("long long", "d_" + dim);
    if (guarded) {
      add("const unsigned long long *__restrict__", "pipe_guard");
      add("unsigned long long", "pipe_run");
    }
    os << "#define PARAMS_" << name << " ";
    llvm::interleave(params, os, ", ");
    os << "\n#define ARGS_" << name << " ";
    llvm::interleave(args, os, ", ");
    os << "\n\n";
  }

  std::string dimExpr(RankedTensorType type, int64_t i) {
    return pipec::printDimSize(type, i);
  }

  SmallVector<std::string>
  emitBody(llvm::raw_ostream &os, Block &block, const std::string &indent,
           unsigned skip, llvm::function_ref<std::string(unsigned)> load,
           llvm::function_ref<std::string(
               Operation *, const llvm::DenseMap<Value, std::string> &)>
               gather) {
    return pipec::emitFusedBlock(os, block, indent, skip, load, gather);
  }

  std::string gatherAt(Operation *map, const std::string &prefix,
                       const llvm::DenseMap<Value, std::string> &names,
                       unsigned skip = 0) {
    return pipec::printGatherAt(map, prefix, names, skip);
  }

  /// Declares c<d> for `dims` from `index` (the last varying fastest).
  void emitDecode(llvm::raw_ostream &os, RankedTensorType type,
                  ArrayRef<int64_t> dims, const std::string &index,
                  const std::string &indent) {
    if (dims.empty())
      return;
    os << indent << "long long rest_" << index << " = " << index << ";\n";
    for (int64_t k = int64_t(dims.size()) - 1; k >= 0; --k) {
      int64_t d = dims[k];
      os << indent << "const long long c" << d << " = rest_" << index << " % "
         << dimExpr(type, d) << "; rest_" << index << " /= "
         << dimExpr(type, d) << ";\n";
    }
    os << indent << "(void)rest_" << index << ";\n";
  }

  /// The element at (o, r, c) converted to RD::local.
  void emitValue(llvm::raw_ostream &os, const std::string &name) {
    os << "__device__ __forceinline__ " << rd << "::local " << name
       << "_value(PARAMS_" << name << ", long long o, long long r, long long c) {\n"
       << "  (void)partials; (void)chunks; (void)chunkLen; (void)vectorOk;\n";
    RankedTensorType domain = op.getInputDomainType();
    if (flat) {
      os << "  const long long i = (o * R + r) * C + c;\n";
    } else {
      emitDecode(os, domain, outerDims, "o", "  ");
      emitDecode(os, domain, reducedDims, "r", "  ");
      emitDecode(os, domain, innerDims, "c", "  ");
      std::string flatIndex = "0LL";
      for (int64_t d = 0; d < rank; ++d)
        flatIndex = "(" + flatIndex + ") * " + dimExpr(domain, d) + " + c" +
                    std::to_string(d);
      os << "  const long long i = " << flatIndex << ";\n";
    }
    os << "  (void)i;\n";
    SmallVector<std::string> yielded = emitBody(
        os, prologue, "  ", 0,
        [&](unsigned k) {
          return "in" + std::to_string(k) +
                 (tensorTypeOf(prologue.getArgument(k)).getRank() == 0 ? "[0]"
                                                                       : "[i]");
        },
        [&](Operation *map, const llvm::DenseMap<Value, std::string> &names) {
          return gatherAt(map, "in", names);
        });
    os << "  return " << rd << "::value(" << yielded.front() << ");\n}\n\n";
  }

  /// Applies the epilogue to result m and stores the results.
  void emitFinish(llvm::raw_ostream &os, const std::string &name) {
    RankedTensorType type = op.getReductionType();
    os << "__device__ __forceinline__ void " << name << "_finish(PARAMS_"
       << name << ", long long m, " << rd << "::acc acc) {\n"
       << "  (void)partials; (void)O; (void)C; (void)chunks; (void)chunkLen; "
          "(void)vectorOk;\n"
       << "  const " << cppTypeOf(epilogue.getArgument(0)) << " lead0 = " << rd
       << "::template finish<" << cppTypeOf(epilogue.getArgument(0))
       << ">(acc, R);\n";
    bool gathers = llvm::any_of(epilogue.without_terminator(), [](Operation &o) {
      return isa<IndexMapOpInterface, CoordinateOp>(o);
    });
    if (gathers) {
      SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      emitDecode(os, type, all, "m", "  ");
    }
    SmallVector<std::string> yielded = emitBody(
        os, epilogue, "  ", 1,
        [&](unsigned k) {
          return "ep" + std::to_string(k) +
                 (tensorTypeOf(epilogue.getArgument(k + 1)).getRank() == 0
                      ? "[0]"
                      : "[m]");
        },
        // Epilogue block arguments are numbered after the reduced value.
        [&](Operation *map, const llvm::DenseMap<Value, std::string> &names) {
          return gatherAt(map, "ep", names, /*skip=*/1);
        });
    for (auto [k, value] : llvm::enumerate(yielded))
      os << "  out" << k << "[m] = " << value << ";\n";
    os << "}\n\n";
  }

  /// A fixed-order tree over the block's 256 threads' values; thread 0 gets
  /// the total.
  void emitBlockReduce(llvm::raw_ostream &os, const std::string &name) {
    os << "__device__ __forceinline__ " << rd << "::acc " << name
       << "_block_reduce(" << rd << "::acc v) {\n"
       << "  __shared__ " << rd << "::acc tree[256];\n"
       << "  const int t = threadIdx.x;\n"
       << "  tree[t] = v;\n  __syncthreads();\n"
       << "#pragma unroll\n  for (int s = 128; s > 0; s >>= 1) {\n"
       << "    if (t < s) tree[t] = " << rd << "::combine(tree[t], tree[t + s]);\n"
       << "    __syncthreads();\n  }\n"
       << "  const " << rd << "::acc total = tree[0];\n"
       << "  __syncthreads();\n  return total;\n}\n\n";
  }

  void emitEntryHead(llvm::raw_ostream &os, const std::string &entry,
                     const std::string &name) {
    os << "extern \"C\" __global__ void __launch_bounds__(256)\n"
       << entry << "(PARAMS_" << name << ") {\n"
       << "  pipe_wait_for_previous_kernel();\n";
    if (guarded)
      os << "  if (pipe_check_failed(pipe_guard, pipe_run))\n    return;\n";
  }

  void emitInner(llvm::raw_ostream &os, const std::string &name) {
    emitEntryHead(os, name + "_inner", name);
    os << "  const long long pairs = O * chunks;\n"
       << "  for (long long pair = blockIdx.x; pair < pairs; pair += gridDim.x) {\n"
       << "    const long long o = pair / chunks, chunk = pair % chunks;\n"
       << "    const long long r0 = chunk * chunkLen;\n"
       << "    const long long r1 = r0 + chunkLen < R ? r0 + chunkLen : R;\n"
       << "    " << rd << "::local local = " << rd << "::local_identity();\n";
    if (flat)
      emitVectorLoop(os, name);
    else
      os << "    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x)\n"
         << "      local = " << rd << "::add_local(local, " << name
         << "_value(ARGS_" << name << ", o, r, 0));\n";
    os << "    const " << rd << "::acc total = " << name << "_block_reduce(" << rd
       << "::widen(local));\n"
       << "    if (threadIdx.x == 0) {\n"
       << "      if (chunks == 1) " << name << "_finish(ARGS_" << name
       << ", o, total);\n"
       << "      else partials[pair] = total;\n    }\n  }\n}\n\n";
  }

  /// The flat elements [o * R + r0, o * R + r1): a scalar head up to a
  /// vector boundary, 16-byte groups unrolled four deep, a scalar tail.
  void emitVectorLoop(llvm::raw_ostream &os, const std::string &name) {
    int64_t widest = 1;
    SmallVector<unsigned> vectorInputs;
    for (BlockArgument arg : prologue.getArguments())
      if (tensorTypeOf(arg).getRank() > 0) {
        widest = std::max(widest, getElementBytes(arg.getType()));
        vectorInputs.push_back(arg.getArgNumber());
      }
    const int v = int(16 / widest), unroll = 4;
    auto scalar = [&](const std::string &from, const std::string &to) {
      os << "    for (long long i = " << from << " + threadIdx.x; i < " << to
         << "; i += blockDim.x)\n"
         << "      local = " << rd << "::add_local(local, " << name
         << "_value(ARGS_" << name << ", 0, i, 0));\n";
    };
    os << "    const long long begin = o * R + r0, end = o * R + r1;\n"
       << "    if (!vectorOk) {\n";
    scalar("begin", "end");
    os << "    } else {\n"
       << "    const long long head = (begin + " << v - 1 << ") / " << v << " * "
       << v << " < end ? (begin + " << v - 1 << ") / " << v << " * " << v
       << " : end;\n";
    scalar("begin", "head");
    os << "    const long long g0 = head / " << v << ", g1 = end / " << v << ";\n"
       << "    long long g = g0 + threadIdx.x;\n";
    // The unrolled body over `count` groups starting at g, stride blockDim.
    auto groups = [&](int count) {
      for (unsigned k : vectorInputs)
        os << "      alignas(16) " << cppTypeOf(prologue.getArgument(k)) << " a"
           << k << "[" << count << "][" << v << "];\n";
      os << "#pragma unroll\n      for (int u = 0; u < " << count << "; ++u) {\n";
      for (unsigned k : vectorInputs)
        os << "        pipe_load_vec(a" << k << "[u], in" << k
           << " + (g + u * (long long)blockDim.x) * " << v << ");\n";
      os << "      }\n#pragma unroll\n      for (int u = 0; u < " << count
         << "; ++u) {\n#pragma unroll\n      for (int j = 0; j < " << v
         << "; ++j) {\n";
      SmallVector<std::string> yielded = emitBody(
          os, prologue, "        ", 0,
          [&](unsigned k) {
            if (tensorTypeOf(prologue.getArgument(k)).getRank() == 0)
              return "in" + std::to_string(k) + "[0]";
            return "a" + std::to_string(k) + "[u][j]";
          },
          [](Operation *, const llvm::DenseMap<Value, std::string> &)
              -> std::string {
            llvm_unreachable("flat prologues have no index maps");
          });
      os << "        local = " << rd << "::add_local(local, " << rd
         << "::value(" << yielded.front() << "));\n      }\n      }\n";
    };
    os << "    for (; g + " << unroll - 1 << " * (long long)blockDim.x < g1; g += "
       << unroll << " * (long long)blockDim.x) {\n";
    groups(unroll);
    os << "    }\n    for (; g < g1; g += blockDim.x) {\n";
    groups(1);
    os << "    }\n";
    os << "    const long long tail = g1 * " << v << " > head ? g1 * " << v
       << " : head;\n";
    scalar("tail", "end");
    os << "    }\n";
    // The scalar loops index by flat element: the value function's (o, r, c)
    // = (0, i, 0) gives i.
  }

  void emitRows(llvm::raw_ostream &os, const std::string &name) {
    emitEntryHead(os, name + "_rows", name);
    os << "  for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; "
          "o < O; o += (long long)gridDim.x * blockDim.x) {\n"
       << "    " << rd << "::local local = " << rd << "::local_identity();\n"
       << "    for (long long r = 0; r < R; ++r)\n"
       << "      local = " << rd << "::add_local(local, " << name
       << "_value(ARGS_" << name << ", o, r, 0));\n"
       << "    " << name << "_finish(ARGS_" << name << ", o, " << rd
       << "::widen(local));\n  }\n}\n\n";
  }

  void emitOuter(llvm::raw_ostream &os, const std::string &name) {
    emitEntryHead(os, name + "_outer", name);
    os << "  const long long cblocks = (C + 255) / 256;\n"
       << "  const long long items = O * chunks * cblocks;\n"
       << "  for (long long item = blockIdx.x; item < items; item += gridDim.x) {\n"
       << "    const long long cb = item % cblocks, rest = item / cblocks;\n"
       << "    const long long chunk = rest % chunks, o = rest / chunks;\n"
       << "    const long long c = cb * 256 + threadIdx.x;\n"
       << "    if (c >= C) continue;\n"
       << "    const long long r0 = chunk * chunkLen;\n"
       << "    const long long r1 = r0 + chunkLen < R ? r0 + chunkLen : R;\n"
       << "    " << rd << "::local local = " << rd << "::local_identity();\n"
       << "#pragma unroll 4\n"
       << "    for (long long r = r0; r < r1; ++r)\n"
       << "      local = " << rd << "::add_local(local, " << name
       << "_value(ARGS_" << name << ", o, r, c));\n"
       << "    if (chunks == 1) " << name << "_finish(ARGS_" << name
       << ", o * C + c, " << rd << "::widen(local));\n"
       << "    else partials[(o * chunks + chunk) * C + c] = " << rd
       << "::widen(local);\n  }\n}\n\n";
  }

  /// A warp per result: lane l combines chunks l, l + 32, ... in order,
  /// then lane 0 combines the 32 lanes in order (through shared memory, as
  /// not every accumulator type can be shuffled).
  void emitFinal(llvm::raw_ostream &os, const std::string &name) {
    emitEntryHead(os, name + "_final", name);
    os << "  __shared__ " << rd << "::acc lanes[256];\n"
       << "  const int lane = threadIdx.x % 32;\n"
       << "  const long long warps = (long long)gridDim.x * (blockDim.x / 32);\n"
       << "  for (long long m = blockIdx.x * (long long)(blockDim.x / 32) + "
          "threadIdx.x / 32; m < O * C; m += warps) {\n"
       << "    const long long o = m / C, c = m % C;\n"
       << "    " << rd << "::acc acc = " << rd << "::identity();\n"
       << "    for (long long k = lane; k < chunks; k += 32)\n"
       << "      acc = " << rd << "::combine(acc, partials[(o * chunks + k) * C + c]);\n"
       << "    lanes[threadIdx.x] = acc;\n"
       << "    __syncwarp();\n"
       << "    if (lane == 0) {\n"
       << "      for (int l = 1; l < 32; ++l)\n"
       << "        acc = " << rd << "::combine(acc, lanes[threadIdx.x + l]);\n"
       << "      " << name << "_finish(ARGS_" << name << ", m, acc);\n"
       << "    }\n"
       << "    __syncwarp();\n  }\n}\n\n";
  }

  ReduceKernelOp op;
  Block &prologue;
  Block &epilogue;
  /// Whether the entries take the run's guard (KernelOptions::guarded).
  bool guarded;
  std::string rd;
  int64_t rank = 0;
  bool contiguous = false;
  bool flat = false;
  SmallVector<int64_t> outerDims, reducedDims, innerDims;
  std::set<std::string> dimArgs;
};

/// Bytes of one partial result of a reduction (its RD::acc in
/// core/PipeReduce.h).
int getAccumulatorBytes(ReductionKind kind, Type element) {
  if (kind == ReductionKind::any || kind == ReductionKind::all)
    return 4;
  if (kind == ReductionKind::min || kind == ReductionKind::max)
    return int(getElementBytes(element));
  // The mean of 64-bit integers sums exactly, in 128 bits (PipeReduce.h).
  if (kind == ReductionKind::mean && element.isInteger(64))
    return 16;
  return 8;
}

/// The compiler half of the reduction family: a `pipe.reduce_kernel`
/// becomes a plan kernel with the four entries above.
class ReductionFamily : public pipec::KernelFamily {
public:
  StringRef getName() const override { return "reduction"; }
  bool matches(Operation *op) const override {
    return isa<ReduceKernelOp>(op);
  }
  std::string getKernelName(Operation *op, StringRef, unsigned) const override {
    return cast<ReduceKernelOp>(op).getKernelName().str();
  }
  bool needsStencilPrelude() const override { return true; }
  bool canBeGuarded() const override { return true; }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    bool withPrelude = options.withPrelude;
    auto reduction = cast<ReduceKernelOp>(op);
    pipert::PlanKernel kernel;
    kernel.name = name;
    std::string text;
    llvm::raw_string_ostream os(text);
    if (withPrelude)
      os << pipec::getCudaPrelude(/*withStencils=*/true) << "\n";
    os << "// " << name << ": " << stringifyReductionKind(reduction.getKind())
       << " over " << reduction.getInputDomainType() << " to "
       << reduction.getReductionType() << "\n";
    if (failed(ReductionEmitter(reduction, options.guarded).emit(os, kernel)))
      return failure();
    kernel.source = std::move(text);
    kernel.domain =
        pipec::getPlanBuffer(reduction.getInputDomainType(), "").dims;
    pipert::ReductionParams params;
    params.axes.assign(reduction.getAxes().begin(), reduction.getAxes().end());
    params.numPrologueInputs = reduction.getPrologueInputs().size();
    params.accBytes = getAccumulatorBytes(
        reduction.getKind(), reduction.getInputDomainType().getElementType());
    kernel.params = params.encode();
    kernel.location = describeLocation(reduction.getLoc());
    return kernel;
  }

  std::string describe(const pipert::PlanKernel &kernel) const override {
    auto params = pipert::ReductionParams::decode(kernel.params);
    return "reduction " + kernel.name + " " +
           pipert::describeDims(kernel.domain) + " axes " +
           (params ? pipec::formatList(params->axes) : "?");
  }
};

} // namespace

namespace pipec {
const KernelFamily &getReductionFamily() {
  static const ReductionFamily family;
  return family;
}
} // namespace pipec
