"""Kernel shapes for the layout workloads of issue 12, outside Pipe.

Times, with CuPy on the device machine, Pipe's generated kernels (from
`pipec --emit=cuda`, the pipelines below) next to hand-written shapes of the
same work and a copy of the same bytes: which shape should codegen emit, and
how far is each size from the large-copy bandwidth at best? Timing as
BenchUtil.h: L2 flushed before each call, the median of CUDA-event-timed
calls. The generated entries are launched as ElementwiseLauncher would.

    python3 bench/micro/layout_shapes.py [PIPEC]   (default: .device's)
"""
import os
import subprocess
import sys
import types

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PIPEC = os.path.join(ROOT, ".device", "build", "tools", "pipec", "pipec")

# The pipelines whose generated kernels are timed (clamped crop: no check).
PIPELINES = {
    "cmn": """
pipeline crop_mirror_normalize(images: u8[N, H, W, 3], anchor: i32[N, 2], mirror: bool[N]) -> (out: f32[N, 3, 224, 224]) {
  c = crop(images, anchor = anchor, shape = [224, 224], axes = [1, 2], out_of_bounds = clamp)
  f = flip(c, axes = [2], when = mirror)
  out = transpose((f32(f) - [123.675, 116.28, 103.53]) / [58.395, 57.12, 57.375], [0, 3, 1, 2])
}
""",
    "concat": """
pipeline concat(a: u8[N, H, W, 3], b: u8[N, H, W, 3]) -> (c: u8[N, H, W, 6]) {
  c = concat([a, b], axis = 3)
}
""",
    "pad32": """
pipeline pad32(images: u8[N, H, W, 3]) -> (padded: u8[N, 32 * ceil(H / 32), 32 * ceil(W / 32), 3]) {
  padded = pad(images, shape = [32 * ceil(H / 32), 32 * ceil(W / 32)], axes = [1, 2])
}
""",
    "normalize": """
pipeline normalize(images: u8[N, H, W, 3]) -> (out: f32[N, 3, H, W]) {
  out = transpose((f32(images) - [123.675, 116.28, 103.53]) / [58.395, 57.12, 57.375], [0, 3, 1, 2])
}
""",
}
OPTIONS = ("--std=c++17", "--extra-device-vectorization", "--fmad=false")

HAND = r"""
extern "C" __global__ void __launch_bounds__(256)
copy16(const uint4 *__restrict__ in, uint4 *__restrict__ out, unsigned n16) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n16) out[g] = in[g];
}

// u8 -> f32 of n elements, 4 per thread: the bytes of crop_mirror_normalize
// without its index arithmetic.
extern "C" __global__ void __launch_bounds__(256)
cast4(const uchar4 *__restrict__ in, float4 *__restrict__ out, unsigned n4) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n4) {
    uchar4 v = in[g];
    out[g] = make_float4(v.x, v.y, v.z, v.w);
  }
}

// K consecutive outputs of one channel plane per thread.
template <int K>
__device__ void cmn_vec(const unsigned char *__restrict__ in,
                        const int *__restrict__ anchor,
                        const unsigned char *__restrict__ mirror,
                        const float *__restrict__ mean,
                        const float *__restrict__ sd, float *__restrict__ out,
                        unsigned n, int H, int W) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i0 = g * K;
  if (i0 >= n)
    return;
  unsigned x = i0 % 224, r = i0 / 224, y = r % 224;
  r /= 224;
  unsigned c = r % 3, s = r / 3;
  int ay = anchor[2 * s], ax = anchor[2 * s + 1];
  bool m = mirror[s] != 0;
  int yy = min(max(ay + (int)y, 0), H - 1);
  const unsigned char *row = in + (s * H + yy) * W * 3 + c;
  float mu = mean[c], dv = sd[c];
  alignas(16) float o[K];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    int xx = (int)x + j;
    if (m)
      xx = 223 - xx;
    xx = min(max(ax + xx, 0), W - 1);
    o[j] = ((float)row[xx * 3] - mu) / dv;
  }
#pragma unroll
  for (int k = 0; k < K / 4; ++k)
    reinterpret_cast<float4 *>(out + i0)[k] =
        reinterpret_cast<const float4 *>(o)[k];
}

// K pixels x 3 channels per thread.
template <int K>
__device__ void cmn_pix(const unsigned char *__restrict__ in,
                        const int *__restrict__ anchor,
                        const unsigned char *__restrict__ mirror,
                        const float *__restrict__ mean,
                        const float *__restrict__ sd, float *__restrict__ out,
                        unsigned N, int H, int W) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned per = 224 / K;
  unsigned x0 = (g % per) * K, r = g / per, y = r % 224, s = r / 224;
  if (s >= N)
    return;
  int ay = anchor[2 * s], ax = anchor[2 * s + 1];
  bool m = mirror[s] != 0;
  int yy = min(max(ay + (int)y, 0), H - 1);
  const unsigned char *row = in + (s * H + yy) * W * 3;
  alignas(16) float o[3][K];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    int xx = (int)x0 + j;
    if (m)
      xx = 223 - xx;
    xx = min(max(ax + xx, 0), W - 1);
    const unsigned char *p = row + xx * 3;
#pragma unroll
    for (int c = 0; c < 3; ++c)
      o[c][j] = ((float)p[c] - mean[c]) / sd[c];
  }
  float *base = out + ((s * 3) * 224 + y) * 224 + x0;
#pragma unroll
  for (int c = 0; c < 3; ++c)
#pragma unroll
    for (int k = 0; k < K / 4; ++k)
      reinterpret_cast<float4 *>(base + c * 224 * 224)[k] =
          reinterpret_cast<const float4 *>(o[c])[k];
}

#define CMN(NAME, FN, K)                                                       \
  extern "C" __global__ void __launch_bounds__(256)                            \
      NAME(const unsigned char *in, const int *anchor,                         \
           const unsigned char *mirror, const float *mean, const float *sd,    \
           float *out, unsigned n, int H, int W) {                             \
    FN<K>(in, anchor, mirror, mean, sd, out, n, H, W);                         \
  }
CMN(cmn_vec4, cmn_vec, 4)
CMN(cmn_vec8, cmn_vec, 8)
CMN(cmn_vec16, cmn_vec, 16)
CMN(cmn_pix4, cmn_pix, 4)
CMN(cmn_pix8, cmn_pix, 8)

// pad: the (W, C) dims as one row of W * C bytes; 16 output bytes a thread.
extern "C" __global__ void __launch_bounds__(256)
pad_rows16(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
           unsigned n, unsigned H, unsigned Li, unsigned Ho, unsigned Lo) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned o = g * 16;
  if (o >= n)
    return;
  unsigned row = o / Lo, k = o % Lo, y = row % Ho, s = row / Ho;
  uint4 v = make_uint4(0, 0, 0, 0);
  if (y < H && k < Li) {
    const unsigned char *src = in + (s * H + y) * Li + k;
    unsigned long long at = (unsigned long long)src;
    if (k + 16 <= Li && at % 16 == 0) {
      v = *reinterpret_cast<const uint4 *>(src);
    } else if (k + 16 <= Li && at % 8 == 0) {
      uint2 a = reinterpret_cast<const uint2 *>(src)[0];
      uint2 b = reinterpret_cast<const uint2 *>(src)[1];
      v = make_uint4(a.x, a.y, b.x, b.y);
    } else {
      alignas(16) unsigned char t[16];
#pragma unroll
      for (int j = 0; j < 16; ++j)
        t[j] = k + j < Li ? src[j] : 0;
      v = *reinterpret_cast<const uint4 *>(t);
    }
  }
  *reinterpret_cast<uint4 *>(out + o) = v;
}

// concat of two [.., 3] along the channels: P pixels a thread, the bytes
// rearranged in registers.
template <int P>
__device__ void concat_pix(const unsigned char *__restrict__ a,
                           const unsigned char *__restrict__ b,
                           unsigned char *__restrict__ out, unsigned pixels) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p0 = g * P;
  if (p0 >= pixels)
    return;
  alignas(16) unsigned char A[3 * P], B[3 * P], O[6 * P];
  constexpr int C = (3 * P) % 16 == 0 ? 16 : (3 * P) % 8 == 0 ? 8 : 4;
  typedef typename pick<C == 16, uint4,
      typename pick<C == 8, uint2, unsigned>::type>::type T;
#pragma unroll
  for (int k = 0; k < 3 * P / C; ++k) {
    reinterpret_cast<T *>(A)[k] = reinterpret_cast<const T *>(a + 3 * p0)[k];
    reinterpret_cast<T *>(B)[k] = reinterpret_cast<const T *>(b + 3 * p0)[k];
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      O[6 * p + c] = A[3 * p + c];
      O[6 * p + 3 + c] = B[3 * p + c];
    }
  constexpr int D = (6 * P) % 16 == 0 ? 16 : 8;
  typedef typename pick<D == 16, uint4, uint2>::type U;
#pragma unroll
  for (int k = 0; k < 6 * P / D; ++k)
    reinterpret_cast<U *>(out + 6 * p0)[k] = reinterpret_cast<const U *>(O)[k];
}
#define CONCAT(NAME, P)                                                        \
  extern "C" __global__ void __launch_bounds__(256)                            \
      NAME(const unsigned char *a, const unsigned char *b, unsigned char *out,  \
           unsigned pixels) {                                                  \
    concat_pix<P>(a, b, out, pixels);                                          \
  }
CONCAT(concat_pix4, 4)
CONCAT(concat_pix8, 8)
CONCAT(concat_pix16, 16)

// normalize u8[N, S, S, 3] -> f32[N, 3, S, S]: P pixels x 3 channels a thread.
template <int P>
__device__ void norm_pix(const unsigned char *__restrict__ in,
                         const float *__restrict__ mean,
                         const float *__restrict__ sd, float *__restrict__ out,
                         unsigned N, unsigned S) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned per = S / P;
  unsigned x0 = (g % per) * P, r = g / per, y = r % S, s = r / S;
  if (s >= N)
    return;
  const unsigned char *p = in + ((s * S + y) * S + x0) * 3;
  alignas(16) float o[3][P];
#pragma unroll
  for (int j = 0; j < P; ++j)
#pragma unroll
    for (int c = 0; c < 3; ++c)
      o[c][j] = ((float)p[3 * j + c] - mean[c]) / sd[c];
  float *base = out + ((s * 3) * S + y) * S + x0;
#pragma unroll
  for (int c = 0; c < 3; ++c)
#pragma unroll
    for (int k = 0; k < P / 4; ++k)
      reinterpret_cast<float4 *>(base + c * S * S)[k] =
          reinterpret_cast<const float4 *>(o[c])[k];
}
extern "C" __global__ void __launch_bounds__(256)
norm_pix4(const unsigned char *in, const float *mean, const float *sd,
          float *out, unsigned N, unsigned S) {
  norm_pix<4>(in, mean, sd, out, N, S);
}
extern "C" __global__ void __launch_bounds__(128)
norm_pix4_t128(const unsigned char *in, const float *mean, const float *sd,
          float *out, unsigned N, unsigned S) {
  norm_pix<4>(in, mean, sd, out, N, S);
}

// pad to [N, Ho, Wo, 3] as the span variant would with P pixels a thread:
// each pixel's position clamped, consecutive pixels loaded as one run of
// words when none was clamped.
template <int P>
__device__ void pad_pix(const unsigned char *__restrict__ in,
                        unsigned char *__restrict__ out, unsigned N,
                        unsigned H, unsigned W, unsigned Ho, unsigned Wo,
                        bool runs) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned per = Wo / P;
  unsigned x0 = (g % per) * P, r = g / per, y = r % Ho, s = r / Ho;
  if (s >= N)
    return;
  unsigned yy = min(y, H - 1);
  const unsigned char *row = in + (s * H + yy) * W * 3;
  alignas(16) unsigned char v[3 * P];
  constexpr int C = (3 * P) % 8 == 0 ? 8 : 4;
  typedef typename pick<C == 8, uint2, unsigned>::type T;
  if (runs && x0 + P <= W && (((unsigned long long)(row + 3 * x0)) % C) == 0) {
#pragma unroll
    for (int k = 0; k < 3 * P / C; ++k)
      reinterpret_cast<T *>(v)[k] = reinterpret_cast<const T *>(row + 3 * x0)[k];
  } else {
#pragma unroll
    for (int j = 0; j < P; ++j) {
      unsigned xx = min(x0 + j, W - 1);
#pragma unroll
      for (int c = 0; c < 3; ++c)
        v[3 * j + c] = row[3 * xx + c];
    }
  }
  alignas(16) unsigned char o[3 * P];
#pragma unroll
  for (int j = 0; j < P; ++j)
#pragma unroll
    for (int c = 0; c < 3; ++c)
      o[3 * j + c] = (y < H && x0 + j < W) ? v[3 * j + c] : 0;
#pragma unroll
  for (int k = 0; k < 3 * P / C; ++k)
    reinterpret_cast<T *>(out + ((s * Ho + y) * Wo + x0) * 3)[k] =
        reinterpret_cast<const T *>(o)[k];
}
#define PADPIX(NAME, P, RUNS)                                                  \
  extern "C" __global__ void __launch_bounds__(256)                            \
      NAME(const unsigned char *in, unsigned char *out, unsigned N,            \
           unsigned H, unsigned W, unsigned Ho, unsigned Wo) {                 \
    pad_pix<P>(in, out, N, H, W, Ho, Wo, RUNS);                                \
  }
PADPIX(pad_pix4_bytes, 4, false)
PADPIX(pad_pix4_runs, 4, true)
PADPIX(pad_pix8_bytes, 8, false)
PADPIX(pad_pix8_runs, 8, true)

#define CMN128(NAME, FN, K)                                                    \
  extern "C" __global__ void __launch_bounds__(128)                            \
      NAME(const unsigned char *in, const int *anchor,                         \
           const unsigned char *mirror, const float *mean, const float *sd,    \
           float *out, unsigned n, int H, int W) {                             \
    FN<K>(in, anchor, mirror, mean, sd, out, n, H, W);                         \
  }
CMN128(cmn_pix4_t128, cmn_pix, 4)
CMN128(cmn_vec4_t128, cmn_vec, 4)

// u8 -> f32 as cast4, stored streaming (evict first): the ceiling of a
// write-heavy mix if the stores' cache policy matters.
extern "C" __global__ void __launch_bounds__(256)
cast4_cs(const uchar4 *__restrict__ in, float4 *__restrict__ out, unsigned n4) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n4) {
    uchar4 v = in[g];
    __stcs(out + g, make_float4(v.x, v.y, v.z, v.w));
  }
}

// crop_mirror_normalize, 4 pixels x 3 planes a thread as cmn_pix<4>, with
// a choice of stores (Streaming: st.global.cs), loads (Words: the 12 bytes
// as the 4 aligned words that cover them, shifted into place, where
// cmn_pix loads 12 bytes; anchors in range assumed) and grid (Loop: a wave
// of blocks stepping through the groups).
template <int K, bool Streaming, bool Words>
__device__ __forceinline__ void cmn_px_group(
    const unsigned char *__restrict__ in, const int *__restrict__ anchor,
    const unsigned char *__restrict__ mirror, const float *__restrict__ mean,
    const float *__restrict__ sd, float *__restrict__ out, unsigned g,
    int H, int W) {
  constexpr unsigned per = 224 / K;
  unsigned x0 = (g % per) * K, r = g / per, y = r % 224, s = r / 224;
  int ay = __ldg(anchor + 2 * s), ax = __ldg(anchor + 2 * s + 1);
  bool m = __ldg(mirror + s) != 0;
  int yy = min(max(ay + (int)y, 0), H - 1);
  const unsigned char *row = in + (s * H + yy) * W * 3;
  float v[K][3];
  if (Words) {
    // The 3K bytes as the 3K/4 + 1 aligned words that cover them.
    constexpr int NW = 3 * K / 4;
    int p0 = ax + (m ? 224 - K - (int)x0 : (int)x0);
    unsigned long long at = (unsigned long long)(row + 3 * p0);
    const unsigned *w = reinterpret_cast<const unsigned *>(at & ~3ull);
    unsigned sh = unsigned(at & 3) * 8;
    unsigned raw[NW + 1], u[NW];
#pragma unroll
    for (int k = 0; k <= NW; ++k)
      raw[k] = __ldg(w + k);
#pragma unroll
    for (int k = 0; k < NW; ++k)
      u[k] = __funnelshift_r(raw[k], raw[k + 1], sh);
#pragma unroll
    for (int j = 0; j < K; ++j)
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const int a = 3 * j + c, b = 3 * (K - 1 - j) + c;
        unsigned fa = (u[a / 4] >> (8 * (a % 4))) & 255u;
        unsigned fb = (u[b / 4] >> (8 * (b % 4))) & 255u;
        v[j][c] = (float)(m ? fb : fa);
      }
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      int xx = (int)x0 + j;
      if (m)
        xx = 223 - xx;
      xx = min(max(ax + xx, 0), W - 1);
#pragma unroll
      for (int c = 0; c < 3; ++c)
        v[j][c] = (float)row[xx * 3 + c];
    }
  }
  float *base = out + ((s * 3) * 224 + y) * 224 + x0;
#pragma unroll
  for (int c = 0; c < 3; ++c)
#pragma unroll
    for (int q = 0; q < K / 4; ++q) {
      float4 o = make_float4((v[4 * q][c] - mean[c]) / sd[c],
                             (v[4 * q + 1][c] - mean[c]) / sd[c],
                             (v[4 * q + 2][c] - mean[c]) / sd[c],
                             (v[4 * q + 3][c] - mean[c]) / sd[c]);
      float4 *to = reinterpret_cast<float4 *>(base + c * 224 * 224) + q;
      if (Streaming)
        __stcs(to, o);
      else
        *to = o;
    }
}
#define CMNPX(NAME, K, STREAMING, WORDS, LOOP)                                 \
  extern "C" __global__ void __launch_bounds__(256)                            \
      NAME(const unsigned char *in, const int *anchor,                         \
           const unsigned char *mirror, const float *mean, const float *sd,    \
           float *out, unsigned groups, int H, int W) {                        \
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;                        \
    if (!LOOP) {                                                               \
      if (g < groups)                                                          \
        cmn_px_group<K, STREAMING, WORDS>(in, anchor, mirror, mean, sd, out,   \
                                          g, H, W);                            \
      return;                                                                  \
    }                                                                          \
    for (; g < groups; g += gridDim.x * blockDim.x)                            \
      cmn_px_group<K, STREAMING, WORDS>(in, anchor, mirror, mean, sd, out, g,  \
                                        H, W);                                 \
  }
CMNPX(cmn_px4, 4, false, false, false)
CMNPX(cmn_px4_words, 4, false, true, false)
CMNPX(cmn_px8, 8, false, false, false)
CMNPX(cmn_px8_words, 8, false, true, false)

// Two groups a thread, half the grid apart (each warp's loads and stores
// still contiguous), both loaded before either is stored: twice the
// bytes in flight a thread.
extern "C" __global__ void __launch_bounds__(256)
cast4x2(const uchar4 *__restrict__ in, float4 *__restrict__ out, unsigned half) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < half) {
    uchar4 a = in[g], b = in[g + half];
    out[g] = make_float4(a.x, a.y, a.z, a.w);
    out[g + half] = make_float4(b.x, b.y, b.z, b.w);
  }
}
extern "C" __global__ void __launch_bounds__(256)
cmn_px4x2(const unsigned char *in, const int *anchor,
          const unsigned char *mirror, const float *mean, const float *sd,
          float *out, unsigned half, int H, int W) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < half) {
    cmn_px_group<4, false, true>(in, anchor, mirror, mean, sd, out, g, H, W);
    cmn_px_group<4, false, true>(in, anchor, mirror, mean, sd, out, g + half, H, W);
  }
}

// u8 -> f32 of n elements, K per thread (K / 4 16-byte stores).
template <int K>
__device__ void castK(const unsigned char *__restrict__ in,
                      float *__restrict__ out, unsigned groups) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= groups)
    return;
  alignas(16) unsigned char b[K];
  typedef typename pick<K == 16, uint4, typename pick<K == 8, uint2, unsigned>::type>::type T;
  *reinterpret_cast<T *>(b) = reinterpret_cast<const T *>(in)[g];
#pragma unroll
  for (int q = 0; q < K / 4; ++q)
    reinterpret_cast<float4 *>(out)[g * (K / 4) + q] =
        make_float4(b[4 * q], b[4 * q + 1], b[4 * q + 2], b[4 * q + 3]);
}
extern "C" __global__ void __launch_bounds__(256)
cast8(const unsigned char *in, float *out, unsigned groups) { castK<8>(in, out, groups); }
extern "C" __global__ void __launch_bounds__(256)
cast16(const unsigned char *in, float *out, unsigned groups) { castK<16>(in, out, groups); }
"""

HAND = ("template <bool B, class T, class F> struct pick { typedef T type; };\n"
        "template <class T, class F> struct pick<false, T, F> { typedef F type; };\n") + HAND


def divisors(dims):
    """The divisors Pipe's launcher passes for a domain of `dims`
    (ElementwiseParams.h), as a device array: multipliers, then shifts."""
    mul, shift = [], []
    for d in dims:
        s = 0
        while (1 << s) < d:
            s += 1
        mul.append(((1 << 32) * ((1 << s) - d)) // d + 1)
        shift.append(s)
    return cp.asarray(np.array(mul + shift, dtype=np.uint64).astype(np.uint32))


def cmn_case(rng, N=256, H=256, W=256):
    """crop_mirror_normalize as issue 12 sizes it: u8[N, H, W, 3] images,
    anchors in 0 .. 32, flip flags, mean and std, an f32[N, 3, 224, 224]
    output; `args` are the generated entries' (divisors by pointer)."""
    c = types.SimpleNamespace(N=N, H=H, W=W)
    c.images = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    c.anchor = cp.asarray(rng.integers(0, 33, (N, 2), dtype=np.int32))
    c.mirror = cp.asarray(rng.integers(0, 2, (N,), dtype=np.uint8))
    c.mean = cp.asarray(np.array([123.675, 116.28, 103.53], np.float32))
    c.std = cp.asarray(np.array([58.395, 57.12, 57.375], np.float32))
    c.out = cp.empty((N, 3, 224, 224), cp.float32)
    c.n = c.out.size
    c.nbytes = 5 * c.n
    c.args = (c.images, c.anchor, c.mirror, c.mean, c.std, c.out,
              np.int64(c.n), np.int64(H), np.int64(N), np.int64(W),
              divisors([N, 3, 224, 224]))
    return c


def pad32_case(rng, N=64, H=1000, W=1000):
    """pad32 as issue 12 sizes it: u8[N, H, W, 3] padded to multiples of 32,
    NumPy's result in `want`; `args` are the generated entries' (divisors
    by pointer)."""
    Ho, Wo = -(-H // 32) * 32, -(-W // 32) * 32
    c = types.SimpleNamespace(N=N, H=H, W=W)
    c.x = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    c.y = cp.empty((N, Ho, Wo, 3), cp.uint8)
    c.n = c.y.size
    c.nbytes = c.x.size + c.y.size
    c.want = cp.pad(c.x, ((0, 0), (0, Ho - H), (0, Wo - W), (0, 0)))
    c.divisor_dims = [N, Ho, Wo, 3]
    c.args = (c.x, c.y, np.int64(c.n), np.int64(H), np.int64(N), np.int64(W),
              divisors(c.divisor_dims))
    return c


def flush_buffer():
    return cp.empty(256 << 20, dtype=cp.uint8)


FLUSH = None


def time_ms(fn, reps=60):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(5):
        fn()
    times = []
    for _ in range(reps):
        FLUSH.fill(0)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def blocks(n, per_thread, threads=256):
    return ((n // per_thread + threads - 1) // threads,)


def copy_bandwidth():
    """The copy engine's rate over 1 GiB, in TB/s of bytes read and
    written, printed: what every ratio here divides by."""
    big = cp.empty(1 << 30, dtype=cp.uint8)
    big2 = cp.empty_like(big)
    ms = time_ms(lambda: big2.__setitem__(Ellipsis, big), reps=20)
    copy_tbs = 2 * big.nbytes / (ms * 1e-3) / 1e12
    print(f"copy 1 GiB: {ms:.4f} ms, {copy_tbs:.3f} TB/s")
    return copy_tbs


def copy_launch(copy16, nbytes):
    """A launch of HAND's copy16 over `nbytes` (half read, half written)."""
    half = (nbytes // 2) // 16 * 16
    src = cp.empty(half, dtype=cp.uint8)
    dst = cp.empty(half, dtype=cp.uint8)
    n16 = half // 16
    return lambda: copy16(blocks(n16, 1), (256,), (src, dst, np.uint32(n16)))


def report(name, ms, nbytes, copy_tbs):
    pct = nbytes / (ms * 1e-3) / (copy_tbs * 1e12) * 100
    print(f"  {name:<28} {ms:8.4f} ms  {pct:5.1f}% of copy", flush=True)


def checked(name, launch, out, want, nbytes, copy_tbs, close=False):
    """Runs `launch` once into `out` (poisoned first), says WRONG unless it
    equals `want` (or is close to it, for floats computed another way),
    then reports its time."""
    out.fill(7)
    launch()
    same = cp.allclose if close else cp.array_equal
    ok = bool(same(out, want))
    report(name + ("" if ok else " WRONG"), time_ms(launch), nbytes, copy_tbs)


def in_turns(variants, out, want, nbytes, copy_tbs, reps=2):
    """checked() for each (name, launch) of `variants`, round after round,
    so that an A/B comparison sees the machine in the same states."""
    for _ in range(reps):
        for name, launch in variants:
            checked(name, launch, out, want, nbytes, copy_tbs)


def main():
    global FLUSH, PIPEC
    if len(sys.argv) > 1:
        PIPEC = sys.argv[1]
    FLUSH = flush_buffer()
    dev = cp.cuda.Device()
    print("device:", cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode())
    copy_tbs = copy_bandwidth()

    hand = cp.RawModule(code=HAND, options=OPTIONS, name_expressions=None)

    def gen(name, **tuning):
        source = subprocess.run([PIPEC, "-", "--emit=cuda"],
                                input=PIPELINES[name], text=True,
                                capture_output=True, check=True,
                                env=dict(os.environ, **tuning)).stdout
        return cp.RawModule(code=source, options=OPTIONS)

    copy16 = hand.get_function("copy16")

    def copy_floor(nbytes):
        return time_ms(copy_launch(copy16, nbytes))

    rng = np.random.default_rng(1)

    # crop_mirror_normalize
    c = cmn_case(rng)
    N, H, W, n, nbytes = c.N, c.H, c.W, c.n, c.nbytes
    images, anchor, mirror, mean, std, out = (c.images, c.anchor, c.mirror,
                                              c.mean, c.std, c.out)
    print(f"\ncrop_mirror_normalize, {nbytes / 1e6:.1f} MB")
    report("copy of the same bytes", copy_floor(nbytes), nbytes, copy_tbs)
    cast4 = hand.get_function("cast4")
    flat = cp.empty(n, cp.uint8)
    report("u8->f32 cast, same bytes",
           time_ms(lambda: cast4(blocks(n, 4), (256,), (flat, out, np.uint32(n // 4)))),
           nbytes, copy_tbs)
    # The reference result: Pipe's vector variant.
    m = gen("cmn")
    vec = m.get_function("crop_mirror_normalize_k0_vec")
    args = (images, anchor, mirror, mean, std, out, np.int64(n), np.int64(H),
            np.int64(N), np.int64(W))
    vec(blocks(n, 12), (256,), args)
    want = out.copy()
    report("pipe vec (4 pixels x 3 planes)",
           time_ms(lambda: vec(blocks(n, 12), (256,), args)), nbytes, copy_tbs)
    for name, per in [("cmn_vec4", 4)]:
        f = hand.get_function(name)
        a = (images, anchor, mirror, mean, std, out, np.uint32(n), np.int32(H),
             np.int32(W))
        checked(name, lambda: f(blocks(n, per), (256,), a), out, want, nbytes,
                copy_tbs)
    cast4_cs = hand.get_function("cast4_cs")
    report("u8->f32 cast, streaming stores",
           time_ms(lambda: cast4_cs(blocks(n, 4), (256,), (flat, out, np.uint32(n // 4)))),
           nbytes, copy_tbs)
    for name, per in [("cast8", 8), ("cast16", 16)]:
        f = hand.get_function(name)
        report("u8->f32 " + name, time_ms(lambda: f(blocks(n, per), (256,),
                                                  (flat, out, np.uint32(n // per)))),
               nbytes, copy_tbs)
    cast4x2 = hand.get_function("cast4x2")
    report("u8->f32 cast4x2",
           time_ms(lambda: cast4x2(blocks(n, 8), (256,), (flat, out, np.uint32(n // 8)))),
           nbytes, copy_tbs)
    x2 = hand.get_function("cmn_px4x2")
    half = N * 224 * 56 // 2
    a2 = (images, anchor, mirror, mean, std, out, np.uint32(half), np.int32(H), np.int32(W))
    for rep in range(2):
        checked("cmn_px4x2 (words)", lambda: x2(blocks(half, 1), (256,), a2),
                out, want, nbytes, copy_tbs)
    for rep in range(2):
        for name, K in (("cmn_px4", 4), ("cmn_px4_words", 4)):
            f = hand.get_function(name)
            groups = N * 224 * (224 // K)
            grid = blocks(groups, 1)
            a = (images, anchor, mirror, mean, std, out, np.uint32(groups),
                 np.int32(H), np.int32(W))
            checked(name, lambda: f(grid, (256,), a), out, want, nbytes,
                    copy_tbs)
        report("pipe vec (4 pixels x 3 planes)",
               time_ms(lambda: vec(blocks(n, 12), (256,), args)), nbytes, copy_tbs)
    # cmn_pix4 takes the batch and a thread per 4 pixels; cmn_vec4 the
    # element count and a thread per 4 elements.
    for name, count, items in [("cmn_pix4", N, n // 3), ("cmn_vec4", n, n)]:
        f = hand.get_function(name)
        a = (images, anchor, mirror, mean, std, out, np.uint32(count),
             np.int32(H), np.int32(W))
        checked(name, lambda: f(blocks(items, 4), (256,), a), out, want,
                nbytes, copy_tbs)
    del images, out, flat, want

    # pad to a multiple of 32
    N, H, W, Ho, Wo = 64, 1000, 1000, 1024, 1024
    x = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    y = cp.empty((N, Ho, Wo, 3), cp.uint8)
    n = y.size
    nbytes = x.size + y.size
    print(f"\npad32, {nbytes / 1e6:.1f} MB")
    report("copy of the same bytes", copy_floor(nbytes), nbytes, copy_tbs)
    m = gen("pad32")
    span = m.get_function("pad32_k0_span")
    args = (x, y, np.int64(n), np.int64(H), np.int64(N), np.int64(W))
    want = cp.pad(x, ((0, 0), (0, Ho - H), (0, Wo - W), (0, 0)))
    # Against each element loaded alone (PIPE_TUNE_PAD_RUNS=0), in turns.
    runs = gen("pad32", PIPE_TUNE_PAD_RUNS="0").get_function("pad32_k0_span")
    in_turns([("pipe span (8 pixels)", lambda: span(blocks(n, 24), (256,), args)),
              ("pipe span, byte loads", lambda: runs(blocks(n, 24), (256,), args))],
             y, want, nbytes, copy_tbs)
    f = hand.get_function("pad_rows16")
    a = (x, y, np.uint32(n), np.uint32(H), np.uint32(W * 3), np.uint32(Ho),
         np.uint32(Wo * 3))
    checked("pad_rows16", lambda: f(blocks(n, 16), (256,), a), y, want, nbytes,
            copy_tbs)
    for name, per in [("pad_pix4_runs", 4), ("pad_pix8_runs", 8)]:
        f = hand.get_function(name)
        a = (x, y, np.uint32(N), np.uint32(H), np.uint32(W), np.uint32(Ho),
             np.uint32(Wo))
        checked(name, lambda: f(blocks(n // 3, per), (256,), a), y, want,
                nbytes, copy_tbs)
    del x, y, want

    # normalize, as pipe_bench's
    N, S = 64, 512
    images = cp.asarray(rng.integers(0, 256, (N, S, S, 3), dtype=np.uint8))
    out = cp.empty((N, 3, S, S), cp.float32)
    n = out.size
    nbytes = 5 * n
    print(f"\nnormalize, {nbytes / 1e6:.1f} MB")
    report("copy of the same bytes", copy_floor(nbytes), nbytes, copy_tbs)
    m = gen("normalize")
    vec = m.get_function("normalize_k0_vec")
    args = (images, mean, std, out, np.int64(n), np.int64(S), np.int64(N), np.int64(S))
    vec(blocks(n, 4), (256,), args)
    want = out.copy()
    report("pipe vec (4 per thread)",
           time_ms(lambda: vec(blocks(n, 4), (256,), args)), nbytes, copy_tbs)
    for rep in range(3):
        report("pipe vec (4 per thread)",
               time_ms(lambda: vec(blocks(n, 4), (256,), args)), nbytes, copy_tbs)
        report("pipe vec, 128 threads",
               time_ms(lambda: vec(blocks(n, 4, 128), (128,), args)), nbytes, copy_tbs)
        for name, threads in [("norm_pix4", 256), ("norm_pix4_t128", 128)]:
            f = hand.get_function(name)
            a = (images, mean, std, out, np.uint32(N), np.uint32(S))
            checked(name, lambda: f(blocks(n // 3, 4, threads), (threads,), a),
                    out, want, nbytes, copy_tbs, close=True)
    del images, out, want

    # concat
    N, H, W = 64, 512, 512
    a_ = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    b_ = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    c_ = cp.empty((N, H, W, 6), cp.uint8)
    n = c_.size
    nbytes = a_.size + b_.size + c_.size
    print(f"\nconcat, {nbytes / 1e6:.1f} MB")
    report("copy of the same bytes", copy_floor(nbytes), nbytes, copy_tbs)
    m = gen("concat")
    span = m.get_function("concat_k0_span")
    args = (a_, b_, c_, np.int64(n), np.int64(H), np.int64(N), np.int64(W))
    want = cp.concatenate([a_, b_], axis=3)
    # Against coordinates carried across rows anyway
    # (PIPE_TUNE_ROW_GROUPS=0), in turns.
    carried = gen("concat", PIPE_TUNE_ROW_GROUPS="0").get_function("concat_k0_span")
    in_turns([("pipe span (4 pixels)", lambda: span(blocks(n, 24), (256,), args)),
              ("pipe span, carried", lambda: carried(blocks(n, 24), (256,), args))],
             c_, want, nbytes, copy_tbs)
    for name, per in [("concat_pix4", 4), ("concat_pix4", 4)]:
        f = hand.get_function(name)
        pixels = N * H * W
        a = (a_, b_, c_, np.uint32(pixels))
        checked(name, lambda: f(blocks(pixels, per), (256,), a), c_, want,
                nbytes, copy_tbs)


if __name__ == "__main__":
    sys.exit(main())
