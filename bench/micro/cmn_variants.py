"""Where crop_mirror_normalize's last points go (issue 12), outside Pipe.

crop_mirror_normalize (u8[256, 256, 256, 3] -> f32[256, 3, 224, 224], per-
sample anchors and mirror flags) sits at 88.9% of the large copy where a
plain u8 -> f32 cast of the same bytes reaches 91.9% (bench/NOTES.md, fourth
pass). This times, with CuPy on the device machine and in turns, the best
hand-written shape (4 pixels x 3 planes a thread, the 12 bytes as aligned
words) with its per-element work changed one thing at a time, to find what
the remaining 3 points are made of:
  div        as the generated kernel: (x - mean) / std, IEEE division
  mul        x times the reciprocal: not the same function (a ceiling only)
  lut        the 256 quotients of each channel in shared memory, made by
             the same division: the same function, no division per element
  nomath     the byte itself, cast: index arithmetic and bytes only
  div+check  div, each block checking every sample's anchors first (what a
             check folded into the kernel would cost, against the separate
             check kernel's 2.3 us)
  div_cs     div, its stores evict-first (st.global.cs)
  div_plane  div, a block storing one plane (three blocks a group-block
             read the same words; _cs: and evict-first)
  rows4      div, a block taking 4 output rows of one sample (the shape the
             bulk variants share)
  bulkld R   rows4's shape, R rows, each row's crop copied into shared
             memory by the copy engine (cp.async.bulk on an mbarrier)
  bulkst R   the threads' loads, the three planes staged in shared memory
             and written by three bulk stores
  bulk R     both
and Pipe's generated entry (clamp), the cast of the same bytes and a copy
of the same bytes beside them. Timing as BenchUtil.h: L2 flushed before each
call, the median of CUDA-event-timed calls.

    python3 bench/micro/cmn_variants.py [PIPEC]   (default: .device's)
"""
import subprocess
import sys

import cupy as cp
import numpy as np

import layout_shapes as shapes
from layout_shapes import OPTIONS, PIPEC

CMN = """
pipeline crop_mirror_normalize(images: u8[N, H, W, 3], anchor: i32[N, 2], mirror: bool[N]) -> (out: f32[N, 3, 224, 224]) {
  c = crop(images, anchor = anchor, shape = [224, 224], axes = [1, 2], out_of_bounds = clamp)
  f = flip(c, axes = [2], when = mirror)
  out = transpose((f32(f) - [123.675, 116.28, 103.53]) / [58.395, 57.12, 57.375], [0, 3, 1, 2])
}
"""

HAND = r"""
enum Math { DIV, MUL, LUT, NOMATH };

// 4 pixels x 3 planes a thread; the 12 bytes as the 4 aligned words that
// cover them (anchors in range).
// STREAM: the stores marked evict-first (st.global.cs); PLANE >= 0: only
// that plane's store (the caller launches three blocks a group-block).
template <int MATH, bool CHECK, bool STREAM = false, bool PLANE = false>
__device__ __forceinline__ void cmn_group(
    const unsigned char *__restrict__ in, const int *__restrict__ anchor,
    const unsigned char *__restrict__ mirror, const float *__restrict__ mean,
    const float *__restrict__ sd, float *__restrict__ out, unsigned g,
    unsigned groups, int N, int H, int W, int plane = 0) {
  __shared__ float lut[3][256];
  if (MATH == LUT) {
    const unsigned v = threadIdx.x;
#pragma unroll
    for (int c = 0; c < 3; ++c)
      lut[c][v] = ((float)v - mean[c]) / sd[c];
  }
  constexpr int K = 4;
  constexpr unsigned per = 224 / K;
  const bool active = g < groups;
  unsigned x0 = (g % per) * K, r = g / per, y = r % 224, s = active ? r / 224 : 0;
  int ay = __ldg(anchor + 2 * s), ax = __ldg(anchor + 2 * s + 1);
  bool m = __ldg(mirror + s) != 0;
  int yy = min(max(ay + (int)y, 0), H - 1);
  const unsigned char *row = in + (s * H + yy) * W * 3;
  constexpr int NW = 3 * K / 4;
  int p0 = ax + (m ? 224 - K - (int)x0 : (int)x0);
  unsigned long long at = (unsigned long long)(row + 3 * p0);
  const unsigned *w = reinterpret_cast<const unsigned *>(at & ~3ull);
  unsigned sh = unsigned(at & 3) * 8;
  unsigned raw[NW + 1], u[NW];
#pragma unroll
  for (int k = 0; k <= NW; ++k)
    raw[k] = active ? __ldg(w + k) : 0u;
  if (CHECK) {
    // Every sample's anchors in [0, H - 224] x [0, W - 224].
    int bad = 0;
    for (int i = threadIdx.x; i < 2 * N; i += blockDim.x) {
      int a = __ldg(anchor + i);
      bad |= a < 0 || a > ((i & 1) ? W : H) - 224;
    }
    if (__syncthreads_or(bad))
      return;
  }
  if (MATH == LUT)
    __syncthreads();
  if (!active)
    return;
#pragma unroll
  for (int k = 0; k < NW; ++k)
    u[k] = __funnelshift_r(raw[k], raw[k + 1], sh);
  unsigned v[K][3];
#pragma unroll
  for (int j = 0; j < K; ++j)
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const int a = 3 * j + c, b = 3 * (K - 1 - j) + c;
      unsigned fa = (u[a / 4] >> (8 * (a % 4))) & 255u;
      unsigned fb = (u[b / 4] >> (8 * (b % 4))) & 255u;
      v[j][c] = m ? fb : fa;
    }
  float *base = out + ((s * 3) * 224 + y) * 224 + x0;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    if (PLANE && c != plane)
      continue;
    const float mu = __ldg(mean + c), dv = __ldg(sd + c), rc = 1.0f / dv;
    float o[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float x = (float)v[j][c];
      o[j] = MATH == DIV ? (x - mu) / dv
           : MATH == MUL ? (x - mu) * rc
           : MATH == LUT ? lut[c][v[j][c]]
           : x;
    }
    float4 *to = reinterpret_cast<float4 *>(base + c * 224 * 224);
    if (STREAM)
      __stcs(to, make_float4(o[0], o[1], o[2], o[3]));
    else
      *to = make_float4(o[0], o[1], o[2], o[3]);
  }
}
#define CMN(NAME, MATH, CHECK)                                                 \
  extern "C" __global__ void __launch_bounds__(256)                            \
      NAME(const unsigned char *in, const int *anchor,                         \
           const unsigned char *mirror, const float *mean, const float *sd,    \
           float *out, unsigned groups, int N, int H, int W) {                 \
    cmn_group<MATH, CHECK>(in, anchor, mirror, mean, sd, out,                  \
                           blockIdx.x * blockDim.x + threadIdx.x, groups, N,   \
                           H, W);                                              \
  }
CMN(cmn_div, DIV, false)
CMN(cmn_mul, MUL, false)
CMN(cmn_lut, LUT, false)
CMN(cmn_nomath, NOMATH, false)
CMN(cmn_div_check, DIV, true)
CMN(cmn_lut_check, LUT, true)

// The copy engine's bulk copies (sm_90): a block takes R output rows of one
// sample. LOAD: thread 0 copies each row's crop (its 16-byte aligned cover,
// up to 704 bytes) into shared memory, completing on an mbarrier, and the
// threads read their 12 bytes there; else the words straight from global
// memory as cmn_group. STORE: the block's three planes (R rows each, one
// contiguous run of R * 896 bytes a plane) are staged in shared memory and
// written by three bulk stores; else each thread stores its float4s.
__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
template <int R, bool LOAD, bool STORE>
__device__ __forceinline__ void cmn_bulk(
    const unsigned char *__restrict__ in, const int *__restrict__ anchor,
    const unsigned char *__restrict__ mirror, const float *__restrict__ mean,
    const float *__restrict__ sd, float *__restrict__ out, int N, int H,
    int W) {
  __shared__ __align__(128) unsigned char rows[LOAD ? R : 1][704];
  __shared__ __align__(128) float stage[STORE ? 3 : 1][STORE ? R * 224 : 4];
  __shared__ __align__(8) unsigned long long bar;
  constexpr int per = 224 / R;
  const int s = blockIdx.x / per, y0 = (blockIdx.x % per) * R;
  const int t = threadIdx.x, r = t / 56, x0 = (t % 56) * 4;
  const int ay = __ldg(anchor + 2 * s), ax = __ldg(anchor + 2 * s + 1);
  const bool m = __ldg(mirror + s) != 0;
  const int p0 = m ? 220 - x0 : x0; // the first source pixel of the 4
  unsigned v[4][3];
  if (LOAD) {
    if (t == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)));
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
      unsigned total = 0;
      unsigned long long from[R];
      unsigned len[R];
#pragma unroll
      for (int k = 0; k < R; ++k) {
        unsigned long long at = (unsigned long long)(in + ((size_t)s * H + ay + y0 + k) * W * 3 + 3 * ax);
        unsigned long long a0 = at & ~15ull, a1 = (at + 672 + 15) & ~15ull;
        from[k] = a0;
        len[k] = (unsigned)(a1 - a0);
        total += len[k];
      }
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)), "r"(total) : "memory");
#pragma unroll
      for (int k = 0; k < R; ++k)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(rows[k])), "l"(from[k]), "r"(len[k]), "r"(smem_addr(&bar)) : "memory");
    }
    unsigned done = 0;
    while (!done)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(smem_addr(&bar)) : "memory");
    const unsigned sh = (unsigned)((unsigned long long)(in + ((size_t)s * H + ay + y0 + r) * W * 3 + 3 * ax) & 15ull);
    const unsigned char *b = rows[r] + sh + 3 * p0;
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int c = 0; c < 3; ++c)
        v[j][c] = b[3 * (m ? 3 - j : j) + c];
  } else {
    const unsigned char *row = in + ((size_t)s * H + ay + y0 + r) * W * 3;
    unsigned long long at = (unsigned long long)(row + 3 * (ax + p0));
    const unsigned *w = reinterpret_cast<const unsigned *>(at & ~3ull);
    unsigned sh = unsigned(at & 3) * 8, raw[4], u[3];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      raw[k] = __ldg(w + k);
#pragma unroll
    for (int k = 0; k < 3; ++k)
      u[k] = __funnelshift_r(raw[k], raw[k + 1], sh);
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const int a = 3 * (m ? 3 - j : j) + c;
        v[j][c] = (u[a / 4] >> (8 * (a % 4))) & 255u;
      }
  }
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    const float mu = __ldg(mean + c), dv = __ldg(sd + c);
    const float4 o = make_float4(((float)v[0][c] - mu) / dv, ((float)v[1][c] - mu) / dv,
                                 ((float)v[2][c] - mu) / dv, ((float)v[3][c] - mu) / dv);
    if (STORE)
      *reinterpret_cast<float4 *>(&stage[c][r * 224 + x0]) = o;
    else
      *reinterpret_cast<float4 *>(out + (((size_t)s * 3 + c) * 224 + y0 + r) * 224 + x0) = o;
  }
  if (STORE) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t < 3) {
      float *to = out + (((size_t)s * 3 + t) * 224 + y0) * 224;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   ::"l"(to), "r"(smem_addr(stage[t])), "r"(R * 896) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
}
#define CMN_BULK(NAME, R, LOAD, STORE)                                         \
  extern "C" __global__ void __launch_bounds__(R * 56)                         \
      NAME(const unsigned char *in, const int *anchor,                         \
           const unsigned char *mirror, const float *mean, const float *sd,    \
           float *out, unsigned groups, int N, int H, int W) {                 \
    cmn_bulk<R, LOAD, STORE>(in, anchor, mirror, mean, sd, out, N, H, W);      \
  }
CMN_BULK(cmn_rows4, 4, false, false)
CMN_BULK(cmn_bulkld4, 4, true, false)
CMN_BULK(cmn_bulkld8, 8, true, false)
CMN_BULK(cmn_bulkst4, 4, false, true)
CMN_BULK(cmn_bulkst8, 8, false, true)
CMN_BULK(cmn_bulk4, 4, true, true)
CMN_BULK(cmn_bulk8, 8, true, true)
extern "C" __global__ void __launch_bounds__(256)
    cmn_div_cs(const unsigned char *in, const int *anchor,
               const unsigned char *mirror, const float *mean, const float *sd,
               float *out, unsigned groups, int N, int H, int W) {
  cmn_group<DIV, false, true>(in, anchor, mirror, mean, sd, out,
                              blockIdx.x * blockDim.x + threadIdx.x, groups,
                              N, H, W);
}
// Three blocks a group-block, one plane each: every warp's stores go to
// one plane (a block's run of a plane is 4 KB), the words read thrice (L2).
template <bool STREAM>
__device__ __forceinline__ void cmn_plane(
    const unsigned char *in, const int *anchor, const unsigned char *mirror,
    const float *mean, const float *sd, float *out, unsigned groups, int N,
    int H, int W) {
  cmn_group<DIV, false, STREAM, true>(
      in, anchor, mirror, mean, sd, out,
      (blockIdx.x / 3) * blockDim.x + threadIdx.x, groups, N, H, W,
      blockIdx.x % 3);
}
extern "C" __global__ void __launch_bounds__(256)
    cmn_div_plane(const unsigned char *in, const int *anchor,
                  const unsigned char *mirror, const float *mean,
                  const float *sd, float *out, unsigned groups, int N, int H,
                  int W) {
  cmn_plane<false>(in, anchor, mirror, mean, sd, out, groups, N, H, W);
}
extern "C" __global__ void __launch_bounds__(256)
    cmn_div_plane_cs(const unsigned char *in, const int *anchor,
                     const unsigned char *mirror, const float *mean,
                     const float *sd, float *out, unsigned groups, int N,
                     int H, int W) {
  cmn_plane<true>(in, anchor, mirror, mean, sd, out, groups, N, H, W);
}
"""

def blocks(n, threads=256):
    return shapes.blocks(n, 1, threads)


def main():
    pipec = sys.argv[1] if len(sys.argv) > 1 else PIPEC
    shapes.FLUSH = shapes.flush_buffer()
    time_ms = shapes.time_ms
    dev = cp.cuda.Device()
    print("device:", cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode())
    big = cp.empty(1 << 30, dtype=cp.uint8)
    big2 = cp.empty_like(big)
    ms = time_ms(lambda: big2.__setitem__(Ellipsis, big), reps=20)
    copy_tbs = 2 * big.nbytes / (ms * 1e-3) / 1e12
    print(f"copy 1 GiB: {ms:.4f} ms, {copy_tbs:.3f} TB/s")
    del big, big2

    hand = cp.RawModule(code=HAND, options=OPTIONS)
    # The copy and the cast of the same bytes: layout_shapes.py's kernels.
    ceilings = cp.RawModule(code=shapes.HAND, options=OPTIONS)
    source = subprocess.run([pipec, "-", "--emit=cuda"], input=CMN, text=True,
                            capture_output=True, check=True).stdout
    gen = cp.RawModule(code=source, options=OPTIONS)

    rng = np.random.default_rng(1)
    c = shapes.cmn_case(rng)
    N, H, W, n, nbytes = c.N, c.H, c.W, c.n, c.nbytes
    images, anchor, mirror, mean, std, out = (c.images, c.anchor, c.mirror,
                                              c.mean, c.std, c.out)
    print(f"crop_mirror_normalize, {nbytes / 1e6:.1f} MB")

    def pct(ms_):
        return nbytes / (ms_ * 1e-3) / (copy_tbs * 1e12) * 100

    half = (nbytes // 2) // 16 * 16
    src = cp.empty(half, dtype=cp.uint8)
    dst = cp.empty(half, dtype=cp.uint8)
    copy16 = ceilings.get_function("copy16")
    flat = cp.empty(n, cp.uint8)
    cast4 = ceilings.get_function("cast4")
    vec = gen.get_function("crop_mirror_normalize_k0_vec")
    vargs = (images, anchor, mirror, mean, std, out, np.int64(n), np.int64(H),
             np.int64(N), np.int64(W))
    vec(blocks(n // 12), (256,), vargs)
    want = out.copy()
    nomath_want = None

    groups = N * 224 * 56
    hargs = (images, anchor, mirror, mean, std, out, np.uint32(groups),
             np.int32(N), np.int32(H), np.int32(W))
    variants = [
        ("copy of the same bytes", lambda: copy16(blocks(half // 16), (256,),
                                                  (src, dst, np.uint32(half // 16))), None),
        ("u8->f32 cast of the same bytes", lambda: cast4(blocks(n // 4), (256,),
                                                         (flat, out, np.uint32(n // 4))), None),
        ("pipe vec (generated, clamp)", lambda: vec(blocks(n // 12), (256,), vargs), "exact"),
    ]
    for name in ("cmn_div", "cmn_mul", "cmn_lut", "cmn_nomath", "cmn_div_check",
                 "cmn_lut_check"):
        f = hand.get_function(name)
        check = {"cmn_mul": "close", "cmn_nomath": "nomath"}.get(name, "exact")
        variants.append((name, (lambda f=f: f(blocks(groups), (256,), hargs)), check))
    f = hand.get_function("cmn_div_cs")
    variants.append(("cmn_div_cs (evict-first stores)",
                     lambda f=f: f(blocks(groups), (256,), hargs), "exact"))
    for name in ("cmn_div_plane", "cmn_div_plane_cs"):
        f = hand.get_function(name)
        grid = (3 * blocks(groups)[0],)
        variants.append((name, (lambda f=f, grid=grid: f(grid, (256,), hargs)),
                         "exact"))

    for name, rows in (("cmn_rows4", 4), ("cmn_bulkld4", 4), ("cmn_bulkld8", 8),
                       ("cmn_bulkst4", 4), ("cmn_bulkst8", 8), ("cmn_bulk4", 4),
                       ("cmn_bulk8", 8)):
        f = hand.get_function(name)
        variants.append((name, (lambda f=f, rows=rows: f((N * (224 // rows),),
                                                           (56 * rows,), hargs)),
                         "exact"))

    # What each computes, once, on a poisoned output.
    for name, launch, check in variants:
        if check is None:
            continue
        out.fill(7)
        launch()
        if check == "exact":
            ok = bool(cp.array_equal(out, want))
        elif check == "close":
            ok = bool(cp.allclose(out, want, rtol=1e-6, atol=1e-6))
        else:
            # The bytes themselves: the normalize undone, rounded.
            ok = bool(cp.array_equal(out, cp.rint(want * std[None, :, None, None]
                                                  + mean[None, :, None, None])))
        print(f"  {name:<34} {'ok' if ok else 'WRONG'}")
    # A bad anchor: the checking variants write nothing.
    bad = anchor.copy()
    bad[N - 1, 1] = 40
    for name in ("cmn_div_check", "cmn_lut_check"):
        f = hand.get_function(name)
        out.fill(7)
        f(blocks(groups), (256,), (images, bad, mirror, mean, std, out,
                                   np.uint32(groups), np.int32(N), np.int32(H),
                                   np.int32(W)))
        untouched = bool((out == 7).all())
        print(f"  {name:<34} bad anchor: {'nothing written' if untouched else 'WROTE'}")

    # The same bytes-only kernel on reads that are easier for the memory:
    # every crop at (0, 0), not mirrored (each row's 672 bytes start at a
    # 256-byte boundary), and images of 224 x 224 (the crop is the image:
    # one contiguous run a sample).
    nomath = hand.get_function("cmn_nomath")
    zeros = cp.zeros_like(anchor)
    plain = cp.zeros_like(mirror)
    small = cp.asarray(rng.integers(0, 256, (N, 224, 224, 3), dtype=np.uint8))
    variants.append(("cmn_nomath, anchors 0, no mirror",
                     lambda: nomath(blocks(groups), (256,),
                                    (images, zeros, plain, mean, std, out,
                                     np.uint32(groups), np.int32(N), np.int32(H),
                                     np.int32(W))), None))
    variants.append(("cmn_nomath, 224 x 224 images",
                     lambda: nomath(blocks(groups), (256,),
                                    (small, zeros, plain, mean, std, out,
                                     np.uint32(groups), np.int32(N), np.int32(224),
                                     np.int32(224))), None))

    results = {}
    for _ in range(3):
        for name, launch, _check in variants:
            results.setdefault(name, []).append(time_ms(launch))
    print()
    for name, times in results.items():
        best = min(times)
        print(f"  {name:<34} {best:8.4f} ms  {pct(best):5.1f}% of copy  "
              f"(rounds: {', '.join(f'{t:.4f}' for t in times)})")


if __name__ == "__main__":
    sys.exit(main())
