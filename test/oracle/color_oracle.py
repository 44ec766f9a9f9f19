"""The color functions against NumPy (float64) models of DALI's
documented formulas: brightness_contrast, hsv, hue, saturation,
color_twist (YIQ matrices, DALI's color_twist.h) and
color_space_conversion (ITU-R BT.601 YCbCr, studio range), on random
images of odd sizes with per-sample parameters. Integer results agree
within 1 (rounding of values computed in f32 against float64), float
results within 1e-4 relative."""
from oracle import check, finish, rng, run
import numpy as np

RGB2YIQ = np.array([[.299, .587, .114], [.596, -.274, -.321],
                    [.211, -.523, .311]], np.float32).astype(np.float64)
YIQ2RGB = np.linalg.inv(RGB2YIQ)
RANGE = {'u8': 255.0, 'i16': 32767.0, 'f32': 1.0}
HALF = {'u8': 128.0, 'i16': 16384.0, 'f32': 0.5}
NP = {'u8': np.uint8, 'i16': np.int16, 'f32': np.float32}


def to_dtype(x, dtype):
    t = NP[dtype]
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        return np.clip(np.rint(x), info.min, info.max).astype(t)
    return x.astype(t)


def per_sample(p, ndim):
    p = np.asarray(p, np.float64)
    return p.reshape(p.shape + (1,) * (ndim - p.ndim))


def brightness_contrast(x, dtype, out, b=1.0, shift=0.0, c=1.0, cc=None):
    cc = HALF[dtype] if cc is None else cc
    b, shift, c = (per_sample(v, x.ndim) for v in (b, shift, c))
    y = shift * RANGE[out] + b * (cc + c * (x.astype(np.float64) - cc))
    return to_dtype(y, out)


def twist_matrix(h=0.0, s=1.0, v=1.0, b=1.0, c=1.0):
    rad = np.deg2rad(h)
    hue = np.array([[1, 0, 0], [0, np.cos(rad), np.sin(rad)],
                    [0, -np.sin(rad), np.cos(rad)]])
    sat = np.diag([1.0, s, s])
    return b * c * v * (YIQ2RGB @ hue @ sat @ RGB2YIQ)


def mix(x, matrices, offsets, out):
    """Per sample n: y[n, ..., c] = sum_k m[n][c, k] x[n, ..., k] + o[n][c]."""
    y = np.einsum('n...k,nck->n...c', x.astype(np.float64), matrices)
    y += offsets.reshape(offsets.shape[0], *([1] * (x.ndim - 2)), -1)
    return to_dtype(y, out)


YCBCR = np.array([[0.25678823529, 0.50412941176, 0.09790588235],
                  [-0.14822289945, -0.29099278682, 0.43921568627],
                  [0.43921568627, -0.36778831435, -0.07142737192]])


def ycbcr_offsets(dtype):
    unit = 1 / 256 if dtype == 'f32' else 1.0
    return np.array([16, 128, 128]) * unit


SOURCE = """
pipeline color(x: {d}[N, H, W, 3], b: f32[N], s: f32[N], h: f32[N]) -> (
    bc: {d}[N, H, W, 3], bcf: f32[N, H, W, 3], hs: {d}[N, H, W, 3],
    hu: {d}[N, H, W, 3], sa: {d}[N, H, W, 3], ct: {d}[N, H, W, 3]) {{
  bc  = brightness_contrast(x, brightness = b, brightness_shift = 0.05, contrast = s)
  bcf = brightness_contrast(x, contrast = 1.5, contrast_center = 100, dtype = f32)
  hs  = hsv(x, hue = h, saturation = s, value = 0.9)
  hu  = hue(x, hue = h)
  sa  = saturation(x, saturation = s)
  ct  = color_twist(x, brightness = b, contrast = s, hue = h, saturation = 1.2)
}}
"""

CONVERT = """
pipeline convert(x: {d}[N, H, W, 3], g: {d}[N, H, W, 1]) -> (
    gray: {d}[N, H, W, 1], bgr_gray: {d}[N, H, W, 1], bgr: {d}[N, H, W, 3],
    y: {d}[N, H, W, 3], ybgr: {d}[N, H, W, 3], rgb: {d}[N, H, W, 3],
    g3: {d}[N, H, W, 3], gy: {d}[N, H, W, 3], yg: {d}[N, H, W, 1]) {{
  gray = color_space_conversion(x, image_type = rgb, output_type = gray)
  bgr_gray = color_space_conversion(x, image_type = bgr, output_type = gray)
  bgr  = color_space_conversion(x, image_type = rgb, output_type = bgr)
  y    = color_space_conversion(x, image_type = rgb, output_type = ycbcr)
  ybgr = color_space_conversion(x, image_type = bgr, output_type = ycbcr)
  rgb  = color_space_conversion(x, image_type = ycbcr, output_type = rgb)
  g3   = color_space_conversion(g, image_type = gray, output_type = rgb)
  gy   = color_space_conversion(g, image_type = gray, output_type = ycbcr)
  yg   = color_space_conversion(x, image_type = ycbcr, output_type = gray)
}}
"""


def image(dtype, shape):
    if dtype == 'u8':
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if dtype == 'i16':
        return rng.integers(-2000, 30000, shape, dtype=np.int16)
    return rng.random(shape, dtype=np.float32)


def near(name, got, want, dtype):
    if dtype == 'f32':
        check(name, got, want, tol=1e-4)
        return
    assert got.shape == want.shape and got.dtype == want.dtype, name
    diff = int(np.max(np.abs(got.astype(np.int64) - want.astype(np.int64)),
                      initial=0))
    check(f'{name} (within 1: {diff})', np.asarray(diff <= 1), np.asarray(True))


for dtype in ['u8', 'i16', 'f32']:
    for n, h, w in [(1, 1, 1), (3, 5, 7), (2, 31, 17)]:
        x = image(dtype, (n, h, w, 3))
        b = rng.uniform(0.5, 1.5, n).astype(np.float32)
        s = rng.uniform(0.3, 1.7, n).astype(np.float32)
        hue = rng.uniform(-180, 180, n).astype(np.float32)
        got = run(SOURCE.format(d=dtype), {'x': x, 'b': b, 's': s, 'h': hue})
        case = f'{dtype} {n}x{h}x{w}'
        near('brightness_contrast ' + case, got['bc'],
             brightness_contrast(x, dtype, dtype, b, 0.05, s), dtype)
        near('brightness_contrast f32 ' + case, got['bcf'],
             brightness_contrast(x, dtype, 'f32', c=1.5, cc=100.0), 'f32')
        zeros = np.zeros((n, 3))
        m = np.stack([twist_matrix(hue[i], s[i], 0.9) for i in range(n)])
        near('hsv ' + case, got['hs'], mix(x, m, zeros, dtype), dtype)
        m = np.stack([twist_matrix(hue[i]) for i in range(n)])
        near('hue ' + case, got['hu'], mix(x, m, zeros, dtype), dtype)
        m = np.stack([twist_matrix(s=s[i]) for i in range(n)])
        near('saturation ' + case, got['sa'], mix(x, m, zeros, dtype), dtype)
        m = np.stack([twist_matrix(hue[i], 1.2, b=b[i], c=s[i])
                      for i in range(n)])
        half = 0.5 if dtype == 'f32' else 128.0
        offsets = np.repeat(((half - half * s) * b)[:, None], 3, axis=1)
        near('color_twist ' + case, got['ct'], mix(x, m, offsets, dtype), dtype)
        if dtype == 'i16':
            continue
        g = image(dtype, (n, h, w, 1))
        got = run(CONVERT.format(d=dtype), {'x': x, 'g': g})
        eye = np.repeat(np.eye(3)[None], n, 0)

        def conv(matrix, offset, src=x):
            k = np.repeat(np.asarray(matrix, np.float64)[None], n, 0)
            o = np.repeat(np.asarray(offset, np.float64)[None], n, 0)
            return mix(src, k, o, dtype)
        gray = [[0.299, 0.587, 0.114]]
        near('rgb->gray ' + case, got['gray'], conv(gray, [0]), dtype)
        near('bgr->gray ' + case, got['bgr_gray'],
             conv([[0.114, 0.587, 0.299]], [0]), dtype)
        near('rgb->bgr ' + case, got['bgr'], conv(eye[0][::-1], [0, 0, 0]),
             dtype)
        off = ycbcr_offsets(dtype)
        near('rgb->ycbcr ' + case, got['y'], conv(YCBCR, off), dtype)
        near('bgr->ycbcr ' + case, got['ybgr'], conv(YCBCR[:, ::-1], off),
             dtype)
        # ycbcr -> rgb: (Y - 16) 255/219 and the chroma terms.
        inv = np.array([[1, 0, 1.5960267848], [1, -0.39176228842, -0.81296764538],
                        [1, 2.0172321417, 0]]) * [[255 / 219, 1, 1]]
        near('ycbcr->rgb ' + case, got['rgb'], conv(inv, -inv @ off), dtype)
        near('gray->rgb ' + case, got['g3'], conv([[1], [1], [1]], [0, 0, 0], g),
             dtype)
        near('gray->ycbcr ' + case, got['gy'],
             conv([[219 / 255], [0], [0]], off, g), dtype)
        near('ycbcr->gray ' + case, got['yg'],
             conv([[255 / 219, 0, 0]], [-off[0] * 255 / 219]), dtype)

# brightness_contrast in the documented order: an infinite brightness
# gives inf (255 as u8), not inf - inf = NaN (0 as u8); a contrast of 10^4
# about a centre of 0.5 keeps the f32 result within 1e-4 of the formula
# (as addend + multiplier * x it lost four digits).
x = np.full((2, 3, 4, 3), 200, np.uint8)
xf = np.array([0.5001, 0.4999, 0.25, 0.75], np.float32).reshape(1, 1, 4, 1)
xf = np.broadcast_to(xf, (2, 3, 4, 3)).copy()
b = np.array([np.inf, 2.0], np.float32)
got = run('''pipeline p(x: u8[N, H, W, 3], xf: f32[N, H, W, 3], b: f32[N]) -> (
    y: u8[N, H, W, 3], z: f32[N, H, W, 3], w: f32[N, H, W, 3]) {
  y = brightness_contrast(x, brightness = b)
  z = brightness_contrast(x, brightness = b, dtype = f32)
  w = brightness_contrast(xf, contrast = 10000)
}''', {'x': x, 'xf': xf, 'b': b})
check('brightness_contrast of an infinite brightness (u8)', got['y'],
      brightness_contrast(x, 'u8', 'u8', b))
check('brightness_contrast of an infinite brightness (f32)', got['z'],
      brightness_contrast(x, 'u8', 'f32', b))
want = brightness_contrast(xf, 'f32', 'f32', c=10000.0)
check('brightness_contrast with a contrast of 10^4 (within 1e-4)',
      np.asarray(np.max(np.abs(got['w'] - want) / np.abs(want)) <= 1e-4),
      np.asarray(True))

# At the defaults, and with a shift of 0 (literal or per sample), every
# f32 and f64 value passes with its bits: -0.0 stays -0.0 (x + 0.0 and a
# shift of 0.0 added made it 0.0), infinities and NaN pass.
for dtype, t in (('f32', np.float32), ('f64', np.float64)):
    x = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-45, -1.5, 3e38,
                  -3e38, 0.25, 7, 8], t).reshape(2, 1, 2, 3)
    got = run(f'''pipeline p(x: {dtype}[N, H, W, 3], s: f32[N]) -> (
    a: {dtype}[N, H, W, 3], b: {dtype}[N, H, W, 3], c: {dtype}[N, H, W, 3]) {{
  a = brightness_contrast(x)
  b = brightness_contrast(x, brightness_shift = s)
  c = brightness_contrast(x, contrast = 1, brightness_shift = 0)
}}''', {'x': x, 's': np.zeros(2, np.float32)})
    for name in 'abc':
        check(f'brightness_contrast of {dtype} passes -0.0 ({name})',
              got[name], x)

# 32- and 64-bit integer images: at contrast 1 each value passes exactly
# (the default centres, 2^30 to 2^63, took a small value's low bits in
# f32: 1 came back 0), and at another contrast the result is within 1
# while the values fit f32's 24 bits.
wide = {'i32': np.int32, 'u32': np.uint32, 'i64': np.int64, 'u64': np.uint64}
for dtype, t in wide.items():
    lo = -5 if dtype[0] == 'i' else 0
    x = np.concatenate([np.array([lo, 0, 1, 100, 1000000, 8388607]),
                        rng.integers(max(lo, 0), 1 << 23, 12)]).astype(t)
    x = x.reshape(2, 1, 3, 3)
    got = run(f'''pipeline p(x: {dtype}[N, H, W, 3]) -> (a: {dtype}[N, H, W, 3],
    b: {dtype}[N, H, W, 3], c: {dtype}[N, H, W, 3]) {{
  a = brightness_contrast(x)
  b = brightness_contrast(x, brightness = 2)
  c = brightness_contrast(x, contrast = 0.5, contrast_center = 4096)
}}''', {'x': x})
    check(f'brightness_contrast of {dtype} at the defaults', got['a'], x)
    check(f'brightness_contrast of {dtype}, brightness 2', got['b'],
          (x.astype(np.int64) * 2).astype(t))
    want = 4096 + 0.5 * (x.astype(np.float64) - 4096)
    info = np.iinfo(t)
    want = np.clip(np.rint(want), info.min, info.max)
    diff = np.max(np.abs(got['c'].astype(np.float64) - want))
    check(f'brightness_contrast of {dtype}, contrast 0.5 (within 1: {diff})',
          np.asarray(diff <= 1), np.asarray(True))

# Hue angles reduce mod 360 before they turn (fmod is exact): 36000032
# degrees (100000 turns and 32) turn as 32 did, -7200001 as 359; f32(h *
# pi / 180) of the whole angle was off by up to 0.06 rad.
x = image('f32', (2, 3, 5, 3))
xu = image('u8', (2, 3, 5, 3))
h = np.array([36000032, -7200001], np.float32)
got = run('''pipeline p(x: f32[N, H, W, 3], xu: u8[N, H, W, 3], h: f32[N]) -> (
    a: f32[N, H, W, 3], b: u8[N, H, W, 3]) {
  a = hue(x, hue = h)
  b = hsv(xu, hue = h, saturation = 0.8)
}''', {'x': x, 'xu': xu, 'h': h})
reduced = np.mod(h.astype(np.float64), 360)
m = np.stack([twist_matrix(r) for r in reduced])
near('hue of 100000 turns and 32 degrees', got['a'], mix(x, m, np.zeros((2, 3)), 'f32'),
     'f32')
m = np.stack([twist_matrix(r, 0.8) for r in reduced])
near('hsv of 100000 turns and 32 degrees (u8)', got['b'],
     mix(xu, m, np.zeros((2, 3)), 'u8'), 'u8')

# Whole turns leave the hue before it becomes f32, which would round them
# first: a float literal of 1000000087.5 degrees turns as 7.5 did, and so
# does an f64 tensor (1000000064 and 344 degrees, rounded first).
h = np.array([1000000087.5, -1000000087.5], np.float64)
got = run('''pipeline p(x: f32[N, H, W, 3], xu: u8[N, H, W, 3], h: f64[N]) -> (
    a: f32[N, H, W, 3], b: u8[N, H, W, 3], c: f32[N, H, W, 3]) {
  a = hue(x, hue = h)
  b = hsv(xu, hue = 1000000087.5, saturation = 0.8)
  c = hue(x, hue = -1000000087.5)
}''', {'x': x, 'xu': xu, 'h': h})
reduced = np.mod(h, 360)
m = np.stack([twist_matrix(r) for r in reduced])
near('hue of an f64 tensor of 2777778 turns and 7.5 degrees', got['a'],
     mix(x, m, np.zeros((2, 3)), 'f32'), 'f32')
m = np.stack([twist_matrix(reduced[0], 0.8)] * 2)
near('hsv of a literal of 2777778 turns and 7.5 degrees (u8)', got['b'],
     mix(xu, m, np.zeros((2, 3)), 'u8'), 'u8')
m = np.stack([twist_matrix(reduced[1])] * 2)
near('hue of a literal of -2777778 turns and -7.5 degrees', got['c'],
     mix(x, m, np.zeros((2, 3)), 'f32'), 'f32')

# color_space_conversion sums only its formula's terms: an inf or NaN
# channel reaches the outputs that read it and no other (0 x inf is NaN),
# and a channel moved as it is keeps its bits (-0.0 included).
x = np.array([[np.inf, 0.25, 0.5], [-0.0, 1.0, np.nan], [0.5, -np.inf, 0.25]],
             np.float32)
g = np.array([[np.inf], [0.5], [-0.0]], np.float32)
got = run('''pipeline p(x: f32[N, 3], g: f32[N, 1]) -> (bgr: f32[N, 3],
    same: f32[N, 3], gy: f32[N, 3], yg: f32[N, 1], g3: f32[N, 3]) {
  bgr = color_space_conversion(x, image_type = rgb, output_type = bgr)
  same = color_space_conversion(x, image_type = bgr, output_type = bgr)
  gy = color_space_conversion(g, image_type = gray, output_type = ycbcr)
  yg = color_space_conversion(x, image_type = ycbcr, output_type = gray)
  g3 = color_space_conversion(g, image_type = gray, output_type = rgb)
}''', {'x': x, 'g': g})
check('rgb->bgr of inf, NaN and -0.0', got['bgr'], x[:, ::-1])
check('bgr->bgr of inf, NaN and -0.0', got['same'], x)
with np.errstate(invalid='ignore'):
    gy = np.concatenate([np.float32(219 / 255) * g + np.float32(1 / 16),
                         np.full((3, 2), 0.5, np.float32)], axis=1)
    yg = np.float32(255 / 219) * (x[:, :1] - np.float32(1 / 16))
check('gray->ycbcr of inf (chroma stays 0.5)', got['gy'], gy, tol=1e-6)
check('ycbcr->gray reads only y', got['yg'], yg, tol=1e-6)
check('gray->rgb of inf and -0.0', got['g3'], np.repeat(g, 3, axis=1))

finish()
