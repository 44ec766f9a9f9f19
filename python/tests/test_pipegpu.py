"""pipegpu against NumPy (an oracle that shares nothing with Pipe) on the CPU
reference: compiling, describing and running pipelines, results equal,
memory shared rather than copied, bad input named, outputs left as they
were by a failed run, errors that survive pickling.

Runs under pytest (CTest), or as a script where pytest is missing (the GPU
machine): python3 test_pipegpu.py. test_files.py, test_random.py and
test_gpu.py hold the rest; pipegpu_testing.py what they share."""
import os

import numpy as np

from pipegpu_testing import (pipegpu, NOISE, NORMALIZE, expect, inputs,
                             normalize_numpy, rng, ThroughDLPack)


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


def test_c_api_says_an_unreadable_source_is_a_file_error():
    # Not the source's error (PIPE_ERROR_COMPILE, 1): PIPE_ERROR_FILE, 5.
    import ctypes
    from pipegpu import _lib
    handle = ctypes.c_void_p()
    status = _lib.pipe_compile_file(b'/no/such/source.pipe', None,
                                    ctypes.byref(handle))
    assert status == 5, status
    assert "cannot read '/no/such/source.pipe'" in \
        _lib.pipe_last_error().decode()


def test_c_api_refuses_a_source_that_is_no_regular_file(tmp_path):
    # A FIFO nothing writes to: reading it waited forever.
    import ctypes
    from pipegpu import _lib
    fifo = tmp_path / 'fifo.pipe'
    os.mkfifo(fifo)
    handle = ctypes.c_void_p()
    status = _lib.pipe_compile_file(os.fsencode(fifo), None,
                                    ctypes.byref(handle))
    assert status == 5, status
    assert 'it is not a regular file' in _lib.pipe_last_error().decode()


def test_the_reference_ignores_host_and_device_pins():
    """docs/language.md: the CPU reference, which has no device memory,
    ignores @host and @device (the C API refused a pinned pipeline's
    host tensors there)."""
    p = pipegpu.compile('pipeline s(m: f32[N] @device, k: f32 @host) -> '
                        '(y: f32[N] @device, z: f32[N] @host) {\n'
                        '  y = m * k\n  z = m + k\n}')
    m = np.arange(5, dtype=np.float32)
    y, z = p(m, 2.0, backend='reference')
    np.testing.assert_array_equal(np.asarray(y), m * 2)
    np.testing.assert_array_equal(np.asarray(z), m + 2)
    y = np.zeros(5, np.float32)
    z = np.zeros(5, np.float32)
    p(m, 2.0, out=[y, z], backend='reference')
    np.testing.assert_array_equal(y, m * 2)
    np.testing.assert_array_equal(z, m + 2)


def test_a_stream_that_is_no_handle_is_refused():
    p = pipegpu.compile(NOISE)
    x = np.zeros((3, 50), np.float32)
    for stream in ('abc', 1.5, object(), -1, True):
        expect(pipegpu.ArgumentError,
               lambda: p(x, backend='reference', stream=stream),
               'stream is ')
    assert p.random_run == 0  # nothing ran


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
        assert type(back) is type(e) and back.status == 5
        assert isinstance(back, FileNotFoundError) and str(back) == str(e)
        assert (back.errno, back.filename) == (e.errno, e.filename)


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
    from pipegpu_testing import run_as_script
    run_as_script(globals())
