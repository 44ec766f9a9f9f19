//===- PipeStencil.h - Gaussian weights and borders -------------*- C++ -*-===//
//
// One definition of how gaussian_blur resolves a sample's window and sigma
// (DALI's rules), computes its weights, and reads past the edges, compiled
// into the blur kernels (pasted after PipeScalar.h) and into the CPU
// reference. Every output element is
//   acc = 0; for j in 0 .. 2 * radius: acc = fmaf(w[j], x[i - radius + j], acc)
// in f32 in that order, one axis at a time, on the GPU as in the reference.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPESTENCIL_H
#define PIPE_CORE_PIPESTENCIL_H

/// What is wrong with a sample's parameters (0: nothing).
enum pipe_blur_error {
  PIPE_BLUR_OK,
  PIPE_BLUR_WINDOW_NOT_POSITIVE,
  PIPE_BLUR_WINDOW_EVEN,
  PIPE_BLUR_SIGMA_NOT_POSITIVE,
  PIPE_BLUR_TOO_LARGE
};

/// The largest radius accepted: a window of 2^24 + 1 taps.
#define PIPE_BLUR_MAX_RADIUS (1 << 23)

/// The blur kernels' geometry (codegen/PipeBlur.cuh); the runtime launches
/// by it (pipert::blurgeometry in runtime/Plan.h, checked against these in
/// codegen/BlurEmitter.cpp).
#define PIPE_BLUR_K 16
#define PIPE_BLUR_ROW_THREADS 64
#define PIPE_BLUR_SEG (PIPE_BLUR_K * PIPE_BLUR_ROW_THREADS)
/// Radii above this take the slow path (weights computed per tap).
#define PIPE_BLUR_RMAX 512
#define PIPE_BLUR_WMAX (2 * PIPE_BLUR_RMAX + 4 + PIPE_BLUR_K)
#define PIPE_BLUR_COL_THREADS_Y 8
/// Radii up to this stage a column tile in shared memory.
#define PIPE_BLUR_COL_RMAX 80
#define PIPE_BLUR_COL_ROWS (PIPE_BLUR_COL_THREADS_Y * PIPE_BLUR_K)
/// Blocks of each pass that must fit on an SM at once (__launch_bounds__):
/// 32 warps, at most 64 registers a thread, so that a change to the
/// kernels cannot lower their occupancy unnoticed (ptxas gave one variant
/// of the strided pass 75 registers: 24 warps).
#define PIPE_BLUR_ROW_MIN_BLOCKS 16
#define PIPE_BLUR_COL_MIN_BLOCKS 4

/// One sample's resolved blur: `norm` is 1 / (sum of the raw weights, see
/// pipe_blur_sum), 1 until it is computed;
/// `window` and `given_sigma` are what the sample was given, for errors.
struct pipe_blur_params {
  int radius;
  int error;
  double sigma;
  double norm;
  long long window;
  double given_sigma;
};

PIPE_HD double pipe_blur_raw_weight(double sigma, int offset) {
  double x = (double)offset;
  return exp(-(x * x) / (2.0 * sigma * sigma));
}

/// What a blur reports to the host about its first bad sample: (sample * 8
/// + error), the window and sigma it was given; the host sets all ones
/// (first = ~0) before each run, and the blur writes it only for a bad
/// sample (into mapped pinned memory, so no copy follows the blur).
struct pipe_blur_status {
  unsigned long long first;
  long long window;
  double sigma;
};

/// The device's word of a blur, kept from run to run so that no run has to
/// reset it: (run << PIPE_BLUR_RUN_SHIFT) | (PIPE_BLUR_CODE_MASK - (sample
/// * 8 + error)) for the first bad sample of run `run`, raised by atomicMax
/// (a later run, or a smaller sample of the same run, is larger). A word of
/// an earlier run means no bad sample in this one. Runs are numbered from 1
/// and the runtime zeroes the words when the number wraps.
#define PIPE_BLUR_RUN_SHIFT 40
#define PIPE_BLUR_CODE_MASK ((1ull << PIPE_BLUR_RUN_SHIFT) - 1)

/// DALI's rules: a window only gives radius (w - 1) / 2 and sigma
/// (radius - 1) * 0.3 + 0.8; a sigma only gives radius ceil(3 sigma), with
/// 3 sigma rounded to f32 as DALI's SigmaToDiameter computes it (sigma =
/// 1/3 in f32, a hair above it, gives radius 1, not 2).
PIPE_HD pipe_blur_params pipe_blur_resolve(bool has_window, long long window,
                                           bool has_sigma, double sigma) {
  pipe_blur_params p;
  p.radius = 0;
  p.error = PIPE_BLUR_OK;
  p.sigma = sigma;
  p.norm = 1.0;
  p.window = window;
  p.given_sigma = sigma;
  if (has_window && window < 1)
    p.error = PIPE_BLUR_WINDOW_NOT_POSITIVE;
  else if (has_window && window % 2 == 0)
    p.error = PIPE_BLUR_WINDOW_EVEN;
  else if (has_sigma && !(sigma > 0))
    p.error = PIPE_BLUR_SIGMA_NOT_POSITIVE;
  float triple = (float)sigma * 3.0f;
  if (p.error == PIPE_BLUR_OK &&
      ((has_window && (window - 1) / 2 > PIPE_BLUR_MAX_RADIUS) ||
       (!has_window && !(triple <= (float)PIPE_BLUR_MAX_RADIUS))))
    p.error = PIPE_BLUR_TOO_LARGE;
  if (p.error != PIPE_BLUR_OK)
    return p;
  p.radius = has_window ? (int)((window - 1) / 2) : (int)ceilf(triple);
  if (!has_sigma)
    p.sigma = (p.radius - 1) * 0.3 + 0.8;
  return p;
}

/// The sum of a resolved sample's raw weights, in offset order; from `raw`
/// (raw[j] for offset j - radius) when given, else computed.
PIPE_HD double pipe_blur_sum(const pipe_blur_params &p, const double *raw) {
  double sum = 0;
  for (int j = 0; j <= 2 * p.radius; ++j)
    sum += raw ? raw[j] : pipe_blur_raw_weight(p.sigma, j - p.radius);
  return sum;
}

/// Weight j (0 .. 2 * radius) of a resolved sample, in f32.
PIPE_HD float pipe_blur_weight(const pipe_blur_params &p, int j) {
  return (float)(pipe_blur_raw_weight(p.sigma, j - p.radius) * p.norm);
}

/// The index read for position i of an axis of n elements (n > 0), or -1
/// where a constant border reads the fill value. reflect101 mirrors without
/// repeating the edge (dcb|abcd|cba), as OpenCV's BORDER_REFLECT_101, for
/// any distance past the edge.
template <typename I> PIPE_HD I pipe_border_index_of(I i, I n, int border) {
  if (i >= 0 && i < n)
    return i;
  switch (border) {
  case PIPE_CLAMP:
    return i < 0 ? 0 : n - 1;
  case PIPE_CONSTANT:
    return -1;
  case PIPE_WRAP: {
    // Within one period of the edge (every tap of a window no larger than
    // the axis) without a division.
    if (i < 0 && i >= -n)
      return i + n;
    if (i >= n && i - n < n)
      return i - n;
    I r = i % n;
    return r < 0 ? r + n : r;
  }
  default: {
    if (n == 1)
      return 0;
    // One mirror away from the edge: as below, without a division.
    if (i < 0 && -i < n)
      return -i;
    if (i >= n && i - n < n - 1)
      return 2 * (n - 1) - i;
    I period = 2 * (n - 1);
    I r = i % period;
    if (r < 0)
      r += period;
    return r < n ? r : period - r;
  }
  }
}
PIPE_HD long long pipe_border_index(long long i, long long n, int border) {
  return pipe_border_index_of<long long>(i, n, border);
}
/// The same in 32 bits, for kernels whose lines are shorter than 2^30 (the
/// period of reflect101 is twice the length).
PIPE_HD int pipe_border_index32(int i, int n, int border) {
  return pipe_border_index_of<int>(i, n, border);
}

#endif // PIPE_CORE_PIPESTENCIL_H
