//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The driver (libcuda.so.1) is opened with dlopen on first use rather than
// linked: a Pipe binary then starts on a machine with no GPU driver and can
// say so (and pipec can fall back to the CPU reference). The functions used
// are listed once, in PIPE_CUDA_DRIVER_FUNCTIONS.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_CUDADRIVER_H
#define PIPE_RUNTIME_CUDADRIVER_H

#include "runtime/Status.h"

#include <cuda.h>

#include <string>

namespace pipert {

// cuda.h maps some names to versioned symbols (cuMemcpyHtoDAsync is
// cuMemcpyHtoDAsync_v2); using the names here picks up those mappings.
#define PIPE_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleGetFunction)                                                       \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuModuleUnload)                                                            \
  X(cuLaunchKernel)                                                            \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuDeviceGetDefaultMemPool)                                                 \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoD)                                                              \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)                                                            \
  X(cuMemHostAlloc)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuLaunchHostFunc)                                                          \
  X(cuMemHostGetDevicePointer)                                                 \
  X(cuPointerGetAttribute)                                                      \
  X(cuDeviceCanAccessPeer)                                                     \
  X(cuCtxEnablePeerAccess)

struct CudaDriver {
#define PIPE_DECLARE_FN(name) decltype(&::name) name = nullptr;
  PIPE_CUDA_DRIVER_FUNCTIONS(PIPE_DECLARE_FN)
#undef PIPE_DECLARE_FN
  /// Null where the driver lacks it (before CUDA 12): launches then go
  /// through cuLaunchKernel, without programmatic dependent launch.
  decltype(&::cuLaunchKernelEx) cuLaunchKernelEx = nullptr;
};

/// The driver, loaded once; an error says why it could not be.
Result<const CudaDriver *> getCudaDriver();

/// Makes the calling thread's context at its construction current again
/// when it goes: code that switches to another device's context to do its
/// work (a destructor freeing what lives there) gives the caller's back,
/// else the caller's next allocation would land on that device.
class CurrentContextRestorer {
public:
  explicit CurrentContextRestorer(const CudaDriver &cu) : cu(cu) {
    (void)cu.cuCtxGetCurrent(&previous);
  }
  ~CurrentContextRestorer() { (void)cu.cuCtxSetCurrent(previous); }
  CurrentContextRestorer(const CurrentContextRestorer &) = delete;
  CurrentContextRestorer &operator=(const CurrentContextRestorer &) = delete;

private:
  const CudaDriver &cu;
  CUcontext previous = nullptr;
};

/// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)",
/// or an ok Status for CUDA_SUCCESS.
Status checkCuda(CUresult result, const char *call, const std::string &context = "");

/// A device the runtime runs on (its primary context).
struct CudaDevice {
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int arch = 0; ///< 10 * major + minor, e.g. 90.
  int multiprocessors = 0;
  std::string name;
};

/// The most devices a process runs on (the ordinals 0 .. kMaxCudaDevices-1).
inline constexpr int kMaxCudaDevices = 64;

/// Initializes the driver once, and device `ordinal` once; makes its
/// context current on the calling thread. An error says why there is no
/// usable GPU, or that there is no such device.
Result<const CudaDevice *> getCudaDevice(int ordinal = 0);

/// How many devices the driver sees (at least one), or why none.
Result<int> getCudaDeviceCount();

} // namespace pipert

#endif // PIPE_RUNTIME_CUDADRIVER_H
