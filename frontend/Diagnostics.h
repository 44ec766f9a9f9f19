//===- Diagnostics.h - Printing a diagnostic with its caret ----*- C++ -*-===//
//
// How Pipe prints a diagnostic at a place in a source: file:line:col, the
// message, the source line and a caret under the column. LLVM's own
// printer leaves the caret out under a line with any non-ASCII character
// (a UTF-8 comment, a name in a string); this one places it by the
// characters' display width there, so every user error keeps its caret.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_DIAGNOSTICS_H
#define PIPE_FRONTEND_DIAGNOSTICS_H

namespace llvm {
class SMDiagnostic;
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace pipec {

/// Prints `diag` to `os` as LLVM does, with the caret also under lines
/// that are not all ASCII.
void printSourceDiagnostic(const llvm::SMDiagnostic &diag,
                           llvm::raw_ostream &os);

/// Makes `sourceMgr` print every diagnostic (its own and, through it,
/// MLIR's SourceMgrDiagnosticHandler's) with printSourceDiagnostic to `os`,
/// which must outlive it.
void printDiagnosticsTo(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os);

} // namespace pipec

#endif // PIPE_FRONTEND_DIAGNOSTICS_H
