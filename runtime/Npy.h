//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes version 1.0 .npy files of little-endian, C-ordered arrays
// of the dtypes Pipe supports, so that pipelines run on data that NumPy,
// PyTorch or OpenCV wrote, and their results go back the same way.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_NPY_H
#define PIPE_RUNTIME_NPY_H

#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <string>

namespace pipert {

Result<HostTensor> readNpy(const std::string &path);
Status writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace pipert

#endif // PIPE_RUNTIME_NPY_H
