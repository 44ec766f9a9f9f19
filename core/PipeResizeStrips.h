//===- PipeResizeStrips.h - Separable resizes a strip a warp ---*- C++ -*-===//
//
// The resample family's fast kernel for separable resizes (antialiased
// linear, cubic, lanczos) whose channels the kernel knows, pasted after
// PipeResizeTiles.h. A warp takes 32 output columns of one sample and walks
// down PIPE_RESIZE_STRIP_ROWS output rows of them, with no block-wide
// barrier: the tiled kernel (pipe_resize_tiles) spent a quarter of its
// time waiting at its phases' barriers (bench/NOTES.md). For each output
// row the warp sums the input columns its pixels read down the row's
// vertical taps, a word of input a lane read straight from global memory
// (the rows it reads again for the next output row stay in L1 and L2), into
// the warp's shared row; then each lane sums its own pixel's horizontal
// taps from that row. The same sums, in the same order, as
// pipe_resample_pixel's: the results are the reference's bit for bit. The
// host half says when it may run (pipe_resize_strips_fit).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPERESIZESTRIPS_H
#define PIPE_CORE_PIPERESIZESTRIPS_H

/// Output rows a warp takes at a time (their vertical taps are found once,
/// a row a lane), and the most taps an axis may have.
#define PIPE_RESIZE_STRIP_ROWS 32
#define PIPE_RESIZE_STRIP_TAPS 16
/// The input values a warp's row of column sums holds (the input columns
/// 32 output pixels read, times the channels).
#define PIPE_RESIZE_STRIP_VALUES 384

/// Whether pipe_resize_strips may resize h x w images of `channels` (or
/// regions inside them: they are checked to lie in the image before the
/// resize runs) to oh x ow, for values of `valueBytes` bytes: every axis
/// has at most PIPE_RESIZE_STRIP_TAPS taps, 32 pixels' input columns fit a
/// warp's row of sums, and a row of the input is whole 4-byte words (the
/// kernel reads aligned words; the launcher checks the tensor's address).
/// Conservative: the scales get a margin over f32 rounding.
PIPE_HD bool pipe_resize_strips_fit(long long h, long long w,
                                    long long channels, long long oh,
                                    long long ow, int interp, bool antialias,
                                    int valueBytes) {
  pipe_resize_reach reach;
  if (channels > 4 ||
      !pipe_resize_reach_of(h, w, channels, oh, ow, interp, antialias,
                            valueBytes, &reach))
    return false;
  if (valueBytes < 4 && (w * channels * valueBytes) % 4 != 0)
    return false;
  const double sx = reach.sx;
  const double supportX = reach.supportX, supportY = reach.supportY;
  // An axis's taps: at most 2 x support + 1 (pipe_resample_axis_of
  // truncates both ends), one more for slack.
  if (2.0 * supportX + 2.0 > (double)PIPE_RESIZE_STRIP_TAPS ||
      2.0 * supportY + 2.0 > (double)PIPE_RESIZE_STRIP_TAPS)
    return false;
  const double values = valueBytes < 4 ? 4.0 / valueBytes : 1.0;
  // The columns 32 pixels read: 31 scales apart, each 2 x support + 1
  // wide; two more for slack, and a group a side for the words' alignment.
  const double span =
      (31.0 * sx + 2.0 * supportX + 3.0) * (double)channels + 2.0 * values;
  return span <= (double)PIPE_RESIZE_STRIP_VALUES;
}

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
/// What a warp of pipe_resize_strips keeps in shared memory: its rows'
/// vertical taps, its lanes' horizontal weights (a lane's column of wx: in
/// registers they spilled) and its row of column sums.
struct pipe_resize_strip_shared {
  float wy[PIPE_RESIZE_STRIP_ROWS][PIPE_RESIZE_STRIP_TAPS];
  float wx[PIPE_RESIZE_STRIP_TAPS][32];
  int fy[PIPE_RESIZE_STRIP_ROWS], ny[PIPE_RESIZE_STRIP_ROWS];
  alignas(16) float sums[PIPE_RESIZE_STRIP_VALUES];
};

/// The least and the most of `lo` and `hi` over the warp.
__device__ __forceinline__ void pipe_resize_warp_span(int *lo, int *hi) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const int a = __shfl_xor_sync(0xffffffffu, *lo, offset);
    const int b = __shfl_xor_sync(0xffffffffu, *hi, offset);
    *lo = a < *lo ? a : *lo;
    *hi = b > *hi ? b : *hi;
  }
}

/// Group `g` of a row of groups (pipe_resize_group<T>), read through the
/// read-only path.
template <typename T>
__device__ __forceinline__ pipe_resize_group<T>
pipe_resize_strip_load(const void *row, int g) {
  pipe_resize_group<T> u;
  if (sizeof(T) < 4)
    u.word = __ldg((const unsigned int *)row + g);
  else
    u.v[0] = ((const T *)row)[g];
  return u;
}

/// A separable resize (pipe_resample_separable) of `rows` / oh samples of
/// h x w x C, by warps: each takes units of 32 output columns and
/// PIPE_RESIZE_STRIP_ROWS output rows of a sample (columns fastest, so the
/// warps of a block share their input rows in L1), `s` its own
/// pipe_resize_strip_shared. The launcher has made sure the resize fits
/// (pipe_resize_strips_fit) and the input is aligned to 4 bytes.
template <int C, typename T, typename Out, typename Epi>
__device__ void pipe_resize_strips(const T *in, const float *param, Out *out,
                                   long long rows, long long h, long long w,
                                   long long oh, long long ow,
                                   long long divisor, int interp,
                                   bool antialias, const Epi &epi,
                                   pipe_resize_strip_shared *shared) {
  typedef pipe_resize_group<T> Group;
  const int values = Group::values;
  const int slots = PIPE_RESIZE_STRIP_VALUES / values / 32;
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  pipe_resize_strip_shared &s = shared[threadIdx.x >> 5];
  const long long samples = rows / oh, pitch = w * C;
  // A row of the input in groups (whole words: pipe_resize_strips_fit).
  const long long rowGroups = sizeof(T) < 4 ? pitch / values : pitch;
  const long long strips = (ow + 31) / 32;
  const long long segments =
      (oh + PIPE_RESIZE_STRIP_ROWS - 1) / PIPE_RESIZE_STRIP_ROWS;
  const long long units = samples * segments * strips;
  for (long long unit = (long long)blockIdx.x * warps + (threadIdx.x >> 5);
       unit < units; unit += (long long)gridDim.x * warps) {
    const long long strip = unit % strips;
    const long long segment = unit / strips % segments;
    const long long sample = unit / (strips * segments);
    const float *p =
        pipe_resample_param(param, PIPE_RESAMPLE_RESIZE, sample, divisor);
    const pipe_affine a =
        pipe_resample_matrix(PIPE_RESAMPLE_RESIZE, p, h, w, oh, ow);
    const pipe_box box = pipe_resample_region(PIPE_RESAMPLE_RESIZE, p, h, w);
    // This lane's column: its taps, the weights into `s`.
    const long long ox = strip * 32 + lane;
    const bool active = ox < ow;
    __syncwarp(); // the last unit is done with `s`
    int nx = 0, fx = 0;
    if (active) {
      long long first;
      float weights[PIPE_RESIZE_STRIP_TAPS];
      nx = pipe_resample_taps(ox, ow, a.m[0], a.m[2], box.x0, box.x1, interp,
                              antialias, &first, weights,
                              PIPE_RESIZE_STRIP_TAPS);
      fx = (int)first;
      for (int j = 0; j < nx; ++j)
        s.wx[j][lane] = weights[j];
    }
    // The input columns the warp reads, as groups of its rows.
    int c0 = nx > 0 ? fx : 0x7fffffff;
    int c1 = nx > 0 ? fx + nx : -1;
    pipe_resize_warp_span(&c0, &c1);
    const int groupStart = c1 > c0 ? c0 * C / values : 0;
    const int shift = c1 > c0 ? c0 * C - groupStart * values : 0;
    const int groups =
        c1 > c0 ? (c1 * C - groupStart * values + values - 1) / values : 0;
    // The segment's rows: their vertical taps, a row a lane.
    const long long oy0 = segment * PIPE_RESIZE_STRIP_ROWS;
    const int count = (int)(oh - oy0 < PIPE_RESIZE_STRIP_ROWS
                                ? oh - oy0
                                : PIPE_RESIZE_STRIP_ROWS);
    if (lane < count) {
      long long first;
      s.ny[lane] = pipe_resample_taps(oy0 + lane, oh, a.m[4], a.m[5], box.y0,
                                      box.y1, interp, antialias, &first,
                                      s.wy[lane], PIPE_RESIZE_STRIP_TAPS);
      s.fy[lane] = (int)first;
    }
    __syncwarp();
    const T *image = in + sample * h * pitch;
    for (int r = 0; r < count; ++r) {
      // Down the vertical taps: sums[k], input value k of the span.
      const int ny = s.ny[r];
      const float *wy = s.wy[r];
      const unsigned char *top =
          (const unsigned char *)(image + (long long)s.fy[r] * pitch) +
          (long long)groupStart * (sizeof(T) < 4 ? 4 : sizeof(T));
      // (Computed here, not hoisted out of the unit loop: hoisted, it
      // stayed live across it and spilled 32 bytes more.)
      const long long rowBytes =
          rowGroups * (long long)(sizeof(T) < 4 ? 4 : sizeof(T));
      float column[slots][values];
#pragma unroll
      for (int k = 0; k < slots; ++k)
#pragma unroll
        for (int v = 0; v < values; ++v)
          column[k][v] = 0.0f;
      // Two taps' words in flight before any is used, every slot's (a
      // lane past the span reads the span's last group, not used): with
      // each load in its own branch, a row waited for them one by one.
      for (int j = 0; j < ny; j += 2) {
        const bool pair = j + 1 < ny;
        const unsigned char *line = top + j * rowBytes;
        Group u[2][slots];
#pragma unroll
        for (int k = 0; k < slots; ++k) {
          const int g = lane + 32 * k < groups ? lane + 32 * k : groups - 1;
          if (32 * k < groups) {
            u[0][k] = pipe_resize_strip_load<T>(line, g);
            if (pair)
              u[1][k] = pipe_resize_strip_load<T>(line + rowBytes, g);
          }
        }
#pragma unroll
        for (int t = 0; t < 2; ++t) {
          if (t == 1 && !pair)
            break;
          const float weight = wy[j + t];
#pragma unroll
          for (int k = 0; k < slots; ++k)
            if (32 * k < groups)
#pragma unroll
              for (int v = 0; v < values; ++v)
                column[k][v] = pipe_resample_madd(
                    column[k][v], weight, pipe_resize_value(u[t][k], v));
        }
      }
#pragma unroll
      for (int k = 0; k < slots; ++k) {
        const int g = lane + 32 * k;
        if (g < groups) {
          float *sum = s.sums + g * values;
          if (values == 4)
            *(float4 *)sum = make_float4(column[k][0],
                                         column[k][values > 1 ? 1 : 0],
                                         column[k][values > 2 ? 2 : 0],
                                         column[k][values > 3 ? 3 : 0]);
          else
#pragma unroll
            for (int v = 0; v < values; ++v)
              sum[v] = column[k][v];
        }
      }
      __syncwarp();
      // Along this lane's horizontal taps.
      if (active) {
        const float *taps = s.sums + shift + (fx - c0) * C;
        float acc[C];
#pragma unroll
        for (int ch = 0; ch < C; ++ch)
          acc[ch] = 0.0f;
#pragma unroll 2
        for (int j = 0; j < nx; ++j) {
          const float weight = s.wx[j][lane];
#pragma unroll
          for (int ch = 0; ch < C; ++ch)
            acc[ch] = pipe_resample_madd(acc[ch], weight, taps[j * C + ch]);
        }
        const long long oy = oy0 + r;
        if (Epi::enabled) {
#pragma unroll
          for (int ch = 0; ch < C; ++ch)
            epi.store(sample, oy, ox, ch, pipe_cast<Out>(acc[ch]));
        } else {
          Out *pixel = out + ((sample * oh + oy) * ow + ox) * C;
#pragma unroll
          for (int ch = 0; ch < C; ++ch)
            pixel[ch] = pipe_cast<Out>(acc[ch]);
        }
      }
      __syncwarp(); // the sums are read before the next row's
    }
  }
}
#endif

#endif // PIPE_CORE_PIPERESIZESTRIPS_H
