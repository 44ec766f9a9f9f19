//===- Tensor.cpp - Tensors and how they are described ------------------===//

#include "core/DType.h"
#include "runtime/Plan.h"
#include "runtime/Tensor.h"

#include <string>

using namespace pipert;

static int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorRef::numElements() const { return product(shape); }

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)),
      bytes_(size_t(product(shape_)) * dtypeSize(dtype)) {}

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
