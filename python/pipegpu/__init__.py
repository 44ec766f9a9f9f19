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
import os
import sys

__all__ = ['compile', 'compile_file', 'Pipeline', 'Tensor', 'PipeError',
           'shard_range',
           'CompileError', 'ArgumentError', 'InternalError', 'FileError',
           'read_image', 'write_image', 'gpu_available', 'version']

# DLPack's structs (third_party/dlpack, v1.1): python/pipegpu/_dlpack.py.
from ._dlpack import (DLDataType, DLDevice, DLManagedTensor,  # noqa: E402
                      DLManagedTensorVersioned, DLTensor, kDLBfloat, kDLBool,
                      kDLCPU, kDLCUDA, kDLFloat, kDLInt, kDLUInt)


class TensorInfo(ctypes.Structure):
    _fields_ = [('name', ctypes.c_char_p), ('dtype', DLDataType),
                ('ndim', ctypes.c_int32),
                ('sizes', ctypes.POINTER(ctypes.c_int64)),
                ('dims', ctypes.POINTER(ctypes.c_char_p)),
                ('memory', ctypes.c_int)]


# --- The library --------------------------------------------------------------

def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    # PIPEGPU_LIBRARY; beside the module; an installed tree's
    # <prefix>/lib/libpipe_c.so (the module in <prefix>/lib/python); the
    # source tree's build.
    candidates = [os.environ.get('PIPEGPU_LIBRARY'),
                  os.path.join(here, 'libpipe_c.so'),
                  os.path.join(here, '..', '..', 'libpipe_c.so'),
                  os.path.join(here, '..', '..', 'build', 'capi', 'libpipe_c.so')]
    for path in candidates:
        if path and os.path.exists(path):
            return path
    raise ImportError('pipegpu: libpipe_c.so not found (set PIPEGPU_LIBRARY, '
                      'or build Pipe: it is build/capi/libpipe_c.so)')


_lib = ctypes.CDLL(_find_library())
_P = ctypes.c_void_p
for _name, _res, _args in [
        ('pipe_last_error', ctypes.c_char_p, []),
        ('pipe_version', ctypes.c_char_p, []),
        ('pipe_compile', ctypes.c_int,
         [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
          ctypes.POINTER(_P)]),
        ('pipe_compile_file', ctypes.c_int,
         [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)]),
        ('pipe_release', None, [_P]),
        ('pipe_pipeline_name', ctypes.c_char_p, [_P]),
        ('pipe_num_params', ctypes.c_int32, [_P]),
        ('pipe_num_results', ctypes.c_int32, [_P]),
        ('pipe_get_random', ctypes.c_int,
         [_P, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]),
        ('pipe_set_random', ctypes.c_int, [_P, ctypes.c_uint64, ctypes.c_uint64]),
        ('pipe_get_batch_offset', ctypes.c_int,
         [_P, ctypes.POINTER(ctypes.c_int64)]),
        ('pipe_set_batch_offset', ctypes.c_int, [_P, ctypes.c_int64]),
        ('pipe_param_info', ctypes.c_int,
         [_P, ctypes.c_int32, ctypes.POINTER(TensorInfo)]),
        ('pipe_result_info', ctypes.c_int,
         [_P, ctypes.c_int32, ctypes.POINTER(TensorInfo)]),
        ('pipe_run', ctypes.c_int,
         [_P, ctypes.POINTER(DLTensor), ctypes.c_int32,
          ctypes.POINTER(DLTensor), ctypes.c_int32, ctypes.c_int, _P]),
        ('pipe_run_alloc', ctypes.c_int,
         [_P, ctypes.POINTER(DLTensor), ctypes.c_int32,
          ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)),
          ctypes.c_int32, ctypes.c_int, _P]),
        ('pipe_dlpack_unversioned', ctypes.POINTER(DLManagedTensor),
         [ctypes.POINTER(DLManagedTensorVersioned)]),
        ('pipe_dlpack_share', ctypes.POINTER(DLManagedTensorVersioned),
         [ctypes.POINTER(DLManagedTensorVersioned)]),
        ('pipe_dlpack_capsule_name', _P, [ctypes.c_int32]),
        ('pipe_gpu_available', ctypes.c_int, []),
        ('pipe_image_read', ctypes.c_int,
         [ctypes.c_char_p, ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned))]),
        ('pipe_image_write', ctypes.c_int,
         [ctypes.c_char_p, ctypes.POINTER(DLTensor)])]:
    _fn = getattr(_lib, _name)
    _fn.restype, _fn.argtypes = _res, _args

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [_P, _P, _P]
# pipe_run and pipe_run_alloc for the call path of torch tensors, without
# argtypes: every argument a ctypes object kept per signature or a small
# int (an int32), which ctypes passes as they are, converting nothing
# (0.5 against 0.7 us a call on the build machine). A second handle of the
# library, so that _lib's functions keep their argtypes.
_lib_untyped = ctypes.CDLL(_lib._name)
_run_untyped = _lib_untyped.pipe_run
_run_alloc_untyped = _lib_untyped.pipe_run_alloc
# The capsule destructor and names are the C library's: a destructor may
# run with an exception set, or at interpreter shutdown, when a Python
# callback or a name held by a bytes object would not be safe.
_CAPSULE_DESTRUCTOR = ctypes.cast(_lib.pipe_dlpack_capsule_destructor, _P)
_CAPSULE_NAMES = {True: _lib.pipe_dlpack_capsule_name(1),
                  False: _lib.pipe_dlpack_capsule_name(0)}
DLPACK_FLAG_READ_ONLY = 1
_api.PyCapsule_GetPointer.restype = _P
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]


def version():
    """Pipe's version, e.g. '0.1.0'."""
    return _lib.pipe_version().decode()


class PipeError(Exception):
    """A failed call: `status` says which kind (pipe_c.h's pipe_status), the
    message is Pipe's."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status

    def __reduce__(self):
        # Rebuilt with its status: pickle and copy (a worker process of
        # multiprocessing or a DataLoader sends its exception back pickled;
        # one that cannot be rebuilt hangs a Pool's get()).
        return type(self), (str(self), self.status)


class CompileError(PipeError):
    """The source has an error: file:line:col: error: ... with a caret."""


class ArgumentError(PipeError, ValueError):
    """A tensor of the wrong count, dtype, shape, device or layout."""


class InternalError(PipeError):
    """A failure inside Pipe; please report it with the message."""


class FileError(PipeError, OSError):
    """A file that cannot be read, decoded or written (an image): the
    message names it."""


def _check(status):
    if status == 0:
        return
    message = _lib.pipe_last_error().decode(errors='replace')
    kind = {1: CompileError, 2: ArgumentError, 4: InternalError,
            5: FileError}.get(status, PipeError)
    raise kind(message, status)


# --- Tensors in ---------------------------------------------------------------

_NUMPY_CODES = {'i': kDLInt, 'u': kDLUInt, 'f': kDLFloat, 'b': kDLBool}


def _numpy_view(array, output=False, name=None):
    """A DLTensor over a C-contiguous NumPy array (NumPy before 1.25 has no
    DLPack for bool, and no max_version). `name`: the parameter's or
    result's, for the messages."""
    import numpy as np
    what = ('an output' if output else 'an input') if name is None else \
        f"{'output' if output else 'input'} '{name}'"
    if output and not array.flags.writeable:
        raise ArgumentError(f'{what} is a read-only NumPy array', 2)
    if not array.flags.c_contiguous:
        raise ArgumentError(f'{what} is a NumPy array that is not '
                            'C-contiguous: pass np.ascontiguousarray(x)', 2)
    kind = array.dtype.kind
    if kind in _NUMPY_CODES and not array.dtype.isnative:
        raise ArgumentError(
            f'{what} is byte-swapped (NumPy dtype {array.dtype.str}), and '
            "Pipe reads the machine's byte order: pass "
            "x.astype(x.dtype.newbyteorder('='))"
            + (', and copy the result back' if output else ''), 2)
    if kind not in _NUMPY_CODES:
        raise ArgumentError(f'{what} is a NumPy {array.dtype} array, which '
                            'has no Pipe dtype', 2)
    shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    t = DLTensor()
    t.data = array.ctypes.data if array.size else None
    t.device = DLDevice(kDLCPU, 0)
    t.ndim = array.ndim
    t.dtype = DLDataType(_NUMPY_CODES[kind], array.dtype.itemsize * 8, 1)
    t.shape = shape
    t.strides = None
    t.byte_offset = 0
    return t, (array, shape, np)


def _numpy_dtype(code, bits):
    import numpy as np
    if code == kDLBool:
        return np.bool_
    return np.dtype({kDLInt: 'i', kDLUInt: 'u', kDLFloat: 'f'}[code] +
                    str(bits // 8))


def _is_bool(value):
    """Whether `value` is a Python or NumPy bool (both index as 0 or 1,
    which a count or a seed must not take)."""
    return isinstance(value, bool) or type(value).__name__ == 'bool_'


def _shown(value):
    """`value` for a message: a NumPy scalar as its number (NumPy 2's repr
    is np.int8(-1)), anything else as repr writes it."""
    item = getattr(value, 'item', None)
    if type(value).__module__ == 'numpy' and getattr(value, 'ndim', 1) == 0 \
            and item is not None:
        value = item()
    return repr(value)


def _whole_number(what, value, bits):
    """`value` as an int in [0, 2^bits): a seed, a run number, an offset
    (a float, a bool or a number outside is an ArgumentError naming it, not
    a truncation or a wrap)."""
    import operator
    try:
        number = operator.index(value)
    except TypeError:
        raise ArgumentError(f'{what} is an integer, not {_shown(value)}', 2) \
            from None
    if _is_bool(value):
        raise ArgumentError(f'{what} is an integer, not the bool '
                            f'{_shown(value)}', 2)
    if not 0 <= number < 1 << bits:
        raise ArgumentError(
            f'{what} is {_shown(value)}' + (', which is negative' if number < 0
                                      else '') +
            f': it must lie in [0, 2^{bits})', 2)
    return number


def _dtype_text(code, bits):
    """Pipe's name of a DLPack dtype: 'u8', 'f32', 'bool', ..."""
    if code == kDLBool:
        return 'bool'
    return {kDLInt: 'i', kDLUInt: 'u', kDLFloat: 'f',
            kDLBfloat: 'bf'}[code] + str(bits)


_TARGETS = {}


def _target_of(dtype):
    """The NumPy dtype of DLPack `dtype` (code, bits) with its least and
    largest values (integers, or floats' finite range; (1, 0), an empty
    range, for bool), kept: a call with numbers looks them up."""
    entry = _TARGETS.get(dtype)
    if entry is None:
        import numpy as np
        target = np.dtype(_numpy_dtype(*dtype))
        if target.kind in 'iu':
            info = np.iinfo(target)
            entry = (target, int(info.min), int(info.max))
        elif target.kind == 'f':
            info = np.finfo(target)
            entry = (target, float(info.min), float(info.max))
        else:
            entry = (target, 1, 0)
        _TARGETS[dtype] = entry
    return entry


def _number_array(obj, dtype, name):
    """A NumPy scalar, Python number or list as an array of the parameter's
    dtype (code, bits), whose values it must hold: an integer parameter
    takes integers in its range (300 is no u8, 2.7 no i32), a float one
    any finite number (rounded to it) and the infinities and NaN; bool
    takes booleans and 0 or 1. Anything else is an ArgumentError naming
    the input, not a silent wrap."""
    import numpy as np
    target, low, high = _target_of(tuple(dtype))
    obj = _plain_number(obj)
    # The common case first, without the warnings machinery below (about
    # 18 us a number): a Python int in an integer dtype's range, or a
    # Python number no larger than a float dtype's largest.
    kind = type(obj)
    if (kind is int and target.kind in 'iu' and low <= obj <= high) or \
            ((kind is float or kind is int) and target.kind == 'f' and
             -high <= obj <= high):
        return np.asarray(obj, target)
    import warnings
    wanted = _dtype_text(*dtype)

    def refuse(why=''):
        raise ArgumentError(f"input '{name}' is {_shown(obj)}, which does not fit "
                            f'its dtype {wanted}{why}', 2) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            given = np.asarray(obj)
            if given.dtype == object and isinstance(obj, int) and \
                    target.kind == 'f':
                given = np.asarray(float(obj))  # past the 64-bit integers
            if given.dtype.kind not in 'biuf':
                refuse('' if isinstance(obj, int) else
                       ' (a number or a list of numbers)')
            # As the docs say (docs/python.md): an integer parameter takes
            # integers, not 2.0 or True; bool takes booleans, 0 and 1, not
            # 1.0.
            if target.kind in 'iu' and given.dtype.kind in 'bf':
                refuse(' (an integer parameter takes integers)')
            if target.kind == 'b' and given.dtype.kind == 'f':
                refuse(' (a bool parameter takes True, False, 0 or 1)')
            if target.kind in 'biu' and given.dtype.kind == 'f' and \
                    not np.all(np.isfinite(given)):
                refuse()
            converted = given.astype(target)
            if target.kind in 'biu':
                exact = given.dtype.kind in 'biu' or bool(
                    np.all(given == np.trunc(given)))
                # A sign that changes is a wrap (-1 as a u64, 2^64 - 1 as
                # an i64), which the round trip below does not see.
                exact = exact and bool(np.all((given < 0) == (converted < 0)))
                # The round trip: 300 -> u8 44 -> 44, 2 -> bool True -> 1.
                exact = exact and np.array_equal(
                    converted.astype(given.dtype), given)
                if not exact:
                    refuse()
            elif np.any(np.isinf(converted) & np.isfinite(given)):
                refuse(' (it overflows to infinity)')
    except ArgumentError:
        raise
    except (OverflowError, ValueError, TypeError, RuntimeWarning,
            DeprecationWarning) as e:
        refuse(' (it overflows)' if isinstance(e, (OverflowError,
                                                   RuntimeWarning)) else '')
    return converted


def _is_number_like(obj):
    """Whether `obj` is what the number rules convert (_number_array): a
    Python or NumPy number, or a (nested) list or tuple of them."""
    import numbers
    numpy = sys.modules.get('numpy')
    return isinstance(obj, (numbers.Number, list, tuple)) or (
        numpy is not None and isinstance(obj, numpy.generic))


def _plain_number(obj):
    """A number of another kind (fractions.Fraction, decimal.Decimal) as
    the int it equals, else the float nearest it; others as they are."""
    import numbers
    if type(obj) in (int, float, bool, complex) or \
            not isinstance(obj, numbers.Number) or \
            type(obj).__module__ == 'numpy':
        return obj
    try:
        whole = int(obj)
        if whole == obj:
            return whole
    except (TypeError, ValueError, OverflowError):
        pass  # NaN and the infinities have no int
    try:
        return float(obj)
    except (TypeError, ValueError, OverflowError):
        return obj


def _dlpack_view(obj, stream, dtype=None, output=False, name='?'):
    """A DLTensor of any object with __dlpack__, and what keeps it alive.
    NumPy arrays go through NumPy as they are; NumPy scalars and Python
    numbers and lists are made arrays of `dtype`, the parameter's (code,
    bits), when they hold its values (_number_array). An output must be
    writable."""
    numpy = sys.modules.get('numpy')
    if numpy is not None and isinstance(obj, numpy.ndarray) and \
            type(obj) is not numpy.ndarray:
        # A subclass: its own __dlpack__ refuses some arrays NumPy's path
        # takes (read-only ones); a masked array's mask would be ignored.
        if isinstance(obj, numpy.ma.MaskedArray):
            raise ArgumentError(f"{'output' if output else 'input'} '{name}' "
                                'is a masked array, whose mask '
                                'Pipe would not see; pass .filled(value) or '
                                '.data', 2)
        obj = numpy.asarray(obj)
    if not hasattr(obj, '__dlpack__') or (
            type(obj).__module__ == 'numpy' and hasattr(obj, 'ctypes')):
        import numpy as np
        if isinstance(obj, np.ndarray):
            return _numpy_view(obj, output, name)
        if output:
            raise ArgumentError(f"output '{name}' is of type "
                                f'{type(obj).__name__}, not an array (a NumPy '
                                'array or a DLPack tensor)', 2)
        if not _is_number_like(obj):
            # A buffer or an array interface (memoryview, array.array, an
            # object with __array_interface__) has a dtype of its own:
            # taken as the array it is, and refused unless it is the
            # parameter's, as a NumPy array would be (not converted).
            try:
                array = np.asarray(obj)
            except (TypeError, ValueError) as e:
                raise ArgumentError(f"input '{name}' is a "
                                    f'{type(obj).__name__}, not an array '
                                    f'({e})', 2) from None
            if array.dtype.kind not in 'biuf':
                raise ArgumentError(f"input '{name}' is a "
                                    f'{type(obj).__name__}, not an array of '
                                    'numbers', 2)
            return _numpy_view(array, name=name)
        if dtype is None or dtype[0] == kDLBfloat:
            return _numpy_view(np.asarray(obj), name=name)
        return _numpy_view(_number_array(obj, dtype, name), name=name)
    device_type, _ = obj.__dlpack_device__()
    # The DLPack protocol's stream: the one the consumer (this run) uses;
    # 1 is CUDA's legacy default stream. CPU producers take None.
    kwargs = {'stream': (stream or 1) if device_type == kDLCUDA else None}
    try:
        capsule = obj.__dlpack__(max_version=(1, 1), **kwargs)
    except TypeError:  # a producer of DLPack before 1.0
        capsule = obj.__dlpack__(**kwargs)
    which = f"{'output' if output else 'input'} '{name}'"
    kind = _api.PyCapsule_GetName(capsule)
    pointer = _api.PyCapsule_GetPointer(capsule, kind)
    if kind == b'dltensor_versioned':
        managed = DLManagedTensorVersioned.from_address(pointer)
        if managed.version.major != 1:
            raise ArgumentError(f'{which} is a DLPack '
                                f'{managed.version.major}.'
                                f'{managed.version.minor} tensor (Pipe '
                                'reads 1.x)', 2)
        if output and managed.flags & DLPACK_FLAG_READ_ONLY:
            raise ArgumentError(f'{which} ({type(obj).__name__}) is '
                                'read-only', 2)
        tensor = managed.dl_tensor
    elif kind == b'dltensor':
        tensor = DLManagedTensor.from_address(pointer).dl_tensor
    else:
        raise ArgumentError(f'{which}: __dlpack__ gave a capsule named '
                            f'{kind!r}', 2)
    # The capsule stays unconsumed: its destructor frees the tensor once
    # the run is done with it.
    return tensor, capsule


_torch = None  # the torch module, once a torch tensor has been seen
_TORCH_DTYPES = {}


_torch_templates = {}  # (dtype, shape, strides, device) -> DLTensor


def _torch_view(t):
    """(A DLTensor over a torch tensor but for its data pointer, what keeps
    it alive), made from its attributes: cheaper
    than __dlpack__ and its capsule (bench/python_overhead.py). Only for
    runs on torch's current stream, which needs no DLPack handshake. A
    template per dtype, shape, strides and device is kept, so that a call
    on tensors like the last ones only sets the data pointer. The strides
    go along, so that the C API names a non-contiguous input."""
    key = (t.dtype, t.shape, t.stride(), t.device)
    template = _torch_templates.get(key)
    if template is None:
        template = _torch_template(t)
        if len(_torch_templates) >= 256:
            _torch_templates.clear()
        _torch_templates[key] = template
    return template


def _torch_template(t):
    global _torch
    if _torch is None:
        import torch
        _torch = torch
    if not _TORCH_DTYPES:
        names = {'uint8': (kDLUInt, 8), 'int8': (kDLInt, 8),
                 'int16': (kDLInt, 16), 'int32': (kDLInt, 32),
                 'int64': (kDLInt, 64), 'uint16': (kDLUInt, 16),
                 'uint32': (kDLUInt, 32), 'uint64': (kDLUInt, 64),
                 'float16': (kDLFloat, 16), 'bfloat16': (kDLBfloat, 16),
                 'float32': (kDLFloat, 32), 'float64': (kDLFloat, 64),
                 'bool': (kDLBool, 8)}
        for name, code in names.items():
            if hasattr(_torch, name):
                _TORCH_DTYPES[getattr(_torch, name)] = code
    code = _TORCH_DTYPES.get(t.dtype)
    if code is None:
        raise ArgumentError(f'torch dtype {t.dtype} has no Pipe dtype', 2)
    ndim = t.dim()
    shape = (ctypes.c_int64 * max(ndim, 1))(*t.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*t.stride())
    d = DLTensor()
    device = t.device
    if device.type == 'cuda':
        d.device = DLDevice(kDLCUDA, device.index or 0)
    elif device.type == 'cpu':
        d.device = DLDevice(kDLCPU, 0)
    else:
        raise ArgumentError(f'a torch tensor on {device}: Pipe takes cpu '
                            'and cuda tensors', 2)
    d.ndim = ndim
    d.dtype = DLDataType(code[0], code[1], 1)
    d.shape = shape
    d.strides = strides
    d.byte_offset = 0
    return d, shape, strides


def _current_stream(objects):
    """The caller's current CUDA stream: torch's or CuPy's for their
    tensors, else the legacy default stream (0); and whether it is torch's
    (then torch tensors need no DLPack handshake)."""
    global _torch
    for obj in objects:
        module = type(obj).__module__.split('.')[0]
        if module == 'torch' and getattr(obj, 'is_cuda', False):
            if _torch is None:
                import torch
                _torch = torch
            if not isinstance(obj, _torch.Tensor):
                continue
            return _torch_raw_stream(obj.device.index or 0), True
        if module == 'cupy':
            import cupy
            return cupy.cuda.get_current_stream().ptr, False
    return 0, False


# --- Tensors out --------------------------------------------------------------

_TYPESTR = {kDLInt: 'i', kDLUInt: 'u', kDLFloat: 'f', kDLBool: 'b'}


class _Owner:
    """What owns memory or a handle it frees once (Tensor, Pipeline): a
    copy that shared it would free it twice, so copy, deepcopy and pickle
    refuse, saying what to do instead."""
    _instead_of_copy = _instead_of_pickle = ''

    def __copy__(self):
        raise TypeError(f'a pipegpu.{type(self).__name__} cannot be copied: '
                        + self._instead_of_copy)

    def __deepcopy__(self, memo):
        self.__copy__()

    def __reduce__(self):
        raise TypeError(f'a pipegpu.{type(self).__name__} cannot be pickled; '
                        + self._instead_of_pickle)


class Tensor(_Owner):
    """A result: memory Pipe allocated, device or host, freed when the last
    of this object and the arrays that took it by DLPack goes."""
    _instead_of_copy = ('take a copy of the data (np.array(t), '
                        'torch.from_dlpack(t).clone()), or share t itself')
    _instead_of_pickle = 'pickle np.array(t) instead'

    def __init__(self, managed):
        if not isinstance(managed, ctypes.POINTER(DLManagedTensorVersioned)):
            raise TypeError('a pipegpu.Tensor is made by a run or read_image, '
                            'not from ' + type(managed).__name__)
        self._managed = managed  # POINTER(DLManagedTensorVersioned)
        t = managed.contents.dl_tensor
        self._shape = tuple(t.shape[i] for i in range(t.ndim))
        self._dtype = (t.dtype.code, t.dtype.bits)
        self._device = (t.device.device_type, t.device.device_id)
        self._data_ptr = t.data or 0

    # Read-only: what the memory is. (A writable shape, set as NumPy's
    # in-place reshape is, made .numpy() read past the allocation.)
    @property
    def shape(self):
        """The dims, as a tuple of ints."""
        return self._shape

    @property
    def device(self):
        """(DLPack device type, device id): (1, 0) host, (2, 0) cuda:0."""
        return self._device

    @property
    def data_ptr(self):
        """The address of the first element."""
        return self._data_ptr

    def __del__(self):
        managed = getattr(self, '_managed', None)
        if managed:
            self._managed = None
            managed.contents.deleter(managed)

    @property
    def dtype(self):
        """Pipe's name of the dtype: 'u8', 'f32', 'bool', ..."""
        return _dtype_text(*self._dtype)

    def _typestr(self):
        code, bits = self._dtype
        if code == kDLBfloat:
            raise TypeError('bf16 has no array-interface type; use DLPack')
        return '|' + _TYPESTR[code] + str(bits // 8) if bits == 8 else \
            '<' + _TYPESTR[code] + str(bits // 8)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None,
                   copy=None):
        # The run was waited for on its stream: the data is ready for any
        # consumer stream, so `stream` needs no event.
        if copy:
            raise BufferError('pipegpu tensors are exported without a copy')
        if dl_device is not None and tuple(dl_device) != self.device:
            raise BufferError(f'the tensor is on {self.device}, not {dl_device}')
        versioned = max_version is not None and max_version[0] >= 1
        if versioned:
            shared = _lib.pipe_dlpack_share(self._managed)
        else:
            shared = _lib.pipe_dlpack_unversioned(self._managed)
        if not shared:
            raise MemoryError('pipegpu: no memory to export a tensor')
        return _api.PyCapsule_New(ctypes.cast(shared, _P),
                                  _CAPSULE_NAMES[versioned],
                                  _CAPSULE_DESTRUCTOR)

    @property
    def __cuda_array_interface__(self):
        if self.device[0] != kDLCUDA:
            raise AttributeError('a host tensor has no __cuda_array_interface__')
        return {'shape': self.shape, 'typestr': self._typestr(),
                'data': (self.data_ptr, False), 'version': 3,
                'strides': None, 'stream': None}

    @property
    def __array_interface__(self):
        if self.device[0] == kDLCUDA:
            raise AttributeError('a device tensor has no __array_interface__; '
                                 'take it with DLPack (torch.from_dlpack, '
                                 'cupy.from_dlpack)')
        return {'shape': self.shape, 'typestr': self._typestr(),
                'data': (self.data_ptr, False), 'version': 3}

    def numpy(self):
        """A NumPy view of a host tensor (no copy)."""
        if self.device[0] == kDLCUDA:
            raise TypeError('a device tensor has no NumPy view; take it with '
                            'DLPack (torch.from_dlpack, cupy.from_dlpack), or '
                            'run on host arrays')
        import numpy as np
        return np.asarray(self)

    def __repr__(self):
        where = 'cuda:%d' % self.device[1] if self.device[0] == kDLCUDA \
            else 'cpu'
        return f'pipegpu.Tensor({self.dtype}{list(self.shape)}, {where})'


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


def _torch_raw_stream(index):
    """torch's current stream on device `index`, as an int (torch's
    private, faster function when it has it: found once)."""
    global _torch_raw_stream
    raw = getattr(_torch._C, '_cuda_getCurrentRawStream', None)
    if raw is None:
        def raw(index):
            return _torch.cuda.current_stream(index).cuda_stream
    _torch_raw_stream = raw
    return raw(index)


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
                                f'{len(self.params)} inputs, got {len(inputs)}',
                                2)
        if backend == 'gpu' and _torch is not None:
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
                if torch_stream and isinstance(a, _torch.Tensor):
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
        tensor = _torch.Tensor
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
        current = _torch_raw_stream(device)
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
        why = ('it is a directory' if os.path.isdir(path) else
               'it is not a regular file' if os.path.exists(path) else
               'no such file')
        raise FileError(f"cannot open '{os.fsdecode(path)}': {why}", 5)
    try:
        with open(path, 'rb'):
            pass
    except OSError as e:
        # Unreadable (its permissions): an OSError as a missing file's is,
        # not the CompileError the C API would report.
        raise FileError(f"cannot open '{os.fsdecode(path)}': "
                        f'{e.strerror}', 5) from None
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
                                ctypes.byref(managed)))
    return Tensor(managed)


def write_image(path, image):
    """Writes `image` (any DLPack or NumPy array: u8, or bool as 0 and 255,
    of shape [H, W] or [H, W, C] with C from 1 to 4, host or device) as a
    PNG file at `path`, whole or not at all. Device memory is read after
    the work queued on it (the producer is asked to order it before the
    legacy default stream, as DLPack says)."""
    encoded = _path(path, 'the image path')
    tensor, alive = _dlpack_view(image, 1, output=False, name='image')
    _check(_lib.pipe_image_write(encoded, ctypes.byref(tensor)))
    del alive
