//===- DType.cpp - Element types of Pipe tensors --------------------------===//

#include "core/DType.h"

#include <iterator>

using namespace pipert;

namespace {
struct DTypeInfo {
  const char *name;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {"u8", 1},  {"i8", 1},  {"u16", 2},  {"i16", 2}, {"u32", 4},
    {"i32", 4}, {"u64", 8}, {"i64", 8},  {"f32", 4}, {"f64", 8},
    {"bool", 1}, {"f16", 2}, {"bf16", 2}};
} // namespace

size_t pipert::dtypeSize(DType dtype) { return kDTypes[int(dtype)].size; }
const char *pipert::dtypeName(DType dtype) { return kDTypes[int(dtype)].name; }

std::optional<DType> pipert::parseDType(std::string_view name) {
  for (int i = 0; i < int(std::size(kDTypes)); ++i)
    if (name == kDTypes[i].name)
      return DType(i);
  return std::nullopt;
}
