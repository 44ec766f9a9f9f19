//===- ScalarSemanticsTest.cpp - The per-element semantics ----------------===//
//
// PipeScalar.h is compiled into every kernel and into the reference; these
// are its documented rules, checked on the host.
//
//===----------------------------------------------------------------------===//

#include "codegen/PipeScalar.h"

#include <gtest/gtest.h>

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
