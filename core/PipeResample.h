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

/// Where input pixel (y, x) reads under `border`: itself inside `box`,
/// the nearest edge pixel for clamp (y and x moved there); false where it
/// reads the fill instead (constant).
PIPE_HD bool pipe_resample_locate(const pipe_box &box, int border,
                                  long long *y, long long *x) {
  if (*y < box.y0 || *y >= box.y1 || *x < box.x0 || *x >= box.x1) {
    if (border == PIPE_CONSTANT)
      return false;
    *y = *y < box.y0 ? box.y0 : *y >= box.y1 ? box.y1 - 1 : *y;
    *x = *x < box.x0 ? box.x0 : *x >= box.x1 ? box.x1 - 1 : *x;
  }
  return true;
}

/// Channel `ch` of input pixel (y, x) of one sample (rows of w pixels of
/// `channels`), or the border's value outside `box`.
template <typename T>
PIPE_HD float pipe_resample_read(const T *in, const pipe_box &box, long long w,
                                 long long channels, long long ch, long long y,
                                 long long x, int border, float fill) {
  if (!pipe_resample_locate(box, border, &y, &x))
    return fill;
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
/// `antialias` and downscaling, cut to [lo, hi), to be normalized over
/// what is left (its total is 0 here: pipe_resample_taps_of sums it).
/// PIL's and torch's taps of the crop [lo, hi) resized, in the input's
/// coordinates.
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
    // The pixel itself, converted once (not through f32: f64 values and
    // integers past 2^24 come back as they were), or the fill.
    long long y = (long long)pipe_floorf(py), x = (long long)pipe_floorf(px);
    const bool inside = pipe_resample_locate(box, border, &y, &x);
    for (long long ch = 0; ch < channels; ++ch)
      out[ch] = inside ? pipe_cast<Out>(in[(y * w + x) * channels + ch])
                       : pipe_cast<Out>(fill);
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

#endif

#endif // PIPE_CORE_PIPERESAMPLE_H
