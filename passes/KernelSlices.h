//===- KernelSlices.h - Taking one result's work out of a kernel -*- C++
//-*-===//
//
// The fusions around reductions and windows (pipe-fuse-reductions,
// pipe-fuse-window-prologues) move the ops of a pipe.kernel that compute
// one of its results into the op that reads it, and a kernel that reads
// the op's value into the op; these find those ops and kernels, weigh
// recomputing, and drop a result from a kernel once nothing else reads
// it.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_PASSES_KERNELSLICES_H
#define PIPE_PASSES_KERNELSLICES_H

#include "dialect/PipeDialect.h"

#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace pipe {

/// The ops of `kernel`'s body that `value` depends on, in body order.
llvm::SetVector<Operation *> sliceOf(KernelOp kernel, Value value);

/// Per element of the domain: bytes the slice's tensor inputs take to read
/// (broadcast inputs count as read once per element: an upper bound).
int64_t inputBytes(const llvm::SetVector<Operation *> &slice);

/// A pipe.kernel that can take `value`'s producer's work as an epilogue:
/// over `value`'s shape, reading it directly (through no index map: it
/// would read other threads' values), with no other input computed from
/// it (fusing would make a cycle); null if none.
KernelOp findDirectConsumer(Value value);

/// Replaces `kernel` by one without result `index` (erasing it when that
/// was its only result); the body keeps what the other results need, and
/// the kernel the inputs that still read.
void dropKernelResult(KernelOp kernel, unsigned index);

} // namespace pipe
} // namespace mlir

#endif // PIPE_PASSES_KERNELSLICES_H
