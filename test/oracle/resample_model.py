"""NumPy (float64) models of the resampling ops, written from their
definitions in docs/language.md: DALI's pixel centres, torch's
align_corners=False bilinear, PIL's antialias filter, and torchvision's
resized_crop (a crop, then a resize of it) for regions of interest."""
from oracle import check
from philox_model import philox, unit
import numpy as np


def read(img, y, x, border, fill, box=None):
    """img [H, W, C] at integer arrays y, x: the pixels, or the border's
    outside `box` (y0, x0, y1, x1; the whole image by default)."""
    y0, x0, y1, x1 = box if box else (0, 0) + img.shape[:2]
    inside = (y >= y0) & (y < y1) & (x >= x0) & (x < x1)
    yc, xc = np.clip(y, y0, y1 - 1), np.clip(x, x0, x1 - 1)
    v = img[yc, xc].astype(np.float64)
    if border == 'constant':
        v = np.where(inside[..., None], v, fill)
    return v


def sample(img, sx, sy, interp, border, fill, box=None):
    """The image at points (sx, sy) [OH, OW], pixel centres at +0.5."""
    if interp == 'nearest':
        return read(img, np.floor(sy).astype(np.int64),
                    np.floor(sx).astype(np.int64), border, fill, box)
    px, py = sx - 0.5, sy - 0.5
    x0, y0 = np.floor(px), np.floor(py)
    fx, fy = (px - x0)[..., None], (py - y0)[..., None]
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    a = read(img, y0, x0, border, fill, box)
    b = read(img, y0, x0 + 1, border, fill, box)
    c = read(img, y0 + 1, x0, border, fill, box)
    d = read(img, y0 + 1, x0 + 1, border, fill, box)
    return (1 - fy) * ((1 - fx) * a + fx * b) + fy * ((1 - fx) * c + fx * d)


def affine(img, m, oh, ow, interp='linear', border='constant', fill=0.0,
           box=None):
    oy, ox = np.meshgrid(np.arange(oh) + 0.5, np.arange(ow) + 0.5, indexing='ij')
    sx = m[0, 0] * ox + m[0, 1] * oy + m[0, 2]
    sy = m[1, 0] * ox + m[1, 1] * oy + m[1, 2]
    return sample(img, sx, sy, interp, border, fill, box)


def rotation(degrees, h, w, oh, ow):
    """Destination to source: counter-clockwise on screen (y down). The
    angle reduced by 360 exactly first (np.fmod rounds nothing), as a
    large one means."""
    t = np.deg2rad(np.fmod(np.float64(degrees), 360.0))
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, w / 2 - c * ow / 2 + s * oh / 2],
                     [s, c, h / 2 - s * ow / 2 - c * oh / 2]])


RADIUS = {'linear': 1.0, 'cubic': 2.0, 'lanczos': 3.0}


def filter_weight(interp, d):
    """docs/language.md's filters at distances d: the triangle, Keys'
    cubic with a = -0.5, Lanczos' sinc(d) sinc(d / 3)."""
    d = np.abs(d)
    if interp == 'cubic':
        return np.where(d < 1, (1.5 * d - 2.5) * d * d + 1,
                        np.where(d < 2, ((-0.5 * d + 2.5) * d - 4) * d + 2, 0))
    if interp == 'lanczos':
        return np.where(d < 3, np.sinc(d) * np.sinc(d / 3), 0)
    return np.maximum(0, 1 - d)


def aa_weights(out_size, in_size, interp='linear', antialias=True):
    """PIL's taps per output index: (first, weights) of the filter,
    stretched by the scale when antialiasing a downscale, cut to the image
    and normalized."""
    scale = in_size / out_size
    stretch = scale if antialias and scale >= 1 else 1.0
    support = RADIUS[interp] * stretch
    rows = []
    for o in range(out_size):
        centre = scale * (o + 0.5)
        lo = max(int(centre - support + 0.5), 0)
        hi = min(int(centre + support + 0.5), in_size)
        j = np.arange(lo, hi)
        wj = filter_weight(interp, (j - centre + 0.5) / stretch)
        rows.append((lo, wj / wj.sum()))
    return rows


def resize_aa(img, oh, ow, interp='linear', antialias=True):
    h, w = img.shape[:2]
    out = np.zeros((oh, ow, img.shape[2]))
    ry = aa_weights(oh, h, interp, antialias)
    rx = aa_weights(ow, w, interp, antialias)
    for oy, (ylo, wy) in enumerate(ry):
        rows = img[ylo:ylo + len(wy)].astype(np.float64)
        col = np.tensordot(wy, rows, axes=(0, 0))      # [W, C]
        for ox, (xlo, wx) in enumerate(rx):
            out[oy, ox] = wx @ col[xlo:xlo + len(wx)]
    return out


def to(x, dtype):
    if dtype == np.uint8:
        return np.clip(np.rint(x), 0, 255).astype(np.uint8)
    return x.astype(dtype)


def near(name, got, want, scale=None):
    """u8 within 1; floats within 1e-3, or, given the input's `scale` (255
    for u8 images), within 1e-4 of it (docs/language.md: cubic and lanczos
    weights carry f32 coordinates' error)."""
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (name, got.shape, want.shape, got.dtype, want.dtype)
    if got.dtype == np.uint8:
        diff = int(np.max(np.abs(got.astype(int) - want.astype(int)), initial=0))
        check(f'{name} (within 1: {diff})', np.asarray(diff <= 1),
              np.asarray(True))
    elif scale is not None:
        diff = float(np.max(np.abs(got - want), initial=0)) / scale
        check(f'{name} (within 1e-4 of the range: {diff:.1e})',
              np.asarray(diff <= 1e-4), np.asarray(True))
    else:
        check(name, got, want, tol=1e-3)


def span(start, end, size):
    """The pixels [lo, hi) a region from start to end touches, at least
    the nearest one."""
    lo = max(int(np.floor(min(start, end))), 0)
    hi = min(int(np.ceil(max(start, end))), size)
    if hi <= lo:
        lo = min(max(lo, 0), size - 1)
        hi = lo + 1
    return lo, hi


def aa_roi_weights(out_size, start, end, size):
    """The triangle filter's taps of a resize of [start, end) (flipped when
    end < start) to out_size, reading only span(start, end): per output
    index (first, weights), in the image's coordinates."""
    lo_b, hi_b = span(start, end, size)
    flipped = end < start
    a, b = (end, start) if flipped else (start, end)
    scale = (b - a) / out_size
    support = max(scale, 1.0)
    inv = 1 / scale if scale >= 1 else 1.0
    rows = []
    for o in range(out_size):
        centre = a + scale * ((out_size - 1 - o if flipped else o) + 0.5)
        lo = max(int(np.floor(centre - support + 0.5)), lo_b)
        hi = min(int(np.floor(centre + support + 0.5)), hi_b)
        j = np.arange(lo, hi)
        wj = np.maximum(0, 1 - np.abs((j - centre + 0.5) * inv))
        rows.append((lo, wj / wj.sum()))
    return rows


def resize_roi_aa(img, oh, ow, roi):
    """An antialiased resize of the region roi = (y0, x0, y1, x1)."""
    h, w = img.shape[:2]
    out = np.zeros((oh, ow, img.shape[2]))
    ry = aa_roi_weights(oh, roi[0], roi[2], h)
    rx = aa_roi_weights(ow, roi[1], roi[3], w)
    for oy, (ylo, wy) in enumerate(ry):
        rows = img[ylo:ylo + len(wy)].astype(np.float64)
        col = np.tensordot(wy, rows, axes=(0, 0))
        for ox, (xlo, wx) in enumerate(rx):
            out[oy, ox] = wx @ col[xlo:xlo + len(wx)]
    return out


def resize_roi_linear(img, oh, ow, roi, interp='linear'):
    """A resize of the region without antialias: the output's extent mapped
    onto it, reads clamped to the pixels it touches."""
    h, w = img.shape[:2]
    ylo, yhi = span(roi[0], roi[2], h)
    xlo, xhi = span(roi[1], roi[3], w)
    m = np.array([[(roi[3] - roi[1]) / ow, 0, roi[1]],
                  [0, (roi[2] - roi[0]) / oh, roi[0]]])
    return affine(img, m, oh, ow, interp, 'clamp', box=(ylo, xlo, yhi, xhi))


def crop_windows(n, h, w, stream, run_number, seed, scale, ratio):
    """torchvision's RandomResizedCrop.get_params per sample, its draws
    from counter indices 16 s + t (tries) and 16 s + 10 (the place)."""
    windows = []
    log_lo, log_hi = np.log(ratio[0]), np.log(ratio[1])
    for s in range(n):
        found = False
        for t in range(10):
            r = philox([16 * s + t], stream, run_number, seed)
            area = h * w * (scale[0] + unit(r[0], r[1])[0] *
                            (scale[1] - scale[0]))
            aspect = np.exp(log_lo + unit(r[2], r[3])[0] * (log_hi - log_lo))
            cw = int(np.rint(np.sqrt(area * aspect)))
            ch = int(np.rint(np.sqrt(area / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                found = True
                break
        if found:
            r = philox([16 * s + 10], stream, run_number, seed)
            bits = [(int(r[0][0]) << 32) | int(r[1][0]),
                    (int(r[2][0]) << 32) | int(r[3][0])]
            top = (bits[0] * (h - ch + 1)) >> 64
            left = (bits[1] * (w - cw + 1)) >> 64
        else:  # the whole image cut to the nearest aspect, centred
            cw, ch = w, h
            if w / h < ratio[0]:
                ch = int(np.rint(w / ratio[0]))
            elif w / h > ratio[1]:
                cw = int(np.rint(h * ratio[1]))
            top, left = (h - ch) // 2, (w - cw) // 2
        windows.append((top, left, top + ch, left + cw))
    return windows
