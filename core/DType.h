//===- DType.h - Element types of Pipe tensors ------------------*- C++ -*-===//

#ifndef PIPE_CORE_DTYPE_H
#define PIPE_CORE_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pipert {

enum class DType : uint8_t {
  U8, I8, U16, I16, U32, I32, U64, I64, F32, F64,
  Bool, ///< One byte, 0 or 1.
  F16,  ///< IEEE binary16, as its bits.
  BF16, ///< bfloat16, as its bits.
};

/// Bytes per element.
size_t dtypeSize(DType dtype);
/// The language's name: "u8", "f32", ...
const char *dtypeName(DType dtype);
std::optional<DType> parseDType(std::string_view name);

/// Calls `fn(T{})` with the C++ type of `dtype`: the fixed-width integer,
/// float or double; bool as uint8_t; f16 and bf16 as their bits (uint16_t).
template <typename Fn> decltype(auto) visitDType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::Bool: return fn(uint8_t{});
  case DType::F16: return fn(uint16_t{});
  case DType::BF16: return fn(uint16_t{});
  case DType::U8: return fn(uint8_t{});
  case DType::I8: return fn(int8_t{});
  case DType::U16: return fn(uint16_t{});
  case DType::I16: return fn(int16_t{});
  case DType::U32: return fn(uint32_t{});
  case DType::I32: return fn(int32_t{});
  case DType::U64: return fn(uint64_t{});
  case DType::I64: return fn(int64_t{});
  case DType::F32: return fn(float{});
  case DType::F64: break;
  }
  return fn(double{});
}

} // namespace pipert

#endif // PIPE_CORE_DTYPE_H
