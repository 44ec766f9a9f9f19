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
// taps from that row. The vertical sums take the taps two rows at a
// time, the next pair's words loaded before this pair's sums (across
// output rows too), as straight code for the span's width
// (pipe_resize_strip_rows); the profile that led there is in
// bench/NOTES.md. The same sums, in the same order, as
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
/// warp's row of sums, a row of the input is whole 4-byte words (the
/// kernel reads aligned words; the launcher checks the tensor's address)
/// and a sample is under 2 GiB.
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
  // A sample's bytes in an int (the kernel's offsets).
  if ((double)h * (double)w * (double)channels * (double)valueBytes >
      2147483647.0 - 64.0)
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
/// vertical taps (an odd count padded with a weight of 0), where each
/// row's first tap starts, its lanes' horizontal weights (a lane's column
/// of wx: in registers they spilled) and its row of column sums.
struct pipe_resize_strip_shared {
  alignas(8) float wy[PIPE_RESIZE_STRIP_ROWS][PIPE_RESIZE_STRIP_TAPS];
  float wx[PIPE_RESIZE_STRIP_TAPS][32];
  int top[PIPE_RESIZE_STRIP_ROWS], ny[PIPE_RESIZE_STRIP_ROWS];
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

/// The group (pipe_resize_group<T>) at `at`: a word of narrower values
/// through the read-only path, a wider value plainly.
template <typename T>
__device__ __forceinline__ pipe_resize_group<T>
pipe_resize_strip_load(const unsigned char *at) {
  pipe_resize_group<T> u;
  if (sizeof(T) < 4)
    u.word = __ldg((const unsigned int *)at);
  else
    u.v[0] = *(const T *)at;
  return u;
}

/// A group of zeros where `keep` is false (a padded tap's values: 0 x 0
/// adds exactly nothing to a sum, where 0 x inf would not).
template <typename T>
__device__ __forceinline__ pipe_resize_group<T>
pipe_resize_strip_keep(pipe_resize_group<T> u, bool keep) {
  if (sizeof(T) < 4)
    u.word = keep ? u.word : 0u;
  else
    u.v[0] = keep ? u.v[0] : pipe_cast<T>(0.0f);
  return u;
}

/// Value `v` of a group as a float (pipe_resize_value), the u8 exponent
/// word `magic` (0x4B000000) passed in a register: as a constant, the
/// compiler made each byte's selector a register instead, again before
/// every use (a third more instructions in the vertical sums).
template <typename T>
__device__ __forceinline__ float
pipe_resize_strip_value(const pipe_resize_group<T> &u, int v, unsigned) {
  return pipe_resize_value(u, v);
}
template <>
__device__ __forceinline__ float pipe_resize_strip_value<unsigned char>(
    const pipe_resize_group<unsigned char> &u, int v, unsigned magic) {
  return __int_as_float((int)__byte_perm(u.word, magic, 0x7440 + v)) -
         8388608.0f;
}

/// Where a strip's unit stands: its sample's image, in bytes, the warp's
/// span of each input row (`groups` groups from each row's s.top) and the
/// lane's pixel (its horizontal taps from s.sums + `taps`, its output at
/// `pixel`, or through the epilogue at (sample, oy0 + r, ox)).
template <typename Out> struct pipe_resize_strip_unit {
  const unsigned char *image;
  int rowBytes, groups, count, nx, taps;
  bool active;
  int sample, oy0, ox;
  Out *pixel;
  int pixelStep;
};

/// The rows of a unit (pipe_resize_strips), with a span of at most
/// SLOTS x 32 groups: SLOTS a template argument so that the loads and
/// sums of a tap are straight code, every lane loading every slot's group
/// (its own or, past the span, the span's last: in the image, not used).
/// Taps go by pairs, an odd count's last paired with a weight of 0 (and
/// values of 0: pipe_resize_strip_keep) on its own row again: the sums
/// are the reference's bit for bit (a sum starting at +0 is never -0, so
/// adding 0 x 0 leaves it as it was).
template <int SLOTS, int C, typename T, typename Out, typename Epi>
__device__ __forceinline__ void
pipe_resize_strip_rows(const pipe_resize_strip_unit<Out> &unit, const Epi &epi,
                       pipe_resize_strip_shared &s) {
  typedef pipe_resize_group<T> Group;
  const int values = Group::values;
  const int groupBytes = sizeof(T) < 4 ? 4 : (int)sizeof(T);
  const int lane = threadIdx.x & 31;
  const int rowBytes = unit.rowBytes;
  // (A span of no groups, where no lane has taps, reads the row's first.)
  const int last = unit.groups > 0 ? unit.groups - 1 : 0;
  int at[SLOTS];
#pragma unroll
  for (int k = 0; k < SLOTS; ++k)
    at[k] = (lane + 32 * k < last ? lane + 32 * k : last) * groupBytes;
  Out *pixel = unit.pixel;
  // (From a shuffle, which the compiler does not fold into a constant.)
  const unsigned magic = __shfl_sync(0xffffffffu, 0x4B000000u, 0);
  // The groups of a pair of taps, loaded one pair ahead of their use
  // along the unit's rows (the last pair of a row loads the next row's
  // first): each warp keeps two pairs' loads in flight, and the next
  // row's wait overlaps this row's horizontal sums.
  Group pair[2][SLOTS];
  auto load = [&](int r, int j) {
    const int ny = s.ny[r];
    const unsigned char *line = unit.image + s.top[r] + j * rowBytes;
    const unsigned char *next = j + 1 < ny ? line + rowBytes : line;
#pragma unroll
    for (int k = 0; k < SLOTS; ++k) {
      pair[0][k] = pipe_resize_strip_load<T>(line + at[k]);
      pair[1][k] = pipe_resize_strip_load<T>(next + at[k]);
    }
  };
  load(0, 0);
  for (int r = 0; r < unit.count; ++r) {
    // Down the vertical taps: sums[k], input value k of the span.
    const int ny = s.ny[r];
    const float *wy = s.wy[r];
    float column[SLOTS][values];
#pragma unroll
    for (int k = 0; k < SLOTS; ++k)
#pragma unroll
      for (int v = 0; v < values; ++v)
        column[k][v] = 0.0f;
    for (int j = 0; j < ny; j += 2) {
      const bool both = j + 1 < ny;
      Group u[2][SLOTS];
#pragma unroll
      for (int k = 0; k < SLOTS; ++k) {
        u[0][k] = pair[0][k];
        u[1][k] = pipe_resize_strip_keep(pair[1][k], both);
      }
      // The next pair: this row's, the next row's first, or (after the
      // unit's last) this one again.
      if (j + 2 < ny)
        load(r, j + 2);
      else
        load(r + 1 < unit.count ? r + 1 : r, 0);
      const float2 weight = *(const float2 *)(wy + j);
#pragma unroll
      for (int k = 0; k < SLOTS; ++k)
#pragma unroll
        for (int v = 0; v < values; ++v) {
          column[k][v] = pipe_resample_madd(
              column[k][v], weight.x, pipe_resize_strip_value(u[0][k], v, magic));
          column[k][v] = pipe_resample_madd(
              column[k][v], weight.y, pipe_resize_strip_value(u[1][k], v, magic));
        }
    }
    if (ny == 0) // (a row with no taps: the pair loaded for it is the next's)
      load(r + 1 < unit.count ? r + 1 : r, 0);
#pragma unroll
    for (int k = 0; k < SLOTS; ++k) {
      const int g = lane + 32 * k;
      if (g < unit.groups) {
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
    if (unit.active) {
      const float *taps = s.sums + unit.taps;
      float acc[C];
#pragma unroll
      for (int ch = 0; ch < C; ++ch)
        acc[ch] = 0.0f;
#pragma unroll 2
      for (int j = 0; j < unit.nx; ++j) {
        const float weight = s.wx[j][lane];
#pragma unroll
        for (int ch = 0; ch < C; ++ch)
          acc[ch] = pipe_resample_madd(acc[ch], weight, taps[j * C + ch]);
      }
      if (Epi::enabled) {
#pragma unroll
        for (int ch = 0; ch < C; ++ch)
          epi.store(unit.sample, unit.oy0 + r, unit.ox, ch,
                    pipe_cast<Out>(acc[ch]));
      } else {
#pragma unroll
        for (int ch = 0; ch < C; ++ch)
          pixel[ch] = pipe_cast<Out>(acc[ch]);
      }
    }
    pixel += unit.pixelStep;
    __syncwarp(); // the sums are read before the next row's
  }
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
  const int groupBytes = sizeof(T) < 4 ? 4 : (int)sizeof(T);
  // The most groups a span takes, in slots of 32 (3 for u8).
  const int slots = PIPE_RESIZE_STRIP_VALUES / values / 32;
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  pipe_resize_strip_shared &s = shared[threadIdx.x >> 5];
  // Units, samples and coordinates in ints (the launcher keeps the
  // units at most 2^30): 64-bit ones took registers the loads needed.
  const long long pitch = w * C;
  const int strips = (int)((ow + 31) / 32);
  const int segments =
      (int)((oh + PIPE_RESIZE_STRIP_ROWS - 1) / PIPE_RESIZE_STRIP_ROWS);
  const int units = (int)(rows / oh) * segments * strips;
  pipe_resize_strip_unit<Out> unit;
  // A row of the input in bytes (whole groups: pipe_resize_strips_fit,
  // which also keeps a sample's bytes in an int).
  unit.rowBytes = (int)(pitch * (long long)sizeof(T));
  unit.pixelStep = Epi::enabled ? 0 : (int)(ow * C);
  for (int u = blockIdx.x * warps + (threadIdx.x >> 5); u < units;
       u += gridDim.x * warps) {
    const int strip = u % strips;
    const int segment = u / strips % segments;
    const int sample = u / (strips * segments);
    const float *p =
        pipe_resample_param(param, PIPE_RESAMPLE_RESIZE, sample, divisor);
    const pipe_affine a =
        pipe_resample_matrix(PIPE_RESAMPLE_RESIZE, p, h, w, oh, ow);
    const pipe_box box = pipe_resample_region(PIPE_RESAMPLE_RESIZE, p, h, w);
    // This lane's column: its taps, the weights into `s`.
    const int ox = strip * 32 + lane;
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
    const int oy0 = segment * PIPE_RESIZE_STRIP_ROWS;
    const int count = (int)(oh - oy0 < PIPE_RESIZE_STRIP_ROWS
                                ? oh - oy0
                                : PIPE_RESIZE_STRIP_ROWS);
    if (lane < count) {
      long long first;
      const int ny = pipe_resample_taps(oy0 + lane, oh, a.m[4], a.m[5],
                                        box.y0, box.y1, interp, antialias,
                                        &first, s.wy[lane],
                                        PIPE_RESIZE_STRIP_TAPS);
      if (ny & 1)
        s.wy[lane][ny] = 0.0f;
      s.ny[lane] = ny;
      // (A row with no taps still has its first loaded, ahead: row 0.)
      s.top[lane] = (ny > 0 ? (int)first * unit.rowBytes : 0) +
                    groupStart * groupBytes;
    }
    __syncwarp();
    unit.image = (const unsigned char *)(in + (long long)sample * h * pitch);
    unit.groups = groups;
    unit.count = count;
    unit.nx = nx;
    unit.taps = shift + (fx - c0) * C;
    unit.active = active;
    unit.sample = sample;
    unit.oy0 = oy0;
    unit.ox = ox;
    unit.pixel = Epi::enabled || !active
                     ? out
                     : out + (((long long)sample * oh + oy0) * ow + ox) * C;
    // Straight code for spans of a third, two thirds and all of the
    // slots (the warp takes one: its span is the same for every lane).
    const int third = slots / 3 > 0 ? slots / 3 : 1;
    if (groups <= 32 * third)
      pipe_resize_strip_rows<third, C, T>(unit, epi, s);
    else if (groups <= 64 * third)
      pipe_resize_strip_rows<2 * third, C, T>(unit, epi, s);
    else
      pipe_resize_strip_rows<slots, C, T>(unit, epi, s);
  }
}
#endif

#endif // PIPE_CORE_PIPERESIZESTRIPS_H
