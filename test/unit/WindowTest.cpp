//===- WindowTest.cpp - The window ops' shared definitions ----------------===//
//
// core/PipeWindow.h on the host: the median's sorting network puts the
// middle in place for every odd window up to 7 x 7 (against
// std::nth_element, with ties and NaN), and the taps of an element read
// through the border rules as np.pad would.
//
//===----------------------------------------------------------------------===//

#include "core/PipeScalar.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"
#include "families/window/WindowParams.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

TEST(Window, MedianNetworkFindsTheMiddle) {
  std::mt19937 rng(7);
  short pairs[2 * PIPE_WINDOW_MAX_EXCHANGES];
  for (int n = 1; n <= PIPE_WINDOW_MAX_MEDIAN_TAPS; n += 2) {
    int count = pipe_window_median_network(n, pairs);
    ASSERT_LE(count, PIPE_WINDOW_MAX_EXCHANGES);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<float> v(static_cast<size_t>(n));
      std::vector<float> sorted;
      for (float &x : v)
        x = trial % 3 == 0 && rng() % 8 == 0 ? NAN : float(rng() % 5);
      sorted = v;
      // NaN last, as np.sort.
      std::sort(sorted.begin(), sorted.end(), [](float a, float b) {
        return pipe_window_before(a, b);
      });
      for (int c = 0; c < count; ++c)
        pipe_window_exchange(v[size_t(pairs[2 * c])],
                             v[size_t(pairs[2 * c + 1])]);
      float want = sorted[size_t(n / 2)], got = v[size_t(n / 2)];
      ASSERT_TRUE(got == want || (std::isnan(got) && std::isnan(want)))
          << n << " taps, trial " << trial;
    }
  }
}

TEST(Window, TapsReadThroughTheBorder) {
  // One row of 4: x = 10 11 12 13; a window of 5 at element 0.
  const pipe_u8 x[4] = {10, 11, 12, 13};
  pipe_window_geometry<long long> g = {4, 1, 1, 1, 5, 2, 1, 0};
  auto taps = [&](int border) {
    pipe_u8 t[5];
    pipe_window_gather<long long>(x, pipe_window_locate(0LL, g), g, border,
                                  pipe_u8(99), t);
    return std::vector<int>(t, t + 5);
  };
  EXPECT_EQ(taps(PIPE_REFLECT101), (std::vector<int>{12, 11, 10, 11, 12}));
  EXPECT_EQ(taps(PIPE_CLAMP), (std::vector<int>{10, 10, 10, 11, 12}));
  EXPECT_EQ(taps(PIPE_CONSTANT), (std::vector<int>{99, 99, 10, 11, 12}));
  EXPECT_EQ(taps(PIPE_WRAP), (std::vector<int>{12, 13, 10, 11, 12}));
}

TEST(Window, ErodeAndDilateRankZerosAsMinAndMax) {
  // One row; a window of 3 at element 1 sees all three, in either order:
  // erode gives -0 and dilate +0 wherever the zeros stand, as min and max.
  pipe_window_geometry<long long> g = {3, 1, 1, 1, 3, 1, 1, 0};
  auto extreme = [&](std::vector<float> row, bool greatest) {
    return pipe_window_extreme<long long>(row.data(),
                                          pipe_window_locate(1LL, g), g,
                                          PIPE_CLAMP, 0.0f, greatest);
  };
  for (auto row : {std::vector<float>{0.0f, -0.0f, 5.0f},
                   std::vector<float>{-0.0f, 0.0f, 5.0f},
                   std::vector<float>{5.0f, 0.0f, -0.0f}}) {
    float least = extreme(row, false);
    EXPECT_TRUE(least == 0 && std::signbit(least));
  }
  for (auto row : {std::vector<float>{-5.0f, -0.0f, 0.0f},
                   std::vector<float>{0.0f, -0.0f, -5.0f}}) {
    float greatest = extreme(row, true);
    EXPECT_TRUE(greatest == 0 && !std::signbit(greatest));
  }
  // Still NaN once a tap is NaN, and integers as before.
  EXPECT_TRUE(std::isnan(extreme({-0.0f, NAN, 0.0f}, false)));
  const pipe_i32 ints[3] = {4, -2, 7};
  EXPECT_EQ(pipe_window_extreme<long long>(ints, pipe_window_locate(1LL, g), g,
                                           PIPE_CLAMP, pipe_i32(0), false),
            -2);
}

} // namespace

// What the compiler half tells the launcher: the axes and the outputs a
// thread of the 32-bit entry computes (the launcher sizes its grid by
// them), checked when the plan is read.
TEST(Window, ParamsCarryTheAxesAndRows) {
  pipert::WindowParams params;
  params.axes = {1, 2};
  params.rows = 8;
  auto decoded = pipert::WindowParams::decode(params.encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->axes, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(decoded->rows, 8);
  params.rows = 0;
  auto none = pipert::WindowParams::decode(params.encode());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "a 'window' kernel's rows are 1 to 64");
  params.rows = 65;
  EXPECT_FALSE(pipert::WindowParams::decode(params.encode()).ok());
  // A plan written before the rows were carried is refused, not read as
  // one row a thread.
  auto old = pipert::WindowParams::decode(
      pipert::KernelParamWriter().add("axes", params.axes).str());
  EXPECT_FALSE(old.ok());
}
