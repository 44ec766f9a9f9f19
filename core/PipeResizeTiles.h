//===- PipeResizeTiles.h - Separable resizes a tile at a time -*- C++ -*-===//
//
// The resample family's kernel for separable resizes (antialiased linear,
// cubic, lanczos: pipe_resample_separable), pasted after PipeResample.h:
// each block takes a run of output tiles, finds their taps once into
// shared memory, copies the input rows they read in aligned words, and
// sums down then across the taps, the same sums in the same order as
// pipe_resample_pixel's. The host half says which of its two entries may
// run (pipe_resize_tiles_fit).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPERESIZETILES_H
#define PIPE_CORE_PIPERESIZETILES_H

/// A separable resize's output tiles (pipe_resize_tile): rows x
/// columns of pixels (every channel), each the work of one block of
/// PIPE_RESIZE_THREADS threads.
#define PIPE_RESIZE_THREADS 256
#define PIPE_RESIZE_TILE_ROWS 8
#define PIPE_RESIZE_TILE_COLS 64
#if PIPE_RESIZE_TILE_COLS > PIPE_RESIZE_THREADS
#error "the horizontal sums take a column a thread (pipe_resize_tile)"
#endif
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

/// A separable resize's scales and filter supports (radius x stretch)
/// along each axis, with a margin over f32 rounding, for the launcher's
/// fit checks (pipe_resize_tiles_fit, pipe_resize_strips_fit): false when a
/// size is not positive or passes 2^24 pixels, where f32 coordinates are
/// whole pixels apart and the margin no longer bounds the device's
/// rounding.
struct pipe_resize_reach {
  double sx, sy, supportX, supportY;
};
PIPE_HD bool pipe_resize_reach_of(long long h, long long w, long long channels,
                                  long long oh, long long ow, int interp,
                                  bool antialias, int valueBytes,
                                  pipe_resize_reach *reach) {
  const long long most = 1ll << 24;
  if (h <= 0 || w <= 0 || oh <= 0 || ow <= 0 || channels <= 0 ||
      valueBytes <= 0 || h > most || w > most || oh > most || ow > most)
    return false;
  reach->sx = (double)w / (double)ow * 1.001 + 1e-3;
  reach->sy = (double)h / (double)oh * 1.001 + 1e-3;
  const double radius = (double)pipe_resample_radius(interp);
  reach->supportX = radius * pipe_resample_stretch(reach->sx, antialias);
  reach->supportY = radius * pipe_resample_stretch(reach->sy, antialias);
  return true;
}

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
  pipe_resize_reach reach;
  if (!pipe_resize_reach_of(h, w, channels, oh, ow, interp, antialias,
                            valueBytes, &reach))
    return false;
  const double sx = reach.sx, sy = reach.sy;
  const double supportX = reach.supportX, supportY = reach.supportY;
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
      // A column a thread, down the rows (`across` rows a pass: n is at
      // most PIPE_RESIZE_TILE_COLS, a quarter of the block): its taps,
      // weights and place in the sums found once, not per pixel.
      const int across = threads / n, x = tid % n;
      const int nx = s.nx[x0 + x];
      const float *wx = s.wx[x0 + x];
      const float *column = s.sums + (int)(s.fx[x0 + x] - c0) * C;
      for (int t = tid / n; t < rows && tid < across * n; t += across) {
        const float *taps = column + t * pitch;
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

#endif // PIPE_CORE_PIPERESIZETILES_H
