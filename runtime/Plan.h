//===- Plan.h - What the compiler hands the runtime -------------*- C++ -*-===//
//
// An executable plan: the pipeline's buffers (parameters, results and
// intermediates) with their dtypes and symbolic dims, and the kernels that
// compute them, in order. The compiler builds one for a JIT user; an
// ahead-of-time artifact holds one as static data. Plain data, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_PLAN_H
#define PIPE_RUNTIME_PLAN_H

#include "runtime/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pipert {

/// A literal size, or a symbol bound from the parameters at run time.
struct PlanDim {
  int64_t size = -1;  ///< -1 when symbolic.
  std::string symbol; ///< Empty when literal.
};

struct PlanBuffer {
  std::string name; ///< Source name for parameters and results.
  DType dtype = DType::F32;
  std::vector<PlanDim> dims;
};

/// One CUDA kernel. Its signature is
///   extern "C" __global__ void entry(const T0 *in0, ..., T *out0, ...,
///                                    long long n)
/// over `n` elements of the domain buffer's shape; an input of rank 0 is read
/// at index 0. Images are optional: the runtime loads a cubin built for the
/// device's architecture, else the PTX, else compiles `source` with NVRTC.
struct PlanKernel {
  std::string entry;
  std::string source;
  std::vector<int> inputs;  ///< Buffer ids.
  std::vector<int> outputs; ///< Buffer ids, all of the domain's shape.
  int cubinArch = 0;        ///< e.g. 90 for sm_90; 0 when there is no cubin.
  std::string cubin;        ///< Bytes.
  std::string ptx;
};

struct Plan {
  std::string name;
  /// Buffers [0, numParams) are the parameters, in order.
  std::vector<PlanBuffer> buffers;
  int numParams = 0;
  /// The buffer each result is read from, in result order. A parameter may
  /// be a result, and one buffer may be several results.
  std::vector<int> results;
  std::vector<std::string> resultNames;
  std::vector<PlanKernel> kernels;
};

} // namespace pipert

#endif // PIPE_RUNTIME_PLAN_H
