//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <mutex>

using namespace pipert;

#define PIPE_STRINGIFY_IMPL(x) #x
#define PIPE_STRINGIFY(x) PIPE_STRINGIFY_IMPL(x)

Result<const CudaDriver *> pipert::getCudaDriver() {
  static CudaDriver driver;
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      status = Status::error(std::string("no CUDA driver: cannot load "
                                         "libcuda.so.1 (") +
                             dlerror() + ")");
      return;
    }
#define PIPE_LOAD_FN(name)                                                     \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(handle, PIPE_STRINGIFY(name)));                                    \
  if (!driver.name) {                                                          \
    status = Status::error("the CUDA driver is too old: it lacks " +           \
                           std::string(PIPE_STRINGIFY(name)));                 \
    return;                                                                    \
  }
    PIPE_CUDA_DRIVER_FUNCTIONS(PIPE_LOAD_FN)
#undef PIPE_LOAD_FN
    driver.cuLaunchKernelEx = reinterpret_cast<decltype(driver.cuLaunchKernelEx)>(
        dlsym(handle, "cuLaunchKernelEx"));
  });
  if (!status.ok())
    return status;
  return &driver;
}

Status pipert::checkCuda(CUresult result, const char *call,
                         const std::string &context) {
  if (result == CUDA_SUCCESS)
    return Status();
  const char *name = "unknown error";
  const char *description = "";
  if (auto driver = getCudaDriver()) {
    (*driver)->cuGetErrorName(result, &name);
    (*driver)->cuGetErrorString(result, &description);
  }
  std::string message = std::string(call) + " failed";
  if (!context.empty())
    message += " " + context;
  return Status::error(message + ": " + name + " (" + description + ")");
}

Result<const CudaDevice *> pipert::getCudaDevice() {
  static CudaDevice device;
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    auto driver = getCudaDriver();
    if (!driver) {
      status = driver.status();
      return;
    }
    const CudaDriver &cu = **driver;
    CUresult initResult = cu.cuInit(0);
    if (initResult != CUDA_SUCCESS) {
      status = Status::error("no usable CUDA GPU: " +
                             checkCuda(initResult, "cuInit").message());
      return;
    }
    int count = 0;
    if (!(status = checkCuda(cu.cuDeviceGetCount(&count), "cuDeviceGetCount")))
      return;
    if (count == 0) {
      status = Status::error("no CUDA GPU: the driver sees no device");
      return;
    }
    if (!(status = checkCuda(cu.cuDeviceGet(&device.device, 0), "cuDeviceGet")))
      return;
    int major = 0, minor = 0;
    cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                            device.device);
    cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                            device.device);
    cu.cuDeviceGetAttribute(&device.multiprocessors,
                            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                            device.device);
    device.arch = major * 10 + minor;
    char name[256] = {0};
    cu.cuDeviceGetName(name, sizeof(name) - 1, device.device);
    device.name = name;
    if (!(status = checkCuda(
              cu.cuDevicePrimaryCtxRetain(&device.context, device.device),
              "cuDevicePrimaryCtxRetain")))
      return;
    // Keep freed stream-ordered memory in the pool: repeated runs of a
    // pipeline then allocate from it instead of from the driver.
    CUmemoryPool pool;
    if (cu.cuDeviceGetDefaultMemPool(&pool, device.device) == CUDA_SUCCESS) {
      cuuint64_t threshold = ~cuuint64_t(0);
      cu.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                               &threshold);
    }
  });
  if (!status.ok())
    return status;
  const CudaDriver &cu = **getCudaDriver();
  if (Status s = checkCuda(cu.cuCtxSetCurrent(device.context), "cuCtxSetCurrent");
      !s.ok())
    return s;
  return &device;
}

#include "runtime/Runtime.h"

Status pipert::checkGpuAvailable() {
  auto device = getCudaDevice();
  return device ? Status() : device.status();
}

Result<std::string> pipert::describeGpu() {
  auto device = getCudaDevice();
  if (!device)
    return device.status();
  return (*device)->name + " (sm_" + std::to_string((*device)->arch) + ", " +
         std::to_string((*device)->multiprocessors) + " SMs)";
}
