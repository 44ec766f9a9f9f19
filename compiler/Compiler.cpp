//===- Compiler.cpp - The compiler's stages, end to end -------------------===//

#include "compiler/Compiler.h"

#include "dialect/PipeDialect.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "passes/Passes.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

void pipec::registerDialects(MLIRContext &context) {
  context.getOrLoadDialect<pipe::PipeDialect>();
}

std::optional<pipec::ModuleAST>
pipec::parseAndCheck(llvm::SourceMgr &sourceMgr) {
  Parser parser(sourceMgr);
  std::optional<ModuleAST> module = parser.parseModule();
  if (!module || !checkModule(*module, sourceMgr))
    return std::nullopt;
  return module;
}

OwningOpRef<ModuleOp> pipec::loadModule(MLIRContext &context,
                                        llvm::SourceMgr &sourceMgr) {
  registerDialects(context);
  llvm::StringRef name =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  if (name.ends_with(".mlir"))
    return parseSourceFile<ModuleOp>(sourceMgr, &context);
  std::optional<ModuleAST> ast = parseAndCheck(sourceMgr);
  if (!ast)
    return nullptr;
  OwningOpRef<ModuleOp> module = emitModule(context, *ast, sourceMgr);
  // MLIRGen on checked input always verifies; a failure here is a compiler
  // bug, reported as such rather than as the user's error.
  if (failed(verify(*module))) {
    emitError(module->getLoc()) << "internal error: MLIRGen produced invalid IR";
    return nullptr;
  }
  return module;
}

LogicalResult pipec::runDefaultPipeline(
    ModuleOp module, const std::function<void(PassManager &)> &configure) {
  PassManager pm(module->getContext());
  if (configure)
    configure(pm);
  pipe::buildDefaultPipeline(pm);
  return pm.run(module);
}

Operation *pipec::findPipeline(ModuleOp module, llvm::StringRef name) {
  SmallVector<pipe::PipelineOp> pipelines(module.getOps<pipe::PipelineOp>());
  if (!name.empty()) {
    for (pipe::PipelineOp pipeline : pipelines)
      if (pipeline.getSymName() == name)
        return pipeline;
    emitError(module.getLoc()) << "no pipeline named '" << name << "'";
    return nullptr;
  }
  if (pipelines.size() == 1)
    return pipelines.front();
  InFlightDiagnostic diag = emitError(module.getLoc());
  if (pipelines.empty())
    diag << "the input defines no pipeline";
  else
    diag << "the input defines " << pipelines.size()
         << " pipelines; name one with --pipeline";
  return nullptr;
}
