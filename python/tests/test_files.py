"""pipegpu's files: images read and written (PNG, JPEG, folders; by content,
through links, whole or not at all), sources compiled from files, and paths
that C would cut, each checked against independent encoders and NumPy.

Runs under pytest, or as a script: python3 test_files.py."""
import os
import signal

import numpy as np

from pipegpu_testing import pipegpu, NOISE, expect, rng, skip


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
    # Reading one is refused at once (finding the system's reason opened
    # it, and waited forever for a writer).
    signal.alarm(20)
    try:
        expect(pipegpu.FileError, lambda: pipegpu.read_image(fifo),
               'not a regular file')
    finally:
        signal.alarm(0)
    expect(pipegpu.ArgumentError,
           lambda: pipegpu.write_image(tmp_path / 'i.png', [[1, 2]]),
           'is int64, not u8')
    os.symlink(tmp_path / 'nothing' / 'here.png', tmp_path / 'dangling.png')
    expect(pipegpu.FileError,
           lambda: pipegpu.write_image(tmp_path / 'dangling.png', image),
           'a symbolic link to nothing')


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
           "pipeline 'p' takes 1 input, got 2")
    for stream in (2**64 + 5, 2**70):
        expect(pipegpu.ArgumentError,
               lambda: p(x, backend='reference', stream=stream),
               'give a CUstream as an int')


def test_file_errors_say_what_the_system_said(tmp_path):
    """A missing image or source is a FileNotFoundError too (with errno and
    filename), a folder written to an IsADirectoryError, a missing folder
    to write in a NotADirectoryError or FileNotFoundError, as os.open's
    would be; a file whose contents are bad has no errno."""
    import errno
    missing = tmp_path / 'none.png'
    for call in (lambda: pipegpu.read_image(missing),
                 lambda: pipegpu.compile_file(tmp_path / 'none.pipe')):
        try:
            call()
            raise AssertionError('a missing file was read')
        except FileNotFoundError as e:
            assert isinstance(e, pipegpu.FileError) and e.status == 5
            assert e.errno == errno.ENOENT and 'none.' in e.filename
            assert str(e).startswith("cannot open '"), str(e)
            assert type(e).__name__ == 'FileError'
    image = np.zeros((2, 3), np.uint8)
    (tmp_path / 'folder.png').mkdir()
    e = expect(IsADirectoryError,
               lambda: pipegpu.write_image(tmp_path / 'folder.png', image),
               'folder.png')
    assert e.errno == errno.EISDIR and isinstance(e, pipegpu.FileError)
    e = expect(FileNotFoundError,
               lambda: pipegpu.write_image(tmp_path / 'no' / 'x.png', image),
               'no/x.png')
    (tmp_path / 'file').write_bytes(b'')
    e = expect(NotADirectoryError,
               lambda: pipegpu.write_image(tmp_path / 'file' / 'x.png', image),
               'file/x.png')
    (tmp_path / 'cut.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    e = expect(pipegpu.FileError,
               lambda: pipegpu.read_image(tmp_path / 'cut.png'), 'cut.png')
    assert e.errno is None and not isinstance(e, FileNotFoundError)
    if os.geteuid() != 0:  # root reads anything
        (tmp_path / 'locked.png').write_bytes(b'')
        os.chmod(tmp_path / 'locked.png', 0)
        e = expect(PermissionError,
                   lambda: pipegpu.read_image(tmp_path / 'locked.png'),
                   'locked.png')
        assert e.errno == errno.EACCES


if __name__ == '__main__':
    from pipegpu_testing import run_as_script
    run_as_script(globals())
