"""pipegpu: Pipe's pipelines from Python, on torch, CuPy, JAX and NumPy
arrays without copies.

    import pipegpu
    blur = pipegpu.compile('''
    pipeline p(x: u8[N, H, W], w: i32[N]) -> (y: u8[N, H, W]) {
      y = gaussian_blur(x, window = w, axes = [1, 2])
    }''')
    y = blur(x, w)                 # x, w: any DLPack arrays; y: a pipegpu.Tensor
    y_torch = torch.from_dlpack(y) # the same memory
    blur(x, w, out=[y_torch])      # into the caller's tensors

The module is pure Python over the C API (capi/pipe_c.h, libpipe_c.so)
through ctypes, so one build serves every Python 3 interpreter
(docs/python.md says why). Tensors come in through DLPack (`__dlpack__`,
the versioned form when the producer has it) and NumPy's array interface;
results go out through DLPack, `__cuda_array_interface__` (device) and
`__array_interface__` (host). A GPU run is queued on the stream given, else
on the caller's current stream (torch's or CuPy's, else the legacy
default), and waited for on that stream only."""
import ctypes
import errno
import os

__all__ = ['compile', 'compile_file', 'Pipeline', 'Tensor', 'PipeError',
           'shard_range',
           'CompileError', 'ArgumentError', 'InternalError', 'FileError',
           'read_image', 'write_image', 'gpu_available', 'version']

# DLPack's structs (third_party/dlpack, v1.1): python/pipegpu/_dlpack.py.
from ._dlpack import DLManagedTensorVersioned, DLTensor  # noqa: E402

# The parts: the C library and its errors, tensors in, tensors out.
from . import _arguments  # noqa: E402  (its torch module is set lazily)
from ._arguments import (_current_stream, _dlpack_view,  # noqa: E402,F401
                         _dtype_text, _is_bool, _torch_template, _torch_view,
                         _whole_number)
from ._library import (ArgumentError, CompileError, FileError,  # noqa: E402
                       InternalError, PipeError, TensorInfo, _P, _check,
                       _file_error, _lib, _run_alloc_untyped, _run_untyped)
from ._tensor import Tensor, _Owner  # noqa: E402

# The public classes are pipegpu's, wherever they are defined (their
# repr, and pickle, which finds an error's class by that name).
for _public in (Tensor, PipeError, CompileError, ArgumentError,
                InternalError, FileError):
    _public.__module__ = __name__


def version():
    """Pipe's version, e.g. '0.1.0'."""
    return _lib.pipe_version().decode()


# --- Pipelines ----------------------------------------------------------------

_BACKENDS = {'gpu': 0, 'reference': 1}
_NOT_TORCH = object()


def _results_array(n):
    """Room for pipe_run_alloc's `n` results (a fresh array a call: each
    Tensor keeps the pointer it holds)."""
    return (ctypes.POINTER(DLManagedTensorVersioned) * max(n, 1))()


def _as_tensors(results, n):
    """pipe_run_alloc's results as Tensors: one, or a tuple."""
    tensors = tuple(Tensor(results[i]) for i in range(n))
    return tensors[0] if n == 1 else tensors


class _TorchCall:
    """The DLTensor arrays of calls on torch tensors of one signature:
    everything but the data pointers, which `slots` (views of the data
    fields) take per call."""
    __slots__ = ('slots', 'ins', 'outs', 'num_inputs', 'num_outputs',
                 'keep')

    def __init__(self, tensors, num_inputs, num_outputs):
        size = ctypes.sizeof(DLTensor)
        ins = (DLTensor * max(num_inputs, 1))()
        outs = (DLTensor * max(len(tensors) - num_inputs, 1))()
        self.slots, self.keep = [], []
        for i, t in enumerate(tensors):
            array, j = (ins, i) if i < num_inputs else (outs, i - num_inputs)
            template = _torch_template(t)
            array[j] = template[0]
            array[j].strides = None  # contiguous: the compact layout
            self.keep.append(template)  # the shape array it points to
            self.slots.append(ctypes.c_void_p.from_buffer(array, j * size))
        # The arrays themselves: passed without argtypes, ctypes passes
        # their addresses.
        self.ins, self.outs = ins, outs
        self.num_inputs, self.num_outputs = num_inputs, num_outputs


_MADE_BY_COMPILE = object()


class Pipeline(_Owner):
    """A compiled pipeline; call it on arrays to run it."""
    _instead_of_copy = ('share it (it may be called from several threads at '
                        'once), or compile its source again')
    _instead_of_pickle = 'pickle its source and compile it again'

    def __init__(self, handle, _made=None):
        if _made is not _MADE_BY_COMPILE:
            raise TypeError('a pipegpu.Pipeline is made by pipegpu.compile '
                            'or pipegpu.compile_file')
        self._handle = handle
        # Calls on torch tensors, by their dtypes, shapes and devices
        # (_TorchCall); an entry is taken out while a call uses it.
        self._torch_calls = {}
        self.name = _lib.pipe_pipeline_name(handle).decode()
        # (name, dims, DLPack (code, bits)), for the calls; `params` and
        # `results` give the dtype by Pipe's name, as Tensor.dtype does.
        self._params = [self._info(_lib.pipe_param_info, i)
                        for i in range(_lib.pipe_num_params(handle))]
        self._results = [self._info(_lib.pipe_result_info, i)
                         for i in range(_lib.pipe_num_results(handle))]
        self.params = [(n, d, _dtype_text(*t)) for n, d, t in self._params]
        self.results = [(n, d, _dtype_text(*t)) for n, d, t in self._results]

    def _info(self, fn, i):
        info = TensorInfo()
        _check(fn(self._handle, i, ctypes.byref(info)))
        return (info.name.decode(),
                [info.dims[d].decode() for d in range(info.ndim)],
                (info.dtype.code, info.dtype.bits))

    def __del__(self):
        handle = getattr(self, '_handle', None)
        if handle:
            self._handle = None
            _lib.pipe_release(handle)

    def __call__(self, *inputs, out=None, backend='gpu', stream=None):
        """Runs on `inputs` (one per parameter: DLPack arrays, NumPy arrays).
        Returns the results as pipegpu Tensors (one, or a tuple), or writes
        them into `out` (one DLPack array per result) and returns `out`.
        backend: 'gpu', or 'reference' (the CPU executor; host arrays).
        stream: a CUDA stream (an int, or an object with .cuda_stream or
        .ptr); by default the current stream of torch or CuPy.
        `out` may also be one array, for a pipeline of one result."""
        if out is not None and not isinstance(out, (list, tuple)):
            out = [out]
        if stream is not None and not isinstance(stream, int):
            stream = getattr(stream, 'cuda_stream',
                             getattr(stream, 'ptr', stream))
        if stream is not None and not isinstance(stream, int) and \
                not _is_bool(stream) and hasattr(stream, '__index__'):
            stream = stream.__index__()  # a NumPy integer handle
        # A handle is an integer: anything else (a string, a float) would
        # reach the driver as a pointer to something that is no stream.
        if stream is not None and (not isinstance(stream, int) or
                                   isinstance(stream, bool) or stream < 0 or
                                   stream >= 1 << 64):
            raise ArgumentError(
                f'stream is {stream!r}: give a CUstream as an int, or an '
                'object with .cuda_stream or .ptr (torch, CuPy)', 2)
        # The count first: an extra None would otherwise be named as an
        # array of no Pipe dtype.
        if len(inputs) != len(self.params):
            raise ArgumentError(f"pipeline '{self.name}' takes "
                                f'{len(self.params)} '
                                f'input{"" if len(self.params) == 1 else "s"}'
                                f', got {len(inputs)}',
                                2)
        if backend == 'gpu' and _arguments._torch is not None:
            done = self._call_torch(inputs, out, stream)
            if done is not _NOT_TORCH:
                return done
        code = _BACKENDS.get(backend)
        if code is None:
            raise ArgumentError(f"backend is 'gpu' or 'reference', not "
                                f'{backend!r}', 2)
        torch_stream = False
        if stream is None:
            stream, torch_stream = _current_stream(
                inputs + tuple(out) if out else inputs)
        keep = []

        def views(arrays, infos, output):
            array = (DLTensor * max(len(arrays), 1))()
            for i, a in enumerate(arrays):
                if torch_stream and isinstance(a, _arguments._torch.Tensor):
                    template = _torch_view(a)
                    array[i] = template[0]
                    array[i].data = a.data_ptr() or None
                    alive = (a, template)
                else:
                    dtype = infos[i][2] if i < len(infos) else None
                    name = infos[i][0] if i < len(infos) else str(i)
                    array[i], alive = _dlpack_view(a, stream, dtype, output,
                                                   name)
                keep.append(alive)
            return array
        ins = views(inputs, self._params, False)
        if out is not None:
            outs = views(list(out), self._results, True)
            _check(_lib.pipe_run(self._handle, ins, len(inputs), outs,
                                 len(out), code, stream or None))
            return out
        n = len(self.results)
        results = _results_array(n)
        _check(_lib.pipe_run_alloc(self._handle, ins, len(inputs), results, n,
                                   code, stream or None))
        return _as_tensors(results, n)

    def _call_torch(self, inputs, out, stream):
        """The call on torch's current stream when every array is a
        contiguous CUDA torch tensor and `stream` is None or that stream,
        else _NOT_TORCH. The DLTensor arrays are kept per signature, so
        that a call only sets data pointers (bench/NOTES.md, Python's call
        overhead)."""
        arrays = inputs + tuple(out) if out else inputs
        if not arrays:
            return _NOT_TORCH
        tensor = _arguments._torch.Tensor
        # How the arrays split into inputs and outputs is part of the
        # signature: a call with one too many outputs must not leave an
        # entry that a right call would take.
        key = [out is None, len(inputs)]
        pointers = []
        for a in arrays:
            # get_device() is -1 on the CPU.
            if not isinstance(a, tensor):
                return _NOT_TORCH
            device = a.get_device()
            if device < 0 or not a.is_contiguous():
                return _NOT_TORCH
            key += (a.dtype, a.shape, device)
            pointers.append(a.data_ptr())
        current = _arguments._torch_raw_stream(device)
        if stream is not None and stream != current:
            return _NOT_TORCH  # another stream: the DLPack handshake
        key = tuple(key)
        calls = self._torch_calls
        # Taken out while in use: a call from another thread meanwhile
        # builds its own arrays instead of changing these.
        entry = calls.pop(key, None)
        if entry is None:
            entry = _TorchCall(arrays, len(inputs),
                               len(self.results) if out is None else len(out))
        try:
            for slot, pointer in zip(entry.slots, pointers):
                slot.value = pointer
            stream = _P(current) if current else None
            if out is not None:
                status = _run_untyped(self._handle, entry.ins,
                                      entry.num_inputs, entry.outs,
                                      entry.num_outputs, 0, stream)
                if status:
                    _check(status)
                return out
            n = entry.num_outputs
            results = _results_array(n)
            _check(_run_alloc_untyped(self._handle, entry.ins,
                                      entry.num_inputs, results, n, 0,
                                      stream))
            return _as_tensors(results, n)
        finally:
            if len(calls) < 64:
                calls[key] = entry

    def _random(self):
        seed, run = ctypes.c_uint64(), ctypes.c_uint64()
        _check(_lib.pipe_get_random(self._handle, ctypes.byref(seed),
                                    ctypes.byref(run)))
        return seed.value, run.value

    @property
    def seed(self):
        """The seed of the random ops (uniform, normal, coin_flip, randint);
        0 until set."""
        return self._random()[0]

    @seed.setter
    def seed(self, value):
        _check(_lib.pipe_set_random(self._handle,
                                    _whole_number('seed', value, 64),
                                    self._random()[1]))

    @property
    def random_run(self):
        """The random run number the next call draws with: 0 at first, and
        each call advances it. Set it (with the seed) to replay a call."""
        return self._random()[1]

    @random_run.setter
    def random_run(self, value):
        _check(_lib.pipe_set_random(self._handle, self._random()[0],
                                    _whole_number('random_run', value, 64)))

    @property
    def batch_offset(self):
        """Where the batch this pipeline runs sits in the whole batch split
        over processes (torchrun: the first sample of this rank's part, see
        shard_range); 0 until set. iota along the batch dim and the random
        ops' draws count from it, so that each rank draws for its samples
        what one run over the whole batch would."""
        offset = ctypes.c_int64()
        _check(_lib.pipe_get_batch_offset(self._handle, ctypes.byref(offset)))
        return offset.value

    @batch_offset.setter
    def batch_offset(self, value):
        _check(_lib.pipe_set_batch_offset(
            self._handle, _whole_number('batch_offset', value, 63)))

    def __repr__(self):
        def text(items):
            return ', '.join(f'{n}[{", ".join(d)}]' for n, d, _ in items)
        return f'pipegpu.Pipeline({self.name}({text(self.params)}) -> ' \
               f'({text(self.results)}))'


def compile(source, pipeline=None, name='<string>'):
    """Compiles pipeline `pipeline` (or the only one) of `source`."""
    if isinstance(source, (bytes, bytearray)):
        try:
            source = bytes(source).decode()
        except UnicodeDecodeError as e:
            raise CompileError(f'{name}: the source is not UTF-8 ({e.reason} '
                               f'at byte {e.start})', 1) from None
    if not isinstance(source, str):
        raise TypeError(f'the source is text (str or bytes), not '
                        f'{type(source).__name__}')
    _check_text(name, 'name')
    _check_text(pipeline, 'pipeline')
    if '\0' in source:
        # The C API takes the source as a C string: it would end there.
        raise CompileError(f'{name}: the source has a NUL character at '
                           f'offset {source.index(chr(0))}', 1)
    try:
        encoded = source.encode()
    except UnicodeEncodeError as e:  # a lone surrogate ('\udcff')
        raise CompileError(f'{name}: the source has a character UTF-8 '
                           f'cannot hold ({e.reason} at offset {e.start})',
                           1) from None
    handle = _P()
    chosen = pipeline.encode() if pipeline is not None else None
    _check(_lib.pipe_compile(encoded, name.encode(), chosen,
                             ctypes.byref(handle)))
    return Pipeline(handle, _MADE_BY_COMPILE)


def _check_text(value, what):
    """`value` (a name, or a pipeline's name or None) as the C API takes
    it: a str without a NUL character, which would end it early there."""
    if value is None and what == 'pipeline':
        return
    if not isinstance(value, str):
        raise ArgumentError(f'{what} is a str, not {type(value).__name__} '
                            f'{value!r}', 2)
    if '\0' in value:
        raise ArgumentError(f'{what} {value!r} has a NUL character', 2)
    if not value:
        raise ArgumentError(f'{what} is empty' + (
            ': name one, or pass None for the only one'
            if what == 'pipeline' else ''), 2)


def _path(path, what):
    """`path` as the C API takes it: a NUL would end it early there."""
    encoded = os.fsencode(path)
    if b'\0' in encoded:
        raise ArgumentError(f'{what} {os.fsdecode(path)!r} has a NUL '
                            'character', 2)
    return encoded


def compile_file(path, pipeline=None):
    """Compiles pipeline `pipeline` (or the only one) of the file `path`."""
    encoded = _path(path, 'the path')
    _check_text(pipeline, 'pipeline')
    if not os.path.isfile(path):
        # A file that is not there is an OSError, as read_image's is; one
        # that is there but no regular file (a FIFO, a device) says so.
        why, reason = (('it is a directory', errno.EISDIR)
                       if os.path.isdir(path) else
                       ('it is not a regular file', None)
                       if os.path.exists(path) else
                       ('no such file', errno.ENOENT))
        raise _file_error(f"cannot open '{os.fsdecode(path)}': {why}", reason,
                          os.fsdecode(path) if reason else None)
    try:
        with open(path, 'rb'):
            pass
    except OSError as e:
        # Unreadable (its permissions): an OSError as a missing file's is,
        # not the CompileError the C API would report.
        raise _file_error(f"cannot open '{os.fsdecode(path)}': "
                          f'{e.strerror}', e.errno,
                          os.fsdecode(path)) from None
    handle = _P()
    chosen = pipeline.encode() if pipeline is not None else None
    _check(_lib.pipe_compile_file(encoded, chosen, ctypes.byref(handle)))
    return Pipeline(handle, _MADE_BY_COMPILE)


def shard_range(total, shard_id=None, num_shards=None):
    """This process's part of `total` samples (a data source, a global
    batch) as (begin, count): part `shard_id` of `num_shards`, split as
    evenly as possible (the first total % num_shards parts get one more).
    Without them, the rank and world size of torch.distributed when it is
    initialized (torchrun), else the whole: (0, total). A process then
    runs its pipeline on samples [begin, begin + count) with
    `pipeline.batch_offset = begin`, and needs no other coordination."""
    if shard_id is None and num_shards is None:
        try:
            import torch.distributed as dist
            if dist.is_available() and dist.is_initialized():
                shard_id, num_shards = dist.get_rank(), dist.get_world_size()
        except ImportError:
            pass
    if shard_id is None and num_shards is None:
        shard_id, num_shards = 0, 1
    if shard_id is None or num_shards is None:
        raise ArgumentError('shard_range: give both shard_id and num_shards, '
                            'or neither', 2)
    import operator
    if any(_is_bool(v) for v in (total, shard_id, num_shards)):
        raise ArgumentError('shard_range: total, shard_id and num_shards are '
                            'integers, not booleans', 2)
    try:
        total, shard_id, num_shards = (operator.index(total),
                                       operator.index(shard_id),
                                       operator.index(num_shards))
    except TypeError:
        raise ArgumentError('shard_range: total, shard_id and num_shards are '
                            f'integers, not {total!r}, {shard_id!r}, '
                            f'{num_shards!r}', 2) from None
    if num_shards < 1 or not 0 <= shard_id < num_shards:
        raise ArgumentError(f'shard_range: shard {shard_id} of {num_shards}: '
                            'the shard must be in [0, num_shards)', 2)
    if total < 0:
        raise ArgumentError(f'shard_range: {total} samples cannot be split', 2)
    base, extra = divmod(total, num_shards)
    begin = shard_id * base + min(shard_id, extra)
    return begin, base + (1 if shard_id < extra else 0)


def gpu_available():
    """Whether there is a GPU to run on: (True, '') or (False, why)."""
    if _lib.pipe_gpu_available() == 0:
        return True, ''
    return False, _lib.pipe_last_error().decode(errors='replace')


def read_image(path):
    """The PNG or JPEG file `path` as u8[H, W, C] (C: 1 gray, 2 gray and
    alpha, 3 RGB, 4 RGBA), or the images of folder `path` (by name) as one
    u8[N, H, W, C] batch: a host pipegpu.Tensor (`.numpy()`, or any
    DLPack consumer). A file that is not a whole image raises FileError
    naming it."""
    managed = ctypes.POINTER(DLManagedTensorVersioned)()
    _check(_lib.pipe_image_read(_path(path, 'the image path'),
                                ctypes.byref(managed)), path)
    return Tensor(managed)


def write_image(path, image):
    """Writes `image` (any DLPack or NumPy array: u8, or bool as 0 and 255,
    of shape [H, W] or [H, W, C] with C from 1 to 4, host or device) as a
    PNG file at `path`, whole or not at all. Device memory is read after
    the work queued on it (the producer is asked to order it before the
    legacy default stream, as DLPack says)."""
    encoded = _path(path, 'the image path')
    tensor, alive = _dlpack_view(image, 1, output=False, name='image')
    _check(_lib.pipe_image_write(encoded, ctypes.byref(tensor)), path,
           writing=True)
    del alive
