//===- pipe-opt.cpp - Runs pipe passes on .mlir input ---------------------===//
//
// mlir-opt for the pipe dialect: every pass is tested from .mlir files
// through this tool (`pipe-opt --pipe-fuse-elementwise in.mlir`).
//
//===----------------------------------------------------------------------===//

#include "dialect/PipeDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::pipe::registerPipePassesAndPipelines();
  mlir::DialectRegistry registry;
  registry.insert<mlir::pipe::PipeDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Pipe optimizer driver\n", registry));
}
