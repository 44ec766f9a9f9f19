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
//    torch's antialias), which for an upscale is the bilinear one.
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
    double turns = degrees / 360.0;
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

/// The antialiasing filter's taps along one axis for output index `o` of
/// `outputs`, the axis mapping output x to input `offset + scale x`
/// (mirrored where `scale` < 0), reading input pixels [lo, hi):
/// [*first, *first + taps) and their weights, normalized (at most `most`
/// of them). PIL's and torch's taps of the crop [lo, hi) resized, in the
/// input's coordinates.
PIPE_HD int pipe_resample_taps(long long o, long long outputs, float scale,
                               float offset, long long lo, long long hi,
                               long long *first, float *weights, int most) {
  if (scale < 0.0f) {
    offset = offset + scale * (float)outputs;
    scale = -scale;
    o = outputs - 1 - o;
  }
  float support = scale >= 1.0f ? scale : 1.0f;
  float inverse = scale >= 1.0f ? 1.0f / scale : 1.0f;
  float local = scale * ((float)o + 0.5f);
  float centre = offset + local;
  // Truncated like torch's int(), in the crop's coordinates (from lo).
  float from = local - support + 0.5f + (offset - (float)lo);
  float to = local + support + 0.5f + (offset - (float)lo);
  long long span = hi - lo;
  long long a = lo + (from > 0.0f ? (from < (float)span ? (long long)from : span)
                                  : 0);
  long long b = lo + (to > 0.0f ? (to < (float)span ? (long long)to : span) : 0);
  lo = a > lo ? a : lo;
  hi = b < hi ? b : hi;
  int count = (int)(hi - lo);
  if (count > most)
    count = most;
  float total = 0.0f;
  for (int j = 0; j < count; ++j) {
    float d = ((float)(lo + j) - centre + 0.5f) * inverse;
    float wj = 1.0f - (d < 0.0f ? -d : d);
    weights[j] = wj > 0.0f ? wj : 0.0f;
    total += weights[j];
  }
  for (int j = 0; j < count; ++j)
    weights[j] = total != 0.0f ? weights[j] / total : 0.0f;
  *first = lo;
  return count;
}

/// The most taps an antialiased axis takes (a downscale by up to 31).
#define PIPE_RESAMPLE_MAX_TAPS 64

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
  if (antialias && interp == PIPE_INTERP_LINEAR) {
    long long x0, y0;
    float wx[PIPE_RESAMPLE_MAX_TAPS], wy[PIPE_RESAMPLE_MAX_TAPS];
    int nx = pipe_resample_taps(ox, ow, a.m[0], a.m[2], box.x0, box.x1, &x0,
                                wx, PIPE_RESAMPLE_MAX_TAPS);
    int ny = pipe_resample_taps(oy, oh, a.m[4], a.m[5], box.y0, box.y1, &y0,
                                wy, PIPE_RESAMPLE_MAX_TAPS);
    // Down the columns, then along the row: the order in which the
    // kernels' row-at-a-time path (pipe_resize_row) adds them too.
    for (long long ch = 0; ch < channels; ++ch) {
      float acc = 0.0f;
      for (int j = 0; j < nx; ++j) {
        float column = 0.0f;
        for (int i = 0; i < ny; ++i)
          column = column + wy[i] * pipe_resample_read(in, box, w, channels, ch,
                                                       y0 + i, x0 + j, border,
                                                       fill);
        acc = acc + wx[j] * column;
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

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
/// pipe_resample_pixel out of line, for the rare pixels of
/// pipe_resize_row's slow path: inlined, its own taps and loops would
/// take the fast path's registers.
template <typename T, typename Out>
__device__ __noinline__ void
pipe_resample_pixel_outlined(const T *in, long long h, long long w,
                             long long channels, const pipe_affine &a,
                             const pipe_box &box, long long oh, long long ow,
                             long long oy, long long ox, int border,
                             float fill, Out *out) {
  pipe_resample_pixel(in, h, w, channels, a, box, oh, ow, oy, ox,
                      PIPE_INTERP_LINEAR, border, fill, true, out);
}

/// The floats of `pipe_resize_row`'s shared row: 2048 (8 KiB), the columns
/// of 128 output pixels of 3 channels at downscales up to about 5.
#define PIPE_RESAMPLE_ROW 2048

/// Output row `oy` of an antialiased resize by the block, 128 pixels at a
/// time: the block first sums the input columns those pixels' taps
/// cover, down the vertical taps (each input byte read once, coalesced),
/// into the shared `row`; then each thread sums its pixel's horizontal
/// taps from it. The same sums, in the same order, as
/// pipe_resample_pixel's (which takes the pixels whose columns do not fit
/// in `row`). Every thread of the block calls it for the same row.
template <typename T, typename Out>
__device__ void pipe_resize_row(const T *in, long long h, long long w,
                                long long channels, const pipe_affine &a,
                                const pipe_box &box, long long oh,
                                long long ow, long long oy, int border,
                                float fill, Out *line, float *row) {
  long long y0;
  float wy[PIPE_RESAMPLE_MAX_TAPS], wx[PIPE_RESAMPLE_MAX_TAPS];
  int ny = pipe_resample_taps(oy, oh, a.m[4], a.m[5], box.y0, box.y1, &y0, wy,
                              PIPE_RESAMPLE_MAX_TAPS);
  for (long long base = 0; base < ow; base += blockDim.x) {
    long long ox = base + threadIdx.x;
    long long last = base + blockDim.x < ow ? base + blockDim.x - 1 : ow - 1;
    // The input columns [lo, hi) the chunk reads (either end first when
    // the region is flipped).
    long long f0, f1;
    int n0 = pipe_resample_taps(base, ow, a.m[0], a.m[2], box.x0, box.x1, &f0,
                                wx, PIPE_RESAMPLE_MAX_TAPS);
    int n1 = pipe_resample_taps(last, ow, a.m[0], a.m[2], box.x0, box.x1, &f1,
                                wx, PIPE_RESAMPLE_MAX_TAPS);
    long long lo = f0 < f1 ? f0 : f1;
    long long hi = f0 + n0 > f1 + n1 ? f0 + n0 : f1 + n1;
    long long count = (hi - lo) * channels;
    __syncthreads(); // the previous chunk is done with `row`
    if (h <= 0 || w <= 0 || count > PIPE_RESAMPLE_ROW) {
      if (ox < ow)
        pipe_resample_pixel_outlined(in, h, w, channels, a, box, oh, ow, oy,
                                     ox, border, fill, line + ox * channels);
      continue;
    }
    const T *source = in + (y0 * w + lo) * channels;
    const long long stride = w * channels;
    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
      // Four rows' loads in flight at a time, summed in order.
      const T *at = source + k;
      float column = 0.0f;
      int i = 0;
      for (; i + 4 <= ny; i += 4) {
        float v0 = pipe_cast<float>(at[i * stride]);
        float v1 = pipe_cast<float>(at[(i + 1) * stride]);
        float v2 = pipe_cast<float>(at[(i + 2) * stride]);
        float v3 = pipe_cast<float>(at[(i + 3) * stride]);
        column = column + wy[i] * v0;
        column = column + wy[i + 1] * v1;
        column = column + wy[i + 2] * v2;
        column = column + wy[i + 3] * v3;
      }
      for (; i < ny; ++i)
        column = column + wy[i] * pipe_cast<float>(at[i * stride]);
      row[k] = column;
    }
    __syncthreads();
    if (ox >= ow)
      continue;
    long long x0;
    int nx = pipe_resample_taps(ox, ow, a.m[0], a.m[2], box.x0, box.x1, &x0,
                                wx, PIPE_RESAMPLE_MAX_TAPS);
    const float *taps = row + (x0 - lo) * channels;
    for (long long ch = 0; ch < channels; ++ch) {
      float acc = 0.0f;
      for (int j = 0; j < nx; ++j)
        acc = acc + wx[j] * taps[j * channels + ch];
      line[ox * channels + ch] = pipe_cast<Out>(acc);
    }
  }
}
#endif

#endif // PIPE_CORE_PIPERESAMPLE_H
