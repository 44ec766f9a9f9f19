"""Tensors in: what a call takes (DLPack producers, NumPy's array
interface, torch tensors, Python numbers), checked against the
pipeline's parameters and viewed as DLTensors without copies; and the
stream a call runs on."""
import ctypes
import sys

from ._dlpack import (DLDataType, DLDevice, DLManagedTensor,  # noqa: F401
                      DLManagedTensorVersioned, DLTensor, kDLBfloat, kDLBool,
                      kDLCPU, kDLCUDA, kDLFloat, kDLInt, kDLUInt)
from ._library import ArgumentError, DLPACK_FLAG_READ_ONLY, _api


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
