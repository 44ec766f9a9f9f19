//===- StorageTypes.h - Runtime dtypes to PipeScalar.h types ----*- C++ -*-===//
//
// Host code that handles elements the way kernels do (the reference
// executor, list constants) dispatches on a dtype to the storage type that
// PipeScalar.h defines for it.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_STORAGETYPES_H
#define PIPE_CORE_STORAGETYPES_H

#include "core/PipeScalar.h"
#include "core/DType.h"

namespace pipert {

/// Calls fn(T{}) with the PipeScalar.h storage type of `dtype` (pipe_i64 is
/// long long, which int64_t is not on every platform; bool, f16 and bf16 are
/// structs).
template <typename Fn> void visitStorageType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::U8: fn(pipe_u8{}); return;
  case DType::I8: fn(pipe_i8{}); return;
  case DType::U16: fn(pipe_u16{}); return;
  case DType::I16: fn(pipe_i16{}); return;
  case DType::U32: fn(pipe_u32{}); return;
  case DType::I32: fn(pipe_i32{}); return;
  case DType::U64: fn(pipe_u64{}); return;
  case DType::I64: fn(pipe_i64{}); return;
  case DType::F32: fn(float{}); return;
  case DType::F64: fn(double{}); return;
  case DType::Bool: fn(pipe_bool{}); return;
  case DType::F16: fn(pipe_f16{}); return;
  case DType::BF16: fn(pipe_bf16{}); return;
  }
}

} // namespace pipert

#endif // PIPE_CORE_STORAGETYPES_H
