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
// edge pixel (border clamp). Everything is in f32, then converted to the
// output dtype as a cast converts.
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

/// The destination-to-source matrix of one sample: `param` is its 6
/// matrix entries (affine) or its angle in degrees (rotate; positive turns
/// the image counter-clockwise as it is shown, y down, about the centres
/// of the input and the output); a resize maps the output's extent onto
/// the input's.
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
    a.m[0] = (float)((double)w / (double)(ow > 0 ? ow : 1));
    a.m[1] = 0.0f;
    a.m[2] = 0.0f;
    a.m[3] = 0.0f;
    a.m[4] = (float)((double)h / (double)(oh > 0 ? oh : 1));
    a.m[5] = 0.0f;
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
  return param + (sample / divisor) * (transform == PIPE_RESAMPLE_AFFINE ? 6 : 1);
}

/// Channel `ch` of input pixel (y, x) of one sample (h x w x channels,
/// row-major), or the border's value.
template <typename T>
PIPE_HD float pipe_resample_read(const T *in, long long h, long long w,
                                 long long channels, long long ch, long long y,
                                 long long x, int border, float fill) {
  if (y < 0 || y >= h || x < 0 || x >= w) {
    if (border == PIPE_CONSTANT)
      return fill;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
  }
  return pipe_cast<float>(in[(y * w + x) * channels + ch]);
}

/// The antialiasing filter's taps along one axis for output index `o` at
/// `scale` input pixels per output pixel: [*first, *first + count) and
/// their weights, normalized (at most `most` of them).
PIPE_HD int pipe_resample_taps(long long o, float scale, long long size,
                               long long *first, float *weights, int most) {
  float support = scale >= 1.0f ? scale : 1.0f;
  float inverse = scale >= 1.0f ? 1.0f / scale : 1.0f;
  float centre = scale * ((float)o + 0.5f);
  long long lo = (long long)(centre - support + 0.5f);
  long long hi = (long long)(centre + support + 0.5f);
  if (lo < 0)
    lo = 0;
  if (hi > size)
    hi = size;
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

/// Output pixel (oy, ox) of one sample, its `channels` values into `out`:
/// the point, the taps and their weights are found once for the pixel,
/// then each channel is read and weighed.
template <typename T, typename Out>
PIPE_HD void pipe_resample_pixel(const T *in, long long h, long long w,
                                 long long channels, const pipe_affine &a,
                                 long long oy, long long ox, int interp,
                                 int border, float fill, bool antialias,
                                 Out *out) {
  if (h <= 0 || w <= 0) {
    for (long long ch = 0; ch < channels; ++ch)
      out[ch] = pipe_cast<Out>(fill);
    return;
  }
  if (antialias && interp == PIPE_INTERP_LINEAR) {
    long long x0, y0;
    float wx[PIPE_RESAMPLE_MAX_TAPS], wy[PIPE_RESAMPLE_MAX_TAPS];
    int nx = pipe_resample_taps(ox, a.m[0], w, &x0, wx, PIPE_RESAMPLE_MAX_TAPS);
    int ny = pipe_resample_taps(oy, a.m[4], h, &y0, wy, PIPE_RESAMPLE_MAX_TAPS);
    for (long long ch = 0; ch < channels; ++ch) {
      float acc = 0.0f;
      for (int i = 0; i < ny; ++i) {
        float row = 0.0f;
        for (int j = 0; j < nx; ++j)
          row = row + wx[j] * pipe_resample_read(in, h, w, channels, ch,
                                                 y0 + i, x0 + j, border, fill);
        acc = acc + wy[i] * row;
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
          pipe_resample_read(in, h, w, channels, ch, y, x, border, fill));
    return;
  }
  px = px - 0.5f;
  py = py - 0.5f;
  float fx0 = pipe_floorf(px), fy0 = pipe_floorf(py);
  float fx = px - fx0, fy = py - fy0;
  long long x0 = (long long)fx0, y0 = (long long)fy0;
  for (long long ch = 0; ch < channels; ++ch) {
    float a00 = pipe_resample_read(in, h, w, channels, ch, y0, x0, border, fill);
    float a01 =
        pipe_resample_read(in, h, w, channels, ch, y0, x0 + 1, border, fill);
    float a10 =
        pipe_resample_read(in, h, w, channels, ch, y0 + 1, x0, border, fill);
    float a11 =
        pipe_resample_read(in, h, w, channels, ch, y0 + 1, x0 + 1, border, fill);
    float top = (1.0f - fx) * a00 + fx * a01;
    float bottom = (1.0f - fx) * a10 + fx * a11;
    out[ch] = pipe_cast<Out>((1.0f - fy) * top + fy * bottom);
  }
}

#endif // PIPE_CORE_PIPERESAMPLE_H
