"""The C library (capi/pipe_c.h, libpipe_c.so) through ctypes, and the
errors its calls raise."""
import ctypes
import errno as _errno
import os
import stat

from ._dlpack import (DLDataType, DLManagedTensor, DLManagedTensorVersioned,
                      DLTensor)


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
    message names it. Where the system said why, `errno`, `strerror` and
    `filename` say it as they do for any OSError, and the error is also of
    the matching subclass: FileNotFoundError, PermissionError,
    IsADirectoryError or NotADirectoryError."""

    def __init__(self, message, status=5, errno=None, filename=None):
        super().__init__(message, status)
        self.errno = errno
        self.strerror = os.strerror(errno) if errno else None
        self.filename = filename

    def __str__(self):
        # Pipe's message, not OSError's "[Errno 2] ...": it names the file.
        return self.args[0] if self.args else ''

    def __reduce__(self):
        return _file_error, (str(self), self.errno, self.filename)


def _file_error_kind(base):
    kind = type('FileError', (FileError, base), {})
    kind.__module__ = 'pipegpu'
    kind.__doc__ = FileError.__doc__
    return kind


_FILE_NOT_FOUND, _PERMISSION, _IS_A_DIRECTORY, _NOT_A_DIRECTORY = map(
    _file_error_kind, (FileNotFoundError, PermissionError, IsADirectoryError,
                       NotADirectoryError))
_FILE_ERROR_KINDS = {_errno.ENOENT: _FILE_NOT_FOUND,
                     _errno.EACCES: _PERMISSION, _errno.EPERM: _PERMISSION,
                     _errno.EISDIR: _IS_A_DIRECTORY,
                     _errno.ENOTDIR: _NOT_A_DIRECTORY}


def _file_error(message, errno=None, filename=None):
    """A FileError, of the OSError subclass `errno` names if any."""
    return _FILE_ERROR_KINDS.get(errno, FileError)(message, 5, errno,
                                                   filename)


def _system_reason(path, writing):
    """The errno the system gives for reading `path` (a file or a folder)
    or for writing a file there, found again after the C library refused
    it, or None where the system has no objection (the file's contents
    were the trouble)."""
    try:
        if writing:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                os.stat(folder)
                return _errno.ENOTDIR
            if os.path.isdir(path):
                return _errno.EISDIR
            if not os.access(folder, os.W_OK | os.X_OK):
                return _errno.EACCES
            return None
        if os.path.isdir(path):
            os.listdir(path)
        elif stat.S_ISREG(os.stat(path).st_mode):
            # (Only a regular file is opened: opening a FIFO nothing
            # writes to waits forever, and the C library refused it.)
            with open(path, 'rb'):
                pass
    except OSError as e:
        return e.errno
    return None


def _check(status, path=None, writing=False):
    """Raises the error of a failed call. `path`: the file the call read
    (or wrote), whose system error a FileError carries."""
    if status == 0:
        return
    message = _lib.pipe_last_error().decode(errors='replace')
    if status == 5:
        reason = _system_reason(path, writing) if path is not None else None
        raise _file_error(message, reason,
                          os.fsdecode(path) if reason else None)
    kind = {1: CompileError, 2: ArgumentError,
            4: InternalError}.get(status, PipeError)
    raise kind(message, status)
