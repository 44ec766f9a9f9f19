//===- Runtime.h - The Pipe runtime, all of it ------------------*- C++ -*-===//
//
// What an ahead-of-time artifact or a JIT user includes. The runtime links
// against no MLIR or LLVM: only the CUDA driver and NVRTC, both opened at
// run time.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_RUNTIME_H
#define PIPE_RUNTIME_RUNTIME_H

#include "core/DType.h"
#include "runtime/Executable.h"
#include "runtime/Npy.h"
#include "runtime/Plan.h"
#include "runtime/Sharded.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

namespace pipert {

/// Whether a CUDA GPU can be used, and if not, why not.
Status checkGpuAvailable();

/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", or why there is no GPU.
Result<std::string> describeGpu();

} // namespace pipert

#endif // PIPE_RUNTIME_RUNTIME_H
