"""Whether staging a warp's span groups through shared memory moves concat
and pad32 closer to copy (issue 12, on the H200).

Pipe's span entry gives each thread one group of whole pixels (24 bytes of
u8 pixels) and moves it with 8- or 4-byte words: a warp's store instruction
then writes 8 bytes out of every 24, so each of its three stores touches
every sector of the warp's 768 bytes, and the loads likewise. This times
Pipe's generated span entries (`pipec --emit=cuda`, launched as
ElementwiseLauncher would) against the same source with the warp's groups
passed through shared memory, so that every global instruction of the warp
covers one contiguous run: the stores only, and the loads as well. Results
are checked against NumPy's; timing as layout_shapes.py.

    python3 bench/micro/warp_staging.py [PIPEC]   (default: .device's)
"""
import os
import subprocess
import sys

import cupy as cp
import numpy as np

import layout_shapes as shapes
from layout_shapes import divisors  # noqa: F401 (for the other micros)

STAGING = r"""
// A warp's stage: 32 groups of up to 24 bytes (launch bounds of 256).
#define PIPE_STAGE_DECL __shared__ uint4 pipe_stage_all[8][48]; \
  void *stage = pipe_stage_all[threadIdx.x >> 5];
// Stores this lane's group (BYTES a multiple of 8) where the warp's 32
// groups are consecutive: through the stage, each store of the warp one
// 256-byte run.
template <typename T, int N>
__device__ __forceinline__ void hand_store_warp(T *dst, const T (&src)[N],
                                                void *stage) {
  constexpr int W = int(sizeof(T)) * N / 8;
  const unsigned lane = threadIdx.x & 31;
  uint2 *s = reinterpret_cast<uint2 *>(stage);
  __syncwarp();
#pragma unroll
  for (int k = 0; k < W; ++k)
    s[lane * W + k] = reinterpret_cast<const uint2 *>(src)[k];
  __syncwarp();
  uint2 *d = reinterpret_cast<uint2 *>(dst) - lane * W;
#pragma unroll
  for (int k = 0; k < W; ++k)
    d[k * 32 + lane] = s[k * 32 + lane];
}
// Loads this lane's N elements where the warp's 32 runs are consecutive.
template <int CHUNK, typename T, int N>
__device__ __forceinline__ void hand_load_warp(T (&dst)[N], const T *src,
                                               void *stage) {
  typedef typename pipe_chunk<CHUNK>::type C;
  constexpr int W = int(sizeof(T)) * N / CHUNK;
  const unsigned lane = threadIdx.x & 31;
  C *s = reinterpret_cast<C *>(stage);
  const C *from = reinterpret_cast<const C *>(src) - lane * W;
  __syncwarp();
#pragma unroll
  for (int k = 0; k < W; ++k)
    s[k * 32 + lane] = from[k * 32 + lane];
  __syncwarp();
#pragma unroll
  for (int k = 0; k < W; ++k)
    reinterpret_cast<C *>(dst)[k] = s[lane * W + k];
}
"""


def divisors_by_pointer(source):
    """The divisors struct by pointer (CuPy passes no structs by value)."""
    return source.replace(
        "const pipe_divisors<4> dim_divisors) {",
        "const pipe_divisors<4> *__restrict__ divisors_at) {\n"
        "  const pipe_divisors<4> dim_divisors = *divisors_at;")


def entry(source, name):
    """The text of one generated entry, from its signature to its end."""
    start = source.index(f"{name}(")
    start = source.rindex("extern \"C\"", 0, start)
    end = source.index("\n}\n", start) + 3
    return source[start:end]


def staged(source, name, suffix, loads, stores, warp_run=None, blocks=None):
    """`name`'s entry renamed `name_suffix`, with `loads` (text,
    replacement) pairs, the group's store through the stage where the
    whole warp is in range, and `blocks` resident blocks an SM asked of
    the register allocator."""
    text = entry(source, name)
    text = text.replace(f"{name}(", f"{name}_{suffix}(")
    if blocks:
        text = text.replace("__launch_bounds__(256)",
                            f"__launch_bounds__(256, {blocks})")
    text = text.replace(
        "    const I g = first;\n",
        "    const I g = first;\n"
        "    const bool whole = (first | 31u) < groups;\n"
        "    PIPE_STAGE_DECL\n")
    if warp_run:
        anchor, condition = warp_run
        assert anchor in text, anchor
        text = text.replace(anchor, anchor + condition)
    for old, new in loads:
        assert old in text, old
        text = text.replace(old, new)
    if stores:
        old = "    pipe_store_vec(out0 + i0, r0);\n"
        assert old in text
        text = text.replace(
            old, "    if (whole) hand_store_warp(out0 + i0, r0, stage);\n"
            "    else pipe_store_vec(out0 + i0, r0);\n")
    return text


def generate(pipec, name):
    return subprocess.run([pipec, "-", "--emit=cuda"],
                          input=shapes.PIPELINES[name], text=True,
                          capture_output=True, check=True).stdout


def main():
    pipec = sys.argv[1] if len(sys.argv) > 1 else shapes.PIPEC
    shapes.FLUSH = shapes.flush_buffer()
    copy_tbs = shapes.copy_bandwidth()
    hand = cp.RawModule(code=shapes.HAND, options=shapes.OPTIONS)
    copy16 = hand.get_function("copy16")
    rng = np.random.default_rng(1)

    def in_turns(module, entries, grid, args, out, want, nbytes):
        """Each (label, entry) of `module` launched with `args`, checked
        and timed, round after round, beside a copy of the same bytes."""
        launches = [("copy of the same bytes",
                     shapes.copy_launch(copy16, nbytes))]
        for label, name in entries:
            f = module.get_function(name)
            launches.append((label, lambda f=f: f(grid, (256,), args)))
        run_in_turns(launches, out, want, nbytes, copy_tbs)

    # concat
    src = divisors_by_pointer(generate(pipec, "concat"))
    loads = [(f"pipe_load_chunks<4>(w, in{i} + g * (I)12);",
              f"if (whole) hand_load_warp<4>(w, in{i} + g * (I)12, stage);"
              f" else pipe_load_chunks<4>(w, in{i} + g * (I)12);")
             for i in (0, 1)]
    extra = STAGING + "".join(
        staged(src, "concat_k0_span", *v) for v in [
            ("stores", [], True), ("both", loads, True),
            ("b8", [], False, None, 8), ("stores_b8", [], True, None, 8)])
    m = cp.RawModule(code=src + extra, options=shapes.OPTIONS)
    N, H, W = 64, 512, 512
    a = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    b = cp.asarray(rng.integers(0, 256, (N, H, W, 3), dtype=np.uint8))
    c = cp.empty((N, H, W, 6), cp.uint8)
    n = c.size
    nbytes = a.size + b.size + c.size
    want = cp.concatenate([a, b], axis=3)
    args = (a, b, c, np.int64(n), np.int64(H), np.int64(N), np.int64(W),
            divisors([N, H, W, 6]))
    print(f"\nconcat, {nbytes / 1e6:.1f} MB")
    in_turns(m, [("pipe span", "concat_k0_span"),
                 ("stores staged", "concat_k0_span_stores"),
                 ("loads + stores staged", "concat_k0_span_both"),
                 ("8 blocks an SM", "concat_k0_span_b8"),
                 ("stores staged, 8 blocks", "concat_k0_span_stores_b8")],
             shapes.blocks(n, 24), args, c, want, nbytes)
    del a, b, c, want

    # pad to a multiple of 32
    src = divisors_by_pointer(generate(pipec, "pad32"))
    warp_run = ("      const I at = b0[0] * (I)1;\n",
                "      const I at0 = __shfl_sync(~0u, at, 0);\n"
                "      const bool wrun = whole && __all_sync(~0u, run && "
                "at % 8 == 0 && at == at0 + (threadIdx.x & 31) * 24);\n")
    loads = [("pipe_load_chunks<8>(w, in0 + b0[0]);",
              "if (wrun) hand_load_warp<8>(w, in0 + b0[0], stage);"
              " else pipe_load_chunks<8>(w, in0 + b0[0]);")]
    extra = STAGING + "".join(
        staged(src, "pad32_k0_span", *v) for v in [
            ("stores", [], True), ("both", loads, True, warp_run),
            ("b8", [], False, None, 8), ("stores_b6", [], True, None, 6),
            ("stores_b8", [], True, None, 8)])
    m = cp.RawModule(code=src + extra, options=shapes.OPTIONS)
    pad = shapes.pad32_case(rng)
    y, want, n, nbytes, args = pad.y, pad.want, pad.n, pad.nbytes, pad.args
    print(f"\npad32, {nbytes / 1e6:.1f} MB")
    in_turns(m, [("pipe span", "pad32_k0_span"),
                 ("stores staged", "pad32_k0_span_stores"),
                 ("loads + stores staged", "pad32_k0_span_both"),
                 ("8 blocks an SM", "pad32_k0_span_b8"),
                 ("stores staged, 6 blocks", "pad32_k0_span_stores_b6"),
                 ("stores staged, 8 blocks", "pad32_k0_span_stores_b8")],
             shapes.blocks(n, 24), args, y, want, nbytes)


def run_in_turns(variants, out, want, nbytes, copy_tbs, reps=3):
    for _ in range(reps):
        for name, launch in variants:
            if name.startswith("copy"):
                shapes.report(name, shapes.time_ms(launch), nbytes, copy_tbs)
            else:
                shapes.checked(name, launch, out, want, nbytes, copy_tbs)


if __name__ == "__main__":
    sys.exit(main())
