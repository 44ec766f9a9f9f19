"""What a call costs from Python (issue 14: at most 5 us above the C++
call): one 224x224 u8 HWC image through normalize to f32 CHW, with torch
tensors on the GPU, against `pipe_bench --call-latency` (the C++ run() of
the same pipeline, run by bench/run.sh before this) and torch.compile's
call of the same computation, in the same run.

Each time is the median wall-clock time of a call followed by a wait on
the stream (pipegpu's call waits on its stream itself; torch's calls get a
stream synchronize), over 2000 calls after a warm-up; pipegpu's variants
in alternating rounds of 200. bench/run.sh times the C++ call before and
after this. One JSON line each.

  python3 bench/python_overhead.py [--pipegpu-only]
                                          (PIPEGPU_LIBRARY or the bundle)
"""
import os
import statistics
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'python'))
bundled = os.path.join(here, '..', '.device', 'build', 'capi', 'libpipe_c.so')
if 'PIPEGPU_LIBRARY' not in os.environ and os.path.exists(bundled):
    os.environ['PIPEGPU_LIBRARY'] = bundled
import pipegpu  # noqa: E402
from peers_common import record  # noqa: E402

NORMALIZE = '''
pipeline normalize(images: u8[N, H, W, 3]) -> (out: f32[N, 3, H, W]) {
  mean = [123.675, 116.28, 103.53]
  std  = [58.395, 57.12, 57.375]
  out  = transpose((f32(images) - mean) / std, [0, 3, 1, 2])
}
'''
CALLS = 2000


def wall_us(fn, calls=CALLS, warmup=200):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def interleaved_us(variants, rounds=20, calls=200):
    """The median wall time of each of `variants` (name -> call), measured
    in alternating rounds, so that a drift of the host's speed during the
    run falls on all of them alike."""
    times = {name: [] for name in variants}
    for fn in variants.values():
        for _ in range(200):
            fn()
    for _ in range(rounds):
        for name, fn in variants.items():
            for _ in range(calls):
                t = time.perf_counter()
                fn()
                times[name].append((time.perf_counter() - t) * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    image = torch.randint(0, 256, (1, 224, 224, 3), dtype=torch.uint8,
                          device='cuda')
    out = torch.empty((1, 3, 224, 224), device='cuda')
    pipeline = pipegpu.compile(NORMALIZE)
    stream = torch.cuda.current_stream()
    # The C API's call alone, through ctypes, on arrays made once: the
    # floor of any Python call (what the C API adds to the C++ call is in
    # it, with ctypes' cost).
    ins = (pipegpu.DLTensor * 1)()
    outs = (pipegpu.DLTensor * 1)()
    ins[0] = pipegpu._torch_template(image)[0]
    ins[0].data = image.data_ptr()
    outs[0] = pipegpu._torch_template(out)[0]
    outs[0].data = out.data_ptr()
    run = pipegpu._run_untyped
    handle = pipeline._handle

    def ctypes_only():
        if run(handle, ins, 1, outs, 1, 0, None):
            raise RuntimeError('pipe_run failed')

    medians = interleaved_us({
        'pipegpu, out= given': lambda: pipeline(image, out=[out]),
        'pipegpu, result allocated': lambda: pipeline(image),
        'pipegpu, out= and stream given':
            lambda: pipeline(image, out=[out], stream=stream.cuda_stream),
        'pipe_run through ctypes alone': ctypes_only})
    for name, us in medians.items():
        record('normalize_224_call', name, us / 1000,
               wall_us_per_run=round(us, 1))
    if '--pipegpu-only' in sys.argv:
        return

    mean = torch.tensor([123.675, 116.28, 103.53], device='cuda')
    std = torch.tensor([58.395, 57.12, 57.375], device='cuda')

    def eager(x):
        return ((x.float() - mean) / std).permute(0, 3, 1, 2).contiguous()
    compiled = torch.compile(eager)
    expected = eager(image)
    pipeline(image, out=[out])
    torch.testing.assert_close(out, expected, rtol=1e-6, atol=1e-5)
    for name, fn in (('torch eager', eager), ('torch.compile', compiled)):
        def call():
            fn(image)
            stream.synchronize()
        us = wall_us(call)
        record('normalize_224_call', name, us / 1000,
               wall_us_per_run=round(us, 1))


if __name__ == '__main__':
    main()
