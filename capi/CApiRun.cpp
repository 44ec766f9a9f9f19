//===- CApiRun.cpp - Pipe's C API over a plan and the runtime -------------===//
//
// pipe_c.h's functions that need no compiler: a pipeline's parameters and
// results, its runs on DLPack tensors, the results' DLPack owners, and
// pipe_load_aot for a plan compiled ahead of time. Each converts DLPack
// tensors to the runtime's TensorRefs (checking what the runtime assumes:
// dtype, compact row-major layout, a memory it can reach) and turns a
// Status into a pipe_status and the thread's last error. Nothing throws
// across. pipe_compile is in CApiCompile.cpp, the images in CApiImages.cpp.
//
//===----------------------------------------------------------------------===//

#include "capi/CApiPipeline.h"

#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

using pipert::DType;
using pipert::Status;
using namespace pipecapi;

void pipe_pipeline::describe() {
  const pipert::Plan &p = plan();
  auto describeBuffers = [&](const std::vector<int> &ids,
                             const std::vector<std::string> &names,
                             const std::vector<pipert::PlanMemory> &memories,
                             std::vector<Info> &out) {
    out.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const pipert::PlanBuffer &buffer = p.buffers[ids[i]];
      Info &info = out[i];
      info.name = names[i];
      for (const pipert::PlanDim &dim : buffer.dims) {
        info.sizes.push_back(dim.symbol.empty() ? dim.size : -1);
        info.dims.push_back(dim.symbol.empty() ? std::to_string(dim.size)
                                               : dim.symbol);
      }
      for (const std::string &dim : info.dims)
        info.dimTexts.push_back(dim.c_str());
      pipert::PlanMemory memory =
          i < memories.size() ? memories[i] : pipert::PlanMemory::Any;
      info.info = pipe_tensor_info{
          info.name.c_str(), toDLPack(buffer.dtype), int32_t(info.dims.size()),
          info.sizes.data(), info.dimTexts.data(),
          memory == pipert::PlanMemory::Host     ? PIPE_MEMORY_HOST
          : memory == pipert::PlanMemory::Device ? PIPE_MEMORY_DEVICE
                                                 : PIPE_MEMORY_ANY};
    }
  };
  std::vector<int> ids;
  std::vector<std::string> names;
  std::vector<pipert::PlanMemory> memories;
  for (int i = 0; i < p.numParams; ++i) {
    ids.push_back(i);
    names.push_back(p.buffers[i].name);
    memories.push_back(p.buffers[i].memory);
  }
  describeBuffers(ids, names, memories, params);
  describeBuffers(p.results, p.resultNames, p.resultMemory, results);
}

namespace {
thread_local std::string lastError;
} // namespace

pipe_status pipecapi::fail(pipe_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

pipe_status pipecapi::fail(pipe_status status, const Status &s) {
  if (s.message().rfind("internal error", 0) == 0)
    status = PIPE_ERROR_INTERNAL;
  return fail(status, s.message());
}

DLDataType pipecapi::toDLPack(DType dtype) {
  auto make = [](uint8_t code, uint8_t bits) {
    return DLDataType{code, bits, 1};
  };
  switch (dtype) {
  case DType::U8: return make(kDLUInt, 8);
  case DType::I8: return make(kDLInt, 8);
  case DType::U16: return make(kDLUInt, 16);
  case DType::I16: return make(kDLInt, 16);
  case DType::U32: return make(kDLUInt, 32);
  case DType::I32: return make(kDLInt, 32);
  case DType::U64: return make(kDLUInt, 64);
  case DType::I64: return make(kDLInt, 64);
  case DType::F16: return make(kDLFloat, 16);
  case DType::F32: return make(kDLFloat, 32);
  case DType::F64: return make(kDLFloat, 64);
  case DType::BF16: return make(kDLBfloat, 16);
  case DType::Bool: return make(kDLBool, 8);
  }
  return make(kDLOpaqueHandle, 0);
}

std::string pipecapi::describeDLPack(DLDataType t) {
  std::string code;
  switch (t.code) {
  case kDLInt: code = "int"; break;
  case kDLUInt: code = "uint"; break;
  case kDLFloat: code = "float"; break;
  case kDLBfloat: code = "bfloat"; break;
  case kDLBool: code = "bool"; break;
  default: code = "type code " + std::to_string(t.code) + " of bits "; break;
  }
  std::string text = code + std::to_string(t.bits);
  if (t.lanes != 1)
    text += "x" + std::to_string(t.lanes);
  return text;
}

namespace {

std::string describeDevice(DLDevice device) {
  switch (device.device_type) {
  case kDLCPU: return "cpu";
  case kDLCUDA: return "cuda:" + std::to_string(device.device_id);
  case kDLCUDAHost: return "cuda_host";
  case kDLCUDAManaged: return "cuda_managed:" + std::to_string(device.device_id);
  default: return "device type " + std::to_string(int(device.device_type));
  }
}

} // namespace

pipert::Result<pipert::TensorRef>
pipecapi::toTensorRef(const DLTensor &tensor, DType dtype, const char *kind,
                      const std::string &name, const char *hostOnlyWhy) {
  // The name is put together only for a message: a run's checks make no
  // strings.
  auto what = [&] { return std::string(kind) + " '" + name + "'"; };
  pipert::TensorRef ref;
  ref.dtype = dtype;
  DLDataType want = toDLPack(dtype);
  if (tensor.dtype.code != want.code || tensor.dtype.bits != want.bits ||
      tensor.dtype.lanes != 1)
    return Status::error(what() + " is " + describeDLPack(tensor.dtype) +
                         " but the pipeline takes " + pipert::dtypeName(dtype) +
                         " (" + describeDLPack(want) + ")");
  if (tensor.ndim < 0 || (tensor.ndim > 0 && !tensor.shape))
    return Status::error(what() + " has no shape");
  ref.shape.assign(tensor.shape, tensor.shape + tensor.ndim);
  for (int d = 0; d < tensor.ndim; ++d)
    if (tensor.shape[d] < 0)
      return Status::error(what() + " has a negative size in dim " +
                           std::to_string(d));
  if (!pipert::checkedNumBytes(dtype, ref.shape))
    return Status::error(what() + " is " +
                         pipert::describeTensor(dtype, ref.shape) +
                         ", whose size in bytes passes 2^63");
  // Compact row-major: strides absent, or those of that layout (any stride
  // along a dim of size 1; any strides at all when a dim is 0, as torch
  // gives empty tensors).
  bool empty = false;
  for (int d = 0; d < tensor.ndim; ++d)
    empty |= tensor.shape[d] == 0;
  if (tensor.strides && !empty) {
    int64_t expected = 1;
    for (int d = tensor.ndim - 1; d >= 0; --d) {
      if (tensor.shape[d] != 1 && tensor.strides[d] != expected)
        return Status::error(
            what() + " is not compact and row-major (dim " +
            std::to_string(d) + " has stride " +
            std::to_string(tensor.strides[d]) + " elements, not " +
            std::to_string(expected) + "); pass a contiguous copy");
      expected *= tensor.shape[d];
    }
  }
  switch (tensor.device.device_type) {
  case kDLCPU:
  case kDLCUDAHost:
    ref.memory = pipert::Memory::Host;
    break;
  case kDLCUDA:
  case kDLCUDAManaged:
    if (hostOnlyWhy)
      return Status::error(what() + " is on " + describeDevice(tensor.device) +
                           "; " + hostOnlyWhy);
    if (tensor.device.device_id != 0)
      return Status::error(what() + " is on " + describeDevice(tensor.device) +
                           "; Pipe runs on cuda:0");
    ref.memory = pipert::Memory::Device;
    break;
  default:
    return Status::error(what() + " is on " + describeDevice(tensor.device) +
                         ", which Pipe cannot reach (it takes cpu, "
                         "cuda_host and cuda:0 memory)");
  }
  ref.data = static_cast<char *>(tensor.data) + tensor.byte_offset;
  if (ref.numElements() > 0 && !tensor.data)
    return Status::error(what() + " is a null pointer");
  return ref;
}

namespace {

const char *const kReferenceTakesHost =
    "the reference backend runs on the CPU and takes host tensors";

const char *hostOnlyFor(pipe_backend backend) {
  return backend == PIPE_BACKEND_REFERENCE ? kReferenceTakesHost : nullptr;
}

pipert::Result<std::vector<pipert::TensorRef>>
toInputRefs(const pipe_pipeline &p, const DLTensor *inputs, int32_t count,
            pipe_backend backend) {
  const pipert::Plan &plan = p.plan();
  if (count > 0 && !inputs)
    return Status::error("the inputs are NULL but their count is " +
                         std::to_string(count));
  if (count != plan.numParams)
    return Status::error(pipert::describeInputCount(
        plan.name, size_t(plan.numParams), size_t(count)));
  std::vector<pipert::TensorRef> refs;
  refs.reserve(size_t(count));
  for (int32_t i = 0; i < count; ++i) {
    auto ref = toTensorRef(inputs[i], plan.buffers[i].dtype, "input",
                           plan.buffers[i].name, hostOnlyFor(backend));
    if (!ref)
      return ref.status();
    refs.push_back(ref.take());
  }
  return refs;
}

Status checkOutputCount(const pipert::Plan &plan, int32_t outputs,
                        bool outputsGiven) {
  if (outputs > 0 && !outputsGiven)
    return Status::error("the outputs are NULL but their count is " +
                         std::to_string(outputs));
  if (size_t(outputs) != plan.results.size())
    return Status::error(pipert::describeOutputCount(
        plan.name, plan.results.size(), size_t(outputs)));
  return Status();
}

/// An AOT plan's pipeline: the Executable is loaded on the first run (a
/// failed load is retried on the next), the random state kept until then.
class AotPipeline final : public pipe_pipeline {
public:
  explicit AotPipeline(const pipert::Plan &plan) : plan_(plan) {}

  const pipert::Plan &plan() const override { return plan_; }

  Status run(const std::vector<pipert::TensorRef> &inputs,
             const std::vector<pipert::TensorRef> &outputs,
             CUstream stream) override {
    pipert::Executable *executable = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!executable_) {
        // The tensors first, so that a bad one is named before a missing
        // GPU or a failed load is; once loaded, the run checks them.
        if (Status s = pipert::checkRunArguments(plan_, inputs, outputs);
            !s.ok())
          return s;
        auto loaded = pipert::Executable::load(plan_);
        if (!loaded)
          return loaded.status();
        executable_ = loaded.take();
        executable_->setRandomState(random_);
      }
      executable = executable_.get();
    }
    // Executable::run serializes the runs itself.
    return executable->run(inputs, outputs, stream, /*wait=*/true);
  }

  bool hasReference() const override { return false; }
  pipert::Result<std::vector<pipert::HostTensor>>
  runReference(const std::vector<pipert::HostTensor> &,
               pipert::RandomState) const override {
    return Status::error("internal error: an AOT plan has no reference");
  }

  pipert::RandomState randomState() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return executable_ ? executable_->randomState() : random_;
  }
  void setRandomState(pipert::RandomState state) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (executable_)
      executable_->setRandomState(state);
    else
      random_ = state;
  }

private:
  const pipert::Plan &plan_;
  mutable std::mutex mutex_;
  std::unique_ptr<pipert::Executable> executable_;
  pipert::RandomState random_;
};

/// Memory a result owns, freed with the last DLPack owner: device memory,
/// host memory from aligned_alloc, or a HostTensor's bytes.
struct Storage {
  void *data = nullptr;
  bool device = false;
  /// Device memory from the stream-ordered pool, freed in the order of the
  /// legacy default stream (see pipe_run_alloc).
  bool streamOrdered = false;
  /// Set when the memory is `host`'s, freed with it.
  bool adopted = false;
  pipert::HostTensor host;
  ~Storage() {
    if (!data || adopted)
      return;
    if (!device) {
      std::free(data);
      return;
    }
    // A consumer may delete its tensor with kernels still queued on it.
    // On the legacy default stream the free waits for the work queued
    // before it there and on every blocking stream; cuMemFree waits for
    // the whole device.
    auto gpu = pipert::getCudaDevice();
    if (!gpu.ok())
      return;
    const pipert::CudaDriver &cu = **pipert::getCudaDriver();
    auto ptr = reinterpret_cast<CUdeviceptr>(data);
    if (streamOrdered && cu.cuMemFreeAsync(ptr, CU_STREAM_LEGACY) == CUDA_SUCCESS)
      return;
    cu.cuMemFree(ptr);
  }
};

/// A DLPack owner of a Storage: the managed tensor, its shape, and a share
/// of the memory. `Managed` is DLManagedTensor or DLManagedTensorVersioned.
template <typename Managed> struct Owner {
  Managed managed{};
  std::vector<int64_t> shape;
  std::shared_ptr<Storage> storage;

  static Managed *create(std::shared_ptr<Storage> storage, const DLTensor &t) {
    auto *owner = new Owner;
    owner->storage = std::move(storage);
    owner->shape.assign(t.shape, t.shape + t.ndim);
    owner->managed.dl_tensor = t;
    owner->managed.dl_tensor.shape = owner->shape.data();
    owner->managed.dl_tensor.strides = nullptr;
    owner->managed.manager_ctx = owner;
    owner->managed.deleter = &Owner::destroy;
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
      owner->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
      owner->managed.flags = 0;
    }
    return &owner->managed;
  }
  static void destroy(Managed *self) {
    delete static_cast<Owner *>(self->manager_ctx);
  }
};

/// The memory of a tensor Pipe made (its deleter is Pipe's), or null.
std::shared_ptr<Storage> storageOf(const DLManagedTensorVersioned *tensor) {
  if (!tensor || !tensor->manager_ctx ||
      tensor->deleter != &Owner<DLManagedTensorVersioned>::destroy)
    return nullptr;
  return static_cast<const Owner<DLManagedTensorVersioned> *>(
             tensor->manager_ctx)
      ->storage;
}

/// Runs into `outputs`. On the GPU the runtime checks them against the
/// results; on the reference they have been checked already.
pipe_status runInto(pipe_pipeline &p, const std::vector<pipert::TensorRef> &in,
                    const std::vector<pipert::TensorRef> &out,
                    pipe_backend backend, void *stream) {
  if (backend == PIPE_BACKEND_GPU) {
    if (Status s = p.run(in, out, static_cast<CUstream>(stream)); !s.ok())
      return fail(s.isBadArgument() ? PIPE_ERROR_ARGUMENT : PIPE_ERROR_RUN, s);
    return PIPE_OK;
  }
  // The reference computes into tensors of its own; the outputs are
  // written once every result is there, so a failed run writes none.
  std::vector<pipert::HostTensor> hostInputs;
  for (const pipert::TensorRef &ref : in) {
    hostInputs.emplace_back(ref.dtype, ref.shape);
    if (ref.numBytes())
      std::memcpy(hostInputs.back().data(), ref.data, ref.numBytes());
  }
  // Draws what the GPU would, and advances the random run number as a GPU
  // run does, so that a sequence of runs draws alike on either backend.
  std::lock_guard<std::mutex> serialized(p.referenceRun);
  pipert::RandomState random = p.randomState();
  auto results = p.runReference(hostInputs, random);
  if (!results)
    return fail(PIPE_ERROR_RUN, results.status());
  random.run += 1;
  p.setRandomState(random);
  for (size_t r = 0; r < out.size(); ++r)
    if ((*results)[r].numBytes())
      std::memcpy(out[r].data, (*results)[r].data(), (*results)[r].numBytes());
  return PIPE_OK;
}

/// Whether `backend` can run `p`: an AOT plan has no reference.
pipe_status checkBackend(const pipe_pipeline &p, pipe_backend backend) {
  if (backend == PIPE_BACKEND_GPU ||
      (backend == PIPE_BACKEND_REFERENCE && p.hasReference()))
    return PIPE_OK;
  if (backend == PIPE_BACKEND_REFERENCE)
    return fail(PIPE_ERROR_ARGUMENT,
                "pipeline '" + p.plan().name +
                    "' was compiled ahead of time: it runs on the GPU only "
                    "(the CPU reference executor needs its source: "
                    "pipe_compile)");
  return fail(PIPE_ERROR_ARGUMENT,
              "no backend " + std::to_string(int(backend)) +
                  " (PIPE_BACKEND_GPU is 0, PIPE_BACKEND_REFERENCE 1)");
}

/// The checks and conversions every run starts with: the backend, the
/// count of outputs (`outputs` of them, given or not), and the inputs as
/// TensorRefs into `in`. PIPE_OK or the failure, reported.
pipe_status startRun(const pipe_pipeline &pipeline, const DLTensor *inputs,
                     int32_t numInputs, int32_t outputs, bool outputsGiven,
                     pipe_backend backend, std::vector<pipert::TensorRef> &in) {
  if (pipe_status s = checkBackend(pipeline, backend); s != PIPE_OK)
    return s;
  if (Status s = checkOutputCount(pipeline.plan(), outputs, outputsGiven);
      !s.ok())
    return fail(PIPE_ERROR_ARGUMENT, s);
  auto refs = toInputRefs(pipeline, inputs, numInputs, backend);
  if (!refs)
    return fail(PIPE_ERROR_ARGUMENT, refs.status());
  in = refs.take();
  return PIPE_OK;
}

} // namespace

DLManagedTensorVersioned *pipecapi::adoptHostTensor(pipert::HostTensor tensor) {
  auto storage = std::make_shared<Storage>();
  storage->host = std::move(tensor);
  storage->data = storage->host.data();
  storage->adopted = true;
  std::vector<int64_t> shape = storage->host.shape();
  DLTensor view{};
  view.data = storage->data;
  view.device = DLDevice{kDLCPU, 0};
  view.ndim = int32_t(shape.size());
  view.dtype = toDLPack(storage->host.dtype());
  view.shape = shape.data();
  return Owner<DLManagedTensorVersioned>::create(std::move(storage), view);
}

extern "C" {

const char *pipe_last_error(void) { return lastError.c_str(); }

const char *pipe_version(void) { return PIPE_VERSION; }

pipe_status pipe_gpu_available(void) {
  return guarded("pipe_gpu_available", [&] {
    if (Status s = pipert::checkGpuAvailable(); !s.ok())
      return fail(PIPE_ERROR_RUN, s);
    return PIPE_OK;
  });
}

pipe_status pipe_load_aot(const struct pipe_aot_plan *plan,
                          pipe_pipeline **out) {
  return guarded("pipe_load_aot", [&] {
    if (!plan || !out)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_load_aot: plan and out are required");
    // The generated pipe_aot_NAME() hands out a pipert::AotPlanHandle
    // under this opaque name (codegen/AotEmitter.cpp).
    const auto *handle = reinterpret_cast<const pipert::AotPlanHandle *>(plan);
    if (handle->magic != pipert::kAotPlanMagic || !handle->plan)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_load_aot: not a plan from pipe_aot_NAME() of "
                  "`pipec --emit=aot`");
    if (handle->layout != pipert::kPlanLayoutVersion)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_load_aot: pipeline '" + handle->plan->name +
                      "' was generated for plan layout " +
                      std::to_string(handle->layout) +
                      ", this runtime reads layout " +
                      std::to_string(pipert::kPlanLayoutVersion) +
                      ": regenerate it with this Pipe's pipec");
    auto p = std::make_unique<AotPipeline>(*handle->plan);
    p->describe();
    *out = p.release();
    return PIPE_OK;
  });
}

void pipe_release(pipe_pipeline *pipeline) { delete pipeline; }

const char *pipe_pipeline_name(const pipe_pipeline *pipeline) {
  return pipeline ? pipeline->plan().name.c_str() : "";
}

int32_t pipe_num_params(const pipe_pipeline *pipeline) {
  return pipeline ? int32_t(pipeline->params.size()) : 0;
}

int32_t pipe_num_results(const pipe_pipeline *pipeline) {
  return pipeline ? int32_t(pipeline->results.size()) : 0;
}

pipe_status pipe_get_random(const pipe_pipeline *pipeline, uint64_t *seed,
                            uint64_t *random_run) {
  return guarded("pipe_get_random", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_get_random: no pipeline");
    pipert::RandomState state = pipeline->randomState();
    if (seed)
      *seed = state.seed;
    if (random_run)
      *random_run = state.run;
    return PIPE_OK;
  });
}

pipe_status pipe_set_random(pipe_pipeline *pipeline, uint64_t seed,
                            uint64_t random_run) {
  return guarded("pipe_set_random", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_set_random: no pipeline");
    // Not in the middle of a reference run, which would write its own
    // advance over this.
    std::lock_guard<std::mutex> serialized(pipeline->referenceRun);
    pipert::RandomState state = pipeline->randomState();
    state.seed = seed;
    state.run = random_run;
    pipeline->setRandomState(state);
    return PIPE_OK;
  });
}

pipe_status pipe_get_batch_offset(const pipe_pipeline *pipeline,
                                  int64_t *offset) {
  return guarded("pipe_get_batch_offset", [&] {
    if (!pipeline || !offset)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_get_batch_offset: no pipeline or no offset");
    *offset = pipeline->randomState().batchOffset;
    return PIPE_OK;
  });
}

pipe_status pipe_set_batch_offset(pipe_pipeline *pipeline, int64_t offset) {
  return guarded("pipe_set_batch_offset", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_set_batch_offset: no pipeline");
    if (offset < 0)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_set_batch_offset: the offset " +
                      std::to_string(offset) + " is negative");
    std::lock_guard<std::mutex> serialized(pipeline->referenceRun);
    pipert::RandomState state = pipeline->randomState();
    state.batchOffset = offset;
    pipeline->setRandomState(state);
    return PIPE_OK;
  });
}

static pipe_status infoOf(const std::vector<pipe_pipeline::Info> &infos,
                          int32_t index, pipe_tensor_info *info,
                          const char *what) {
  if (!info)
    return fail(PIPE_ERROR_ARGUMENT,
                std::string(what == std::string("parameter")
                                ? "pipe_param_info"
                                : "pipe_result_info") +
                    ": info is NULL");
  if (index < 0 || size_t(index) >= infos.size())
    return fail(PIPE_ERROR_ARGUMENT, std::string("no ") + what + " " +
                                         std::to_string(index) + " (there are " +
                                         std::to_string(infos.size()) + ")");
  *info = infos[index].info;
  return PIPE_OK;
}

pipe_status pipe_param_info(const pipe_pipeline *pipeline, int32_t index,
                            pipe_tensor_info *info) {
  return guarded("pipe_param_info", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_param_info: no pipeline");
    return infoOf(pipeline->params, index, info, "parameter");
  });
}

pipe_status pipe_result_info(const pipe_pipeline *pipeline, int32_t index,
                             pipe_tensor_info *info) {
  return guarded("pipe_result_info", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_result_info: no pipeline");
    return infoOf(pipeline->results, index, info, "result");
  });
}

pipe_status pipe_result_shape(const pipe_pipeline *pipeline,
                              const DLTensor *inputs, int32_t num_inputs,
                              int32_t result, int64_t *shape) {
  return guarded("pipe_result_shape", [&] {
    if (!pipeline || !shape)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_result_shape: no pipeline or shape");
    if (result < 0 || size_t(result) >= pipeline->results.size())
      return fail(PIPE_ERROR_ARGUMENT, "no result " + std::to_string(result));
    auto refs = toInputRefs(*pipeline, inputs, num_inputs, PIPE_BACKEND_GPU);
    if (!refs)
      return fail(PIPE_ERROR_ARGUMENT, refs.status());
    // (Shapes do not depend on where the tensors are: no pins checked,
    // as a reference run checks none.)
    auto shapes = pipert::resultShapes(pipeline->plan(), *refs,
                                       /*checkPins=*/false);
    if (!shapes)
      return fail(PIPE_ERROR_ARGUMENT, shapes.status());
    std::copy((*shapes)[result].begin(), (*shapes)[result].end(), shape);
    return PIPE_OK;
  });
}

pipe_status pipe_run(pipe_pipeline *pipeline, const DLTensor *inputs,
                     int32_t num_inputs, const DLTensor *outputs,
                     int32_t num_outputs, pipe_backend backend, void *stream) {
  return guarded("pipe_run", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_run: no pipeline");
    std::vector<pipert::TensorRef> in;
    if (pipe_status s = startRun(*pipeline, inputs, num_inputs, num_outputs,
                                 outputs != nullptr, backend, in);
        s != PIPE_OK)
      return s;
    const pipert::Plan &plan = pipeline->plan();
    std::vector<pipert::TensorRef> out;
    out.reserve(size_t(num_outputs));
    for (int32_t r = 0; r < num_outputs; ++r) {
      auto ref = toTensorRef(outputs[r], plan.buffers[plan.results[r]].dtype,
                             "output", plan.resultNames[r],
                             hostOnlyFor(backend));
      if (!ref)
        return fail(PIPE_ERROR_ARGUMENT, ref.status());
      out.push_back(ref.take());
    }
    // A GPU run checks the tensors itself (Executable::run, once); a
    // reference run's are checked here, the same way but for @host and
    // @device, which the reference (all host memory) ignores.
    if (backend == PIPE_BACKEND_REFERENCE) {
      std::vector<std::vector<int64_t>> shapes;
      if (auto checked = pipert::checkRunTensors(plan, in, out, shapes,
                                                 /*checkPins=*/false);
          !checked)
        return fail(PIPE_ERROR_ARGUMENT, checked.status());
    }
    return runInto(*pipeline, in, out, backend, stream);
  });
}

pipe_status pipe_run_alloc(pipe_pipeline *pipeline, const DLTensor *inputs,
                           int32_t num_inputs,
                           DLManagedTensorVersioned **results,
                           int32_t num_results, pipe_backend backend,
                           void *stream) {
  return guarded("pipe_run_alloc", [&] {
    if (!pipeline)
      return fail(PIPE_ERROR_ARGUMENT, "pipe_run_alloc: no pipeline");
    std::vector<pipert::TensorRef> in;
    if (pipe_status s = startRun(*pipeline, inputs, num_inputs, num_results,
                                 results != nullptr, backend, in);
        s != PIPE_OK)
      return s;
    const pipert::Plan &plan = pipeline->plan();
    auto shapesOr = pipert::resultShapes(
        plan, in, /*checkPins=*/backend != PIPE_BACKEND_REFERENCE);
    if (!shapesOr)
      return fail(PIPE_ERROR_ARGUMENT, shapesOr.status());
    const std::vector<std::vector<int64_t>> &shapes = *shapesOr;
    // Each result's memory: the device's on the GPU (the host's for a
    // result pinned @host), the host's on the reference.
    std::vector<std::shared_ptr<Storage>> storages;
    std::vector<pipert::TensorRef> out;
    std::vector<DLTensor> views;
    for (int32_t r = 0; r < num_results; ++r) {
      const pipert::PlanBuffer &buffer = plan.buffers[plan.results[r]];
      pipert::TensorRef ref{nullptr, buffer.dtype, shapes[r],
                            pipert::Memory::Host};
      bool device = backend == PIPE_BACKEND_GPU &&
                    !(size_t(r) < plan.resultMemory.size() &&
                      plan.resultMemory[r] == pipert::PlanMemory::Host);
      auto storage = std::make_shared<Storage>();
      size_t bytes = std::max<size_t>(ref.numBytes(), 1);
      if (device) {
        auto gpu = pipert::getCudaDevice();
        if (!gpu)
          return fail(PIPE_ERROR_RUN, gpu.status());
        // A run on the legacy default stream (torch's default stream, or
        // none given) takes its results from the stream-ordered pool and
        // frees them in that stream's order: no device-wide wait. A run on
        // another stream, which may be gone when the result is dropped,
        // uses cuMemAlloc and cuMemFree.
        const pipert::CudaDriver &cu = **pipert::getCudaDriver();
        bool legacy = stream == nullptr || stream == CU_STREAM_LEGACY;
        CUdeviceptr ptr = 0;
        CUresult allocated = legacy
                                 ? cu.cuMemAllocAsync(&ptr, bytes, CU_STREAM_LEGACY)
                                 : cu.cuMemAlloc(&ptr, bytes);
        if (Status s = pipert::checkCuda(
                allocated, legacy ? "cuMemAllocAsync" : "cuMemAlloc",
                "for result '" + plan.resultNames[r] + "' (" +
                    std::to_string(bytes) + " bytes)");
            !s.ok())
          return fail(PIPE_ERROR_RUN, s);
        storage->data = reinterpret_cast<void *>(ptr);
        storage->device = true;
        storage->streamOrdered = legacy;
        ref.memory = pipert::Memory::Device;
      } else {
        storage->data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!storage->data)
          return fail(PIPE_ERROR_RUN, "out of host memory for result '" +
                                          plan.resultNames[r] + "'");
      }
      ref.data = storage->data;
      DLTensor view{};
      view.data = storage->data;
      view.device = device ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0};
      view.ndim = int32_t(ref.shape.size());
      view.dtype = toDLPack(buffer.dtype);
      view.shape = const_cast<int64_t *>(shapes[r].data());
      storages.push_back(std::move(storage));
      out.push_back(ref);
      views.push_back(view);
    }
    if (pipe_status s = runInto(*pipeline, in, out, backend, stream);
        s != PIPE_OK)
      return s; // the storages go with this scope
    // All owners first, so that running out of memory part-way leaks none.
    std::vector<std::unique_ptr<DLManagedTensorVersioned,
                                void (*)(DLManagedTensorVersioned *)>>
        owners;
    for (int32_t r = 0; r < num_results; ++r)
      owners.emplace_back(
          Owner<DLManagedTensorVersioned>::create(storages[r], views[r]),
          &Owner<DLManagedTensorVersioned>::destroy);
    for (int32_t r = 0; r < num_results; ++r)
      results[r] = owners[r].release();
    return PIPE_OK;
  });
}

DLManagedTensor *pipe_dlpack_unversioned(const DLManagedTensorVersioned *tensor) {
  try {
    std::shared_ptr<Storage> storage = storageOf(tensor);
    return storage ? Owner<DLManagedTensor>::create(storage, tensor->dl_tensor)
                   : nullptr;
  } catch (...) {
    return nullptr;
  }
}

DLManagedTensorVersioned *
pipe_dlpack_share(const DLManagedTensorVersioned *tensor) {
  try {
    std::shared_ptr<Storage> storage = storageOf(tensor);
    return storage ? Owner<DLManagedTensorVersioned>::create(storage,
                                                             tensor->dl_tensor)
                   : nullptr;
  } catch (...) {
    return nullptr;
  }
}

const char *pipe_dlpack_capsule_name(int32_t versioned) {
  return versioned ? "dltensor_versioned" : "dltensor";
}

void pipe_dlpack_capsule_destructor(void *capsule) {
  // The Python C API, found in the process that calls this (any Python 3:
  // these functions are in its stable ABI), so that the library does not
  // link against one Python.
  using GetName = const char *(*)(void *);
  using GetPointer = void *(*)(void *, const char *);
  using Fetch = void (*)(void **, void **, void **);
  using Restore = void (*)(void *, void *, void *);
  static auto getName =
      reinterpret_cast<GetName>(dlsym(RTLD_DEFAULT, "PyCapsule_GetName"));
  static auto getPointer =
      reinterpret_cast<GetPointer>(dlsym(RTLD_DEFAULT, "PyCapsule_GetPointer"));
  static auto fetch = reinterpret_cast<Fetch>(dlsym(RTLD_DEFAULT, "PyErr_Fetch"));
  static auto restore =
      reinterpret_cast<Restore>(dlsym(RTLD_DEFAULT, "PyErr_Restore"));
  if (!getName || !getPointer || !fetch || !restore)
    return;
  // A consumer may drop the capsule with an exception set: keep it.
  void *type, *value, *traceback;
  fetch(&type, &value, &traceback);
  const char *name = getName(capsule);
  // A consumer that took the tensor renamed the capsule ("used_..."); an
  // untaken one still owns it.
  if (name && std::strcmp(name, "dltensor_versioned") == 0) {
    auto *t = static_cast<DLManagedTensorVersioned *>(getPointer(capsule, name));
    if (t && t->deleter)
      t->deleter(t);
  } else if (name && std::strcmp(name, "dltensor") == 0) {
    auto *t = static_cast<DLManagedTensor *>(getPointer(capsule, name));
    if (t && t->deleter)
      t->deleter(t);
  }
  restore(type, value, traceback);
}

} // extern "C"
