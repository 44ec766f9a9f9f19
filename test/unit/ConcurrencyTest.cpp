//===- ConcurrencyTest.cpp - One compiled pipeline, several threads -------===//
//
// Issue 15, item 7: a JitPipeline (and the Executable under it) run from 8
// threads at once, each with its own stream and tensors, gives every thread
// its own results, on the GPU and on the CPU reference (docs/runtime.md,
// "Threads"). The pipeline has what a run keeps state for: a blur with a
// per-sample window checked on the GPU, a branch the host decides from a
// condition computed on the GPU (its side not taken holds a reduction).
//
//===----------------------------------------------------------------------===//

#include "GpuTestUtil.h"

#include "runtime/CudaDriver.h"

#include <atomic>
#include <thread>

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

namespace {
constexpr int kThreads = 8;
constexpr int kRunsPerThread = 6;

const char *kSource =
    "pipeline p(x: u8[N, H, W], w: i32[N]) -> (y: f32[N, H, W], m: f32) {\n"
    "  b = gaussian_blur(x, window = w, axes = [1, 2])\n"
    "  m = mean(f32(b))\n"
    "  y = f32(b)\n"
    "  if m > 40 {\n"
    "    y = f32(x) - mean(f32(x), axes = [1, 2], keepdims = true)\n"
    "  }\n"
    "}\n";

/// Thread t's inputs: images of their own (so that half the threads take
/// each side of the branch) and windows of their own; thread 5's has an
/// even window, which the GPU reports.
std::vector<HostTensor> inputsOf(int t) {
  HostTensor x = randomTensor(DType::U8, {3, 37, 41}, 100 + t);
  if (t % 2)
    for (int64_t i = 0; i < x.numElements(); ++i)
      x.as<uint8_t>()[i] = uint8_t(x.as<uint8_t>()[i] / 4);
  HostTensor w(DType::I32, {3});
  for (int s = 0; s < 3; ++s)
    w.as<int32_t>()[s] = 3 + 2 * ((t + s) % 4);
  if (t == 5)
    w.as<int32_t>()[1] = 4;
  return {x, w};
}
/// Each thread's inputs, and what one run of the reference gives for them
/// (computed here, on one thread).
void referenceRuns(pipec::JitPipeline &pipeline,
                   std::vector<std::vector<HostTensor>> &inputs,
                   std::vector<pipert::Result<std::vector<HostTensor>>> &expected) {
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(inputsOf(t));
    expected.push_back(pipeline.runReference(inputs.back()));
  }
}
} // namespace

TEST(Concurrency, ReferenceRunsFromEightThreads) {
  auto pipeline = compileOrDie(kSource);
  ASSERT_TRUE(pipeline);
  std::vector<std::vector<HostTensor>> inputs;
  std::vector<pipert::Result<std::vector<HostTensor>>> expected;
  referenceRuns(*pipeline, inputs, expected);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRunsPerThread; ++r) {
        auto got = pipeline->runReference(inputs[t]);
        bool same = got.ok() == expected[t].ok();
        if (same && got.ok())
          for (size_t i = 0; i < got->size(); ++i)
            same &= sameBits((*got)[i], (*expected[t])[i]);
        else if (same)
          same = got.status().message() == expected[t].status().message();
        wrong += !same;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  // Thread 5's even window is an error; the others ran.
  EXPECT_FALSE(expected[5].ok());
  EXPECT_TRUE(expected[4].ok());
}

TEST(Concurrency, GpuRunsFromEightThreadsOnTheirOwnStreams) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(kSource);
  ASSERT_TRUE(pipeline);
  std::vector<std::vector<HostTensor>> inputs;
  std::vector<pipert::Result<std::vector<HostTensor>>> expected;
  referenceRuns(*pipeline, inputs, expected);
  std::atomic<int> wrong{0}, failures{0};
  std::vector<std::string> messages(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      if (!pipert::checkGpuAvailable().ok()) { // makes the context current
        ++failures;
        return;
      }
      const pipert::CudaDriver &cu = **pipert::getCudaDriver();
      CUstream stream = nullptr;
      if (cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
        ++failures;
        return;
      }
      const std::vector<HostTensor> &in = inputs[t];
      DeviceBuffer x(in[0].numBytes()), w(in[1].numBytes());
      x.upload(in[0].data());
      w.upload(in[1].data());
      DeviceBuffer y(in[0].numElements() * 4), m(4);
      for (int r = 0; r < kRunsPerThread; ++r) {
        // Host outputs on even runs, device outputs on odd ones.
        HostTensor hostY(DType::F32, in[0].shape()), hostM(DType::F32, {});
        bool onDevice = r % 2;
        pipert::Status status = pipeline->run(
            {pipert::TensorRef{x.get(), DType::U8, in[0].shape(),
                               pipert::Memory::Device},
             pipert::TensorRef{w.get(), DType::I32, {3}, pipert::Memory::Device}},
            {onDevice ? pipert::TensorRef{y.get(), DType::F32, in[0].shape(),
                                          pipert::Memory::Device}
                      : hostY.ref(),
             onDevice ? pipert::TensorRef{m.get(), DType::F32, {},
                                          pipert::Memory::Device}
                      : hostM.ref()},
            stream);
        if (onDevice && status.ok()) {
          y.download(hostY.data());
          m.download(hostM.data());
        }
        bool same = status.ok() == expected[t].ok();
        if (same && status.ok())
          same = sameValues(hostY, (*expected[t])[0], 1e-5) &&
                 sameValues(hostM, (*expected[t])[1], 1e-5);
        else if (same) // the GPU words a bad window its own way
          same = status.message().find("window") != std::string::npos;
        if (!same)
          messages[t] = status.ok() ? "results differ" : status.message();
        wrong += !same;
      }
      cu.cuStreamDestroy(stream);
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(wrong, 0);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(messages[t], "") << "thread " << t << ": expected "
                               << (expected[t].ok() ? "results"
                                                    : expected[t].status().message());
}
