//===- Compiler.h - The compiler's stages, end to end -----------*- C++ -*-===//
//
// The straight-line path every user of the compiler takes (pipec, the JIT
// API, the tests): source text -> checked AST -> tensor-level pipe IR ->
// the default pass pipeline -> a runtime plan. Diagnostics go wherever the
// caller's llvm::SourceMgr and MLIR diagnostic handler send them.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_COMPILER_COMPILER_H
#define PIPE_COMPILER_COMPILER_H

#include "frontend/AST.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <optional>

namespace pipec {

/// Registers the dialects the compiler reads and writes.
void registerDialects(mlir::MLIRContext &context);

/// Parses and checks the main buffer of `sourceMgr` as .pipe text.
std::optional<ModuleAST> parseAndCheck(llvm::SourceMgr &sourceMgr);

/// Loads the main buffer of `sourceMgr` as tensor-level (or later) IR: .pipe
/// text through the frontend, or .mlir text (by the buffer's name) through
/// MLIR's parser. Null after reporting errors.
mlir::OwningOpRef<mlir::ModuleOp> loadModule(mlir::MLIRContext &context,
                                             llvm::SourceMgr &sourceMgr);

/// Runs the default pipeline (passes/Pipeline.cpp) on `module`.
/// `configure` may add instrumentation (e.g. MLIR's IR-printing flags);
/// `testPass`, a registered pass (pipe-test-break-kernels), runs after the
/// pipeline, for tests. An error a pass reports is worded as an internal
/// error naming the pass, unless the pass marked it as the user's
/// (pipe::emitUserError).
mlir::LogicalResult runDefaultPipeline(
    mlir::ModuleOp module,
    const std::function<void(mlir::PassManager &)> &configure = {},
    const std::string &testPass = "");

/// The pipeline named `name` in `module`, or its only pipeline if `name` is
/// empty; otherwise null, and `why` says what the input has instead ("has
/// no pipeline named 'c' (it has a, b)", "defines 2 pipelines: a, b"), for
/// the caller to prefix with the input's name and suffix with how to name
/// one.
mlir::Operation *findPipeline(mlir::ModuleOp module, llvm::StringRef name,
                              std::string &why);

} // namespace pipec

#endif // PIPE_COMPILER_COMPILER_H
