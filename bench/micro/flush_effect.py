"""How much of a ~200 MB workload's time is the L2 flush's write-back.

Every timing here and in pipe_bench zeroes 256 MiB before each timed call,
as triton.testing.do_bench does, so that no input is still in L2. A memset
leaves L2 full of dirty lines, which the timed kernel then evicts: their
write-back shares its time. Over the 1 GiB copy that every ratio divides
by, that is a few percent; over crop_mirror_normalize's 192.7 MB it may be
much more. This times the same launches after the memset and after a flush
that only reads 256 MiB (L2 as cold for the inputs, and clean), the 1 GiB
copy both ways too.

    python3 bench/micro/flush_effect.py [PIPEC]   (default: .device's)
"""
import sys

import cupy as cp
import numpy as np

import layout_shapes as shapes
from warp_staging import divisors_by_pointer, generate

READ_FLUSH = r"""
extern "C" __global__ void read_all(const uint4 *__restrict__ in, unsigned n,
                                    unsigned *__restrict__ never) {
  unsigned x = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    uint4 v = in[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9e3779b9u && threadIdx.x == 1023) // never: the flush is zeros
    *never = x;
}
"""


def main():
    pipec = sys.argv[1] if len(sys.argv) > 1 else shapes.PIPEC
    flush = shapes.flush_buffer()
    flush.fill(0)
    never = cp.zeros(1, cp.uint32)
    read_all = cp.RawModule(code=READ_FLUSH).get_function("read_all")
    n16 = flush.size // 16
    flushes = {
        "memset": lambda: flush.fill(0),
        "read": lambda: read_all((132 * 8,), (256,),
                                 (flush, np.uint32(n16), never)),
    }

    def time_ms(fn, how, reps=40):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(5):
            fn()
        times = []
        for _ in range(reps):
            flushes[how]()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        return float(np.median(times))

    big = cp.empty(1 << 30, dtype=cp.uint8)
    big2 = cp.empty_like(big)
    hand = cp.RawModule(code=shapes.HAND, options=shapes.OPTIONS)
    copy16 = hand.get_function("copy16")
    cast4 = hand.get_function("cast4")
    rng = np.random.default_rng(3)

    src = divisors_by_pointer(generate(pipec, "cmn"))
    vec = cp.RawModule(code=src, options=shapes.OPTIONS).get_function(
        "crop_mirror_normalize_k0_vec")
    c = shapes.cmn_case(rng)
    out, n, nbytes, args = c.out, c.n, c.nbytes, c.args
    flat = cp.empty(n, cp.uint8)

    launches = [
        ("copy 1 GiB (cuMemcpy)", lambda: big2.__setitem__(Ellipsis, big),
         2 * big.nbytes),
        ("SM copy of cmn's bytes", shapes.copy_launch(copy16, nbytes), nbytes),
        ("u8 -> f32 cast, cmn's bytes",
         lambda: cast4(shapes.blocks(n, 4), (256,),
                       (flat, out, np.uint32(n // 4))), nbytes),
        ("crop_mirror_normalize (clamp), Pipe's vec entry",
         lambda: vec(shapes.blocks(n, 12), (256,), args), nbytes),
    ]
    for _ in range(2):
        for how in flushes:
            rates = []
            for name, fn, moved in launches:
                ms = time_ms(fn, how)
                rates.append(moved / (ms * 1e-3) / 1e12)
                print(f"flush by {how:6} {name:<48} {ms:8.4f} ms "
                      f"{rates[-1]:6.3f} TB/s "
                      f"{100 * rates[-1] / rates[0]:5.1f}% of the copy",
                      flush=True)


if __name__ == "__main__":
    sys.exit(main())
