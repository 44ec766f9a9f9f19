//===- FuzzCommon.h - What the compiler's fuzz targets share ----*- C++ -*-===//
//
// A fuzz input is compiled as a user's file would be; every diagnostic is
// captured instead of printed. An error worded as an internal error is the
// compiler's bug reaching the user, and the target aborts on it so that
// libFuzzer keeps the input.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_TEST_FUZZ_FUZZCOMMON_H
#define PIPE_TEST_FUZZ_FUZZCOMMON_H

#include "codegen/PlanBuilder.h"
#include "compiler/Compiler.h"
#include "dialect/PipeDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace pipefuzz {

/// Aborts, printing the message, if `message` reports an internal error
/// (which the compiler words "internal error..."; a user's error may quote
/// those words from the program).
inline void checkNotInternal(const std::string &message) {
  if (!llvm::StringRef(message).starts_with("internal error"))
    return;
  llvm::errs() << "fuzz: an internal error reached the user:\n"
               << message << "\n";
  abort();
}

/// Compiles `text` as the file `name` (.pipe or .mlir, which selects the
/// parser) through the default pipeline and the plan builder, as pipec
/// does. Returns whether it compiled. Unless `internalErrorsAllowed`, an
/// internal error aborts.
inline bool compile(const uint8_t *data, size_t size, const char *name,
                    bool internalErrorsAllowed = false) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), name),
      llvm::SMLoc());
  // The frontend reports through the SourceMgr, MLIR through the context.
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *allowed) {
        if (!allowed)
          checkNotInternal(diag.getMessage().str());
      },
      internalErrorsAllowed ? &sourceMgr : nullptr);
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (!internalErrorsAllowed)
      checkNotInternal(diag.str());
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      pipec::loadModule(context, sourceMgr);
  if (!module || mlir::failed(pipec::runDefaultPipeline(*module)))
    return false;
  for (mlir::pipe::PipelineOp pipeline :
       module->getOps<mlir::pipe::PipelineOp>())
    if (mlir::failed(pipec::buildPlan(pipeline)))
      return false;
  return true;
}

} // namespace pipefuzz

#endif // PIPE_TEST_FUZZ_FUZZCOMMON_H
