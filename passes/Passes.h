//===- Passes.h - Passes over the pipe dialect ------------------*- C++ -*-===//

#ifndef PIPE_PASSES_PASSES_H
#define PIPE_PASSES_PASSES_H

#include "dialect/PipeDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace pipe {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The default pipeline from tensor-level IR to fused kernels:
/// canonicalize, CSE, then fusion.
void buildDefaultPipeline(OpPassManager &pm);

/// Registers the passes and the default pipeline (`pipe-default`).
void registerPipePassesAndPipelines();

} // namespace pipe
} // namespace mlir

#endif // PIPE_PASSES_PASSES_H
