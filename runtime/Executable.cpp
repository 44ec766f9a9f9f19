//===- Executable.cpp - A loaded plan, ready to run -----------------------===//

#include "runtime/Executable.h"

#include "runtime/CudaDriver.h"
#include "runtime/Nvrtc.h"

#include <algorithm>
#include <limits>

using namespace pipert;

struct Executable::LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

static std::string describeDims(const std::vector<PlanDim> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") +
            (dims[i].symbol.empty() ? std::to_string(dims[i].size)
                                    : dims[i].symbol);
  return text + "]";
}

Result<std::unique_ptr<Executable>> Executable::load(Plan plan) {
  auto device = getCudaDevice();
  if (!device)
    return device.status();
  const CudaDriver &cu = **getCudaDriver();
  std::unique_ptr<Executable> executable(new Executable(std::move(plan)));
  for (const PlanKernel &kernel : executable->plan_.kernels) {
    // Prefer a cubin built for this very GPU, then PTX (the driver compiles
    // it for newer GPUs), then compile the source here.
    std::string compiled;
    const std::string *image = nullptr;
    if (kernel.cubinArch == (*device)->arch && !kernel.cubin.empty()) {
      image = &kernel.cubin;
    } else if (!kernel.ptx.empty() && kernel.cubinArch <= (*device)->arch) {
      image = &kernel.ptx;
    } else {
      auto result = compileCuda(kernel.source, kernel.entry, (*device)->arch,
                                /*ptx=*/false);
      if (!result)
        return result.status();
      compiled = std::move(result->image);
      image = &compiled;
    }
    auto loaded = std::make_unique<LoadedKernel>();
    if (Status s = checkCuda(
            cu.cuModuleLoadDataEx(&loaded->module, image->data(), 0, nullptr,
                                  nullptr),
            "cuModuleLoadDataEx", "for kernel '" + kernel.entry + "'");
        !s.ok())
      return s;
    if (Status s = checkCuda(cu.cuModuleGetFunction(&loaded->function,
                                                    loaded->module,
                                                    kernel.entry.c_str()),
                             "cuModuleGetFunction",
                             "for kernel '" + kernel.entry + "'");
        !s.ok()) {
      cu.cuModuleUnload(loaded->module);
      return s;
    }
    executable->kernels_.push_back(std::move(loaded));
  }
  return executable;
}

Executable::Executable(Plan plan) : plan_(std::move(plan)) {}

Executable::~Executable() {
  auto driver = getCudaDriver();
  if (!driver)
    return;
  for (auto &kernel : kernels_)
    if (kernel->module)
      (*driver)->cuModuleUnload(kernel->module);
}

Result<std::map<std::string, int64_t>>
pipert::bindDims(const std::string &pipeline,
                 const std::vector<PlanBuffer> &params,
                 const std::vector<TensorRef> &inputs) {
  if (inputs.size() != params.size())
    return Status::error("pipeline '" + pipeline + "' takes " +
                         std::to_string(params.size()) + " inputs, got " +
                         std::to_string(inputs.size()));
  std::map<std::string, int64_t> sizes;
  std::map<std::string, std::string> boundBy;
  for (size_t i = 0; i < params.size(); ++i) {
    const PlanBuffer &param = params[i];
    const TensorRef &input = inputs[i];
    std::string what = "input '" + param.name + "'";
    if (input.dtype != param.dtype)
      return Status::error(what + " has dtype " + dtypeName(input.dtype) +
                           " but the pipeline expects " +
                           dtypeName(param.dtype) + describeDims(param.dims));
    if (input.shape.size() != param.dims.size())
      return Status::error(what + " has rank " +
                           std::to_string(input.shape.size()) + " (" +
                           describeTensor(input.dtype, input.shape) +
                           ") but the pipeline expects rank " +
                           std::to_string(param.dims.size()) + " (" +
                           dtypeName(param.dtype) + describeDims(param.dims) +
                           ")");
    for (size_t d = 0; d < param.dims.size(); ++d) {
      const PlanDim &dim = param.dims[d];
      int64_t size = input.shape[d];
      if (size < 0)
        return Status::error(what + " has a negative size in dim " +
                             std::to_string(d));
      if (dim.symbol.empty()) {
        if (size != dim.size)
          return Status::error(what + " dim " + std::to_string(d) + " is " +
                               std::to_string(size) + " but must be " +
                               std::to_string(dim.size));
        continue;
      }
      auto [it, inserted] = sizes.emplace(dim.symbol, size);
      if (inserted) {
        boundBy[dim.symbol] = what + " dim " + std::to_string(d);
      } else if (it->second != size) {
        return Status::error("dim " + dim.symbol + " is " +
                             std::to_string(it->second) + " in " +
                             boundBy[dim.symbol] + " but " +
                             std::to_string(size) + " in " + what + " dim " +
                             std::to_string(d));
      }
    }
    if (input.numElements() > 0 && !input.data)
      return Status::error(what + " is a null pointer");
  }
  return sizes;
}

std::vector<int64_t>
pipert::shapeOf(const PlanBuffer &buffer,
                const std::map<std::string, int64_t> &sizes) {
  std::vector<int64_t> shape;
  for (const PlanDim &dim : buffer.dims)
    shape.push_back(dim.symbol.empty() ? dim.size : sizes.at(dim.symbol));
  return shape;
}

static int64_t numElementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Result<std::vector<std::vector<int64_t>>>
Executable::resultShapes(const std::vector<TensorRef> &inputs) const {
  auto sizes = bindDims(plan_.name,
                        std::vector<PlanBuffer>(plan_.buffers.begin(),
                                                plan_.buffers.begin() +
                                                    plan_.numParams),
                        inputs);
  if (!sizes)
    return sizes.status();
  std::vector<std::vector<int64_t>> shapes;
  for (int buffer : plan_.results)
    shapes.push_back(shapeOf(plan_.buffers[buffer], *sizes));
  return shapes;
}

namespace {
/// Device memory of one run, freed (stream-ordered) when the run ends.
class RunAllocations {
public:
  RunAllocations(const CudaDriver &cu, CUstream stream)
      : cu(cu), stream(stream) {}
  ~RunAllocations() {
    for (CUdeviceptr ptr : owned)
      cu.cuMemFreeAsync(ptr, stream);
  }
  Status allocate(size_t bytes, const std::string &what, CUdeviceptr *ptr) {
    *ptr = 0;
    if (bytes == 0)
      return Status();
    Status s = checkCuda(cu.cuMemAllocAsync(ptr, bytes, stream),
                         "cuMemAllocAsync",
                         "allocating " + std::to_string(bytes) +
                             " bytes of device memory for " + what);
    if (s.ok())
      owned.push_back(*ptr);
    return s;
  }

private:
  const CudaDriver &cu;
  CUstream stream;
  std::vector<CUdeviceptr> owned;
};
} // namespace

Status Executable::run(const std::vector<TensorRef> &inputs,
                       const std::vector<TensorRef> &outputs,
                       CUstream stream) {
  // 1. Validate everything before touching the GPU.
  auto sizes = bindDims(plan_.name,
                        std::vector<PlanBuffer>(plan_.buffers.begin(),
                                                plan_.buffers.begin() +
                                                    plan_.numParams),
                        inputs);
  if (!sizes)
    return sizes.status();
  if (outputs.size() != plan_.results.size())
    return Status::error("pipeline '" + plan_.name + "' has " +
                         std::to_string(plan_.results.size()) +
                         " results, got " + std::to_string(outputs.size()) +
                         " output tensors");
  std::vector<std::vector<int64_t>> shapes;
  for (const PlanBuffer &buffer : plan_.buffers)
    shapes.push_back(shapeOf(buffer, *sizes));
  for (size_t r = 0; r < outputs.size(); ++r) {
    const PlanBuffer &buffer = plan_.buffers[plan_.results[r]];
    const TensorRef &output = outputs[r];
    std::string what = "output '" + plan_.resultNames[r] + "'";
    const std::vector<int64_t> &shape = shapes[plan_.results[r]];
    if (output.dtype != buffer.dtype || output.shape != shape)
      return Status::error(what + " is " +
                           describeTensor(output.dtype, output.shape) +
                           " but the result is " +
                           describeTensor(buffer.dtype, shape));
    if (output.numElements() > 0 && !output.data)
      return Status::error(what + " is a null pointer");
  }

  auto device = getCudaDevice();
  if (!device)
    return device.status();
  const CudaDriver &cu = **getCudaDriver();

  // 2. Give every buffer device memory: a device input or output is used in
  // place; anything else is allocated for this run.
  RunAllocations allocations(cu, stream);
  std::vector<CUdeviceptr> ptrs(plan_.buffers.size(), 0);
  std::vector<bool> bound(plan_.buffers.size(), false);
  for (int i = 0; i < plan_.numParams; ++i)
    if (inputs[i].memory == Memory::Device) {
      ptrs[i] = reinterpret_cast<CUdeviceptr>(inputs[i].data);
      bound[i] = true;
    }
  for (size_t r = 0; r < outputs.size(); ++r) {
    int buffer = plan_.results[r];
    if (buffer >= plan_.numParams && !bound[buffer] &&
        outputs[r].memory == Memory::Device) {
      ptrs[buffer] = reinterpret_cast<CUdeviceptr>(outputs[r].data);
      bound[buffer] = true;
    }
  }
  for (size_t b = 0; b < plan_.buffers.size(); ++b) {
    if (bound[b])
      continue;
    size_t bytes =
        size_t(numElementsOf(shapes[b])) * dtypeSize(plan_.buffers[b].dtype);
    std::string what = plan_.buffers[b].name.empty()
                           ? "an intermediate"
                           : "'" + plan_.buffers[b].name + "'";
    if (Status s = allocations.allocate(bytes, what, &ptrs[b]); !s.ok())
      return s;
  }

  // 3. Copy host inputs in, launch, copy results out, wait.
  for (int i = 0; i < plan_.numParams; ++i)
    if (inputs[i].memory == Memory::Host && inputs[i].numBytes() > 0)
      if (Status s = checkCuda(cu.cuMemcpyHtoDAsync(ptrs[i], inputs[i].data,
                                                    inputs[i].numBytes(),
                                                    stream),
                               "cuMemcpyHtoDAsync",
                               "copying input '" + plan_.buffers[i].name +
                                   "' to the device");
          !s.ok())
        return s;

  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    const PlanKernel &kernel = plan_.kernels[k];
    long long n = numElementsOf(shapes[kernel.outputs.front()]);
    if (n == 0)
      continue;
    std::vector<CUdeviceptr> args;
    for (int b : kernel.inputs)
      args.push_back(ptrs[b]);
    for (int b : kernel.outputs)
      args.push_back(ptrs[b]);
    std::vector<void *> params;
    for (CUdeviceptr &arg : args)
      params.push_back(&arg);
    params.push_back(&n);
    const unsigned threads = 256;
    long long wanted = (n + threads - 1) / threads;
    // A grid-stride loop covers the rest; more blocks than this only adds
    // scheduling work.
    long long cap = (long long)(*device)->multiprocessors * 16;
    unsigned blocks = unsigned(std::max(1LL, std::min(wanted, cap)));
    if (Status s = checkCuda(cu.cuLaunchKernel(kernels_[k]->function, blocks,
                                               1, 1, threads, 1, 1, 0, stream,
                                               params.data(), nullptr),
                             "cuLaunchKernel",
                             "for kernel '" + kernel.entry + "'");
        !s.ok())
      return s;
  }

  for (size_t r = 0; r < outputs.size(); ++r) {
    const TensorRef &output = outputs[r];
    CUdeviceptr source = ptrs[plan_.results[r]];
    size_t bytes = output.numBytes();
    if (bytes == 0)
      continue;
    std::string context = "copying result '" + plan_.resultNames[r] + "'";
    if (output.memory == Memory::Host) {
      if (Status s = checkCuda(
              cu.cuMemcpyDtoHAsync(output.data, source, bytes, stream),
              "cuMemcpyDtoHAsync", context + " to the host");
          !s.ok())
        return s;
    } else if (reinterpret_cast<CUdeviceptr>(output.data) != source) {
      if (Status s = checkCuda(
              cu.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(output.data),
                                   source, bytes, stream),
              "cuMemcpyDtoDAsync", context);
          !s.ok())
        return s;
    }
  }
  return checkCuda(cu.cuStreamSynchronize(stream), "cuStreamSynchronize",
                   "after running pipeline '" + plan_.name + "'");
}

Result<std::vector<HostTensor>>
Executable::run(const std::vector<HostTensor> &inputs) {
  std::vector<TensorRef> refs;
  for (const HostTensor &input : inputs)
    refs.push_back(input.ref());
  auto shapes = resultShapes(refs);
  if (!shapes)
    return shapes.status();
  std::vector<HostTensor> results;
  std::vector<TensorRef> outputs;
  for (size_t r = 0; r < shapes->size(); ++r)
    results.emplace_back(plan_.buffers[plan_.results[r]].dtype, (*shapes)[r]);
  for (HostTensor &result : results) {
    TensorRef ref = result.ref();
    outputs.push_back(ref);
  }
  if (Status s = run(refs, outputs); !s.ok())
    return s;
  return results;
}
