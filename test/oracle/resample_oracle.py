"""warp_affine, rotate and resize against NumPy (float64) models written
from the definitions in docs/language.md (DALI's pixel centres; torch's
align_corners=False bilinear; PIL's antialias filter), on random images
of odd sizes with per-sample matrices and angles. u8 results within 1 of
the model, floats within 1e-3."""
from oracle import check, finish, rng, run
import numpy as np


def read(img, y, x, border, fill):
    """img [H, W, C] at integer arrays y, x: the pixels, or the border's."""
    h, w = img.shape[:2]
    inside = (y >= 0) & (y < h) & (x >= 0) & (x < w)
    yc, xc = np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)
    v = img[yc, xc].astype(np.float64)
    if border == 'constant':
        v = np.where(inside[..., None], v, fill)
    return v


def sample(img, sx, sy, interp, border, fill):
    """The image at points (sx, sy) [OH, OW], pixel centres at +0.5."""
    if interp == 'nearest':
        return read(img, np.floor(sy).astype(np.int64),
                    np.floor(sx).astype(np.int64), border, fill)
    px, py = sx - 0.5, sy - 0.5
    x0, y0 = np.floor(px), np.floor(py)
    fx, fy = (px - x0)[..., None], (py - y0)[..., None]
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    a = read(img, y0, x0, border, fill)
    b = read(img, y0, x0 + 1, border, fill)
    c = read(img, y0 + 1, x0, border, fill)
    d = read(img, y0 + 1, x0 + 1, border, fill)
    return (1 - fy) * ((1 - fx) * a + fx * b) + fy * ((1 - fx) * c + fx * d)


def affine(img, m, oh, ow, interp='linear', border='constant', fill=0.0):
    oy, ox = np.meshgrid(np.arange(oh) + 0.5, np.arange(ow) + 0.5, indexing='ij')
    sx = m[0, 0] * ox + m[0, 1] * oy + m[0, 2]
    sy = m[1, 0] * ox + m[1, 1] * oy + m[1, 2]
    return sample(img, sx, sy, interp, border, fill)


def rotation(degrees, h, w, oh, ow):
    """Destination to source: counter-clockwise on screen (y down)."""
    t = np.deg2rad(degrees)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, w / 2 - c * ow / 2 + s * oh / 2],
                     [s, c, h / 2 - s * ow / 2 - c * oh / 2]])


def aa_weights(out_size, in_size):
    """PIL's triangle filter per output index: (first, weights)."""
    scale = in_size / out_size
    support = max(scale, 1.0)
    inv = 1 / scale if scale >= 1 else 1.0
    rows = []
    for o in range(out_size):
        centre = scale * (o + 0.5)
        lo = max(int(centre - support + 0.5), 0)
        hi = min(int(centre + support + 0.5), in_size)
        j = np.arange(lo, hi)
        wj = np.maximum(0, 1 - np.abs((j - centre + 0.5) * inv))
        rows.append((lo, wj / wj.sum()))
    return rows


def resize_aa(img, oh, ow):
    h, w = img.shape[:2]
    out = np.zeros((oh, ow, img.shape[2]))
    ry, rx = aa_weights(oh, h), aa_weights(ow, w)
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


def near(name, got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, \
        (name, got.shape, want.shape, got.dtype, want.dtype)
    if got.dtype == np.uint8:
        diff = int(np.max(np.abs(got.astype(int) - want.astype(int)), initial=0))
        check(f'{name} (within 1: {diff})', np.asarray(diff <= 1),
              np.asarray(True))
    else:
        check(name, got, want, tol=1e-3)


SOURCE = """
pipeline p(x: u8[N, H, W, 3], m: f32[N, 2, 3], angle: f32[N]) -> (
    rot: u8[N, H, W, 3], rot2: f32[N, 40, 50, 3], warp: f32[N, 31, 29, 3],
    warpn: u8[N, 17, 23, 3], down: u8[N, 23, 19, 3], up: u8[N, 61, 47, 3],
    plain: u8[N, 23, 19, 3], nearest: u8[N, 23, 61, 3]) {
  rot   = rotate(x, angle = angle)
  rot2  = rotate(x, angle = 30, size = [40, 50], fill = 255, dtype = f32)
  warp  = warp_affine(x, matrix = m, size = [31, 29], fill = 3, dtype = f32)
  warpn = warp_affine(x, matrix = [0.5, 0.1, 2, -0.2, 1.5, 4], size = [17, 23], interp = nearest)
  down  = resize(x, size = [23, 19])
  up    = resize(x, size = [61, 47])
  plain = resize(x, size = [23, 19], antialias = false)
  nearest = resize(x, size = [23, 61], interp = nearest)
}
"""

for n, h, w in [(1, 1, 1), (3, 37, 45), (2, 64, 57)]:
    x = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    m = rng.uniform(-1.5, 1.5, (n, 2, 3)).astype(np.float32)
    m[:, :, 2] *= 10
    angle = rng.uniform(-180, 180, n).astype(np.float32)
    angle[0] = 90
    got = run(SOURCE, {'x': x, 'm': m, 'angle': angle})
    case = f'{n}x{h}x{w}'
    for i in range(n):
        img = x[i]
        near(f'rotate {case} [{i}]', got['rot'][i],
             to(affine(img, rotation(angle[i], h, w, h, w), h, w), np.uint8))
        near(f'rotate size fill {case} [{i}]', got['rot2'][i],
             to(affine(img, rotation(30.0, h, w, 40, 50), 40, 50, fill=255),
                np.float32))
        near(f'warp_affine {case} [{i}]', got['warp'][i],
             to(affine(img, m[i].astype(np.float64), 31, 29, fill=3),
                np.float32))
        mn = np.array([[0.5, 0.1, 2], [-0.2, 1.5, 4]], np.float32)
        near(f'warp_affine nearest {case} [{i}]', got['warpn'][i],
             to(affine(img, mn.astype(np.float64), 17, 23, 'nearest'),
                np.uint8))
        near(f'resize antialias down {case} [{i}]', got['down'][i],
             to(resize_aa(img, 23, 19), np.uint8))
        near(f'resize antialias up {case} [{i}]', got['up'][i],
             to(resize_aa(img, 61, 47), np.uint8))
        scale = np.array([[w / 19, 0, 0], [0, h / 23, 0]])
        near(f'resize linear {case} [{i}]', got['plain'][i],
             to(affine(img, scale, 23, 19, border='clamp'), np.uint8))
        scale = np.array([[w / 61, 0, 0], [0, h / 23, 0]])
        near(f'resize nearest {case} [{i}]', got['nearest'][i],
             to(affine(img, scale, 23, 61, 'nearest', border='clamp'),
                np.uint8))

finish()
