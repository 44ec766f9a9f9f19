//===- CatchHelpers.h - What the tests need of C++ exceptions ---*- C++ -*-===//

#ifndef PIPE_TEST_UNIT_CATCHHELPERS_H
#define PIPE_TEST_UNIT_CATCHHELPERS_H

#include "runtime/Tensor.h"

#include <string>
#include <vector>

namespace pipetest {

/// What HostTensor(dtype, shape) throws ("std::invalid_argument: ..."), or
/// empty when it throws nothing.
std::string hostTensorConstructionError(pipert::DType dtype,
                                        const std::vector<int64_t> &shape);

} // namespace pipetest

#endif // PIPE_TEST_UNIT_CATCHHELPERS_H
