"""pipegpu against NumPy (an oracle that shares nothing with Pipe) on the CPU
reference, and on the GPU with torch, CuPy and JAX where they and a GPU are
there: results equal, memory shared rather than copied, bad input named,
outputs left as they were by a failed run, the caller's stream honoured.

Runs under pytest (lit's test/python/pytest.test), or as a script where
pytest is missing (the GPU machine): python3 test_pipegpu.py."""
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))
import pipegpu  # noqa: E402

try:
    import pytest
    skip = pytest.skip
    Skipped = pytest.skip.Exception
except ImportError:  # the script runner below
    class Skipped(Exception):
        pass

    def skip(why):
        raise Skipped(why)

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


# --- Images -------------------------------------------------------------------

def test_images_written_and_read_back(tmp_path):
    for shape in [(13, 17), (13, 17, 1), (13, 17, 2), (13, 17, 3),
                  (13, 17, 4)]:
        x = rng.integers(0, 256, shape, dtype=np.uint8)
        path = tmp_path / f'x{len(shape)}-{shape[-1]}.png'
        pipegpu.write_image(path, x)
        back = pipegpu.read_image(path)
        assert back.dtype == 'u8' and back.device == (1, 0)
        want = x if len(shape) == 3 else x[:, :, None]
        np.testing.assert_array_equal(back.numpy(), want)
    # bool as 0 and 255; a folder of same-sized images as one batch, by name.
    m = rng.integers(0, 2, (6, 5)).astype(bool)
    (tmp_path / 'batch').mkdir()
    pipegpu.write_image(tmp_path / 'batch' / 'b.png', m)
    pipegpu.write_image(tmp_path / 'batch' / 'a.png', ~m)
    batch = pipegpu.read_image(tmp_path / 'batch').numpy()
    assert batch.shape == (2, 6, 5, 1)
    np.testing.assert_array_equal(batch[0, :, :, 0], np.where(~m, 255, 0))
    np.testing.assert_array_equal(batch[1, :, :, 0], np.where(m, 255, 0))


def turbojpeg_encode(image):
    """A JPEG of `image` (u8[H, W, 3]) at quality 100 without subsampling,
    by TurboJPEG's encoder (Pipe only decodes), or None without it."""
    import ctypes.util
    try:
        tj = ctypes.CDLL(ctypes.util.find_library('turbojpeg') or
                         'libturbojpeg.so.0')
    except OSError:
        return None
    tj.tjInitCompress.restype = ctypes.c_void_p
    handle = ctypes.c_void_p(tj.tjInitCompress())
    buf, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_ulong(0)
    h, w, _ = image.shape
    data = np.ascontiguousarray(image)
    assert tj.tjCompress2(handle, data.ctypes.data_as(ctypes.c_void_p), w, 0,
                          h, 0, ctypes.byref(buf), ctypes.byref(size), 0, 100,
                          0) == 0
    encoded = ctypes.string_at(buf, size.value)
    tj.tjFree(buf)
    tj.tjDestroy(handle)
    return encoded


def test_jpeg_read(tmp_path):
    yy, xx = np.mgrid[0:21, 0:34]
    smooth = np.stack([xx * 7, yy * 11, xx * 3 + yy * 5], -1).astype(np.uint8)
    encoded = turbojpeg_encode(smooth)
    if encoded is None:
        skip('no TurboJPEG to encode a JPEG with')
    (tmp_path / 'smooth.jpg').write_bytes(encoded)
    back = pipegpu.read_image(tmp_path / 'smooth.jpg').numpy()
    assert back.shape == (21, 34, 3)
    assert np.abs(back.astype(int) - smooth).max() <= 3


def test_bad_images_are_named_and_nothing_is_written(tmp_path):
    x = rng.integers(0, 256, (9, 8, 3), dtype=np.uint8)
    good = tmp_path / 'good.png'
    pipegpu.write_image(good, x)
    cut = tmp_path / 'cut.png'
    cut.write_bytes(good.read_bytes()[:60])
    expect(pipegpu.FileError, lambda: pipegpu.read_image(cut), "cut.png")
    expect(OSError, lambda: pipegpu.read_image(tmp_path / 'none.png'),
           "cannot open", "none.png")
    (tmp_path / 'mixed').mkdir()
    pipegpu.write_image(tmp_path / 'mixed' / 'a.png', x)
    pipegpu.write_image(tmp_path / 'mixed' / 'b.png',
                        np.ascontiguousarray(x[:, :4]))
    expect(pipegpu.FileError,
           lambda: pipegpu.read_image(tmp_path / 'mixed'), "b.png")
    # Not an image: named, and the file already there is kept as it was.
    before = good.read_bytes()
    for bad, words in [(x.astype(np.float32), "is float32, not u8"),
                       (np.zeros((2, 3, 4, 3), np.uint8), "[H, W, C]"),
                       (np.zeros((4, 5, 6), np.uint8), "C of 1"),
                       (x[:, ::2], "C-contiguous")]:
        expect(pipegpu.ArgumentError,
               lambda: pipegpu.write_image(good, bad), words)
    assert good.read_bytes() == before
    e = expect(pipegpu.FileError,
               lambda: pipegpu.write_image(tmp_path / 'no' / 'dir.png', x),
               "no/dir.png'")
    assert '.tmp-' not in str(e), str(e)  # the path asked for, not ours
    assert not (tmp_path / 'no').exists()


# --- Compiling ----------------------------------------------------------------

def test_version():
    assert pipegpu.version().count('.') == 2


def test_compile_error_carries_the_location_and_caret():
    try:
        pipegpu.compile('pipeline p(x: u8[N]) -> (y: u8[N]) {\n  y = x +\n}\n',
                        name='t.pipe')
    except pipegpu.CompileError as e:
        lines = str(e).split('\n')
        assert lines[0] == 't.pipe:2:10: error: expected an expression, ' \
            'found end of line'
        assert lines[1] == '  y = x +'
        assert lines[2] == '         ^'
        assert e.status == 1
    else:
        raise AssertionError('no CompileError')


def test_compile_file_picks_a_pipeline():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'two.pipe')
        with open(path, 'w') as f:
            f.write('pipeline a(x: i32[N]) -> (y: i32[N]) {\n  y = x + 1\n}\n'
                    'pipeline b(x: i32[N]) -> (y: i32[N]) {\n  y = x * 2\n}\n')
        b = pipegpu.compile_file(path, pipeline='b')
        assert b.name == 'b'
        x = np.array([1, -2, 3], np.int32)
        assert (b(x, backend='reference').numpy() == x * 2).all()
        try:
            pipegpu.compile_file(path, pipeline='nope')
        except pipegpu.CompileError as e:
            assert 'nope' in str(e)
        else:
            raise AssertionError('no CompileError')


def test_parameters_and_results_are_described():
    p = pipegpu.compile(NORMALIZE)
    assert p.name == 'normalize'
    # The dtypes by Pipe's names, as Tensor.dtype gives them (they were
    # DLPack (code, bits) pairs).
    assert p.params == [('x', ['N', 'H', 'W', '3'], 'u8'),
                        ('mean', ['3'], 'f32'), ('inv', ['3'], 'f32')]
    assert p.results == [('y', ['N', '3', 'H', 'W'], 'f32'),
                         ('bright', ['N'], 'bool')]
    assert repr(p).startswith('pipegpu.Pipeline(normalize(x[N, H, W, 3]')


# --- The CPU reference --------------------------------------------------------

def test_reference_equals_numpy_on_odd_sizes():
    p = pipegpu.compile(NORMALIZE)
    for shape in [(1, 1, 1), (3, 7, 5), (2, 33, 17)]:
        x, mean, inv = inputs(*shape)
        y, bright = p(x, mean, inv, backend='reference')
        want_y, want_bright = normalize_numpy(x, mean, inv)
        assert y.dtype == 'f32' and y.shape == want_y.shape
        np.testing.assert_array_equal(y.numpy(), want_y)
        assert bright.dtype == 'bool'
        np.testing.assert_array_equal(bright.numpy(), want_bright)


def test_special_values_and_python_scalars():
    p = pipegpu.compile('pipeline p(x: f32[N], s: f32, k: i64) -> '
                        '(y: f32[N], z: i64[N]) {\n'
                        '  y = x * s\n  z = i64(x) + k\n}\n')
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 2.5, 3.5, 1e30], np.float32)
    y, z = p(x, 2.0, -1, backend='reference')
    np.testing.assert_array_equal(y.numpy(), x * np.float32(2))
    assert np.signbit(y.numpy()[3])
    # NaN casts to 0, the rest round half to even and saturate; + k wraps
    # (docs/language.md, Casts and Operators).
    want = np.array([0, 2**63 - 1, -2**63, 0, 2, 4, 2**63 - 1]) - 1
    np.testing.assert_array_equal(z.numpy(), want)


def test_results_are_not_copied_on_the_way_out():
    p = pipegpu.compile(NORMALIZE)
    y, _ = p(*inputs(), backend='reference')
    view = np.asarray(y)
    assert view.ctypes.data == y.data_ptr
    taken = np.from_dlpack(y)
    assert taken.ctypes.data == y.data_ptr
    # The memory lives while a consumer holds it.
    want = view.copy()
    del y, view
    np.testing.assert_array_equal(taken, want)


def test_outputs_given_by_the_caller_are_written_in_place():
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs()
    y = np.zeros((3, 3, 7, 5), np.float32)
    bright = np.zeros(3, np.bool_)
    pointer = y.ctypes.data
    assert p(x, mean, inv, out=[y, bright], backend='reference')[0] is y
    assert y.ctypes.data == pointer
    want_y, want_bright = normalize_numpy(x, mean, inv)
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(bright, want_bright)


def expect(kind, fn, *fragments):
    try:
        fn()
    except kind as e:
        for fragment in fragments:
            assert fragment in str(e), (fragment, str(e))
        return e
    raise AssertionError(f'no {kind.__name__}')


def test_bad_inputs_are_named():
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs()
    run = p.__call__
    expect(pipegpu.ArgumentError,
           lambda: run(x.astype(np.int16), mean, inv, backend='reference'),
           "input 'x' is int16 but the pipeline takes u8")
    expect(pipegpu.ArgumentError, lambda: run(x, mean, backend='reference'),
           "takes 3 inputs, got 2")
    expect(pipegpu.ArgumentError,
           lambda: run(x[..., :2].copy(), mean, inv, backend='reference'),
           "'x'")
    expect(pipegpu.ArgumentError,
           lambda: run(x, mean, inv, backend='reference',
                       out=[np.zeros((3, 3, 7, 4), np.float32),
                            np.zeros(3, np.bool_)]),
           "output 'y' is f32[3, 3, 7, 4] but the result is f32[3, 3, 7, 5]")
    expect(ValueError, lambda: run(x, mean, inv, backend='cpu'),
           "'gpu' or 'reference'")


def test_bad_tensors_are_argument_errors_with_or_without_a_gpu():
    # The GPU backend checks a run's tensors before it loads its kernels:
    # without a GPU a wrong output is still named as such, not as "no GPU".
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(2, 5, 4)
    wrong = np.zeros((2, 3, 4, 5), np.float32)
    bright = np.zeros(2, bool)
    expect(pipegpu.ArgumentError,
           lambda: p(x, mean, inv, out=[wrong, bright]),
           "output 'y' is f32[2, 3, 4, 5] but the result is f32[2, 3, 5, 4]")


def test_a_failed_run_leaves_the_outputs():
    p = pipegpu.compile('pipeline c(x: u8[N, H, W], a: i32[N, 2]) -> '
                        '(y: u8[N, 2, 2]) {\n'
                        '  y = crop(x, anchor = a, shape = [2, 2])\n}\n',
                        name='c.pipe')
    x = rng.integers(0, 256, (2, 5, 4), dtype=np.uint8)
    y = np.full((2, 2, 2), 77, np.uint8)
    bad = np.array([[0, 0], [4, 1]], np.int32)
    e = expect(pipegpu.PipeError,
               lambda: p(x, bad, out=[y], backend='reference'),
               'sample [1] is 4', 'nothing was written')
    assert e.status == 3
    assert (y == 77).all()
    good = np.array([[0, 0], [3, 1]], np.int32)
    p(x, good, out=[y], backend='reference')
    np.testing.assert_array_equal(y, np.stack([x[0, 0:2, 0:2], x[1, 3:5, 1:3]]))


class ThroughDLPack:
    """A NumPy array seen only through DLPack (strides and all), as any
    producer's would be."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_layouts_zero_sizes_and_strides():
    p = pipegpu.compile('pipeline z(x: i32[N, W]) -> (y: i32[N, W]) {\n'
                        '  y = x + 1\n}\n')
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(
        p(ThroughDLPack(x), backend='reference').numpy(), x + 1)
    # A dim of 0: any strides are compact (torch gives empty tensors (1, 1)).
    for shape in [(3, 0), (0, 4), (0, 0)]:
        empty = np.zeros(shape, np.int32)
        assert p(ThroughDLPack(empty), backend='reference').shape == shape
    # A transposed view is named, not read in the wrong order.
    expect(pipegpu.ArgumentError,
           lambda: p(ThroughDLPack(x.T), backend='reference'),
           "input 'x' is not compact and row-major")


def test_outputs_that_cannot_be_written_are_refused():
    p = pipegpu.compile('pipeline z(x: i32[N, W]) -> (y: i32[N, W]) {\n'
                        '  y = x + 1\n}\n')
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    expect(pipegpu.ArgumentError,
           lambda: p(x, out=[x], backend='reference'),
           "output 'y' overlaps input 'x'")
    frozen = np.zeros((3, 4), np.int32)
    frozen.flags.writeable = False
    expect(pipegpu.ArgumentError, lambda: p(x, out=[frozen],
                                            backend='reference'),
           "output 'y' is a read-only NumPy array")
    assert (frozen == 0).all()
    # Arrays Pipe cannot read as they are are named, with what to pass
    # instead (a byte-swapped one had 'NumPy dtype >i4 has no Pipe
    # dtype', a strided one named no array).
    swapped = x.astype('>i4')
    expect(pipegpu.ArgumentError, lambda: p(swapped, backend='reference'),
           "input 'x' is byte-swapped (NumPy dtype >i4)", "newbyteorder('=')")
    strided = np.zeros((3, 8), np.int32)[:, ::2]
    expect(pipegpu.ArgumentError,
           lambda: p(x, out=[strided], backend='reference'),
           "output 'y' is a NumPy array that is not C-contiguous")
    expect(pipegpu.ArgumentError,
           lambda: p(x.astype(np.complex64), backend='reference'),
           "input 'x' is a NumPy complex64 array, which has no Pipe dtype")
    assert (strided == 0).all()
    # One output may be given alone.
    y = np.zeros((3, 4), np.int32)
    assert p(x, out=y, backend='reference')[0] is y
    np.testing.assert_array_equal(y, x + 1)


def test_results_exported_many_times_and_dropped():
    p = pipegpu.compile(NORMALIZE)
    y, _ = p(*inputs(), backend='reference')
    first, second = np.from_dlpack(y), np.from_dlpack(y)
    assert first.ctypes.data == second.ctypes.data == y.data_ptr
    for _ in range(100):  # capsules no consumer takes free their tensor
        y.__dlpack__()
        y.__dlpack__(max_version=(1, 1))
    want = first.copy()
    del y, first
    np.testing.assert_array_equal(second, want)


NOISE = '''
pipeline noise(x: f32[N, W]) -> (y: f32[N, W], k: i32[N]) {
  y = x + normal(shape = [N, W])
  k = randint(0, W, shape = [N])
}
'''


def test_random_runs_advance_and_replay():
    p = pipegpu.compile(NOISE)
    assert (p.seed, p.random_run) == (0, 0)
    x = np.zeros((3, 50), np.float32)
    first = p(x, backend='reference')[0].numpy()
    assert p.random_run == 1
    second = p(x, backend='reference')[0].numpy()
    assert not np.array_equal(first, second)
    p.random_run = 0
    np.testing.assert_array_equal(p(x, backend='reference')[0].numpy(), first)
    p.seed = 2 ** 64 - 1
    assert (p.seed, p.random_run) == (2 ** 64 - 1, 1)
    other = p(x, backend='reference')[0].numpy()
    assert not np.array_equal(other, second)
    # NumPy integers are taken as numbers, and named as numbers when out
    # of range (NumPy 2's repr would say np.int64(-3)).
    p.random_run = np.uint32(0)
    assert p.random_run == 0
    expect(pipegpu.ArgumentError, lambda: setattr(p, 'seed', np.int64(-3)),
           'seed is -3, which is negative')
    expect(pipegpu.ArgumentError, lambda: setattr(p, 'seed', True),
           'seed is an integer, not the bool True')
    # Standard normal noise: moments within 5 sigma of 0 and 1.
    assert abs(first.mean()) < 5 / np.sqrt(first.size)
    assert abs(first.std() - 1) < 0.2


def test_reference_runs_from_threads_each_draw_their_own_run():
    # Runs of one pipeline from several threads: each takes its own random
    # run number (none repeated, none lost), as the docs promise.
    p = pipegpu.compile(NOISE)
    x = np.zeros((2, 7), np.float32)
    results, errors = [], []

    def worker():
        try:
            for _ in range(25):
                results.append(p(x, backend='reference')[0].numpy().tobytes())
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert p.random_run == 200
    assert len(set(results)) == 200


def test_numbers_are_made_arrays_only_when_the_dtype_holds_them():
    p = pipegpu.compile("""
pipeline I(x: u8[N], k: u8, f: f32, b: bool, i: i8) -> (y: u8[N], g: f32) {
  y = x + k
  g = f * f32(b) + f32(i)
}
""")
    x = np.arange(3, dtype=np.uint8)
    y, g = p(x, 3, np.float64(2.5), True, np.int64(-5), backend='reference')
    np.testing.assert_array_equal(y.numpy(), x + 3)
    assert g.numpy() == np.float32(-2.5)
    # Signs that change are wraps: -1 is no u64, 2^64 - 1 no i64.
    q = pipegpu.compile("""
pipeline w(k: u64, j: i64) -> (g: f64) {
  g = f64(k) + f64(j)
}
""")
    expect(pipegpu.ArgumentError, lambda: q(-1, 0, backend='reference'),
           "input 'k' is -1")
    expect(pipegpu.ArgumentError,
           lambda: q(np.int8(-1), 0, backend='reference'), "input 'k' is -1")
    expect(pipegpu.ArgumentError,
           lambda: q(0, 2 ** 64 - 1, backend='reference'), "input 'j' is")
    assert q(2 ** 64 - 1, -5, backend='reference').numpy() == \
        np.float64(2 ** 64 - 1) - 5
    # A Python int past the i64s is still a float.
    assert p(x, 0, 2 ** 70, 1, 0, backend='reference')[1].numpy() == \
        np.float32(2.0 ** 70)
    for args, text in [((300, 1.0, 1, 0), "input 'k' is 300, which does "
                        "not fit its dtype u8"),
                       ((-1, 1.0, 1, 0), "input 'k' is -1"),
                       ((2.7, 1.0, 1, 0), "input 'k' is 2.7"),
                       ((2 ** 64, 1.0, 1, 0), "input 'k' is 18446744073709551616"),
                       ((1, 1e300, 1, 0), "input 'f' is 1e+300, which does "
                        "not fit its dtype f32 (it overflows)"),
                       ((1, 1j, 1, 0), "input 'f' is 1j"),
                       ((1, 1.0, 2, 0), "input 'b' is 2"),
                       ((1, 1.0, 1, 200), "input 'i' is 200"),
                       ((1, 1.0, 1, np.uint8(200)), "input 'i' is 200"),
                       ((1, 1.0, 1, float('nan')), "input 'i' is nan, which "
                        "does not fit its dtype i8"),
                       # Floats and bools are no integers, floats no bools
                       # (docs/python.md); they were taken when exact.
                       ((2.0, 1.0, 1, 0), "input 'k' is 2.0, which does not "
                        "fit its dtype u8 (an integer parameter takes "
                        "integers)"),
                       ((True, 1.0, 1, 0), "input 'k' is True"),
                       ((1, 1.0, 1, np.float32(2)), "input 'i' is 2.0"),
                       ((1, 1.0, 1.0, 0), "input 'b' is 1.0, which does not "
                        "fit its dtype bool (a bool parameter takes True, "
                        "False, 0 or 1)")]:
        expect(pipegpu.ArgumentError,
               lambda: p(x, *args, backend='reference'), text)


def test_c_api_says_when_an_array_is_null():
    # A NULL array with a count is named as such, not as a count mismatch
    # ("takes 2 inputs, got 2").
    from pipegpu import _check, _lib
    p = pipegpu.compile(NOISE)
    reference = 1
    expect(pipegpu.PipeError,
           lambda: _check(_lib.pipe_run(p._handle, None, 1, None, 1,
                                        reference, None)),
           'the outputs are NULL but their count is 1')
    import ctypes
    shape = (ctypes.c_int64 * 4)()
    expect(pipegpu.PipeError,
           lambda: _check(_lib.pipe_result_shape(p._handle, None, 1, 0,
                                                 shape)),
           'the inputs are NULL but their count is 1')
    expect(pipegpu.PipeError,
           lambda: _check(_lib.pipe_param_info(p._handle, 0, None)),
           'pipe_param_info: info is NULL')


def test_a_stream_that_is_no_handle_is_refused():
    p = pipegpu.compile(NOISE)
    x = np.zeros((3, 50), np.float32)
    for stream in ('abc', 1.5, object(), -1, True):
        expect(pipegpu.ArgumentError,
               lambda: p(x, backend='reference', stream=stream),
               'stream is ')
    assert p.random_run == 0  # nothing ran


def test_sources_and_files_that_cannot_be_compiled_say_why(tmp_path):
    # bytes are a source too; a NUL would end the C string early; a file
    # that is not there is an OSError.
    p = pipegpu.compile(NOISE.encode())
    assert p.name
    expect(pipegpu.CompileError,
           lambda: pipegpu.compile(NOISE + '\0# rest'), 'NUL character')
    expect(TypeError, lambda: pipegpu.compile(3), 'not int')
    expect(OSError, lambda: pipegpu.compile_file(tmp_path / 'none.pipe'),
           'none.pipe', 'no such file')
    # A FIFO is there, but no file to compile (it was "no such file").
    os.mkfifo(tmp_path / 'fifo.pipe')
    expect(OSError, lambda: pipegpu.compile_file(tmp_path / 'fifo.pipe'),
           'fifo.pipe', 'not a regular file')
    expect(pipegpu.ArgumentError, lambda: pipegpu.shard_range(10.7, 0, 3),
           'integers')


def test_shard_range_splits_evenly_and_checks_its_arguments():
    parts = [pipegpu.shard_range(1001, r, 4) for r in range(4)]
    assert parts == [(0, 251), (251, 250), (501, 250), (751, 250)]
    assert pipegpu.shard_range(2, 2, 3) == (2, 0)
    # Without torch.distributed initialized: the whole.
    assert pipegpu.shard_range(7) == (0, 7)
    expect(pipegpu.ArgumentError, lambda: pipegpu.shard_range(5, 3, 3),
           'the shard must be in [0, num_shards)')
    expect(pipegpu.ArgumentError, lambda: pipegpu.shard_range(5, 1),
           'give both shard_id and num_shards')


def test_parts_of_a_batch_draw_what_the_whole_batch_draws():
    # Two processes of a torchrun job, each with its part and its offset,
    # draw for their samples what one run over the whole batch draws.
    p = pipegpu.compile(NOISE)
    x = rng.standard_normal((7, 33)).astype(np.float32)
    whole = [r.numpy() for r in p(x, backend='reference')]
    parts = []
    for rank in range(2):
        q = pipegpu.compile(NOISE)
        begin, count = pipegpu.shard_range(7, rank, 2)
        q.batch_offset = begin
        assert q.batch_offset == begin
        parts.append([r.numpy() for r in
                      q(x[begin:begin + count], backend='reference')])
        # Setting the seed keeps the offset.
        q.seed = 0
        assert q.batch_offset == begin
    for r in range(len(whole)):
        np.testing.assert_array_equal(
            np.concatenate([part[r] for part in parts]), whole[r])
    expect(pipegpu.ArgumentError, lambda: setattr(p, 'batch_offset', -1),
           'is negative')
    # Seeds, run numbers and offsets are whole numbers in range, never
    # truncated or wrapped.
    before = (p.seed, p.random_run, p.batch_offset)
    for what, value in [('seed', -1), ('seed', 2 ** 64), ('seed', 2.7),
                        ('random_run', True), ('batch_offset', 2 ** 63)]:
        expect(pipegpu.ArgumentError, lambda: setattr(p, what, value),
               f'{what} is ')
    assert (p.seed, p.random_run, p.batch_offset) == before


# --- The GPU: torch, CuPy, JAX ------------------------------------------------

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


def test_random_draws_agree_on_the_gpu_and_the_reference():
    torch = torch_cuda()
    p = pipegpu.compile(NOISE)
    x = rng.standard_normal((5, 301)).astype(np.float32)
    p.seed, p.random_run = 99, 4
    y, k = p(torch.from_numpy(x).cuda())
    p.random_run = 4
    ref_y, ref_k = p(x, backend='reference')
    np.testing.assert_array_equal(torch.from_dlpack(y).cpu().numpy(),
                                  ref_y.numpy())
    np.testing.assert_array_equal(torch.from_dlpack(k).cpu().numpy(),
                                  ref_k.numpy())
    assert p.random_run == 5


def test_parts_of_a_batch_draw_on_the_gpu_what_the_whole_draws():
    torch = torch_cuda()
    p = pipegpu.compile(NOISE)
    x = torch.from_numpy(rng.standard_normal((9, 65)).astype(np.float32)).cuda()
    whole = [torch.from_dlpack(r).cpu() for r in p(x)]
    for rank in range(3):
        begin, count = pipegpu.shard_range(9, rank, 3)
        p.random_run, p.batch_offset = 0, begin
        part = [torch.from_dlpack(r).cpu() for r in p(x[begin:begin + count])]
        for r in range(len(whole)):
            assert torch.equal(part[r], whole[r][begin:begin + count])


def test_torchrun_ranks_give_what_one_process_gives(tmp_path):
    # examples/torchrun/train_shards.py under torchrun with two ranks (on
    # one GPU here) against one process: the ranks' parts, put together,
    # are the whole batch, random crops and flips included.
    torch_cuda()
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(__file__), '..', '..', 'examples',
                           'torchrun', 'train_shards.py')
    images = tmp_path / 'images.npy'
    np.save(images, rng.integers(0, 256, (64, 40, 52, 3), dtype=np.uint8))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(pipegpu.__file__) + '/..')
    for name, launch in (('one', [sys.executable]),
                         ('two', [sys.executable, '-m', 'torch.distributed.run',
                                  '--nproc-per-node=2', '--master-port=29517'])):
        out = tmp_path / name
        out.mkdir()
        subprocess.run(launch + [example, str(images)], check=True,
                       env=dict(env, PIPE_EXAMPLE_OUT=str(out)), timeout=300)
    whole = np.load(tmp_path / 'one' / 'batch0_from0.npy')
    parts = sorted((tmp_path / 'two').glob('batch0_from*.npy'),
                   key=lambda p: int(p.stem.split('from')[1]))
    assert len(parts) == 2
    np.testing.assert_array_equal(np.concatenate([np.load(p) for p in parts]),
                                  whole)


def test_torch_tensors_in_and_out_share_memory():
    torch = torch_cuda()
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(4, 37, 29)
    tx, tmean, tinv = (torch.from_numpy(a).cuda() for a in (x, mean, inv))
    y, bright = p(tx, tmean, tinv)
    assert y.device == (2, 0)
    ty = torch.from_dlpack(y)
    assert ty.data_ptr() == y.data_ptr
    ref_y, ref_bright = p(x, mean, inv, backend='reference')
    np.testing.assert_array_equal(ty.cpu().numpy(), ref_y.numpy())
    np.testing.assert_array_equal(torch.from_dlpack(bright).cpu().numpy(),
                                  ref_bright.numpy())
    # A strided view is named, not read wrongly (torch tensors on torch's
    # stream are read from their attributes, strides included).
    expect(pipegpu.ArgumentError,
           lambda: p(tx.transpose(1, 2), tmean, tinv),
           "input 'x' is not compact and row-major")
    # Empty tensors: torch gives them strides that are not the compact
    # ones (the C API takes any strides when a dim is 0).
    empty = torch.empty((2, 0, 7, 3), dtype=torch.uint8, device='cuda')
    assert p(empty, tmean, tinv)[0].shape == (2, 3, 0, 7)
    # Into the caller's tensors, in place.
    out_y = torch.empty((4, 3, 37, 29), device='cuda')
    out_b = torch.empty(4, dtype=torch.bool, device='cuda')
    pointer = out_y.data_ptr()
    p(tx, tmean, tinv, out=[out_y, out_b])
    assert out_y.data_ptr() == pointer
    np.testing.assert_array_equal(out_y.cpu().numpy(), ref_y.numpy())


def test_torch_current_stream_is_honoured():
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N]) -> (y: f32[N]) {\n'
                        '  y = x * 2\n}\n')
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # Queued on the side stream before the run: the run must see it.
        x = slowly_made_fours(torch)
        y = torch.from_dlpack(p(x))
    side.synchronize()
    assert float(y.min()) == 8.0 and float(y.max()) == 8.0


def test_torch_calls_of_one_signature_reuse_their_arrays():
    # After the first torch call, calls on contiguous CUDA tensors reuse
    # the DLTensor arrays of their signature and only set the pointers:
    # each call must still read its own tensors, from any thread.
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N], k: f32) -> (y: f32[N]) {\n'
                        '  y = x * k + 1\n}\n')
    k = torch.tensor(3.0, device='cuda')
    for n in (5, 5, 1000, 5, 0):
        x = torch.rand(n, device='cuda')
        torch.testing.assert_close(torch.from_dlpack(p(x, k)), x * 3 + 1,
                                   rtol=0, atol=0)
        out = torch.empty(n, device='cuda')
        assert p(x, k, out=out)[0] is out
        torch.testing.assert_close(out, x * 3 + 1, rtol=0, atol=0)
    errors = []

    def worker(seed):
        g = torch.Generator(device='cuda').manual_seed(seed)
        try:
            for _ in range(200):
                x = torch.rand(4099, device='cuda', generator=g)
                out = torch.empty_like(x)
                p(x, k, out=[out])
                if not torch.equal(out, x * 3 + 1):
                    errors.append(seed)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert p._torch_calls, 'the calls did not take the per-signature path'
    # A call that gives the right inputs and too many outputs (k again)
    # fails, and leaves nothing that a right call would take. (With an
    # input missing, the input count is refused first.)
    x = torch.rand(7, device='cuda')
    y = torch.empty(7, device='cuda')
    expect(pipegpu.ArgumentError, lambda: p(x, k, out=[k, y]),
           "has 1 results, got 2")
    expect(pipegpu.ArgumentError, lambda: p(x, out=[k, y]),
           "takes 2 inputs, got 1")
    p(x, k, out=[y])
    torch.testing.assert_close(y, x * 3 + 1, rtol=0, atol=0)
    # A wrong dtype on this path is still named.
    expect(pipegpu.ArgumentError,
           lambda: p(torch.zeros(3, dtype=torch.float64, device='cuda'), k),
           "input 'x' is float64")


def test_images_from_and_to_device_tensors(tmp_path):
    torch = torch_cuda()
    x = torch.randint(0, 256, (11, 7, 3), dtype=torch.uint8, device='cuda')
    pipegpu.write_image(tmp_path / 'x.png', x)
    back = torch.from_dlpack(pipegpu.read_image(tmp_path / 'x.png'))
    assert torch.equal(back, x.cpu())


def test_torch_tensors_on_a_stream_given():
    # stream= another stream than torch's current one: the DLPack
    # handshake orders the work queued on the current stream before the
    # run; stream= the current one takes the attribute path.
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N]) -> (y: f32[N]) {\n'
                        '  y = x * 2\n}\n')
    other, side = torch.cuda.Stream(), torch.cuda.Stream()
    for stream in (other, side):
        # Under `side` as torch's current stream: stream=side is that
        # stream (no handshake needed), stream=other another one.
        with torch.cuda.stream(side):
            x = slowly_made_fours(torch)
            out = torch.empty_like(x)
            p(x, out=out, stream=stream)
        stream.synchronize()
        assert float(out.min()) == 8.0 and float(out.max()) == 8.0


def test_dropping_a_result_waits_for_its_stream_only():
    # A result of a run on the legacy default stream (torch's default) is
    # freed in that stream's order: dropping it does not wait for a
    # non-blocking stream's work, as cuMemFree's device-wide wait would.
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N]) -> (y: f32[N]) {\n'
                        '  y = x * 2\n}\n')
    x = torch.rand(1 << 20, device='cuda')
    y = p(x)
    assert torch.equal(torch.from_dlpack(y), x * 2)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(2_000_000_000)  # about a second
    del y
    busy = not side.query()
    side.synchronize()
    assert busy, 'dropping the result waited for another stream'


def test_cubic_resize_matches_torch():
    # An oracle outside Pipe: torch's antialiased bicubic is Keys' cubic
    # with a = -0.5, cut at the edges and normalized, as docs/language.md
    # defines interp = cubic; down and up, on the GPU and the reference.
    torch = torch_cuda()
    for size in [(23, 17), (61, 90)]:
        p = pipegpu.compile(
            'pipeline r(x: f32[N, H, W, 3]) -> (y: f32[N, %d, %d, 3]) {\n'
            '  y = resize(x, size = [%d, %d], interp = cubic)\n}\n'
            % (size * 2))
        x = torch.rand((2, 41, 57, 3), device='cuda')
        want = torch.nn.functional.interpolate(
            x.permute(0, 3, 1, 2), size=size, mode='bicubic',
            antialias=True, align_corners=False).permute(0, 2, 3, 1)
        got = torch.from_dlpack(p(x))
        torch.testing.assert_close(got, want, rtol=0, atol=1e-4)
        ref = p(x.cpu().numpy(), backend='reference').numpy()
        np.testing.assert_array_equal(got.cpu().numpy(), ref)


def test_cupy_arrays_in_and_out():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        skip('no CuPy or no GPU')
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(2, 9, 11)
    cx, cmean, cinv = (cupy.asarray(a) for a in (x, mean, inv))
    y, bright = p(cx, cmean, cinv)
    cy = cupy.from_dlpack(y)
    assert cy.data.ptr == y.data_ptr
    view = cupy.asarray(y)  # __cuda_array_interface__
    assert view.data.ptr == y.data_ptr
    ref_y, _ = p(x, mean, inv, backend='reference')
    np.testing.assert_array_equal(cupy.asnumpy(cy), ref_y.numpy())


def test_jax_arrays_in():
    try:
        import jax
        gpu = jax.devices('gpu')[0]
    except Exception:
        skip('no JAX GPU')
    import jax.numpy as jnp
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(2, 9, 11)
    jx, jmean, jinv = (jax.device_put(jnp.asarray(a), gpu)
                       for a in (x, mean, inv))
    y, _ = p(jx, jmean, jinv)
    ref_y, _ = p(x, mean, inv, backend='reference')
    got = jnp.from_dlpack(y)
    np.testing.assert_array_equal(np.asarray(got), ref_y.numpy())



def test_copies_and_pickles_are_refused_not_crashes():
    """A Pipeline and a Tensor own what they hold: copy.copy shared it, and
    both copies freed it (a segfault); a Pipeline made from a raw handle
    ran whatever it pointed at."""
    import copy
    import pickle
    p = pipegpu.compile('pipeline p(x: f32[N]) -> (y: f32[N]) { y = x * 2 }')
    x = np.arange(4, dtype=np.float32)
    t = p(x, backend='reference')
    for obj in (p, t):
        expect(TypeError, lambda: copy.copy(obj), 'cannot be copied')
        expect(TypeError, lambda: copy.deepcopy(obj), 'cannot be copied')
        expect(TypeError, lambda: pickle.dumps(obj), 'cannot be pickled')
    expect(TypeError, lambda: pipegpu.Pipeline(12345), 'pipegpu.compile')
    expect(TypeError, lambda: pipegpu.Tensor(12345), 'made by a run')
    np.testing.assert_array_equal(t.numpy(), x * 2)
    np.testing.assert_array_equal(p(x, backend='reference').numpy(), x * 2)


def test_paths_and_streams_the_c_api_would_cut_are_refused(tmp_path):
    """A NUL ended the path early in C (x.png\\0.other wrote x.png); a
    stream past 64 bits was cut to its low bits (2^64 + 5 became 5)."""
    image = np.zeros((2, 3), np.uint8)
    path = str(tmp_path / 'x.png') + '\0.other'
    expect(pipegpu.ArgumentError, lambda: pipegpu.write_image(path, image),
           'has a NUL character')
    assert not os.listdir(tmp_path)
    expect(pipegpu.ArgumentError, lambda: pipegpu.read_image(path),
           'has a NUL character')
    expect(pipegpu.ArgumentError, lambda: pipegpu.compile_file(path),
           'has a NUL character')
    p = pipegpu.compile('pipeline p(x: f32[N]) -> (y: f32[N]) { y = x }')
    x = np.ones(3, np.float32)
    expect(pipegpu.ArgumentError, lambda: p(x, None, backend='reference'),
           "pipeline 'p' takes 1 inputs, got 2")
    for stream in (2**64 + 5, 2**70):
        expect(pipegpu.ArgumentError,
               lambda: p(x, backend='reference', stream=stream),
               'give a CUstream as an int')


def test_numpy_subclasses_go_through_numpy():
    """A read-only subclass input was a raw BufferError (its __dlpack__
    refuses read-only arrays); a masked array's mask was ignored."""
    class Tagged(np.ndarray):
        pass
    p = pipegpu.compile('pipeline p(x: f32[N]) -> (y: f32[N]) { y = x + 1 }')
    x = np.arange(5, dtype=np.float32)
    tagged = x.view(Tagged)
    tagged.flags.writeable = False
    np.testing.assert_array_equal(p(tagged, backend='reference').numpy(), x + 1)
    out = np.zeros(5, np.float32).view(Tagged)
    p(x, out=out, backend='reference')
    np.testing.assert_array_equal(np.asarray(out), x + 1)
    masked = np.ma.masked_array(x, mask=[0, 1, 0, 0, 0])
    expect(pipegpu.ArgumentError, lambda: p(masked, backend='reference'),
           "input 'x' is a masked array")

def test_errors_survive_pickle_and_copy():
    """A worker's exception goes back pickled (multiprocessing, a
    DataLoader): PipeError's status was a required argument the unpickler
    did not pass, which hung a Pool's get()."""
    import copy
    import pickle
    p = pipegpu.compile('pipeline p(x: f32[N]) -> (y: f32[N]) { y = x }')
    try:
        p(np.zeros(2), backend='reference')
        raise AssertionError('an f64 input was taken for f32')
    except pipegpu.ArgumentError as e:
        error = e
    for back in (pickle.loads(pickle.dumps(error)), copy.copy(error),
                 copy.deepcopy(error)):
        assert type(back) is pipegpu.ArgumentError
        assert back.status == 2 and str(back) == str(error)
        assert isinstance(back, ValueError)
    try:
        pipegpu.compile_file('/no/such/file.pipe')
    except pipegpu.FileError as e:
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is pipegpu.FileError and back.status == 5
        assert isinstance(back, OSError) and str(back) == str(e)


def test_buffers_keep_their_dtype_and_numbers_of_any_kind_convert():
    """A memoryview or array.array went through the number rules: f64
    values were rounded to an f32 parameter, i64 ones taken by an f32 one.
    They are arrays with a dtype, refused unless it is the parameter's.
    Fractions and Decimals are numbers, converted as numbers are."""
    import array
    import decimal
    import fractions
    p = pipegpu.compile('pipeline p(x: f32[N], s: f32) -> (y: f32[N]) {\n'
                        '  y = x * s\n}')
    x = np.array([1.5, 2.0], np.float32)
    for wrong in (memoryview(np.array([0.1, 1e-46])), array.array('q', [1, 2])):
        expect(pipegpu.ArgumentError,
               lambda: p(wrong, 1.0, backend='reference'),
               "input 'x' is ")
    np.testing.assert_array_equal(
        p(memoryview(x), 2.0, backend='reference').numpy(), x * 2)
    np.testing.assert_array_equal(
        p(array.array('f', [1.5, 2.0]), 2.0, backend='reference').numpy(),
        x * 2)
    for number, value in ((fractions.Fraction(1, 2), 0.5),
                          (decimal.Decimal('1.5'), 1.5),
                          (fractions.Fraction(4, 2), 2.0)):
        np.testing.assert_array_equal(
            p(x, number, backend='reference').numpy(), x * np.float32(value))
    q = pipegpu.compile('pipeline q(s: i32) -> (y: i32) { y = s }')
    assert q(fractions.Fraction(6, 3), backend='reference').numpy() == 2
    expect(pipegpu.ArgumentError,
           lambda: q(fractions.Fraction(1, 2), backend='reference'),
           'does not fit its dtype i32')


def test_pipeline_names_are_checked_not_cut(tmp_path):
    """compile_file passed a pipeline name with a NUL to C, which cut it
    there ('a\\0b' compiled pipeline a); other types were raw TypeErrors
    and AttributeErrors, and '' was taken for None."""
    path = tmp_path / 'two.pipe'
    path.write_text('pipeline a(x: f32[N]) -> (y: f32[N]) { y = x }\n'
                    'pipeline b(x: f32[N]) -> (y: f32[N]) { y = x }\n')
    source = path.read_text()
    for compile_ in (lambda name: pipegpu.compile_file(path, pipeline=name),
                     lambda name: pipegpu.compile(source, pipeline=name)):
        expect(pipegpu.ArgumentError, lambda: compile_('a\0b'),
               'has a NUL character')
        expect(pipegpu.ArgumentError, lambda: compile_(3),
               'pipeline is a str, not int')
        expect(pipegpu.ArgumentError, lambda: compile_(b'a'),
               'pipeline is a str, not bytes')
        expect(pipegpu.ArgumentError, lambda: compile_(''),
               'pipeline is empty')
        assert compile_('b').name == 'b'
    expect(pipegpu.ArgumentError,
           lambda: pipegpu.compile(source, pipeline='a', name=None),
           'name is a str')


def test_images_are_read_by_content_and_written_through_links(tmp_path):
    """read_image chose its decoder by the name's extension: a PNG named
    .jpg failed. write_image renamed its new file over the path: a link
    became a file (its target unchanged), a FIFO or /dev/null was
    replaced, a file's mode was lost."""
    import stat
    image = rng.integers(0, 256, (4, 5, 3), dtype=np.uint8)
    pipegpu.write_image(tmp_path / 'png.jpg', image)
    np.testing.assert_array_equal(
        pipegpu.read_image(tmp_path / 'png.jpg').numpy(), image)
    (tmp_path / 'png.jpg').rename(tmp_path / 'noname')
    np.testing.assert_array_equal(
        pipegpu.read_image(tmp_path / 'noname').numpy(), image)
    target = tmp_path / 'target.png'
    pipegpu.write_image(target, image)
    os.chmod(target, 0o640)
    link = tmp_path / 'link.png'
    os.symlink(target, link)
    pipegpu.write_image(link, image // 2)
    assert os.path.islink(link)
    np.testing.assert_array_equal(pipegpu.read_image(target).numpy(),
                                  image // 2)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)
    expect(pipegpu.FileError, lambda: pipegpu.write_image(fifo, image),
           'it is not a regular file')
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    expect(pipegpu.ArgumentError,
           lambda: pipegpu.write_image(tmp_path / 'i.png', [[1, 2]]),
           'is int64, not u8')
    os.symlink(tmp_path / 'nothing' / 'here.png', tmp_path / 'dangling.png')
    expect(pipegpu.FileError,
           lambda: pipegpu.write_image(tmp_path / 'dangling.png', image),
           'a symbolic link to nothing')


def test_a_masked_output_is_called_an_output():
    p = pipegpu.compile('pipeline p(x: f32[N]) -> (y: f32[N]) { y = x }')
    x = np.zeros(2, np.float32)
    expect(pipegpu.ArgumentError,
           lambda: p(x, out=np.ma.masked_array(x.copy()), backend='reference'),
           "output 'y' is a masked array")


def test_tensor_attributes_are_read_only():
    """Tensor.shape was a plain attribute: setting it, as NumPy's in-place
    reshape does, made .numpy() read past the allocation (a segfault)."""
    p = pipegpu.compile('pipeline p(x: f32[N]) -> (y: f32[N]) { y = x }')
    t = p(np.ones(6, np.float32), backend='reference')
    for attribute, value in (('shape', (100_000_000,)), ('device', (2, 0)),
                             ('data_ptr', 0)):
        expect(AttributeError, lambda: setattr(t, attribute, value))
    assert t.shape == (6,) and t.numpy().sum() == 6


def test_more_arguments_get_pipe_errors():
    """backend='cpu' was a plain ValueError; Decimal NaN and infinities
    were refused for a float parameter; a lone surrogate in a source was a
    raw UnicodeEncodeError; a byte order mark was a syntax error."""
    import decimal
    p = pipegpu.compile('pipeline p(s: f32) -> (y: f32) { y = s }')
    expect(pipegpu.ArgumentError, lambda: p(1.0, backend='cpu'),
           "backend is 'gpu' or 'reference', not 'cpu'")
    assert np.isnan(p(decimal.Decimal('NaN'), backend='reference').numpy())
    assert p(decimal.Decimal('-Infinity'), backend='reference').numpy() \
        == -np.inf
    expect(pipegpu.CompileError,
           lambda: pipegpu.compile('pipeline p(x: f32) -> (y: f32) '
                                   '{ y = x }\n# \udcff'),
           'a character UTF-8 cannot hold')
    q = pipegpu.compile('\ufeffpipeline q(x: f32) -> (y: f32) { y = x }')
    assert q.name == 'q'
    expect(pipegpu.ArgumentError,
           lambda: p(1.0, out=[memoryview(bytearray(4))],
                     backend='reference'),
           "output 'y' is of type memoryview, not an array")


if __name__ == '__main__':
    import inspect
    import pathlib
    import tempfile
    failed = 0
    for name, fn in sorted(globals().items()):
        if not name.startswith('test_'):
            continue
        try:
            # pytest's tmp_path fixture, for the tests that take it.
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
