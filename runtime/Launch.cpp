//===- Launch.cpp - What every kernel family's launcher shares ------------===//

#include "runtime/Launch.h"

#include "core/DimExpr.h"
#include "runtime/CudaDriver.h"

#include <algorithm>
#include <cstdlib>

using namespace pipert;

RunAllocations::~RunAllocations() {
  for (CUdeviceptr ptr : owned)
    cu.cuMemFreeAsync(ptr, stream);
}

Status RunAllocations::allocate(size_t bytes, const std::string &what,
                                CUdeviceptr *ptr) {
  *ptr = 0;
  if (bytes == 0)
    return Status();
  CUresult result = cu.cuMemAllocAsync(ptr, bytes, stream);
  if (result != CUDA_SUCCESS)
    return checkCuda(result, "cuMemAllocAsync",
                     "allocating " + std::to_string(bytes) +
                         " bytes of device memory for " + what);
  owned.push_back(*ptr);
  return Status();
}

/// Whether kernels launch with programmatic dependent launch (Hopper and
/// later): a kernel's blocks are scheduled while the kernel before it in
/// the stream finishes, and wait in pipe_wait_for_previous_kernel
/// (codegen/PipeKernel.cuh, the first thing every generated entry does)
/// until it has completed and its writes are visible. This hides most of
/// the launch gap between dependent kernels. PIPE_DISABLE_PDL=1 turns it off
/// (to measure it, or to rule it out).
static bool usesDependentLaunch(const LaunchContext &ctx) {
  static const bool disabled = [] {
    const char *value = std::getenv("PIPE_DISABLE_PDL");
    return value && *value && std::string(value) != "0";
  }();
  return !disabled && ctx.cu.cuLaunchKernelEx && ctx.device.arch >= 90;
}

Status pipert::launchKernel(const LaunchContext &ctx, CUfunction function,
                            const std::string &entry, Grid grid,
                            unsigned threadsX, unsigned threadsY,
                            std::vector<void *> &params) {
  CUresult result;
  if (!usesDependentLaunch(ctx)) {
    result = ctx.cu.cuLaunchKernel(function, grid.x, grid.y, grid.z, threadsX,
                                   threadsY, 1, 0, ctx.stream, params.data(),
                                   nullptr);
  } else {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = grid.z;
    config.blockDimX = threadsX;
    config.blockDimY = threadsY;
    config.blockDimZ = 1;
    config.hStream = ctx.stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    result = ctx.cu.cuLaunchKernelEx(&config, function, params.data(), nullptr);
  }
  if (result != CUDA_SUCCESS)
    return checkCuda(result, "cuLaunchKernel", "for kernel '" + entry + "'");
  return Status();
}

Status pipert::launchKernel(const LaunchContext &ctx, CUfunction function,
                            const std::string &entry, long long blocks,
                            unsigned threadsX, unsigned threadsY,
                            std::vector<void *> &params) {
  return launchKernel(ctx, function, entry,
                      Grid{unsigned(std::max(1LL, blocks))}, threadsX,
                      threadsY, params);
}

int64_t pipert::numElementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

void pipert::addGuardArgs(const LaunchContext &ctx, const PlanKernel &kernel,
                          std::vector<void *> &args) {
  if (!kernel.guarded)
    return;
  // cuLaunchKernel only reads through the argument pointers.
  args.push_back(const_cast<CUdeviceptr *>(&ctx.guardWord));
  args.push_back(const_cast<unsigned long long *>(&ctx.runNumber));
}

std::vector<long long> pipert::dimValues(const LaunchContext &ctx,
                                         const std::vector<std::string> &dims) {
  std::vector<long long> values;
  for (const std::string &dim : dims)
    values.push_back(ctx.sizes.at(dim));
  return values;
}

std::vector<int64_t> pipert::resolveDims(const LaunchContext &ctx,
                                         const std::vector<PlanDim> &dims) {
  std::vector<int64_t> sizes;
  for (const PlanDim &dim : dims)
    sizes.push_back(dim.symbol.empty() ? dim.size
                                       : *evaluateDim(dim.symbol, ctx.sizes));
  return sizes;
}
