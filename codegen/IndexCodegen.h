//===- IndexCodegen.h - Index maps in generated kernels ---------*- C++ -*-===//
//
// A fused kernel reads some inputs through chains of index maps (a
// broadcast, a transpose, a crop, a flip, ...; IndexMapOpInterface). The
// emitters of the elementwise and reduction families ask this file what a
// chain reads (resolveIndexMaps: which input, at which coordinates over the
// kernel's domain) and how to print it (printIndex, printOffset), in the
// index types and with the coordinate names of the variant they emit; and
// emit the fused blocks (a reduction's prologue and epilogue, a resample's
// epilogue) an element at a time, with 64-bit coordinates c<d>.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CODEGEN_INDEXCODEGEN_H
#define PIPE_CODEGEN_INDEXCODEGEN_H

#include "dialect/IndexExpr.h"
#include "dialect/PipeDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>
#include <string>

namespace pipec {

// What a chain of index maps reads (dialect/IndexExpr.h), as codegen has
// always named it.
using mlir::pipe::IndexRead;
using mlir::pipe::resolveIndexMaps;

/// Whether `op` is an index map whose value the kernel needs per element
/// (some user is not an index map): such an op is a gathered input. Maps
/// that only feed other maps are part of their chain.
bool isGatheredValue(mlir::Operation *op);

/// Whether `arg` is read at the element's own index by some op of the body
/// (not only through index maps).
bool isReadDirectly(mlir::BlockArgument arg);

/// How index expressions print in one variant of a kernel.
struct IndexStyle {
  /// The signed type index arithmetic is done in ("J", "long long").
  std::string signedType;
  /// The unsigned (or plain) type offsets are in ("I", "long long").
  std::string offsetType;
  /// A domain coordinate, as an expression of the offset type.
  std::function<std::string(int64_t)> coordinate;
  /// A dim's size (a dim name or a dim expression), as an expression.
  std::function<std::string(llvm::StringRef)> dim;
  /// A rank-0 value of the body, as the variable that holds it.
  std::function<std::string(mlir::Value)> scalar;
  /// Input `arg`'s element at `offset`.
  std::function<std::string(mlir::BlockArgument arg, const std::string &)> load;
  /// Input `arg`'s stride along its dim `s`, where an offset is printed
  /// without strides of its own (a per-sample parameter's).
  std::function<std::string(mlir::BlockArgument arg, int64_t s)> stride;
};

/// An input's stride along its dim `s`, by name.
using StrideNames = std::function<std::string(int64_t s)>;

/// `expr` as an expression of the style's signed type.
std::string printIndex(const mlir::pipe::IndexExpr &expr,
                       const IndexStyle &style);

/// The offset of `read`'s element: the sum over the input's dims of its
/// coordinate times its stride, dims whose coordinate is 0 left out, "0"
/// when all are; in the offset type. With `only`, just the dims `only`
/// accepts.
std::string printOffset(const IndexRead &read, const IndexStyle &style,
                        const StrideNames &strides,
                        std::function<bool(int64_t)> only = nullptr);

/// The offset's step along domain coordinate `d`, when every coordinate of
/// `read` is linear in it: the sum of each dim's step times its stride (""
/// when it does not move); nothing when some coordinate is not linear.
std::optional<std::string> printStep(const IndexRead &read, int64_t d,
                                     const IndexStyle &style,
                                     const StrideNames &strides);

/// `read` with domain coordinate `d` replaced by `by`.
IndexRead substitute(const IndexRead &read, int64_t d,
                     mlir::pipe::IndexExpr by);

/// The symbolic dims (names, and the names in dim expressions) that
/// printing `read` and the index maps of `block` needs.
void collectIndexDims(mlir::Block &block, std::set<std::string> &dims);
/// Into `dims`: the symbols of the dims `block` uses as values (pipe.dim),
/// which every kernel needs, with coordinates or without, and the run's
/// seed and random run number where it draws random numbers (pipe.random).
void collectDimValueSymbols(mlir::Block &block, std::set<std::string> &dims);

/// The size of `type`'s dim `i` as a 64-bit C expression (a literal, or
/// of the kernels' `d_<name>` arguments).
std::string printDimSize(mlir::RankedTensorType type, int64_t i);

/// Emits the ops of fused block `block` (a reduction's prologue or
/// epilogue, a resample's epilogue) for one element whose coordinates are
/// c<d>, each value a `const` of its own; argument k after the `skip`
/// leading ones (named lead<j>) is read by `load(k)` where the block reads
/// it directly, an index map the block uses by `gather(op, names)`.
/// Returns the names of the yielded values.
llvm::SmallVector<std::string> emitFusedBlock(
    llvm::raw_ostream &os, mlir::Block &block, const std::string &indent,
    unsigned skip, llvm::function_ref<std::string(unsigned)> load,
    llvm::function_ref<std::string(
        mlir::Operation *, const llvm::DenseMap<mlir::Value, std::string> &)>
        gather);

/// `<prefix><k>[offset]`: the input that the index maps of `map` read
/// (block argument k after `skip`), at coordinates c<d>, in 64 bits; a
/// rank-0 value or a coordinate as itself.
std::string printGatherAt(mlir::Operation *map, const std::string &prefix,
                          const llvm::DenseMap<mlir::Value, std::string> &names,
                          unsigned skip = 0);

/// The element that the index maps of `map` read, in `style` (its
/// coordinates, dims, scalars and loads; strides from the dims in its
/// offset type).
std::string printGatherWith(mlir::Operation *map, const IndexStyle &style);

} // namespace pipec

#endif // PIPE_CODEGEN_INDEXCODEGEN_H
