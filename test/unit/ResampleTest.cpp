//===- ResampleTest.cpp - core/PipeResample.h's host-side decisions -------===//
//
// What the resample launcher decides on the host: whether every tile of a
// separable resize takes the tiled path, so that the kernel's entry
// without the pixel path may run (pipe_resize_tiles_fit), and whether the
// strip entry may (pipe_resize_strips_fit: its bound on the taps and the
// columns a warp reads, checked here against the taps themselves). The
// device's own tests (resample_oracle.py, GPU against the reference bit
// for bit) run the tiles on shapes on either side of their bounds, and the
// strips on shapes that fit them (its STRIPS block).
//
//===----------------------------------------------------------------------===//

#include "core/PipeScalar.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"
#include "core/PipeResizeTiles.h"
#include "core/PipeResizeStrips.h"

#include <algorithm>
#include <array>
#include <random>

#include <gtest/gtest.h>

namespace {

TEST(Resample, TilesFitWhileTheFilterReachesAtMostTheTileSupport) {
  const int linear = PIPE_INTERP_LINEAR, cubic = PIPE_INTERP_CUBIC,
            lanczos = PIPE_INTERP_LANCZOS;
  struct Case {
    long long h, w, channels, oh, ow;
    int interp;
    bool antialias;
    int valueBytes;
    bool fits;
  };
  const long long huge = (1ll << 24) + 2;
  const Case cases[] = {
      // Downscales by 2 and upscales: every filter fits.
      {1024, 1024, 3, 512, 512, linear, true, 1, true},
      {1024, 1024, 3, 512, 512, cubic, true, 1, true},
      {1024, 1024, 3, 512, 512, lanczos, true, 1, true},
      {300, 400, 3, 900, 1000, linear, true, 1, true},
      {300, 400, 3, 900, 1000, cubic, true, 1, true},
      {300, 400, 3, 900, 1000, lanczos, true, 1, true},
      // The support is the radius times the scale when antialiasing:
      // linear to 6.5, cubic to 3.25, lanczos to 2.17.
      {1200, 1200, 3, 200, 200, linear, true, 1, true},
      {1400, 1400, 3, 200, 200, linear, true, 1, false},
      {600, 600, 3, 200, 200, cubic, true, 1, true},
      {700, 700, 3, 200, 200, cubic, true, 1, false},
      {400, 400, 3, 200, 200, lanczos, true, 1, true},
      {460, 460, 3, 200, 200, lanczos, true, 1, false},
      // One axis is enough to fall back.
      {200, 1400, 3, 200, 200, linear, true, 1, false},
      // Without antialias the filter keeps its radius, but a tile's input
      // rows still grow with the scale.
      {1400, 1400, 3, 200, 200, cubic, false, 1, true},
      {40000, 1400, 3, 200, 200, cubic, false, 1, false},
      // Wider values and more channels take more room a chunk.
      {203, 517, 5, 33, 129, linear, true, 4, true},
      {203, 517, 64, 33, 129, linear, true, 4, false},
      // Axes past 2^24 pixels, where f32 coordinates are whole pixels apart.
      {2, huge, 1, 1, huge, linear, true, 1, false},
      // Nothing to resize: the entry with the pixel path handles it.
      {0, 10, 3, 5, 5, linear, true, 1, false},
      {10, 10, 3, 0, 5, linear, true, 1, false},
  };
  for (const Case &c : cases)
    EXPECT_EQ(pipe_resize_tiles_fit(c.h, c.w, c.channels, c.oh, c.ow, c.interp,
                                    c.antialias, c.valueBytes),
              c.fits)
        << c.h << "x" << c.w << "x" << c.channels << " -> " << c.oh << "x"
        << c.ow << ", interp " << c.interp << (c.antialias ? " antialiased" : "")
        << ", " << c.valueBytes << "-byte values";
}

TEST(Resample, StripsFitOnlyWhatAWarpHolds) {
  const int linear = PIPE_INTERP_LINEAR, cubic = PIPE_INTERP_CUBIC;
  // The benchmarks' resizes fit: by 2, and ImageNet's crops to 224.
  EXPECT_TRUE(pipe_resize_strips_fit(1024, 1024, 3, 512, 512, linear, true, 1));
  EXPECT_TRUE(pipe_resize_strips_fit(1024, 1024, 3, 512, 512, cubic, true, 1));
  EXPECT_TRUE(pipe_resize_strips_fit(480, 640, 3, 224, 224, linear, true, 1));
  // Rows of u8 that are not whole words (the kernel reads aligned words).
  EXPECT_FALSE(pipe_resize_strips_fit(100, 1023, 3, 50, 512, linear, true, 1));
  EXPECT_TRUE(pipe_resize_strips_fit(100, 1023, 3, 50, 512, linear, true, 4));
  EXPECT_TRUE(pipe_resize_strips_fit(100, 1022, 2, 50, 511, linear, true, 2));
  // More channels than a lane keeps, more taps than it keeps, more
  // columns than a warp's row of sums.
  EXPECT_FALSE(pipe_resize_strips_fit(100, 100, 5, 50, 50, linear, true, 1));
  EXPECT_FALSE(pipe_resize_strips_fit(100, 1600, 3, 50, 200, linear, true, 1));
  EXPECT_FALSE(pipe_resize_strips_fit(1600, 100, 3, 200, 50, linear, true, 1));
  EXPECT_FALSE(pipe_resize_strips_fit(100, 400, 4, 50, 100, linear, true, 1));
  EXPECT_FALSE(pipe_resize_strips_fit(0, 100, 3, 50, 50, linear, true, 1));
  // A sample of 2 GiB or more (the kernel's offsets are ints): 1.95 GiB
  // of u8, then 3.9 GiB of u16.
  EXPECT_TRUE(pipe_resize_strips_fit(16000, 32768, 4, 8000, 16384, linear,
                                     true, 1));
  EXPECT_FALSE(pipe_resize_strips_fit(16000, 32768, 4, 8000, 16384, linear,
                                      true, 2));
}

// Wherever pipe_resize_strips_fit says yes, every strip of 32 output
// columns (and every output row) has the taps the kernel keeps, and the
// groups of input its warp reads fit its row of sums, for whole images
// and for regions inside them, flipped or not.
TEST(Resample, StripsFitBoundsTheTapsTheKernelReads) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const long long w = 1 + rng() % 1500, ow = 1 + rng() % 700;
    const long long channels = 1 + rng() % 4;
    const int interp = 1 + rng() % 3;
    const bool antialias = rng() % 4 != 0;
    const int valueBytes = 1 << (rng() % 3);
    if (!pipe_resize_strips_fit(w, w, channels, ow, ow, interp, antialias,
                                valueBytes))
      continue;
    ++checked;
    // The whole image, or a region of it (its end before its start when
    // flipped): scales at most the whole image's.
    float x0 = 0.0f, x1 = (float)w;
    if (rng() % 2) {
      x0 = (float)(rng() % w);
      x1 = (float)(rng() % (w + 1));
      if (rng() % 2)
        std::swap(x0, x1);
    }
    pipe_affine a = pipe_resample_matrix(
        PIPE_RESAMPLE_RESIZE, std::array<float, 4>{0, x0, 1, x1}.data(), w, w,
        ow, ow);
    long long lo, hi;
    pipe_resample_span(x0, x1, w, &lo, &hi);
    const int values = valueBytes < 4 ? 4 / valueBytes : 1;
    for (long long strip = 0; strip * 32 < ow; ++strip) {
      long long c0 = 1ll << 40, c1 = -1;
      for (long long ox = strip * 32; ox < ow && ox < strip * 32 + 32; ++ox) {
        pipe_resample_axis t = pipe_resample_taps_of(
            ox, ow, a.m[0], a.m[2], lo, hi, interp, antialias);
        ASSERT_LE(t.count, PIPE_RESIZE_STRIP_TAPS)
            << w << " -> " << ow << ", interp " << interp;
        if (t.count > 0) {
          c0 = std::min(c0, t.first);
          c1 = std::max(c1, t.first + t.count);
        }
      }
      if (c1 < 0)
        continue;
      const long long groupStart = c0 * channels / values;
      const long long groups =
          (c1 * channels - groupStart * values + values - 1) / values;
      ASSERT_LE(groups * values, PIPE_RESIZE_STRIP_VALUES)
          << w << " -> " << ow << " x " << channels << ", interp " << interp
          << ", region " << x0 << ".." << x1;
    }
  }
  EXPECT_GT(checked, 300);
}

} // namespace
