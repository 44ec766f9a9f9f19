//===- CudaEmitter.h - pipe.kernel ops to CUDA C++ --------------*- C++ -*-===//

#ifndef PIPE_CODEGEN_CUDAEMITTER_H
#define PIPE_CODEGEN_CUDAEMITTER_H

#include "dialect/PipeDialect.h"

#include <string>

namespace pipec {

/// The scalar semantics that every generated kernel starts with
/// (codegen/PipeScalar.h, verbatim).
const char *getCudaPrelude();

/// The CUDA C++ source of one kernel, prelude included. Its signature is the
/// one pipert::PlanKernel documents: input pointers, output pointers, then
/// the element count. Fails (with a diagnostic at the op) on an op that has
/// no scalar expression.
mlir::FailureOr<std::string> emitCudaKernel(mlir::pipe::KernelOp kernel,
                                            bool withPrelude = true);

} // namespace pipec

#endif // PIPE_CODEGEN_CUDAEMITTER_H
