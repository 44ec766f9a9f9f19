//===- ElementwiseVariants.cpp - Grouped variants of elementwise kernels -===//
//
// The variants of an indexed elementwise kernel that give each thread or
// block a group of elements (ElementwiseEmitter.cpp's file comment lists
// them all): vector groups of a row's consecutive elements (and span groups
// across short rows), whole rows per block, and 32x32 tiles through shared
// memory for inputs read transposed. Each computes the group's coordinates
// once and the elements' offsets from them.
//
//===----------------------------------------------------------------------===//

#include "families/elementwise/KernelEmitter.h"

#include "dialect/DimChecks.h"

#include <algorithm>
#include <numeric>

namespace pipec::elementwise {

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
void KernelEmitter::emitVector(llvm::raw_ostream &os, int64_t rank, bool span) {
  const int v = span ? spanWidth : vectorWidth;
  os << "  const I groups = (I)n / "
     << (span ? v : v * vectorPlanes) << ";\n";
  // The span entry's elements after its last whole group: fewer than a
  // group, so one a thread (the launcher's grid has at least a block of
  // 256 threads). Taken before the groups: after them, what ptxas kept
  // live for them across the groups cost registers. Pad32's span entry
  // took 44 (5 blocks an SM) against 40 (6), and ran at 87.2% of the copy
  // bandwidth against 90.5% on an H200; color_jitter's kernels, whose
  // registers did not change, lost 2% (bench/NOTES.md).
  // PIPE_TUNE_SPAN_TAIL_FIRST=0 puts a grid-stride loop after the groups,
  // for measurements.
  assert((!span || v < 256) && "a span group must be fewer elements than a "
                                "block has threads");
  const bool tailFirst =
      span && tuningSwitch("PIPE_TUNE_SPAN_TAIL_FIRST", true);
  if (tailFirst)
    emitSpanTail(os, rank, v, /*loop=*/false);
  emitVectorGroups(os, rank, /*carry=*/span);
  if (span && !tailFirst)
    emitSpanTail(os, rank, v, /*loop=*/true);
  os << "}\n\n";
}

void KernelEmitter::emitSpanTail(llvm::raw_ostream &os, int64_t rank, int v,
                                 bool loop) {
  if (loop)
    os << "  for (I i = groups * " << v
       << " + first; i < (I)n; i += stride) {\n";
  else
    os << "  if (const I i = groups * " << v << " + first; i < (I)n) {\n";
  os << "    I rest = i;\n";
  SmallVector<int64_t> allDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  emitDecode(os, allDims, "    ");
  pipec::IndexStyle style = indexStyle();
  elementStyle = style;
  emitElement(
      os, "    ", [](unsigned k) { return "in" + std::to_string(k) + "[i]"; },
      [](unsigned k, StringRef value) {
        return ("out" + std::to_string(k) + "[i] = " + value + ";").str();
      },
      [&](Operation *op) { return gatherAt(op, style); });
  os << "  }\n";
}

/// Whether span groups load gathered input `read`'s rows as runs
/// (emitRunLoad): each row's elements come from one row of the input
/// (its last coordinate a function of the domain's last alone, its others
/// independent of it), shorter than the domain's (a concat's parts), or
/// as long and either read in the domain's order (a channel of a pixel,
/// picked for each of its channels: color_twist), whose runs need no
/// check, or checked by their ends (a pad's clamps, a crop's anchors).
/// Those last had measured slower than the elements' own loads until the
/// run's alignment stopped taking the input's address (which cost every
/// load of it the read-only cache) and the rows between the ends were
/// found only where the run does not load: the pad of u8[64,1000,1000,3]
/// to 1024 then took 0.1347 ms against 0.1403 with byte loads on the
/// H100 (97% of the copy bandwidth against 93%). PIPE_TUNE_PAD_RUNS=0
/// takes the byte loads there, for sweeps.
bool KernelEmitter::takesRunLoads(const pipec::IndexRead &read, int64_t lastSize) {
  const int64_t last = kernel.getDomainType().getRank() - 1;
  int64_t srank = read.source.getRank();
  if (srank == 0 || read.source.isDynamicDim(srank - 1))
    return false;
  // Rows longer than the domain's (a slice of the channels) would load
  // bytes the group does not use.
  const int64_t sourceRow = read.source.getDimSize(srank - 1);
  if (sourceRow > lastSize ||
      (sourceRow == lastSize && !readsRowsInOrder(read) &&
       !(tuningSwitch("PIPE_TUNE_PAD_RUNS", true) && checksRunByEnds(read))))
    return false;
  for (int64_t d = 0; d < last; ++d)
    if (read.coordinates[srank - 1].dependsOn(d))
      return false;
  for (int64_t s = 0; s + 1 < srank; ++s)
    if (read.coordinates[s].dependsOn(last))
      return false;
  return true;
}

/// Whether `expr`, as domain coordinate `d` steps on by one, stays or
/// steps on by one: `d` itself, or it plus, or the least or greatest of
/// it and, terms that do not depend on `d` (a pad's clamp, a crop's
/// anchor).
static bool stepsByAtMostOne(const IndexExpr &expr, int64_t d) {
  if (!expr.dependsOn(d))
    return true;
  switch (expr.getKind()) {
  case IndexExpr::Kind::Coordinate:
    return expr.getIndex() == d;
  case IndexExpr::Kind::Add: {
    // One term moves; a second would add its steps.
    int moving = 0;
    for (const IndexExpr &term : expr.getOperands())
      if (term.dependsOn(d) && (++moving > 1 || !stepsByAtMostOne(term, d)))
        return false;
    return true;
  }
  case IndexExpr::Kind::Min:
  case IndexExpr::Kind::Max:
    // The least or greatest of such steps is one of them.
    return llvm::all_of(expr.getOperands(), [&](const IndexExpr &operand) {
      return stepsByAtMostOne(operand, d);
    });
  default:
    return false;
  }
}

bool KernelEmitter::checksRunByEnds(const pipec::IndexRead &read) {
  const int64_t rank = kernel.getDomainType().getRank();
  const int64_t srank = read.source.getRank();
  if (rank < 2 || srank < 2)
    return false;
  const int64_t pixel = rank - 2, last = rank - 1;
  if (read.coordinates[srank - 2].dependsOn(last) ||
      !stepsByAtMostOne(read.coordinates[srank - 2], pixel))
    return false;
  for (int64_t s = 0; s + 2 < srank; ++s)
    if (read.coordinates[s].dependsOn(pixel) ||
        read.coordinates[s].dependsOn(last))
      return false;
  return true;
}

/// Whether gathered input `read` has the domain's dims before the last
/// and reads them at the domain's own coordinates (a concat's parts):
/// then its rows, which are contiguous, follow the domain's rows one for
/// one, and the rows of a group (spanRows) start at the group's index
/// times the input's row length.
bool KernelEmitter::readsRowsInOrder(const pipec::IndexRead &read) {
  RankedTensorType domain = kernel.getDomainType();
  const int64_t rank = domain.getRank();
  if (read.source.getRank() != rank)
    return false;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    const IndexExpr &coordinate = read.coordinates[d];
    if (coordinate.getKind() != IndexExpr::Kind::Coordinate ||
        coordinate.getIndex() != d ||
        dimExpr(read.source, d) != dimExpr(domain, d))
      return false;
  }
  return true;
}

/// The widest load (16, 8 or 4 bytes) that divides a run of `bytes`; 0
/// for none.
static int widestChunk(int64_t bytes) {
  for (int chunk : {16, 8, 4})
    if (bytes % chunk == 0)
      return chunk;
  return 0;
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
bool KernelEmitter::emitRunLoad(llvm::raw_ostream &os, Operation *op, unsigned id,
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
  // An empty source row (a dim of 0: the domain is empty too) has no run.
  if (runElements <= 0 || runElements > 128)
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
  std::string within = pipec::printOffset(
      read, element, stridesOf(op), [&](int64_t s) { return s + 1 == srank; });
  std::string pick = g + "[j] = w[(j / " + std::to_string(lastSize) +
                     ") * " + std::to_string(sourceRow) + " + " + within +
                     "];";
  // The run from offset `start`, in `chunk`-byte loads, and each element
  // picked from it.
  auto emitChunks = [&](int chunk, const char *indent,
                        const std::string &start) {
    os << indent << "alignas(16) " << type << " w[" << runElements << "];\n"
       << indent << "pipe_load_chunks<" << chunk << ">(w, in" << k << " + "
       << start << ");\n#pragma unroll\n"
       << indent << "for (int j = 0; j < " << v << "; ++j)\n"
       << indent << "  " << pick << "\n";
  };
  // Rows read in the domain's order (a concat's parts) are one run in
  // every group, from the group's index. The span variant runs on 16-byte
  // aligned arrays (the launcher), so the run is aligned to the widest
  // chunk that divides its bytes: loaded with no check and no branch,
  // whose other side (bytes one by one) kept the bytes apart in registers
  // (two instructions a byte to put them back together).
  const int chunk = widestChunk(runBytes);
  if (chunk && readsRowsInOrder(read)) {
    os << "    {\n";
    emitChunks(chunk, "      ", "g * (I)" + std::to_string(rows * sourceRow));
    os << "    }\n";
    return true;
  }
  std::string base = pipec::printOffset(
      read, rowStyle, stridesOf(op), [&](int64_t s) { return s + 1 < srank; });
  // Row p's offset; with the run checked by its ends, the rows between
  // are found only where the elements load alone (fewer live registers
  // where the run loads).
  const bool byEnds = checksRunByEnds(read);
  auto emitOffsets = [&](const char *indent, int from, int to, int step) {
    os << "#pragma unroll\n"
       << indent << "for (int p = " << from << "; p < " << to
       << "; p += " << step << ")\n"
       << indent << "  " << b << "[p] = " << base << ";\n";
  };
  os << "    {\n      I " << b << "[" << rows << "];\n";
  if (byEnds && rows > 1)
    emitOffsets("      ", 0, rows, rows - 1);
  else
    emitOffsets("      ", 0, rows, 1);
  if (byEnds) {
    // Within a row of the domain, rows that each step on by at most one
    // are a run exactly when the last is rows - 1 on from the first.
    const int64_t pixel = kernel.getDomainType().getRank() - 2;
    os << "      const bool run = ";
    if (!groupsStayInRow())
      os << "q" << pixel << "[0] + (I)" << rows << " <= D" << pixel << " && ";
    os << b << "[" << rows - 1 << "] == " << b << "[0] + (I)"
       << (rows - 1) * sourceRow << ";\n";
  } else {
    os << "      bool run = true;\n"
       << "#pragma unroll\n      for (int p = 1; p < " << rows << "; ++p)\n"
       << "        run &= " << b << "[p] == " << b << "[0] + (I)(p * "
       << sourceRow << ");\n";
  }
  // The run's byte offset from the array's start, which is 16-byte
  // aligned (the launcher takes the span variant only then): its
  // alignment is the offset's. Taking the pointer's own address instead
  // (a ptrtoint) captured it, so NVVM no longer knew the input read-only
  // and every load of it lost the read-only cache (ld.global.nc): that
  // made run loads measure slower than byte loads for pads.
  // One width of chunks, the widest that divides the run: each branch
  // holds the group's elements in registers of its own.
  os << "      const I at = " << b << "[0] * (I)" << elementBytes << ";\n";
  if (chunk) {
    os << "      if (run && at % " << chunk << " == 0) {\n";
    emitChunks(chunk, "        ", b + "[0]");
    os << "      } else {\n";
  } else {
    os << "      {\n";
  }
  if (byEnds && rows > 2)
    emitOffsets("        ", 1, rows - 1, 1);
  os << "#pragma unroll\n        for (int j = 0; j < " << v << "; ++j)\n"
     << "          " << g << "[j] = in" << k << "[" << b << "[j / "
     << lastSize << "] + " << within << "];\n      }\n    }\n";
  return true;
}

bool KernelEmitter::groupsStayInRow() {
  RankedTensorType domain = kernel.getDomainType();
  const int64_t rank = domain.getRank();
  // PIPE_TUNE_ROW_GROUPS=0 carries the coordinates anyway, for sweeps.
  if (spanRows <= 0 || rank < 2 ||
      !tuningSwitch("PIPE_TUNE_ROW_GROUPS", true))
    return false;
  const int64_t pixel = rank - 2;
  if (!domain.isDynamicDim(pixel))
    return domain.getDimSize(pixel) % spanRows == 0;
  const int64_t factor = mlir::pipe::getDimSize(domain, pixel).knownFactor();
  return factor > 0 && factor % spanRows == 0;
}

/// The groups of emitVector, one a thread; with `carry`, a group may span
/// rows.
void KernelEmitter::emitVectorGroups(llvm::raw_ostream &os, int64_t rank, bool carry) {
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
  // One group a thread: the launcher's grid covers every group. A
  // grid-stride loop here kept its invariants live across iterations that
  // never come: the pad's span entry took 60 registers (4 blocks an SM)
  // against 44 without it, and with the changes below 34; 0.1471 ->
  // 0.1344 ms on the H100 (bench/micro/layout_shapes.py).
  os << "  if (first < groups) {\n"
     << "    const I g = first;\n";
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
  } else if (rows) {
    // A group of whole rows starts a row: its last coordinate is 0 and
    // its row index spanRows times its own (no division by the last dim).
    os << "    const I i0 = g * " << v << ";\n"
       << "    I rest = g * " << spanRows << ";\n"
       << "    const I c" << last << " = 0;\n";
    SmallVector<int64_t> rowDims =
        llvm::to_vector(llvm::seq<int64_t>(0, last));
    emitDecode(os, rowDims, "    ");
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
    if (rows && groupsStayInRow()) {
      // The group's first row is at a multiple of spanRows along that
      // dim, so its last is in the same row of the dims before.
      os << "#pragma unroll\n    for (int j = 0; j < " << steps
         << "; ++j) {\n";
      for (int64_t d = 0; d < carried; ++d)
        os << "      q" << d << "[j] = c" << d << ";\n";
      os << "      q" << carried << "[j] = c" << carried << " + (I)j;\n"
         << "    }\n";
    } else {
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
  // The staged entry's whole warps (every thread in range; blocks are
  // whole warps) store their groups through shared memory.
  if (stagedStores)
    os << "    const bool whole_warp = (first | 31u) < groups;\n";
  for (auto [k, result] : llvm::enumerate(kernel.getResults())) {
    std::string args =
        "(out" + std::to_string(k) + " + i0, r" + std::to_string(k) + ");\n";
    if (stagedStores && v * elementBytes(result) > 16)
      os << "    if (whole_warp)\n      pipe_store_warp" << args
         << "    else\n      pipe_store_vec" << args;
    else
      os << "    pipe_store_vec" << args;
  }
  if (planes)
    os << "    }\n";
  os << "  }\n";
}

/// Each block takes whole rows (all dims but the last): it computes the
/// row's coordinates and each input's row offset once, then its threads
/// walk the row, so the inner loop is coalesced and its index arithmetic
/// is one multiply-add per input.
void KernelEmitter::emitRows(llvm::raw_ostream &os, int64_t rank) {
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
Operation *KernelEmitter::findTiledInput() {
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
std::optional<int64_t> KernelEmitter::followedDim(const IndexExpr &coordinate,
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
void KernelEmitter::emitDecode(llvm::raw_ostream &os, ArrayRef<int64_t> dims,
                       const char *indent) {
  RankedTensorType domain = kernel.getDomainType();
  for (int64_t k = int64_t(dims.size()) - 1; k >= 0; --k) {
    int64_t d = dims[k];
    if (k == 0) {
      os << indent << "const I c" << d << " = rest;\n";
    } else if (fastDivision && domain.isDynamicDim(d)) {
      // A static dim's division the compiler makes a multiply itself.
      os << indent << "const I quot" << d
         << " = pipe_fast_div(rest, dim_divisors.mul[" << d
         << "], dim_divisors.shift[" << d << "]);\n"
         << indent << "const I c" << d << " = rest - quot" << d << " * D" << d
         << "; rest = quot" << d << ";\n";
    } else {
      os << indent << "const I c" << d << " = rest % D" << d << "; rest /= D"
         << d << ";\n";
    }
  }
  if (dims.empty())
    os << indent << "(void)rest;\n";
}

/// Each block takes 32x32 tiles over (tileDim, last dim), one batch of
/// the other dims at a time. The transposed input's tile is read along its
/// contiguous dim into shared memory, then each element is computed and
/// written along the domain's last dim: both sides coalesced.
void KernelEmitter::emitTiles(llvm::raw_ostream &os, int64_t rank) {
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

} // namespace pipec::elementwise
