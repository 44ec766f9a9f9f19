//===- MlirFuzzer.cpp - .mlir input through pipe-opt's pipeline -----------===//
//
// Text -> MLIR's parser with the pipe dialect -> the verifier -> the default
// pass pipeline -> plans, as `pipec` does with a .mlir file. The dialect's
// verifiers are the contract: IR they accept must not crash a pass, and a
// pass that fails on it must say so as a diagnostic. Internal errors are
// allowed here (hand-written IR can break what passes assume of the
// frontend's output, and saying so is right); crashes and sanitizer reports
// are not.
//
//===----------------------------------------------------------------------===//

#include "codegen/PlanBuilder.h"
#include "compiler/Compiler.h"
#include "dialect/PipeDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler handler(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      pipec::loadModule(context, sourceMgr);
  if (!module || mlir::failed(pipec::runDefaultPipeline(*module)))
    return 0;
  for (mlir::pipe::PipelineOp pipeline :
       module->getOps<mlir::pipe::PipelineOp>())
    (void)pipec::buildPlan(pipeline);
  return 0;
}
