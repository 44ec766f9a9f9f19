//===- Sema.h - Name, dtype and dim checking for .pipe ----------*- C++ -*-===//
//
// Checks a parsed module and gives every expression its ExprType: resolves
// names, applies the dtype rules (weak literals, the promotion table, what
// each operator and function accepts) and NumPy broadcasting over symbolic
// dims. Every user error is reported through the SourceMgr at the offending
// token, and every error of a pipeline is reported, not just the first.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FRONTEND_SEMA_H
#define PIPE_FRONTEND_SEMA_H

#include "frontend/AST.h"

#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>
#include <vector>

namespace pipec {

/// The channels of a color_space_conversion image type (rgb, bgr, ycbcr: 3;
/// gray: 1), or 0 for a name that is none.
int64_t getColorChannels(llvm::StringRef imageType);

/// The dtypes: bool u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64.
bool isDType(llvm::StringRef name);
llvm::ArrayRef<const char *> getDTypeNames();
/// The dtypes' names in one line, for messages.
const char *getDTypeList();
bool isFloatDType(llvm::StringRef name);
bool isUnsignedDType(llvm::StringRef name);
bool isIntegerDType(llvm::StringRef name);
unsigned getDTypeBits(llvm::StringRef name);
/// The least and the greatest value of integer dtype `name` (not bool).
std::pair<__int128, __int128> getIntegerRange(llvm::StringRef name);
/// Float dtype `name`'s largest finite value, and the least magnitude that
/// rounds to infinity in it (a literal at or past it does not fit).
struct FloatRange {
  double largest, roundsToInf;
};
FloatRange getFloatRange(llvm::StringRef name);

/// The dtype two tensors of dtypes `a` and `b` are converted to before a
/// binary op (see docs/language.md), or nullopt when none holds both.
std::optional<std::string> promoteDTypes(llvm::StringRef a, llvm::StringRef b);

/// The functions a call may name, besides casts.
bool isBuiltinFunction(llvm::StringRef name);

/// What the language knows, one line each, sorted: `elementwise NAME
/// ARITY` and `operator SPELLING ARITY` for the elementwise ops' spellings,
/// `function NAME` for the other functions, `dtype NAME` for the dtypes
/// (casts). `pipec --list-functions` prints it for tools (the fuzzer, the
/// editor grammars' test).
std::vector<std::string> listLanguage();

/// Whether a call to `name` with `numArgs` positional arguments is a
/// reduction: sum mean prod any all, and min/max of one tensor.
bool isReductionCall(llvm::StringRef name, size_t numArgs);

/// The dtype reduction `kind` gives over `dtype` (pipe::getReductionResultType
/// is the same rule over MLIR types).
std::string getReductionDType(llvm::StringRef kind, llvm::StringRef dtype);

/// Checks `module` and annotates it. Returns false after reporting errors.
bool checkModule(ModuleAST &module, llvm::SourceMgr &sourceMgr);

} // namespace pipec

#endif // PIPE_FRONTEND_SEMA_H
