//===- TestUtil.h - Helpers shared by the unit tests ------------*- C++ -*-===//

#ifndef PIPE_TEST_UNIT_TESTUTIL_H
#define PIPE_TEST_UNIT_TESTUTIL_H

#include "compiler/JitPipeline.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace pipetest {

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
