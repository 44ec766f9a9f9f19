//===- KernelSlices.h - Taking one result's work out of a kernel -*- C++
//-*-===//
//
// The prologue fusions (pipe-fuse-reductions, pipe-fuse-window-prologues)
// move the ops of a pipe.kernel that compute one of its results into the
// op that reads it; these find those ops, weigh recomputing them, and drop
// the result from the kernel once nothing else reads it.
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

/// Replaces `kernel` by one without result `index` (erasing it when that
/// was its only result); the body keeps what the other results need, and
/// the kernel the inputs that still read.
void dropKernelResult(KernelOp kernel, unsigned index);

} // namespace pipe
} // namespace mlir

#endif // PIPE_PASSES_KERNELSLICES_H
