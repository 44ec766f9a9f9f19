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
  // The driver's name and description of the code, when it knows them (a
  // stub libcuda, or a code newer than the driver, has neither; the
  // lookups then leave null): then its number.
  const char *name = nullptr, *description = nullptr;
  if (auto driver = getCudaDriver()) {
    if ((*driver)->cuGetErrorName(result, &name) != CUDA_SUCCESS)
      name = nullptr;
    if ((*driver)->cuGetErrorString(result, &description) != CUDA_SUCCESS)
      description = nullptr;
  }
  std::string message = std::string(call) + " failed";
  if (!context.empty())
    message += " " + context;
  message += ": ";
  message += name ? std::string(name)
                  : "CUDA error " + std::to_string(int(result));
  if (description && *description)
    message += std::string(" (") + description + ")";
  return Status::error(message);
}

/// Initializes the driver once: the number of devices, or why none.
static Result<int> initDriver() {
  static int count = 0;
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
    if (!(status = checkCuda(cu.cuDeviceGetCount(&count), "cuDeviceGetCount")))
      return;
    if (count == 0)
      status = Status::error("no CUDA GPU: the driver sees no device");
  });
  if (!status.ok())
    return status;
  return count;
}

Result<int> pipert::getCudaDeviceCount() { return initDriver(); }

/// Opens device `ordinal` (its primary context), once.
static Status openDevice(CudaDevice &device, int ordinal) {
  const CudaDriver &cu = **getCudaDriver();
  if (Status s = checkCuda(cu.cuDeviceGet(&device.device, ordinal), "cuDeviceGet");
      !s.ok())
    return s;
  device.ordinal = ordinal;
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
  if (Status s = checkCuda(
          cu.cuDevicePrimaryCtxRetain(&device.context, device.device),
          "cuDevicePrimaryCtxRetain");
      !s.ok())
    return s;
  // Keep freed stream-ordered memory in the pool: repeated runs of a
  // pipeline then allocate from it instead of from the driver.
  CUmemoryPool pool;
  if (cu.cuDeviceGetDefaultMemPool(&pool, device.device) == CUDA_SUCCESS) {
    cuuint64_t threshold = ~cuuint64_t(0);
    cu.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                             &threshold);
  }
  return Status();
}

Result<const CudaDevice *> pipert::getCudaDevice(int ordinal) {
  auto count = initDriver();
  if (!count)
    return count.status();
  if (ordinal < 0 || ordinal >= *count)
    return Status::badArgument(
        "no CUDA device " + std::to_string(ordinal) + ": the driver sees " +
        std::to_string(*count) + " (0 .. " + std::to_string(*count - 1) + ")");
  // One slot per ordinal, each opened once; the first kMaxDevices only.
  static CudaDevice devices[kMaxCudaDevices];
  static Status statuses[kMaxCudaDevices];
  static std::once_flag onces[kMaxCudaDevices];
  if (ordinal >= kMaxCudaDevices)
    return Status::badArgument("device " + std::to_string(ordinal) +
                               " is past the " +
                               std::to_string(kMaxCudaDevices) +
                               " devices Pipe uses");
  std::call_once(onces[ordinal], [&] {
    statuses[ordinal] = openDevice(devices[ordinal], ordinal);
  });
  if (!statuses[ordinal].ok())
    return statuses[ordinal];
  const CudaDriver &cu = **getCudaDriver();
  if (Status s = checkCuda(cu.cuCtxSetCurrent(devices[ordinal].context),
                           "cuCtxSetCurrent");
      !s.ok())
    return s;
  return &devices[ordinal];
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
