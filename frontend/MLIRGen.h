//===- MLIRGen.h - .pipe AST to the pipe dialect ----------------*- C++ -*-===//
//
// Emits a checked ModuleAST as pipe-dialect IR, carrying every source
// location into the IR as a FileLineColLoc.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_MLIRGEN_H
#define PIPE_FRONTEND_MLIRGEN_H

#include "frontend/AST.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace pipec {

/// The MLIR element type of a dtype name (u8 -> ui8, i32 -> si32, f32 -> f32).
mlir::Type getElementType(mlir::MLIRContext *context, llvm::StringRef dtype);

/// Emits `module`, which Sema has checked. Never fails on checked input.
mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context,
                                             const ModuleAST &module,
                                             llvm::SourceMgr &sourceMgr);

} // namespace pipec

#endif // PIPE_FRONTEND_MLIRGEN_H
