//===- Nvrtc.h - Run-time compilation of CUDA C++ ---------------*- C++ -*-===//
//
// NVRTC (libnvrtc.so) is opened with dlopen on first use, like the driver:
// an ahead-of-time artifact that carries cubins never needs it.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_NVRTC_H
#define PIPE_RUNTIME_NVRTC_H

#include "runtime/Status.h"

#include <string>

namespace pipert {

struct CompiledCuda {
  std::string image; ///< A cubin (binary) or PTX (text), as asked.
  std::string log;   ///< NVRTC's warnings, if any.
};

/// Compiles `source` for `arch` (e.g. 90): a cubin for sm_<arch>, or PTX for
/// compute_<arch> when `ptx` is set. By default floats are exact (IEEE
/// division, no FMA contraction: results equal the CPU reference's);
/// `fastMath` allows contraction into FMAs and approximate division. On
/// failure the message holds NVRTC's log and the path where the source was
/// written for inspection.
Result<CompiledCuda> compileCuda(const std::string &source,
                                 const std::string &name, int arch, bool ptx,
                                 bool fastMath = false);

/// "NVRTC 13.0", or why NVRTC cannot be loaded.
Result<std::string> getNvrtcVersion();

/// The options every compile uses (besides the architecture), as text: part
/// of the kernel cache's key.
std::string nvrtcOptionsKey(bool fastMath);

} // namespace pipert

#endif // PIPE_RUNTIME_NVRTC_H
