"""Where pipegpu's call time goes (bench/python_overhead.py's normalize on
one 224x224 image, torch tensors): the median microseconds of each part of
a call, timed alone, and of the whole call. A profiling aid, not a
benchmark the report reads."""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', 'python'))
import pipegpu  # noqa: E402
sys.path.insert(0, os.path.join(here, '..'))
from python_overhead import NORMALIZE, wall_us  # noqa: E402


def us(fn):
    return wall_us(fn, calls=3000, warmup=300)


image = torch.randint(0, 256, (1, 224, 224, 3), dtype=torch.uint8,
                      device='cuda')
out = torch.empty((1, 3, 224, 224), device='cuda')
p = pipegpu.compile(NORMALIZE)
lib = pipegpu._lib
ins = (pipegpu.DLTensor * 1)()
ins[0] = pipegpu._torch_view(image)[0]
ins[0].data = image.data_ptr()
outs = (pipegpu.DLTensor * 1)()
outs[0] = pipegpu._torch_view(out)[0]
outs[0].data = out.data_ptr()
stream = torch.cuda.current_stream()
print('whole call, out= given      %.1f' % us(lambda: p(image, out=[out])))
print('pipe_run through ctypes     %.1f' % us(
    lambda: lib.pipe_run(p._handle, ins, 1, outs, 1, 0, None)))
print('_current_stream             %.1f' % us(
    lambda: pipegpu._current_stream((image, out))))
print('_torch_view x2              %.1f' % us(
    lambda: (pipegpu._torch_view(image), pipegpu._torch_view(out))))
print('stream synchronize (idle)   %.1f' % us(lambda: stream.synchronize()))
print('empty ctypes call           %.1f' % us(
    lambda: lib.pipe_num_params(p._handle)))
