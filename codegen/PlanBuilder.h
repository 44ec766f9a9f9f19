//===- PlanBuilder.h - Fused pipe IR to a runtime plan ----------*- C++ -*-===//
//
// Turns a pipeline whose elementwise work has been fused into pipe.kernel
// ops into the runtime's Plan: its buffers, and its kernels as CUDA source.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CODEGEN_PLANBUILDER_H
#define PIPE_CODEGEN_PLANBUILDER_H

#include "dialect/PipeDialect.h"
#include "runtime/Plan.h"
#include "runtime/Status.h"

namespace pipec {

/// The runtime dtype of a pipe element type.
pipert::DType getRuntimeDType(mlir::Type elementType);

/// The runtime's description of a tensor of `type` named `name`.
pipert::PlanBuffer getPlanBuffer(mlir::RankedTensorType type,
                                 llvm::StringRef name);

/// The bytes of a list constant, each element converted to its dtype exactly
/// as a scalar constant is in a kernel.
std::string getConstantBytes(mlir::DenseElementsAttr value);

/// The name in generated code of the pipe_reduce_kind (core/PipeReduce.h)
/// of a reduction kind: PIPE_SUM, ...
std::string getReductionKindName(mlir::pipe::ReductionKind kind);

/// The conditions on the dims that `pipeline`'s ops need and the compiler
/// could not prove (their `dim_checks`: a slice's bounds, a pad's widths
/// when the dims decide them), with the message each gives.
std::vector<pipert::PlanDimCheck>
collectDimChecks(mlir::pipe::PipelineOp pipeline);

/// The plan of `pipeline`, or failure (with diagnostics at the ops) when an
/// op no kernel family compiles is left. Each kernel's source starts with
/// the prelude unless `withPrelude` is false (pipec --emit=cuda prints it
/// once).
mlir::FailureOr<pipert::Plan> buildPlan(mlir::pipe::PipelineOp pipeline,
                                        bool withPrelude = true);

/// Compiles each kernel of `plan` with NVRTC for `arch` and stores the cubin
/// and PTX in it, as an ahead-of-time artifact carries them.
pipert::Status addKernelImages(pipert::Plan &plan, int arch);

} // namespace pipec

#endif // PIPE_CODEGEN_PLANBUILDER_H
