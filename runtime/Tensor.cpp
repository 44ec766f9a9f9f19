//===- Tensor.cpp - Tensors and how they are described ------------------===//

#include "core/DType.h"
#include "runtime/Plan.h"
#include "runtime/Tensor.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

using namespace pipert;

std::optional<int64_t>
pipert::checkedNumBytes(DType dtype, const std::vector<int64_t> &shape) {
  // An empty dim makes it 0 whatever the others, even ones that would
  // overflow together.
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    empty |= d == 0;
  }
  if (empty)
    return 0;
  int64_t bytes = int64_t(dtypeSize(dtype));
  for (int64_t d : shape)
    if (__builtin_mul_overflow(bytes, d, &bytes))
      return std::nullopt;
  return bytes;
}

/// Shapes reach here checked (checkedNumBytes): by the .npy reader, the
/// binding of a run's inputs, or dims evaluated with overflow checks.
static int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorRef::numElements() const { return product(shape); }

/// Why `shape` cannot be a tensor of `dtype`, or nothing.
static std::optional<std::string> checkShape(DType dtype,
                                             const std::vector<int64_t> &shape) {
  if (checkedNumBytes(dtype, shape))
    return std::nullopt;
  std::string text = "HostTensor " + describeTensor(dtype, shape) + ": ";
  for (int64_t d : shape)
    if (d < 0)
      return text + "a dim is negative";
  return text + "more than 2^63 bytes";
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  // A wrapped size would be memory corruption later.
  if (std::optional<std::string> why = checkShape(dtype_, shape_))
    throw std::invalid_argument(*why);
  bytes_.resize(size_t(*checkedNumBytes(dtype_, shape_)));
}

Result<HostTensor> HostTensor::allocate(DType dtype,
                                        std::vector<int64_t> shape) {
  if (std::optional<std::string> why = checkShape(dtype, shape))
    return Status::badArgument(*why);
  int64_t bytes = *checkedNumBytes(dtype, shape);
  try {
    return HostTensor(dtype, shape);
  } catch (const std::bad_alloc &) {
  } catch (const std::length_error &) { // past the vector's max_size()
  }
  return Status::error("out of host memory: " + describeTensor(dtype, shape) +
                       " needs " + std::to_string(bytes) + " bytes");
}

int64_t HostTensor::numElements() const { return product(shape_); }

std::string pipert::describeTensor(DType dtype,
                                   const std::vector<int64_t> &shape) {
  std::string text = dtypeName(dtype);
  text += "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string pipert::describeDims(const std::vector<PlanDim> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") +
            (dims[i].symbol.empty() ? std::to_string(dims[i].size)
                                    : dims[i].symbol);
  return text + "]";
}

std::string HostTensor::describe() const {
  return describeTensor(dtype_, shape_);
}
