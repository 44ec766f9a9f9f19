//===- Sema.h - Name, dtype and dim checking for .pipe ----------*- C++ -*-===//
//
// Checks a parsed module and gives every expression its ExprType: resolves
// names, applies the dtype rules (weak literals, '/' on integers gives f32,
// casts) and checks that shapes agree symbolically. Every user error is
// reported through the SourceMgr at the offending token.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_SEMA_H
#define PIPE_FRONTEND_SEMA_H

#include "frontend/AST.h"

#include "llvm/Support/SourceMgr.h"

namespace pipec {

/// The dtypes the language names, and whether this version supports them.
bool isKnownDType(llvm::StringRef name);
bool isSupportedDType(llvm::StringRef name);
bool isFloatDType(llvm::StringRef name);
bool isUnsignedDType(llvm::StringRef name);
unsigned getDTypeBits(llvm::StringRef name);

/// Checks `module` and annotates it. Returns false after reporting errors;
/// it reports every error it finds in a pipeline, not only the first.
bool checkModule(ModuleAST &module, llvm::SourceMgr &sourceMgr);

} // namespace pipec

#endif // PIPE_FRONTEND_SEMA_H
