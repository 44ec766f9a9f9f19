//===- pipe_bench.cpp - Pipe's side of the elementwise benchmarks ---------===//
//
// Runs the workloads of ../shared/bench/peers.py through the JIT API on
// device buffers and prints one JSON line per measurement, as peers.py
// does, so that bench/report.py can put them side by side. Results are
// checked against the CPU reference before anything is timed.
//
//   pipe_bench [--quick] [--dynamic]   (--dynamic: reductions and blurs)
//   pipe_bench [--quick] --blur-only   (dyn_blur alone, for tuning)
//   pipe_bench [--quick] --color       (color jitter, noise: see
//                                       layout_bench.cpp)
//   pipe_bench [--quick] --window      (box_filter, erode, median, conv2d:
//                                       see layout_bench.cpp)
//   pipe_bench [--quick] --layout      (crop, erase, concat, pad: see
//                                       layout_bench.cpp)
//   pipe_bench [--quick] --shards      (dyn_blur and normalize of 256
//                                       samples, whole and sharded: see
//                                       shard_bench.cpp)
//   pipe_bench --call-latency          (one 224x224 image through normalize:
//                                       the C++ call python_overhead.py
//                                       compares pipegpu's with)
//
// GPU times are medians of CUDA-event-timed runs over rotated input sets
// (so that repeated runs do not measure the L2 cache); host overhead is the
// wall-clock time of a whole run() call on device pointers, minus nothing.
//
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"

#include "runtime/KernelCache.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace pipebench;

namespace {

const char *const kEwChain =
    "pipeline ew_chain(x: f32[N]) -> (y: u8[N]) {\n"
    "  y = u8(round(clamp(x * 1.5 + 0.25, 0, 1) * 255))\n}\n";
const char *const kNormalize =
    "pipeline normalize(images: u8[N, H, W, 3]) -> (out: f32[N, 3, H, W]) {\n"
    "  mean = [123.675, 116.28, 103.53]\n"
    "  std  = [58.395, 57.12, 57.375]\n"
    "  out  = transpose((f32(images) - mean) / std, [0, 3, 1, 2])\n}\n";

/// Runs `pipeline` over rotating input sets and reports GPU time, host
/// overhead, and (for large sizes) bandwidth.
void measure(const char *workload, pipec::JitPipeline &pipeline,
             const std::vector<DeviceTensor> &inputSets,
             const DeviceTensor &output, double bytesMoved, int reps,
             const char *impl = "pipe") {
  auto runOne = [&](int i, bool wait) {
    pipert::Status s = pipeline.run({inputSets[i % inputSets.size()].ref()},
                                    {output.ref()}, nullptr, wait);
    if (!s.ok()) {
      fprintf(stderr, "%s\n", s.message().c_str());
      exit(1);
    }
  };
  double ms = gpuMs([&](int i) { runOne(i, /*wait=*/false); }, 5, reps);
  double us = wallUs([&](int i) { runOne(i, /*wait=*/true); }, 5, reps);
  // Host overhead: the time run() takes to check the inputs and queue the
  // work, measured with the GPU idle (a wait after each call, untimed).
  std::vector<double> enqueue;
  for (int i = 0; i < reps + 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    pipert::Status s = pipeline.run({inputSets[i % inputSets.size()].ref()},
                                    {output.ref()}, nullptr, /*wait=*/false);
    auto t1 = std::chrono::steady_clock::now();
    if (!s.ok() || !pipert::waitFor(nullptr).ok())
      exit(1);
    if (i >= 5)
      enqueue.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  char extra[160];
  snprintf(extra, sizeof(extra),
           "\"wall_us_per_run\": %.1f, \"host_us_per_run\": %.1f", us,
           median(enqueue));
  record(workload, impl, ms, bytesMoved, extra);
}

} // namespace

/// normalize from host memory to host memory: the transfers dominate.
void measureHostIo(const char *impl) {
  auto pipeline = compile(kNormalize);
  HostTensor images(DType::U8, {16, 512, 512, 3});
  std::mt19937 rng(3);
  for (int64_t i = 0; i < images.numElements(); ++i)
    images.as<uint8_t>()[i] = uint8_t(rng());
  HostTensor out(DType::F32, {16, 3, 512, 512});
  double us = wallUs(
      [&](int) {
        if (!pipeline->run({images.ref()}, {out.ref()}).ok())
          exit(1);
      },
      3, 20);
  record("normalize_host_io", impl, us / 1000,
         double(images.numBytes() + out.numBytes()));
}

const char *const kMaskRatio =
    "pipeline mask_ratio(masks: u8[N, H, W]) -> (ratio: f32[N]) {\n"
    "  ratio = mean(f32(masks > 0), axes = [1, 2])\n}\n";
const char *const kDynamicBlur =
    "pipeline dynamic_blur(masks: u8[N, H, W]) -> (blurred: u8[N, H, W]) {\n"
    "  ratio   = mean(f32(masks > 0), axes = [1, 2])\n"
    "  window  = i32(16 + ratio * 300) | 1\n"
    "  blurred = gaussian_blur(masks, window = window, axes = [1, 2])\n}\n";

/// Masks as in ../shared/bench/peers.py: sample i is set (255) with
/// probability lo + (hi - lo) * i / (n - 1).
HostTensor densityMasks(int64_t n, int64_t h, int64_t w, double lo, double hi,
                        uint64_t seed) {
  HostTensor masks(DType::U8, {n, h, w});
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    double density = n > 1 ? lo + (hi - lo) * double(i) / double(n - 1) : lo;
    uint32_t threshold = uint32_t(density * 4294967296.0);
    uint8_t *sample = masks.as<uint8_t>() + i * h * w;
    for (int64_t k = 0; k < h * w; ++k) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      sample[k] = uint32_t(state >> 32) < threshold ? 255 : 0;
    }
  }
  return masks;
}

/// The windows dynamic_blur computes, on the host, the way the GPU does
/// (exact counts, f32 arithmetic).
std::vector<int> windowsOf(const HostTensor &masks) {
  int64_t n = masks.shape()[0], hw = masks.shape()[1] * masks.shape()[2];
  std::vector<int> windows;
  for (int64_t i = 0; i < n; ++i) {
    int64_t count = 0;
    for (int64_t k = 0; k < hw; ++k)
      count += masks.as<uint8_t>()[i * hw + k] != 0;
    float ratio = float(double(count) / double(hw));
    float v = 16.f + ratio * 300.f;
    windows.push_back(int(std::nearbyint(v)) | 1);
  }
  return windows;
}

/// mask_ratio and a reduction of each layout class.
int runReductions(bool quick) {
  // mask_ratio: u8[64, 1024, 1024], and 1 GiB.
  {
    auto pipeline = compile(kMaskRatio);
    for (int64_t n : {int64_t(quick ? 16 : 64), int64_t(1024)}) {
      HostTensor masks = densityMasks(n, 1024, 1024, 0.05, 0.95, 5);
      std::vector<DeviceTensor> inputs{upload(masks)};
      DeviceTensor ratio = allocate(DType::F32, {n});
      if (!pipeline->run({inputs[0].ref()}, {ratio.ref()}).ok())
        return 1;
      auto want = pipeline->runReference({masks});
      check("mask_ratio", download(ratio), (*want)[0]);
      measure(n == 1024 ? "mask_ratio_1GiB" : "mask_ratio", *pipeline, inputs,
              ratio, double(masks.numBytes()), quick ? 20 : 50);
      cu->cuMemFree(inputs[0].ptr);
      cu->cuMemFree(ratio.ptr);
    }
  }
  std::mt19937 rng(11);
  // Every layout class of a reduction, f32 over 256 MiB: across short rows
  // (a thread per row), down columns (outer), a middle axis, and everything.
  {
    struct Shape {
      const char *name, *source;
      std::vector<int64_t> dims, result;
    };
    const Shape shapes[] = {
        {"reduce_rows", "pipeline r(x: f32[A, B]) -> (s: f32[A]) {\n  s = sum(x, axes = [1])\n}\n",
         {int64_t(1) << 24, 4}, {int64_t(1) << 24}},
        {"reduce_outer", "pipeline r(x: f32[A, B]) -> (s: f32[B]) {\n  s = sum(x, axes = [0])\n}\n",
         {8192, 8192}, {8192}},
        {"reduce_middle", "pipeline r(x: f32[A, B, C]) -> (s: f32[A, C]) {\n  s = mean(x, axes = [1])\n}\n",
         {64, 1024, 1024}, {64, 1024}},
        {"reduce_all", "pipeline r(x: f32[A]) -> (s: f32) {\n  s = sum(x)\n}\n",
         {int64_t(1) << 26}, {}},
    };
    for (const Shape &shape : shapes) {
      auto pipeline = compile(shape.source);
      HostTensor x(DType::F32, shape.dims);
      std::uniform_real_distribution<float> dist(0.f, 1.f);
      for (int64_t i = 0; i < x.numElements(); ++i)
        x.as<float>()[i] = dist(rng);
      std::vector<DeviceTensor> inputs{upload(x)};
      DeviceTensor out = allocate(DType::F32, shape.result);
      if (!pipeline->run({inputs[0].ref()}, {out.ref()}).ok())
        return 1;
      auto want = pipeline->runReference({x});
      HostTensor got = download(out);
      for (int64_t i = 0; i < got.numElements(); ++i) {
        double a = got.as<float>()[i], b = (*want)[0].as<float>()[i];
        if (std::fabs(a - b) > 1e-5 * std::fabs(b) + 1e-6) {
          fprintf(stderr, "%s: result %lld is %g, the reference's %g\n",
                  shape.name, (long long)i, a, b);
          return 1;
        }
      }
      measure(shape.name, *pipeline, inputs, out, double(x.numBytes()),
              quick ? 20 : 50);
      cu->cuMemFree(inputs[0].ptr);
      cu->cuMemFree(out.ptr);
    }
  }
  return 0;
}

/// The seeds' dynamic blur at 1, 16 and 256 samples (1, 4, 16 when quick).
int runDynamicBlur(bool quick) {
  // dyn_blur: u8[N, 1024, 1024], densities 0.02 .. 0.3 (windows ~22 .. 106).
  {
    auto pipeline = compile(kDynamicBlur);
    int clockKHz = 0, sms = 0;
    CUdevice device;
    CHECK_CU(cu->cuDeviceGet(&device, 0));
    CHECK_CU(cu->cuDeviceGetAttribute(&clockKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device));
    CHECK_CU(cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    // FP32 FMAs per second: 128 lanes per SM (Hopper) at the boost clock.
    double fmaRate = double(sms) * 128 * clockKHz * 1e3;
    // Densities rise with the sample index; dyn_blur_shuffled takes the
    // same samples in a random order (real batches are not sorted).
    struct Case {
      int64_t n;
      bool shuffled;
    };
    const int64_t middle = quick ? 4 : 16;
    for (Case c : {Case{1, false}, Case{middle, false}, Case{middle, true},
                   Case{quick ? 16 : 256, false}}) {
      const int64_t n = c.n;
      HostTensor masks = densityMasks(n, 1024, 1024, 0.02, 0.3, 9);
      if (c.shuffled) {
        std::vector<int64_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), std::mt19937(5));
        HostTensor sorted = masks;
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(masks.as<uint8_t>() + i * 1024 * 1024,
                      sorted.as<uint8_t>() + order[i] * 1024 * 1024,
                      1024 * 1024);
      }
      std::vector<int> windows = windowsOf(masks);
      double fmas = 0;
      for (int w : windows)
        fmas += 2.0 * w * 1024 * 1024; // two passes of w taps per pixel
      std::vector<DeviceTensor> inputs{upload(masks)};
      DeviceTensor blurred = allocate(DType::U8, {n, 1024, 1024});
      if (pipert::Status s = pipeline->run({inputs[0].ref()}, {blurred.ref()});
          !s.ok()) {
        fprintf(stderr, "dyn_blur: %s\n", s.message().c_str());
        return 1;
      }
      // The first and last samples against the reference (each sample's
      // result depends on that sample alone).
      HostTensor got = download(blurred);
      for (int64_t i : {int64_t(0), n - 1}) {
        HostTensor one(DType::U8, {1, 1024, 1024});
        std::memcpy(one.data(), masks.as<uint8_t>() + i * 1024 * 1024, 1024 * 1024);
        auto want = pipeline->runReference({one});
        if (std::memcmp((*want)[0].data(), got.as<uint8_t>() + i * 1024 * 1024,
                        1024 * 1024) != 0) {
          fprintf(stderr, "dyn_blur: sample %lld differs from the reference\n",
                  (long long)i);
          return 1;
        }
      }
      std::string extra =
          "\"samples\": " + std::to_string(n) +
          ", \"fma_floor_ms\": " + std::to_string(fmas / fmaRate * 1e3) +
          ", \"windows\": [" +
          std::to_string(*std::min_element(windows.begin(), windows.end())) +
          ", " +
          std::to_string(*std::max_element(windows.begin(), windows.end())) +
          "]";
      double ms = gpuMs(
          [&](int) {
            if (!pipeline->run({inputs[0].ref()}, {blurred.ref()}, nullptr, false).ok())
              exit(1);
          },
          3, quick ? 10 : 30);
      record(n == 1       ? "dyn_blur_1"
             : c.shuffled ? "dyn_blur_shuffled"
             : n <= 16    ? "dyn_blur"
                          : "dyn_blur_256",
             "pipe", ms, 2.0 * masks.numBytes(), extra);
      cu->cuMemFree(inputs[0].ptr);
      cu->cuMemFree(blurred.ptr);
    }
  }
  return 0;
}

/// Blurs in a loop whose trip count is on the host or the device.
int runLoopBlur(bool quick) {
  // loop_blur: a loop of blurs whose trip count the host knows (a host
  // scalar) or reads (a device scalar), against the same loop unrolled to
  // exactly that many iterations and against all 8: the host decides each
  // iteration, so only n blurs run.
  {
    auto loop = [](int most) {
      return "pipeline loop_blur(masks: u8[N, H, W], n: i32) -> (out: u8[N, H, W]) {\n"
             "  out = masks\n"
             "  for i in 0 .. n max " + std::to_string(most) + " {\n"
             "    out = gaussian_blur(out, window = 31, axes = [1, 2])\n"
             "  }\n}\n";
    };
    auto decided = compile(loop(8).c_str());
    auto exact = compile(loop(2).c_str());
    int64_t n = quick ? 4 : 16;
    HostTensor masks = densityMasks(n, 1024, 1024, 0.02, 0.3, 3);
    std::vector<DeviceTensor> inputs{upload(masks)};
    DeviceTensor out = allocate(DType::U8, {n, 1024, 1024});
    for (int32_t trips : {2, 8}) {
      HostTensor count(DType::I32, {});
      *count.as<int32_t>() = trips;
      DeviceTensor deviceCount = upload(count);
      struct Variant {
        const char *name;
        pipec::JitPipeline *pipeline;
        pipert::TensorRef countRef;
      };
      std::vector<Variant> variants = {
          {"pipe, n on the host", decided.get(), count.ref()},
          {"pipe, n on the device", decided.get(), deviceCount.ref()}};
      if (trips == 2)
        variants.push_back({"pipe, unrolled exactly 2 times", exact.get(),
                            count.ref()});
      for (const Variant &v : variants) {
        if (pipert::Status s =
                v.pipeline->run({inputs[0].ref(), v.countRef}, {out.ref()});
            !s.ok()) {
          fprintf(stderr, "loop_blur: %s\n", s.message().c_str());
          return 1;
        }
        auto want = v.pipeline->runReference(
            {HostTensor(masks), HostTensor(count)});
        check("loop_blur", download(out), (*want)[0]);
        double ms = gpuMs(
            [&](int) {
              if (!v.pipeline->run({inputs[0].ref(), v.countRef}, {out.ref()},
                                   nullptr, false).ok())
                exit(1);
            },
            3, quick ? 10 : 30);
        pipert::Executable::RunStats stats = v.pipeline->lastRunStats();
        std::string extra =
            "\"kernels_launched\": " + std::to_string(stats.kernelsLaunched) +
            ", \"kernels_skipped\": " + std::to_string(stats.kernelsSkipped) +
            ", \"control_copies\": " + std::to_string(stats.controlCopies) +
            ", \"waits\": " + std::to_string(stats.decisions);
        std::string name = "loop_blur_n" + std::to_string(trips);
        record(name.c_str(), v.name, ms, 0, extra);
      }
      cu->cuMemFree(deviceCount.ptr);
    }
    cu->cuMemFree(inputs[0].ptr);
    cu->cuMemFree(out.ptr);
  }
  return 0;
}

/// The reductions and the blurs; only dyn_blur when `blurOnly`.
int runDynamic(bool quick, bool blurOnly) {
  if (!blurOnly && runReductions(quick) != 0)
    return 1;
  if (runDynamicBlur(quick) != 0)
    return 1;
  return blurOnly ? 0 : runLoopBlur(quick);
}

int runLayout(bool quick); // layout_bench.cpp
int runColor(bool quick);  // layout_bench.cpp
int runWindow(bool quick); // layout_bench.cpp
int runShardScaling(bool quick); // shard_bench.cpp

int main(int argc, char **argv) {
  bool quick = false, dynamic = false, blurOnly = false, layout = false,
       color = false, window = false;
  for (int i = 1; i < argc; ++i) {
    quick |= std::string(argv[i]) == "--quick";
    layout |= std::string(argv[i]) == "--layout";
    color |= std::string(argv[i]) == "--color";
    window |= std::string(argv[i]) == "--window";
    dynamic |= std::string(argv[i]) == "--dynamic";
    blurOnly |= std::string(argv[i]) == "--blur-only";
  }
  if (argc > 1 && std::string(argv[1]) == "--host-io-only") {
    if (!pipert::getCudaDevice())
      return 77;
    cu = *pipert::getCudaDriver();
    const char *staging = std::getenv("PIPE_PINNED_STAGING");
    measureHostIo(staging && std::string(staging) == "1"
                      ? "pipe, pinned staging"
                      : "pipe, pageable copies");
    return 0;
  }
  auto device = pipert::getCudaDevice();
  if (!device) {
    fprintf(stderr, "pipe_bench: %s\n", device.status().message().c_str());
    return 77;
  }
  if (std::find_if(argv + 1, argv + argc, [](const char *a) {
        return std::string(a) == "--shards";
      }) != argv + argc) {
    cu = *pipert::getCudaDriver();
    return runShardScaling(quick);
  }
  if (argc > 1 && std::string(argv[1]) == "--call-latency") {
    cu = *pipert::getCudaDriver();
    auto pipeline = compile(kNormalize);
    HostTensor image(DType::U8, {1, 224, 224, 3});
    std::mt19937 rng(5);
    for (int64_t i = 0; i < image.numElements(); ++i)
      image.as<uint8_t>()[i] = uint8_t(rng());
    std::vector<DeviceTensor> inputs;
    inputs.push_back(upload(image));
    DeviceTensor out = allocate(DType::F32, {1, 3, 224, 224});
    measure("normalize_224_call", *pipeline, inputs, out,
            double(image.numBytes()) * 5, 2000, "pipe C++ run()");
    return 0;
  }
  cu = *pipert::getCudaDriver();
  std::mt19937 rng(1);

  // 0. The limit: a device-to-device copy, counting bytes read and written
  // (timed like everything else: after a flush, with a cold L2).
  {
    const int64_t n = int64_t(1) << 28;
    DeviceTensor a = allocate(DType::F32, {n}), b = allocate(DType::F32, {n});
    CHECK_CU(cu->cuMemsetD8Async(a.ptr, 1, a.bytes(), nullptr));
    double ms = gpuMs([&](int) { CHECK_CU(cu->cuMemcpyDtoDAsync(b.ptr, a.ptr, a.bytes(), nullptr)); },
                      10, 50);
    record("copy", "cuMemcpyDtoD", ms, 2.0 * a.bytes());
    cu->cuMemFree(a.ptr);
    cu->cuMemFree(b.ptr);
  }
  if (dynamic || blurOnly)
    return runDynamic(quick, blurOnly);
  if (layout)
    return runLayout(quick);
  if (color)
    return runColor(quick);
  if (window)
    return runWindow(quick);

  // Cold compile: parse to loaded kernel, with and without the disk cache.
  {
    setenv("PIPE_KERNEL_CACHE_DIR", "off", 1);
    auto t0 = std::chrono::steady_clock::now();
    auto pipeline = compile(kNormalize);
    HostTensor tiny(DType::U8, {1, 2, 2, 3});
    auto ran = pipeline->run({tiny});
    auto t1 = std::chrono::steady_clock::now();
    unsetenv("PIPE_KERNEL_CACHE_DIR");
    record("compile", "pipe cold (parse to first result, no cache)",
           std::chrono::duration<double, std::milli>(t1 - t0).count(), 0);
    pipert::clearKernelMemoryCache();
    auto warm = compile(kNormalize); // fills the disk cache
    (void)warm->run({tiny});
    pipert::clearKernelMemoryCache();
    t0 = std::chrono::steady_clock::now();
    auto again = compile(kNormalize);
    (void)again->run({tiny});
    t1 = std::chrono::steady_clock::now();
    record("compile", "pipe warm (parse to first result, disk cache)",
           std::chrono::duration<double, std::milli>(t1 - t0).count(), 0);
    if (!ran.ok())
      return 1;
  }

  // 1. ew_chain: f32[2^28] -> u8.
  {
    auto pipeline = compile(kEwChain);
    for (int64_t n : {int64_t(1) << 28, int64_t(224 * 224 * 3)}) {
      bool big = n > 1000000;
      int sets = big ? 2 : 8;
      std::vector<DeviceTensor> inputs;
      HostTensor first;
      for (int s = 0; s < sets; ++s) {
        HostTensor x(DType::F32, {n});
        std::uniform_real_distribution<float> dist(-0.5f, 1.0f);
        for (int64_t i = 0; i < n; ++i)
          x.as<float>()[i] = dist(rng);
        if (s == 0)
          first = x;
        inputs.push_back(upload(x));
      }
      DeviceTensor y = allocate(DType::U8, {n});
      // Correct first: the whole result against the reference.
      CHECK_CU(pipeline->run({inputs[0].ref()}, {y.ref()}).ok() ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
      auto want = pipeline->runReference({first});
      check("ew_chain", download(y), (*want)[0]);
      measure(big ? "ew_chain" : "ew_chain_small", *pipeline, inputs, y,
              double(n) * 5, big ? (quick ? 20 : 50) : 200);
      if (big) {
        auto fast = compile(kEwChain, /*fastMath=*/true);
        measure("ew_chain", *fast, inputs, y, double(n) * 5, quick ? 20 : 50,
                "pipe --fast-math");
      }
      for (auto &t : inputs)
        cu->cuMemFree(t.ptr);
      cu->cuMemFree(y.ptr);
    }
  }

  // 3. transpose2d: f32[8192, 8192] -> its transpose.
  {
    auto pipeline = compile(
        "pipeline transpose2d(x: f32[R, C]) -> (y: f32[C, R]) {\n"
        "  y = transpose(x, [1, 0])\n}\n");
    const int64_t size = quick ? 4096 : 8192;
    std::vector<DeviceTensor> inputs;
    HostTensor first(DType::F32, {size, size});
    for (int64_t i = 0; i < first.numElements(); ++i)
      first.as<float>()[i] = float(i % 1000003);
    inputs.push_back(upload(first));
    inputs.push_back(upload(first));
    DeviceTensor out = allocate(DType::F32, {size, size});
    CHECK_CU(pipeline->run({inputs[0].ref()}, {out.ref()}).ok() ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
    HostTensor got = download(out);
    for (int64_t r = 0; r < size; r += 97)
      for (int64_t c = 0; c < size; c += 89)
        if (got.as<float>()[c * size + r] != first.as<float>()[r * size + c]) {
          fprintf(stderr, "transpose2d: wrong result at %lld, %lld\n",
                  (long long)r, (long long)c);
          return 1;
        }
    measure("transpose2d", *pipeline, inputs, out, double(size) * size * 8,
            quick ? 20 : 50);
    for (auto &t : inputs)
      cu->cuMemFree(t.ptr);
    cu->cuMemFree(out.ptr);
  }

  // 2. normalize: u8[N, 512, 512, 3] -> f32[N, 3, 512, 512], and one
  // 224x224 image.
  {
    auto pipeline = compile(kNormalize);
    struct Size { int64_t n, h, w; const char *name; };
    for (Size size : {Size{quick ? 16 : 64, 512, 512, "normalize"},
                      Size{1, 224, 224, "normalize_small"}}) {
      bool big = size.n > 1;
      int sets = big ? 2 : 8;
      std::vector<DeviceTensor> inputs;
      HostTensor first;
      for (int s = 0; s < sets; ++s) {
        HostTensor x(DType::U8, {size.n, size.h, size.w, 3});
        for (int64_t i = 0; i < x.numElements(); ++i)
          x.as<uint8_t>()[i] = uint8_t(rng());
        if (s == 0)
          first = x;
        inputs.push_back(upload(x));
      }
      DeviceTensor out = allocate(DType::F32, {size.n, 3, size.h, size.w});
      CHECK_CU(pipeline->run({inputs[0].ref()}, {out.ref()}).ok() ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
      // Check the first image (the reference is slow on the whole batch).
      HostTensor got = download(out);
      HostTensor image(DType::U8, {1, size.h, size.w, 3});
      std::memcpy(image.data(), first.data(), image.numBytes());
      auto want = pipeline->runReference({image});
      if (std::memcmp(got.data(), (*want)[0].data(), (*want)[0].numBytes()) != 0) {
        fprintf(stderr, "normalize: GPU result differs from the CPU reference\n");
        return 1;
      }
      measure(size.name, *pipeline, inputs, out,
              double(first.numElements()) * 5, big ? (quick ? 20 : 50) : 200);
      if (big) {
        auto fast = compile(kNormalize, /*fastMath=*/true);
        measure(size.name, *fast, inputs, out, double(first.numElements()) * 5,
                quick ? 20 : 50, "pipe --fast-math");
      }
      for (auto &t : inputs)
        cu->cuMemFree(t.ptr);
      cu->cuMemFree(out.ptr);
    }
  }
  return 0;
}
