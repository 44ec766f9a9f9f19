//===- CudaEmitter.h - pipe.kernel ops to CUDA C++ --------------*- C++ -*-===//

#ifndef PIPE_CODEGEN_CUDAEMITTER_H
#define PIPE_CODEGEN_CUDAEMITTER_H

#include "dialect/PipeDialect.h"

#include <string>

namespace pipec {

/// What every generated kernel starts with: the scalar semantics
/// (core/PipeScalar.h) and the device helpers (codegen/PipeKernel.cuh);
/// for reductions and stencils also core/PipeReduce.h, PipeStencil.h and
/// PipeBlur.cuh.
std::string getCudaPrelude(bool withStencils = false);

/// How the runtime launches an emitted kernel (see pipert::PlanKernel).
struct KernelInfo {
  std::string entry;
  std::string fallbackEntry;
  std::string rowEntry;
  std::string tileEntry;
  std::string vectorEntry;
  int vectorWidth = 1;
  int elementsPerThread = 1;
  int tileDim = -1;
  /// Whether elements are indexed through coordinates (else flat).
  bool coordinates = false;
  std::vector<std::string> dimArgs;
  /// The entries of a reduction or a blur (see pipert::PlanKernel).
  std::vector<std::string> entries;
};

/// The CUDA C++ source of one kernel's variants, prelude included unless
/// asked not to, and how to launch them. Fails (with a diagnostic at the
/// op) on an op that has no CUDA lowering.
mlir::FailureOr<std::string> emitCudaKernel(mlir::pipe::KernelOp kernel,
                                            KernelInfo &info,
                                            bool withPrelude = true);

/// The CUDA C++ source of a fused reduction: entries `<name>_inner`,
/// `_rows`, `_outer` and `_final` (see ReductionEmitter.cpp).
mlir::FailureOr<std::string> emitCudaReduction(mlir::pipe::ReduceKernelOp op,
                                               KernelInfo &info,
                                               bool withPrelude = true);

/// The CUDA C++ source of a blur: `<name>_prepare`, then one entry per axis,
/// the last axis first (see BlurEmitter.cpp).
mlir::FailureOr<std::string> emitCudaBlur(mlir::pipe::GaussianBlurOp op,
                                          const std::string &name,
                                          KernelInfo &info,
                                          bool withPrelude = true);

} // namespace pipec

#endif // PIPE_CODEGEN_CUDAEMITTER_H
