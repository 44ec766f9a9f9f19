//===- ElementwiseOps.h - Each elementwise op's scalar function -*- C++ -*-===//
//
// The table of elementwise ops: the op's class prefix (AddOp), its
// mnemonic, the PipeScalar.h function that defines it (the one its CUDA
// expression calls) and the storage types it takes, generated from the
// dialect's ODS records. The reference executor
// (through the MLIR ops) and the runtime's host evaluation of scalar
// kernels (through the mnemonics in a plan) both dispatch on it, so the
// host computes each op exactly as the GPU does. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_ELEMENTWISEOPS_H
#define PIPE_CORE_ELEMENTWISEOPS_H

#include "core/PipeScalar.h"

namespace pipescalar {

// Which storage types an op's scalar function is instantiated for; the
// verifier guarantees the others never occur.
template <typename T> constexpr bool isFloatT = pipe_traits<T>::is_float;
template <typename T> constexpr bool isIntT = pipe_traits<T>::is_int;
template <typename T> constexpr bool isBoolT = !isFloatT<T> && !isIntT<T>;
template <typename T> constexpr bool anyT = true;
template <typename T> constexpr bool numericT = !isBoolT<T>;
template <typename T> constexpr bool intOrBoolT = !isFloatT<T>;

#define PIPE_ALLOWED(pred)                                                     \
  template <typename T> struct Allowed_##pred {                                \
    static constexpr bool value = pred<T>;                                     \
  };
PIPE_ALLOWED(isFloatT)
PIPE_ALLOWED(isIntT)
PIPE_ALLOWED(anyT)
PIPE_ALLOWED(numericT)
PIPE_ALLOWED(intOrBoolT)
#undef PIPE_ALLOWED

} // namespace pipescalar

// PIPE_UNARY_OPS(X), PIPE_BINARY_OPS(X): X(Class, "mnemonic", function,
// allowed), one row per elementwise op of dialect/PipeOps.td, written from
// its ODS record by utils/op-registry/generate.py. PIPE_FLOAT_INEXACT_OPS(X):
// X(Class, "mnemonic") for those whose float results CUDA's math library
// may round differently from the host's.
#include "core/PipeElementwiseOps.inc"

#endif // PIPE_CORE_ELEMENTWISEOPS_H
