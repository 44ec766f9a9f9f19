//===- ScalarSemanticsTest.cpp - The per-element semantics ----------------===//
//
// PipeScalar.h is compiled into every kernel and into the reference; these
// are its documented rules, checked on the host.
//
//===----------------------------------------------------------------------===//

#include "core/PipeScalar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

TEST(ScalarSemantics, FloatToIntRoundsHalfToEven) {
  EXPECT_EQ((pipe_cast<pipe_u8, float>(2.5f)), 2);
  EXPECT_EQ((pipe_cast<pipe_u8, float>(3.5f)), 4);
  EXPECT_EQ((pipe_cast<pipe_u8, float>(2.4999f)), 2);
  EXPECT_EQ((pipe_cast<pipe_i32, float>(-2.5f)), -2);
  EXPECT_EQ((pipe_cast<pipe_i32, double>(-3.5)), -4);
  EXPECT_EQ((pipe_cast<pipe_i8, float>(-0.5f)), 0);
}

TEST(ScalarSemantics, FloatToIntSaturatesAndMapsNaNToZero) {
  EXPECT_EQ((pipe_cast<pipe_u8, float>(300.f)), 255);
  EXPECT_EQ((pipe_cast<pipe_u8, float>(255.5f)), 255);
  EXPECT_EQ((pipe_cast<pipe_u8, float>(-7.f)), 0);
  EXPECT_EQ((pipe_cast<pipe_u8, float>(std::nanf(""))), 0);
  EXPECT_EQ((pipe_cast<pipe_i32, float>(2147483648.f)), 2147483647);
  EXPECT_EQ((pipe_cast<pipe_i32, float>(-3e9f)), -2147483647 - 1);
  EXPECT_EQ((pipe_cast<pipe_i32, float>(INFINITY)), 2147483647);
  EXPECT_EQ((pipe_cast<pipe_u64, double>(1e30)),
            std::numeric_limits<pipe_u64>::max());
  EXPECT_EQ((pipe_cast<pipe_i64, float>(-1e30f)),
            std::numeric_limits<pipe_i64>::min());
  EXPECT_EQ((pipe_cast<pipe_i16, double>(32766.6)), 32767);
}

TEST(ScalarSemantics, IntToIntSaturates) {
  EXPECT_EQ((pipe_cast<pipe_u8, pipe_i32>(-1)), 0);
  EXPECT_EQ((pipe_cast<pipe_u8, pipe_i32>(256)), 255);
  EXPECT_EQ((pipe_cast<pipe_i8, pipe_i32>(-129)), -128);
  EXPECT_EQ((pipe_cast<pipe_i32, pipe_u32>(4294967295u)), 2147483647);
  EXPECT_EQ((pipe_cast<pipe_u64, pipe_i64>(-1)), 0u);
  EXPECT_EQ((pipe_cast<pipe_i64, pipe_u64>(pipe_u64(1) << 63)),
            std::numeric_limits<pipe_i64>::max());
  EXPECT_EQ((pipe_cast<pipe_u32, pipe_u8>(200)), 200u);
  EXPECT_EQ((pipe_cast<pipe_i16, pipe_i8>(-5)), -5);
}

TEST(ScalarSemantics, IntToFloatRoundsToNearest) {
  EXPECT_EQ((pipe_cast<float, pipe_i32>(16777217)), 16777216.f);
  EXPECT_EQ((pipe_cast<float, pipe_i32>(16777219)), 16777220.f);
  EXPECT_EQ((pipe_cast<double, pipe_u64>(~pipe_u64(0))), 18446744073709551616.0);
  EXPECT_EQ((pipe_cast<float, double>(0.1)), 0.1f);
}

TEST(ScalarSemantics, IntegerArithmeticWraps) {
  EXPECT_EQ(pipe_add<pipe_u8>(200, 100), 44);
  EXPECT_EQ(pipe_sub<pipe_u8>(3, 5), 254);
  EXPECT_EQ(pipe_add<pipe_i32>(2147483647, 1), -2147483647 - 1);
  EXPECT_EQ(pipe_mul<pipe_i16>(300, 300), pipe_i16(24464));
  EXPECT_EQ(pipe_mul<pipe_u16>(65535, 65535), 1);
  EXPECT_EQ(pipe_mul<pipe_i64>(pipe_i64(1) << 62, 4), 0);
  EXPECT_EQ(pipe_sub<pipe_i8>(-128, 1), 127);
}

TEST(ScalarSemantics, MinMaxPropagateNaNAndOrderZeros) {
  EXPECT_TRUE(std::isnan(pipe_min<float>(NAN, 1.f)));
  EXPECT_TRUE(std::isnan(pipe_max<float>(1.f, NAN)));
  EXPECT_TRUE(std::signbit(pipe_min<float>(0.f, -0.f)));
  EXPECT_TRUE(std::signbit(pipe_min<float>(-0.f, 0.f)));
  EXPECT_FALSE(std::signbit(pipe_max<float>(-0.f, 0.f)));
  EXPECT_FALSE(std::signbit(pipe_max<double>(0.0, -0.0)));
  EXPECT_EQ(pipe_min<float>(-INFINITY, 3.f), -INFINITY);
  EXPECT_EQ(pipe_max<pipe_i8>(-5, 3), 3);
  EXPECT_EQ(pipe_min<pipe_u64>(~0ull, 7), 7u);
}

TEST(ScalarSemantics, FloatArithmeticIsIEEE) {
  EXPECT_EQ(pipe_div<float>(1.f, 3.f), 1.f / 3.f);
  EXPECT_TRUE(std::isinf(pipe_div<float>(1.f, 0.f)));
  EXPECT_TRUE(std::isnan(pipe_div<double>(0.0, 0.0)));
  // No contraction into an FMA: (a * b) + c rounds twice.
  volatile float a = 1.0f + 0x1p-13f, b = 1.0f - 0x1p-13f, c = -1.0f;
  EXPECT_EQ(pipe_add<float>(pipe_mul<float>(a, b), c), 0.0f);
}

#include "core/PipeReduce.h"
#include "core/PipeStencil.h"

TEST(StencilSemantics, BordersReadPastTheEdges) {
  // reflect101 of n = 3 (abc), from -4: a b c b | a b c | b a b
  const long long reflected[] = {0, 1, 2, 1, 0, 1, 2, 1, 0, 1};
  for (long long i = -4; i <= 5; ++i)
    EXPECT_EQ(pipe_border_index(i, 3, PIPE_REFLECT101), reflected[i + 4])
        << "at " << i;
  EXPECT_EQ(pipe_border_index(-7, 1, PIPE_REFLECT101), 0);
  EXPECT_EQ(pipe_border_index(-2, 3, PIPE_CLAMP), 0);
  EXPECT_EQ(pipe_border_index(9, 3, PIPE_CLAMP), 2);
  EXPECT_EQ(pipe_border_index(-1, 3, PIPE_WRAP), 2);
  EXPECT_EQ(pipe_border_index(7, 3, PIPE_WRAP), 1);
  EXPECT_EQ(pipe_border_index(-1, 3, PIPE_CONSTANT), -1);
  EXPECT_EQ(pipe_border_index(2, 3, PIPE_CONSTANT), 2);
}

// The border rules by their definitions (mirror until inside, modulo,
// nearest edge), against the fast paths one period from the edge and the
// general ones past it, in 64 and 32 bits.
TEST(StencilSemantics, BordersMatchTheirDefinitionsAtAnyDistance) {
  auto model = [](long long i, long long n, int border) -> long long {
    switch (border) {
    case PIPE_CLAMP:
      return std::min(std::max(i, 0LL), n - 1);
    case PIPE_CONSTANT:
      return i >= 0 && i < n ? i : -1;
    case PIPE_WRAP:
      return ((i % n) + n) % n;
    default:
      if (n == 1)
        return 0;
      while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
    }
  };
  for (int border : {PIPE_REFLECT101, PIPE_CLAMP, PIPE_CONSTANT, PIPE_WRAP})
    for (long long n = 1; n <= 9; ++n)
      for (long long i = -5 * n - 3; i <= 6 * n + 3; ++i) {
        long long want = model(i, n, border);
        EXPECT_EQ(pipe_border_index(i, n, border), want)
            << "border " << border << ", n " << n << ", i " << i;
        EXPECT_EQ(pipe_border_index32(int(i), int(n), border), want)
            << "border " << border << ", n " << n << ", i " << i;
      }
}

TEST(StencilSemantics, DaliWindowAndSigmaRules) {
  pipe_blur_params p = pipe_blur_resolve(true, 5, false, 0);
  EXPECT_EQ(p.error, PIPE_BLUR_OK);
  EXPECT_EQ(p.radius, 2);
  EXPECT_DOUBLE_EQ(p.sigma, 1.1);
  p = pipe_blur_resolve(false, 0, true, 1.5); // window 2 * ceil(4.5) + 1
  EXPECT_EQ(p.radius, 5);
  // 3 sigma is rounded to f32 before the ceil, as DALI's SigmaToDiameter
  // (2 * ceilf(sigma * 3) + 1) computes it: 1/3 as an f32 is a little above
  // 1/3, and its triple in f64 a little above 1, but 1 in f32.
  float third = 1.0f / 3.0f;
  ASSERT_GT(3.0 * double(third), 1.0);
  EXPECT_EQ(pipe_blur_resolve(false, 0, true, third).radius, 1);
  EXPECT_EQ(pipe_blur_resolve(false, 0, true, std::nextafter(third, 1.0f))
                .radius,
            2);
  EXPECT_EQ(pipe_blur_resolve(true, 4, false, 0).error, PIPE_BLUR_WINDOW_EVEN);
  EXPECT_EQ(pipe_blur_resolve(true, -3, false, 0).error,
            PIPE_BLUR_WINDOW_NOT_POSITIVE);
  EXPECT_EQ(pipe_blur_resolve(false, 0, true, 0).error,
            PIPE_BLUR_SIGMA_NOT_POSITIVE);
  EXPECT_EQ(pipe_blur_resolve(false, 0, true, NAN).error,
            PIPE_BLUR_SIGMA_NOT_POSITIVE);
  // The weights sum to 1 and are symmetric.
  p = pipe_blur_resolve(true, 31, false, 0);
  p.norm = 1.0 / pipe_blur_sum(p, nullptr);
  double sum = 0;
  for (int j = 0; j <= 2 * p.radius; ++j) {
    sum += pipe_blur_weight(p, j);
    EXPECT_EQ(pipe_blur_weight(p, j), pipe_blur_weight(p, 2 * p.radius - j));
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(ReduceSemantics, AccumulatorsAndIdentities) {
  // Sums of small integers accumulate in 64 bits, unsigned for unsigned.
  static_assert(sizeof(pipe_reducer<PIPE_SUM, pipe_u8>::acc) == 8);
  EXPECT_EQ((pipe_reducer<PIPE_SUM, pipe_u8>::finish<pipe_u64>(
                pipe_reducer<PIPE_SUM, pipe_u8>::combine(200, 100), 2)),
            300u);
  // Integer products wrap modulo 2^64 instead of overflowing.
  using P = pipe_reducer<PIPE_PROD, pipe_i64>;
  EXPECT_EQ(P::combine(P::acc(1) << 62, 4), 0);
  EXPECT_EQ((pipe_reducer<PIPE_MIN, pipe_i16>::identity()), 32767);
  EXPECT_EQ((pipe_reducer<PIPE_MAX, float>::identity()), -INFINITY);
  EXPECT_EQ((pipe_reducer<PIPE_ALL, float>::value(NAN)), 1u);
  // f32 sums are per thread in f32 but combine in f64: a combination must
  // not round through the thread's type.
  using S = pipe_reducer<PIPE_MEAN, float>;
  static_assert(sizeof(S::local) == 4 && sizeof(S::acc) == 8);
  EXPECT_EQ(S::combine(1.0, 1e-10), 1.0 + 1e-10);
  // The mean of 64-bit integers sums exactly in 128 bits and rounds once.
  using M = pipe_reducer<PIPE_MEAN, pipe_i64>;
  static_assert(sizeof(M::acc) == 16);
  M::acc big = M::combine(M::value(INT64_MAX), M::value(INT64_MAX));
  EXPECT_EQ(M::finish<double>(M::combine(big, M::value(2)), 2), 9223372036854775808.0);
  EXPECT_EQ(M::finish<double>(M::combine(M::value(INT64_MIN), M::value(INT64_MIN)), 2),
            -9223372036854775808.0);
  // Ties to even past 2^64: 2^64 + 2^11 + 1 is nearer 2^64 + 2^12 than 2^64.
  using U = pipe_reducer<PIPE_MEAN, pipe_u64>;
  U::acc u = (U::acc(1) << 64) + (U::acc(1) << 11) + 1;
  EXPECT_EQ(U::finish<double>(u, 1), 18446744073709555712.0);
  EXPECT_EQ(U::finish<double>((U::acc(1) << 64) + (U::acc(1) << 11), 1),
            18446744073709551616.0);
}
