//===- PipeResample.h - warp_affine, rotate and resize per pixel -*- C++ -*-===//
//
// What each output pixel of a resampling op is, compiled twice like
// PipeScalar.h (after it and PipeRandom.h): into the resample family's
// kernels and into the CPU reference, which therefore agree bit for bit.
//
// Coordinates are DALI's: pixel (y, x) covers [x, x + 1) x [y, y + 1), its
// centre at (x + 0.5, y + 0.5). An op's 2x3 matrix maps an output point to
// the input point it shows (destination to source): the output pixel at
// (ox, oy) shows the input at (sx, sy) = M (ox + 0.5, oy + 0.5, 1).
//  - nearest: the input pixel containing (sx, sy);
//  - linear: bilinear between the four pixels whose centres surround it;
//  - linear with antialias (resize only): each output pixel averages the
//    input pixels under a triangle filter as wide as the scale (PIL's and
//    torch's antialias), which for an upscale is the bilinear one;
//  - cubic and lanczos (resize only): the same with Keys' cubic (a =
//    -0.5) or Lanczos' sinc(d) sinc(d / 3) for the triangle, stretched by
//    the scale when antialiasing a downscale, else not.
// Points outside the input read `fill` (border constant) or the nearest
// edge pixel (border clamp). A resize may take a region of interest per
// sample, (y0, x0, y1, x1) in input pixels: the output's extent maps onto
// it (flipped along an axis where its end is before its start), and the
// pixels it touches, [floor(min), ceil(max)) along each axis, are all the
// resize reads, its edge clamping to them: for whole-pixel regions, a
// resize of the crop (torchvision's resized_crop). Everything is in f32,
// then converted to the output dtype as a cast converts.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPERESAMPLE_H
#define PIPE_CORE_PIPERESAMPLE_H

// Transforms (ResampleTransform in dialect/PipeEnums.td) and
// interpolations (Interp).
#define PIPE_RESAMPLE_AFFINE 0
#define PIPE_RESAMPLE_ROTATE 1
#define PIPE_RESAMPLE_RESIZE 2
#define PIPE_INTERP_NEAREST 0
#define PIPE_INTERP_LINEAR 1
#define PIPE_INTERP_CUBIC 2
#define PIPE_INTERP_LANCZOS 3
// Borders: PIPE_CLAMP and PIPE_CONSTANT of pipe_border (PipeScalar.h).

struct pipe_affine {
  float m[6];
};

/// The pixels a sample's resampling reads: rows [y0, y1), columns
/// [x0, x1) of its image.
struct pipe_box {
  long long y0, x0, y1, x1;
};

/// The values per sample of a transform's parameter.
PIPE_HD int pipe_resample_param_size(int transform) {
  return transform == PIPE_RESAMPLE_AFFINE   ? 6
         : transform == PIPE_RESAMPLE_RESIZE ? 4
                                             : 1;
}

/// The dims after the sample dims in a transform's parameter: [2, 3]
/// matrices, [4] regions, angles.
PIPE_HD int pipe_resample_param_rank(int transform) {
  return transform == PIPE_RESAMPLE_AFFINE   ? 2
         : transform == PIPE_RESAMPLE_RESIZE ? 1
                                             : 0;
}

/// The destination-to-source matrix of one sample: `param` is its 6
/// matrix entries (affine) or its angle in degrees (rotate; positive turns
/// the image counter-clockwise as it is shown, y down, about the centres
/// of the input and the output); a resize maps the output's extent onto
/// its region of interest `param` (y0, x0, y1, x1), or the whole input's
/// without one.
PIPE_HD pipe_affine pipe_resample_matrix(int transform, const float *param,
                                         long long h, long long w,
                                         long long oh, long long ow) {
  pipe_affine a;
  if (transform == PIPE_RESAMPLE_AFFINE) {
    for (int i = 0; i < 6; ++i)
      a.m[i] = param[i];
    return a;
  }
  if (transform == PIPE_RESAMPLE_RESIZE) {
    double y0 = 0.0, x0 = 0.0, y1 = (double)h, x1 = (double)w;
    if (param) {
      y0 = (double)param[0];
      x0 = (double)param[1];
      y1 = (double)param[2];
      x1 = (double)param[3];
    }
    a.m[0] = (float)((x1 - x0) / (double)(ow > 0 ? ow : 1));
    a.m[1] = 0.0f;
    a.m[2] = (float)x0;
    a.m[3] = 0.0f;
    a.m[4] = (float)((y1 - y0) / (double)(oh > 0 ? oh : 1));
    a.m[5] = (float)y0;
    return a;
  }
  // rotate: src = R^-1 (dst - centre_out) + centre_in, in f64, with the
  // cosine of PipeRandom.h (exact alike on both sides). An angle that is
  // not finite gives a matrix of NaN: every pixel is then outside.
  double degrees = (double)param[0];
  double c, s;
  if (!(degrees - degrees == 0.0)) {
    c = s = degrees - degrees; // NaN
  } else {
    // The remainder by 360 first, which is exact (fmod rounds nothing):
    // degrees / 360 of a large angle kept few bits of its fraction (an
    // angle of 1e18 turned the image by the wrong angle).
    double turns = pipe_fmod(degrees, 360.0) / 360.0; // (-1, 1)
    turns = turns - pipe_floorf(turns); // [0, 1)
    if (turns >= 1.0)
      turns = 0.0;
    double quarter = turns - 0.25;
    if (quarter < 0.0)
      quarter += 1.0;
    c = pipe_random_cos_turn(turns);
    s = pipe_random_cos_turn(quarter); // sin(2 pi t) = cos(2 pi (t - 1/4))
  }
  double cxo = 0.5 * (double)ow, cyo = 0.5 * (double)oh;
  double cxi = 0.5 * (double)w, cyi = 0.5 * (double)h;
  a.m[0] = (float)c;
  a.m[1] = (float)(-s);
  a.m[2] = (float)(cxi - c * cxo + s * cyo);
  a.m[3] = (float)s;
  a.m[4] = (float)c;
  a.m[5] = (float)(cyi - s * cxo - c * cyo);
  return a;
}

/// The pixels [lo, hi) a region from `start` to `end` touches along an
/// axis of `size`, at least one (the nearest) when the region is empty or
/// outside; `lo` = `hi` = 0 when `size` is.
PIPE_HD void pipe_resample_span(float start, float end, long long size,
                                long long *lo, long long *hi) {
  float first = start < end ? start : end, last = start < end ? end : start;
  // NaN and far outside read like just outside.
  first = first > -1.0f ? (first < (float)size ? first : (float)size) : -1.0f;
  last = last > -1.0f ? (last < (float)size + 1.0f ? last : (float)size + 1.0f)
                      : -1.0f;
  long long a = (long long)pipe_floorf(first);
  long long b = (long long)pipe_floorf(last);
  if ((float)b < last)
    b += 1; // ceil
  a = a < 0 ? 0 : a;
  b = b > size ? size : b;
  if (b <= a) { // empty or outside: the nearest pixel
    a = a >= size ? size - 1 : a;
    a = a < 0 ? 0 : a;
    b = size > 0 ? a + 1 : 0;
  }
  *lo = a;
  *hi = b;
}

/// The pixels a sample reads: its region's for a resize with one, else
/// the whole image.
PIPE_HD pipe_box pipe_resample_region(int transform, const float *param,
                                      long long h, long long w) {
  pipe_box box = {0, 0, h, w};
  if (transform == PIPE_RESAMPLE_RESIZE && param) {
    pipe_resample_span(param[0], param[2], h, &box.y0, &box.y1);
    pipe_resample_span(param[1], param[3], w, &box.x0, &box.x1);
  }
  return box;
}

/// The divisor that turns an image's sample index (over the `rank - 3`
/// dims before H) into its parameter's, when the parameter has one per
/// value of the first `paramSampleDims` of them: the product of the sample
/// dims after those; 0 when every image shares one parameter.
template <typename Size>
PIPE_HD long long pipe_resample_param_divisor(const Size *shape, int rank,
                                              int paramSampleDims) {
  if (paramSampleDims <= 0)
    return 0;
  long long divisor = 1;
  for (int d = paramSampleDims; d + 3 < rank; ++d)
    divisor *= (long long)shape[d];
  return divisor;
}

/// Sample `sample`'s parameter: its matrix (6 floats) or its angle.
PIPE_HD const float *pipe_resample_param(const float *param, int transform,
                                         long long sample, long long divisor) {
  if (!param || divisor == 0)
    return param;
  return param + (sample / divisor) * pipe_resample_param_size(transform);
}

/// Channel `ch` of input pixel (y, x) of one sample (rows of w pixels of
/// `channels`), or the border's value outside `box`.
template <typename T>
PIPE_HD float pipe_resample_read(const T *in, const pipe_box &box, long long w,
                                 long long channels, long long ch, long long y,
                                 long long x, int border, float fill) {
  if (y < box.y0 || y >= box.y1 || x < box.x0 || x >= box.x1) {
    if (border == PIPE_CONSTANT)
      return fill;
    y = y < box.y0 ? box.y0 : y >= box.y1 ? box.y1 - 1 : y;
    x = x < box.x0 ? box.x0 : x >= box.x1 ? box.x1 - 1 : x;
  }
  return pipe_cast<float>(in[(y * w + x) * channels + ch]);
}

/// How far, in input pixels, an interpolation's filter reaches before it
/// is stretched: 1 (triangle), 2 (cubic), 3 (lanczos).
PIPE_HD float pipe_resample_radius(int interp) {
  return interp == PIPE_INTERP_CUBIC     ? 2.0f
         : interp == PIPE_INTERP_LANCZOS ? 3.0f
                                         : 1.0f;
}

/// How much an axis of `scale` input pixels an output pixel stretches its
/// filter: the scale when antialiasing a downscale, else 1. The filter
/// then reaches pipe_resample_radius x this.
template <typename F>
PIPE_HD F pipe_resample_stretch(F scale, bool antialias) {
  return antialias && scale > (F)1 ? scale : (F)1;
}

/// sin(pi d) / (pi d) for d in [0, 3], in f64 with PipeRandom.h's cosine
/// (no math library: alike on both sides).
PIPE_HD double pipe_resample_sinc(double d) {
  if (d < 1e-9)
    return 1.0;
  // sin(pi d) = cos(2 pi (d / 2 - 1 / 4)), the turn taken in [0, 1).
  double turn = d * 0.5 - 0.25;
  turn = turn - pipe_floorf(turn);
  return pipe_random_cos_turn(turn) / (3.141592653589793 * d);
}

/// The filter's weight at distance `d` (in filter units) from the point:
/// the triangle 1 - |d|; Keys' cubic with a = -0.5 (PIL's, DALI's, and
/// torch's antialiased bicubic); Lanczos' sinc(d) sinc(d / 3) for |d| < 3.
PIPE_HD float pipe_resample_filter(int interp, float d) {
  d = d < 0.0f ? -d : d;
  if (interp == PIPE_INTERP_CUBIC) {
    if (d < 1.0f)
      return (1.5f * d - 2.5f) * d * d + 1.0f;
    if (d < 2.0f)
      return ((-0.5f * d + 2.5f) * d - 4.0f) * d + 2.0f;
    return 0.0f;
  }
  if (interp == PIPE_INTERP_LANCZOS) {
    if (d >= 3.0f)
      return 0.0f;
    return (float)(pipe_resample_sinc((double)d) *
                   pipe_resample_sinc((double)d / 3.0));
  }
  float w = 1.0f - d;
  return w > 0.0f ? w : 0.0f;
}

/// One axis of a separable resize for output index `o`: the input pixels
/// [first, first + count) its filter covers and what their weights need.
struct pipe_resample_axis {
  long long first;
  int count;
  int interp;
  /// In f64: in f32, a centre hundreds of pixels in is off by 1e-4 of a
  /// pixel, which the cubic's and lanczos's slopes turn into 1e-4 of the
  /// range.
  double centre;
  float inverse, total;
};

/// Tap `j`'s distance from the axis's centre, in filter units.
PIPE_HD float pipe_resample_distance(const pipe_resample_axis &t, int j) {
  return (float)(((double)(t.first + j) + 0.5 - t.centre) * (double)t.inverse);
}

/// The axis for output `o` of `outputs`, the axis mapping output x to
/// input `offset + scale x` (mirrored where `scale` < 0), reading input
/// pixels [lo, hi): the filter of `interp`, stretched by the scale when
/// `antialias` and downscaling, cut to [lo, hi) and normalized over what
/// is left. PIL's and torch's taps of the crop [lo, hi) resized, in the
/// input's coordinates.
PIPE_HD pipe_resample_axis pipe_resample_axis_of(long long o, long long outputs,
                                                 float scale, float offset,
                                                 long long lo, long long hi,
                                                 int interp, bool antialias) {
  if (scale < 0.0f) {
    offset = offset + scale * (float)outputs;
    scale = -scale;
    o = outputs - 1 - o;
  }
  float stretch = pipe_resample_stretch(scale, antialias);
  float support = pipe_resample_radius(interp) * stretch;
  float local = scale * ((float)o + 0.5f);
  pipe_resample_axis t;
  t.interp = interp;
  t.centre = (double)offset + (double)scale * ((double)o + 0.5);
  t.inverse = 1.0f / stretch;
  // Truncated like torch's int(), in the crop's coordinates (from lo).
  float from = local - support + 0.5f + (offset - (float)lo);
  float to = local + support + 0.5f + (offset - (float)lo);
  long long span = hi - lo;
  long long a = lo + (from > 0.0f ? (from < (float)span ? (long long)from : span)
                                  : 0);
  long long b = lo + (to > 0.0f ? (to < (float)span ? (long long)to : span) : 0);
  lo = a > lo ? a : lo;
  hi = b < hi ? b : hi;
  t.first = lo;
  t.count = (int)(hi - lo);
  t.total = 0.0f;
  return t;
}

/// pipe_resample_axis_of with its total: the sum of its taps' weights,
/// in order (pipe_resize_tile's parallel taps sum them in the same order).
PIPE_HD pipe_resample_axis pipe_resample_taps_of(long long o, long long outputs,
                                                 float scale, float offset,
                                                 long long lo, long long hi,
                                                 int interp, bool antialias) {
  pipe_resample_axis t = pipe_resample_axis_of(o, outputs, scale, offset, lo,
                                               hi, interp, antialias);
  for (int j = 0; j < t.count; ++j)
    t.total += pipe_resample_filter(interp, pipe_resample_distance(t, j));
  return t;
}

/// Weight `j` of axis `t`, normalized.
PIPE_HD float pipe_resample_weight(const pipe_resample_axis &t, int j) {
  float w = pipe_resample_filter(t.interp, pipe_resample_distance(t, j));
  return t.total != 0.0f ? w / t.total : 0.0f;
}

/// The axis's taps as an array: [*first, *first + taps) and their
/// weights (at most `most`: callers make sure the axis has no more).
PIPE_HD int pipe_resample_taps(long long o, long long outputs, float scale,
                               float offset, long long lo, long long hi,
                               int interp, bool antialias, long long *first,
                               float *weights, int most) {
  pipe_resample_axis t = pipe_resample_taps_of(o, outputs, scale, offset, lo,
                                               hi, interp, antialias);
  int count = t.count < most ? t.count : most;
  for (int j = 0; j < count; ++j)
    weights[j] = pipe_resample_weight(t, j);
  *first = t.first;
  return count;
}

/// acc + w x v rounded once (fused), alike on both sides: the sums of an
/// antialiased resize.
PIPE_HD float pipe_resample_madd(float acc, float w, float v) {
  return fmaf(w, v, acc);
}

/// The taps of an axis the pixel path keeps in an array (an antialiased
/// linear downscale by up to 31); an axis with more has its weights
/// computed again as each is used.
#define PIPE_RESAMPLE_MAX_TAPS 64

/// Whether a resize of `interp` sums separable taps (pipe_resample_axis)
/// rather than reading around one point: linear with antialias, and
/// cubic and lanczos always.
PIPE_HD bool pipe_resample_separable(int interp, bool antialias) {
  return interp == PIPE_INTERP_CUBIC || interp == PIPE_INTERP_LANCZOS ||
         (antialias && interp == PIPE_INTERP_LINEAR);
}

/// Output pixel (oy, ox) of one sample (oh x ow), its `channels` values
/// into `out`: the point, the taps and their weights are found once for
/// the pixel, then each channel is read and weighed; only `box` of the
/// input is read (pipe_resample_region).
template <typename T, typename Out>
PIPE_HD void pipe_resample_pixel(const T *in, long long h, long long w,
                                 long long channels, const pipe_affine &a,
                                 const pipe_box &box, long long oh,
                                 long long ow, long long oy, long long ox,
                                 int interp, int border, float fill,
                                 bool antialias, Out *out) {
  if (h <= 0 || w <= 0) {
    for (long long ch = 0; ch < channels; ++ch)
      out[ch] = pipe_cast<Out>(fill);
    return;
  }
  if (pipe_resample_separable(interp, antialias)) {
    pipe_resample_axis tx = pipe_resample_taps_of(
        ox, ow, a.m[0], a.m[2], box.x0, box.x1, interp, antialias);
    pipe_resample_axis ty = pipe_resample_taps_of(
        oy, oh, a.m[4], a.m[5], box.y0, box.y1, interp, antialias);
    float wx[PIPE_RESAMPLE_MAX_TAPS], wy[PIPE_RESAMPLE_MAX_TAPS];
    const bool keptX = tx.count <= PIPE_RESAMPLE_MAX_TAPS;
    const bool keptY = ty.count <= PIPE_RESAMPLE_MAX_TAPS;
    for (int j = 0; keptX && j < tx.count; ++j)
      wx[j] = pipe_resample_weight(tx, j);
    for (int i = 0; keptY && i < ty.count; ++i)
      wy[i] = pipe_resample_weight(ty, i);
    // Down the columns, then along the row: the order in which the
    // kernels' tiled path (pipe_resize_tile) adds them too.
    for (long long ch = 0; ch < channels; ++ch) {
      float acc = 0.0f;
      for (int j = 0; j < tx.count; ++j) {
        float column = 0.0f;
        for (int i = 0; i < ty.count; ++i)
          column = pipe_resample_madd(
              column, keptY ? wy[i] : pipe_resample_weight(ty, i),
              pipe_resample_read(in, box, w, channels, ch, ty.first + i,
                                 tx.first + j, border, fill));
        acc = pipe_resample_madd(acc, keptX ? wx[j] : pipe_resample_weight(tx, j),
                                 column);
      }
      out[ch] = pipe_cast<Out>(acc);
    }
    return;
  }
  float px = a.m[0] * ((float)ox + 0.5f) + a.m[1] * ((float)oy + 0.5f) + a.m[2];
  float py = a.m[3] * ((float)ox + 0.5f) + a.m[4] * ((float)oy + 0.5f) + a.m[5];
  // Far outside reads like just outside (and a NaN like outside): the
  // integer conversions below stay in range.
  float limitX = (float)w + 2.0f, limitY = (float)h + 2.0f;
  px = px > -2.0f ? (px < limitX ? px : limitX) : -2.0f;
  py = py > -2.0f ? (py < limitY ? py : limitY) : -2.0f;
  if (interp == PIPE_INTERP_NEAREST) {
    long long y = (long long)pipe_floorf(py), x = (long long)pipe_floorf(px);
    for (long long ch = 0; ch < channels; ++ch)
      out[ch] = pipe_cast<Out>(
          pipe_resample_read(in, box, w, channels, ch, y, x, border, fill));
    return;
  }
  px = px - 0.5f;
  py = py - 0.5f;
  float fx0 = pipe_floorf(px), fy0 = pipe_floorf(py);
  float fx = px - fx0, fy = py - fy0;
  long long x0 = (long long)fx0, y0 = (long long)fy0;
  for (long long ch = 0; ch < channels; ++ch) {
    float a00 = pipe_resample_read(in, box, w, channels, ch, y0, x0, border, fill);
    float a01 =
        pipe_resample_read(in, box, w, channels, ch, y0, x0 + 1, border, fill);
    float a10 =
        pipe_resample_read(in, box, w, channels, ch, y0 + 1, x0, border, fill);
    float a11 =
        pipe_resample_read(in, box, w, channels, ch, y0 + 1, x0 + 1, border, fill);
    float top = (1.0f - fx) * a00 + fx * a01;
    float bottom = (1.0f - fx) * a10 + fx * a11;
    out[ch] = pipe_cast<Out>((1.0f - fy) * top + fy * bottom);
  }
}

/// A separable resize's output tiles (pipe_resize_tile): rows x
/// columns of pixels (every channel), each the work of one block of
/// PIPE_RESIZE_THREADS threads.
#define PIPE_RESIZE_THREADS 256
#define PIPE_RESIZE_TILE_ROWS 8
#define PIPE_RESIZE_TILE_COLS 64
/// The most taps an axis keeps in the tiled path, 2 x support + 2 at most:
/// filters of a support (radius x stretch) up to PIPE_RESIZE_TILE_SUPPORT
/// (linear downscales up to 6.5, cubic 3.25, lanczos 2.17); wider ones
/// take the pixel path.
#define PIPE_RESIZE_TILE_TAPS 16
#define PIPE_RESIZE_TILE_SUPPORT 6.5f
/// Shared room for a chunk's input rows (bytes) and column sums (floats);
/// a tile takes its columns in chunks narrow enough to fit.
#define PIPE_RESIZE_TILE_BYTES 16384
#define PIPE_RESIZE_TILE_SUMS 4096

/// Whether every tile of a separable resize of h x w images (or of any
/// region inside them: regions are checked to lie in the image before the
/// resize runs) to oh x ow takes the tiled path with a chunk of at least
/// one column, for values of `valueBytes` bytes: then the launcher runs
/// the kernel's entry without the pixel path (pipe_resize_tiles with
/// Fallback false), whose call, never taken, costs the tiled path
/// registers and spills. Conservative: the scales get a margin over f32
/// rounding, and the estimates pipe_resize_tile makes are bounded above.
PIPE_HD bool pipe_resize_tiles_fit(long long h, long long w,
                                   long long channels, long long oh,
                                   long long ow, int interp, bool antialias,
                                   int valueBytes) {
  // Past 2^24 pixels an axis, f32 coordinates are whole pixels apart:
  // the margins below no longer bound the device's rounding.
  const long long most = 1ll << 24;
  if (h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || channels <= 0 ||
      valueBytes <= 0 || h > most || w > most || oh > most || ow > most)
    return false;
  const double sx = (double)w / (double)ow * 1.001 + 1e-3;
  const double sy = (double)h / (double)oh * 1.001 + 1e-3;
  const double radius = (double)pipe_resample_radius(interp);
  const double supportX = radius * pipe_resample_stretch(sx, antialias);
  const double supportY = radius * pipe_resample_stretch(sy, antialias);
  if (supportX > (double)PIPE_RESIZE_TILE_SUPPORT * 0.999 ||
      supportY > (double)PIPE_RESIZE_TILE_SUPPORT * 0.999)
    return false;
  const long long values = valueBytes < 4 ? 4 / valueBytes : 1;
  const long long unit = valueBytes < 4 ? 4 : valueBytes;
  // A chunk of one column: its values (and a group more), and the input
  // rows of the tile's eight output rows.
  const long long groups =
      ((long long)(2.0 * supportX + 5.0) * channels + values - 1) / values + 1;
  const long long rowsIn =
      (long long)((double)(PIPE_RESIZE_TILE_ROWS - 1) * sy + 2.0 * supportY +
                  5.0);
  return PIPE_RESIZE_TILE_ROWS * groups * values <= PIPE_RESIZE_TILE_SUMS &&
         rowsIn * groups * unit <= PIPE_RESIZE_TILE_BYTES;
}

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
/// The most channels a fused resample (pipe.resample_kernel) has: its
/// kernels keep a pixel's channels in registers for the epilogue.
#define PIPE_RESAMPLE_MOST_FUSED_CHANNELS 4

/// What the resample kernels do with each value they compute, the `Epi`
/// of pipe_resize_tiles: without an epilogue, store it into the resampled
/// images. A fused resample's kernel defines its own (the consumer's work
/// on the value, then its results stored), with `enabled` true and
/// store(sample, oy, ox, ch, value).
struct pipe_resample_no_epilogue {
  static const bool enabled = false;
  template <typename V>
  __device__ void store(long long, long long, long long, int, V) const {}
};

/// pipe_resample_pixel out of line, for the rare tiles of
/// pipe_resize_tile's slow path: inlined, its own taps and loops would
/// take the fast path's registers.
template <typename T, typename Out>
__device__ __noinline__ void
pipe_resample_pixel_outlined(const T *in, long long h, long long w,
                             long long channels, const pipe_affine &a,
                             const pipe_box &box, long long oh, long long ow,
                             long long oy, long long ox, int interp,
                             bool antialias, int border, float fill,
                             Out *out) {
  pipe_resample_pixel(in, h, w, channels, a, box, oh, ow, oy, ox, interp,
                      border, fill, antialias, out);
}

/// Output pixel (oy, ox) of sample `sample` by the pixel path, stored
/// into the sample's resampled image `out` or, with an epilogue, handed to
/// it a channel at a time (its channels, at most
/// PIPE_RESAMPLE_MOST_FUSED_CHANNELS, computed into registers first).
template <typename T, typename Out, typename Epi>
__device__ __forceinline__ void
pipe_resize_pixel_to(const T *in, long long h, long long w,
                     long long channels, const pipe_affine &a,
                     const pipe_box &box, long long oh, long long ow,
                     long long oy, long long ox, int interp, bool antialias,
                     int border, float fill, Out *out, long long sample,
                     const Epi &epi) {
  if (!Epi::enabled) {
    pipe_resample_pixel_outlined(in, h, w, channels, a, box, oh, ow, oy, ox,
                                 interp, antialias, border, fill,
                                 out + (oy * ow + ox) * channels);
    return;
  }
  Out pixel[PIPE_RESAMPLE_MOST_FUSED_CHANNELS];
  pipe_resample_pixel_outlined(in, h, w, channels, a, box, oh, ow, oy, ox,
                               interp, antialias, border, fill, pixel);
  for (int ch = 0; ch < (int)channels &&
                   ch < PIPE_RESAMPLE_MOST_FUSED_CHANNELS; ++ch)
    epi.store(sample, oy, ox, ch, pixel[ch]);
}

/// What a block of pipe_resize_tile keeps in shared memory.
struct pipe_resize_shared {
  float wy[PIPE_RESIZE_TILE_ROWS][PIPE_RESIZE_TILE_TAPS];
  float wx[PIPE_RESIZE_TILE_COLS][PIPE_RESIZE_TILE_TAPS];
  long long fy[PIPE_RESIZE_TILE_ROWS], fx[PIPE_RESIZE_TILE_COLS];
  int ny[PIPE_RESIZE_TILE_ROWS], nx[PIPE_RESIZE_TILE_COLS];
  /// Each position's axis while its taps are found in parallel (rows,
  /// then columns: pipe_resize_find_taps).
  pipe_resample_axis axis[PIPE_RESIZE_TILE_ROWS + PIPE_RESIZE_TILE_COLS];
  /// The current sample's matrix and region (pipe_resize_tiles).
  pipe_affine a;
  pipe_box box;
  alignas(16) unsigned long long input[PIPE_RESIZE_TILE_BYTES / 8];
  alignas(16) float sums[PIPE_RESIZE_TILE_SUMS];
};

/// The taps of `axis` a tile keeps (pipe_resample_taps' count).
__device__ __forceinline__ int
pipe_resize_kept_taps(const pipe_resample_axis &axis) {
  return axis.count < PIPE_RESIZE_TILE_TAPS ? axis.count
                                            : PIPE_RESIZE_TILE_TAPS;
}

/// The taps of a tile's rows [0, rows) (output rows ty0 + t) and, unless
/// `rowsOnly`, its columns [0, cols) (output columns tx0 + t), into `s`,
/// by the block (every thread calls it; it ends with the block
/// synchronized). `Parallel`: in three steps a barrier apart, each
/// position's axis (a position a thread), each tap's filter weight (a tap
/// a thread), each position's total and normalized weights (a position a
/// thread, the total summed in the taps' order): the weights are
/// pipe_resample_taps' bit for bit, and a tile waits for a chain a third
/// as long. Else a position a thread, pipe_resample_taps itself. The
/// callers have made sure no axis has more taps than the tile keeps.
template <bool Parallel>
__device__ void pipe_resize_find_taps(int rows, int cols, bool rowsOnly,
                                      long long ty0, long long tx0,
                                      long long oh, long long ow,
                                      const pipe_affine &a, const pipe_box &box,
                                      int interp, bool antialias,
                                      pipe_resize_shared &s) {
  const int tid = threadIdx.x, threads = blockDim.x;
  const int positions = rowsOnly ? rows : rows + cols;
  if (!Parallel) {
    for (int t = tid; t < positions; t += threads) {
      if (t < rows)
        s.ny[t] = pipe_resample_taps(ty0 + t, oh, a.m[4], a.m[5], box.y0,
                                     box.y1, interp, antialias, &s.fy[t],
                                     s.wy[t], PIPE_RESIZE_TILE_TAPS);
      else
        s.nx[t - rows] = pipe_resample_taps(
            tx0 + t - rows, ow, a.m[0], a.m[2], box.x0, box.x1, interp,
            antialias, &s.fx[t - rows], s.wx[t - rows], PIPE_RESIZE_TILE_TAPS);
    }
    __syncthreads();
    return;
  }
  for (int t = tid; t < positions; t += threads) {
    if (t < rows) {
      s.axis[t] = pipe_resample_axis_of(ty0 + t, oh, a.m[4], a.m[5], box.y0,
                                        box.y1, interp, antialias);
      s.fy[t] = s.axis[t].first;
      s.ny[t] = pipe_resize_kept_taps(s.axis[t]);
    } else {
      s.axis[t] = pipe_resample_axis_of(tx0 + t - rows, ow, a.m[0], a.m[2],
                                        box.x0, box.x1, interp, antialias);
      s.fx[t - rows] = s.axis[t].first;
      s.nx[t - rows] = pipe_resize_kept_taps(s.axis[t]);
    }
  }
  __syncthreads();
  for (int e = tid; e < positions * PIPE_RESIZE_TILE_TAPS; e += threads) {
    const int t = e / PIPE_RESIZE_TILE_TAPS, j = e % PIPE_RESIZE_TILE_TAPS;
    if (j < s.axis[t].count)
      (t < rows ? s.wy[t] : s.wx[t - rows])[j] =
          pipe_resample_filter(interp, pipe_resample_distance(s.axis[t], j));
  }
  __syncthreads();
  for (int t = tid; t < positions; t += threads) {
    float *weights = t < rows ? s.wy[t] : s.wx[t - rows];
    const int count = t < rows ? s.ny[t] : s.nx[t - rows];
    float total = 0.0f;
    for (int j = 0; j < count; ++j)
      total += weights[j];
    for (int j = 0; j < count; ++j)
      weights[j] = total != 0.0f ? weights[j] / total : 0.0f;
  }
  __syncthreads();
}

/// Steps the mixed-radix index (*hi, *mid, *lo) of extents (-, mid, lo)
/// on by (stepHi, stepMid, stepLo), each digit of the step below its
/// extent: the flat index of a block's loop advanced without a division.
PIPE_HD void pipe_resize_step(int *hi, int *mid, int *lo, int mids, int los,
                              int stepHi, int stepMid, int stepLo) {
  *lo += stepLo;
  if (*lo >= los) {
    *lo -= los;
    *mid += 1;
  }
  *mid += stepMid;
  if (*mid >= mids) {
    *mid -= mids;
    *hi += 1;
  }
  *hi += stepHi;
}

/// The unit pipe_resize_tile moves a thread at a time: a 4-byte word of
/// values narrower than 4 bytes (4 u8, 2 f16), or one wider value.
template <typename T> struct pipe_resize_group {
  static const int values = sizeof(T) < 4 ? 4 / (int)sizeof(T) : 1;
  union {
    unsigned int word;
    T v[values];
  };
};

/// The groups of pipe_resize_group<T> that hold `count` values.
template <typename T> PIPE_HD int pipe_resize_groups(long long count) {
  const int values = pipe_resize_group<T>::values;
  return (int)((count + values - 1) / values);
}

/// Value `v` of a group as a float: a cast, or for u8 the byte placed in
/// the mantissa of 2^23 (exact, two instructions).
template <typename T>
__device__ __forceinline__ float
pipe_resize_value(const pipe_resize_group<T> &u, int v) {
  return pipe_cast<float>(u.v[v]);
}
template <>
__device__ __forceinline__ float
pipe_resize_value<unsigned char>(const pipe_resize_group<unsigned char> &u,
                                 int v) {
  return __int_as_float((int)__byte_perm(u.word, 0x4B000000u, 0x7440 + v)) -
         8388608.0f;
}

/// Copies input rows [r0, r0 + rowsIn), values [first, first + count) of
/// each, of the image at `image` (rows of `stride` values) into
/// `s.input`, each row starting a group (pipe_resize_group): a row of
/// `groups` groups, a warp a row. Narrow values travel as aligned 4-byte
/// words, shifted into place; rows whose words reach outside the tensor
/// [begin, end) are put together byte by byte.
template <typename T>
__device__ void pipe_resize_load(const T *image, long long stride,
                                 long long r0, int rowsIn, long long first,
                                 int groups, const T *begin, const T *end,
                                 pipe_resize_shared &s) {
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int i = threadIdx.x >> 5; i < rowsIn; i += warps) {
    const T *row = image + (r0 + i) * stride + first;
    if (sizeof(T) >= 4) {
      T *to = (T *)s.input + i * groups;
      for (int g = lane; g < groups; g += 32)
        to[g] = row[g];
      continue;
    }
    unsigned int *to = (unsigned int *)s.input + i * groups;
    const unsigned long long at = (unsigned long long)row,
                             base = at & ~3ull;
    const unsigned int shift = 8 * (unsigned int)(at - base);
    const unsigned int *words = (const unsigned int *)base;
    if (base >= (unsigned long long)begin &&
        base + 4ull * (unsigned long long)(groups + 1) <=
            (unsigned long long)end) {
      // Four words a lane in flight before any is used (read-only loads,
      // free to move past the shared stores).
      for (int g0 = lane; g0 < groups; g0 += 4 * 32) {
        unsigned int lo[4], hi[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int g = g0 + 32 * u;
          lo[u] = g < groups ? __ldg(words + g) : 0u;
          hi[u] = g < groups && shift ? __ldg(words + g + 1) : 0u;
        }
#pragma unroll
        for (int u = 0; u < 4; ++u)
          if (g0 + 32 * u < groups)
            to[g0 + 32 * u] = __funnelshift_r(lo[u], hi[u], shift);
      }
      continue;
    }
    // At the tensor's ends: its own bytes only.
    for (int g = lane; g < groups; g += 32) {
      unsigned int a = 0, b = 0;
      for (int k = 0; k < 8; ++k) {
        unsigned long long byte = base + 4ull * g + k;
        if (byte >= (unsigned long long)begin &&
            byte < (unsigned long long)end)
          (k < 4 ? a : b) |= (unsigned int)(*(const unsigned char *)byte)
                             << (8 * (k & 3));
      }
      to[g] = __funnelshift_r(a, b, shift);
    }
  }
}

/// The output tile of rows [ty0, ty0 + 8) and columns [tx0, tx0 + 64) of
/// one sample's separable resize (clipped to its oh x ow), by the block:
/// every thread calls it for the same tile. The tile's taps and weights
/// are found once, into shared memory; then, a chunk of its columns at a
/// time, the block copies the input rows and columns the chunk reads into
/// shared memory (each value read once, in aligned words), sums each
/// input column down each output row's vertical taps, and sums each
/// output pixel's horizontal taps from those: the same sums, in the same
/// order, as pipe_resample_pixel's (which takes tiles whose scale needs
/// more taps than the tile keeps). `begin` and `end` bound the whole
/// input tensor. The caller has synchronized the block since the last
/// tile's use of `s`. When `columnsKnown`, `s` holds this tile's column
/// taps already (the last tile was the one above it: same sample, same
/// columns) and only the rows' are found. Returns whether `s` holds the
/// tile's column taps after it (not when it took the pixel path).
template <int C, bool Fallback, bool ParallelTaps, typename T, typename Out,
          typename Epi>
__device__ bool pipe_resize_tile(const T *in, long long h, long long w,
                                 long long channels, const pipe_affine &a,
                                 const pipe_box &box, long long oh,
                                 long long ow, long long ty0, long long tx0,
                                 int interp, bool antialias, int border,
                                 float fill, Out *out,
                                 const T *begin, const T *end,
                                 long long sample, const Epi &epi,
                                 bool columnsKnown, pipe_resize_shared &s) {
  const int tid = threadIdx.x, threads = blockDim.x;
  const int rows = (int)(oh - ty0 < PIPE_RESIZE_TILE_ROWS
                             ? oh - ty0
                             : PIPE_RESIZE_TILE_ROWS);
  const int cols = (int)(ow - tx0 < PIPE_RESIZE_TILE_COLS
                             ? ow - tx0
                             : PIPE_RESIZE_TILE_COLS);
  const int c = (int)channels;
  const float sx = pipe_fabs(a.m[0]), sy = pipe_fabs(a.m[4]);
  // The filters' reach in input pixels (pipe_resample_taps_of).
  const float radius = pipe_resample_radius(interp);
  const float supportX = radius * pipe_resample_stretch(sx, antialias);
  const float supportY = radius * pipe_resample_stretch(sy, antialias);
  // Uniform over the block: the pixel path for what the tile cannot keep
  // (a NaN scale included).
  // Without Fallback, the launcher has made sure (pipe_resize_tiles_fit).
  bool tiled = !Fallback || (h > 0 && w > 0 &&
                             supportX <= PIPE_RESIZE_TILE_SUPPORT &&
                             supportY <= PIPE_RESIZE_TILE_SUPPORT);
  // The taps are a tile's costliest latency (f64 distances and divisions;
  // the block waits for them at a barrier): found in parallel, and a tile
  // below the last keeps its columns' (bench/NOTES.md).
  if (tiled)
    pipe_resize_find_taps<ParallelTaps>(rows, cols, columnsKnown, ty0, tx0,
                                        oh, ow, a, box, interp, antialias, s);
  // The input rows the tile reads (the taps move monotonically along an
  // axis, either way when the region is flipped).
  long long r0 = 0, r1 = 0;
  if (tiled) {
    long long fa = s.fy[0], fb = s.fy[rows - 1];
    r0 = fa < fb ? fa : fb;
    r1 = fa + s.ny[0] > fb + s.ny[rows - 1] ? fa + s.ny[0]
                                             : fb + s.ny[rows - 1];
  }
  // Columns a chunk: the widest whose input fits in the shared room.
  const int values = pipe_resize_group<T>::values;
  const int unit = sizeof(T) < 4 ? 4 : (int)sizeof(T); // bytes a group
  int width = cols;
  const int rowsIn = (int)(r1 - r0);
  for (; tiled && width > 0; width /= 2) {
    int groups = pipe_resize_groups<T>(
        (long long)((float)(width - 1) * sx + 2.0f * supportX + 4.0f) * c);
    if (rows * groups * values <= PIPE_RESIZE_TILE_SUMS &&
        rowsIn * groups * unit <= PIPE_RESIZE_TILE_BYTES)
      break;
  }
  if (!Fallback && width == 0)
    return tiled; // not reached (pipe_resize_tiles_fit)
  if (Fallback && (!tiled || width == 0)) {
    for (int e = tid; e < rows * cols; e += threads) {
      long long oy = ty0 + e / cols, ox = tx0 + e % cols;
      pipe_resize_pixel_to(in, h, w, channels, a, box, oh, ow, oy, ox,
                           interp, antialias, border, fill, out, sample, epi);
    }
    return tiled;
  }
  for (int x0 = 0; x0 < cols; x0 += width) {
    const int n = cols - x0 < width ? cols - x0 : width;
    long long fa = s.fx[x0], fb = s.fx[x0 + n - 1];
    long long c0 = fa < fb ? fa : fb;
    long long c1 = fa + s.nx[x0] > fb + s.nx[x0 + n - 1]
                       ? fa + s.nx[x0]
                       : fb + s.nx[x0 + n - 1];
    // The chunk's input values a row, in groups; its column sums a row.
    const int groups = pipe_resize_groups<T>((c1 - c0) * channels);
    const int pitch = groups * values;
    if (x0 > 0)
      __syncthreads(); // the previous chunk is done with the input and sums
    if (rows * pitch > PIPE_RESIZE_TILE_SUMS ||
        rowsIn * groups * unit > PIPE_RESIZE_TILE_BYTES) {
      // Past the estimate (uniform over the block): pixel by pixel. (Not
      // reached: the estimate has two pixels' slack a side over the span
      // of a chunk's taps; without Fallback the kernel has no pixel path.)
      if (!Fallback)
        continue;
      for (int e = tid; e < rows * n; e += threads) {
        long long oy = ty0 + e / n, ox = tx0 + x0 + e % n;
        pipe_resize_pixel_to(in, h, w, channels, a, box, oh, ow, oy, ox,
                             interp, antialias, border, fill, out, sample,
                             epi);
      }
      continue;
    }
    pipe_resize_load(in, w * channels, r0, rowsIn, c0 * channels, groups,
                     begin, end, s);
    __syncthreads();
    // Down the vertical taps, a group of input values a thread: sums[t][k]
    // for output row t, input value k.
    {
      int t = tid / groups, g = tid % groups, zero = 0;
      while (t < rows) {
        const int ny = s.ny[t], top = (int)(s.fy[t] - r0);
        const float *wy = s.wy[t];
        float column[pipe_resize_group<T>::values];
#pragma unroll
        for (int v = 0; v < values; ++v)
          column[v] = 0.0f;
#pragma unroll 4
        for (int j = 0; j < ny; ++j) {
          pipe_resize_group<T> u;
          if (sizeof(T) < 4)
            u.word = ((const unsigned int *)s.input)[(top + j) * groups + g];
          else
            u.v[0] = ((const T *)s.input)[(top + j) * groups + g];
          const float weight = wy[j];
#pragma unroll
          for (int v = 0; v < values; ++v)
            column[v] =
                pipe_resample_madd(column[v], weight, pipe_resize_value(u, v));
        }
        float *sum = s.sums + t * pitch + g * values;
        if (values == 4)
          *(float4 *)sum =
              make_float4(column[0], column[values > 1 ? 1 : 0],
                          column[values > 2 ? 2 : 0], column[values > 3 ? 3 : 0]);
        else
#pragma unroll
          for (int v = 0; v < values; ++v)
            sum[v] = column[v];
        pipe_resize_step(&zero, &t, &g, 1 << 30, groups, 0, threads / groups,
                         threads % groups);
      }
    }
    __syncthreads();
    // Along the horizontal taps: output (t, x0 + x, ch), a pixel a thread
    // when the channels are known (C), else a value a thread.
    Out *corner = out + (ty0 * ow + tx0 + x0) * channels;
    const long long stride = ow * channels;
    if (C > 0) {
      int t = tid / n, x = tid % n, zero = 0;
      while (t < rows) {
        const int nx = s.nx[x0 + x];
        const float *wx = s.wx[x0 + x];
        const float *taps = s.sums + t * pitch + (int)(s.fx[x0 + x] - c0) * C;
        float acc[C > 0 ? C : 1];
#pragma unroll
        for (int ch = 0; ch < C; ++ch)
          acc[ch] = 0.0f;
        for (int j = 0; j < nx; ++j) {
          const float weight = wx[j];
#pragma unroll
          for (int ch = 0; ch < C; ++ch)
            acc[ch] = pipe_resample_madd(acc[ch], weight, taps[j * C + ch]);
        }
        if (Epi::enabled) {
#pragma unroll
          for (int ch = 0; ch < C; ++ch)
            epi.store(sample, ty0 + t, tx0 + x0 + x, ch,
                      pipe_cast<Out>(acc[ch]));
        } else {
          Out *pixel = corner + t * stride + x * C;
#pragma unroll
          for (int ch = 0; ch < C; ++ch)
            pixel[ch] = pipe_cast<Out>(acc[ch]);
        }
        pipe_resize_step(&zero, &t, &x, 1 << 30, n, 0, threads / n,
                         threads % n);
      }
    } else {
      int t = tid / (n * c), x = tid / c % n, ch = tid % c;
      const int stepT = threads / (n * c), stepX = threads / c % n,
                stepC = threads % c;
      while (t < rows) {
        const int nx = s.nx[x0 + x];
        const float *wx = s.wx[x0 + x];
        const float *taps =
            s.sums + t * pitch + (int)(s.fx[x0 + x] - c0) * c + ch;
        float acc = 0.0f;
        for (int j = 0; j < nx; ++j)
          acc = pipe_resample_madd(acc, wx[j], taps[j * c]);
        if (Epi::enabled)
          epi.store(sample, ty0 + t, tx0 + x0 + x, ch, pipe_cast<Out>(acc));
        else
          corner[t * stride + (x * c + ch)] = pipe_cast<Out>(acc);
        pipe_resize_step(&t, &x, &ch, n, c, stepT, stepX, stepC);
      }
    }
  }
  return true;
}

/// A separable resize (pipe_resample_separable) of `rows` / oh samples
/// (pipe_resample_param's `param` and `divisor`; none without regions), a
/// tile at a time
/// (pipe_resize_tile): the block takes a run of consecutive tiles, a
/// sample's in order down each column of tiles (`DownColumns`; else
/// along each row), so that it finds the sample's matrix and region again
/// only when the sample changes, and a column's taps only when the column
/// does; it steps from tile to tile without a division. `ParallelTaps`:
/// pipe_resize_find_taps'. `C` is the channels when the kernel knows them
/// (a pixel a thread in the horizontal sums), else 0; `Fallback` whether
/// tiles the tiled path cannot take are possible (else the kernel has no
/// pixel path: pipe_resize_tiles_fit).
template <int C, bool Fallback, bool ParallelTaps, bool DownColumns,
          typename T, typename Out, typename Epi>
__device__ void pipe_resize_tiles(const T *in, const float *param, Out *out,
                                  long long rows, long long h, long long w,
                                  long long channels, long long oh,
                                  long long ow, long long divisor,
                                  int interp, bool antialias, int border,
                                  float fill, const Epi &epi,
                                  pipe_resize_shared &s) {
  const long long tilesY =
      (oh + PIPE_RESIZE_TILE_ROWS - 1) / PIPE_RESIZE_TILE_ROWS;
  const long long tilesX =
      (ow + PIPE_RESIZE_TILE_COLS - 1) / PIPE_RESIZE_TILE_COLS;
  const long long samples = rows / oh, image = h * w * channels;
  const long long tiles = samples * tilesY * tilesX;
  const long long each = (tiles + gridDim.x - 1) / gridDim.x;
  long long tile = blockIdx.x * each;
  const long long last = tile + each < tiles ? tile + each : tiles;
  if (tile >= last)
    return;
  long long sample = tile / (tilesY * tilesX);
  long long tx = DownColumns ? tile / tilesY % tilesX : tile % tilesX;
  long long ty = DownColumns ? tile % tilesY : tile / tilesX % tilesY;
  long long matrixOf = -1;
  bool columnsKnown = false;
  for (; tile < last; ++tile) {
    __syncthreads(); // the previous tile is done with `s`
    if (sample != matrixOf) { // one thread finds it, into `s`
      if (threadIdx.x == 0) {
        const float *p = pipe_resample_param(param, PIPE_RESAMPLE_RESIZE,
                                             sample, divisor);
        s.a = pipe_resample_matrix(PIPE_RESAMPLE_RESIZE, p, h, w, oh, ow);
        s.box = pipe_resample_region(PIPE_RESAMPLE_RESIZE, p, h, w);
      }
      matrixOf = sample;
      __syncthreads();
    }
    columnsKnown = pipe_resize_tile<C, Fallback, ParallelTaps>(
        in + sample * image, h, w, channels, s.a, s.box, oh, ow,
        ty * PIPE_RESIZE_TILE_ROWS, tx * PIPE_RESIZE_TILE_COLS, interp,
        antialias, border, fill, out + sample * oh * ow * channels, in,
        in + samples * image, sample, epi, DownColumns && columnsKnown, s);
    long long &inner = DownColumns ? ty : tx, &outer = DownColumns ? tx : ty;
    if (++inner == (DownColumns ? tilesY : tilesX)) {
      inner = 0;
      columnsKnown = false;
      if (++outer == (DownColumns ? tilesX : tilesY)) {
        outer = 0;
        ++sample;
      }
    }
  }
}
#endif

#endif // PIPE_CORE_PIPERESAMPLE_H
