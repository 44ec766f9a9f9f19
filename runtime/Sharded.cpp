//===- Sharded.cpp - One pipeline over a batch split across GPUs ----------===//

#include "runtime/Sharded.h"

#include "core/DimExpr.h"
#include "core/StorageTypes.h"
#include "runtime/CudaDriver.h"

#include <condition_variable>
#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <utility>

using namespace pipert;

std::vector<ShardRange> pipert::splitBatch(int64_t batch,
                                           const std::vector<int> &devices) {
  std::vector<ShardRange> ranges;
  int64_t n = int64_t(devices.size()), begin = 0;
  for (int64_t s = 0; s < n; ++s) {
    int64_t count = batch / n + (s < batch % n ? 1 : 0);
    ranges.push_back({devices[size_t(s)], begin, count});
    begin += count;
  }
  return ranges;
}

Result<ShardRange> pipert::shardOf(int64_t total, int shardId, int numShards) {
  if (numShards < 1 || shardId < 0 || shardId >= numShards)
    return Status::badArgument("shard " + std::to_string(shardId) + " of " +
                               std::to_string(numShards) +
                               ": the shard must be in [0, num_shards) and "
                               "num_shards at least 1");
  if (total < 0)
    return Status::badArgument("a batch of " + std::to_string(total) +
                               " samples cannot be split");
  return splitBatch(total, std::vector<int>(size_t(numShards), 0))[shardId];
}

namespace {
/// Combines values of storage type T: floats in double, integers in their
/// own type with wrapping sums and products (as the reductions compute).
template <typename T>
T combineElements(PlanCombineKind kind, const std::vector<T> &values,
                  const std::vector<int64_t> &weights) {
  using Traits = pipe_traits<T>;
  if constexpr (Traits::is_float) {
    double acc = kind == PlanCombineKind::Prod ? 1.0 : 0.0;
    double total = 0;
    bool first = true;
    for (size_t i = 0; i < values.size(); ++i) {
      double v = pipe_as_double(values[i]);
      switch (kind) {
      case PlanCombineKind::Sum: acc += v; break;
      case PlanCombineKind::Prod: acc *= v; break;
      case PlanCombineKind::Mean:
        acc += v * double(weights[i]);
        total += double(weights[i]);
        break;
      case PlanCombineKind::Min:
      case PlanCombineKind::Max:
        if (first || v != v)
          acc = v;
        else if (acc == acc)
          acc = kind == PlanCombineKind::Min ? std::min(acc, v)
                                             : std::max(acc, v);
        break;
      default: break;
      }
      first = false;
    }
    if (kind == PlanCombineKind::Mean)
      acc = total > 0 ? acc / total : 0.0 / 0.0;
    return pipe_cast<T>(acc);
  } else if constexpr (Traits::is_int) {
    using U = unsigned long long;
    U acc = kind == PlanCombineKind::Prod ? 1 : 0;
    T best = values[0];
    for (const T &v : values) {
      acc = kind == PlanCombineKind::Prod ? acc * U(v) : acc + U(v);
      best = kind == PlanCombineKind::Min ? std::min(best, v) : std::max(best, v);
    }
    if (kind == PlanCombineKind::Min || kind == PlanCombineKind::Max)
      return best;
    return T(acc);
  } else { // bool: any, all (min and max are all and any)
    bool any = false, all = true;
    for (const T &v : values) {
      any |= v.v != 0;
      all &= v.v != 0;
    }
    bool isAll = kind == PlanCombineKind::All || kind == PlanCombineKind::Min;
    return pipe_make_bool(isAll ? all : any);
  }
}
} // namespace

Result<std::string> pipert::combinePartials(PlanCombineKind kind, DType dtype,
                                            const std::vector<std::string> &parts,
                                            const std::vector<int64_t> &weights) {
  std::vector<size_t> used;
  for (size_t s = 0; s < parts.size(); ++s)
    if (s >= weights.size() || weights[s] > 0)
      used.push_back(s);
  if (used.empty() || parts[used[0]].size() % dtypeSize(dtype) != 0)
    return Status::error("internal error: no partial values to combine");
  size_t bytes = parts[used[0]].size();
  for (size_t s : used)
    if (parts[s].size() != bytes)
      return Status::error("internal error: the shards' partial values "
                           "differ in size");
  std::string result(bytes, '\0');
  visitStorageType(dtype, [&](auto tag) {
    using T = decltype(tag);
    size_t n = bytes / sizeof(T);
    std::vector<T> values(used.size());
    std::vector<int64_t> usedWeights;
    for (size_t s : used)
      usedWeights.push_back(s < weights.size() ? weights[s] : 1);
    for (size_t e = 0; e < n; ++e) {
      for (size_t i = 0; i < used.size(); ++i)
        std::memcpy(&values[i], parts[used[i]].data() + e * sizeof(T),
                    sizeof(T));
      T combined = combineElements<T>(kind, values, usedWeights);
      std::memcpy(result.data() + e * sizeof(T), &combined, sizeof(T));
    }
  });
  return result;
}

namespace {
/// The shards of one run meet here at each reduction over the batch: the
/// last to arrive combines the values, and every shard goes on with the
/// result. A shard that fails stops the others' waits.
class ShardGroup {
public:
  ShardGroup(const Plan &plan, std::vector<int64_t> weights)
      : plan(plan), weights(std::move(weights)),
        parts(this->weights.size()) {}

  Status combine(size_t shard, int buffer, std::string &bytes) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!failure.ok())
      return failure;
    if (finishedEarly)
      return fail(shard, Status::error("internal error: a shard finished its run "
                                "while another combines a reduction"));
    if (arrived == 0)
      currentBuffer = buffer;
    else if (buffer != currentBuffer)
      return fail(shard, Status::error(
          "internal error: the shards combine different reductions"));
    parts[shard] = std::move(bytes);
    if (++arrived == parts.size()) {
      const PlanCombine *combine = nullptr;
      for (const PlanCombine &c : plan.combines)
        if (c.buffer == buffer)
          combine = &c;
      if (!combine)
        return fail(shard, Status::error("internal error: buffer " +
                                  std::to_string(buffer) +
                                  " is no reduction over the batch"));
      auto combined = combinePartials(combine->kind,
                                      plan.buffers[size_t(buffer)].dtype,
                                      parts, weights);
      if (!combined)
        return fail(shard, combined.status());
      result = combined.take();
      arrived = 0;
      ++generation;
      changed.notify_all();
    } else {
      uint64_t mine = generation;
      changed.wait(lock, [&] { return generation != mine || !failure.ok(); });
      if (generation == mine)
        return failure;
    }
    bytes = result;
    return Status();
  }

  /// Shard `shard` has finished its run with `status`: a failure stops
  /// the others' waits; a success while another waits is the runtime's bug.
  void finish(size_t shard, const Status &status) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!status.ok()) {
      record(shard, status);
    } else {
      finishedEarly = true;
      if (arrived > 0)
        record(shard, Status::error("internal error: a shard finished its "
                                    "run while another combines a "
                                    "reduction"));
    }
    changed.notify_all();
  }

  /// The first failure and the shard that found it (the others stopped
  /// with a copy of it), or none.
  std::optional<std::pair<size_t, Status>> firstFailure() {
    std::lock_guard<std::mutex> lock(mutex);
    if (failure.ok())
      return std::nullopt;
    return std::make_pair(failedShard, failure);
  }

private:
  void record(size_t shard, const Status &status) {
    if (!failure.ok())
      return;
    failure = status;
    failedShard = shard;
  }
  Status fail(size_t shard, Status status) {
    record(shard, status);
    changed.notify_all();
    return status;
  }
  const Plan &plan;
  const std::vector<int64_t> weights;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> parts;
  size_t arrived = 0;
  int currentBuffer = -1;
  uint64_t generation = 0;
  std::string result;
  Status failure;
  size_t failedShard = 0;
  bool finishedEarly = false;
};

/// Shard `shard`'s side of a ShardGroup.
class ShardPort : public ShardExchange {
public:
  ShardPort(ShardGroup &group, size_t shard) : group(group), shard(shard) {}
  Status combine(int buffer, std::string &bytes) override {
    return group.combine(shard, buffer, bytes);
  }

private:
  ShardGroup &group;
  size_t shard;
};

/// Device memory for a shard's copies of inputs and results on other
/// GPUs, freed at the end of the run.
class ShardScratch {
public:
  explicit ShardScratch(const CudaDriver &cu) : cu(cu) {}
  ~ShardScratch() {
    for (CUdeviceptr ptr : owned)
      cu.cuMemFree(ptr);
  }
  Status allocate(size_t bytes, const std::string &what, CUdeviceptr *ptr) {
    *ptr = 0;
    if (bytes == 0)
      return Status();
    if (Status s = checkCuda(cu.cuMemAlloc(ptr, bytes), "cuMemAlloc", what);
        !s.ok())
      return s;
    owned.push_back(*ptr);
    return Status();
  }

private:
  const CudaDriver &cu;
  std::vector<CUdeviceptr> owned;
};

/// `t`'s rows [begin, begin + count) along its leading dim (a view).
TensorRef rowsOf(const TensorRef &t, int64_t begin, int64_t count) {
  TensorRef rows = t;
  int64_t rowElements = 1;
  for (size_t d = 1; d < t.shape.size(); ++d)
    rowElements *= t.shape[d];
  rows.data = static_cast<char *>(t.data) +
              size_t(begin * rowElements) * dtypeSize(t.dtype);
  rows.shape[0] = count;
  return rows;
}

/// The device ordinal a device pointer belongs to, or -1 when the driver
/// cannot say (then it is taken to be on the shard's own).
int deviceOf(const CudaDriver &cu, const TensorRef &t) {
  if (t.memory != Memory::Device || !t.data)
    return -1;
  int ordinal = -1;
  if (cu.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                               reinterpret_cast<CUdeviceptr>(t.data)) !=
      CUDA_SUCCESS)
    return -1;
  return ordinal;
}
} // namespace

/// Lets each pair of distinct devices among `devices` reach the other's
/// memory directly (NVLink or PCIe peer to peer) where the hardware can:
/// a shard's scatter and gather copies then go GPU to GPU instead of
/// through the host. Best effort: a pair that cannot keeps the staged
/// copies, which are correct, only slower.
static void enablePeerAccess(const CudaDriver &cu,
                             const std::vector<int> &devices) {
  for (int from : devices)
    for (int to : devices) {
      if (from == to)
        continue;
      auto a = getCudaDevice(from), b = getCudaDevice(to);
      if (!a || !b)
        continue;
      int can = 0;
      if (cu.cuDeviceCanAccessPeer(&can, (*a)->device, (*b)->device) !=
              CUDA_SUCCESS ||
          !can)
        continue;
      if (cu.cuCtxSetCurrent((*a)->context) != CUDA_SUCCESS)
        continue;
      // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED on a second load: fine.
      (void)cu.cuCtxEnablePeerAccess((*b)->context, 0);
    }
  // As Executable::load leaves it: the last shard's context current.
  if (!devices.empty())
    (void)getCudaDevice(devices.back());
}

Result<std::unique_ptr<ShardedExecutable>>
ShardedExecutable::load(Plan plan, std::vector<int> devices) {
  if (plan.batchDim.empty())
    return Status::badArgument("pipeline '" + plan.name +
                               "' cannot be split along its batch: " +
                               plan.shardError);
  if (devices.empty()) {
    auto count = getCudaDeviceCount();
    if (!count)
      return count.status();
    for (int d = 0; d < *count; ++d)
      devices.push_back(d);
  }
  std::unique_ptr<ShardedExecutable> sharded(new ShardedExecutable());
  const CudaDriver *cu = nullptr;
  for (int device : devices) {
    auto shard = Executable::load(plan, device);
    if (!shard)
      return shard.status();
    cu = *getCudaDriver();
    CUstream stream = nullptr;
    // Blocking: ordered after work on the legacy default stream, where
    // most callers' inputs were made.
    if (Status s = checkCuda(cu->cuStreamCreate(&stream, CU_STREAM_DEFAULT),
                             "cuStreamCreate", "for a shard");
        !s.ok())
      return s;
    sharded->shards_.push_back(shard.take());
    sharded->streams_.push_back(stream);
    // Beside its stream, for the destructor if a later shard fails.
    sharded->devices_.push_back(device);
  }
  enablePeerAccess(*cu, sharded->devices_);
  return sharded;
}

ShardedExecutable::~ShardedExecutable() {
  auto driver = getCudaDriver();
  if (!driver)
    return;
  CurrentContextRestorer callers(**driver);
  for (size_t s = 0; s < streams_.size(); ++s)
    if (streams_[s] && getCudaDevice(devices_[s]))
      (*driver)->cuStreamDestroy(streams_[s]);
}

bool ShardedExecutable::isBatchedParam(size_t p) const {
  return hasBatchDim(plan(), plan().buffers[p]);
}

bool ShardedExecutable::isBatchedResult(size_t r) const {
  return hasBatchDim(plan(), plan().buffers[size_t(plan().results[r])]);
}

Result<std::vector<ShardRange>>
ShardedExecutable::shardsOf(const std::vector<TensorRef> &inputs) const {
  auto sizes = bindDims(plan().name, plan().buffers.data(),
                        size_t(plan().numParams), inputs);
  if (!sizes)
    return Status::badArgument(sizes.status().message());
  return rangesOf(*sizes);
}

Result<std::vector<ShardRange>>
ShardedExecutable::rangesOf(const std::map<std::string, int64_t> &sizes) const {
  auto batch = sizes.find(plan().batchDim);
  if (batch == sizes.end())
    return Status::error("internal error: no parameter binds the batch dim " +
                         plan().batchDim);
  return splitBatch(batch->second, devices_);
}

Result<std::vector<std::vector<int64_t>>>
ShardedExecutable::resultShapes(const std::vector<TensorRef> &inputs) const {
  return pipert::resultShapes(plan(), inputs);
}

Result<std::vector<std::vector<std::vector<int64_t>>>>
ShardedExecutable::shardResultShapes(const std::vector<TensorRef> &inputs) const {
  auto whole = resultShapes(inputs);
  if (!whole)
    return whole.status();
  auto ranges = shardsOf(inputs);
  if (!ranges)
    return ranges.status();
  std::vector<std::vector<std::vector<int64_t>>> shapes;
  for (const ShardRange &range : *ranges) {
    shapes.push_back(*whole);
    for (size_t r = 0; r < whole->size(); ++r)
      if (isBatchedResult(r))
        shapes.back()[r][0] = range.count;
  }
  return shapes;
}

void ShardedExecutable::setRandomState(RandomState state) {
  for (auto &shard : shards_)
    shard->setRandomState(state);
}

ShardedRunStats ShardedExecutable::lastRunStats() const {
  std::lock_guard<std::mutex> lock(runMutex_);
  return stats_;
}

Status ShardedExecutable::run(const std::vector<TensorRef> &inputs,
                              const std::vector<TensorRef> &outputs) {
  std::lock_guard<std::mutex> lock(runMutex_);
  std::vector<std::vector<int64_t>> shapes;
  auto sizes = checkRunTensors(plan(), inputs, outputs, shapes);
  if (!sizes)
    return Status::badArgument(sizes.status().message());
  auto ranges = rangesOf(*sizes);
  if (!ranges)
    return ranges.status();
  auto driver = getCudaDriver();
  if (!driver)
    return driver.status();
  const CudaDriver &cu = **driver;
  // Each shard's outputs: its rows of the batched results, and the first
  // running shard writes the others; results on another GPU go through
  // scratch memory on the shard's, copied after its run.
  struct Gather {
    size_t shard;
    CUdeviceptr from;
    TensorRef to;
  };
  std::vector<Gather> gathers;
  std::vector<std::unique_ptr<ShardScratch>> scratch;
  std::vector<std::vector<TensorRef>> shardOutputs(ranges->size());
  bool first = true;
  for (size_t s = 0; s < ranges->size(); ++s) {
    const ShardRange &range = (*ranges)[s];
    // Shards of no samples do not run, unless the whole batch is empty.
    if (range.count == 0 && s > 0)
      continue;
    auto device = getCudaDevice(range.device);
    if (!device)
      return device.status();
    scratch.push_back(std::make_unique<ShardScratch>(cu));
    for (size_t r = 0; r < outputs.size(); ++r) {
      bool batched = isBatchedResult(r);
      TensorRef out = batched ? rowsOf(outputs[r], range.begin, range.count)
                              : outputs[r];
      // The first running shard writes the results without the batch dim;
      // the others write theirs to scratch, as does a shard whose output
      // is on another GPU (then copied after the run).
      bool writes = batched || first;
      int at = deviceOf(cu, out);
      bool elsewhere = at >= 0 && at != range.device;
      if (!writes || elsewhere) {
        CUdeviceptr ptr = 0;
        if (Status s2 = scratch.back()->allocate(
                out.numBytes(), "for a shard's copy of result '" +
                                    plan().resultNames[r] + "'",
                &ptr);
            !s2.ok())
          return s2;
        if (writes && out.numBytes() > 0)
          gathers.push_back({s, ptr, out});
        out.data = reinterpret_cast<void *>(ptr);
        out.memory = Memory::Device;
      }
      shardOutputs[s].push_back(out);
    }
    first = false;
  }
  if (Status s = runOn(inputs, shardOutputs, *ranges); !s.ok())
    return s;
  for (const Gather &gather : gathers) {
    if (auto device = getCudaDevice((*ranges)[gather.shard].device); !device)
      return device.status();
    if (Status s = checkCuda(
            cu.cuMemcpyDtoD(reinterpret_cast<CUdeviceptr>(gather.to.data),
                            gather.from, gather.to.numBytes()),
            "cuMemcpyDtoD", "gathering a shard's results");
        !s.ok())
      return s;
    stats_.gatherBytes += gather.to.numBytes();
  }
  return Status();
}

Status ShardedExecutable::runShards(
    const std::vector<TensorRef> &inputs,
    const std::vector<std::vector<TensorRef>> &shardOutputs) {
  std::lock_guard<std::mutex> lock(runMutex_);
  auto ranges = shardsOf(inputs);
  if (!ranges)
    return ranges.status();
  if (shardOutputs.size() != ranges->size())
    return Status::badArgument(
        "pipeline '" + plan().name + "' runs in " +
        std::to_string(ranges->size()) + " shards but was given outputs for " +
        std::to_string(shardOutputs.size()));
  return runOn(inputs, shardOutputs, *ranges);
}

Status ShardedExecutable::runOn(
    const std::vector<TensorRef> &inputs,
    const std::vector<std::vector<TensorRef>> &shardOutputs,
    const std::vector<ShardRange> &ranges) {
  const CudaDriver &cu = **getCudaDriver();
  const Plan &p = plan();
  stats_ = ShardedRunStats();
  stats_.shards = ranges;
  // The shards that run: those with samples, or the first of an empty
  // batch.
  std::vector<size_t> running;
  for (size_t s = 0; s < ranges.size(); ++s)
    if (ranges[s].count > 0)
      running.push_back(s);
  if (running.empty())
    running.push_back(0);
  // Each shard's inputs: its rows of the batched parameters, the others
  // whole; checked, with its outputs, before any shard starts.
  std::vector<std::vector<TensorRef>> shardInputs(ranges.size());
  for (size_t s : running) {
    for (size_t i = 0; i < inputs.size(); ++i)
      shardInputs[s].push_back(
          i < size_t(p.numParams) && isBatchedParam(i) && !inputs[i].shape.empty()
              ? rowsOf(inputs[i], ranges[s].begin, ranges[s].count)
              : inputs[i]);
    std::vector<std::vector<int64_t>> shapes;
    if (auto sizes = checkRunTensors(p, shardInputs[s], shardOutputs[s], shapes);
        !sizes)
      return Status::badArgument("shard " + std::to_string(s) + ": " +
                                 sizes.status().message());
  }
  // Inputs on another GPU than their shard's are copied to the shard's.
  std::vector<std::unique_ptr<ShardScratch>> scratch;
  for (size_t s : running) {
    auto device = getCudaDevice(ranges[s].device);
    if (!device)
      return device.status();
    scratch.push_back(std::make_unique<ShardScratch>(cu));
    for (size_t i = 0; i < shardInputs[s].size(); ++i) {
      TensorRef &in = shardInputs[s][i];
      int at = deviceOf(cu, in);
      if (at < 0 || at == ranges[s].device || in.numBytes() == 0)
        continue;
      CUdeviceptr ptr = 0;
      if (Status st = scratch.back()->allocate(
              in.numBytes(), "for a shard's copy of input '" +
                                 p.buffers[i].name + "'",
              &ptr);
          !st.ok())
        return st;
      if (Status st = checkCuda(
              cu.cuMemcpyDtoDAsync(ptr, reinterpret_cast<CUdeviceptr>(in.data),
                                   in.numBytes(), streams_[s]),
              "cuMemcpyDtoDAsync", "scattering input '" + p.buffers[i].name + "'");
          !st.ok())
        return st;
      stats_.scatterBytes += in.numBytes();
      in.data = reinterpret_cast<void *>(ptr);
    }
  }
  // Every running shard draws with the same random state, and each sample
  // with its index in the whole batch.
  RandomState random = shards_[0]->randomState();
  for (size_t s : running) {
    RandomState shard = random;
    shard.batchOffset = random.batchOffset + ranges[s].begin;
    shards_[s]->setRandomState(shard);
  }
  std::vector<int64_t> weights;
  for (size_t s : running)
    weights.push_back(ranges[s].count);
  ShardGroup group(p, weights);
  std::vector<std::unique_ptr<ShardPort>> ports;
  for (size_t i = 0; i < running.size(); ++i)
    ports.push_back(std::make_unique<ShardPort>(group, i));
  auto runShard = [&](size_t i) {
    size_t s = running[i];
    group.finish(i, shards_[s]->runWith(shardInputs[s], shardOutputs[s],
                                        streams_[s], /*wait=*/true,
                                        running.size() > 1 ? ports[i].get()
                                                           : nullptr));
  };
  // One thread a shard but the first, which runs on the caller's: a shard
  // waits for its branch conditions and partial reductions, and the others
  // must go on meanwhile.
  std::vector<std::thread> threads;
  for (size_t i = 1; i < running.size(); ++i)
    threads.emplace_back(runShard, i);
  runShard(0);
  for (std::thread &thread : threads)
    thread.join();
  // Every shard, run or not, goes on from the run's state.
  RandomState next = shards_[running[0]]->randomState();
  next.batchOffset = random.batchOffset;
  for (size_t s = 0; s < ranges.size(); ++s)
    shards_[s]->setRandomState(next);
  for (size_t i = 0; i < running.size(); ++i) {
    stats_.shardStats.push_back(shards_[running[i]]->lastRunStats());
    stats_.combineBytes += stats_.shardStats.back().shardCombineBytes;
  }
  // The failure a shard found itself, not the copy another shard stopped
  // with while it waited (every failure passes through the group).
  std::optional<std::pair<size_t, Status>> failed = group.firstFailure();
  if (!failed)
    return Status();
  auto [i, status] = *failed;
  if (running.size() == 1)
    return status;
  const ShardRange &range = ranges[running[i]];
  std::string message = "shard " + std::to_string(running[i]) + " (samples " +
                        std::to_string(range.begin) + " .. " +
                        std::to_string(range.begin + range.count - 1) +
                        "): " + status.message();
  return status.isBadArgument() ? Status::badArgument(message)
                                : Status::error(message);
}
