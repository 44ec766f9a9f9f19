//===- PipeBlur.cuh - The kernels of gaussian_blur --------------*- C++ -*-===//
//
// Pasted after PipeScalar.h and PipeStencil.h into a blur's generated
// source, which instantiates these templates in extern "C" entries. A blur
// runs `prepare` (each sample's radius, sigma and weight normalizer, and the
// first sample whose window or sigma is wrong, and each sample's weights),
// then one pass per axis. A pass of an axis that is contiguous in memory
// stages a row segment in shared memory and stores through it; a pass of a
// strided axis stages a tile of columns (or, for large radii, reads through
// L1). Both give each thread K consecutive outputs and slide a register
// window over the taps, so that each value loaded feeds K multiply-adds. A
// pass does nothing once prepare found a bad sample in this run: outputs
// stay untouched.
//
// The order of items: the last pass goes forwards, and each pass before it
// BACKWARDS through the items of the pass after it, so that a pass starts
// on the lines its predecessor wrote last, still in L2 (bench/NOTES.md,
// change 21).
//
//===----------------------------------------------------------------------===//

// The kernels' geometry (PIPE_BLUR_K, _SEG, _WMAX, ...) is in PipeStencil.h,
// where the runtime's copy of it is checked.
/// One padding word per 32 keeps the strided reads of a row segment free of
/// bank conflicts (thread t reads word t * K + j).
#define PIPE_BLUR_PAD(j) ((j) + ((j) >> 5))
#define PIPE_BLUR_SPAN (PIPE_BLUR_SEG + 2 * PIPE_BLUR_RMAX + 2 * PIPE_BLUR_K)
/// Loads each thread keeps in flight while staging: 8 measured faster than
/// 16 or 32 on an H100 (bench/NOTES.md, change 18). BlurEmitter may define
/// it first (PIPE_TUNE_BLUR_BATCH, a benchmarking knob).
#ifndef PIPE_BLUR_STAGE_BATCH
#define PIPE_BLUR_STAGE_BATCH 8
#endif

/// Resolves each sample's parameters (one block per sample) and, for radii
/// up to PIPE_BLUR_RMAX, its weights into `weights` (PIPE_BLUR_WMAX per
/// sample), so that the passes only copy them. The blur's device word
/// `bad` (see PIPE_BLUR_RUN_SHIFT) gets run `run`'s smallest (sample * 8 +
/// error); a bad sample also raises the run's guard word `guard` (when not
/// null), which stops the kernels after the blur (pipe_check_failed).
__device__ __forceinline__ void
pipe_blur_prepare(const pipe_i32 *window, const float *sigma,
                  pipe_blur_params *params, float *weights,
                  unsigned long long *bad, unsigned long long *guard,
                  unsigned long long run,
                  long long samples, long long windowPer, long long sigmaPer) {
  __shared__ pipe_blur_params p;
  __shared__ double raw[PIPE_BLUR_WMAX];
  for (long long s = blockIdx.x; s < samples; s += gridDim.x) {
    if (threadIdx.x == 0) {
      long long w = window ? (long long)window[s / windowPer] : 0;
      double sg = sigma ? (double)sigma[s / sigmaPer] : 0.0;
      p = pipe_blur_resolve(window != 0, w, sigma != 0, sg);
      if (p.error != PIPE_BLUR_OK) {
        atomicMax(bad, (run << PIPE_BLUR_RUN_SHIFT) |
                           (PIPE_BLUR_CODE_MASK -
                            ((unsigned long long)s * 8 +
                             (unsigned long long)p.error)));
        if (guard)
          atomicMax(guard, run << PIPE_GUARD_RUN_SHIFT);
      }
    }
    __syncthreads();
    const bool staged = p.error == PIPE_BLUR_OK && p.radius <= PIPE_BLUR_RMAX;
    // The raw weights in parallel; their sum in order, as the reference.
    if (staged)
      for (int j = threadIdx.x; j <= 2 * p.radius; j += blockDim.x)
        raw[j] = pipe_blur_raw_weight(p.sigma, j - p.radius);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (p.error == PIPE_BLUR_OK)
        p.norm = staged ? 1.0 / pipe_blur_sum(p, raw) : 1.0 / pipe_blur_sum(p, 0);
      params[s] = p;
    }
    __syncthreads();
    if (staged)
      for (int j = threadIdx.x; j <= 2 * p.radius; j += blockDim.x)
        weights[s * PIPE_BLUR_WMAX + j] = (float)(raw[j] * p.norm);
    __syncthreads();
  }
}

/// Whether a pass must stop because some sample of run `run` is bad; block
/// 0 of the first pass then reports that sample and what it was given.
/// Code 0 (sample 0, no error) is a guarded prepare's: a kernel before the
/// blur failed, and prepare resolved no sample, so none is read.
__device__ __forceinline__ bool
pipe_blur_failed(const pipe_blur_params *params, const unsigned long long *bad,
                 pipe_blur_status *report, unsigned long long run, bool first) {
  const unsigned long long word = *bad;
  if (word >> PIPE_BLUR_RUN_SHIFT != run)
    return false;
  if (first && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 &&
      threadIdx.x == 0 && threadIdx.y == 0) {
    const unsigned long long code =
        PIPE_BLUR_CODE_MASK - (word & PIPE_BLUR_CODE_MASK);
    if (code != 0) {
      const pipe_blur_params &p = params[code / 8];
      report->window = p.window;
      report->sigma = p.given_sigma;
    }
    report->first = code;
  }
  return true;
}

/// store(first + j, from[j * stride]) for j = 0 .. count - 1, each thread
/// taking j = t, t + step, ...: values known to be inside the tensor, so no
/// border rule and no bounds check; 32-bit offsets (the runtime refuses
/// lines, and blocks of lines, of 2^31 elements or more); a batch of loads
/// in flight at a time, unconditional but for the last batch, whose loads
/// are predicated (so they are in flight together too).
template <typename Tin, typename Store>
__device__ __forceinline__ void pipe_blur_stage_inside(const Tin *from,
                                                       int stride, int count,
                                                       int first, int t,
                                                       int step, Store store) {
  constexpr int B = PIPE_BLUR_STAGE_BATCH;
  const int jump = step * stride;
  int j = t;
  for (; j + (B - 1) * step < count; j += B * step) {
    const int offset = j * stride;
    float v[B];
#pragma unroll
    for (int u = 0; u < B; ++u)
      v[u] = pipe_cast<float>(from[offset + u * jump]);
#pragma unroll
    for (int u = 0; u < B; ++u)
      store(first + j + u * step, v[u]);
  }
  if (j < count) {
    const int offset = j * stride;
    float v[B];
#pragma unroll
    for (int u = 0; u < B; ++u)
      v[u] = j + u * step < count ? pipe_cast<float>(from[offset + u * jump])
                                  : 0.f;
#pragma unroll
    for (int u = 0; u < B; ++u)
      if (j + u * step < count)
        store(first + j + u * step, v[u]);
  }
}

/// Copies sample `p`'s weights (`taps` of them) into shared `w`.
__device__ __forceinline__ void pipe_blur_load_weights(float *w,
                                                       const float *weights,
                                                       int taps, int t,
                                                       int threads) {
  for (int j = t; j < taps; j += threads)
    w[j] = weights[j];
}

/// acc[k] += w[jj] * x(k + jj) for jj < n (all K unless PARTIAL), where
/// x(0 .. K-1) is `lo` and x(K .. 2K-1) is `hi`: K multiply-adds per value
/// loaded, four weights per (broadcast) shared-memory load.
template <bool PARTIAL>
__device__ __forceinline__ void pipe_blur_fma(float (&acc)[PIPE_BLUR_K],
                                              const float *w,
                                              const float (&lo)[PIPE_BLUR_K],
                                              const float (&hi)[PIPE_BLUR_K],
                                              int n) {
  constexpr int K = PIPE_BLUR_K;
#pragma unroll
  for (int q = 0; q < K / 4; ++q) {
    if (PARTIAL && q * 4 >= n)
      break;
    const float4 w4 = reinterpret_cast<const float4 *>(w)[q];
    const float ws[4] = {w4.x, w4.y, w4.z, w4.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int jj = q * 4 + e;
      if (PARTIAL && jj >= n)
        break;
#pragma unroll
      for (int k = 0; k < K; ++k)
        acc[k] = fmaf(ws[e], k + jj < K ? lo[k + jj] : hi[k + jj - K], acc[k]);
    }
  }
}

/// acc[k] = sum over j < taps of w[j] * x(k + j), in j order, where
/// `group(first, dst)` loads x(first .. first + K - 1) (`first` a multiple
/// of K). Groups alternate between two register arrays, so nothing is
/// moved between them. `w` is 16-byte aligned shared memory with room for
/// the taps rounded up to K.
template <typename Group>
__device__ __forceinline__ void pipe_blur_taps(float (&acc)[PIPE_BLUR_K],
                                               int taps, const float *w,
                                               Group group) {
  constexpr int K = PIPE_BLUR_K;
  float a[K], b[K];
#pragma unroll
  for (int m = 0; m < K; ++m)
    acc[m] = 0.f;
  group(0, a);
  const int groups = taps / K, rem = taps - groups * K;
  int g = 0;
  for (; g + 1 < groups; g += 2) {
    group((g + 1) * K, b);
    pipe_blur_fma<false>(acc, w + g * K, a, b, K);
    group((g + 2) * K, a);
    pipe_blur_fma<false>(acc, w + (g + 1) * K, b, a, K);
  }
  if (g < groups) {
    group((g + 1) * K, b);
    pipe_blur_fma<false>(acc, w + g * K, a, b, K);
    if (rem > 0) {
      group((g + 2) * K, a);
      pipe_blur_fma<true>(acc, w + (g + 1) * K, b, a, rem);
    }
  } else if (rem > 0) {
    group((g + 1) * K, b);
    pipe_blur_fma<true>(acc, w + g * K, a, b, rem);
  }
}

/// Output i of a line of `length` values read through `at`, with weights
/// computed per tap: for radii beyond PIPE_BLUR_RMAX.
template <int BORDER, typename At>
__device__ __forceinline__ float pipe_blur_slow(const pipe_blur_params &p,
                                                long long i, long long length,
                                                float fill, At at) {
  float acc = 0.f;
  for (int j = 0; j <= 2 * p.radius; ++j) {
    long long k = pipe_border_index(i - p.radius + j, length, BORDER);
    acc = fmaf(pipe_blur_weight(p, j), k < 0 ? fill : at(k), acc);
  }
  return acc;
}

/// A pass along the last (contiguous) dim: `outer` lines of `length`.
/// 64 threads; each block item is a segment of 1024 outputs of one line.
template <typename Tin, typename Tout, int BORDER, bool BACKWARDS>
__device__ __forceinline__ void
pipe_blur_rows(const Tin *__restrict__ in, Tout *__restrict__ out,
               const pipe_blur_params *__restrict__ params,
               const float *__restrict__ weights, const unsigned long long *bad,
               pipe_blur_status *report, unsigned long long run, bool first,
               long long outer, long long length, long long perSample,
               float fill) {
  constexpr int K = PIPE_BLUR_K, SEG = PIPE_BLUR_SEG;
  __shared__ __align__(16) float w[PIPE_BLUR_WMAX];
  __shared__ float s[PIPE_BLUR_PAD(PIPE_BLUR_SPAN) + 1];
  if (pipe_blur_failed(params, bad, report, run, first))
    return;
  const long long segs = (length + SEG - 1) / SEG;
  const int t = threadIdx.x;
  // Lines that start 16-byte aligned take vector stores (the same for the
  // whole launch, so the barriers below stay uniform).
  const bool vectorStores =
      (unsigned long long)out % 16 == 0 &&
      (length * (long long)sizeof(Tout)) % 16 == 0 && (K * sizeof(Tout)) % 16 == 0;
  // One item per block when the grid is (segments, lines) (lines over y
  // and z, blocks past the last line idle): the block's coordinates, no
  // division. Otherwise a flat grid over the items.
  const long long line = blockIdx.y + (long long)blockIdx.z * gridDim.y;
  const bool gridded =
      gridDim.x == segs && (long long)gridDim.y * gridDim.z >= outer;
  const long long items = gridded ? (line < outer ? 1 : 0) : outer * segs;
  for (long long item0 = gridded ? 0 : blockIdx.x; item0 < items;
       item0 += gridDim.x) {
    long long o, segment;
    if (gridded) {
      segment = BACKWARDS ? segs - 1 - blockIdx.x : blockIdx.x;
      o = BACKWARDS ? outer - 1 - line : line;
    } else {
      const long long item = BACKWARDS ? items - 1 - item0 : item0;
      o = item / segs;
      segment = item % segs;
    }
    const long long seg0 = segment * SEG;
    const long long sample = o / perSample;
    const pipe_blur_params p = params[sample];
    const int r = p.radius, taps = 2 * r + 1;
    const Tin *line = in + o * length;
    Tout *outLine = out + o * length;
    if (r > PIPE_BLUR_RMAX) {
      for (long long i = seg0 + t; i < length && i < seg0 + SEG; i += blockDim.x)
        outLine[i] = pipe_cast<Tout>(pipe_blur_slow<BORDER>(
            p, i, length, fill,
            [&](long long k) { return pipe_cast<float>(line[k]); }));
      continue;
    }
    __syncthreads(); // the last item's reads of w and s are done
    pipe_blur_load_weights(w, weights + sample * PIPE_BLUR_WMAX, taps, t,
                           blockDim.x);
    // 32-bit positions: the runtime refuses lines of 2^31 elements or more.
    // The taps read positions [0, used); the last 2K of the span are only
    // loaded into the register window, never multiplied: zeros.
    const int span = SEG + 2 * r + 2 * K, used = SEG + 2 * r,
              x0 = int(seg0) - r;
    auto store = [&](int j, float v) { s[PIPE_BLUR_PAD(j)] = v; };
    // Positions [lo, hi) are inside the line; the halo past either end
    // follows the border rule (in 32 bits while lines are under 2^30).
    const int lo = min(max(-x0, 0), used);
    const int hi = max(lo, (int)min((long long)used, length - x0));
    pipe_blur_stage_inside(line + x0 + lo, 1, hi - lo, lo, t, blockDim.x, store);
    const bool narrow = length < (1ll << 30);
    auto border = [&](int j) {
      long long k = narrow ? pipe_border_index32(x0 + j, int(length), BORDER)
                           : pipe_border_index(x0 + j, length, BORDER);
      store(j, k < 0 ? fill : pipe_cast<float>(line[k]));
    };
    for (int j = t; j < lo; j += blockDim.x)
      border(j);
    for (int j = hi + t; j < used; j += blockDim.x)
      border(j);
    for (int j = used + t; j < span; j += blockDim.x)
      store(j, 0.f);
    __syncthreads();
    const int base = t * K;
    float acc[K];
    // base + first is a multiple of 16, so a group never straddles a pad.
    pipe_blur_taps(acc, taps, w, [&](int first, float(&dst)[K]) {
      const float *p = s + PIPE_BLUR_PAD(base + first);
#pragma unroll
      for (int m = 0; m < K; ++m)
        dst[m] = p[m];
    });
    if (vectorStores) {
      // Each thread's K consecutive outputs in 16-byte stores.
      Tout values[K];
#pragma unroll
      for (int k = 0; k < K; ++k)
        values[k] = pipe_cast<Tout>(acc[k]);
      const long long i0 = seg0 + base;
      if (i0 + K <= length)
        pipe_store_vec(outLine + i0, values);
      else
        for (int k = 0; k < K && i0 + k < length; ++k)
          outLine[i0 + k] = values[k];
      continue;
    }
    // Otherwise through shared memory, so that the stores are coalesced.
    __syncthreads();
#pragma unroll
    for (int k = 0; k < K; ++k)
      s[PIPE_BLUR_PAD(base + k)] = acc[k];
    __syncthreads();
    for (int j = t; j < SEG && seg0 + j < length; j += blockDim.x)
      outLine[seg0 + j] = pipe_cast<Tout>(s[PIPE_BLUR_PAD(j)]);
  }
}

/// A pass along a strided dim: `outer` blocks of `length` x `inner` values.
/// 32 x 8 threads; each block item is 32 inner positions by 128 outputs. For
/// radii up to PIPE_BLUR_COL_RMAX the item's rows (with the halo) are staged
/// in shared memory, read coalesced; larger radii read through L1, one tap
/// at a time.
template <typename Tin, typename Tout, int BORDER, bool BACKWARDS>
__device__ __forceinline__ void
pipe_blur_cols(const Tin *__restrict__ in, Tout *__restrict__ out,
               const pipe_blur_params *__restrict__ params,
               const float *__restrict__ weights, const unsigned long long *bad,
               pipe_blur_status *report, unsigned long long run, bool first,
               long long outer, long long length, long long inner,
               long long perSample, float fill) {
  constexpr int K = PIPE_BLUR_K, ROWS = PIPE_BLUR_COL_ROWS,
                TY = PIPE_BLUR_COL_THREADS_Y;
  __shared__ __align__(16) float w[PIPE_BLUR_WMAX];
  __shared__ float tile[ROWS + 2 * PIPE_BLUR_COL_RMAX + 2 * K][32];
  if (pipe_blur_failed(params, bad, report, run, first))
    return;
  const long long rsegs = (length + ROWS - 1) / ROWS;
  const long long cblocks = (inner + 31) / 32;
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 32 + tx;
  // One item per block when the grid is (column blocks, row segments,
  // blocks of lines): the block's coordinates, no division. Otherwise a
  // flat grid over the items, each block taking every gridDim.x-th.
  const bool gridded = gridDim.x == cblocks && gridDim.y == rsegs &&
                       gridDim.z == outer;
  const long long items = gridded ? 1 : outer * rsegs * cblocks;
  for (long long item0 = gridded ? 0 : blockIdx.x; item0 < items;
       item0 += gridDim.x) {
    long long cb, rseg, o;
    if (gridded) {
      cb = BACKWARDS ? cblocks - 1 - blockIdx.x : blockIdx.x;
      rseg = BACKWARDS ? rsegs - 1 - blockIdx.y : blockIdx.y;
      o = BACKWARDS ? outer - 1 - blockIdx.z : blockIdx.z;
    } else {
      const long long item = BACKWARDS ? items - 1 - item0 : item0;
      const long long rest = item / cblocks;
      cb = item % cblocks;
      rseg = rest % rsegs;
      o = rest / rsegs;
    }
    const long long row0 = rseg * ROWS;
    const long long i0 = row0 + ty * K;
    const long long c = cb * 32 + tx;
    const long long sample = perSample == 1 ? o : o / perSample;
    const pipe_blur_params p = params[sample];
    const int r = p.radius, taps = 2 * r + 1;
    const Tin *column = in + o * length * inner + c;
    Tout *outColumn = out + o * length * inner + c;
    auto at = [&](long long k) { return pipe_cast<float>(column[k * inner]); };
    if (r > PIPE_BLUR_RMAX) {
      if (c < inner)
        for (int k = 0; k < K && i0 + k < length; ++k)
          outColumn[(i0 + k) * inner] = pipe_cast<Tout>(
              pipe_blur_slow<BORDER>(p, i0 + k, length, fill, at));
      continue;
    }
    __syncthreads(); // the last item's reads of w and tile are done
    pipe_blur_load_weights(w, weights + sample * PIPE_BLUR_WMAX, taps, t,
                           32 * TY);
    if (r > PIPE_BLUR_COL_RMAX) {
      __syncthreads();
      for (int k = 0; k < K && c < inner && i0 + k < length; ++k) {
        float acc = 0.f;
        for (int j = 0; j < taps; ++j) {
          long long x = pipe_border_index(i0 + k - r + j, length, BORDER);
          acc = fmaf(w[j], x < 0 ? fill : at(x), acc);
        }
        outColumn[(i0 + k) * inner] = pipe_cast<Tout>(acc);
      }
      continue;
    }
    // Rows row0 - r .. row0 + ROWS + r + 2K of the item's 32 columns (a
    // column past the tensor's edge stages nothing: it stores no output).
    // As in the contiguous pass, the taps read rows [0, used) of the span.
    const int span = ROWS + 2 * r + 2 * K, used = ROWS + 2 * r;
    auto store = [&](int j, float v) { tile[j][tx] = v; };
    if (c < inner) {
      // Rows [lo, hi) of the span are inside the tensor; the halo past
      // either end follows the border rule.
      const long long x0 = row0 - r;
      const int lo = (int)min(max(-x0, 0LL), (long long)used);
      const int hi = max(lo, (int)min((long long)used, length - x0));
      pipe_blur_stage_inside(column + (x0 + lo) * inner, int(inner), hi - lo,
                             lo, ty, TY, store);
      const bool narrow = length < (1ll << 30);
      auto border = [&](int j) {
        long long x = narrow ? pipe_border_index32(int(x0) + j, int(length), BORDER)
                             : pipe_border_index(x0 + j, length, BORDER);
        store(j, x >= 0 ? at(x) : fill);
      };
      for (int j = ty; j < lo; j += TY)
        border(j);
      for (int j = hi + ty; j < used; j += TY)
        border(j);
      for (int j = used + ty; j < span; j += TY)
        store(j, 0.f);
    }
    __syncthreads();
    if (c >= inner || i0 >= length)
      continue;
    float acc[K];
    pipe_blur_taps(acc, taps, w, [&](int g, float(&dst)[K]) {
#pragma unroll
      for (int m = 0; m < K; ++m)
        dst[m] = tile[ty * K + g + m][tx];
    });
    // One 64-bit address, then 32-bit offsets (see the staging).
    Tout *to = outColumn + i0 * inner;
    const int stride = int(inner), valid = int(min((long long)K, length - i0));
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (k < valid)
        to[k * stride] = pipe_cast<Tout>(acc[k]);
  }
}
