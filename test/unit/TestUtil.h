//===- TestUtil.h - Helpers shared by the unit tests ------------*- C++ -*-===//

#ifndef PIPE_TEST_UNIT_TESTUTIL_H
#define PIPE_TEST_UNIT_TESTUTIL_H

#include "compiler/JitPipeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace pipetest {

/// Whether AddressSanitizer is in the build: its allocator aborts on a
/// request past its limit instead of failing it, so the tests of host
/// memory that runs out skip under it.
#if defined(__SANITIZE_ADDRESS__)
#define PIPE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PIPE_TEST_ASAN 1
#endif
#endif
#ifndef PIPE_TEST_ASAN
#define PIPE_TEST_ASAN 0
#endif

#define SKIP_UNDER_ASAN()                                                      \
  if (PIPE_TEST_ASAN)                                                          \
  GTEST_SKIP() << "AddressSanitizer aborts on allocations past its limit"

/// Fills `tensor` with random values: integers over their whole range,
/// floats in [lo, hi).
inline void fillRandom(pipert::HostTensor &tensor, unsigned seed,
                       double lo = -300, double hi = 300) {
  std::mt19937_64 rng(seed);
  pipert::visitDType(tensor.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *data = tensor.as<T>();
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      if constexpr (std::is_floating_point_v<T>)
        data[i] = T(std::uniform_real_distribution<double>(lo, hi)(rng));
      else
        data[i] = T(rng());
    }
  });
}

inline pipert::HostTensor randomTensor(pipert::DType dtype,
                                       std::vector<int64_t> shape,
                                       unsigned seed, double lo = -300,
                                       double hi = 300) {
  pipert::HostTensor tensor(dtype, std::move(shape));
  fillRandom(tensor, seed, lo, hi);
  return tensor;
}

/// The value of element `i` as a double (f16 and bf16 widened; bool 0/1).
inline double valueAt(const pipert::HostTensor &t, int64_t i) {
  switch (t.dtype()) {
  case pipert::DType::F16:
  case pipert::DType::BF16: {
    uint16_t bits = t.as<uint16_t>()[i];
    bool f16 = t.dtype() == pipert::DType::F16;
    // Widen by the definitions: f16 (5, 10) and bf16 (8, 7) bit layouts.
    int expBits = f16 ? 5 : 8, mantBits = f16 ? 10 : 7;
    int bias = (1 << (expBits - 1)) - 1;
    int e = (bits >> mantBits) & ((1 << expBits) - 1);
    double m = bits & ((1 << mantBits) - 1);
    double sign = (bits >> 15) ? -1 : 1;
    if (e == (1 << expBits) - 1)
      return m ? NAN : sign * INFINITY;
    if (e == 0)
      return sign * std::ldexp(m, 1 - bias - mantBits);
    return sign * std::ldexp(m + (1 << mantBits), e - bias - mantBits);
  }
  case pipert::DType::Bool:
    return t.as<uint8_t>()[i] != 0;
  default:
    return pipert::visitDType(t.dtype(), [&](auto tag) {
      return double(t.as<decltype(tag)>()[i]);
    });
  }
}

/// Equal values: NaN equals NaN (host and device NaNs differ in their
/// sign and payload bits), and floats within `relative` of each other.
inline ::testing::AssertionResult sameValues(const pipert::HostTensor &a,
                                             const pipert::HostTensor &b,
                                             double relative = 0) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << a.describe() << " vs " << b.describe();
  for (int64_t i = 0; i < a.numElements(); ++i) {
    double x = valueAt(a, i), y = valueAt(b, i);
    if (std::isnan(x) && std::isnan(y))
      continue;
    bool integral = pipert::dtypeSize(a.dtype()) == 8 &&
                    a.dtype() != pipert::DType::F64;
    if (integral) { // 64-bit integers do not fit a double: compare bits
      if (a.as<uint64_t>()[i] != b.as<uint64_t>()[i])
        return ::testing::AssertionFailure()
               << "element " << i << " of " << a.describe() << " differs";
      continue;
    }
    if (x == y || std::fabs(x - y) <= relative * std::fabs(y))
      continue;
    return ::testing::AssertionFailure()
           << "element " << i << " of " << a.describe() << ": " << x
           << " vs " << y;
  }
  return ::testing::AssertionSuccess();
}

/// Bitwise equality (so NaNs compare equal to NaNs of the same bits).
inline ::testing::AssertionResult sameBits(const pipert::HostTensor &a,
                                           const pipert::HostTensor &b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << a.describe() << " vs " << b.describe();
  size_t size = pipert::dtypeSize(a.dtype());
  const auto *pa = static_cast<const unsigned char *>(a.data());
  const auto *pb = static_cast<const unsigned char *>(b.data());
  for (int64_t i = 0; i < a.numElements(); ++i)
    if (std::memcmp(pa + i * size, pb + i * size, size) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << " of " << a.describe() << " differs";
  return ::testing::AssertionSuccess();
}

inline std::unique_ptr<pipec::JitPipeline> compileOrDie(const std::string &source) {
  auto compiled = pipec::JitPipeline::compile(source, "test.pipe");
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  return compiled.ok() ? compiled.take() : nullptr;
}

} // namespace pipetest

#endif // PIPE_TEST_UNIT_TESTUTIL_H
