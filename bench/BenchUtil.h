//===- BenchUtil.h - What Pipe's benchmark programs share -------*- C++ -*-===//
//
// Device tensors, timing as the peers are timed (triton's do_bench: a
// flushed L2, the median of CUDA-event-timed calls), wall-clock timing, and
// one JSON line per measurement for bench/report.py.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_BENCH_BENCHUTIL_H
#define PIPE_BENCH_BENCHUTIL_H

#include "compiler/JitPipeline.h"
#include "runtime/CudaDriver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace pipebench {

using pipert::DType;
using pipert::HostTensor;

inline const pipert::CudaDriver *cu = nullptr;

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult r = (call);                                                       \
    if (r != CUDA_SUCCESS) {                                                   \
      fprintf(stderr, "%s\n", pipert::checkCuda(r, #call).message().c_str()); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct DeviceTensor {
  CUdeviceptr ptr = 0;
  DType dtype;
  std::vector<int64_t> shape;
  size_t bytes() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return size_t(n) * pipert::dtypeSize(dtype);
  }
  pipert::TensorRef ref() const {
    return {reinterpret_cast<void *>(ptr), dtype, shape, pipert::Memory::Device};
  }
};

/// Whether case `name` runs: PIPE_BENCH_CASES, when set, lists the cases
/// to run (comma-separated), for sweeps that time a few.
inline bool benchWanted(const std::string &name) {
  const char *cases = std::getenv("PIPE_BENCH_CASES");
  if (!cases || !*cases)
    return true;
  std::string list = std::string(",") + cases + ",";
  return list.find("," + name + ",") != std::string::npos;
}

inline DeviceTensor upload(const HostTensor &t) {
  DeviceTensor d{0, t.dtype(), t.shape()};
  CHECK_CU(cu->cuMemAlloc(&d.ptr, std::max<size_t>(d.bytes(), 1)));
  CHECK_CU(cu->cuMemcpyHtoD(d.ptr, t.data(), d.bytes()));
  return d;
}

inline DeviceTensor allocate(DType dtype, std::vector<int64_t> shape) {
  DeviceTensor d{0, dtype, std::move(shape)};
  CHECK_CU(cu->cuMemAlloc(&d.ptr, std::max<size_t>(d.bytes(), 1)));
  return d;
}

inline HostTensor download(const DeviceTensor &d) {
  HostTensor t(d.dtype, d.shape);
  CHECK_CU(cu->cuMemcpyDtoH(t.data(), d.ptr, d.bytes()));
  return t;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// 256 MiB zeroed before each timed call, as triton.testing.do_bench (which
/// times the peers) does: the call then starts with a cold L2, and the host
/// work of queueing it overlaps the zeroing instead of showing as GPU time.
inline CUdeviceptr flushBuffer() {
  static CUdeviceptr buffer = 0;
  if (!buffer)
    CHECK_CU(cu->cuMemAlloc(&buffer, size_t(256) << 20));
  return buffer;
}

/// Median GPU milliseconds of `fn` (which queues its work without waiting)
/// over `reps` event-timed calls, timed as do_bench times the peers.
inline double gpuMs(const std::function<void(int)> &fn, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i)
    fn(i);
  CUevent start, stop;
  CHECK_CU(cu->cuEventCreate(&start, 0));
  CHECK_CU(cu->cuEventCreate(&stop, 0));
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    CHECK_CU(cu->cuMemsetD8Async(flushBuffer(), 0, size_t(256) << 20, nullptr));
    CHECK_CU(cu->cuEventRecord(start, nullptr));
    fn(i);
    CHECK_CU(cu->cuEventRecord(stop, nullptr));
    CHECK_CU(cu->cuEventSynchronize(stop));
    float ms = 0;
    CHECK_CU(cu->cuEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  cu->cuEventDestroy(start);
  cu->cuEventDestroy(stop);
  return median(times);
}

/// Median wall-clock microseconds of `fn` (which waits for the GPU).
inline double wallUs(const std::function<void(int)> &fn, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i)
    fn(i);
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn(i);
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return median(times);
}

inline void record(const char *workload, const char *impl, double ms, double bytes,
            const std::string &extra = "") {
  printf("{\"case\": \"%s\", \"impl\": \"%s\", \"ms\": %.4f", workload, impl, ms);
  if (bytes > 0)
    printf(", \"GBps\": %.1f", bytes / ms / 1e6);
  if (!extra.empty())
    printf(", %s", extra.c_str());
  printf("}\n");
  fflush(stdout);
}

inline std::unique_ptr<pipec::JitPipeline> compile(const char *source,
                                            bool fastMath = false) {
  auto compiled = pipec::JitPipeline::compile(source, "bench.pipe", "", fastMath);
  if (!compiled) {
    fprintf(stderr, "%s\n", compiled.status().message().c_str());
    exit(1);
  }
  return compiled.take();
}

/// Checks `got` against `want` (exactly, or within 1 ulp-ish for floats).
inline void check(const char *what, const HostTensor &got, const HostTensor &want) {
  if (got.numBytes() != want.numBytes() ||
      std::memcmp(got.data(), want.data(), got.numBytes()) != 0) {
    fprintf(stderr, "%s: GPU result differs from the CPU reference\n", what);
    exit(1);
  }
}

} // namespace pipebench

#endif // PIPE_BENCH_BENCHUTIL_H
