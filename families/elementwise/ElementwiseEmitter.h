//===- ElementwiseEmitter.h - pipe.kernel ops to CUDA C++ -------*- C++ -*-===//

#ifndef PIPE_FAMILIES_ELEMENTWISE_ELEMENTWISEEMITTER_H
#define PIPE_FAMILIES_ELEMENTWISE_ELEMENTWISEEMITTER_H

#include "dialect/PipeDialect.h"

#include <string>
#include <vector>

namespace pipec {

/// What the emitter decided that the launcher needs (ElementwiseParams.h):
/// the entries of the variants it emitted ("" for one it did not).
struct ElementwiseInfo {
  std::string entry;
  std::string fallbackEntry;
  std::string rowEntry;
  std::string tileEntry;
  std::string vectorEntry;
  std::string spanEntry;
  /// The span entry with warps' groups stored through shared memory (""
  /// unless a result's group passes 16 bytes and every gathered input is
  /// read in the result's row order: ElementwiseEmitter.cpp).
  std::string spanStagedEntry;
  int vectorWidth = 1;
  /// The vector variant's groups cover this many planes (ElementwiseParams).
  int vectorPlanes = 1;
  int spanWidth = 1;
  int elementsPerThread = 1;
  int tileDim = -1;
  /// Whether elements are indexed through coordinates (else flat).
  bool coordinates = false;
  /// In: whether the entries take the run's guard (KernelOptions).
  bool guarded = false;
  std::vector<std::string> dimArgs;
};

/// The CUDA C++ source of one kernel's variants (without the prelude), and
/// how to launch them. Fails (with a diagnostic at the op) on an op that
/// has no CUDA lowering.
mlir::FailureOr<std::string> emitElementwiseKernel(mlir::pipe::KernelOp kernel,
                                                   ElementwiseInfo &info);

} // namespace pipec

#endif // PIPE_FAMILIES_ELEMENTWISE_ELEMENTWISEEMITTER_H
