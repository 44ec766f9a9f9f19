"""DLPack's C structs (third_party/dlpack, v1.1) as ctypes types: the ABI
the C API and every DLPack producer and consumer share. Nothing here is
Pipe's."""
import ctypes

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool = 0, 1, 2, 4, 6


class DLDevice(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8),
                ('lanes', ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', DLDevice),
                ('ndim', ctypes.c_int32), ('dtype', DLDataType),
                ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('strides', ctypes.POINTER(ctypes.c_int64)),
                ('byte_offset', ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ('dl_tensor', DLTensor), ('manager_ctx', ctypes.c_void_p),
    ('deleter', ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


class DLPackVersion(ctypes.Structure):
    _fields_ = [('major', ctypes.c_uint32), ('minor', ctypes.c_uint32)]


DLManagedTensorVersioned._fields_ = [
    ('version', DLPackVersion), ('manager_ctx', ctypes.c_void_p),
    ('deleter', ctypes.CFUNCTYPE(None,
                                 ctypes.POINTER(DLManagedTensorVersioned))),
    ('flags', ctypes.c_uint64), ('dl_tensor', DLTensor)]
