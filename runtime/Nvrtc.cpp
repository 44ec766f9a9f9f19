//===- Nvrtc.cpp - Run-time compilation of CUDA C++ -----------------------===//

#include "runtime/Nvrtc.h"

#include <nvrtc.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <vector>
#include <algorithm>
#include <mutex>
#include <vector>

using namespace pipert;

#define PIPE_NVRTC_FUNCTIONS(X)                                                \
  X(nvrtcVersion)                                                              \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)                                                        \
  X(nvrtcGetCUBINSize)                                                         \
  X(nvrtcGetCUBIN)                                                             \
  X(nvrtcGetPTXSize)                                                           \
  X(nvrtcGetPTX)

namespace {
struct NvrtcApi {
#define PIPE_DECLARE_FN(name) decltype(&::name) name = nullptr;
  PIPE_NVRTC_FUNCTIONS(PIPE_DECLARE_FN)
#undef PIPE_DECLARE_FN
  /// The architectures it compiles for (NVRTC 11.2 on); empty when it
  /// cannot say.
  std::vector<int> supportedArchs;
};
} // namespace

static Result<const NvrtcApi *> getNvrtc() {
  static NvrtcApi api;
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> candidates = {"libnvrtc.so.13", "libnvrtc.so.12",
                                           "libnvrtc.so"};
    const char *roots[] = {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"),
                           "/usr/local/cuda"};
    for (const char *root : roots)
      if (root && *root)
        candidates.push_back(std::string(root) + "/lib64/libnvrtc.so");
    void *handle = nullptr;
    std::string errors;
    for (const std::string &candidate : candidates) {
      if ((handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
      errors += "\n  " + std::string(dlerror());
    }
    if (!handle) {
      status = Status::error("cannot load NVRTC (the CUDA toolkit's run-time "
                             "compiler; set CUDA_HOME to the toolkit):" +
                             errors);
      return;
    }
#define PIPE_LOAD_FN(name)                                                     \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));       \
  if (!api.name) {                                                             \
    status = Status::error("NVRTC lacks " + std::string(#name));               \
    return;                                                                    \
  }
    PIPE_NVRTC_FUNCTIONS(PIPE_LOAD_FN)
#undef PIPE_LOAD_FN
    using CountFn = nvrtcResult (*)(int *);
    using ListFn = nvrtcResult (*)(int *);
    auto count = reinterpret_cast<CountFn>(
        dlsym(handle, "nvrtcGetNumSupportedArchs"));
    auto list = reinterpret_cast<ListFn>(
        dlsym(handle, "nvrtcGetSupportedArchs"));
    int n = 0;
    if (count && list && count(&n) == NVRTC_SUCCESS && n > 0 && n < 1000) {
      api.supportedArchs.resize(size_t(n));
      if (list(api.supportedArchs.data()) != NVRTC_SUCCESS)
        api.supportedArchs.clear();
    }
  });
  if (!status.ok())
    return status;
  return &api;
}

// By default --fmad=false: no contraction into FMAs, so that results are
// bit-identical to the CPU reference executor. Fast math trades that for
// fewer instructions: FMAs and approximate division (what torch.compile's
// Triton kernels do).
static std::vector<const char *> compileOptions(bool fastMath) {
  // --device-int128: the mean of 64-bit integers sums in 128 bits.
  std::vector<const char *> options = {"--std=c++17",
                                       "--extra-device-vectorization",
                                       "--device-int128"};
  if (fastMath) {
    options.push_back("--fmad=true");
    options.push_back("--prec-div=false");
  } else {
    options.push_back("--fmad=false");
  }
  return options;
}

std::string pipert::nvrtcOptionsKey(bool fastMath) {
  std::string key;
  for (const char *option : compileOptions(fastMath))
    key += std::string(option) + " ";
  return key;
}

Result<std::string> pipert::getNvrtcVersion() {
  auto api = getNvrtc();
  if (!api)
    return api.status();
  int major = 0, minor = 0;
  (*api)->nvrtcVersion(&major, &minor);
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

/// Writes `source` where a person can read it after a failed compile.
static std::string saveSource(const std::string &source,
                              const std::string &name) {
  const char *dir = std::getenv("TMPDIR");
  size_t hash = std::hash<std::string>()(source);
  char suffix[32];
  snprintf(suffix, sizeof(suffix), "%016zx", hash);
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/pipe-" + name +
                     "-" + suffix + ".cu";
  if (FILE *file = fopen(path.c_str(), "w")) {
    fwrite(source.data(), 1, source.size(), file);
    fclose(file);
    return path;
  }
  return "(could not be written to " + path + ")";
}

Result<CompiledCuda> pipert::compileCuda(const std::string &source,
                                         const std::string &name, int arch,
                                         bool ptx, bool fastMath) {
  auto loaded = getNvrtc();
  if (!loaded)
    return loaded.status();
  const NvrtcApi &api = **loaded;
  // A target it has no backend for is the caller's choice (pipec
  // --gpu-arch), not a failed compile of this kernel: said as such.
  const std::vector<int> &archs = api.supportedArchs;
  if (!archs.empty() &&
      std::find(archs.begin(), archs.end(), arch) == archs.end()) {
    std::string known;
    for (int a : archs)
      known += (known.empty() ? "" : ", ") + std::to_string(a);
    int major = 0, minor = 0;
    api.nvrtcVersion(&major, &minor);
    return Status::badArgument(
        "compute capability " + std::to_string(arch) + " is not one NVRTC " +
        std::to_string(major) + "." + std::to_string(minor) +
        " compiles for (it does " + known + ")");
  }
  nvrtcProgram program;
  nvrtcResult result = api.nvrtcCreateProgram(
      &program, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
  if (result != NVRTC_SUCCESS)
    return Status::error(std::string("nvrtcCreateProgram failed: ") +
                         api.nvrtcGetErrorString(result));
  std::string archOption = std::string("--gpu-architecture=") +
                           (ptx ? "compute_" : "sm_") + std::to_string(arch);
  std::vector<const char *> options = compileOptions(fastMath);
  options.insert(options.begin(), archOption.c_str());
  result = api.nvrtcCompileProgram(program, int(options.size()), options.data());
  size_t logSize = 0;
  api.nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 1)
    api.nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (result != NVRTC_SUCCESS) {
    api.nvrtcDestroyProgram(&program);
    return Status::error("NVRTC failed to compile kernel '" + name + "' for " +
                         archOption.substr(19) + ": " +
                         api.nvrtcGetErrorString(result) + "\n" + log +
                         "\nthe generated source is in " +
                         saveSource(source, name));
  }
  CompiledCuda compiled;
  compiled.log = log;
  size_t size = 0;
  if (ptx) {
    api.nvrtcGetPTXSize(program, &size);
    compiled.image.resize(size);
    api.nvrtcGetPTX(program, compiled.image.data());
  } else {
    api.nvrtcGetCUBINSize(program, &size);
    compiled.image.resize(size);
    api.nvrtcGetCUBIN(program, compiled.image.data());
  }
  api.nvrtcDestroyProgram(&program);
  return compiled;
}
