"""warp_affine, rotate and resize against NumPy (float64) models written
from the definitions in docs/language.md (DALI's pixel centres; torch's
align_corners=False bilinear; PIL's antialias filter; Keys' cubic and
Lanczos 3), on random images
of odd sizes with per-sample matrices and angles. u8 results within 1 of
the model, floats within 1e-3."""
import oracle
from oracle import check, expect_failure, finish, rng, run
from resample_model import affine, near, resize_aa, resize_roi_aa, rotation, to
import numpy as np


SOURCE = """
pipeline p(x: u8[N, H, W, 3], m: f32[N, 2, 3], angle: f32[N]) -> (
    rot: u8[N, H, W, 3], rot2: f32[N, 40, 50, 3], warp: f32[N, 31, 29, 3],
    warpn: u8[N, 17, 23, 3], down: u8[N, 23, 19, 3], up: u8[N, 61, 47, 3],
    plain: u8[N, 23, 19, 3], nearest: u8[N, 23, 61, 3]) {
  rot   = rotate(x, angle = angle)
  rot2  = rotate(x, angle = 30, size = [40, 50], fill = 255, dtype = f32)
  warp  = warp_affine(x, matrix = m, size = [31, 29], fill = 3, dtype = f32)
  warpn = warp_affine(x, matrix = [[0.5, 0.1, 2], [-0.2, 1.5, 4]], size = [17, 23], interp = nearest)
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

# The antialiased resize's tiled path (core/PipeResample.h,
# pipe_resize_tile) on images of many 8 x 64 tiles: partial tiles at the
# edges, scales whose columns a tile takes in narrower chunks (up to 6.5),
# scales past what a tile keeps (the pixel path), upscales, a flipped
# region, values of 1, 2 and 4 bytes and channels of 1, 3 and 5. On the
# GPU, each result is also the reference's, bit for bit (the same sums in
# the same order).
TILES = """
pipeline t(x: u8[N, H, W, 3], g: u16[N, H, W, 1], f: f32[N, H, W, 5]) -> (
    half: u8[N, 101, 259, 3], chunked: u8[N, 67, 100, 3],
    pixel: f32[N, 29, 61, 3], up: u8[N, 210, 530, 3],
    flip: u8[N, 50, 130, 3], wide: f32[N, 41, 77, 1],
    five: f32[N, 33, 129, 5]) {
  half    = resize(x, size = [101, 259])
  chunked = resize(x, size = [67, 100])
  pixel   = resize(x, size = [29, 61], dtype = f32)
  up      = resize(x, size = [210, 530])
  flip    = resize(x, size = [50, 130], roi_start = [3, W - 2], roi_end = [H, 5])
  wide    = resize(g, size = [41, 77], dtype = f32)
  five    = resize(f, size = [33, 129])
}
"""
n, h, w = 2, 203, 517
x = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
g = rng.integers(0, 65536, (n, h, w, 1), dtype=np.uint16)
f = rng.uniform(-100, 100, (n, h, w, 5)).astype(np.float32)
inputs = {'x': x, 'g': g, 'f': f}
got = run(TILES, inputs)
if oracle.BACKEND == 'gpu':
    oracle.BACKEND = 'reference'
    want = run(TILES, inputs)
    oracle.BACKEND = 'gpu'
    for name in sorted(want):
        check(f'tiled resize {name}: GPU == reference', got[name], want[name])
for i in range(n):
    for name, size in [('half', (101, 259)), ('chunked', (67, 100)),
                       ('up', (210, 530))]:
        near(f'tiled resize {name} [{i}]', got[name][i],
             to(resize_aa(x[i], *size), np.uint8))
    near(f'tiled resize pixel path [{i}]', got['pixel'][i],
         to(resize_aa(x[i], 29, 61), np.float32))
    near(f'tiled resize flipped region [{i}]', got['flip'][i],
         to(resize_aa(x[i, 3:h, 5:w - 2], 50, 130)[:, ::-1], np.uint8))
    near(f'tiled resize u16 [{i}]', got['wide'][i],
         to(resize_aa(g[i], 41, 77), np.float32))
    near(f'tiled resize 5 channels [{i}]', got['five'][i],
         to(resize_aa(f[i], 33, 129), np.float32))

# Resamples fused with the kernel that consumes them (pipe.resample_kernel:
# test/codegen/fused-resample.pipe): the tiled path (to CHW), the pixel
# path of a tiled kernel (a downscale past what a tile keeps) under a
# per-sample flip, the row kernel (a rotation) under a flip along H,
# images of rank 5 and 3, a centre crop, and a crop at anchors per sample
# under a flip per sample. Each epilogue is exact on the u8 values, which
# are recovered from the results and compared with the models; on the
# GPU, each result is also the reference's, bit for bit.
FUSED = """
pipeline e(x: u8[N, H, W, 3], m: bool[N], a: f32[N], y: u8[N, 2, H, W, 1],
           z: u8[H, W, 3], at: i32[N, 2]) -> (
    chw: f32[N, 3, 101, 259], mir: f16[N, 29, 61, 3], rot: f32[N, H, W, 3],
    grp: f32[N, 2, 9, 7, 1], one: f32[5, 6, 3], cen: f32[N, 3, 50, 60],
    rnd: f32[N, 31, 33, 3]) {
  cen = transpose(f32(crop(resize(x, size = [61, 70]), shape = [50, 60])) + 1,
                  [0, 3, 1, 2])
  rnd = f32(flip(crop(resize(x, size = [40, 44]), anchor = at, shape = [31, 33]),
                 axes = [2], when = m)) * 2
  chw = transpose(f32(resize(x, size = [101, 259])) * 2 + 1, [0, 3, 1, 2])
  mir = f16(flip(resize(x, size = [29, 61]), axes = [2], when = m))
  rot = f32(flip(rotate(x, angle = a), axes = [1], when = m)) - 3
  grp = f32(resize(y, size = [9, 7])) + 1
  one = f32(resize(z, size = [5, 6])) + 1
}
"""
m = np.array([True, False])
a = np.array([17.5, -101.0], np.float32)
y = rng.integers(0, 256, (n, 2, h, w, 1), dtype=np.uint8)
at = np.array([[9, 0], [0, 11]], np.int32)
inputs = {'x': x, 'm': m, 'a': a, 'y': y, 'z': x[1], 'at': at}


def run_bit_exact(source, inputs, what):
    """run(), and on the GPU each result checked against the reference's,
    bit for bit."""
    got = run(source, inputs)
    if oracle.BACKEND == 'gpu':
        oracle.BACKEND = 'reference'
        want = run(source, inputs)
        oracle.BACKEND = 'gpu'
        for name in sorted(want):
            check(f'{what} {name}: GPU == reference', got[name], want[name])
    return got


got = run_bit_exact(FUSED, inputs, 'fused resample')


def recovered(values):
    return to(np.asarray(values, np.float64), np.uint8)


for i in range(n):
    near(f'fused resize to CHW [{i}]',
         recovered((got['chw'][i].transpose(1, 2, 0) - 1) / 2),
         to(resize_aa(x[i], 101, 259), np.uint8))
    mirrored = got['mir'][i][:, ::-1] if m[i] else got['mir'][i]
    near(f'fused resize, pixel path, flipped per sample [{i}]',
         recovered(mirrored), to(resize_aa(x[i], 29, 61), np.uint8))
    rotated = got['rot'][i][::-1] if m[i] else got['rot'][i]
    near(f'fused rotate, flipped along H per sample [{i}]',
         recovered(rotated + 3),
         to(affine(x[i], rotation(a[i], h, w, h, w), h, w), np.uint8))
    for j in range(2):
        near(f'fused resize of rank 5 [{i}, {j}]',
             recovered(got['grp'][i, j] - 1),
             to(resize_aa(y[i, j], 9, 7), np.uint8))
for i in range(n):
    near(f'fused resize, centre crop, CHW [{i}]',
         recovered(got['cen'][i].transpose(1, 2, 0) - 1),
         to(resize_aa(x[i], 61, 70), np.uint8)[5:55, 5:65])
    cropped = got['rnd'][i][:, ::-1] if m[i] else got['rnd'][i]
    y0, x0 = at[i]
    near(f'fused resize, crop per sample, flipped per sample [{i}]',
         recovered(cropped / 2),
         to(resize_aa(x[i], 40, 44), np.uint8)[y0:y0 + 31, x0:x0 + 33])
near('fused resize of rank 3', recovered(got['one'] - 1),
     to(resize_aa(x[1], 5, 6), np.uint8))

# Epilogues whose dropped values find their elements through parameters
# read past a crop (a flag per row of a crop per sample along H; a flag
# per sample of the images after the first), whose anchor is an unsigned
# literal past 127, and a flip whose flags are themselves flipped by a
# computed condition (not fused: the epilogue finds its elements before
# it computes anything), and one channel to CHW (a dim of one each side).
EDGES = """
pipeline f(x: u8[3, H, W, 3], ay: i32[3], mr: bool[3, 20], m: bool[2],
           m3: bool[3], k: i32, g: u8[3, H, W, 1])
    -> (row: f32[3, 20, 44, 3], tail: f32[2, 8, 9, 3], big: f32[3, 20, 25, 3],
        twice: f32[3, 12, 13, 3], gray: f32[3, 1, 11, 7]) {
  row = f32(flip(crop(resize(x, size = [40, 44]), axes = [1], anchor = [ay],
                      shape = [20]), axes = [2], when = mr)) + 1
  tail = f32(flip(resize(x, size = [8, 9])[1:], axes = [2], when = m)) + 1
  big = f32(crop(resize(x, size = [30, 230]), anchor = [u8(3), u8(200)],
                 shape = [20, 25])) + 1
  twice = f32(flip(resize(x, size = [12, 13]), axes = [2],
                   when = flip(m3, axes = [0], when = k > 0))) + 1
  gray = transpose(f32(resize(g, size = [11, 7])) + 1, [0, 3, 1, 2])
}
"""
x3 = rng.integers(0, 256, (3, h, w, 3), dtype=np.uint8)
ay = np.array([0, 20, 7], np.int32)
mr = rng.integers(0, 2, (3, 20)).astype(bool)
m2 = np.array([True, False])
m3 = np.array([True, False, False])
g = rng.integers(0, 256, (3, h, w, 1), dtype=np.uint8)
edges = {'x': x3, 'ay': ay, 'mr': mr, 'm': m2, 'm3': m3,
         'k': np.array(1, np.int32), 'g': g}
got = run_bit_exact(EDGES, edges, 'fused resample edge')
twice = m3[::-1]
for i in range(3):
    rows = to(resize_aa(x3[i], 40, 44), np.uint8)[ay[i]:ay[i] + 20]
    rows = np.where(mr[i][:, None, None], rows[:, ::-1], rows)
    near(f'fused resize, crop per sample, flip per row [{i}]',
         recovered(got['row'][i] - 1), rows)
    near(f'fused resize, crop at u8 anchors past 127 [{i}]',
         recovered(got['big'][i] - 1),
         to(resize_aa(x3[i], 30, 230), np.uint8)[3:23, 200:225])
    small = to(resize_aa(x3[i], 12, 13), np.uint8)
    near(f'resize, flip by flipped flags [{i}]', recovered(got['twice'][i] - 1),
         small[:, ::-1] if twice[i] else small)
    near(f'fused resize, one channel to CHW [{i}]',
         recovered(got['gray'][i].transpose(1, 2, 0) - 1),
         to(resize_aa(g[i], 11, 7), np.uint8))
for i in range(2):
    small = to(resize_aa(x3[i + 1], 8, 9), np.uint8)
    near(f'fused resize, images after the first, flip per sample [{i}]',
         recovered(got['tail'][i] - 1), small[:, ::-1] if m2[i] else small)

# cubic and lanczos (docs/language.md, Resampling): Keys' cubic (a =
# -0.5) and Lanczos 3, stretched when antialiasing a downscale, cut at the
# image and normalized; on the tiled path (supports up to 6.5) and the
# pixel path (wider), without antialias, upscaled, and flipped. A linear
# downscale by 73 has more taps than the pixel path keeps in its arrays
# (64): its weights are computed as they are used. On the GPU, bit for bit
# the reference's.
FILTERS = """
pipeline c(x: u8[N, H, W, 3], f: f32[N, H, W, 5]) -> (
    cubic: u8[N, 67, 150, 3], cubicf: f32[N, 67, 150, 5],
    cubic_pixel: f32[N, 40, 60, 3], cubic_plain: f32[N, 29, 61, 3],
    cubic_up: u8[N, 230, 600, 3], lanczos: f32[N, 101, 259, 3],
    lanczos_pixel: u8[N, 50, 100, 3], lanczos_up: f32[N, 210, 530, 5],
    lanczos_flip: f32[N, 50, 130, 3], tiny: u8[N, 3, 7, 3]) {
  cubic         = resize(x, size = [67, 150], interp = cubic)
  cubicf        = resize(f, size = [67, 150], interp = cubic)
  cubic_pixel   = resize(x, size = [40, 60], interp = cubic, dtype = f32)
  cubic_plain   = resize(x, size = [29, 61], interp = cubic, antialias = false, dtype = f32)
  cubic_up      = resize(x, size = [230, 600], interp = cubic)
  lanczos       = resize(x, size = [101, 259], interp = lanczos, dtype = f32)
  lanczos_pixel = resize(x, size = [50, 100], interp = lanczos)
  lanczos_up    = resize(f, size = [210, 530], interp = lanczos)
  lanczos_flip  = resize(x, size = [50, 130], interp = lanczos, roi_start = [3, W - 2], roi_end = [H, 5], dtype = f32)
  tiny          = resize(x, size = [3, 7])
}
"""
got = run(FILTERS, {'x': x, 'f': f})
if oracle.BACKEND == 'gpu':
    oracle.BACKEND = 'reference'
    want = run(FILTERS, {'x': x, 'f': f})
    oracle.BACKEND = 'gpu'
    for name in sorted(want):
        check(f'{name}: GPU == reference', got[name], want[name])
for i in range(n):
    for name, img, size, interp, aa, dtype in [
            ('cubic', x, (67, 150), 'cubic', True, np.uint8),
            ('cubicf', f, (67, 150), 'cubic', True, np.float32),
            ('cubic_pixel', x, (40, 60), 'cubic', True, np.float32),
            ('cubic_plain', x, (29, 61), 'cubic', False, np.float32),
            ('cubic_up', x, (230, 600), 'cubic', True, np.uint8),
            ('lanczos', x, (101, 259), 'lanczos', True, np.float32),
            ('lanczos_pixel', x, (50, 100), 'lanczos', True, np.uint8),
            ('lanczos_up', f, (210, 530), 'lanczos', True, np.float32),
            ('tiny', x, (3, 7), 'linear', True, np.uint8)]:
        near(f'{name} [{i}]', got[name][i],
             to(resize_aa(img[i], *size, interp, aa), dtype),
             scale=np.abs(img).max() if interp != 'linear' else None)
    near(f'lanczos_flip [{i}]', got['lanczos_flip'][i],
         to(resize_aa(x[i, 3:h, 5:w - 2], 50, 130, 'lanczos')[:, ::-1],
            np.float32), scale=255)

# The strip kernel (core/PipeResizeStrips.h), which the launcher takes
# where a row of the input is whole 4-byte words (the images above, 517
# pixels of 3 or 1 bytes, are not) and a warp holds the columns 32 pixels
# read: values of 1, 2 and 4 bytes in words of 4, 2 and 1, channels 1 to
# 4, sizes not multiples of its 32 x 32 units, regions per sample
# (fractional, one flipped: spans starting inside a word), a literal
# flipped region, cubic and lanczos, and one fused into a transpose. On
# the GPU, bit for bit the reference's.
STRIPS = """
pipeline s(x: u8[N, H, W, 3], g: u16[N, H, W, 1], e: f16[N, H, W, 2],
           f: f32[N, H, W, 4], a: f32[N, 2], b: f32[N, 2],
           z: f32[N, H, W, 4], q: f16[N, H, W, 2]) -> (
    half: u8[N, 101, 259, 3], wide: f32[N, 41, 77, 1],
    pair: f32[N, 70, 200, 2], four: f32[N, 67, 300, 4],
    roi: u8[N, 80, 200, 3], flip: u8[N, 50, 260, 3],
    cubic: u8[N, 67, 200, 3], lanczos: f32[N, 101, 259, 3],
    chw: f32[N, 3, 61, 200], odd: f32[N, 81, 207, 4],
    oddh: f32[N, 81, 207, 2]) {
  half    = resize(x, size = [101, 259])
  wide    = resize(g, size = [41, 77], dtype = f32)
  pair    = resize(e, size = [70, 200], dtype = f32)
  four    = resize(f, size = [67, 300])
  roi     = resize(x, size = [80, 200], roi_start = a, roi_end = b)
  flip    = resize(x, size = [50, 260], roi_start = [3, W - 2], roi_end = [H, 5])
  cubic   = resize(x, size = [67, 200], interp = cubic)
  lanczos = resize(x, size = [101, 259], interp = lanczos, dtype = f32)
  chw     = transpose(f32(resize(x, size = [61, 200])) * 2 + 1, [0, 3, 1, 2])
  odd     = resize(z, size = [81, 207])
  oddh    = resize(q, size = [81, 207], dtype = f32)
}
"""
n, h, w = 2, 203, 516
x = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
g = rng.integers(0, 65536, (n, h, w, 1), dtype=np.uint16)
e = rng.uniform(-100, 100, (n, h, w, 2)).astype(np.float16)
f = rng.uniform(-100, 100, (n, h, w, 4)).astype(np.float32)
# Sample 0 a fractional region, sample 1 one flipped along W.
a = np.array([[1.25, 7.5], [10.0, 500.0]], np.float32)
b = np.array([[190.75, 490.25], [203.0, 3.0]], np.float32)
# Non-finite values where a 203 -> 81 resize (2.5 a step: odd tap counts,
# padded with a tap of weight 0 and zeroed values in the strip kernel)
# reads them: every output whose taps hold one is NaN or inf, the others
# are finite, as the reference's.
z = f.copy()
q = e.copy()
for k, (yy, xx) in enumerate([(40, 100), (41, 300), (202, 515), (0, 0)]):
    z[0, yy, xx, k % 4] = [np.inf, -np.inf, np.nan, np.inf][k]
    q[1, yy, xx, k % 2] = [np.nan, np.inf, -np.inf, np.nan][k]
inputs = {'x': x, 'g': g, 'e': e, 'f': f, 'a': a, 'b': b, 'z': z, 'q': q}
got = run(STRIPS, inputs)
if oracle.BACKEND == 'gpu':
    oracle.BACKEND = 'reference'
    want = run(STRIPS, inputs)
    oracle.BACKEND = 'gpu'
    for name in sorted(want):
        check(f'strips {name}: GPU == reference', got[name], want[name])
for i in range(n):
    for name, img, size, interp, dtype in [
            ('half', x, (101, 259), 'linear', np.uint8),
            ('wide', g, (41, 77), 'linear', np.float32),
            ('pair', e, (70, 200), 'linear', np.float32),
            ('four', f, (67, 300), 'linear', np.float32),
            ('cubic', x, (67, 200), 'cubic', np.uint8),
            ('lanczos', x, (101, 259), 'lanczos', np.float32)]:
        near(f'strips {name} [{i}]', got[name][i],
             to(resize_aa(img[i].astype(np.float64), *size, interp), dtype),
             scale=np.abs(img[i].astype(np.float64)).max()
             if name in ('wide', 'pair', 'four', 'lanczos') else None)
    for name, img in (('odd', z), ('oddh', q)):
        model = resize_aa(img[i].astype(np.float64), 81, 207)
        finite = np.isfinite(model)
        check(f'strips {name}, non-finite where the model is [{i}]',
              np.isfinite(got[name][i]), finite)
        near(f'strips {name}, the finite values [{i}]',
             np.where(finite, got[name][i], 0).astype(np.float32),
             np.where(finite, model, 0).astype(np.float32),
             scale=np.abs(np.where(np.isfinite(img[i]), img[i], 0)).max())
    near(f'strips region per sample [{i}]', got['roi'][i],
         to(resize_roi_aa(x[i], 80, 200, (*a[i], *b[i])), np.uint8))
    near(f'strips flipped region [{i}]', got['flip'][i],
         to(resize_aa(x[i, 3:h, 5:w - 2], 50, 260)[:, ::-1], np.uint8))
    near(f'strips fused into a transpose [{i}]',
         to(((got['chw'][i] - 1) / 2).transpose(1, 2, 0), np.uint8),
         to(resize_aa(x[i], 61, 200), np.uint8))

# Large angles turn by their remainder by 360 (an angle of 1e18 degrees
# gave the image unturned: its fraction of a turn had lost its bits).
x = rng.integers(0, 256, (5, 15, 17, 3), dtype=np.uint8)
angle = np.array([1e13, 1e16, 1e17, 1e18, -4.5e18], np.float32)
got = run("""pipeline p(x: u8[N, H, W, 3], a: f32[N]) -> (r: u8[N, H, W, 3]) {
  r = rotate(x, angle = a)
}""", {'x': x, 'a': angle})
for i in range(len(angle)):
    near(f'rotate by {float(angle[i]):g} degrees', got['r'][i],
         to(affine(x[i], rotation(float(angle[i]), 15, 17, 15, 17), 15, 17),
            np.uint8))

# Whole turns leave an angle before it becomes f32, which would round them
# first (1000000087 degrees are 1000000064 in f32: 344 degrees, not 7): a
# literal's when compiling, an integer or f64 tensor's in its dtype.
x = rng.integers(0, 256, (3, 15, 17, 3), dtype=np.uint8)
ai = np.array([1000000087, -1000000087, 2147483647], np.int32)
al = np.array([-(1 << 62) + 7, 1 << 62, 1000000087], np.int64)
ad = np.array([1000000087.5, -1e17 - 7.25, 4e18 + 512], np.float64)
got = run("""pipeline p(x: u8[N, H, W, 3], ai: i32[N], al: i64[N], ad: f64[N])
    -> (i: u8[N, H, W, 3], l: u8[N, H, W, 3], d: u8[N, H, W, 3],
        n: u8[N, H, W, 3], f: u8[N, H, W, 3]) {
  i = rotate(x, angle = ai)
  l = rotate(x, angle = al)
  d = rotate(x, angle = ad)
  n = rotate(x, angle = 1000000087)
  f = rotate(x, angle = -1000000087.5)
}""", {'x': x, 'ai': ai, 'al': al, 'ad': ad})
for name, angles in (('i', ai), ('l', al), ('d', ad),
                     ('n', [1000000087] * 3), ('f', [-1000000087.5] * 3)):
    for s in range(3):
        a = angles[s]
        turn = float(int(a) % 360) if isinstance(a, (int, np.integer)) \
            else float(np.fmod(np.float64(a), 360))
        near(f'rotate by {a} degrees ({name}, as {turn:g})', got[name][s],
             to(affine(x[s], rotation(turn, 15, 17, 15, 17), 15, 17),
                np.uint8))

# Bad parameters only the run knows (docs/language.md, Resampling): a NaN
# or infinite angle or matrix element fails the run naming the sample and
# its value, and writes nothing; a coin_flip's probability outside [0, 1]
# and a normal's stddev that is negative or not finite likewise.
BAD = """
pipeline bad(x: u8[N, H, W, 3], a: f32[N], m: f32[N, 2, 3], q: f32[N],
             sd: f32[N]) -> (
    r: u8[N, H, W, 3], w: u8[N, H, W, 3], f: bool[N], g: f32[N]) {
  r = rotate(x, angle = a)
  w = warp_affine(x, matrix = m)
  f = coin_flip(p = q, shape = [N])
  g = normal(stddev = sd, shape = [N])
}
"""
good = {'x': rng.integers(0, 256, (3, 5, 7, 3), dtype=np.uint8),
        'a': np.array([10, -5, 30], np.float32),
        'm': np.tile(np.array([[1, 0, 0.5], [0, 1, -1]], np.float32),
                     (3, 1, 1)),
        'q': np.array([0, 0.5, 1], np.float32),
        'sd': np.array([0, 1, 2.5], np.float32)}
got = run(BAD, good)
for i in range(3):
    near(f'rotate, checked angles [{i}]', got['r'][i],
         to(affine(good['x'][i], rotation(float(good['a'][i]), 5, 7, 5, 7),
                   5, 7), np.uint8))
for name, value, text in [
        ('a', np.array([10, np.nan, 30], np.float32),
         'the angle of sample [1] is nan, not a finite number of magnitude at most 2^62'),
        # A NaN with its sign bit set is "nan" too (it said "-nan").
        ('a', np.array([10, 5, -np.nan], np.float32),
         'the angle of sample [2] is nan, not a finite number of magnitude at most 2^62'),
        ('a', np.array([10, 5, -np.inf], np.float32),
         'the angle of sample [2] is -inf, not a finite number of magnitude at most 2^62'),
        ('a', np.array([1e19, 5, 0], np.float32),
         'the angle of sample [0] is 1e+19, not a finite number of magnitude at most 2^62'),
        ('m', np.where(np.arange(18).reshape(3, 2, 3) == 10, np.inf,
                       good['m']).astype(np.float32),
         "the matrices' element [1, 1, 1] (sample..., row, column) is inf, not a finite number of magnitude at most 2^62"),
        ('q', np.array([0.5, 1.5, 0], np.float32),
         'the probability of element [1] is 1.5, outside [0, 1]'),
        ('q', np.array([0.5, 0.5, -0.25], np.float32),
         'the probability of element [2] is -0.25, outside [0, 1]'),
        ('sd', np.array([1, -1, 0], np.float32),
         'the stddev of element [1] is -1, not a finite number in [0, 2^62]'),
        ('sd', np.array([1, 2, np.inf], np.float32),
         'the stddev of element [2] is inf, not a finite number in [0, 2^62]')]:
    code, err = run(BAD, {**good, name: value}, expect_error=True)
    expect_failure(f'bad {name}: {text}', code, err,
                   text + '; nothing was written')

# nearest copies the pixel, converted once (not through f32): f64 values
# and i32 past 2^24 come back exactly; the fill of a rotate too.
NEAREST = """
pipeline p(a: f64[N, H, W, 1], b: i32[N, H, W, 2]) -> (x: f64[N, 5, 7, 1],
    y: i32[N, 5, 7, 2], r: i32[N, H, W, 2]) {
  x = resize(a, size = [5, 7], interp = nearest)
  y = resize(b, size = [5, 7], interp = nearest)
  r = rotate(b, angle = 90, interp = nearest, fill = 7)
}
"""
a64 = rng.standard_normal((2, 9, 11, 1))
b32 = rng.integers(2**24, 2**31 - 1, (2, 9, 11, 2)).astype(np.int32)
got = run(NEAREST, {'a': a64, 'b': b32})
ys = np.floor((np.arange(5) + 0.5) * 9 / 5).astype(int)
xs = np.floor((np.arange(7) + 0.5) * 11 / 7).astype(int)
check('nearest resize of f64, exact', got['x'], a64[:, ys][:, :, xs])
check('nearest resize of i32 past 2^24, exact', got['y'], b32[:, ys][:, :, xs])
check('nearest rotate of i32 past 2^24: pixels or the fill',
      np.asarray(np.isin(got['r'], np.append(b32.ravel(), 7)).all()),
      np.asarray(True))

# A literal region against sizes only the run knows is checked then too
# (its resize would otherwise read, and scale, past the image).
ROI = """
pipeline r(x: u8[N, H, W, 3]) -> (y: u8[N, 20, 20, 3]) {
  y = resize(x, size = [20, 20], roi_start = [0, 0], roi_end = [500, 40])
}
"""
code, err = run(ROI, {'x': rng.integers(0, 256, (1, 100, 100, 3),
                                        dtype=np.uint8)}, expect_error=True)
expect_failure('a literal region past the image of symbolic size', code, err,
               "roi_end's y is 500, outside the image's [0, 100]"
               "; nothing was written")
# A relative region past the image names the pixels it came to and how.
code, err = run("""
pipeline r(x: u8[N, H, W, 1], a: f32[N, 2], b: f32[N, 2]) -> (y: u8[N, 3, 4, 1]) {
  y = resize(x, size = [3, 4], roi_start = a, roi_end = b, relative_roi = true)
}
""", {'x': rng.integers(0, 256, (2, 6, 8, 1), dtype=np.uint8),
      'a': np.zeros((2, 2), np.float32),
      'b': np.array([[1, 1], [1, 1.01]], np.float32)}, expect_error=True)
expect_failure('a relative region past the image', code, err,
               "roi_end's x of sample [1] is 8.08 pixels (relative_roi: the "
               "value given times W), outside the image's [0, 8]")
tall = rng.integers(0, 256, (1, 600, 50, 3), dtype=np.uint8)
got = run(ROI, {'x': tall})
near('a literal region inside the image of symbolic size', got['y'][0],
     to(resize_aa(tall[0, 0:500, 0:40], 20, 20), np.uint8))

# fill enters the interpolation as written; the result is converted after
# it (docs: Resampling): half over 200 and half over 300 is 250 as u8,
# wholly outside 300 saturates to 255.
got = run("""
pipeline f(x: u8[N, H, W, 1]) -> (y: u8[N, H, W, 1], o: u8[N, H, W, 1]) {
  y = warp_affine(x, matrix = [1, 0, -0.5, 0, 1, 0], fill = 300)
  o = warp_affine(x, matrix = [1, 0, -9, 0, 1, 0], fill = 300)
}
""", {'x': np.full((1, 2, 4, 1), 200, np.uint8)})
check('warp fill blends before converting', got['y'][0, :, :, 0],
      np.array([[250, 200, 200, 200]] * 2, np.uint8))
check('warp fill outside saturates', got['o'], np.full((1, 2, 4, 1), 255, np.uint8))

# Images with no pixels: a resize has nothing to interpolate and fails the
# run in its name (unless there are no samples either); a rotation or warp
# shows only its fill.
EMPTY = """
pipeline e(x: u8[N, H, W, 3]) -> (y: u8[N, 4, 5, 3], r: u8[N, H, W, 3],
    w: u8[N, 4, 4, 3]) {
  y = resize(x, size = [4, 5])
  r = rotate(x, angle = 30, fill = 7)
  w = warp_affine(x, matrix = [1, 0, 0, 0, 1, 0], size = [4, 4], fill = 9)
}
"""
code, err = run(EMPTY, {'x': np.zeros((2, 0, 6, 3), np.uint8)},
                expect_error=True)
expect_failure('a resize of images without pixels', code, err,
               "p.pipe:4:7: its images have no pixels (their "
               "height is 0): there is nothing to resize (H = 0, N = 2)")
got = run(EMPTY, {'x': np.zeros((0, 0, 6, 3), np.uint8)})
check('a resize of no samples', got['y'], np.zeros((0, 4, 5, 3), np.uint8))
check('a warp of no samples', got['w'], np.zeros((0, 4, 4, 3), np.uint8))
got = run(EMPTY.replace('y: u8[N, 4, 5, 3], ', '').replace(
    '  y = resize(x, size = [4, 5])\n', ''), {'x': np.zeros((2, 6, 0, 3), np.uint8)})
check('a rotation without pixels', got['r'], np.zeros((2, 6, 0, 3), np.uint8))
check('a warp without pixels is its fill', got['w'], np.full((2, 4, 4, 3), 9, np.uint8))
finish()
