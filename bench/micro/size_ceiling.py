"""What a copy of the layout workloads' own byte counts reaches (issue 12).

The copy bandwidth the benchmarks divide by is a 1 GiB copy's. The layout
workloads move 190 MB to 1.1 GB: at the H200's 4.25 TB/s the smallest take
45 us, where a kernel's ramp-up and tail weigh more than in 0.5 ms. This
times, with CuPy on the device machine and the timing of layout_shapes.py,
copies of each workload's bytes (half read, half written) by the copy
engine and by an SM kernel (one 16-byte vector a thread), and the u8 ->
f32 cast of crop_mirror_normalize's bytes, as % of the 1 GiB copy; and
a 1 GiB SM copy and a 192 Mi-element u8 -> f32 cast with V = 1, 2, 4, 8
16-byte vectors (groups of 4) a thread, all loads first: whether more bytes
in flight a thread help.

    python3 bench/micro/size_ceiling.py
"""
import sys

import cupy as cp
import numpy as np

import layout_shapes as shapes

HAND = r"""
__device__ __forceinline__ uint4 convert(uint4 x) { return x; }
__device__ __forceinline__ float4 convert(uchar4 x) {
  return make_float4(x.x, x.y, x.z, x.w);
}
// V groups a thread, a block's groups one run: every load, then every
// store (the source's group converted to the destination's).
template <int V, class In, class Out>
__device__ __forceinline__ void move_v(const In *__restrict__ in,
                                       Out *__restrict__ out, unsigned n) {
  const unsigned base = blockIdx.x * (V * blockDim.x) + threadIdx.x;
  In r[V];
#pragma unroll
  for (int v = 0; v < V; ++v)
    if (base + v * blockDim.x < n)
      r[v] = __ldg(in + base + v * blockDim.x);
#pragma unroll
  for (int v = 0; v < V; ++v)
    if (base + v * blockDim.x < n)
      out[base + v * blockDim.x] = convert(r[v]);
}
#define ENTRIES(V)                                                             \
  extern "C" __global__ void __launch_bounds__(256)                            \
      copy_v##V(const uint4 *in, uint4 *out, unsigned n) {                     \
    move_v<V>(in, out, n);                                                     \
  }                                                                            \
  extern "C" __global__ void __launch_bounds__(256)                            \
      cast_v##V(const uchar4 *in, float4 *out, unsigned n) {                   \
    move_v<V>(in, out, n);                                                     \
  }
ENTRIES(1)
ENTRIES(2)
ENTRIES(4)
ENTRIES(8)
"""


SIZES = [("crop_mirror_normalize", 192.7e6), ("concat", 201.3e6),
         ("pad32", 393.3e6), ("erase", 1073.7e6), ("1 GiB", 2 * 2**30)]


def main():
    shapes.FLUSH = shapes.flush_buffer()
    big = cp.empty(1 << 30, dtype=cp.uint8)
    big2 = cp.empty_like(big)
    ms = shapes.time_ms(lambda: big2.__setitem__(Ellipsis, big), reps=20)
    copy_tbs = 2 * big.nbytes / (ms * 1e-3) / 1e12
    print(f"copy 1 GiB (copy engine): {ms:.4f} ms, {copy_tbs:.3f} TB/s")
    hand = cp.RawModule(code=HAND, options=shapes.OPTIONS)
    copy_v1 = hand.get_function("copy_v1")
    cast_v1 = hand.get_function("cast_v1")
    for rep in range(2):
        for name, nbytes in SIZES:
            half = int(nbytes // 2) // 16 * 16
            src, dst = big[:half], big2[:half]
            shapes.report(f"{name}: copy engine", shapes.time_ms(
                lambda: dst.__setitem__(Ellipsis, src)), 2 * half, copy_tbs)
            n16 = half // 16
            grid = ((n16 + 255) // 256,)
            shapes.report(f"{name}: SM copy", shapes.time_ms(
                lambda: copy_v1(grid, (256,), (src, dst, np.uint32(n16)))),
                2 * half, copy_tbs)
        n4 = 256 * 3 * 224 * 224 // 4
        out = cp.empty(4 * n4, cp.float32)
        grid = ((n4 + 255) // 256,)
        shapes.report("crop_mirror_normalize: u8 -> f32 cast", shapes.time_ms(
            lambda: cast_v1(grid, (256,), (big, out, np.uint32(n4)))),
            5 * 4 * n4, copy_tbs)
        del out
    print("\nV vectors (groups of 4) a thread, all loads first:")
    n16 = big.nbytes // 16
    n4 = (192 << 20) // 4
    out = cp.empty(4 * n4, cp.float32)
    for rep in range(2):
        for V in (1, 2, 4, 8):
            f = hand.get_function(f"copy_v{V}")
            grid = ((n16 + 256 * V - 1) // (256 * V),)
            shapes.report(f"1 GiB SM copy, V = {V}", shapes.time_ms(
                lambda: f(grid, (256,), (big, big2, np.uint32(n16)))),
                2 * big.nbytes, copy_tbs)
        for V in (1, 2, 4, 8):
            f = hand.get_function(f"cast_v{V}")
            grid = ((n4 + 256 * V - 1) // (256 * V),)
            shapes.report(f"u8 -> f32 cast, V = {V}", shapes.time_ms(
                lambda: f(grid, (256,), (big, out, np.uint32(n4)))),
                5 * 4 * n4, copy_tbs)


if __name__ == "__main__":
    sys.exit(main())
