//===- ShardedTest.cpp - Batches split across shards ----------------------===//
//
// The splitting and the combining of partial reductions on the CPU, and
// sharded runs on the GPU: two and three shards on one device give the
// unsharded run's results (with whole-batch branches, random draws, host
// and device tensors), a pipeline that mixes samples is refused with its
// reason.
//
//===----------------------------------------------------------------------===//

#include "GpuTestUtil.h"

#include "compiler/JitPipeline.h"
#include "runtime/Sharded.h"

#include <cmath>
#include <cstring>

using namespace pipert;
using pipetest::randomTensor;
using pipetest::sameValues;

namespace {

template <typename T> std::string bytesOf(std::vector<T> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}
template <typename T> std::vector<T> valuesOf(const std::string &bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

TEST(Shards, SplitAsEvenlyAsPossible) {
  auto ranges = splitBatch(10, {0, 1, 0});
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0].begin, 0);
  EXPECT_EQ(ranges[0].count, 4);
  EXPECT_EQ(ranges[1].begin, 4);
  EXPECT_EQ(ranges[1].count, 3);
  EXPECT_EQ(ranges[1].device, 1);
  EXPECT_EQ(ranges[2].begin, 7);
  EXPECT_EQ(ranges[2].count, 3);
  // More shards than samples: the last get none.
  ranges = splitBatch(2, {0, 0, 0});
  EXPECT_EQ(ranges[0].count, 1);
  EXPECT_EQ(ranges[1].count, 1);
  EXPECT_EQ(ranges[2].count, 0);
  EXPECT_EQ(ranges[2].begin, 2);
}

TEST(Shards, ShardOfARankCoversTheSourceOnce) {
  int64_t next = 0;
  for (int rank = 0; rank < 4; ++rank) {
    auto part = shardOf(1001, rank, 4);
    ASSERT_TRUE(part.ok());
    EXPECT_EQ(part->begin, next);
    next += part->count;
  }
  EXPECT_EQ(next, 1001);
  EXPECT_FALSE(shardOf(10, 4, 4).ok());
  EXPECT_FALSE(shardOf(10, 0, 0).ok());
  EXPECT_TRUE(shardOf(10, -1, 2).status().isBadArgument());
}

TEST(Shards, CombineEachReductionKind) {
  auto f32 = [](std::vector<float> v) { return bytesOf(v); };
  auto combine = [&](PlanCombineKind kind, DType dtype,
                     std::vector<std::string> parts,
                     std::vector<int64_t> weights) {
    auto result = combinePartials(kind, dtype, parts, weights);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? *result : std::string();
  };
  // Sums and products elementwise; means weighed by the samples.
  EXPECT_EQ(valuesOf<float>(combine(PlanCombineKind::Sum, DType::F32,
                                    {f32({1, 2}), f32({10, 20})}, {3, 1})),
            (std::vector<float>{11, 22}));
  EXPECT_EQ(valuesOf<float>(combine(PlanCombineKind::Prod, DType::F32,
                                    {f32({2}), f32({-3})}, {1, 1})),
            (std::vector<float>{-6}));
  EXPECT_EQ(valuesOf<float>(combine(PlanCombineKind::Mean, DType::F32,
                                    {f32({1}), f32({4})}, {3, 1})),
            (std::vector<float>{1.75f}));
  // A shard of no samples (its mean NaN) is left out.
  EXPECT_EQ(valuesOf<float>(combine(PlanCombineKind::Mean, DType::F32,
                                    {f32({2}), f32({NAN})}, {5, 0})),
            (std::vector<float>{2}));
  // NaN wins min and max, wherever it is.
  auto mx = valuesOf<float>(combine(PlanCombineKind::Max, DType::F32,
                                    {f32({1, NAN}), f32({NAN, 5})}, {1, 1}));
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_EQ(valuesOf<float>(combine(PlanCombineKind::Min, DType::F32,
                                    {f32({1, -INFINITY}), f32({-2, 0})},
                                    {1, 1})),
            (std::vector<float>{-2, -INFINITY}));
  // Integer sums wrap modulo 2^64, as the reductions do.
  auto i64 = valuesOf<int64_t>(
      combine(PlanCombineKind::Sum, DType::I64,
              {bytesOf<int64_t>({INT64_MAX}), bytesOf<int64_t>({2})}, {1, 1}));
  EXPECT_EQ(i64[0], INT64_MIN + 1);
  auto u8 = valuesOf<uint8_t>(combine(PlanCombineKind::Max, DType::U8,
                                      {bytesOf<uint8_t>({7, 200}),
                                       bytesOf<uint8_t>({9, 3})},
                                      {1, 1}));
  EXPECT_EQ(u8, (std::vector<uint8_t>{9, 200}));
  // any / all of bools.
  auto b = [](std::vector<uint8_t> v) { return bytesOf(v); };
  EXPECT_EQ(valuesOf<uint8_t>(combine(PlanCombineKind::Any, DType::Bool,
                                      {b({0, 0}), b({1, 0})}, {1, 1})),
            (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(valuesOf<uint8_t>(combine(PlanCombineKind::All, DType::Bool,
                                      {b({1, 1}), b({1, 0})}, {1, 1})),
            (std::vector<uint8_t>{1, 0}));
  // Parts that disagree in size are the runtime's bug, said so.
  auto bad = combinePartials(PlanCombineKind::Sum, DType::F32,
                             {f32({1}), f32({1, 2})}, {1, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("internal error"), std::string::npos);
}

/// Compiles `source`, or fails the test.
std::unique_ptr<pipec::JitPipeline> compile(const std::string &source) {
  auto pipeline = pipec::JitPipeline::compile(source);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
  return pipeline.ok() ? pipeline.take() : nullptr;
}

/// Runs `plan` unsharded and with `devices` as shards over host tensors
/// and expects the same results, bit for bit (`tolerance` for the whole
/// batch's float means, which the shards sum in another order).
void expectShardsMatch(const Plan &plan, const std::vector<HostTensor> &inputs,
                       const std::vector<int> &devices,
                       double tolerance = 0) {
  auto whole = Executable::load(plan);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  auto expected = (*whole)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto sharded = ShardedExecutable::load(plan, devices);
  ASSERT_TRUE(sharded.ok()) << sharded.status().message();
  std::vector<TensorRef> refs;
  for (const HostTensor &input : inputs)
    refs.push_back(input.ref());
  std::vector<HostTensor> got;
  std::vector<TensorRef> outputs;
  for (const HostTensor &e : *expected)
    got.emplace_back(e.dtype(), e.shape());
  for (HostTensor &g : got)
    outputs.push_back(g.ref());
  ASSERT_TRUE((*sharded)->run(refs, outputs).ok());
  for (size_t r = 0; r < got.size(); ++r)
    EXPECT_TRUE(sameValues(got[r], (*expected)[r], tolerance))
        << "result " << r << " with " << devices.size() << " shards";
}

const char *const kDynamicBlur = R"(
pipeline dynamic_blur(masks: u8[N, H, W]) -> (blurred: u8[N, H, W]) {
  ratio   = mean(f32(masks > 0), axes = [1, 2])
  window  = i32(16 + ratio * 300) | 1
  blurred = gaussian_blur(masks, window = window, axes = [1, 2])
}
)";

/// Masks of odd size, mostly zero (about 16% 255), so that dynamic_blur's
/// windows differ from sample to sample.
HostTensor sparseMasks(std::vector<int64_t> shape, unsigned seed) {
  HostTensor masks = randomTensor(DType::U8, std::move(shape), seed);
  for (int64_t i = 0; i < masks.numElements(); ++i)
    masks.as<uint8_t>()[i] = masks.as<uint8_t>()[i] < 40 ? 255 : 0;
  return masks;
}

TEST(GpuShards, TwoAndThreeShardsOnOneGpuMatchOneRun) {
  REQUIRE_GPU();
  auto pipeline = compile(kDynamicBlur);
  ASSERT_TRUE(pipeline);
  // Odd sizes; 7 samples split 4+3 and 3+2+2; masks mostly zero so that
  // the windows differ from sample to sample.
  HostTensor masks = sparseMasks({7, 37, 53}, 5);
  expectShardsMatch(pipeline->plan(), {masks}, {0, 0});
  expectShardsMatch(pipeline->plan(), {masks}, {0, 0, 0});
  // More shards than samples.
  HostTensor two = randomTensor(DType::U8, {2, 9, 11}, 6);
  expectShardsMatch(pipeline->plan(), {two}, {0, 0, 0});
}

// A branch over the whole batch: each shard must take the branch its
// combined mean says, not its own samples' mean, and compute with the
// whole batch's values (y subtracts them).
const char *const kWholeBatchBranch = R"(
pipeline whole(x: f32[N, W], bias: f32[W]) -> (y: f32[N, W], m: f32, top: f32) {
  m = mean(x)
  top = max(x)
  if m > 0.0 {
    y = x * 2 + bias - m
  } else {
    y = x - top
  }
}
)";

/// f32[5, 13] whose first three samples are large and positive and last
/// two negative: the whole batch's mean is positive, the last shard's own
/// (of two or three) is not.
HostTensor mixedSignBatch() {
  HostTensor x(DType::F32, {5, 13});
  for (int64_t n = 0; n < 5; ++n)
    for (int64_t w = 0; w < 13; ++w)
      x.as<float>()[n * 13 + w] = n < 3 ? 10.0f + float(w) : -1.0f - float(w);
  return x;
}

TEST(GpuShards, WholeBatchBranchesFollowTheCombinedValue) {
  REQUIRE_GPU();
  auto pipeline = compile(kWholeBatchBranch);
  ASSERT_TRUE(pipeline);
  ASSERT_EQ(pipeline->plan().combines.size(), 2u);
  HostTensor x = mixedSignBatch();
  HostTensor bias = randomTensor(DType::F32, {13}, 3, -1, 1);
  expectShardsMatch(pipeline->plan(), {x, bias}, {0, 0}, 1e-6);
  expectShardsMatch(pipeline->plan(), {x, bias}, {0, 0, 0}, 1e-6);
  // And the other way: negative overall, one shard positive.
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.as<float>()[i] = -x.as<float>()[i];
  expectShardsMatch(pipeline->plan(), {x, bias}, {0, 0, 0}, 1e-6);

  // Each shard combined both reductions, a few bytes each.
  auto sharded = ShardedExecutable::load(pipeline->plan(), {0, 0, 0});
  ASSERT_TRUE(sharded.ok());
  HostTensor y(DType::F32, {5, 13}), m(DType::F32, {}), top(DType::F32, {});
  ASSERT_TRUE((*sharded)->run({x.ref(), bias.ref()}, {y.ref(), m.ref(), top.ref()}).ok());
  ShardedRunStats stats = (*sharded)->lastRunStats();
  ASSERT_EQ(stats.shardStats.size(), 3u);
  for (const RunStats &shard : stats.shardStats)
    EXPECT_EQ(shard.shardCombines, 2);
  EXPECT_EQ(stats.combineBytes, 3u * 2 * sizeof(float));
}

TEST(GpuShards, RandomDrawsFollowTheSampleNotTheShard) {
  REQUIRE_GPU();
  auto pipeline = compile(R"(
pipeline augment(x: f32[N, W]) -> (y: f32[N, W]) {
  gain = uniform(range = [0.5, 1.5], shape = [N, 1])
  noise = normal(shape = [N, W])
  y = x * gain + noise + f32(iota([N, W], axis = 0))
}
)");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {9, 17}, 4, -1, 1);
  expectShardsMatch(pipeline->plan(), {x}, {0, 0});
  expectShardsMatch(pipeline->plan(), {x}, {0, 0, 0});
}

TEST(GpuShards, PerShardResultsStayOnTheirDevice) {
  REQUIRE_GPU();
  auto pipeline = compile(kDynamicBlur);
  ASSERT_TRUE(pipeline);
  HostTensor masks = randomTensor(DType::U8, {5, 19, 23}, 8);
  auto whole = Executable::load(pipeline->plan());
  ASSERT_TRUE(whole.ok());
  auto expected = (*whole)->run({masks});
  ASSERT_TRUE(expected.ok());
  auto sharded = ShardedExecutable::load(pipeline->plan(), {0, 0});
  ASSERT_TRUE(sharded.ok());
  // Device inputs, each shard's results in its own device buffer.
  pipetest::DeviceBuffer in(masks.numBytes());
  in.upload(masks.data());
  TensorRef input{in.get(), DType::U8, {5, 19, 23}, Memory::Device};
  auto shapes = (*sharded)->shardResultShapes({input});
  ASSERT_TRUE(shapes.ok());
  ASSERT_EQ((*shapes)[0][0], (std::vector<int64_t>{3, 19, 23}));
  ASSERT_EQ((*shapes)[1][0], (std::vector<int64_t>{2, 19, 23}));
  pipetest::DeviceBuffer out0(3 * 19 * 23), out1(2 * 19 * 23);
  std::vector<std::vector<TensorRef>> outputs = {
      {{out0.get(), DType::U8, {3, 19, 23}, Memory::Device}},
      {{out1.get(), DType::U8, {2, 19, 23}, Memory::Device}}};
  Status status = (*sharded)->runShards({input}, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  HostTensor got(DType::U8, {5, 19, 23});
  out0.download(got.data());
  out1.download(static_cast<char *>(got.data()) + 3 * 19 * 23);
  EXPECT_TRUE(sameValues(got, (*expected)[0], 0));
  // A shard's output of the wrong shape is named before anything runs.
  outputs[1][0].shape[0] = 3;
  Status bad = (*sharded)->runShards({input}, outputs);
  EXPECT_TRUE(bad.isBadArgument()) << bad.message();
  EXPECT_NE(bad.message().find("shard 1"), std::string::npos) << bad.message();
}

/// Skips the test unless the driver sees two GPUs or more.
#define REQUIRE_TWO_GPUS()                                                     \
  REQUIRE_GPU();                                                               \
  if (auto count = getCudaDeviceCount(); !count.ok() || *count < 2)            \
  GTEST_SKIP() << "needs two GPUs; this machine has "                          \
               << (count.ok() ? std::to_string(*count) : std::string("none"))

TEST(GpuShards, TwoGpusMatchOneRun) {
  REQUIRE_TWO_GPUS();
  auto blur = compile(kDynamicBlur);
  ASSERT_TRUE(blur);
  HostTensor masks = sparseMasks({7, 37, 53}, 11);
  expectShardsMatch(blur->plan(), {masks}, {0, 1});
  expectShardsMatch(blur->plan(), {masks}, {1, 0, 1});
  // Whole-batch values combined across the GPUs, both branch directions.
  auto whole = compile(kWholeBatchBranch);
  ASSERT_TRUE(whole);
  HostTensor x = mixedSignBatch();
  HostTensor bias = randomTensor(DType::F32, {13}, 3, -1, 1);
  expectShardsMatch(whole->plan(), {x, bias}, {0, 1}, 1e-6);
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.as<float>()[i] = -x.as<float>()[i];
  expectShardsMatch(whole->plan(), {x, bias}, {0, 1}, 1e-6);
  // The cross-GPU bytes of the branch: a float each way per reduction.
  auto sharded = ShardedExecutable::load(whole->plan(), {0, 1});
  ASSERT_TRUE(sharded.ok()) << sharded.status().message();
  HostTensor y(DType::F32, {5, 13}), m(DType::F32, {}), top(DType::F32, {});
  ASSERT_TRUE((*sharded)->run({x.ref(), bias.ref()},
                              {y.ref(), m.ref(), top.ref()}).ok());
  EXPECT_EQ((*sharded)->lastRunStats().combineBytes, 2u * 2 * sizeof(float));
}

TEST(GpuShards, TwoGpusScatterDeviceInputsAndGatherOntoOne) {
  REQUIRE_TWO_GPUS();
  auto pipeline = compile(R"(
pipeline augment(x: f32[N, W]) -> (y: f32[N, W]) {
  gain = uniform(range = [0.5, 1.5], shape = [N, 1])
  y = x * gain + f32(iota([N, W], axis = 0))
}
)");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {9, 301}, 12, -1, 1);
  auto whole = Executable::load(pipeline->plan());
  ASSERT_TRUE(whole.ok());
  auto expected = (*whole)->run({x});
  ASSERT_TRUE(expected.ok());
  // Input and output on GPU 0: shard 1 reads its samples from GPU 0 and
  // its results come back to GPU 0.
  ASSERT_TRUE(getCudaDevice(0).ok());
  pipetest::DeviceBuffer in(x.numBytes()), out(x.numBytes());
  in.upload(x.data());
  {
    auto sharded = ShardedExecutable::load(pipeline->plan(), {0, 1});
    ASSERT_TRUE(sharded.ok()) << sharded.status().message();
    TensorRef input{in.get(), DType::F32, {9, 301}, Memory::Device};
    TensorRef output{out.get(), DType::F32, {9, 301}, Memory::Device};
    Status status = (*sharded)->run({input}, {output});
    ASSERT_TRUE(status.ok()) << status.message();
  }
  // (The buffers are GPU 0's: its context current to read and free them.)
  ASSERT_TRUE(getCudaDevice(0).ok());
  HostTensor got(DType::F32, {9, 301});
  out.download(got.data());
  EXPECT_TRUE(sameValues(got, (*expected)[0], 0));
}

// Destroying an executable (or a sharded one) switches to its GPU's
// context to free what it holds, then gives the caller's back: else the
// caller's next allocation lands on that GPU.
TEST(GpuShards, DestroyingLeavesTheCallersContextCurrent) {
  REQUIRE_GPU();
  auto pipeline = compile(kDynamicBlur);
  ASSERT_TRUE(pipeline);
  const CudaDriver &cu = **getCudaDriver();
  auto current = [&] {
    CUcontext context = nullptr;
    EXPECT_EQ(cu.cuCtxGetCurrent(&context), CUDA_SUCCESS);
    return context;
  };
  {
    auto exe = Executable::load(pipeline->plan(), 0);
    ASSERT_TRUE(exe.ok());
    ASSERT_EQ(cu.cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  }
  EXPECT_EQ(current(), nullptr);
  {
    auto sharded = ShardedExecutable::load(pipeline->plan(), {0, 0});
    ASSERT_TRUE(sharded.ok());
    ASSERT_EQ(cu.cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  }
  EXPECT_EQ(current(), nullptr);
  if (auto count = getCudaDeviceCount(); count.ok() && *count > 1) {
    CUcontext first = (*getCudaDevice(0))->context;
    {
      auto exe = Executable::load(pipeline->plan(), 1);
      ASSERT_TRUE(exe.ok());
      ASSERT_TRUE(getCudaDevice(0).ok());
    }
    EXPECT_EQ(current(), first);
  }
  ASSERT_TRUE(getCudaDevice(0).ok());
}

TEST(GpuShards, PipelinesThatMixSamplesAreRefusedWithTheReason) {
  REQUIRE_GPU();
  auto pipeline = compile(R"(
pipeline mirror(x: u8[N, W]) -> (y: u8[N, W]) {
  y = flip(x, axes = [0])
}
)");
  ASSERT_TRUE(pipeline);
  auto sharded = ShardedExecutable::load(pipeline->plan(), {0, 0});
  ASSERT_FALSE(sharded.ok());
  EXPECT_TRUE(sharded.status().isBadArgument());
  EXPECT_NE(sharded.status().message().find(
                "cannot be split along its batch: 'flip' works across the samples"),
            std::string::npos)
      << sharded.status().message();
  // A device that does not exist is named.
  auto dyn = compile(kDynamicBlur);
  ASSERT_TRUE(dyn);
  auto missing = ShardedExecutable::load(dyn->plan(), {0, 999});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no CUDA device 999"),
            std::string::npos)
      << missing.status().message();
}

} // namespace
