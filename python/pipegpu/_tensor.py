"""Tensors out: pipegpu.Tensor, which owns what a call allocates and shares
it through DLPack and the array interfaces."""
import ctypes

from ._dlpack import (DLManagedTensorVersioned, kDLBfloat, kDLBool, kDLCUDA,
                      kDLFloat, kDLInt, kDLUInt)
from ._arguments import _dtype_text
from ._library import _CAPSULE_DESTRUCTOR, _CAPSULE_NAMES, _P, _api, _lib


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
