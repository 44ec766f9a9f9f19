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
#include "core/PipeResizeTiles.h"

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

} // namespace
