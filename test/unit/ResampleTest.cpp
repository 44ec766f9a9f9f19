//===- ResampleTest.cpp - core/PipeResample.h's host-side decisions -------===//
//
// What the resample launcher decides on the host: whether every tile of a
// separable resize takes the tiled path, so that the kernel's entry
// without the pixel path may run (pipe_resize_tiles_fit). The device's own
// tests (resample_oracle.py, GPU against the reference bit for bit) run
// both entries on shapes on either side of these bounds.
//
//===----------------------------------------------------------------------===//

#include "core/PipeScalar.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"

#include <gtest/gtest.h>

namespace {

TEST(Resample, TilesFitWhileTheFilterReachesAtMostTheTileSupport) {
  const int linear = PIPE_INTERP_LINEAR, cubic = PIPE_INTERP_CUBIC,
            lanczos = PIPE_INTERP_LANCZOS;
  // Downscales by 2 and upscales: every filter fits.
  for (int interp : {linear, cubic, lanczos}) {
    EXPECT_TRUE(pipe_resize_tiles_fit(1024, 1024, 3, 512, 512, interp, true, 1));
    EXPECT_TRUE(pipe_resize_tiles_fit(300, 400, 3, 900, 1000, interp, true, 1));
  }
  // The support is the radius times the scale when antialiasing: linear
  // to 6.5, cubic to 3.25, lanczos to 2.17.
  EXPECT_TRUE(pipe_resize_tiles_fit(1200, 1200, 3, 200, 200, linear, true, 1));
  EXPECT_FALSE(pipe_resize_tiles_fit(1400, 1400, 3, 200, 200, linear, true, 1));
  EXPECT_TRUE(pipe_resize_tiles_fit(600, 600, 3, 200, 200, cubic, true, 1));
  EXPECT_FALSE(pipe_resize_tiles_fit(700, 700, 3, 200, 200, cubic, true, 1));
  EXPECT_TRUE(pipe_resize_tiles_fit(400, 400, 3, 200, 200, lanczos, true, 1));
  EXPECT_FALSE(pipe_resize_tiles_fit(460, 460, 3, 200, 200, lanczos, true, 1));
  // One axis is enough to fall back.
  EXPECT_FALSE(pipe_resize_tiles_fit(200, 1400, 3, 200, 200, linear, true, 1));
  // Without antialias the filter keeps its radius, but a tile's input
  // rows still grow with the scale.
  EXPECT_TRUE(pipe_resize_tiles_fit(1400, 1400, 3, 200, 200, cubic, false, 1));
  EXPECT_FALSE(pipe_resize_tiles_fit(40000, 1400, 3, 200, 200, cubic, false, 1));
  // Wider values and more channels take more room a chunk.
  EXPECT_TRUE(pipe_resize_tiles_fit(203, 517, 5, 33, 129, linear, true, 4));
  EXPECT_FALSE(pipe_resize_tiles_fit(203, 517, 64, 33, 129, linear, true, 4));
  // Axes past 2^24 pixels, where f32 coordinates are whole pixels apart.
  EXPECT_FALSE(pipe_resize_tiles_fit(2, (1ll << 24) + 2, 1, 1, (1ll << 24) + 2,
                                     linear, true, 1));
  // Nothing to resize: the entry with the pixel path handles it.
  EXPECT_FALSE(pipe_resize_tiles_fit(0, 10, 3, 5, 5, linear, true, 1));
  EXPECT_FALSE(pipe_resize_tiles_fit(10, 10, 3, 0, 5, linear, true, 1));
}

} // namespace
