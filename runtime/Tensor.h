//===- Tensor.h - Tensors passed to and from pipelines ----------*- C++ -*-===//

#ifndef PIPE_RUNTIME_TENSOR_H
#define PIPE_RUNTIME_TENSOR_H

#include "core/DType.h"
#include "runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipert {

/// The bytes of a dtype's tensor of `shape` (0 when a dim is 0), or nothing
/// when a dim is negative or the count passes INT64_MAX (a shape from a file or a
/// caller is checked with it before anything is allocated from it).
std::optional<int64_t> checkedNumBytes(DType dtype,
                                       const std::vector<int64_t> &shape);

enum class Memory : uint8_t { Host, Device };

/// A caller's dense, row-major tensor: the runtime reads inputs from it and
/// writes outputs into it, and never owns it. `data` is a host pointer or a
/// CUDA device pointer (a CUdeviceptr cast to void*), as `memory` says.
struct TensorRef {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  Memory memory = Memory::Host;

  int64_t numElements() const;
  size_t numBytes() const { return size_t(numElements()) * dtypeSize(dtype); }
};

/// A dense tensor in host memory that owns its bytes.
class HostTensor {
public:
  HostTensor() = default;
  /// A zeroed tensor. A negative dim, or a size past INT64_MAX bytes,
  /// throws std::invalid_argument; memory that runs out, std::bad_alloc
  /// (as std::vector's constructor does). allocate() says either as a
  /// Status instead.
  HostTensor(DType dtype, std::vector<int64_t> shape);
  /// The tensor, or a bad argument (a negative dim, too many bytes) or an
  /// "out of host memory" error naming it.
  static Result<HostTensor> allocate(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const;
  size_t numBytes() const { return bytes_.size(); }
  void *data() { return bytes_.data(); }
  const void *data() const { return bytes_.data(); }
  template <typename T> T *as() { return reinterpret_cast<T *>(data()); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(data());
  }
  /// A reference for Executable::run (the runtime only reads inputs).
  TensorRef ref() const {
    return TensorRef{const_cast<void *>(data()), dtype_, shape_, Memory::Host};
  }
  /// "u8[2, 3]"
  std::string describe() const;

private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  std::vector<unsigned char> bytes_;
};

/// "u8[2, 3]" for any dtype and shape.
std::string describeTensor(DType dtype, const std::vector<int64_t> &shape);

} // namespace pipert

#endif // PIPE_RUNTIME_TENSOR_H
