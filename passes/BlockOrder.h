//===- BlockOrder.h - Ops of a block in dependency order --------*- C++ -*-===//
//
// Fusion moves ops into kernels placed at their last op, so a user of a
// kernel's result can come before it in the block; the block is then put
// back in dependency order.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_PASSES_BLOCKORDER_H
#define PIPE_PASSES_BLOCKORDER_H

#include "mlir/IR/Block.h"

namespace mlir {
namespace pipe {

/// Reorders the ops of `block` before its terminator so that each comes
/// after the ops whose results it (or an op nested in it) uses, keeping
/// the present order where it can: of the ops ready, the earliest goes
/// first. Returns false, leaving the order as it was, when the uses form a
/// cycle. It takes time linear in the ops and their uses (up to a log);
/// mlir::sortTopologically sweeps the unplaced ops again after each
/// pass, which long unrolled pipelines made quadratic (minutes to compile).
bool sortBlockByDependencies(Block &block);

} // namespace pipe
} // namespace mlir

#endif // PIPE_PASSES_BLOCKORDER_H
