//===- Executable.cpp - A loaded plan, ready to run -----------------------===//

#include "runtime/Executable.h"

#include "runtime/CudaDriver.h"
#include "runtime/HostScalars.h"
#include "runtime/KernelCache.h"
#include "runtime/Nvrtc.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace pipert;

using blurgeometry::kBlurWordBytes;
using blurgeometry::kRunSlots;
using blurgeometry::kStatusBytes;

namespace {
/// The functions of one loaded kernel.
struct KernelFunctions {
  CUfunction function = nullptr; ///< The fast variant.
  CUfunction fallback = nullptr; ///< Any alignment, or 64-bit indices.
  CUfunction vector = nullptr;   ///< Groups of the last dim per thread.
  CUfunction rows = nullptr;     ///< Whole rows per block.
  CUfunction tiles = nullptr;    ///< Shared-memory tiles of a transpose.
  /// Reductions and blurs: PlanKernel::entries, in order.
  std::vector<CUfunction> entries;
};
} // namespace

struct Executable::LoadedKernel : KernelFunctions {
  CUmodule module = nullptr;
};


Result<std::unique_ptr<Executable>> Executable::load(Plan plan) {
  auto device = getCudaDevice();
  if (!device)
    return device.status();
  const CudaDriver &cu = **getCudaDriver();
  std::unique_ptr<Executable> executable(new Executable(std::move(plan)));
  for (const PlanKernel &kernel : executable->plan_.kernels) {
    // Prefer a cubin built for this very GPU, then PTX (the driver compiles
    // it for newer GPUs), then compile the source here (through the cache).
    std::string compiled;
    const std::string *image = nullptr;
    if (kernel.cubinArch == (*device)->arch && !kernel.cubin.empty()) {
      image = &kernel.cubin;
    } else if (!kernel.ptx.empty() && kernel.cubinArch <= (*device)->arch) {
      image = &kernel.ptx;
    } else {
      auto result = compileCubinCached(kernel.source, kernel.entry,
                                       (*device)->arch,
                                       executable->plan_.fastMath);
      if (!result)
        return result.status();
      compiled = result.take();
      image = &compiled;
    }
    auto loaded = std::make_unique<LoadedKernel>();
    std::string context = "for kernel '" + kernel.entry + "'";
    if (Status s = checkCuda(cu.cuModuleLoadDataEx(&loaded->module,
                                                   image->data(), 0, nullptr,
                                                   nullptr),
                             "cuModuleLoadDataEx", context);
        !s.ok())
      return s;
    executable->kernels_.push_back(std::move(loaded));
    LoadedKernel &k = *executable->kernels_.back();
    if (Status s = checkCuda(
            cu.cuModuleGetFunction(&k.function, k.module, kernel.entry.c_str()),
            "cuModuleGetFunction", context);
        !s.ok())
      return s;
    for (const std::string &entry : kernel.entries) {
      CUfunction function = nullptr;
      if (Status s = checkCuda(
              cu.cuModuleGetFunction(&function, k.module, entry.c_str()),
              "cuModuleGetFunction", context);
          !s.ok())
        return s;
      k.entries.push_back(function);
    }
    if (kernel.kind != PlanKernel::Kind::Elementwise)
      continue;
    for (auto [function, entry] :
         {std::pair<CUfunction *, const std::string *>{&k.fallback,
                                                       &kernel.fallbackEntry},
          {&k.vector, &kernel.vectorEntry},
          {&k.rows, &kernel.rowEntry},
          {&k.tiles, &kernel.tileEntry}})
      if (!entry->empty())
        if (Status s = checkCuda(
                cu.cuModuleGetFunction(function, k.module, entry->c_str()),
                "cuModuleGetFunction", context);
            !s.ok())
          return s;
  }
  // Each blur reports its first bad sample into pinned host memory.
  size_t &numBlurs = executable->numBlurs_;
  for (const PlanKernel &kernel : executable->plan_.kernels)
    executable->blurSlot_.push_back(
        kernel.kind == PlanKernel::Kind::Blur ? int(numBlurs++) : -1);
  if (Status s = executable->prepareControl(cu); !s.ok())
    return s;
  if (numBlurs > 0) {
    if (Status s = checkCuda(cu.cuMemHostAlloc(&executable->blurStatus_,
                                               numBlurs * kStatusBytes,
                                               CU_MEMHOSTALLOC_DEVICEMAP),
                             "cuMemHostAlloc", "for blur status words");
        !s.ok())
      return s;
    std::memset(executable->blurStatus_, 0xff, numBlurs * kStatusBytes);
    CUdeviceptr mapped = 0;
    if (Status s = checkCuda(cu.cuMemHostGetDevicePointer(
                                 &mapped, executable->blurStatus_, 0),
                             "cuMemHostGetDevicePointer",
                             "for blur status words");
        !s.ok())
      return s;
    executable->blurStatusDevice_ = mapped;
    CUdeviceptr words = 0;
    const size_t wordBytes = numBlurs * kRunSlots * kBlurWordBytes;
    if (Status s = checkCuda(cu.cuMemAlloc(&words, wordBytes), "cuMemAlloc",
                             "for blur status words");
        !s.ok())
      return s;
    executable->blurWords_ = words;
    std::vector<unsigned char> zeros(wordBytes, 0);
    if (Status s = checkCuda(cu.cuMemcpyHtoD(words, zeros.data(), zeros.size()),
                             "cuMemcpyHtoD", "for blur status words");
        !s.ok())
      return s;
  }
  // Constants (list literals) live on the device for the executable's life.
  for (const PlanBuffer &buffer : executable->plan_.buffers) {
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

/// Two pinned host buffers that host tensors are copied through in chunks:
/// while the DMA engine moves one chunk, the CPU copies the next into the
/// other buffer. Each buffer's event says when the DMA that last used it is
/// done.
struct Executable::Staging {
  static constexpr size_t kChunk = size_t(8) << 20;
  void *buffers[2] = {nullptr, nullptr};
  CUevent done[2] = {nullptr, nullptr};

  static Result<std::unique_ptr<Staging>> create(const CudaDriver &cu) {
    auto staging = std::make_unique<Staging>();
    for (int i = 0; i < 2; ++i) {
      if (Status s = checkCuda(cu.cuMemHostAlloc(&staging->buffers[i], kChunk, 0),
                               "cuMemHostAlloc", "for pinned staging");
          !s.ok())
        return s;
      if (Status s = checkCuda(cu.cuEventCreate(&staging->done[i],
                                                CU_EVENT_DISABLE_TIMING),
                               "cuEventCreate");
          !s.ok())
        return s;
    }
    return staging;
  }
  void destroy(const CudaDriver &cu) {
    for (int i = 0; i < 2; ++i) {
      if (done[i])
        cu.cuEventDestroy(done[i]);
      if (buffers[i])
        cu.cuMemFreeHost(buffers[i]);
    }
  }

  /// Host to device, through the buffers.
  CUresult upload(const CudaDriver &cu, CUdeviceptr dst, const void *src,
                  size_t bytes, CUstream stream) {
    int slot = 0;
    for (size_t offset = 0; offset < bytes; offset += kChunk, slot ^= 1) {
      size_t n = std::min(kChunk, bytes - offset);
      if (CUresult r = cu.cuEventSynchronize(done[slot]); r != CUDA_SUCCESS)
        return r;
      std::memcpy(buffers[slot], static_cast<const char *>(src) + offset, n);
      if (CUresult r = cu.cuMemcpyHtoDAsync(dst + offset, buffers[slot], n,
                                            stream);
          r != CUDA_SUCCESS)
        return r;
      if (CUresult r = cu.cuEventRecord(done[slot], stream); r != CUDA_SUCCESS)
        return r;
    }
    return CUDA_SUCCESS;
  }

  /// Device to host, through the buffers; returns with `dst` written.
  CUresult download(const CudaDriver &cu, void *dst, CUdeviceptr src,
                    size_t bytes, CUstream stream) {
    size_t chunks = (bytes + kChunk - 1) / kChunk;
    auto issue = [&](size_t c) {
      size_t offset = c * kChunk, n = std::min(kChunk, bytes - offset);
      CUresult r = cu.cuMemcpyDtoHAsync(buffers[c & 1], src + offset, n, stream);
      return r == CUDA_SUCCESS ? cu.cuEventRecord(done[c & 1], stream) : r;
    };
    if (chunks == 0)
      return CUDA_SUCCESS;
    if (CUresult r = issue(0); r != CUDA_SUCCESS)
      return r;
    for (size_t c = 0; c < chunks; ++c) {
      if (CUresult r = cu.cuEventSynchronize(done[c & 1]); r != CUDA_SUCCESS)
        return r;
      // The next chunk's DMA runs while this one is copied out.
      if (c + 1 < chunks)
        if (CUresult r = issue(c + 1); r != CUDA_SUCCESS)
          return r;
      size_t offset = c * kChunk, n = std::min(kChunk, bytes - offset);
      std::memcpy(static_cast<char *>(dst) + offset, buffers[c & 1], n);
    }
    return CUDA_SUCCESS;
  }
};

Executable::Executable(Plan plan) : plan_(std::move(plan)) {}

Executable::~Executable() {
  auto driver = getCudaDriver();
  if (!driver)
    return;
  if (staging_)
    staging_->destroy(**driver);
  for (auto &kernel : kernels_)
    if (kernel->module)
      (*driver)->cuModuleUnload(kernel->module);
  for (CUdeviceptr ptr : constants_)
    (*driver)->cuMemFree(ptr);
  if (blurStatus_)
    (*driver)->cuMemFreeHost(blurStatus_);
  if (blurWords_)
    (*driver)->cuMemFree(blurWords_);
  if (controlHost_)
    (*driver)->cuMemFreeHost(controlHost_);
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

Status pipert::checkPinnedMemory(const std::string &what, PlanMemory pinned,
                                 Memory actual) {
  if (pinned == PlanMemory::Any ||
      (pinned == PlanMemory::Host) == (actual == Memory::Host))
    return Status();
  const char *declared = pinned == PlanMemory::Host ? "host" : "device";
  const char *given = actual == Memory::Host ? "host" : "device";
  return Status::error(what + " is declared @" + declared + " but is in " +
                       given + " memory; pass " + declared +
                       " memory, or drop the annotation to let the caller "
                       "choose");
}

Result<std::map<std::string, int64_t>>
pipert::bindDims(const std::string &pipeline, const PlanBuffer *params,
                 size_t numParams, const std::vector<TensorRef> &inputs) {
  if (inputs.size() != numParams)
    return Status::error("pipeline '" + pipeline + "' takes " +
                         std::to_string(numParams) + " inputs, got " +
                         std::to_string(inputs.size()));
  std::map<std::string, int64_t> sizes;
  // Where each dim was bound: input index and dim, for the message when
  // another input disagrees.
  std::map<std::string, std::pair<size_t, size_t>> boundBy;
  for (size_t i = 0; i < numParams; ++i) {
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
        boundBy[dim.symbol] = {i, d};
      } else if (it->second != size) {
        auto [first, firstDim] = boundBy[dim.symbol];
        return Status::error("dim " + dim.symbol + " is " +
                             std::to_string(it->second) + " in input '" +
                             params[first].name + "' dim " +
                             std::to_string(firstDim) + " but " +
                             std::to_string(size) + " in " + what + " dim " +
                             std::to_string(d));
      }
    }
    if (input.numElements() > 0 && !input.data)
      return Status::error(what + " is a null pointer");
    if (Status s = checkPinnedMemory(what, param.memory, input.memory); !s.ok())
      return s;
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
  auto sizes = bindDims(plan_.name, plan_.buffers.data(),
                        size_t(plan_.numParams), inputs);
  if (!sizes)
    return sizes.status();
  std::vector<std::vector<int64_t>> shapes;
  for (int buffer : plan_.results)
    shapes.push_back(shapeOf(plan_.buffers[buffer], *sizes));
  return shapes;
}

/// Whether every pointer is aligned to `alignment` bytes.
static bool allAligned(const std::vector<CUdeviceptr> &ptrs,
                                  unsigned alignment) {
  for (CUdeviceptr ptr : ptrs)
    if (ptr % alignment != 0)
      return false;
  return true;
}

/// The kernel's arrays: its outputs and its inputs of rank above 0 (rank-0
/// inputs are read once, at index 0, and need no alignment).
static std::vector<CUdeviceptr>
arraysOf(const PlanKernel &kernel, const std::vector<std::vector<int64_t>> &shapes,
         const std::vector<CUdeviceptr> &ptrs) {
  std::vector<CUdeviceptr> arrays;
  for (int b : kernel.inputs)
    if (!shapes[b].empty())
      arrays.push_back(ptrs[b]);
  for (int b : kernel.outputs)
    arrays.push_back(ptrs[b]);
  return arrays;
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
  Status allocate(size_t bytes, size_t buffer, const std::string &name,
                  CUdeviceptr *ptr) {
    *ptr = 0;
    if (bytes == 0)
      return Status();
    CUresult result = cu.cuMemAllocAsync(ptr, bytes, stream);
    if (result != CUDA_SUCCESS)
      return checkCuda(result, "cuMemAllocAsync",
                       "allocating " + std::to_string(bytes) +
                           " bytes of device memory for " +
                           (name.empty() ? "intermediate %" +
                                               std::to_string(buffer)
                                         : "'" + name + "'"));
    owned.push_back(*ptr);
    return Status();
  }

private:
  const CudaDriver &cu;
  CUstream stream;
  std::vector<CUdeviceptr> owned;
};
} // namespace

namespace {
/// What a reduction or blur launch needs to know about the run.
struct LaunchContext {
  const CudaDriver &cu;
  const CudaDevice &device;
  CUstream stream;
  RunAllocations &allocations;
  const std::map<std::string, int64_t> &sizes;
  const std::vector<CUdeviceptr> &ptrs;
  const std::vector<std::vector<int64_t>> &shapes;
};
} // namespace

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

/// A launch's grid of blocks.
struct Grid {
  unsigned x = 1, y = 1, z = 1;
};

/// Launches `function` on the run's stream (see usesDependentLaunch);
/// an error names `entry`.
static Status launch(const LaunchContext &ctx, CUfunction function,
                     const std::string &entry, Grid grid, unsigned threadsX,
                     unsigned threadsY, std::vector<void *> &params) {
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

/// A flat grid of `blocks` (at least one).
static Status launch(const LaunchContext &ctx, CUfunction function,
                     const std::string &entry, long long blocks,
                     unsigned threadsX, unsigned threadsY,
                     std::vector<void *> &params) {
  return launch(ctx, function, entry, Grid{unsigned(std::max(1LL, blocks))},
                threadsX, threadsY, params);
}

/// A reduction over [O, R, C] (see codegen/ReductionEmitter.cpp). The
/// chunking depends on the shape only, so results do not depend on the GPU.
/// Arguments: prologue inputs, epilogue inputs, outputs, partials, O, R, C,
/// chunks, chunkLen, vectorOk, then the dims in dimArgs.
static Status launchReduction(const LaunchContext &ctx, const PlanKernel &kernel,
                              const std::vector<CUfunction> &entries) {
  std::vector<int64_t> domain;
  for (const PlanDim &dim : kernel.domain)
    domain.push_back(dim.symbol.empty() ? dim.size : ctx.sizes.at(dim.symbol));
  const std::vector<int> &axes = kernel.axes;
  bool contiguous = axes.back() - axes.front() + 1 == int(axes.size());
  long long O = 1, R = 1, C = 1;
  for (int d = 0; d < int(domain.size()); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (reduced)
      R *= domain[d];
    else if (contiguous && d > axes.back())
      C *= domain[d];
    else
      O *= domain[d];
  }
  if (O * C == 0)
    return Status();
  // Enough blocks to fill the GPU, but chunks of at least this many elements
  // (rows) so that each block's fixed cost is paid for.
  constexpr long long kTargetBlocks = 2048, kMinInnerChunk = 16384,
                      kMinOuterChunk = 64, kShortRow = 64;
  enum { Inner, Rows, Outer, Final };
  int entry;
  long long chunks = 1, chunkLen = R, blocks;
  unsigned threads = 256;
  long long sms = ctx.device.multiprocessors;
  if (C == 1 && R <= kShortRow) {
    entry = Rows;
    blocks = std::min((O + threads - 1) / threads, sms * 8);
  } else if (C == 1) {
    entry = Inner;
    long long most = std::max(1LL, (R + kMinInnerChunk - 1) / kMinInnerChunk);
    chunks = std::min(most, std::max(1LL, (kTargetBlocks + O - 1) / O));
    chunkLen = (R + chunks - 1) / chunks;
    chunkLen = (chunkLen + 15) / 16 * 16;
    chunks = std::max(1LL, (R + chunkLen - 1) / chunkLen);
    blocks = std::min(O * chunks, sms * 8);
  } else {
    entry = Outer;
    long long cblocks = (C + 255) / 256;
    long long most = std::max(1LL, (R + kMinOuterChunk - 1) / kMinOuterChunk);
    chunks = std::min(most, std::max(1LL, kTargetBlocks / (O * cblocks)));
    chunkLen = std::max(1LL, (R + chunks - 1) / chunks);
    chunks = std::max(1LL, (R + chunkLen - 1) / chunkLen);
    blocks = std::min(O * chunks * cblocks, sms * 8);
  }
  CUdeviceptr partials = 0;
  if (chunks > 1)
    if (Status s = ctx.allocations.allocate(
            size_t(O * chunks * C) * size_t(kernel.accBytes), 0,
            "partial sums of " + kernel.entries.front(), &partials);
        !s.ok())
      return s;
  std::vector<CUdeviceptr> pointers;
  int vectorOk = 1;
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    CUdeviceptr ptr = ctx.ptrs[kernel.inputs[i]];
    pointers.push_back(ptr);
    if (int(i) < kernel.numPrologueInputs &&
        !ctx.shapes[kernel.inputs[i]].empty() && ptr % 16 != 0)
      vectorOk = 0;
  }
  for (int b : kernel.outputs)
    pointers.push_back(ctx.ptrs[b]);
  pointers.push_back(partials);
  long long scalars[5] = {O, R, C, chunks, chunkLen};
  std::vector<long long> dims;
  for (const std::string &dim : kernel.dimArgs)
    dims.push_back(ctx.sizes.at(dim));
  std::vector<void *> params;
  for (CUdeviceptr &ptr : pointers)
    params.push_back(&ptr);
  for (long long &value : scalars)
    params.push_back(&value);
  params.push_back(&vectorOk);
  for (long long &value : dims)
    params.push_back(&value);
  if (Status s = launch(ctx, entries[entry], kernel.entries[entry], blocks,
                        threads, 1, params);
      !s.ok())
    return s;
  if (chunks == 1)
    return Status();
  // A warp per result (8 per block).
  return launch(ctx, entries[Final], kernel.entries[Final],
                std::min((O * C + 7) / 8, sms * 16), threads, 1, params);
}

/// Where a blur reports a bad sample (see PIPE_BLUR_RUN_SHIFT in
/// core/PipeStencil.h): its device word of the run's slot, the device
/// address of its pipe_blur_status in mapped pinned memory, and the run's
/// number.
struct BlurStatus {
  CUdeviceptr word, report;
  unsigned long long run;
};

/// A blur (see codegen/PipeBlur.cuh): resolves each sample's parameters,
/// then runs one pass per axis through f32 scratch buffers. A bad sample
/// is reported in `status` (checked once the run is done); nothing resets
/// or copies it, so the blur is its kernels alone.
static Status launchBlur(const LaunchContext &ctx, const PlanKernel &kernel,
                         const std::vector<CUfunction> &entries,
                         const BlurStatus &status) {
  const std::vector<int64_t> &shape = ctx.shapes[kernel.inputs.front()];
  long long n = 1, samples = 1;
  for (int64_t d : shape)
    n *= d;
  if (n == 0)
    return Status();
  for (int d = 0; d < kernel.sampleRank; ++d)
    samples *= shape[d];
  // The passes index one line (rows) or one block of lines (columns) in 32
  // bits.
  for (int axis : kernel.axes) {
    long long span = 1;
    for (int d = axis; d < int(shape.size()); ++d)
      span *= shape[d];
    if (span >= (1ll << 31))
      return Status::error(
          "gaussian_blur" +
          (kernel.location.empty() ? "" : " at " + kernel.location) +
          ": blurring axis " + std::to_string(axis) + " spans " +
          std::to_string(span) +
          " elements per position of the dims before it; 2^31 or more is "
          "not supported");
  }
  // Device memory of this run: per-sample parameters, scratch.
  CUdeviceptr params = 0, scratch[2] = {0, 0};
  if (Status s = ctx.allocations.allocate(size_t(samples) * blurgeometry::kParamsBytes, 0,
                                          "blur parameters", &params);
      !s.ok())
    return s;
  CUdeviceptr weights = 0;
  if (Status s = ctx.allocations.allocate(
          size_t(samples) * blurgeometry::kWeightsPerSample * sizeof(float), 0,
          "blur weights", &weights);
      !s.ok())
    return s;
  size_t passes = kernel.axes.size();
  for (size_t k = 0; k < std::min<size_t>(2, passes - 1); ++k)
    if (Status s = ctx.allocations.allocate(size_t(n) * sizeof(float), 0,
                                            "blur scratch", &scratch[k]);
        !s.ok())
      return s;
  // prepare(window, sigma, params, weights, bad, run, samples, windowPer,
  //         sigmaPer)
  CUdeviceptr window = 0, sigma = 0;
  long long windowPer = samples, sigmaPer = samples;
  size_t next = 1;
  auto perElement = [&](int buffer) {
    long long elements = 1;
    for (int64_t d : ctx.shapes[buffer])
      elements *= d;
    return std::max(1LL, samples / std::max(1LL, elements));
  };
  if (kernel.hasWindow) {
    window = ctx.ptrs[kernel.inputs[next]];
    windowPer = perElement(kernel.inputs[next++]);
  }
  if (kernel.hasSigma) {
    sigma = ctx.ptrs[kernel.inputs[next]];
    sigmaPer = perElement(kernel.inputs[next++]);
  }
  {
    CUdeviceptr word = status.word;
    unsigned long long run = status.run;
    std::vector<void *> args = {&window,  &sigma,   &params,
                                &weights, &word,    &run,
                                &samples, &windowPer, &sigmaPer};
    if (Status s = launch(ctx, entries[0], kernel.entries[0],
                          std::min(samples, ctx.device.multiprocessors * 8LL),
                          128, 1, args);
        !s.ok())
      return s;
  }
  // Passes, the last axis first: input -> scratch -> ... -> output.
  long long sms = ctx.device.multiprocessors;
  CUdeviceptr from = ctx.ptrs[kernel.inputs.front()];
  for (size_t p = 0; p < passes; ++p) {
    int axis = kernel.axes[passes - 1 - p];
    CUdeviceptr to = p + 1 == passes ? ctx.ptrs[kernel.outputs.front()]
                                     : scratch[p % 2];
    long long outer = 1, length = shape[axis], inner = 1, perSample = 1;
    for (int d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int d = axis + 1; d < int(shape.size()); ++d)
      inner *= shape[d];
    for (int d = kernel.sampleRank; d < axis; ++d)
      perSample *= shape[d];
    CUdeviceptr word = status.word, report = status.report;
    unsigned long long run = status.run;
    std::vector<void *> args = {&from,  &to,    &params, &weights,
                                &word,  &report, &run,   &outer,
                                &length, &inner, &perSample};
    using namespace blurgeometry;
    bool rows = axis == int(shape.size()) - 1;
    const long long segs = (length + kRowSegment - 1) / kRowSegment,
                    rsegs = (length + kColumnRows - 1) / kColumnRows,
                    cblocks = (inner + 31) / 32;
    const long long items = rows ? outer * segs : outer * rsegs * cblocks;
    // A pass takes one item per block, the block's coordinates (segment and
    // line; column block, row segment and block of lines), where the grid
    // can hold them: no division to find its item (PipeBlur.cuh). Lines of
    // the contiguous pass go over y and z. Else a flat grid, each block
    // taking every grid-th item.
    const long long lineBlocksY = std::min(outer, 65535LL),
                    lineBlocksZ = (outer + lineBlocksY - 1) / lineBlocksY;
    Grid grid;
    if (rows && segs < (1ll << 31) && lineBlocksZ <= 65535)
      grid = Grid{unsigned(segs), unsigned(lineBlocksY), unsigned(lineBlocksZ)};
    else if (!rows && cblocks < (1ll << 31) && rsegs <= 65535 &&
             outer <= 65535)
      grid = Grid{unsigned(cblocks), unsigned(rsegs), unsigned(outer)};
    else
      grid = Grid{unsigned(std::min(items, sms * 32))};
    if (Status s = launch(ctx, entries[1 + p], kernel.entries[1 + p], grid,
                          rows ? kRowThreads : 32, rows ? 1 : kColumnThreadsY,
                          args);
        !s.ok())
      return s;
    from = to;
  }
  return Status();
}

/// An elementwise kernel over its outputs' shape (see PlanKernel for the
/// variants and their arguments). Sets `variant` to the entry it launched
/// (unchanged for an empty domain, which launches nothing).
static Status launchElementwise(const LaunchContext &ctx,
                                const PlanKernel &kernel,
                                const KernelFunctions &loaded,
                                const std::string *&variant) {
  const std::vector<std::vector<int64_t>> &shapes = ctx.shapes;
  const std::vector<CUdeviceptr> &ptrs = ctx.ptrs;
  long long n = numElementsOf(shapes[kernel.outputs.front()]);
  if (n == 0)
    return Status();
  // Pointers, n, then the symbolic dims the index arithmetic needs.
  std::vector<CUdeviceptr> args;
  for (int b : kernel.inputs)
    args.push_back(ptrs[b]);
  for (int b : kernel.outputs)
    args.push_back(ptrs[b]);
  std::vector<long long> dimValues;
  for (const std::string &dim : kernel.dimArgs)
    dimValues.push_back(ctx.sizes.at(dim));
  std::vector<void *> params;
  for (CUdeviceptr &arg : args)
    params.push_back(&arg);
  params.push_back(&n);
  for (long long &value : dimValues)
    params.push_back(&value);

  // The fast variant when it applies (see PlanKernel).
  bool fast;
  if (kernel.indexing == PlanKernel::Indexing::Flat) {
    // Vector accesses need 16-byte alignment of every array (scalars are
    // read once, at index 0).
    fast = kernel.elementsPerThread > 1 &&
           allAligned(arraysOf(kernel, shapes, ptrs), 16);
    fast &= n < (1ll << 31); // its indices are 32-bit
  } else {
    fast = n < (1ll << 31);
    for (int b : kernel.inputs)
      fast &= numElementsOf(shapes[b]) < (1ll << 31);
  }
  CUfunction function = fast ? loaded.function : loaded.fallback;
  unsigned threads = 256;
  long long perThread = fast && kernel.indexing == PlanKernel::Indexing::Flat
                            ? kernel.elementsPerThread
                            : 1;
  long long wanted = (n / perThread + threads - 1) / threads;
  // Rows of at least a block's width: one row per block at a time.
  long long rowLength = shapes[kernel.outputs.front()].empty()
                            ? 1
                            : shapes[kernel.outputs.front()].back();
  unsigned threadsY = 1;
  const std::vector<int64_t> &domain = shapes[kernel.outputs.front()];
  if (fast && loaded.tiles && rowLength >= 32 &&
      domain[kernel.tileDim] >= 32) {
    // 32x8 threads per 32x32 tile.
    function = loaded.tiles;
    threads = 32;
    threadsY = 8;
    wanted = (n / rowLength / domain[kernel.tileDim]) *
             ((domain[kernel.tileDim] + 31) / 32) * ((rowLength + 31) / 32);
  } else if (fast && loaded.vector && rowLength % kernel.vectorWidth == 0 &&
             allAligned(arraysOf(kernel, shapes, ptrs), 16)) {
    // One group of vectorWidth elements per thread, every group at once.
    function = loaded.vector;
    wanted = (n / kernel.vectorWidth + threads - 1) / threads;
  } else if (fast && loaded.rows && rowLength >= 128) {
    // 128 threads, 4 elements each per pass over a row.
    function = loaded.rows;
    threads = 128;
    wanted = n / rowLength;
  }
  // One wave of resident blocks (2048 threads per SM); a grid-stride loop
  // covers the rest.
  // A tuning knob for benchmarks: blocks per SM for flat kernels.
  static const int blocksPerSm = [] {
    const char *value = std::getenv("PIPE_TUNE_BLOCKS_PER_SM");
    return value ? std::atoi(value) : 0;
  }();
  long long cap = (long long)ctx.device.multiprocessors *
                  (blocksPerSm > 0 ? blocksPerSm : 2048 / (threads * threadsY));
  if (wanted > cap && function == loaded.rows)
    cap *= 4; // rows are short work items: more blocks balance better
  // The vector variants run one step (group) per thread over the whole
  // grid, unlooped: measured on an H200 (bench/sweep.sh), f32 -> u8 over
  // 2^28 elements took 0.315 ms so against 0.328 ms with one wave of
  // looping blocks; normalize on an H100, bench/NOTES.md change 15.
  bool wholeGrid = (fast && kernel.indexing == PlanKernel::Indexing::Flat &&
                    function == loaded.function) ||
                   function == loaded.vector;
  if (wholeGrid && blocksPerSm <= 0)
    cap = (1ll << 31) - 1;
  if (Status s = launch(ctx, function, kernel.entry, std::min(wanted, cap),
                        threads, threadsY, params);
      !s.ok())
    return s;
  variant = function == loaded.vector  ? &kernel.vectorEntry
            : function == loaded.rows  ? &kernel.rowEntry
            : function == loaded.tiles ? &kernel.tileEntry
            : function == loaded.fallback ? &kernel.fallbackEntry
                                          : &kernel.entry;
  return Status();
}

/// One run's buffers, as Executable::run set them up.
struct Executable::RunState {
  const LaunchContext &ctx;
  std::vector<CUdeviceptr> &ptrs;
  /// Buffers whose memory is known: the caller's, a constant's, a
  /// condition's slot. Others are allocated when first needed.
  std::vector<bool> &bound;
  const std::vector<TensorRef> &inputs;
  CUdeviceptr controlBlock;
};

/// Runs the plan's kernels in order, except that with choices
///  - a kernel runs only once the values it computes are known to be needed
///    (by a result, through the chosen side of each choice on the way), and
///    never when they are known not to be;
///  - when nothing more can run, the host reads every condition the queued
///    kernels compute, in one copy of the block they share, waits for it,
///    and decides those choices. Independent work is queued before that
///    wait, so the GPU stays busy while the host waits.
/// Memory is allocated, for all kernels known to run, before the first
/// launch that follows a decision, so that running out of it is reported
/// before those kernels write anything.
Status Executable::schedule(RunState &st) {
  const Plan &plan = plan_;
  const CudaDriver &cu = st.ctx.cu;
  const size_t numBuffers = plan.buffers.size();
  const size_t numKernels = plan.kernels.size();
  stats_ = RunStats();
  std::vector<int8_t> decided(plan.choices.size(), -1);
  std::vector<bool> ready(numBuffers, false);
  for (size_t b = 0; b < numBuffers; ++b)
    ready[b] = int(b) < plan.numParams || !plan.buffers[b].constantData.empty();

  auto concrete = [&](int b) { return resolveBuffer(plan, decided, b); };
  // Views and decided choices use the memory of the buffer they stand for.
  auto shareChosenMemory = [&] {
    for (size_t b = 0; b < numBuffers; ++b)
      if (int c = concrete(int(b)); c >= 0 && c != int(b))
        st.ptrs[b] = st.ptrs[c];
  };
  auto isReady = [&](int b) {
    int c = concrete(b);
    return c >= 0 && ready[c];
  };
  // A kernel runs once it is needed, or may be and only computes scalars
  // (conditions, mostly: computing them early can save a wait).
  std::vector<uint8_t> need;
  auto runs = [&](size_t k) {
    uint8_t level = kernelDemand(plan, need, k);
    return level == kNeeded ||
           (level == kMaybeNeeded && isScalarKernel(plan, k));
  };

  // Scalars the host has without asking the GPU: parameters in host
  // memory, constants, and what scalar kernels compute from them (their
  // host steps). A choice whose condition is one of them is decided at
  // once, with no copy, and the kernel computing the condition on the GPU
  // is skipped unless something else reads it.
  std::vector<const void *> hostValue;
  std::vector<std::string> hostComputed;
  if (!plan.choices.empty()) {
    hostValue.assign(numBuffers, nullptr);
    hostComputed.resize(numBuffers);
    for (int i = 0; i < plan.numParams; ++i)
      if (st.inputs[i].memory == Memory::Host &&
          plan.buffers[i].dims.empty() && st.inputs[i].data)
        hostValue[i] = st.inputs[i].data;
    for (size_t b = 0; b < numBuffers; ++b)
      if (!plan.buffers[b].constantData.empty())
        hostValue[b] = plan.buffers[b].constantData.data();
    for (const PlanKernel &kernel : plan.kernels) {
      if (kernel.hostSteps.empty())
        continue;
      std::vector<const void *> args;
      for (int b : kernel.inputs)
        if (int c = resolveBuffer(plan, decided, b); c >= 0 && hostValue[c])
          args.push_back(hostValue[c]);
      if (args.size() != kernel.inputs.size())
        continue;
      std::vector<std::string> results;
      if (Status s = evaluateHostSteps(plan, kernel, args, results); !s.ok())
        return s;
      for (size_t r = 0; r < results.size(); ++r) {
        hostComputed[kernel.outputs[r]] = std::move(results[r]);
        hostValue[kernel.outputs[r]] = hostComputed[kernel.outputs[r]].data();
      }
    }
  }
  auto decideOnHost = [&] {
    bool any = true;
    while (any) {
      any = false;
      for (size_t c = 0; c < plan.choices.size(); ++c) {
        if (decided[c] >= 0)
          continue;
        int b = concrete(plan.choices[c].condition);
        if (b < 0 || !hostValue[b])
          continue;
        decided[c] = *static_cast<const unsigned char *>(hostValue[b]) != 0;
        any = true;
      }
    }
  };

  std::vector<bool> done(numKernels, false);
  size_t remaining = numKernels;
  while (true) {
    decideOnHost();
    need = computeDemand(plan, decided);
    bool undecided = false;
    for (size_t c = 0; c < plan.choices.size(); ++c)
      undecided |= decided[c] < 0 && need[plan.choices[c].result] > 0;
    if (remaining == 0 && !undecided)
      break;
    // Memory for every kernel now known to run.
    for (size_t k = 0; k < numKernels; ++k) {
      if (done[k] || !runs(k))
        continue;
      for (int b : plan.kernels[k].outputs) {
        if (st.bound[b])
          continue;
        size_t bytes = size_t(numElementsOf(st.ctx.shapes[b])) *
                       dtypeSize(plan.buffers[b].dtype);
        if (Status s = st.ctx.allocations.allocate(
                bytes, b, plan.buffers[b].name, &st.ptrs[b]);
            !s.ok())
          return s;
        st.bound[b] = true;
      }
    }
    shareChosenMemory();

    bool progress = false;
    for (size_t k = 0; k < numKernels; ++k) {
      if (done[k])
        continue;
      const PlanKernel &kernel = plan.kernels[k];
      if (kernelDemand(plan, need, k) == kNotNeeded) {
        done[k] = true;
        --remaining;
        ++stats_.kernelsSkipped;
        progress = true;
        continue;
      }
      if (!runs(k) ||
          !std::all_of(kernel.inputs.begin(), kernel.inputs.end(), isReady))
        continue;
      Status launched;
      if (kernel.kind == PlanKernel::Kind::Reduction) {
        launched = launchReduction(st.ctx, kernel, kernels_[k]->entries);
      } else if (kernel.kind == PlanKernel::Kind::Blur) {
        BlurStatus status{
            blurWords_ + (blurSlot_[k] * kRunSlots + blurRun_ % kRunSlots) *
                             kBlurWordBytes,
            blurStatusDevice_ + blurSlot_[k] * kStatusBytes, blurRun_};
        launched = launchBlur(st.ctx, kernel, kernels_[k]->entries, status);
      } else {
        const std::string *variant = nullptr;
        launched = launchElementwise(st.ctx, kernel, *kernels_[k], variant);
        if (variant)
          stats_.elementwiseVariants.push_back(*variant);
      }
      if (!launched.ok())
        return launched;
      for (int b : kernel.outputs)
        ready[b] = true;
      done[k] = true;
      --remaining;
      ++stats_.kernelsLaunched;
      progress = true;
    }
    if (progress)
      continue;

    // Nothing more can run before the host knows more conditions: read all
    // those computed so far.
    std::vector<size_t> pending;
    for (size_t c = 0; c < plan.choices.size(); ++c)
      if (decided[c] < 0 && need[plan.choices[c].result] > 0 &&
          isReady(plan.choices[c].condition))
        pending.push_back(c);
    if (pending.empty())
      return Status::error("internal error: pipeline '" + plan.name +
                           "' waits for a branch condition nothing computes");
    auto *host = static_cast<unsigned char *>(controlHost_);
    bool blockCopied = false;
    std::vector<const unsigned char *> values;
    for (size_t c : pending) {
      int b = concrete(plan.choices[c].condition);
      const unsigned char *value = nullptr;
      if (controlSlot_[b] >= 0) {
        if (!blockCopied) {
          if (CUresult r = cu.cuMemcpyDtoHAsync(host, st.controlBlock,
                                                numControlSlots_,
                                                st.ctx.stream);
              r != CUDA_SUCCESS)
            return checkCuda(r, "cuMemcpyDtoHAsync", "for branch conditions");
          blockCopied = true;
          ++stats_.controlCopies;
          stats_.controlBytes += numControlSlots_;
        }
        value = host + controlSlot_[b];
      } else {
        // A parameter in device memory.
        unsigned char *slot = host + numControlSlots_ + c;
        if (CUresult r = cu.cuMemcpyDtoHAsync(slot, st.ptrs[b], 1,
                                              st.ctx.stream);
            r != CUDA_SUCCESS)
          return checkCuda(r, "cuMemcpyDtoHAsync", "for a branch condition");
        ++stats_.controlCopies;
        ++stats_.controlBytes;
        value = slot;
      }
      values.push_back(value);
    }
    if (CUresult r = cu.cuStreamSynchronize(st.ctx.stream); r != CUDA_SUCCESS)
      return checkCuda(r, "cuStreamSynchronize",
                       "waiting for branch conditions of pipeline '" +
                           plan.name + "'");
    ++stats_.decisions;
    for (size_t i = 0; i < pending.size(); ++i)
      decided[pending[i]] = *values[i] != 0;
  }
  shareChosenMemory();
  return Status();
}

Status Executable::checkBlurStatus() const {
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    if (blurSlot_[k] < 0)
      continue;
    const PlanKernel &kernel = plan_.kernels[k];
    const char *status =
        static_cast<const char *>(blurStatus_) + blurSlot_[k] * kStatusBytes;
    unsigned long long first;
    long long window;
    double sigma;
    std::memcpy(&first, status, 8);
    std::memcpy(&window, status + 8, 8);
    std::memcpy(&sigma, status + 16, 8);
    if (first != ~0ull)
      return Status::error(describeBlurError(kernel.location,
                                             (long long)(first / 8),
                                             int(first % 8), window, sigma));
  }
  return Status();
}

Status Executable::wait(CUstream stream) const {
  if (Status s = waitFor(stream); !s.ok())
    return s;
  return blurStatus_ ? checkBlurStatus() : Status();
}

Status Executable::run(const std::vector<TensorRef> &inputs,
                       const std::vector<TensorRef> &outputs, CUstream stream,
                       bool wait) {
  // 1. Validate everything before touching the GPU.
  auto sizes = bindDims(plan_.name, plan_.buffers.data(),
                        size_t(plan_.numParams), inputs);
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
    if (r < plan_.resultMemory.size())
      if (Status s = checkPinnedMemory(what, plan_.resultMemory[r],
                                       output.memory);
          !s.ok())
        return s;
  }
  // Kernels read inputs while they write outputs, in any order: an output
  // that shares memory with an input (or another output) would be garbage.
  auto overlap = [](const TensorRef &a, const TensorRef &b) {
    if (a.memory != b.memory || a.numBytes() == 0 || b.numBytes() == 0)
      return false;
    auto start = [](const TensorRef &t) {
      return reinterpret_cast<uintptr_t>(t.data);
    };
    return start(a) < start(b) + b.numBytes() &&
           start(b) < start(a) + a.numBytes();
  };
  for (size_t r = 0; r < outputs.size(); ++r) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (overlap(outputs[r], inputs[i]))
        return Status::error("output '" + plan_.resultNames[r] +
                             "' overlaps input '" + plan_.buffers[i].name +
                             "' in memory; Pipe does not run in place");
    for (size_t s = 0; s < r; ++s)
      if (overlap(outputs[r], outputs[s]))
        return Status::error("outputs '" + plan_.resultNames[s] + "' and '" +
                             plan_.resultNames[r] + "' overlap in memory");
  }

  auto device = getCudaDevice();
  if (!device)
    return device.status();
  const CudaDriver &cu = **getCudaDriver();

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
    if (Status s = allocations.allocate(bytes, i, plan_.buffers[i].name,
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
    if (Status s = allocations.allocate(numControlSlots_, numBuffers,
                                        "the branch conditions", &block);
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

  LaunchContext context{cu,  **device, stream, allocations,
                        *sizes, ptrs,     shapes};
  if (blurStatus_) {
    std::memset(blurStatus_, 0xff, kStatusBytes * numBlurs_);
    // Run numbers fill the words' bits above PIPE_BLUR_RUN_SHIFT; when they
    // wrap, the words go back to zero (an earlier run's) first.
    if (++blurRun_ == (1ull << blurgeometry::kRunBits)) {
      blurRun_ = 1;
      if (CUresult r = cu.cuMemsetD8Async(
              blurWords_, 0, numBlurs_ * kRunSlots * kBlurWordBytes, stream);
          r != CUDA_SUCCESS)
        return checkCuda(r, "cuMemsetD8Async", "for blur status words");
    }
  }
  RunState state{context, ptrs, bound, inputs, controlBlock};
  if (Status s = schedule(state); !s.ok())
    return s;

  // A blur that found a bad window wrote nothing; copying its (unwritten)
  // device buffers to host outputs would. So with blurs, host outputs wait
  // for the verdict first.
  bool hostOutputs = std::any_of(outputs.begin(), outputs.end(),
                                 [](const TensorRef &t) {
                                   return t.memory == Memory::Host &&
                                          t.numBytes() > 0;
                                 });
  if (blurStatus_ && hostOutputs) {
    if (CUresult r = cu.cuStreamSynchronize(stream); r != CUDA_SUCCESS)
      return checkCuda(r, "cuStreamSynchronize",
                       "after running pipeline '" + plan_.name + "'");
    if (Status s = checkBlurStatus(); !s.ok())
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
  return blurStatus_ ? checkBlurStatus() : Status();
}

Status pipert::waitFor(CUstream stream) {
  auto driver = getCudaDriver();
  if (!driver)
    return driver.status();
  return checkCuda((*driver)->cuStreamSynchronize(stream),
                   "cuStreamSynchronize");
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
