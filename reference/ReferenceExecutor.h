//===- ReferenceExecutor.h - Runs pipe IR on the CPU ------------*- C++ -*-===//
//
// Interprets a pipeline, tensor-level or fused, one op at a time over whole
// host tensors. Simple on purpose: it is the oracle every GPU result is
// compared with, the way tests check semantics on a machine with no GPU, and
// pipec's fallback when there is no GPU. Each op's per-element semantics
// come from core/PipeScalar.h, the file the GPU kernels are built from.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_REFERENCE_REFERENCEEXECUTOR_H
#define PIPE_REFERENCE_REFERENCEEXECUTOR_H

#include "dialect/PipeDialect.h"
#include "runtime/Executable.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <vector>

namespace pipec {

/// Runs `pipeline` on `inputs` (one per parameter) and returns its results.
/// Input errors are reported as the GPU runtime reports them.
/// Random ops draw what a GPU run with `random`'s seed and run number
/// draws.
pipert::Result<std::vector<pipert::HostTensor>>
runReference(mlir::pipe::PipelineOp pipeline,
             const std::vector<pipert::HostTensor> &inputs,
             pipert::RandomState random = {});

} // namespace pipec

#endif // PIPE_REFERENCE_REFERENCEEXECUTOR_H
