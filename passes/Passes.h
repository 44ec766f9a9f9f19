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
/// host control, placement, layout expansion, canonicalize, CSE, then
/// fusion of elementwise ops, of resamples with their consumers, and of
/// reductions (passes/Pipeline.cpp).
void buildDefaultPipeline(OpPassManager &pm);

/// Registers the passes and the default pipeline (`pipe-default`).
void registerPipePassesAndPipelines();

/// While one lives, errors emitted on its thread are the user's: a mistake
/// in the program that only a pass can see (a result sent to the host by
/// '.cpu()' but declared @device). Any other error a pass emits, and any
/// IR a pass leaves that does not verify, is an internal error, and
/// pipec::runDefaultPipeline reports it as one.
class UserErrorScope {
public:
  UserErrorScope();
  ~UserErrorScope();
  UserErrorScope(const UserErrorScope &) = delete;
  UserErrorScope &operator=(const UserErrorScope &) = delete;
  /// Whether one lives on this thread.
  static bool isActive();
};

} // namespace pipe
} // namespace mlir

#endif // PIPE_PASSES_PASSES_H
