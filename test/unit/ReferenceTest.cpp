//===- ReferenceTest.cpp - The CPU reference executor ---------------------===//
//
// The reference is the oracle for the GPU, so it is checked against
// independent C++ written from the language's documented semantics, on
// random inputs of odd sizes.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <algorithm>
#include <cmath>

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

TEST(Reference, ScaleMatchesHandWrittenLoop) {
  auto pipeline = compileOrDie(
      "pipeline scale(images: u8[N, H, W], gain: f32) -> (out: u8[N, H, W]) {\n"
      "  out = u8(f32(images) / 255 * gain * 255)\n}\n");
  ASSERT_TRUE(pipeline);
  for (auto shape : {std::vector<int64_t>{1, 1, 1}, {3, 5, 7}, {2, 31, 97}}) {
    HostTensor images = randomTensor(DType::U8, shape, 17);
    HostTensor gain(DType::F32, {});
    *gain.as<float>() = 1.3f;
    auto results = pipeline->runReference({images, gain});
    ASSERT_TRUE(results.ok()) << results.status().message();
    const HostTensor &out = (*results)[0];
    ASSERT_EQ(out.shape(), shape);
    for (int64_t i = 0; i < out.numElements(); ++i) {
      float v = float(images.as<uint8_t>()[i]) / 255.f * 1.3f * 255.f;
      float rounded = std::nearbyint(std::clamp(v, 0.f, 255.f));
      ASSERT_EQ(out.as<uint8_t>()[i], uint8_t(rounded)) << "at " << i;
    }
  }
}

TEST(Reference, IntegerArithmeticWrapsAndDivisionGivesFloat) {
  auto pipeline = compileOrDie(
      "pipeline p(a: i32[N], b: i32[N]) -> (s: i32[N], q: f32[N]) {\n"
      "  s = a * b + 7\n  q = a / b\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor a = randomTensor(DType::I32, {1001}, 1);
  HostTensor b = randomTensor(DType::I32, {1001}, 2);
  auto results = pipeline->runReference({a, b});
  ASSERT_TRUE(results.ok()) << results.status().message();
  for (int64_t i = 0; i < 1001; ++i) {
    uint32_t x = uint32_t(a.as<int32_t>()[i]), y = uint32_t(b.as<int32_t>()[i]);
    EXPECT_EQ((*results)[0].as<int32_t>()[i], int32_t(x * y + 7u));
    EXPECT_EQ((*results)[1].as<float>()[i],
              float(a.as<int32_t>()[i]) / float(b.as<int32_t>()[i]));
  }
}

TEST(Reference, ScalarBroadcastAndParameterResult) {
  auto pipeline = compileOrDie(
      "pipeline p(x: f64[N, 3], s: f64) -> (y: f64[N, 3], same: f64[N, 3], "
      "t: f64) {\n  y = x - s * 2\n  same = x\n  t = s + 1\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F64, {5, 3}, 3);
  HostTensor s(DType::F64, {});
  *s.as<double>() = 0.25;
  auto results = pipeline->runReference({x, s});
  ASSERT_TRUE(results.ok()) << results.status().message();
  for (int64_t i = 0; i < 15; ++i)
    EXPECT_EQ((*results)[0].as<double>()[i], x.as<double>()[i] - 0.5);
  EXPECT_TRUE(sameBits((*results)[1], x));
  EXPECT_EQ(*(*results)[2].as<double>(), 1.25);
}

TEST(Reference, ZeroSizedTensorsAreLegal) {
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, W]) -> (y: f32[N, W]) { y = x * 2 }\n");
  ASSERT_TRUE(pipeline);
  HostTensor x(DType::F32, {0, 9});
  auto results = pipeline->runReference({x});
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ((*results)[0].shape(), (std::vector<int64_t>{0, 9}));
}

TEST(Reference, BadInputsAreClearErrors) {
  auto pipeline = compileOrDie(
      "pipeline p(a: f32[N, W], b: f32[N, W, 3]) -> (y: f32[N, W]) { y = a }\n");
  ASSERT_TRUE(pipeline);
  HostTensor a(DType::F32, {2, 5});
  auto expectError = [&](std::vector<HostTensor> inputs,
                         const std::string &message) {
    auto results = pipeline->runReference(inputs);
    ASSERT_FALSE(results.ok());
    EXPECT_EQ(results.status().message(), message);
  };
  expectError({a}, "pipeline 'p' takes 2 inputs, got 1");
  expectError({a, HostTensor(DType::U8, {2, 5, 3})},
              "input 'b' has dtype u8 but the pipeline expects f32[N, W, 3]");
  expectError({a, HostTensor(DType::F32, {2, 5})},
              "input 'b' has rank 2 (f32[2, 5]) but the pipeline expects rank "
              "3 (f32[N, W, 3])");
  expectError({a, HostTensor(DType::F32, {2, 6, 3})},
              "dim W is 5 in input 'a' dim 1 but 6 in input 'b' dim 1");
  expectError({a, HostTensor(DType::F32, {2, 5, 4})},
              "input 'b' dim 2 is 4 but must be 3");
}
