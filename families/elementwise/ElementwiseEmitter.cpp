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
//===----------------------------------------------------------------------===//

#include "families/elementwise/ElementwiseEmitter.h"

#include "codegen/IndexCodegen.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <numeric>

using namespace mlir;
using namespace mlir::pipe;

static std::string getCppType(Type tensorType) {
  return getCppScalarType(cast<RankedTensorType>(tensorType).getElementType());
}

static RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

static bool isScalar(Value value) { return tensorTypeOf(value).getRank() == 0; }

static int64_t elementBytes(Value value) {
  return getElementBytes(value.getType());
}

/// A code-generation parameter, overridable through the environment for
/// benchmarking (bench/run.sh sweeps them); not a user setting.
static int tuning(const char *name, int fallback) {
  const char *value = std::getenv(name);
  int parsed = value ? std::atoi(value) : 0;
  return parsed > 0 && parsed <= 16 ? parsed : fallback;
}

namespace {

enum class Variant {
  FlatVector,
  FlatScalar,
  Vector32,
  Span32,
  Rows32,
  Tiles32,
  Coords32,
  Coords64
};

/// Emits the variants of one kernel.
class KernelEmitter {
public:
  KernelEmitter(KernelOp kernel, bool guarded)
      : kernel(kernel), body(kernel.getBody().front()), guarded(guarded) {}

  LogicalResult emit(llvm::raw_ostream &os, pipec::ElementwiseInfo &info) {
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
      // channels of a pixel), as many as make 8- or 16-byte multiples
      // (below), so that the last coordinate of each element is a constant
      // and the rest are carried once per row; else vectorWidth elements
      // carried one by one.
      RankedTensorType domain = kernel.getDomainType();
      int64_t lastSize = domain.getRank() ? domain.getShape().back() : 1;
      spanWidth = vectorWidth;
      spanRows = 0;
      // Whole rows making 16-byte multiples where some input's rows load
      // as runs (takesRunLoads), 8-byte ones where every element is loaded
      // alone: on the H100, the concat of two u8[64,512,512,3] on the
      // channels (runs) took 0.0788 ms in groups of 48 bytes against 0.0798
      // in groups of 24, the pad of u8[64,1000,1000,3] to 1024 (element
      // loads) 0.1478 against 0.2130: each byte lives in a register of its
      // own, and wide groups of them cost more than their shared index
      // arithmetic saves. (PIPE_TUNE_SPAN_BYTES overrides, for sweeps.)
      if (domain.getRank() >= 2 && !ShapedType::isDynamic(lastSize) &&
          lastSize > 1 && vectorWidth % lastSize != 0) {
        bool runs = llvm::any_of(gathers, [&](Operation *op) {
          return takesRunLoads(reads.find(op)->second, lastSize);
        });
        int64_t base = std::max<int64_t>(
            1, tuning("PIPE_TUNE_SPAN_BYTES", runs ? 16 : 8) * vectorWidth /
                   16);
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

private:
  static bool isDirect(BlockArgument arg) { return pipec::isReadDirectly(arg); }

  /// The symbolic dims the kernel needs: with coordinates, the domain's,
  /// those of inputs read through index maps and those the maps use; and
  /// always those used as values (pipe.dim, `W - 1`).
  void collectDimArgs() {
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
  pipec::IndexStyle indexStyle(
      std::function<std::string(int64_t)> coordinate = nullptr) {
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
  pipec::StrideNames stridesOf(Operation *op) {
    unsigned id = gatherIds.lookup(op);
    return [id](int64_t s) {
      return "s" + std::to_string(id) + "_" + std::to_string(s);
    };
  }

  /// The element of gathered input `op` at the coordinates `style` prints.
  std::string gatherAt(Operation *op, const pipec::IndexStyle &style) {
    const pipec::IndexRead &read = reads.find(op)->second;
    return "in" + std::to_string(read.arg.getArgNumber()) + "[" +
           pipec::printOffset(read, style, stridesOf(op)) + "]";
  }

  /// The flat index, in the domain's first `rank` dims, of coordinates
  /// c<d> with dim `skipped` left out (taken as 0; -1: none); "" if no dim
  /// is left.
  static std::string flatIndex(int64_t rank, int64_t skipped) {
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
  int64_t findPlaneDim() {
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
  bool hasComputedMaps() {
    std::function<bool(const IndexExpr &)> computed =
        [&](const IndexExpr &e) {
          switch (e.getKind()) {
          case IndexExpr::Kind::Read:
          case IndexExpr::Kind::Min:
          case IndexExpr::Kind::Max:
          case IndexExpr::Kind::Select:
            return true;
          default:
            return llvm::any_of(e.getOperands(), computed);
          }
        };
    for (Operation *op : gathers)
      if (llvm::any_of(reads.find(op)->second.coordinates, computed))
        return true;
    return false;
  }

  /// The size of dim `i` of `type` as an expression of type `I`.
  std::string dimExpr(RankedTensorType type, int64_t i) {
    if (type.isDynamicDim(i))
      return "(I)" + getDimCExpression(getDimNames(type)[i]);
    return "(I)" + std::to_string(type.getDimSize(i));
  }

  void emitSignature(llvm::raw_ostream &os, const std::string &name,
                     const char *launchBounds = "256") {
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
  void emitElement(llvm::raw_ostream &os, const std::string &indent,
                   llvm::function_ref<std::string(unsigned)> load,
                   llvm::function_ref<std::string(unsigned, StringRef)> store,
                   llvm::function_ref<std::string(Operation *)> gather) {
    for (auto [k, arg] : llvm::enumerate(body.getArguments())) {
      if (isScalar(arg) || !isDirect(arg))
        continue;
      os << indent << "const " << getCppType(arg.getType()) << " "
         << nameOf(arg) << " = " << load(k) << ";\n";
    }
    for (Operation &op : body.without_terminator()) {
      Value result = op.getResult(0);
      bool map = isa<IndexMapOpInterface, CoordinateOp>(op);
      if (hoisted.contains(&op) || (map && !reads.count(&op)))
        continue; // hoisted, or part of another map's chain
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
        SmallVector<std::string> operands;
        for (Value operand : op.getOperands())
          operands.push_back(nameOf(operand));
        expression =
            cast<ElementwiseOpInterface>(op).getScalarExpression(operands);
      }
      os << indent << "const " << getCppType(result.getType()) << " "
         << nameOf(result) << " = " << expression << ";\n";
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [k, value] : llvm::enumerate(yield.getValues()))
      os << indent << store(k, nameOf(value)) << "\n";
  }

  /// Rank-0 inputs and scalar computations, once per thread.
  void emitHoisted(llvm::raw_ostream &os) {
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

  std::string nameOf(Value value) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    std::string name = "v" + std::to_string(names.size());
    names[value] = name;
    return name;
  }

  void emitVariant(llvm::raw_ostream &os, const std::string &name,
                   Variant variant) {
    // The row variant runs 128 threads; 16 blocks of them fill an SM when
    // each thread keeps to 32 registers (ncu: at 34 registers occupancy was
    // capped at 75%).
    emitSignature(os, name, variant == Variant::Rows32 ? "128, 16" : "256");
    bool coords = variant == Variant::Coords32 ||
                  variant == Variant::Coords64 || variant == Variant::Rows32 ||
                  variant == Variant::Tiles32 || variant == Variant::Vector32 ||
                  variant == Variant::Span32;
    // 32-bit indices where the runtime guarantees every index fits.
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
    if (variant == Variant::Vector32 || variant == Variant::Span32) {
      emitVector(os, rank, variant == Variant::Span32);
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

  /// The vector variant: each thread takes a group of `vectorWidth`
  /// consecutive elements (the runtime launches it only when they divide
  /// the last dim and every array is 16-byte aligned), one group per thread
  /// in a grid that covers them all; the results and the inputs read
  /// directly move in 16-byte chunks; a group's coordinates are decoded
  /// once and a gathered input is read at its offset plus j times its
  /// stride along the last dim (once, if it does not move along it).
  /// Against the row variant, normalize's u8 HWC -> f32 CHW went from 0.099
  /// to 0.090 ms on an H100 (85% -> 93% of the copy bandwidth,
  /// bench/NOTES.md): 16-byte stores and a full grid of short-lived threads
  /// outweigh the row variant's L1 reuse of a pixel's bytes.
  /// With `span`, the span variant, for short last dims the groups do not
  /// divide (3 or 6 channels): groups of `spanWidth` that span rows, each
  /// element's (or each whole row's) coordinates stepped from the group's
  /// first with carries; the elements after the last whole group take a
  /// scalar loop. A separate entry, not a branch of the vector one: with
  /// both in one kernel, erase of f32[64,2,1024,1024] took 0.404 ms against
  /// 0.363 on the H100.
  void emitVector(llvm::raw_ostream &os, int64_t rank, bool span) {
    const int v = span ? spanWidth : vectorWidth;
    os << "  const I groups = (I)n / "
       << (span ? v : v * vectorPlanes) << ";\n";
    emitVectorGroups(os, rank, /*carry=*/span);
    if (span) {
      // The rest, element by element.
      os << "  for (I i = groups * " << v
         << " + first; i < (I)n; i += stride) {\n"
         << "    I rest = i;\n";
      SmallVector<int64_t> allDims =
          llvm::to_vector(llvm::seq<int64_t>(0, rank));
      emitDecode(os, allDims, "    ");
      pipec::IndexStyle style = indexStyle();
      elementStyle = style;
      emitElement(
          os, "    ",
          [](unsigned k) { return "in" + std::to_string(k) + "[i]"; },
          [](unsigned k, StringRef value) {
            return ("out" + std::to_string(k) + "[i] = " + value + ";").str();
          },
          [&](Operation *op) { return gatherAt(op, style); });
      os << "  }\n";
    }
    os << "}\n\n";
  }

  /// Whether span groups load gathered input `read`'s rows as runs
  /// (emitRunLoad): each row's elements come from one row of the input
  /// (its last coordinate a function of the domain's last alone, its others
  /// independent of it), shorter than the domain's (a concat's parts). Where
  /// they are as long (a pad), the elements' own loads measured faster on
  /// the H100: the pad of u8[64,1000,1000,3] to 1024 took 0.1478 ms against
  /// 0.1767 with run loads (8-byte groups; 0.2130 against 0.2948 with
  /// 16-byte ones).
  bool takesRunLoads(const pipec::IndexRead &read, int64_t lastSize) {
    const int64_t last = kernel.getDomainType().getRank() - 1;
    int64_t srank = read.source.getRank();
    if (srank == 0 || read.source.isDynamicDim(srank - 1) ||
        read.source.getDimSize(srank - 1) >= lastSize)
      return false;
    for (int64_t d = 0; d < last; ++d)
      if (read.coordinates[srank - 1].dependsOn(d))
        return false;
    for (int64_t s = 0; s + 1 < srank; ++s)
      if (read.coordinates[s].dependsOn(last))
        return false;
    return true;
  }

  /// For a group of whole rows (spanRows): when gathered input `op` reads
  /// each row's elements from one row of its own (its last coordinate a
  /// function of the domain's last alone, its others independent of it),
  /// the rows of a group are often consecutive in the input too (a pad's
  /// or a concat's interior): then the group's rows are one run, loaded in
  /// 16-, 8- or 4-byte chunks where it is aligned, and each element picked from
  /// it; else each element is loaded alone. Fills g<id>[v] (declared by
  /// the caller) and returns true, or returns false (and emits nothing)
  /// when the read does not qualify.
  bool emitRunLoad(llvm::raw_ostream &os, Operation *op, unsigned id,
                   const pipec::IndexRead &read, int v, int64_t lastSize,
                   const std::function<std::string(int64_t)> &coordinate) {
    if (!takesRunLoads(read, lastSize))
      return false;
    const int64_t srank = read.source.getRank();
    const int64_t sourceRow = read.source.getDimSize(srank - 1);
    const int rows = v / int(lastSize);
    const int64_t runElements = rows * sourceRow;
    const int64_t elementBytes =
        getElementBytes(read.arg.getType());
    const int64_t runBytes = runElements * elementBytes;
    if (runElements > 128)
      return false;
    unsigned k = read.arg.getArgNumber();
    std::string type = getCppType(op->getResult(0).getType());
    std::string g = "g" + std::to_string(id), b = "b" + std::to_string(id);
    // Row p's offset (the last coordinate left out), and element j's
    // position in its row (a constant once j is unrolled).
    pipec::IndexStyle rowStyle = indexStyle([](int64_t d) {
      return "q" + std::to_string(d) + "[p]";
    });
    pipec::IndexStyle element = indexStyle(coordinate);
    std::string base = pipec::printOffset(
        read, rowStyle, stridesOf(op), [&](int64_t s) { return s + 1 < srank; });
    std::string within = pipec::printOffset(
        read, element, stridesOf(op), [&](int64_t s) { return s + 1 == srank; });
    os << "    {\n      I " << b << "[" << rows << "];\n"
       << "#pragma unroll\n      for (int p = 0; p < " << rows << "; ++p)\n"
       << "        " << b << "[p] = " << base << ";\n"
       << "      bool run = true;\n"
       << "#pragma unroll\n      for (int p = 1; p < " << rows << "; ++p)\n"
       << "        run &= " << b << "[p] == " << b << "[0] + (I)(p * "
       << sourceRow << ");\n"
       << "      const unsigned long long at = (unsigned long long)(in" << k
       << " + " << b << "[0]);\n";
    std::string pick = g + "[j] = w[(j / " + std::to_string(lastSize) +
                       ") * " + std::to_string(sourceRow) + " + " + within +
                       "];";
    const char *keyword = "if";
    for (int chunk : {16, 8, 4}) {
      if (runBytes % chunk != 0)
        continue;
      os << (keyword[0] == 'i' ? "      " : "") << keyword << " (run && at % "
         << chunk << " == 0) {\n"
         << "        alignas(16) " << type << " w[" << runElements << "];\n"
         << "        pipe_load_chunks<" << chunk << ">(w, in" << k << " + " << b
         << "[0]);\n"
         << "#pragma unroll\n        for (int j = 0; j < " << v << "; ++j)\n"
         << "          " << pick << "\n      }";
      keyword = " else if";
    }
    if (std::string(keyword) == "if")
      os << "      {\n";
    else
      os << " else {\n";
    os << "#pragma unroll\n        for (int j = 0; j < " << v << "; ++j)\n"
       << "          " << g << "[j] = in" << k << "[" << b << "[j / "
       << lastSize << "] + " << within << "];\n      }\n    }\n";
    return true;
  }

  /// The grid-stride loop over whole groups of emitVector; with `carry`, a
  /// group may span rows.
  void emitVectorGroups(llvm::raw_ostream &os, int64_t rank, bool carry) {
    const int v = carry ? spanWidth : vectorWidth;
    const int64_t last = rank - 1;
    // With spanRows, groups are whole rows of the last dim: element j is
    // at last coordinate j % D, in row j / D of the group; the coordinates
    // before the last are carried from row to row.
    const bool rows = carry && spanRows > 0;
    const int64_t lastSize = rows ? v / spanRows : 0;
    const int64_t carried = rows ? last - 1 : last;
    const int steps = rows ? spanRows : v;
    const bool planes = !carry && planeDim >= 0;
    os << "  for (I g = first; g < groups; g += stride) {\n";
    if (planes) {
      // The group's coordinates but the plane dim's, its first element's
      // index in plane 0, then each plane in turn.
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < rank; ++d)
        if (d != planeDim)
          dims.push_back(d);
      os << "    I rest = g * " << v << ";\n";
      emitDecode(os, dims, "    ");
      std::string planeStride = "(I)1";
      for (int64_t e = planeDim + 1; e < rank; ++e)
        planeStride += " * D" + std::to_string(e);
      os << "    const I base = " << flatIndex(rank, planeDim) << ";\n"
         << "#pragma unroll\n    for (int p = 0; p < " << vectorPlanes
         << "; ++p) {\n"
         << "    const I c" << planeDim << " = (I)p;\n"
         << "    const I i0 = base + (I)p * " << planeStride << ";\n";
    } else {
      os << "    const I i0 = g * " << v << ";\n"
         << "    I rest = i0;\n";
      SmallVector<int64_t> allDims =
          llvm::to_vector(llvm::seq<int64_t>(0, rank));
      emitDecode(os, allDims, "    ");
    }
    if (carry) {
      // q<d>[j]: coordinate d of step j of the group (an element, or with
      // spanRows a row).
      for (int64_t d = 0; d <= carried; ++d)
        os << "    I q" << d << "[" << steps << "];\n";
      os << "    {\n";
      for (int64_t d = 0; d <= carried; ++d)
        os << "      I t" << d << " = c" << d << ";\n";
      os << "#pragma unroll\n      for (int j = 0; j < " << steps
         << "; ++j) {\n";
      for (int64_t d = 0; d <= carried; ++d)
        os << "        q" << d << "[j] = t" << d << ";\n";
      // t_carried + 1, carrying into the dims before it.
      std::string indent = "        ";
      for (int64_t d = carried; d > 0; --d) {
        os << indent << "if (++t" << d << " == D" << d << ") {\n"
           << indent << "  t" << d << " = 0;\n";
        indent += "  ";
      }
      os << indent << "++t0;\n";
      for (int64_t d = carried; d > 0; --d) {
        indent.resize(indent.size() - 2);
        os << indent << "}\n";
      }
      os << "      }\n    }\n";
    }
    for (auto [k, arg] : llvm::enumerate(body.getArguments()))
      if (!isScalar(arg) && isDirect(arg))
        os << "    alignas(16) " << getCppType(arg.getType()) << " a" << k << "["
           << v << "];\n    pipe_load_vec(a" << k << ", in" << k
           << " + i0);\n";
    // The coordinates of element j of the group.
    auto elementCoordinate = [last, carry, rows, lastSize](int64_t d) {
      if (rows)
        return d == last ? "(I)(j % " + std::to_string(lastSize) + ")"
                         : "q" + std::to_string(d) + "[j / " +
                               std::to_string(lastSize) + "]";
      if (carry)
        return "q" + std::to_string(d) + "[j]";
      return d == last ? "(c" + std::to_string(d) + " + (I)j)"
                       : "c" + std::to_string(d);
    };
    // Each gathered input: its group's elements, loaded before any compute.
    // Within a row, an input whose offset moves linearly along the last dim
    // is read at the group's offset plus j times its step; one that does
    // not move, once; any other (a border rule along the last dim) element
    // by element, as every input is when groups span rows.
    llvm::DenseMap<Operation *, bool> invariant;
    pipec::IndexStyle style = indexStyle();
    for (Operation *op : gathers) {
      unsigned id = gatherIds.lookup(op);
      const pipec::IndexRead &read = reads.find(op)->second;
      unsigned k = read.arg.getArgNumber();
      std::optional<std::string> step =
          pipec::printStep(read, last, style, stridesOf(op));
      std::string type = getCppType(op->getResult(0).getType());
      std::string offset = pipec::printOffset(read, style, stridesOf(op));
      if (!carry && step && step->empty()) {
        invariant[op] = true;
        os << "    const " << type << " h" << id << " = in" << k << "["
           << offset << "];\n";
        continue;
      }
      os << "    " << type << " g" << id << "[" << v << "];\n";
      if (!carry && step) {
        os << "    {\n      const I o = " << offset << ", t = " << *step
           << ";\n"
           << "#pragma unroll\n      for (int j = 0; j < " << v
           << "; ++j)\n        g" << id << "[j] = in" << k
           << "[o + (I)j * t];\n    }\n";
        continue;
      }
      pipec::IndexStyle element = indexStyle(elementCoordinate);
      if (rows && emitRunLoad(os, op, id, read, v, lastSize, elementCoordinate))
        continue;
      os << "#pragma unroll\n    for (int j = 0; j < " << v << "; ++j)\n"
         << "      g" << id << "[j] = in" << k << "["
         << pipec::printOffset(read, element, stridesOf(op)) << "];\n";
    }
    for (auto [k, result] : llvm::enumerate(kernel.getResults()))
      os << "    alignas(16) " << getCppType(result.getType()) << " r" << k
         << "[" << v << "];\n";
    elementStyle = indexStyle(elementCoordinate);
    os << "#pragma unroll\n    for (int j = 0; j < " << v << "; ++j) {\n";
    emitElement(
        os, "      ", [](unsigned k) { return "a" + std::to_string(k) + "[j]"; },
        [](unsigned k, StringRef value) {
          return ("r" + std::to_string(k) + "[j] = " + value + ";").str();
        },
        [&](Operation *op) {
          unsigned id = gatherIds.lookup(op);
          return invariant.lookup(op) ? "h" + std::to_string(id)
                                      : "g" + std::to_string(id) + "[j]";
        });
    os << "    }\n";
    for (auto [k, result] : llvm::enumerate(kernel.getResults()))
      os << "    pipe_store_vec(out" << k << " + i0, r" << k << ");\n";
    if (planes)
      os << "    }\n";
    os << "  }\n";
  }

  /// Each block takes whole rows (all dims but the last): it computes the
  /// row's coordinates and each input's row offset once, then its threads
  /// walk the row, so the inner loop is coalesced and its index arithmetic
  /// is one multiply-add per input.
  void emitRows(llvm::raw_ostream &os, int64_t rank) {
    int64_t last = rank - 1;
    RankedTensorType domain = kernel.getDomainType();

    // A small dim that is some input's innermost (contiguous) dim, like the
    // channels of an HWC image read into CHW: one block takes its rows one
    // after another, so the input bytes one row loads serve the next rows
    // from L1 instead of being fetched again by other blocks.
    const int64_t grouped = findPlaneDim();

    // G copies of each element: the grouped dim's values (1 if none). About
    // eight elements per thread per pass in all: more spills registers under
    // the row variant's 32-register budget (ptxas: 20 bytes at G = 3 with
    // four elements each).
    const int64_t groupSize =
        grouped >= 0 ? domain.getDimSize(grouped) : int64_t(1);
    const int unroll =
        grouped >= 0 ? std::max<int>(1, int(8 / groupSize)) : kUnroll;
    os << "  const I L = D" << last << ";\n"
       << "  const I rows = L == 0 ? 0 : (I)n / L / " << groupSize << ";\n"
       << "  for (I row = blockIdx.x; row < rows; row += gridDim.x) {\n"
       << "    I rest = row;\n";
    // Decode the row over the dims other than the last and the grouped one.
    SmallVector<int64_t> rowDims;
    for (int64_t d = 0; d < last; ++d)
      if (d != grouped)
        rowDims.push_back(d);
    emitDecode(os, rowDims, "    ");
    // Per value of the grouped dim: the row's flat start, each gathered
    // input's offset at the row's start, and the inputs that do not move
    // along the row, loaded once. Each gathered input's stride along the row
    // is the same for all of them.
    std::string rowStart = flatIndex(last, /*skipped=*/-1);
    os << "    I start[" << groupSize << "];\n";
    std::string perGroup;
    llvm::raw_string_ostream pg(perGroup);
    pg << "      start[q] = (" << (rowStart.empty() ? "(I)0" : rowStart)
       << ") * L;\n";
    // An input whose offset is linear along the row (its step not moving
    // with the grouped dim) is read at its row offset plus c times the
    // step; any other adds the terms that move along the row element by
    // element, in the element loop (where the grouped dim is q).
    llvm::DenseMap<Operation *, bool> invariant, nonlinear;
    pipec::IndexStyle style = indexStyle();
    for (Operation *op : gathers) {
      unsigned id = gatherIds.lookup(op);
      const pipec::IndexRead &read = reads.find(op)->second;
      std::optional<std::string> step;
      if (llvm::all_of(read.coordinates, [&](const IndexExpr &coordinate) {
            auto linear = coordinate.linearIn(last);
            return linear && (grouped < 0 || !linear->second.dependsOn(grouped));
          }))
        step = pipec::printStep(read, last, style, stridesOf(op));
      std::string baseExpr;
      if (step) {
        baseExpr = pipec::printOffset(
            pipec::substitute(read, last, IndexExpr::constant(0)), style,
            stridesOf(op));
      } else {
        nonlinear[op] = true;
        baseExpr = pipec::printOffset(read, style, stridesOf(op), [&](int64_t s) {
          return !read.coordinates[s].dependsOn(last);
        });
      }
      if (baseExpr == "0")
        baseExpr = "(I)0";
      unsigned k = read.arg.getArgNumber();
      if (step && step->empty()) {
        invariant[op] = true;
        os << "    " << getCppType(op->getResult(0).getType()) << " h" << id
           << "[" << groupSize << "];\n";
        pg << "      h" << id << "[q] = in" << k << "[" << baseExpr << "];\n";
      } else {
        os << "    I b" << id << "[" << groupSize << "];\n";
        if (step)
          os << "    const I t" << id << " = " << *step << ";\n";
        pg << "      b" << id << "[q] = " << baseExpr << ";\n";
      }
    }
    os << "#pragma unroll\n    for (int q = 0; q < " << groupSize << "; ++q) {\n";
    if (grouped >= 0)
      os << "      const I c" << grouped << " = q;\n";
    os << perGroup << "    }\n";
    // kUnroll elements per thread per pass, each in all G rows, the loads of
    // all of them first, so that enough bytes are in flight (and a pixel's
    // channels are loaded together). A pass that lies wholly inside the row
    // skips the per-element bounds checks (most of a row's passes).
    os << "    for (I e0 = 0; e0 < L; e0 += blockDim.x * " << unroll << ") {\n";
    for (auto [k, arg] : llvm::enumerate(body.getArguments()))
      if (!isScalar(arg) && isDirect(arg))
        os << "      " << getCppType(arg.getType()) << " a" << k << "["
           << unroll << "][" << groupSize << "];\n";
    for (Operation *op : gathers)
      if (!invariant.lookup(op))
        os << "      " << getCppType(op->getResult(0).getType()) << " g"
           << gatherIds.lookup(op) << "[" << unroll << "][" << groupSize
           << "];\n";
    os << "      const bool whole = e0 + blockDim.x * " << unroll << " <= L;\n";
    for (const char *guard : {"whole", "!whole"}) {
      bool checked = std::string(guard) == "!whole";
      auto openLoops = [&]() {
        os << "#pragma unroll\n      for (int u = 0; u < " << unroll << "; ++u) {\n"
           << "        const I c = e0 + u * blockDim.x + threadIdx.x;\n"
           << (checked ? "        if (c >= L) break;\n" : "")
           << "#pragma unroll\n        for (int q = 0; q < " << groupSize
           << "; ++q) {\n"
           << "        const I i = start[q] + c;\n"
           << "        (void)i;\n";
      };
      os << "      if (" << guard << ") {\n";
      openLoops();
      for (auto [k, arg] : llvm::enumerate(body.getArguments()))
        if (!isScalar(arg) && isDirect(arg))
          os << "        a" << k << "[u][q] = in" << k << "[i];\n";
      for (Operation *op : gathers) {
        if (invariant.lookup(op))
          continue;
        unsigned id = gatherIds.lookup(op);
        const pipec::IndexRead &read = reads.find(op)->second;
        unsigned k = read.arg.getArgNumber();
        if (!nonlinear.lookup(op)) {
          os << "        g" << id << "[u][q] = in" << k << "[b" << id
             << "[q] + c * t" << id << "];\n";
          continue;
        }
        pipec::IndexStyle element = indexStyle([&](int64_t d) {
          return d == last      ? std::string("c")
                 : d == grouped ? std::string("(I)q")
                                : "c" + std::to_string(d);
        });
        os << "        g" << id << "[u][q] = in" << k << "[b" << id
           << "[q] + "
           << pipec::printOffset(read, element, stridesOf(op),
                                 [&](int64_t s) {
                                   return read.coordinates[s].dependsOn(last);
                                 })
           << "];\n";
      }
      os << "        }\n      }\n";
      openLoops();
      elementStyle = indexStyle([&](int64_t d) {
        return d == last      ? std::string("c")
               : d == grouped ? std::string("(I)q")
                              : "c" + std::to_string(d);
      });
      emitElement(
          os, "        ",
          [](unsigned k) { return "a" + std::to_string(k) + "[u][q]"; },
          [](unsigned k, StringRef v) {
            return ("out" + std::to_string(k) + "[i] = " + v + ";").str();
          },
          [&](Operation *op) {
            unsigned id = gatherIds.lookup(op);
            return invariant.lookup(op) ? "h" + std::to_string(id) + "[q]"
                                        : "g" + std::to_string(id) + "[u][q]";
          });
      os << "        }\n      }\n      }\n";
    }
    os << "    }\n  }\n}\n\n";
  }

  /// An input read transposed: its contiguous (innermost) dim is not the
  /// domain's last dim but a dim `tileDim` of at least 32 elements (or
  /// symbolic), and it moves along the domain's last dim too. Read directly,
  /// consecutive threads would touch elements a row apart.
  Operation *findTiledInput() {
    RankedTensorType domain = kernel.getDomainType();
    int64_t rank = domain.getRank(), last = rank - 1;
    for (Operation *op : gathers) {
      const pipec::IndexRead &read = reads.find(op)->second;
      int64_t inner = read.source.getRank() - 1;
      if (inner < 1 || read.coordinates[inner].isConstant(0))
        continue;
      std::optional<int64_t> d = followedDim(read.coordinates[inner], rank);
      bool movesAlongLast =
          llvm::any_of(read.coordinates, [&](const IndexExpr &coordinate) {
            return coordinate.dependsOn(last);
          });
      if (d && *d != last && movesAlongLast &&
          (domain.isDynamicDim(*d) || domain.getDimSize(*d) >= 32)) {
        tileDim = *d;
        return op;
      }
    }
    return nullptr;
  }

  /// The one domain coordinate `coordinate` depends on, if it depends on
  /// exactly one (the dim an input's dim follows).
  static std::optional<int64_t> followedDim(const IndexExpr &coordinate,
                                            int64_t rank) {
    std::optional<int64_t> followed;
    for (int64_t d = 0; d < rank; ++d) {
      if (!coordinate.dependsOn(d))
        continue;
      if (followed)
        return std::nullopt;
      followed = d;
    }
    return followed;
  }

  /// Declares c<d> for each of `dims` (outermost first) from the index in
  /// `rest`, the last of `dims` varying fastest.
  static void emitDecode(llvm::raw_ostream &os, ArrayRef<int64_t> dims,
                         const char *indent) {
    for (int64_t k = int64_t(dims.size()) - 1; k >= 0; --k) {
      int64_t d = dims[k];
      if (k == 0)
        os << indent << "const I c" << d << " = rest;\n";
      else
        os << indent << "const I c" << d << " = rest % D" << d << "; rest /= D"
           << d << ";\n";
    }
    if (dims.empty())
      os << indent << "(void)rest;\n";
  }

  /// Each block takes 32x32 tiles over (tileDim, last dim), one batch of
  /// the other dims at a time. The transposed input's tile is read along its
  /// contiguous dim into shared memory, then each element is computed and
  /// written along the domain's last dim: both sides coalesced.
  void emitTiles(llvm::raw_ostream &os, int64_t rank) {
    int64_t last = rank - 1;
    unsigned tiledInput = reads.find(tiled)->second.arg.getArgNumber();
    std::string tileType = getCppType(tiled->getResult(0).getType());
    SmallVector<int64_t> batchDims;
    for (int64_t d = 0; d < last; ++d)
      if (d != tileDim)
        batchDims.push_back(d);
    // The offset of gathered input `op` at coordinates c0..c<rank-1>.
    pipec::IndexStyle style = indexStyle();
    auto offsetOf = [&](Operation *op) {
      return pipec::printOffset(reads.find(op)->second, style, stridesOf(op));
    };
    std::string flat = "c0";
    for (int64_t d = 1; d < rank; ++d)
      flat = "(" + flat + ") * D" + std::to_string(d) + " + c" + std::to_string(d);

    os << "  __shared__ " << tileType << " tile[32][33];\n"
       << "  const I tx = threadIdx.x, ty = threadIdx.y;\n"
       << "  const I nA = (D" << tileDim << " + 31) / 32, nL = (D" << last
       << " + 31) / 32;\n"
       << "  const I batches = D" << last << " == 0 || D" << tileDim
       << " == 0 ? 0 : (I)n / D" << last << " / D" << tileDim << ";\n"
       << "  const I tiles = batches * nA * nL;\n"
       << "  for (I t = blockIdx.x; t < tiles; t += gridDim.x) {\n"
       << "    const I tl = t % nL;\n    I rest = t / nL;\n"
       << "    const I ta = rest % nA;\n    rest /= nA;\n";
    emitDecode(os, batchDims, "    ");
    // Load: thread x walks the input's contiguous dim (domain dim tileDim).
    os << "#pragma unroll\n    for (int k = 0; k < 32; k += 8) {\n"
       << "      const I c" << tileDim << " = ta * 32 + tx;\n"
       << "      const I c" << last << " = tl * 32 + ty + k;\n"
       << "      if (c" << tileDim << " < D" << tileDim << " && c" << last
       << " < D" << last << ")\n"
       << "        tile[ty + k][tx] = in" << tiledInput << "[" << offsetOf(tiled)
       << "];\n    }\n    __syncthreads();\n";
    // Compute and store: thread x walks the domain's last dim.
    os << "#pragma unroll\n    for (int k = 0; k < 32; k += 8) {\n"
       << "      const I c" << tileDim << " = ta * 32 + ty + k;\n"
       << "      const I c" << last << " = tl * 32 + tx;\n"
       << "      if (c" << tileDim << " < D" << tileDim << " && c" << last
       << " < D" << last << ") {\n"
       << "        const I i = " << flat << ";\n";
    elementStyle = style;
    emitElement(
        os, "        ", [](unsigned k) { return "in" + std::to_string(k) + "[i]"; },
        [](unsigned k, StringRef v) {
          return ("out" + std::to_string(k) + "[i] = " + v + ";").str();
        },
        [&](Operation *op) {
          if (op == tiled)
            return std::string("tile[tx][ty + k]");
          return gatherAt(op, style);
        });
    os << "      }\n    }\n    __syncthreads();\n  }\n}\n\n";
  }

  KernelOp kernel;
  Block &body;
  /// Whether the entries take the run's guard (KernelOptions::guarded).
  bool guarded;
  /// The vector variant's groups that span rows: their elements, and how
  /// many whole rows of the last dim they are (0: not whole rows).
  int spanWidth = 1;
  int spanRows = 0;
  /// The vector variant's groups take every value of domain dim `planeDim`
  /// (-1: none), `vectorPlanes` of them.
  int64_t planeDim = -1;
  int vectorPlanes = 1;
  /// The index maps whose values the body needs per element, and what they
  /// read: `gathers` (in body order, numbered by gatherIds) read an input,
  /// the others a rank-0 value.
  llvm::DenseMap<Operation *, pipec::IndexRead> reads;
  /// The scalar ops computed once per thread, before any loop (emitHoisted).
  llvm::DenseSet<Operation *> hoisted;
  SmallVector<Operation *> gathers;
  llvm::DenseMap<Operation *, unsigned> gatherIds;
  /// Whether some map computes more than a plain coordinate (J is needed).
  bool needsSignedIndex = false;
  /// How the variant being emitted names an element's coordinates (for
  /// coordinates the body uses as values).
  pipec::IndexStyle elementStyle;
  Operation *tiled = nullptr;
  int64_t tileDim = -1;
  bool usesCoordinates = false;
  int vectorWidth = 1;
  int kGroups = tuning("PIPE_TUNE_VECTOR_GROUPS", 4);
  int kUnroll = tuning("PIPE_TUNE_ROW_UNROLL", 4);
  /// Passed after n, in name order.
  std::set<std::string> dimArgs;
  llvm::DenseMap<Value, std::string> names;
};

} // namespace

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
