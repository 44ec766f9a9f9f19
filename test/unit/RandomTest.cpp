//===- RandomTest.cpp - uniform, normal, coin_flip, randint ---------------===//
//
// The generator against Random123's known answers; the distributions
// against their definitions (moments, ranges, frequencies) on the
// reference; replays by seed and run number; and the GPU against the
// reference bit for bit, whatever the shape, the dtype or the launch.
//
//===----------------------------------------------------------------------===//

#include "GpuTestUtil.h"

#include "core/PipeScalar.h"
#include "core/PipeRandom.h"

#include <cmath>
#include <set>

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

namespace {

pipe_philox_block block(pipe_u32 a, pipe_u32 b, pipe_u32 c, pipe_u32 d) {
  pipe_philox_block x;
  x.v[0] = a;
  x.v[1] = b;
  x.v[2] = c;
  x.v[3] = d;
  return x;
}

/// Runs `source` on the reference with `state` and returns its results.
std::vector<HostTensor> draw(pipec::JitPipeline &pipeline,
                             const std::vector<HostTensor> &inputs,
                             pipert::RandomState state) {
  auto results = pipeline.runReference(inputs, state);
  EXPECT_TRUE(results.ok()) << results.status().message();
  return results.ok() ? *results : std::vector<HostTensor>();
}

std::vector<double> valuesOf(const HostTensor &t) {
  std::vector<double> values;
  for (int64_t i = 0; i < t.numElements(); ++i)
    values.push_back(valueAt(t, i));
  return values;
}

} // namespace

// Random123's kat_vectors for philox4x32 with 10 rounds.
TEST(Random, PhiloxMatchesKnownAnswers) {
  struct Case {
    pipe_philox_block counter;
    pipe_u32 k0, k1;
    pipe_philox_block expected;
  } cases[] = {
      {block(0, 0, 0, 0), 0, 0,
       block(0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)},
      {block(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff), 0xffffffff,
       0xffffffff, block(0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)},
      {block(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), 0xa4093822,
       0x299f31d0, block(0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)},
  };
  for (const Case &c : cases) {
    pipe_philox_block got = pipe_philox4x32_10(c.counter, c.k0, c.k1);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got.v[i], c.expected.v[i]) << "word " << i;
  }
}

// normal's own logarithm and cosine (exact on both sides) against libm.
TEST(Random, LogAndCosineAreAccurate) {
  for (int i = 1; i <= 100000; ++i) {
    double u = double(i) / 100000.0;
    double x = u * u * u; // down to 1e-15
    EXPECT_NEAR(pipe_random_log(x), std::log(x), 4e-16 * std::fabs(std::log(x)) + 1e-16)
        << "log " << x;
    EXPECT_NEAR(pipe_random_cos_turn(u - 1e-5), std::cos(2 * M_PI * (u - 1e-5)), 1e-15)
        << "cos " << u;
  }
  EXPECT_EQ(pipe_random_log(1.0), 0.0);
  EXPECT_NEAR(pipe_random_log(0x1p-53), -53 * std::log(2.0), 1e-13);
}

// random_resized_crop's exponential (exact alike on both sides) against
// libm, over the whole range it gives finite values in, and its ends.
TEST(Random, ExpIsAccurate) {
  for (int i = -70800; i <= 70977; ++i) {
    double x = double(i) / 100.0 + 0.003;
    EXPECT_NEAR(pipe_random_exp(x) / std::exp(x), 1.0, 4e-16) << "exp " << x;
  }
  EXPECT_NEAR(pipe_random_exp(-740.0) / std::exp(-740.0), 1.0, 1e-6);
  EXPECT_EQ(pipe_random_exp(0.0), 1.0);
  EXPECT_EQ(pipe_random_exp(1000.0), HUGE_VAL);
  EXPECT_EQ(pipe_random_exp(-1000.0), 0.0);
  EXPECT_TRUE(std::isnan(pipe_random_exp(std::nan(""))));
}

TEST(Random, DistributionsFollowTheirDefinitions) {
  auto pipeline = compileOrDie(R"(
pipeline p(x: u8[N]) -> (u: f32[N], z: f64[N], c: bool[N], k: i32[N], s: f32[N]) {
  u = uniform(range = [-2, 3], shape = [N])
  z = normal(mean = 1, stddev = 2, shape = [N], dtype = f64)
  c = coin_flip(p = 0.3, shape = [N])
  k = randint(-3, 4, shape = [N])
  s = uniform(range = [5, 5], shape = [N])
})");
  ASSERT_TRUE(pipeline);
  const int64_t n = 200000;
  auto out = draw(*pipeline, {HostTensor(DType::U8, {n})}, {42, 7});
  ASSERT_EQ(out.size(), 5u);
  auto moments = [](const std::vector<double> &v) {
    double mean = 0, var = 0;
    for (double x : v)
      mean += x;
    mean /= double(v.size());
    for (double x : v)
      var += (x - mean) * (x - mean);
    return std::pair{mean, var / double(v.size() - 1)};
  };
  std::vector<double> u = valuesOf(out[0]);
  for (double x : u)
    ASSERT_TRUE(x >= -2 && x < 3) << x;
  auto [um, uv] = moments(u);
  EXPECT_NEAR(um, 0.5, 4 * std::sqrt(25.0 / 12 / n));
  EXPECT_NEAR(uv, 25.0 / 12, 0.03);
  auto [zm, zv] = moments(valuesOf(out[1]));
  EXPECT_NEAR(zm, 1.0, 4 * 2 / std::sqrt(double(n)));
  EXPECT_NEAR(zv, 4.0, 0.06);
  // Within one standard deviation: 68.27%.
  int64_t inside = 0;
  for (double x : valuesOf(out[1]))
    inside += std::fabs(x - 1) < 2;
  EXPECT_NEAR(double(inside) / n, 0.682689, 0.005);
  auto [cm, cv] = moments(valuesOf(out[2]));
  EXPECT_NEAR(cm, 0.3, 4 * std::sqrt(0.21 / n));
  std::vector<int64_t> counts(7, 0);
  for (double x : valuesOf(out[3])) {
    ASSERT_TRUE(x >= -3 && x < 4) << x;
    ++counts[size_t(x + 3)];
  }
  for (int64_t count : counts)
    EXPECT_NEAR(double(count) / n, 1.0 / 7, 0.005);
  for (double x : valuesOf(out[4]))
    ASSERT_EQ(x, 5.0);
}

TEST(Random, RunsReplayFromTheirSeedAndNumber) {
  auto pipeline = compileOrDie(R"(
pipeline p(x: f32[N, H]) -> (a: f32[N, H], b: f32[N, H], c: f32[N, H], d: f32[N]) {
  a = uniform(shape = [N, H])
  b = uniform(shape = [N, H])
  c = uniform(shape = [N, H], seed = 9)
  d = uniform(shape = [N])
})");
  ASSERT_TRUE(pipeline);
  std::vector<HostTensor> in{HostTensor(DType::F32, {5, 7})};
  auto first = draw(*pipeline, in, {1, 0});
  auto again = draw(*pipeline, in, {1, 0});
  auto next = draw(*pipeline, in, {1, 1});
  auto other = draw(*pipeline, in, {2, 0});
  ASSERT_EQ(first.size(), 4u);
  EXPECT_TRUE(sameValues(first[0], again[0], 0));
  EXPECT_FALSE(sameValues(first[0], next[0], 0)) << "each run draws anew";
  EXPECT_FALSE(sameValues(first[0], other[0], 0)) << "another seed";
  EXPECT_FALSE(sameValues(first[0], first[1], 0)) << "each op draws its own";
  // An op's own seed replaces the run's, not the run number.
  EXPECT_TRUE(sameValues(first[2], other[2], 0));
  EXPECT_FALSE(sameValues(first[2], next[2], 0));
  // Element i is a function of i: the first 5 of a [5, 7] draw are not the
  // [5] draw's (another stream), but 35 distinct values come out.
  std::set<float> distinct;
  for (int64_t i = 0; i < 35; ++i)
    distinct.insert(first[0].as<float>()[i]);
  EXPECT_EQ(distinct.size(), 35u);
  // The JIT pipeline draws the next run's numbers, without advancing.
  pipeline->setRandomState({1, 1});
  auto jit = pipeline->runReference(in);
  ASSERT_TRUE(jit.ok());
  EXPECT_TRUE(sameValues((*jit)[0], next[0], 0));
  EXPECT_EQ(pipeline->randomState().run, 1u);
}

TEST(Random, DrawsBroadcastAndFeedParameters) {
  // One value per sample, broadcast over the image; per-sample flags and
  // anchors drawn on the device feed flip and crop.
  auto pipeline = compileOrDie(R"(
pipeline p(x: u8[N, H, W]) -> (y: f32[N, H, W], m: bool[N], f: u8[N, H, W], c: u8[N, 4, 4], a: i32[N, 2]) {
  g = uniform(range = [0.5, 1.5], shape = [N, 1, 1])
  y = f32(x) * g
  m = coin_flip(shape = [N])
  f = flip(x, axes = [2], when = m)
  a = stack([randint(0, H - 3, shape = [N]), randint(0, W - 3, shape = [N])], axis = 1)
  c = crop(x, shape = [4, 4], anchor = a)
})");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::U8, {9, 11, 13}, 5, 0, 255);
  auto out = draw(*pipeline, {x}, {3, 4});
  ASSERT_EQ(out.size(), 5u);
  const uint8_t *px = x.as<uint8_t>();
  for (int64_t n = 0; n < 9; ++n) {
    float g = -1;
    for (int64_t i = 0; i < 143; ++i) {
      if (px[n * 143 + i] == 0)
        continue;
      float ratio = out[0].as<float>()[n * 143 + i] / px[n * 143 + i];
      if (g < 0)
        g = ratio;
      EXPECT_NEAR(ratio, g, 1e-6) << "one factor per sample";
    }
    EXPECT_TRUE(g >= 0.5f && g < 1.5f) << g;
    bool flipped = out[1].as<pipe_bool>()[n].v != 0;
    for (int64_t h = 0; h < 11; ++h)
      for (int64_t w = 0; w < 13; ++w)
        EXPECT_EQ(out[2].as<uint8_t>()[(n * 11 + h) * 13 + w],
                  px[(n * 11 + h) * 13 + (flipped ? 12 - w : w)]);
    int32_t y0 = out[4].as<int32_t>()[2 * n], x0 = out[4].as<int32_t>()[2 * n + 1];
    EXPECT_TRUE(y0 >= 0 && y0 < 8 && x0 >= 0 && x0 < 10) << y0 << " " << x0;
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 4; ++w)
        EXPECT_EQ(out[3].as<uint8_t>()[(n * 4 + h) * 4 + w],
                  px[(n * 11 + y0 + h) * 13 + x0 + w]);
  }
}

// The GPU draws the reference's bits: every distribution and dtype, odd
// shapes (scalar groups, row and span variants), per-element parameters,
// and each run anew.
TEST(GpuRandom, MatchesTheReferenceBitForBit) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(R"(
pipeline p(x: f32[N, H, W], lo: f32[N, 1, 1], p: f32[W]) -> (
    u: f32[N, H, W], uh: f16[N, H, W], ub: bf16[N, 3], ud: f64[N, W],
    z: f32[N, H, W], zd: f64[N, H], c: bool[N, H, W], ci: i32[N, W],
    k: i32[N, H, W], ku: u8[N, 5], k64: i64[N], s: f32, y: f32[N, H, W]) {
  u  = uniform(range = [lo, 2], shape = [N, H, W])
  uh = uniform(range = [-1, 1], shape = [N, H, W], dtype = f16)
  ub = uniform(shape = [N, 3], dtype = bf16)
  ud = uniform(range = [0, 1e-3], shape = [N, W], dtype = f64)
  z  = normal(mean = x, stddev = 0.5, shape = [N, H, W])
  zd = normal(shape = [N, H], dtype = f64)
  c  = coin_flip(p = p, shape = [N, H, W])
  ci = coin_flip(p = 0.9, shape = [N, W], dtype = i32)
  k  = randint(-1000000, 1000000, shape = [N, H, W])
  ku = randint(10, 256, shape = [N, 5], dtype = u8)
  k64 = randint(-9000000000000000000, 9000000000000000000, shape = [N], dtype = i64)
  s  = uniform(seed = 12345)
  y  = x * uniform(range = [0.9, 1.1], shape = [N, 1, 1]) + normal(shape = [H, W])
})");
  ASSERT_TRUE(pipeline);
  for (auto [n, h, w] : {std::tuple{1, 1, 1}, {3, 7, 13}, {2, 33, 129},
                         {5, 64, 1031}}) {
    std::vector<HostTensor> in{
        randomTensor(DType::F32, {n, h, w}, 1, -5, 5),
        randomTensor(DType::F32, {n, 1, 1}, 2, -3, 1),
        // Probabilities in [0, 1]: one outside fails the run (tested in
        // resample_oracle.py).
        randomTensor(DType::F32, {w}, 3, 0, 1)};
    pipeline->setRandomState({uint64_t(n * 1000 + w), 17});
    for (int run = 0; run < 2; ++run)
      expectMatchesReference(*pipeline, in, 0,
                             "shape " + std::to_string(n) + "x" +
                                 std::to_string(h) + "x" + std::to_string(w) +
                                 ", run " + std::to_string(run));
    EXPECT_EQ(pipeline->randomState().run, 19u);
  }
}

// random_resized_crop on the GPU: the windows (exp, sqrt and rounding in
// f64) and the resize of each give the reference's bits, at odd sizes, for
// integer and float outputs, each run anew.
TEST(GpuRandom, ResizedCropMatchesTheReferenceBitForBit) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(R"(
pipeline p(x: u8[N, H, W, 3]) -> (a: u8[N, 17, 23, 3], b: f32[N, 224, 224, 3]) {
  a = random_resized_crop(x, size = [17, 23])
  b = random_resized_crop(x, size = [224, 224], scale = [0.3, 1], ratio = [0.5, 2], dtype = f32)
})");
  ASSERT_TRUE(pipeline);
  for (auto [n, h, w] : {std::tuple{1, 1, 1}, {3, 7, 13}, {2, 333, 129},
                         {5, 480, 641}}) {
    std::vector<HostTensor> in{randomTensor(DType::U8, {n, h, w, 3}, 4, 0, 255)};
    pipeline->setRandomState({uint64_t(n * 7 + h), 3});
    for (int run = 0; run < 2; ++run)
      expectMatchesReference(*pipeline, in, 0,
                             "shape " + std::to_string(n) + "x" +
                                 std::to_string(h) + "x" + std::to_string(w) +
                                 ", run " + std::to_string(run));
  }
}
