//===- shard_bench.cpp - Sharded runs against one GPU's ------------------===//
//
// pipe_bench --shards: dyn_blur over 256 samples and the normalize of 256
// images (the largest elementwise workload), each run whole on GPU 0 and
// sharded: over every visible GPU (when there are several) and over two
// shards on GPU 0 (what splitting costs where it cannot gain). Inputs are
// on GPU 0, as a loader would leave them; sharded runs leave each shard's
// results on its GPU (runShards), so the times include the scatter of the
// other GPUs' inputs over the peer link but no gather. Wall-clock medians
// of whole synchronous runs. With several GPUs it also times the layout a
// data-parallel trainer has (and torchrun's process per GPU): each GPU's
// samples already on it, one pipeline per GPU run at once, no scatter.
//
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"

#include "runtime/Sharded.h"

#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace pipebench;

HostTensor densityMasks(int64_t n, int64_t h, int64_t w, double lo, double hi,
                        uint64_t seed); // pipe_bench.cpp

namespace {

struct Workload {
  const char *name;
  const char *source;
  HostTensor input;
  DType outDType;
};

/// Times `plan` whole on GPU 0 and sharded over each of `shardings`;
/// returns the whole run's milliseconds.
double compare(const Workload &w, const pipert::Plan &plan,
               const std::vector<std::vector<int>> &shardings, int reps) {
  DeviceTensor in = upload(w.input);
  pipert::TensorRef input = in.ref();
  auto whole = pipert::Executable::load(plan);
  if (!whole)
    exit(1);
  auto shapes = (*whole)->resultShapes({input});
  DeviceTensor out = allocate(w.outDType, (*shapes)[0]);
  double wholeMs = wallUs([&](int) {
                     if (!(*whole)->run({input}, {out.ref()}).ok())
                       exit(1);
                   }, 3, reps) / 1e3;
  double bytes = double(w.input.numBytes()) + double(out.bytes());
  record(w.name, "pipe, 1 GPU", wholeMs, bytes);
  for (const std::vector<int> &devices : shardings) {
    auto sharded = pipert::ShardedExecutable::load(plan, devices);
    if (!sharded) {
      fprintf(stderr, "%s\n", sharded.status().message().c_str());
      exit(1);
    }
    auto shardShapes = (*sharded)->shardResultShapes({input});
    std::vector<std::vector<pipert::TensorRef>> outputs;
    std::vector<CUdeviceptr> owned;
    for (size_t s = 0; s < devices.size(); ++s) {
      (void)pipert::getCudaDevice(devices[s]);
      DeviceTensor part = allocate(w.outDType, (*shardShapes)[s][0]);
      owned.push_back(part.ptr);
      outputs.push_back({part.ref()});
    }
    double ms = wallUs([&](int) {
                  pipert::Status st = (*sharded)->runShards({input}, outputs);
                  if (!st.ok()) {
                    fprintf(stderr, "%s\n", st.message().c_str());
                    exit(1);
                  }
                }, 3, reps) / 1e3;
    std::string gpus;
    for (int d : devices)
      gpus += (gpus.empty() ? "" : ",") + std::to_string(d);
    std::string impl = "pipe, " + std::to_string(devices.size()) +
                       " shards on GPUs " + gpus;
    pipert::ShardedRunStats stats = (*sharded)->lastRunStats();
    record(w.name, impl.c_str(), ms, bytes,
           "\"speedup\": " + std::to_string(wholeMs / ms) +
               ", \"scatter_bytes\": " + std::to_string(stats.scatterBytes));
    for (CUdeviceptr p : owned)
      cu->cuMemFree(p);
    (void)pipert::getCudaDevice(0);
  }
  cu->cuMemFree(in.ptr);
  cu->cuMemFree(out.ptr);
  return wholeMs;
}

/// Runs `work(i)` on each of `count` threads at once, `reps` times, the
/// threads made once; returns the wall-clock median of a round in ms.
double concurrentMs(int count, const std::function<void(int)> &work,
                    int warmup, int reps) {
  std::mutex mutex;
  std::condition_variable wake, done;
  int round = 0, finished = 0;
  bool stop = false;
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      for (int seen = 0;;) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          wake.wait(lock, [&] { return stop || round != seen; });
          if (stop)
            return;
          seen = round;
        }
        work(i);
        std::lock_guard<std::mutex> lock(mutex);
        if (++finished == count)
          done.notify_one();
      }
    });
  double ms = wallUs([&](int) {
                std::unique_lock<std::mutex> lock(mutex);
                finished = 0;
                ++round;
                wake.notify_all();
                done.wait(lock, [&] { return finished == count; });
              }, warmup, reps) / 1e3;
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop = true;
  }
  wake.notify_all();
  for (std::thread &t : threads)
    t.join();
  return ms;
}

/// Each of `gpus` GPUs runs its own pipeline over its share of the batch
/// (pipert::splitBatch's split), already in its memory: the throughput of
/// data-parallel preprocessing, against `wholeMs` of one GPU.
void compareResident(const Workload &w, const pipert::Plan &plan, int gpus,
                     double wholeMs, int reps) {
  const int64_t n = w.input.shape()[0];
  const size_t sampleBytes = w.input.numBytes() / size_t(n);
  std::vector<std::unique_ptr<pipert::Executable>> exes;
  std::vector<DeviceTensor> ins, outs;
  int64_t first = 0;
  for (int g = 0; g < gpus; ++g) {
    const int64_t count = n / gpus + (g < n % gpus ? 1 : 0);
    std::vector<int64_t> shape = w.input.shape();
    shape[0] = count;
    HostTensor part(w.input.dtype(), shape);
    std::memcpy(part.data(),
                static_cast<const char *>(w.input.data()) + first * sampleBytes,
                size_t(count) * sampleBytes);
    first += count;
    (void)pipert::getCudaDevice(g);
    auto exe = pipert::Executable::load(plan, g);
    if (!exe)
      exit(1);
    ins.push_back(upload(part));
    auto shapes = (*exe)->resultShapes({ins.back().ref()});
    outs.push_back(allocate(w.outDType, (*shapes)[0]));
    exes.push_back(exe.take());
  }
  // Each GPU's share alone first: what the concurrent run could reach.
  for (int g = 0; g < gpus; ++g) {
    double alone = wallUs([&](int) {
                     if (!exes[g]->run({ins[g].ref()}, {outs[g].ref()}).ok())
                       exit(1);
                   }, 3, reps) / 1e3;
    std::string impl = "pipe, GPU " + std::to_string(g) + " alone, its " +
                       std::to_string(ins[g].shape[0]) + " samples";
    record(w.name, impl.c_str(), alone,
           double(ins[g].bytes()) + double(outs[g].bytes()));
  }
  double ms = concurrentMs(gpus, [&](int g) {
    if (!exes[g]->run({ins[g].ref()}, {outs[g].ref()}).ok())
      exit(1);
  }, 3, reps);
  double bytes = 0;
  for (int g = 0; g < gpus; ++g)
    bytes += double(ins[g].bytes()) + double(outs[g].bytes());
  std::string impl = "pipe, a pipeline on each of " + std::to_string(gpus) +
                     " GPUs, inputs resident";
  record(w.name, impl.c_str(), ms, bytes,
         "\"speedup\": " + std::to_string(wholeMs / ms));
  for (int g = 0; g < gpus; ++g) {
    (void)pipert::getCudaDevice(g);
    cu->cuMemFree(ins[g].ptr);
    cu->cuMemFree(outs[g].ptr);
  }
  exes.clear();
  (void)pipert::getCudaDevice(0);
}

} // namespace

int runShardScaling(bool quick) {
  auto count = pipert::getCudaDeviceCount();
  if (!count)
    return 77;
  std::vector<std::vector<int>> shardings;
  if (*count > 1) {
    std::vector<int> all;
    for (int d = 0; d < *count; ++d)
      all.push_back(d);
    shardings.push_back(all);
  }
  shardings.push_back({0, 0});
  const int64_t n = quick ? 16 : 256;
  Workload blur{"dyn_blur_256_sharded",
                "pipeline dynamic_blur(masks: u8[N, H, W]) -> (blurred: u8[N, H, W]) {\n"
                "  ratio   = mean(f32(masks > 0), axes = [1, 2])\n"
                "  window  = i32(16 + ratio * 300) | 1\n"
                "  blurred = gaussian_blur(masks, window = window, axes = [1, 2])\n}\n",
                densityMasks(n, 1024, 1024, 0.02, 0.3, 9), DType::U8};
  HostTensor images(DType::U8, {n, 512, 512, 3});
  for (int64_t i = 0; i < images.numElements(); ++i)
    images.as<uint8_t>()[i] = uint8_t(i * 2654435761u >> 24);
  Workload normalize{
      "normalize_256_sharded",
      "pipeline normalize(images: u8[N, H, W, 3]) -> (out: f32[N, 3, H, W]) {\n"
      "  mean = [123.675, 116.28, 103.53]\n"
      "  std  = [58.395, 57.12, 57.375]\n"
      "  out  = transpose((f32(images) - mean) / std, [0, 3, 1, 2])\n}\n",
      std::move(images), DType::F32};
  for (const Workload *w : {&blur, &normalize}) {
    auto pipeline = compile(w->source);
    double wholeMs = compare(*w, pipeline->plan(), shardings, quick ? 5 : 20);
    if (*count > 1)
      compareResident(*w, pipeline->plan(), *count, wholeMs, quick ? 5 : 20);
  }
  return 0;
}
