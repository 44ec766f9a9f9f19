//===- KernelEmitter.h - The elementwise family's CUDA emitter --*- C++ -*-===//
//
// Internal to families/elementwise: the class that emits one pipe.kernel's
// variants, declared here so that its halves can sit in two files:
// ElementwiseEmitter.cpp (what a kernel reads and computes per element,
// the flat and per-element variants, the entry) and ElementwiseVariants.cpp
// (the grouped variants: vector and span groups, rows, tiles). The file
// comment of ElementwiseEmitter.cpp describes the variants.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_ELEMENTWISE_KERNELEMITTER_H
#define PIPE_FAMILIES_ELEMENTWISE_KERNELEMITTER_H

#include "families/elementwise/ElementwiseEmitter.h"

#include "codegen/IndexCodegen.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace pipec::elementwise {
// An internal namespace: the emitter is written in MLIR's and the dialect's
// names, as the rest of codegen is.
using namespace mlir;
using namespace mlir::pipe;

inline std::string getCppType(Type tensorType) {
  return getCppScalarType(cast<RankedTensorType>(tensorType).getElementType());
}

inline RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

inline bool isScalar(Value value) { return tensorTypeOf(value).getRank() == 0; }

inline int64_t elementBytes(Value value) {
  return getElementBytes(value.getType());
}

/// A code-generation parameter, overridable through the environment for
/// benchmarking (bench/run.sh sweeps them); not a user setting.
inline int tuning(const char *name, int fallback) {
  const char *value = std::getenv(name);
  int parsed = value ? std::atoi(value) : 0;
  return parsed > 0 && parsed <= 16 ? parsed : fallback;
}

/// A code-generation choice switched by the environment for benchmarking
/// ("0" off, "1" on); not a user setting.
inline bool tuningSwitch(const char *name, bool fallback) {
  const char *value = std::getenv(name);
  if (!value || (std::string(value) != "0" && std::string(value) != "1"))
    return fallback;
  return value[0] == '1';
}

/// A closed interval of integer values (IndexNarrowing.cpp).
struct ValueRange {
  int64_t lo, hi;
};

/// The entries a kernel is emitted as (the runtime picks one per launch:
/// ElementwiseParams.h).
enum class Variant {
  FlatVector,
  FlatScalar,
  Vector32,
  Span32,
  /// Span32 with each warp's groups stored through shared memory
  /// (pipe_store_warp), emitted where a result's group passes 16 bytes
  /// and the inputs are read in row order (ElementwiseEmitter.cpp).
  Span32Staged,
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

  LogicalResult emit(llvm::raw_ostream &os, pipec::ElementwiseInfo &info);

private:
  static bool isDirect(BlockArgument arg) { return pipec::isReadDirectly(arg); }

  /// The symbolic dims the kernel needs: with coordinates, the domain's,
  /// those of inputs read through index maps and those the maps use; and
  /// always those used as values (pipe.dim, `W - 1`).
  void collectDimArgs();

  /// How index expressions print in this kernel's coordinate variants:
  /// coordinates `c<d>` (or what `coordinate` says), offsets in I, signed
  /// arithmetic in J.
  pipec::IndexStyle indexStyle(
      std::function<std::string(int64_t)> coordinate = nullptr);

  /// The named strides of gathered input `op` (s<id>_<dim>).
  pipec::StrideNames stridesOf(Operation *op);

  /// The element of gathered input `op` at the coordinates `style` prints.
  std::string gatherAt(Operation *op, const pipec::IndexStyle &style);

  /// The flat index, in the domain's first `rank` dims, of coordinates
  /// c<d> with dim `skipped` left out (taken as 0; -1: none); "" if no dim
  /// is left.
  static std::string flatIndex(int64_t rank, int64_t skipped);

  /// A small static dim of the domain (2 to 8 values) that is some
  /// gathered input's innermost, contiguous dim, like the channels of an HWC
  /// image read into CHW planes; -1 if none.
  int64_t findPlaneDim();

  /// Whether some gathered input's map computes its coordinates from
  /// parameters, bounds or choices (a crop's anchors, a flip's flags, a
  /// border rule) rather than from coordinates and dims alone.
  bool hasComputedMaps();

  /// The size of dim `i` of `type` as an expression of type `I`.
  std::string dimExpr(RankedTensorType type, int64_t i) {
    if (type.isDynamicDim(i))
      return "(I)" + getDimCExpression(getDimNames(type)[i]);
    return "(I)" + std::to_string(type.getDimSize(i));
  }

  void emitSignature(llvm::raw_ostream &os, const std::string &name,
                     const char *launchBounds = "256");

  /// The body's computation of one element. `load(k)` is the expression of
  /// input k's element; `store(k, v)` the statement that stores result k.
  void emitElement(llvm::raw_ostream &os, const std::string &indent,
                   llvm::function_ref<std::string(unsigned)> load,
                   llvm::function_ref<std::string(unsigned, StringRef)> store,
                   llvm::function_ref<std::string(Operation *)> gather);

  /// Rank-0 inputs and scalar computations, once per thread.
  void emitHoisted(llvm::raw_ostream &os);

  // 64-bit integers computed in 32 bits (IndexNarrowing.cpp).
  /// The ranges of the body's values, for the variant being emitted (once
  /// per variant: emitVariant).
  void computeRanges();
  std::optional<ValueRange> computeRange(Operation &op);
  std::optional<ValueRange> rangeOf(Value value);
  /// Whether `op`'s si64 result is computed and declared as pipe_i32.
  bool narrowsResult(Operation &op);
  /// Whether comparison `op` compares its narrowed operands in 32 bits.
  bool comparesNarrow(Operation &op);
  /// `operand`'s name as its user takes it: si64 operands as pipe_i32
  /// where `narrowOp`, else narrowed ones back as pipe_i64.
  std::string operandAs(Value operand, bool narrowOp);

  std::string nameOf(Value value) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    std::string name = "v" + std::to_string(names.size());
    names[value] = name;
    return name;
  }

  void emitVariant(llvm::raw_ostream &os, const std::string &name,
                   Variant variant);

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
  /// first with carries; the elements after the last whole group are taken
  /// one by one (emitSpanTail). A separate entry, not a branch of the
  /// vector one: with both in one kernel, erase of f32[64,2,1024,1024]
  /// took 0.404 ms against 0.363 on the H100.
  void emitVector(llvm::raw_ostream &os, int64_t rank, bool span);
  /// The span entry's elements after its whole groups of `v`: one a thread
  /// (`loop` false), or a grid-stride loop.
  void emitSpanTail(llvm::raw_ostream &os, int64_t rank, int v, bool loop);

  /// Whether span groups load gathered input `read`'s rows as runs
  /// (emitRunLoad): each row's elements come from one row of the input
  /// (its last coordinate a function of the domain's last alone, its others
  /// independent of it), shorter than the domain's (a concat's parts), or
  /// as long and read in order or checked by their ends (a pad).
  bool takesRunLoads(const pipec::IndexRead &read, int64_t lastSize);

  /// Whether a group's rows of gathered input `read` are a run exactly
  /// when they lie in one row of the domain (the dim before the last) and
  /// the last begins rows - 1 rows after the first: its row coordinate
  /// steps by at most one along that dim (a pad's clamp, a crop's
  /// anchor) and none of its others moves in a row of the domain.
  bool checksRunByEnds(const pipec::IndexRead &read);

  /// Whether gathered input `read` has the domain's dims before the last
  /// and reads them at the domain's own coordinates (a concat's parts), so
  /// that a group's rows are one run at an offset of the group's index.
  bool readsRowsInOrder(const pipec::IndexRead &read);

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
                   const std::function<std::string(int64_t)> &coordinate);

  /// Whether every span group of whole rows (spanRows) lies in one row of
  /// the domain's dim before the last: that dim's size is a known
  /// multiple of spanRows (a 224-pixel crop, a pad to 32 * ceil(W / 32)),
  /// so no coordinate carries within a group.
  bool groupsStayInRow();

  /// The groups of emitVector, one a thread; with `carry`, a group may span
  /// rows.
  void emitVectorGroups(llvm::raw_ostream &os, int64_t rank, bool carry);

  /// Each block takes whole rows (all dims but the last): it computes the
  /// row's coordinates and each input's row offset once, then its threads
  /// walk the row, so the inner loop is coalesced and its index arithmetic
  /// is one multiply-add per input.
  void emitRows(llvm::raw_ostream &os, int64_t rank);

  /// An input read transposed: its contiguous (innermost) dim is not the
  /// domain's last dim but a dim `tileDim` of at least 32 elements (or
  /// symbolic), and it moves along the domain's last dim too. Read directly,
  /// consecutive threads would touch elements a row apart.
  Operation *findTiledInput();

  /// The one domain coordinate `coordinate` depends on, if it depends on
  /// exactly one (the dim an input's dim follows).
  static std::optional<int64_t> followedDim(const IndexExpr &coordinate,
                                            int64_t rank);

  /// Declares c<d> for each of `dims` (outermost first) from the index in
  /// `rest`, the last of `dims` varying fastest.
  void emitDecode(llvm::raw_ostream &os, ArrayRef<int64_t> dims,
                         const char *indent);

  /// Each block takes 32x32 tiles over (tileDim, last dim), one batch of
  /// the other dims at a time. The transposed input's tile is read along its
  /// contiguous dim into shared memory, then each element is computed and
  /// written along the domain's last dim: both sides coalesced.
  void emitTiles(llvm::raw_ostream &os, int64_t rank);

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
  /// Whether the variant being emitted has 32-bit indices (every coordinate
  /// and dim below 2^31), so that si64 values may narrow; off with
  /// PIPE_TUNE_NARROW_INDICES=0, for sweeps.
  bool narrowIndices = false;
  /// Whether the variant being emitted decodes coordinates with the
  /// launch's divisors (32-bit indices; PIPE_TUNE_FAST_DIVISION=0 turns it
  /// off, for sweeps).
  bool fastDivision = false;
  /// Whether the variant being emitted stores whole warps' span groups
  /// through shared memory (Variant::Span32Staged).
  bool stagedStores = false;
  llvm::DenseMap<Value, std::optional<ValueRange>> ranges;
  /// The values of the element being emitted declared as pipe_i32 (reset
  /// by each emitElement: each declares them in its own scope).
  llvm::DenseSet<Value> narrowed;
  /// Passed after n, in name order.
  std::set<std::string> dimArgs;
  llvm::DenseMap<Value, std::string> names;
};

} // namespace pipec::elementwise

#endif // PIPE_FAMILIES_ELEMENTWISE_KERNELEMITTER_H
