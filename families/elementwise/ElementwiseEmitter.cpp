//===- ElementwiseEmitter.cpp - pipe.kernel ops to CUDA C++ ---------------===//
//
// A kernel computes its results for each element of its domain. Each thread
// loads the inputs' elements, evaluates the body's ops in order (each op
// supplies its own scalar expression through ElementwiseOpInterface), and
// stores the results. Values of rank 0 are the same for every element, so
// they are loaded or computed once per thread, before any loop.
//
// Every kernel is emitted in several variants; the runtime picks one per
// launch (ElementwiseLauncher.cpp; ElementwiseParams.h lists them):
//  - flat (every input read at the element's own index): a vector variant,
//    each thread taking groups of elements whose widest array moves 16
//    bytes, each group contiguous across the warp, one block per step; and a
//    scalar variant for misaligned pointers or 2^31 elements and more;
//  - indexed (an input read through index maps: a broadcast, a transpose,
//    a crop, a flip, ...; codegen/IndexCodegen.h prints their offsets):
//    a vector variant (each thread a group of consecutive elements of the
//    last dim, coordinates once per group, the results and the inputs read
//    directly moved 16 bytes at a time), a row variant (whole rows of the
//    last dim per block, coordinates once per row, a small contiguous dim
//    of an input unrolled inside each element) for rows the groups do not
//    divide, a tile variant for inputs read transposed (32x32 tiles through
//    shared memory), and grid-stride variants computing coordinates per
//    element in 32 and 64 bits.
//
// KernelEmitter (KernelEmitter.h) emits them; this file has what a kernel
// reads and computes per element, the flat and per-element variants and
// the entry, ElementwiseVariants.cpp the grouped ones (vector and span
// groups, rows, tiles).
//
//===----------------------------------------------------------------------===//

#include "families/elementwise/KernelEmitter.h"

#include <algorithm>
#include <numeric>

using namespace pipec::elementwise;

namespace pipec::elementwise {

LogicalResult KernelEmitter::emit(llvm::raw_ostream &os, pipec::ElementwiseInfo &info) {
  for (Operation &op : body.without_terminator())
    if (!isa<ElementwiseOpInterface, IndexMapOpInterface, CoordinateOp>(op))
      return op.emitOpError() << "internal error: has no CUDA lowering";
  // The index maps whose values the body uses per element, and what
  // their chains read.
  int64_t rank = kernel.getDomainType().getRank();
  for (Operation &op : body.without_terminator()) {
    if (!pipec::isGatheredValue(&op))
      continue;
    pipec::IndexRead read =
        pipec::resolveIndexMaps(op.getResult(0), getDomainCoordinates(rank));
    if (!read.arg && !read.scalar && !read.index)
      return op.emitOpError()
             << "internal error: its index maps read no kernel input";
    if (read.index)
      needsSignedIndex = true;
    reads[&op] = read;
    if (!read.arg)
      continue;
    gatherIds[&op] = gathers.size();
    gathers.push_back(&op);
    for (const IndexExpr &coordinate : read.coordinates)
      needsSignedIndex |=
          !coordinate.isConstant(0) &&
          coordinate.getKind() != IndexExpr::Kind::Coordinate;
  }
  usesCoordinates = !reads.empty();
  info.coordinates = usesCoordinates;
  // Scalar computations of scalar inputs and of each other: once per
  // thread. Not those of a map's rank-0 result (a slice that drops every
  // dim): that is read like any gathered value, in the loop.
  for (Operation &op : body.without_terminator()) {
    if (!isScalar(op.getResult(0)) || isa<IndexMapOpInterface, CoordinateOp>(op))
      continue;
    if (llvm::all_of(op.getOperands(), [&](Value operand) {
          if (auto arg = dyn_cast<BlockArgument>(operand))
            return isScalar(arg);
          return hoisted.contains(operand.getDefiningOp());
        }))
      hoisted.insert(&op);
  }
  collectDimArgs();
  info.dimArgs.assign(dimArgs.begin(), dimArgs.end());
  std::string name = kernel.getKernelName().str();
  info.entry = name;
  if (usesCoordinates && kernel.getDomainType().getRank() == 0) {
    // One element, read through maps at constant coordinates (a slice
    // that drops every dim): the per-element variants alone; groups and
    // rows have nothing to group.
    info.fallbackEntry = name + "_i64";
    info.elementsPerThread = 1;
    emitVariant(os, name, Variant::Coords32);
    emitVariant(os, name + "_i64", Variant::Coords64);
  } else if (usesCoordinates) {
    info.fallbackEntry = name + "_i64";
    info.rowEntry = name + "_rows";
    info.elementsPerThread = 1;
    // Groups as wide as 16 bytes of the widest array the group moves
    // whole: the results and the inputs read at the element's own index.
    int64_t widest = 1;
    for (BlockArgument arg : body.getArguments())
      if (!isScalar(arg) && pipec::isReadDirectly(arg))
        widest = std::max(widest, elementBytes(arg));
    for (Value result : kernel.getResults())
      widest = std::max(widest, elementBytes(result));
    vectorWidth = int(16 / widest);
    info.vectorEntry = name + "_vec";
    info.vectorWidth = vectorWidth;
    // Groups that span rows: whole rows of a short static last dim (the
    // channels of a pixel), as many as make 8-byte multiples
    // (below), so that the last coordinate of each element is a constant
    // and the rest are carried once per row; else vectorWidth elements
    // carried one by one.
    RankedTensorType domain = kernel.getDomainType();
    int64_t lastSize = domain.getRank() ? domain.getShape().back() : 1;
    spanWidth = vectorWidth;
    spanRows = 0;
    // Whole rows making 8-byte multiples (24 bytes of u8 pixels): each
    // byte lives in a register of its own, and wider groups of them cost
    // more than their shared index arithmetic saves. On the H100: the pad
    // of u8[64,1000,1000,3] to 1024 took 0.1478 ms against 0.2130 in
    // groups of 48 bytes; the concat of two u8[64,512,512,3] on the
    // channels 0.0720 against 0.0823 once its parts' rows loaded as runs
    // with no check (readsRowsInOrder; 0.0798 against 0.0788 with the
    // check). (PIPE_TUNE_SPAN_BYTES overrides, for sweeps.)
    if (domain.getRank() >= 2 && !ShapedType::isDynamic(lastSize) &&
        lastSize > 1 && vectorWidth % lastSize != 0) {
      int64_t base = std::max<int64_t>(
          1, tuning("PIPE_TUNE_SPAN_BYTES", 8) * vectorWidth / 16);
      int64_t width = std::lcm(base, lastSize);
      if (width <= 64) {
        spanWidth = int(width);
        spanRows = int(width / lastSize);
      }
    }
    info.spanWidth = spanWidth;
    // The vector variant's groups take every value of a plane dim (the
    // CHW planes of HWC pixels) where the maps compute their coordinates:
    // a crop's anchors and a flip's flag are then read and applied once
    // per pixel instead of once per plane. crop_mirror_normalize into
    // f32 CHW measured 0.0721 ms against 0.0773 (bench/micro/
    // layout_shapes.py, H100); a plain transpose (normalize) 0.0910
    // against 0.0896, so it keeps the one-plane groups.
    planeDim = hasComputedMaps() ? findPlaneDim() : -1;
    vectorPlanes = planeDim >= 0 ? int(domain.getDimSize(planeDim)) : 1;
    info.vectorPlanes = vectorPlanes;
    info.spanEntry = name + "_span";
    emitVariant(os, name + "_vec", Variant::Vector32);
    emitVariant(os, name + "_span", Variant::Span32);
    // A group of more than 16 bytes is stored in several chunks, and a
    // warp's k-th store then takes the k-th chunk of every group: the
    // staged entry stores each warp's groups as runs instead. Measured on
    // the H200 (pipe_bench, bench/NOTES.md): the concat of two
    // u8[64,512,512,3] on the channels 0.0551 -> 0.0517 ms (86.5% ->
    // 91.5% of copy); but the pad of u8[64,1000,1000,3] to 1024, whose
    // rows are clamped and checked, 0.1061 -> 0.1108 at the same 44
    // registers, and slower still where staging took registers (fewer
    // blocks an SM). So only kernels whose gathered inputs are all read in
    // the result's row order get it, and the launcher takes it only where
    // the occupancy stays (ElementwiseLauncher.cpp).
    // Each staged result takes 256 threads' groups of shared memory
    // (pipe_store_warp): up to 16 KiB in all, well under the 48 KiB a
    // kernel may declare (a concat of f32 pixels of 32 channels would ask
    // 64 KiB, and its whole source would fail to compile).
    const bool inOrder = llvm::all_of(gathers, [&](Operation *op) {
      return readsRowsInOrder(reads.find(op)->second);
    });
    int64_t stageBytes = 0;
    for (Value result : kernel.getResults())
      if (spanWidth * elementBytes(result) > 16)
        stageBytes += 256 * spanWidth * elementBytes(result);
    if (inOrder && stageBytes > 0 && stageBytes <= 16 * 1024) {
      info.spanStagedEntry = name + "_span_staged";
      emitVariant(os, info.spanStagedEntry, Variant::Span32Staged);
    }
    tiled = findTiledInput();
    if (tiled) {
      info.tileEntry = name + "_tiles";
      info.tileDim = tileDim;
      emitVariant(os, name + "_tiles", Variant::Tiles32);
    }
    emitVariant(os, name + "_rows", Variant::Rows32);
    emitVariant(os, name, Variant::Coords32);
    emitVariant(os, name + "_i64", Variant::Coords64);
  } else {
    // Groups of consecutive elements that make the widest array's access
    // 16 bytes; kGroups groups per thread per step keep enough bytes in
    // flight. Group g of thread t is at (step * kGroups + g) * blockDim + t,
    // so every load and store instruction of a warp is contiguous.
    int64_t widest = 1;
    for (BlockArgument arg : body.getArguments())
      if (!isScalar(arg))
        widest = std::max(widest, elementBytes(arg));
    for (Value result : kernel.getResults())
      widest = std::max(widest, elementBytes(result));
    vectorWidth = int(16 / widest);
    info.elementsPerThread = vectorWidth * kGroups;
    info.fallbackEntry = name + "_scalar";
    emitVariant(os, name, Variant::FlatVector);
    emitVariant(os, name + "_scalar", Variant::FlatScalar);
  }
  return success();
}

/// The symbolic dims the kernel needs: with coordinates, the domain's,
/// those of inputs read through index maps and those the maps use; and
/// always those used as values (pipe.dim, `W - 1`).
void KernelEmitter::collectDimArgs() {
  if (usesCoordinates) {
    collectDimSymbols(kernel.getDomainType(), dimArgs);
    pipec::collectIndexDims(body, dimArgs);
    return;
  }
  pipec::collectDimValueSymbols(body, dimArgs);
}

/// How index expressions print in this kernel's coordinate variants:
/// coordinates `c<d>` (or what `coordinate` says), offsets in I, signed
/// arithmetic in J.
pipec::IndexStyle KernelEmitter::indexStyle(
    std::function<std::string(int64_t)> coordinate) {
  pipec::IndexStyle style;
  style.signedType = "J";
  style.offsetType = "I";
  style.coordinate = coordinate ? coordinate : [](int64_t d) {
    return "c" + std::to_string(d);
  };
  style.dim = [](StringRef name) { return getDimCExpression(name); };
  style.scalar = [this](Value value) { return nameOf(value); };
  style.load = [](BlockArgument arg, const std::string &offset) {
    return "in" + std::to_string(arg.getArgNumber()) + "[" + offset + "]";
  };
  style.stride = nullptr;
  return style;
}

/// The named strides of gathered input `op` (s<id>_<dim>).
pipec::StrideNames KernelEmitter::stridesOf(Operation *op) {
  unsigned id = gatherIds.lookup(op);
  return [id](int64_t s) {
    return "s" + std::to_string(id) + "_" + std::to_string(s);
  };
}

/// The element of gathered input `op` at the coordinates `style` prints.
std::string KernelEmitter::gatherAt(Operation *op, const pipec::IndexStyle &style) {
  const pipec::IndexRead &read = reads.find(op)->second;
  return "in" + std::to_string(read.arg.getArgNumber()) + "[" +
         pipec::printOffset(read, style, stridesOf(op)) + "]";
}

/// The flat index, in the domain's first `rank` dims, of coordinates
/// c<d> with dim `skipped` left out (taken as 0; -1: none); "" if no dim
/// is left.
std::string KernelEmitter::flatIndex(int64_t rank, int64_t skipped) {
  std::string index;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == skipped)
      continue;
    std::string term = "c" + std::to_string(d);
    for (int64_t e = d + 1; e < rank; ++e)
      term += " * D" + std::to_string(e);
    index += (index.empty() ? "" : " + ") + term;
  }
  return index;
}

/// A small static dim of the domain (2 to 8 values) that is some
/// gathered input's innermost, contiguous dim, like the channels of an HWC
/// image read into CHW planes; -1 if none.
int64_t KernelEmitter::findPlaneDim() {
  RankedTensorType domain = kernel.getDomainType();
  int64_t rank = domain.getRank(), last = rank - 1, found = -1;
  for (Operation *op : gathers) {
    const pipec::IndexRead &read = reads.find(op)->second;
    if (read.coordinates.empty())
      continue;
    std::optional<int64_t> d = followedDim(read.coordinates.back(), rank);
    if (d && *d != last && !domain.isDynamicDim(*d) &&
        domain.getDimSize(*d) > 1 && domain.getDimSize(*d) <= 8)
      found = *d;
  }
  return found;
}

/// Whether some gathered input's map computes its coordinates from
/// parameters, bounds or choices (a crop's anchors, a flip's flags, a
/// border rule) rather than from coordinates and dims alone.
bool KernelEmitter::hasComputedMaps() {
  for (Operation *op : gathers)
    if (llvm::any_of(reads.find(op)->second.coordinates,
                     [](const IndexExpr &e) { return e.isComputed(false); }))
      return true;
  return false;
}

void KernelEmitter::emitSignature(llvm::raw_ostream &os, const std::string &name,
                   const char *launchBounds) {
  os << "extern \"C\" __global__ void __launch_bounds__(" << launchBounds
     << ")\n" << name << "(";
  SmallVector<std::string> params;
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    params.push_back("const " + getCppType(arg.getType()) +
                     " *__restrict__ in" + std::to_string(i));
  for (auto [i, result] : llvm::enumerate(kernel.getResults()))
    params.push_back(getCppType(result.getType()) + " *__restrict__ out" +
                     std::to_string(i));
  params.push_back("long long n");
  for (const std::string &dim : dimArgs)
    params.push_back("long long d_" + dim);
  // Every entry takes the divisors, so that the launcher passes one list.
  params.push_back(
      "const pipe_divisors<" +
      std::to_string(std::max<int64_t>(1, kernel.getDomainType().getRank())) +
      "> dim_divisors");
  if (guarded) {
    params.push_back("const unsigned long long *__restrict__ pipe_guard");
    params.push_back("unsigned long long pipe_run");
  }
  llvm::interleave(params, os, ",\n    ");
  os << ") {\n  pipe_wait_for_previous_kernel();\n";
  if (guarded)
    os << "  if (pipe_check_failed(pipe_guard, pipe_run))\n    return;\n";
}

/// The body's computation of one element. `load(k)` is the expression of
/// input k's element; `store(k, v)` the statement that stores result k.
void KernelEmitter::emitElement(llvm::raw_ostream &os, const std::string &indent,
                 llvm::function_ref<std::string(unsigned)> load,
                 llvm::function_ref<std::string(unsigned, StringRef)> store,
                 llvm::function_ref<std::string(Operation *)> gather) {
  for (auto [k, arg] : llvm::enumerate(body.getArguments())) {
    if (isScalar(arg) || !isDirect(arg))
      continue;
    os << indent << "const " << getCppType(arg.getType()) << " "
       << nameOf(arg) << " = " << load(k) << ";\n";
  }
  narrowed.clear();
  for (Operation &op : body.without_terminator()) {
    Value result = op.getResult(0);
    bool map = isa<IndexMapOpInterface, CoordinateOp>(op);
    if (hoisted.contains(&op) || (map && !reads.count(&op)))
      continue; // hoisted, or part of another map's chain
    const bool narrow = narrowsResult(op);
    std::string expression;
    if (map) {
      const pipec::IndexRead &read = reads.find(&op)->second;
      if (read.arg)
        expression = gather(&op);
      else if (read.scalar)
        expression = nameOf(read.scalar);
      else // a coordinate, at this element
        expression = "pipe_cast<" + getCppType(result.getType()) +
                     ">((pipe_i64)" + pipec::printIndex(read.index, elementStyle) +
                     ")";
    } else {
      const bool narrowOperands = narrow || comparesNarrow(op);
      SmallVector<std::string> operands;
      for (Value operand : op.getOperands())
        operands.push_back(operandAs(operand, narrowOperands));
      expression =
          cast<ElementwiseOpInterface>(op).getScalarExpression(operands);
    }
    if (narrow)
      narrowed.insert(result);
    os << indent << "const "
       << (narrow ? std::string("pipe_i32") : getCppType(result.getType()))
       << " " << nameOf(result) << " = " << expression << ";\n";
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [k, value] : llvm::enumerate(yield.getValues()))
    os << indent << store(k, nameOf(value)) << "\n";
}

/// Rank-0 inputs and scalar computations, once per thread.
void KernelEmitter::emitHoisted(llvm::raw_ostream &os) {
  for (auto [k, arg] : llvm::enumerate(body.getArguments()))
    if (isScalar(arg))
      os << "  const " << getCppType(arg.getType()) << " " << nameOf(arg)
         << " = in" << k << "[0];\n";
  for (Operation &op : body.without_terminator()) {
    Value result = op.getResult(0);
    if (!hoisted.contains(&op))
      continue;
    SmallVector<std::string> operands;
    for (Value operand : op.getOperands())
      operands.push_back(nameOf(operand));
    os << "  const " << getCppType(result.getType()) << " " << nameOf(result)
       << " = "
       << cast<ElementwiseOpInterface>(op).getScalarExpression(operands)
       << ";\n";
  }
}

void KernelEmitter::emitVariant(llvm::raw_ostream &os, const std::string &name,
                 Variant variant) {
  // The row variant runs 128 threads; 16 blocks of them fill an SM when
  // each thread keeps to 32 registers (ncu: at 34 registers occupancy was
  // capped at 75%).
  emitSignature(os, name, variant == Variant::Rows32 ? "128, 16" : "256");
  bool coords = variant == Variant::Coords32 ||
                variant == Variant::Coords64 || variant == Variant::Rows32 ||
                variant == Variant::Tiles32 || variant == Variant::Vector32 ||
                variant == Variant::Span32 || variant == Variant::Span32Staged;
  stagedStores = variant == Variant::Span32Staged;
  // 32-bit indices where the runtime guarantees every index fits.
  narrowIndices = coords && variant != Variant::Coords64 &&
                  tuningSwitch("PIPE_TUNE_NARROW_INDICES", true);
  fastDivision = coords && variant != Variant::Coords64 &&
                 tuningSwitch("PIPE_TUNE_FAST_DIVISION", true);
  computeRanges(); // they depend on narrowIndices
  if (coords) {
    os << "  typedef "
       << (variant == Variant::Coords64 ? "unsigned long long" : "unsigned int")
       << " I;\n";
    // Index maps that are not plain coordinates (a crop's offset, a
    // flip's reversal) compute in signed integers of I's width.
    if (needsSignedIndex)
      os << "  typedef "
         << (variant == Variant::Coords64 ? "long long" : "int") << " J;\n";
  }
  else if (variant == Variant::FlatVector)
    os << "  typedef unsigned int I;\n";
  else
    os << "  typedef long long I;\n";
  emitHoisted(os);
  // Grid-stride loops over elements (rows and tiles stride over blocks).
  if (variant != Variant::Rows32 && variant != Variant::Tiles32)
    os << "  const I first = (I)blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  const I stride = (I)gridDim.x * blockDim.x;\n";

  auto scalarStore = [](unsigned k, StringRef v) {
    return ("out" + std::to_string(k) + "[i] = " + v + ";").str();
  };
  auto scalarLoad = [](unsigned k) { return "in" + std::to_string(k) + "[i]"; };
  auto noGather = [](Operation *) -> std::string {
    llvm_unreachable("flat kernels have no index maps");
  };

  if (variant == Variant::FlatVector) {
    const int v = vectorWidth;
    // Steps of kGroups groups of v elements per thread; group g of a step
    // starts at element ((step * kGroups + g) * blockDim + t) * v.
    os << "  const I groups = (I)n / " << v << ";\n"
       << "  const I steps = groups / ((I)blockDim.x * " << kGroups << ");\n"
       << "  for (I s = blockIdx.x; s < steps; s += gridDim.x) {\n";
    for (auto [k, arg] : llvm::enumerate(body.getArguments()))
      if (!isScalar(arg))
        os << "    alignas(16) " << getCppType(arg.getType()) << " a" << k
           << "[" << kGroups << "][" << v << "];\n";
    for (auto [k, result] : llvm::enumerate(kernel.getResults()))
      os << "    alignas(16) " << getCppType(result.getType()) << " r" << k
         << "[" << kGroups << "][" << v << "];\n";
    // All loads first, so that they are in flight together.
    os << "#pragma unroll\n    for (int q = 0; q < " << kGroups << "; ++q) {\n"
       << "      const I base = ((s * " << kGroups
       << " + q) * (I)blockDim.x + threadIdx.x) * " << v << ";\n";
    for (auto [k, arg] : llvm::enumerate(body.getArguments()))
      if (!isScalar(arg))
        os << "      pipe_load_vec(a" << k << "[q], in" << k << " + base);\n";
    os << "    }\n"
       << "#pragma unroll\n    for (int q = 0; q < " << kGroups << "; ++q) {\n"
       << "#pragma unroll\n    for (int j = 0; j < " << v << "; ++j) {\n";
    emitElement(
        os, "      ",
        [](unsigned k) { return "a" + std::to_string(k) + "[q][j]"; },
        [](unsigned k, StringRef value) {
          return ("r" + std::to_string(k) + "[q][j] = " + value + ";").str();
        },
        noGather);
    os << "    }\n    }\n"
       << "#pragma unroll\n    for (int q = 0; q < " << kGroups << "; ++q) {\n"
       << "      const I base = ((s * " << kGroups
       << " + q) * (I)blockDim.x + threadIdx.x) * " << v << ";\n";
    for (auto [k, result] : llvm::enumerate(kernel.getResults()))
      os << "      pipe_store_vec(out" << k << " + base, r" << k << "[q]);\n";
    os << "    }\n  }\n"
       << "  // The elements that do not fill a whole step.\n"
       << "  for (I i = steps * (I)blockDim.x * " << kGroups << " * " << v
       << " + first; i < (I)n; i += stride) {\n";
    emitElement(os, "    ", scalarLoad, scalarStore, noGather);
    os << "  }\n}\n\n";
    return;
  }
  if (variant == Variant::FlatScalar) {
    os << "  for (I i = first; i < (I)n; i += stride) {\n";
    emitElement(os, "    ", scalarLoad, scalarStore, noGather);
    os << "  }\n}\n\n";
    return;
  }

  // Coordinates: the domain's dims, and each broadcast input's strides.
  RankedTensorType domain = kernel.getDomainType();
  int64_t rank = domain.getRank();
  for (int64_t d = 0; d < rank; ++d)
    os << "  const I D" << d << " = " << dimExpr(domain, d) << ";\n";
  for (Operation *op : gathers) {
    unsigned id = gatherIds.lookup(op);
    RankedTensorType source = reads.find(op)->second.source;
    std::string stride = "(I)1";
    for (int64_t s = source.getRank() - 1; s >= 0; --s) {
      os << "  const I s" << id << "_" << s << " = " << stride << ";\n";
      stride = "s" + std::to_string(id) + "_" + std::to_string(s) + " * " +
               dimExpr(source, s);
    }
  }
  if (variant == Variant::Vector32 || variant == Variant::Span32 ||
      variant == Variant::Span32Staged) {
    emitVector(os, rank, variant != Variant::Vector32);
    return;
  }
  if (variant == Variant::Rows32) {
    emitRows(os, rank);
    return;
  }
  if (variant == Variant::Tiles32) {
    emitTiles(os, rank);
    return;
  }
  os << "  for (I i = first; i < (I)n; i += stride) {\n"
     << "    I rest = i;\n";
  SmallVector<int64_t> allDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  emitDecode(os, allDims, "    ");
  pipec::IndexStyle style = indexStyle();
  elementStyle = style;
  auto gather = [&](Operation *op) { return gatherAt(op, style); };
  emitElement(os, "    ", scalarLoad, scalarStore, gather);
  os << "  }\n}\n\n";
}

} // namespace pipec::elementwise

FailureOr<std::string> pipec::emitElementwiseKernel(KernelOp kernel,
                                                    ElementwiseInfo &info) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// " << kernel.getKernelName() << ": " << kernel.getInputs().size()
     << " inputs, " << kernel.getNumResults() << " outputs over "
     << kernel.getDomainType() << "\n";
  if (failed(KernelEmitter(kernel, info.guarded).emit(os, info)))
    return failure();
  return text;
}
