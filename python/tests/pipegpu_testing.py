"""What the pipegpu tests share: the module itself (from this source tree,
whatever is installed), skipping, the inputs and pipelines several tests
use, `expect`, and the runner that stands in for pytest where it is
missing (the GPU machine): python3 test_NAME.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))
import pipegpu  # noqa: E402

try:
    import pytest
    skip = pytest.skip
    Skipped = pytest.skip.Exception
except ImportError:  # run_as_script below
    class Skipped(Exception):
        pass

    def skip(why):
        raise Skipped(why)

__all__ = ['pipegpu', 'skip', 'Skipped', 'rng', 'NORMALIZE', 'normalize_numpy',
           'inputs', 'expect', 'ThroughDLPack', 'NOISE', 'torch_cuda',
           'slowly_made_fours', 'run_as_script']

rng = np.random.default_rng(7)


NORMALIZE = '''
pipeline normalize(x: u8[N, H, W, 3], mean: f32[3], inv: f32[3]) -> (
    y: f32[N, 3, H, W], bright: bool[N]) {
  y = transpose((f32(x) - mean) * inv, [0, 3, 1, 2])
  bright = mean(f32(x), axes = [1, 2, 3]) > 127
}
'''


def normalize_numpy(x, mean, inv):
    y = np.transpose((x.astype(np.float32) - mean) * inv, (0, 3, 1, 2))
    return y, x.astype(np.float64).mean(axis=(1, 2, 3)) > 127


def inputs(n=3, h=7, w=5):
    x = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    mean = np.array([123.675, 116.28, 103.53], np.float32)
    inv = (1 / np.array([58.395, 57.12, 57.375])).astype(np.float32)
    return x, mean, inv


def expect(kind, fn, *fragments):
    try:
        fn()
    except kind as e:
        for fragment in fragments:
            assert fragment in str(e), (fragment, str(e))
        return e
    raise AssertionError(f'no {kind.__name__}')


class ThroughDLPack:
    """A NumPy array seen only through DLPack (strides and all), as any
    producer's would be."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


NOISE = '''
pipeline noise(x: f32[N, W]) -> (y: f32[N, W], k: i32[N]) {
  y = x + normal(shape = [N, W])
  k = randint(0, W, shape = [N])
}
'''


def torch_cuda():
    try:
        import torch
    except ImportError:
        skip('no torch')
    if not torch.cuda.is_available():
        skip('no GPU for torch')
    return torch


def slowly_made_fours(torch):
    """2^24 fours, queued on torch's current stream behind a sleep of the
    GPU's: a run that does not wait for that stream reads something else."""
    x = torch.zeros(1 << 24, device='cuda')
    torch.cuda.synchronize()
    x.fill_(3.0)
    torch.cuda._sleep(20_000_000)
    x.add_(1.0)
    return x

def run_as_script(tests):
    """Runs the test_ functions of the module whose globals are `tests`,
    as pytest would (a fresh tmp_path for the tests that take one), prints
    PASS, SKIP or FAIL for each, and exits 1 if any failed."""
    import inspect
    import pathlib
    import tempfile
    failed = 0
    for name, fn in sorted(tests.items()):
        if not name.startswith('test_'):
            continue
        try:
            if 'tmp_path' in inspect.signature(fn).parameters:
                with tempfile.TemporaryDirectory() as tmp:
                    fn(pathlib.Path(tmp))
            else:
                fn()
            print('PASS', name)
        except Skipped as e:
            print('SKIP', name, e)
        except Exception as e:  # noqa: BLE001
            failed += 1
            print('FAIL', name, type(e).__name__, e)
    print(f'{failed} failed')
    sys.exit(1 if failed else 0)
