//===- Executable.cpp - A loaded plan, ready to run -----------------------===//

#include "runtime/Executable.h"

#include "core/DimExpr.h"

#include "runtime/CudaDriver.h"
#include "runtime/KernelCache.h"
#include "runtime/KernelLauncher.h"
#include "runtime/Staging.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace pipert;

std::string pipert::describeBuffer(const Plan &plan, int b) {
  const std::string &name = plan.buffers[b].name;
  if (!name.empty())
    return "'" + name + "'";
  // An intermediate has no name of its own: where the source computes it
  // says which it is.
  std::string text = "intermediate %" + std::to_string(b);
  if (!plan.buffers[b].location.empty())
    return text + " (computed at " + plan.buffers[b].location + ")";
  for (const PlanKernel &kernel : plan.kernels)
    if (!kernel.location.empty() &&
        std::find(kernel.outputs.begin(), kernel.outputs.end(), b) !=
            kernel.outputs.end())
      return text + " (computed at " + kernel.location + ")";
  return text;
}

Result<std::unique_ptr<Executable>> Executable::load(Plan plan, int ordinal) {
  auto device = getCudaDevice(ordinal);
  if (!device)
    return device.status();
  const CudaDriver &cu = **getCudaDriver();
  std::unique_ptr<Executable> executable(new Executable(std::move(plan)));
  executable->device_ = ordinal;
  const Plan &loaded = executable->plan_;
  for (size_t k = 0; k < loaded.kernels.size(); ++k) {
    const PlanKernel &kernel = loaded.kernels[k];
    auto launcher = createKernelLauncher(loaded, k);
    if (!launcher)
      return launcher.status();
    // Prefer a cubin built for this very GPU, then PTX (the driver compiles
    // it for newer GPUs), then compile the source here (through the cache).
    std::string compiled;
    const std::string *image = nullptr;
    if (kernel.cubinArch == (*device)->arch && !kernel.cubin.empty()) {
      image = &kernel.cubin;
    } else if (!kernel.ptx.empty() && kernel.cubinArch <= (*device)->arch) {
      image = &kernel.ptx;
    } else {
      auto result = compileCubinCached(kernel.source, kernel.name,
                                       (*device)->arch, loaded.fastMath);
      if (!result)
        return result.status();
      compiled = result.take();
      image = &compiled;
    }
    CUmodule module = nullptr;
    if (Status s = checkCuda(cu.cuModuleLoadDataEx(&module, image->data(), 0,
                                                   nullptr, nullptr),
                             "cuModuleLoadDataEx",
                             "for kernel '" + kernel.name + "'");
        !s.ok())
      return s;
    executable->modules_.push_back(module);
    if (Status s = (*launcher)->load(cu, module); !s.ok())
      return s;
    executable->hasVerdicts_ |= (*launcher)->hasVerdict();
    executable->hasGuard_ |= kernel.guarded || kernel.raisesGuard;
    executable->launchers_.push_back(launcher.take());
  }
  if (Status s = executable->prepareControl(cu); !s.ok())
    return s;
  if (executable->hasGuard_) {
    // One guard word per run slot (Launch.h), zero: no run failed a check.
    if (Status s = checkCuda(cu.cuMemAlloc(&executable->guardWords_,
                                           kRunSlots * kRunWordBytes),
                             "cuMemAlloc", "for the runs' guard words");
        !s.ok())
      return s;
    std::vector<unsigned char> zeros(kRunSlots * kRunWordBytes, 0);
    if (Status s = checkCuda(cu.cuMemcpyHtoD(executable->guardWords_,
                                             zeros.data(), zeros.size()),
                             "cuMemcpyHtoD", "for the runs' guard words");
        !s.ok())
      return s;
  }
  // Constants (list literals) live on the device for the executable's life.
  for (const PlanBuffer &buffer : loaded.buffers) {
    CUdeviceptr ptr = 0;
    if (!buffer.constantData.empty()) {
      if (Status s = checkCuda(cu.cuMemAlloc(&ptr, buffer.constantData.size()),
                               "cuMemAlloc", "for a constant");
          !s.ok())
        return s;
      executable->constants_.push_back(ptr);
      if (Status s = checkCuda(cu.cuMemcpyHtoD(ptr, buffer.constantData.data(),
                                               buffer.constantData.size()),
                               "cuMemcpyHtoD", "for a constant");
          !s.ok())
        return s;
    }
    executable->constantPtrs_.push_back(ptr);
  }
  return executable;
}

Executable::Executable(Plan plan) : plan_(std::move(plan)) {}

Executable::~Executable() {
  auto driver = getCudaDriver();
  if (!driver)
    return;
  // What it frees lives in its device's context; the caller's is current
  // again after.
  CurrentContextRestorer callers(**driver);
  if (!getCudaDevice(device_))
    return;
  if (staging_)
    staging_->destroy(**driver);
  for (auto &launcher : launchers_)
    launcher->release(**driver);
  for (CUmodule module : modules_)
    (*driver)->cuModuleUnload(module);
  for (CUdeviceptr ptr : constants_)
    (*driver)->cuMemFree(ptr);
  if (controlHost_)
    (*driver)->cuMemFreeHost(controlHost_);
  if (guardWords_)
    (*driver)->cuMemFree(guardWords_);
}

Status Executable::prepareControl(const CudaDriver &cu) {
  const Plan &plan = plan_;
  controlSlot_.assign(plan.buffers.size(), -1);
  if (plan.choices.empty())
    return Status();
  for (int b : getConditionBuffers(plan))
    controlSlot_[b] = int(numControlSlots_++);
  return checkCuda(cu.cuMemHostAlloc(&controlHost_,
                                     numControlSlots_ + plan.choices.size(), 0),
                   "cuMemHostAlloc", "for branch conditions");
}

Status Executable::checkVerdicts() const {
  if (!hasVerdicts_)
    return Status();
  for (const auto &launcher : launchers_)
    if (Status s = launcher->verdict(); !s.ok())
      return s;
  return Status();
}

Status Executable::run(const std::vector<TensorRef> &inputs,
                       const std::vector<TensorRef> &outputs, CUstream stream,
                       bool wait) {
  return runWith(inputs, outputs, stream, wait, nullptr);
}

Status Executable::runWith(const std::vector<TensorRef> &inputs,
                           const std::vector<TensorRef> &outputs,
                           CUstream stream, bool wait,
                           ShardExchange *exchange) {
  std::lock_guard<std::mutex> lock(runMutex_);
  // 1. Validate everything before touching the GPU.
  std::vector<std::vector<int64_t>> shapes;
  auto sizes = checkRunTensors(plan_, inputs, outputs, shapes);
  if (!sizes)
    return Status::badArgument(sizes.status().message());

  // Checks of values already on the host (anchors, indices passed in host
  // memory) are made here, before anything is queued: a bad one fails the
  // run at once, a good one needs no kernel.
  std::vector<bool> checkedOnHost(launchers_.size(), false);
  for (size_t k = 0; k < launchers_.size(); ++k) {
    bool done = false;
    if (Status s = launchers_[k]->checkOnHost(plan_, inputs, *sizes, done);
        !s.ok())
      return s;
    checkedOnHost[k] = done;
  }

  auto device = getCudaDevice(device_);
  if (!device)
    return device.status();
  const CudaDriver &cu = **getCudaDriver();
  (*sizes)[kBatchOffsetDim] = random_.batchOffset;
  // The random numbers this run draws: the seed and the next random run
  // number, passed to kernels as dims (core/DimExpr.h). Every run that
  // gets this far draws anew.
  (*sizes)[kSeedDim] = int64_t(random_.seed);
  (*sizes)[kRandomRunDim] = int64_t(random_.run++);

  // 2. Buffers that need no memory of their own: a device input or output
  // is used in place, a constant has its own, a view shares its source's,
  // a chosen value is the buffer chosen. The rest are allocated from the
  // stream-ordered pool when the run first needs them (see schedule).
  RunAllocations allocations(cu, stream);
  const size_t numBuffers = plan_.buffers.size();
  std::vector<CUdeviceptr> ptrs(numBuffers, 0);
  std::vector<bool> bound(numBuffers, false);
  for (int i = 0; i < plan_.numParams; ++i)
    if (inputs[i].memory == Memory::Device) {
      ptrs[i] = reinterpret_cast<CUdeviceptr>(inputs[i].data);
      bound[i] = true;
    }
  for (size_t b = 0; b < numBuffers; ++b)
    if (constantPtrs_[b]) {
      ptrs[b] = constantPtrs_[b];
      bound[b] = true;
    }
  for (size_t r = 0; r < outputs.size(); ++r) {
    int buffer = plan_.results[r];
    const PlanBuffer &planBuffer = plan_.buffers[buffer];
    if (buffer >= plan_.numParams && !bound[buffer] &&
        planBuffer.aliasOf < 0 && planBuffer.choice < 0 &&
        controlSlot_[buffer] < 0 && outputs[r].memory == Memory::Device) {
      ptrs[buffer] = reinterpret_cast<CUdeviceptr>(outputs[r].data);
      bound[buffer] = true;
    }
  }
  // Host parameters are copied in before anything runs.
  for (int i = 0; i < plan_.numParams; ++i) {
    if (bound[i])
      continue;
    size_t bytes = size_t(numElementsOf(shapes[i])) *
                   dtypeSize(plan_.buffers[i].dtype);
    if (Status s = allocations.allocate(bytes, describeBuffer(plan_, i),
                                        &ptrs[i]);
        !s.ok())
      return s;
    bound[i] = true;
  }
  CUdeviceptr controlBlock = 0;
  if (numControlSlots_ > 0) {
    // The conditions the host reads live side by side, so that those ready
    // at one decision come back in one copy.
    CUdeviceptr block = 0;
    if (Status s = allocations.allocate(numControlSlots_,
                                        "the branch conditions", &block);
        !s.ok())
      return s;
    // Zeroed, since one copy brings back slots not yet computed, and a
    // guarded kernel leaves its slot unwritten after a failed check (the
    // host then stops the run, but the copy has read the slot).
    if (Status s = checkCuda(cu.cuMemsetD8Async(block, 0, numControlSlots_,
                                                stream),
                             "cuMemsetD8Async", "for the branch conditions");
        !s.ok())
      return s;
    for (size_t b = 0; b < numBuffers; ++b)
      if (controlSlot_[b] >= 0) {
        ptrs[b] = block + controlSlot_[b];
        bound[b] = true;
      }
    controlBlock = block;
  }

  // 3. Copy host inputs in, launch, copy results out, wait.
  bool anyHost = false;
  for (const TensorRef &t : inputs)
    anyHost |= t.memory == Memory::Host && t.numBytes() > 0;
  for (const TensorRef &t : outputs)
    anyHost |= t.memory == Memory::Host && t.numBytes() > 0;
  // Off by default: on the H200 machine measured (bench/, normalize of a
  // 16x512x512 batch host to host) the driver's own copies from pageable
  // memory took 5.0 ms, staging through pinned buffers 6.7 ms: one CPU
  // thread's memcpy into pinned memory is the bottleneck.
  const char *stagingSetting = std::getenv("PIPE_PINNED_STAGING");
  bool stagingEnabled = stagingSetting && std::string(stagingSetting) == "1";
  Staging *staging = nullptr;
  if (wait && anyHost && stagingEnabled) {
    if (!staging_) {
      auto created = Staging::create(cu);
      if (created)
        staging_ = created.take();
    }
    staging = staging_.get(); // null if pinned memory ran out: pageable then
  }
  for (int i = 0; i < plan_.numParams; ++i)
    if (inputs[i].memory == Memory::Host && inputs[i].numBytes() > 0) {
      CUresult result =
          staging ? staging->upload(cu, ptrs[i], inputs[i].data,
                                    inputs[i].numBytes(), stream)
                  : cu.cuMemcpyHtoDAsync(ptrs[i], inputs[i].data,
                                         inputs[i].numBytes(), stream);
      if (result != CUDA_SUCCESS)
        return checkCuda(result, "cuMemcpyHtoDAsync",
                         "copying input '" + plan_.buffers[i].name +
                             "' to the device");
    }

  // Device words tagged with the run's number need no reset between runs;
  // when the numbers wrap, the launchers forget the old tags first.
  if (++runNumber_ == (1ull << kRunNumberBits)) {
    runNumber_ = 1;
    for (auto &launcher : launchers_)
      if (Status s = launcher->forgetRuns(cu, stream); !s.ok())
        return s;
    if (guardWords_)
      if (Status s = checkCuda(cu.cuMemsetD8Async(guardWords_, 0,
                                                  kRunSlots * kRunWordBytes,
                                                  stream),
                               "cuMemsetD8Async", "for the runs' guard words");
          !s.ok())
        return s;
  }
  CUdeviceptr guardWord =
      guardWords_ ? guardWords_ + (runNumber_ % kRunSlots) * kRunWordBytes : 0;
  for (auto &launcher : launchers_)
    launcher->beginRun();
  stats_ = RunStats();
  LaunchContext context{cu,     **device, stream,     allocations,
                        *sizes, ptrs,     shapes,     runNumber_,
                        guardWord, stats_};
  RunState state{context, ptrs,          bound,
                 inputs,  controlBlock, checkedOnHost,
                 exchange};
  if (Status s = schedule(state); !s.ok())
    return s;

  // A kernel that found bad input on the GPU (a blur's window, a check)
  // wrote nothing, nor did those after a check; copying device buffers to
  // the outputs would. So outputs that are copies wait for the verdicts.
  bool copiedOutputs = false;
  for (size_t r = 0; r < outputs.size(); ++r)
    copiedOutputs |= outputs[r].numBytes() > 0 &&
                     (outputs[r].memory == Memory::Host ||
                      reinterpret_cast<CUdeviceptr>(outputs[r].data) !=
                          ptrs[plan_.results[r]]);
  if (hasVerdicts_ && copiedOutputs) {
    if (CUresult r = cu.cuStreamSynchronize(stream); r != CUDA_SUCCESS)
      return checkCuda(r, "cuStreamSynchronize",
                       "after running pipeline '" + plan_.name + "'");
    if (Status s = checkVerdicts(); !s.ok())
      return s;
  }
  for (size_t r = 0; r < outputs.size(); ++r) {
    const TensorRef &output = outputs[r];
    CUdeviceptr source = ptrs[plan_.results[r]];
    size_t bytes = output.numBytes();
    if (bytes == 0)
      continue;
    if (output.memory == Memory::Host) {
      CUresult result =
          staging ? staging->download(cu, output.data, source, bytes, stream)
                  : cu.cuMemcpyDtoHAsync(output.data, source, bytes, stream);
      if (result != CUDA_SUCCESS)
        return checkCuda(result, "cuMemcpyDtoHAsync",
                         "copying result '" + plan_.resultNames[r] +
                             "' to the host");
    } else if (reinterpret_cast<CUdeviceptr>(output.data) != source) {
      CUresult result = cu.cuMemcpyDtoDAsync(
          reinterpret_cast<CUdeviceptr>(output.data), source, bytes, stream);
      if (result != CUDA_SUCCESS)
        return checkCuda(result, "cuMemcpyDtoDAsync",
                         "copying result '" + plan_.resultNames[r] + "'");
    }
  }
  if (!wait)
    return Status();
  CUresult result = cu.cuStreamSynchronize(stream);
  if (result != CUDA_SUCCESS)
    return checkCuda(result, "cuStreamSynchronize",
                     "after running pipeline '" + plan_.name + "'");
  return checkVerdicts();
}

Status pipert::waitFor(CUstream stream) {
  auto driver = getCudaDriver();
  if (!driver)
    return driver.status();
  return checkCuda((*driver)->cuStreamSynchronize(stream),
                   "cuStreamSynchronize");
}

Status Executable::wait(CUstream stream) const {
  std::lock_guard<std::mutex> lock(runMutex_);
  if (auto device = getCudaDevice(device_); !device)
    return device.status();
  if (Status s = waitFor(stream); !s.ok())
    return s;
  return checkVerdicts();
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
  for (size_t r = 0; r < shapes->size(); ++r) {
    const PlanBuffer &buffer = plan_.buffers[plan_.results[r]];
    auto result = HostTensor::allocate(buffer.dtype, (*shapes)[r]);
    if (!result)
      return Status::error("result '" + buffer.name +
                           "': " + result.status().message());
    results.push_back(result.take());
  }
  for (HostTensor &result : results) {
    TensorRef ref = result.ref();
    outputs.push_back(ref);
  }
  if (Status s = run(refs, outputs); !s.ok())
    return s;
  return results;
}
