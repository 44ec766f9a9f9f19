//===- ElementwiseOps.h - Each elementwise op's scalar function -*- C++ -*-===//
//
// The table of elementwise ops: the op's class prefix (AddOp), its
// mnemonic, the PipeScalar.h function that defines it (the one its CUDA
// expression calls) and the storage types it takes. The reference executor
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

// X(Class, "mnemonic", function, allowed)
#define PIPE_BINARY_OPS(X)                                                     \
  X(Add, "add", pipe_add, numericT)                                            \
  X(Sub, "sub", pipe_sub, numericT)                                            \
  X(Mul, "mul", pipe_mul, numericT)                                            \
  X(Div, "div", pipe_div, isFloatT)                                            \
  X(FloorDiv, "floordiv", pipe_floordiv, numericT)                             \
  X(Rem, "rem", pipe_rem, numericT)                                            \
  X(Pow, "pow", pipe_pow, numericT)                                            \
  X(Min, "min", pipe_min, numericT)                                            \
  X(Max, "max", pipe_max, numericT)                                            \
  X(Eq, "eq", pipe_eq, anyT)                                                   \
  X(Ne, "ne", pipe_ne, anyT)                                                   \
  X(Lt, "lt", pipe_lt, numericT)                                               \
  X(Le, "le", pipe_le, numericT)                                               \
  X(Gt, "gt", pipe_gt, numericT)                                               \
  X(Ge, "ge", pipe_ge, numericT)                                               \
  X(And, "and", pipe_and, intOrBoolT)                                          \
  X(Or, "or", pipe_or, intOrBoolT)                                             \
  X(Xor, "xor", pipe_xor, intOrBoolT)                                          \
  X(Shl, "shl", pipe_shl, isIntT)                                              \
  X(Shr, "shr", pipe_shr, isIntT)
#define PIPE_UNARY_OPS(X)                                                      \
  X(Not, "not", pipe_not, intOrBoolT)                                          \
  X(Abs, "abs", pipe_abs, numericT)                                            \
  X(Sqrt, "sqrt", pipe_sqrt, isFloatT)                                         \
  X(Rsqrt, "rsqrt", pipe_rsqrt, isFloatT)                                      \
  X(Exp, "exp", pipe_exp, isFloatT)                                            \
  X(Log, "log", pipe_log, isFloatT)                                            \
  X(Sin, "sin", pipe_sin, isFloatT)                                            \
  X(Cos, "cos", pipe_cos, isFloatT)                                            \
  X(Tanh, "tanh", pipe_tanh, isFloatT)                                         \
  X(Floor, "floor", pipe_floor, numericT)                                      \
  X(Ceil, "ceil", pipe_ceil, numericT)                                         \
  X(Round, "round", pipe_round, numericT)

#endif // PIPE_CORE_ELEMENTWISEOPS_H
