//===- CatchHelpers.cpp - What the tests need of C++ exceptions -----------===//
//
// The tests are built without exceptions (as the compiler is), but the
// runtime's HostTensor constructor throws, as std::vector's does: this file
// alone is built with them, and has no GoogleTest code in it.
//
//===----------------------------------------------------------------------===//

#include "CatchHelpers.h"

#include <stdexcept>

std::string pipetest::hostTensorConstructionError(
    pipert::DType dtype, const std::vector<int64_t> &shape) {
  try {
    pipert::HostTensor tensor(dtype, shape);
  } catch (const std::invalid_argument &e) {
    return std::string("std::invalid_argument: ") + e.what();
  } catch (const std::exception &e) {
    return std::string("another exception: ") + e.what();
  }
  return "";
}
