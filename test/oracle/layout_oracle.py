"""Checks the layout functions (slicing, crop, flip, pad, concat, stack, take,
erase, iota, zeros, ones, full, dims as values) against NumPy, an oracle that
shares nothing with Pipe: each case is a .pipe program and the NumPy
expression of what docs/language.md says it computes, run on random inputs
of odd sizes in several dtypes.

  layout_oracle.py PIPEC BACKEND [SEED]     BACKEND: reference or gpu

Prints one line per case and "N of N cases agree"; exits 1 on a mismatch,
saying which case, input seed and elements differ."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
from oracle import check, random, run  # noqa: E402

# Slicing: NumPy's basic slicing, with literal and dim bounds.
for dtype in ['u8', 'i16', 'f16', 'f32', 'f64', 'bool', 'i64']:
    x = random(dtype, (3, 7, 5))
    src = f'''pipeline p(x: {dtype}[N, H, W]) -> (a: {dtype}[N, H - 2, ceil(W / 2)],
        b: {dtype}[N, W], c: {dtype}[N, H, W], d: {dtype}[2, H], e: {dtype}[N, 2, 3], f: {dtype}[H]) {{
  a = x[:, 1:H - 1, ::2]
  b = x[:, -1]
  c = x[::-1, :, ::-1]
  d = x[1:3, :, 2]
  e = x[:, -3:-1, 4:1:-1]
  f = x[-1, :, W - 1]
}}'''
    out = run(src, {'x': x})
    check(f'slice a {dtype}', out['a'], x[:, 1:6, ::2])
    check(f'slice b {dtype}', out['b'], x[:, -1])
    check(f'slice c {dtype}', out['c'], x[::-1, :, ::-1])
    check(f'slice d {dtype}', out['d'], x[1:3, :, 2])
    check(f'slice e {dtype}', out['e'], x[:, -3:-1, 4:1:-1])
    check(f'slice f {dtype}', out['f'], x[-1, :, 4])

# Python's clamping of literal bounds on literal dims.
x = random('i32', (4, 6))
out = run('''pipeline p(x: i32[4, 6]) -> (a: i32[4, 6], b: i32[0, 6], c: i32[2, 6], d: i32[3, 6]) {
  a = x[-100:100]
  b = x[3:1]
  c = x[::-3]
  d = x[10:0:-1]
}''', {'x': x})
check('slice clamps a', out['a'], x[-100:100])
check('slice clamps b', out['b'], x[3:1])
check('slice clamps c', out['c'], x[::-3])
check('slice clamps d', out['d'], x[10:0:-1])

# Steps of 2^63 - 1 and more in magnitude take one element, as in Python
# (their counts passed the 64-bit integers, giving none; a step of -2^63
# on a symbolic dim crashed pipec).
x = random('i32', (5, 3))
out = run('''pipeline p(x: i32[5, M]) -> (a: i32[1, M], b: i32[1, M], c: i32[1, M],
    d: i32[1, M], e: i32[5, ceil(M / 9223372036854775807)]) {
  a = x[::-9223372036854775807]
  b = x[::9223372036854775807]
  c = x[::-9223372036854775807 - 1]
  d = x[9223372036854775807::-9223372036854775807]
  e = x[:, ::-9223372036854775807 - 1]
}''', {'x': x})
check('huge step a', out['a'], x[::-9223372036854775807])
check('huge step b', out['b'], x[::9223372036854775807])
check('huge step c', out['c'], x[::-9223372036854775808])
check('huge step d', out['d'], x[9223372036854775807::-9223372036854775807])
check('huge step e', out['e'], x[:, ::-9223372036854775808])


def crop_np(x, anchors, shape, axes, mode, fill=0):
    """Per sample n: the window of `shape` at anchors[n] along `axes`."""
    out = []
    for n in range(x.shape[0]):
        index = []
        valid = np.ones([s for s in shape], dtype=bool)
        for j, axis in enumerate(axes):
            a = int(anchors[j][n]) if np.ndim(anchors[j]) else int(anchors[j])
            idx = a + np.arange(shape[j])
            size = x.shape[axis]
            inside = (idx >= 0) & (idx < size)
            expand = [1] * len(shape)
            expand[j] = shape[j]
            valid &= inside.reshape(expand)
            index.append(np.clip(idx, 0, size - 1))
        window = x[n][np.ix_(*[index[j] for j in range(len(axes))])]
        if mode == 'pad':
            window = np.where(valid.reshape(valid.shape + (1,) * (window.ndim - valid.ndim)),
                              window, np.array(fill).astype(x.dtype))
        out.append(window)
    return np.stack(out)


# crop: per-sample anchors, every out_of_bounds rule, the centred default.
for dtype in ['u8', 'f32', 'i16', 'f16']:
    x = random(dtype, (4, 11, 9, 3))
    ay = np.array([0, 5, -2, 8], np.int32)
    ax = np.array([3, -1, 0, 6], np.int32)
    src = f'''pipeline p(x: {dtype}[N, H, W, 3], ay: i32[N], ax: i32[N]) -> (pd: {dtype}[N, 5, 4, 3], cl: {dtype}[N, 5, 4, 3], ce: {dtype}[N, 5, 4, 3]) {{
  pd = crop(x, anchor = [ay, ax], shape = [5, 4], out_of_bounds = pad, fill = 9)
  cl = crop(x, anchor = [ay, ax], shape = [5, 4], axes = [1, 2], out_of_bounds = clamp)
  ce = crop(x, shape = [5, 4])
}}'''
    out = run(src, {'x': x, 'ay': ay, 'ax': ax})
    check(f'crop pad {dtype}', out['pd'], crop_np(x, [ay, ax], [5, 4], [1, 2], 'pad', 9))
    check(f'crop clamp {dtype}', out['cl'], crop_np(x, [ay, ax], [5, 4], [1, 2], 'clamp'))
    check(f'crop centre {dtype}', out['ce'], x[:, 3:8, 2:6])

# crop with anchors as one tensor [N, 2], in range (out_of_bounds = error).
x = random('u8', (3, 10, 12))
anchor = np.array([[0, 0], [5, 8], [2, 3]], np.int64)
out = run('''pipeline p(x: u8[N, H, W], a: i64[N, 2]) -> (y: u8[N, 5, 4]) {
  y = crop(x, anchor = a, shape = [5, 4])
}''', {'x': x, 'a': anchor})
check('crop tensor anchor', out['y'], crop_np(x, [anchor[:, 0], anchor[:, 1]], [5, 4], [1, 2], 'error'))

# out_of_bounds = error: the run fails naming the sample, and writes nothing.
code, err = run('''pipeline p(x: u8[N, H, W], a: i32[N, 2]) -> (y: u8[N, 5, 4]) {
  y = crop(x, anchor = a, shape = [5, 4])
}''', {'x': x, 'a': np.array([[0, 0], [6, 8], [2, 3]], np.int32)}, expect_error=True)
oracle.expect_failure('crop error names the sample', code, err,
                      'sample [1] is 6, outside [0, 5]')
# An anchor shared by every sample names no sample (it said "sample []").
code, err = run('''pipeline p(x: u8[N, H, W], a: i32[2]) -> (y: u8[N, 3, 2]) {
  y = crop(x, shape = [3, 2], anchor = a)
}''', {'x': x, 'a': np.array([8, 5], np.int32)}, expect_error=True)
oracle.expect_failure('a shared crop anchor out of range', code, err,
                      "the anchor along dim 1 (every sample's) is 8, "
                      "outside [0, 7]")

# flip: per-sample flags, one or two axes.
for dtype in ['u8', 'f64', 'bool']:
    x = random(dtype, (5, 3, 7))
    m = np.array([True, False, True, True, False])
    out = run(f'''pipeline p(x: {dtype}[N, H, W], m: bool[N]) -> (a: {dtype}[N, H, W], b: {dtype}[N, H, W]) {{
  a = flip(x, axes = [2], when = m)
  b = flip(x, axes = [1, 2])
}}''', {'x': x, 'm': m})
    check(f'flip when {dtype}', out['a'], np.where(m[:, None, None], x[:, :, ::-1], x))
    check(f'flip both {dtype}', out['b'], x[:, ::-1, ::-1])

# pad: every border, and to a multiple of 32.
for dtype in ['u8', 'f32']:
    x = random(dtype, (2, 37, 5))
    out = run(f'''pipeline p(x: {dtype}[N, H, W]) -> (m: {dtype}[N, 32 * ceil(H / 32), W], r: {dtype}[N, H, W + 7],
        w: {dtype}[N, H, W + 12], e: {dtype}[N, H + 3, W]) {{
  m = pad(x, shape = [32 * ceil(H / 32)], axes = [1], fill = 3)
  r = pad(x, before = [4], after = [3], axes = [2], border = reflect101)
  w = pad(x, before = [6], after = [6], axes = [2], border = wrap)
  e = pad(x, before = [1], after = [2], axes = [1], border = clamp)
}}''', {'x': x})
    check(f'pad multiple {dtype}', out['m'],
          np.pad(x, ((0, 0), (0, 64 - 37), (0, 0)), constant_values=np.array(3).astype(x.dtype)))
    check(f'pad reflect101 {dtype}', out['r'], np.pad(x, ((0, 0), (0, 0), (4, 3)), mode='reflect'))
    check(f'pad wrap {dtype}', out['w'], np.pad(x, ((0, 0), (0, 0), (6, 6)), mode='wrap'))
    check(f'pad clamp {dtype}', out['e'], np.pad(x, ((0, 0), (1, 2), (0, 0)), mode='edge'))

# concat and stack: different lengths, promotion, axes from the end.
a, b, c = random('u8', (2, 3, 4)), random('i8', (2, 5, 4)), random('u8', (2, 1, 4))
out = run('''pipeline p(a: u8[N, A, W], b: i8[N, B, W], c: u8[N, 1, W]) -> (k: i16[N, A + B + 1, W], s: u8[N, 2, A, W], t: u8[N, A, W, 2]) {
  k = concat([a, b, c], axis = 1)
  s = stack([a, a], axis = 1)
  t = stack([a, a * 2], axis = -1)
}''', {'a': a, 'b': b, 'c': c})
check('concat promotes', out['k'], np.concatenate([a.astype(np.int16), b.astype(np.int16), c.astype(np.int16)], axis=1))
check('stack axis 1', out['s'], np.stack([a, a], axis=1))
check('stack axis -1', out['t'], np.stack([a, (a * 2).astype(np.uint8)], axis=-1))

# Pixels of 3 and 6 channels over many warps, the last cut by the grid's
# end: the span entries' groups (24 bytes of u8 pixels), the concat's
# stored plain or a warp at a time through shared memory (layout-gpu.test
# runs both).
a, b = random('u8', (3, 37, 41, 3)), random('u8', (3, 37, 41, 3))
f = random('f32', (3, 37, 41, 3))
out = run('''pipeline p(a: u8[N, H, W, 3], b: u8[N, H, W, 3])
    -> (c: u8[N, H, W, 6], q: u8[N, 32 * ceil(H / 32), 32 * ceil(W / 32), 3]) {
  c = concat([a, b], axis = 3)
  q = pad(a, shape = [32 * ceil(H / 32), 32 * ceil(W / 32)], axes = [1, 2])
}''', {'a': a, 'b': b})
check('concat of 3-channel pixels', out['c'], np.concatenate([a, b], axis=3))
check('pad of 3-channel pixels to a multiple of 32', out['q'],
      np.pad(a, ((0, 0), (0, 64 - 37), (0, 64 - 41), (0, 0))))
# One kernel, two results: groups of 6 elements, 24 bytes of f32 (staged)
# and 6 of u8 (not).
out = run('''pipeline p(b: u8[N, H, W, 3], f: f32[N, H, W, 3])
    -> (g: f32[N, H, W, 6], k: u8[N, H, W, 6]) {
  g = concat([f, f32(b)], axis = -1)
  k = concat([b, u8(f > 0)], axis = -1)
}''', {'b': b, 'f': f})
check('concat of f32 pixels', out['g'],
      np.concatenate([f, b.astype(np.float32)], axis=3))
check('concat of u8 pixels beside it', out['k'],
      np.concatenate([b, (f > 0).astype(np.uint8)], axis=3))

# take: a batch permutation, negative indices, indices of another rank.
x = random('f32', (5, 3, 4))
perm = np.array([4, -1, 0, 2, -5], np.int32)
idx = np.array([[2, 0], [1, -1]], np.int64)
out = run('''pipeline p(x: f32[N, C, W], perm: i32[N], idx: i64[2, 2]) -> (a: f32[N, C, W], b: f32[N, 2, 2, W]) {
  a = take(x, perm, axis = 0)
  b = take(x, idx, axis = 1)
}''', {'x': x, 'perm': perm, 'idx': idx})
check('take permutation', out['a'], np.take(x, perm, axis=0))
check('take 2-D indices', out['b'], np.take(x, idx, axis=1))
code, err = run('''pipeline p(x: f32[N, C], perm: i32[N]) -> (a: f32[N, C]) {
  a = take(x, perm, axis = 0)
}''', {'x': random('f32', (3, 2)), 'perm': np.array([0, 3, 1], np.int32)}, expect_error=True)
oracle.expect_failure('take error names the index', code, err,
                      'index 3 at [1] of the indices is outside [-3, 2]')

# A range with nothing in it says so: an index into an empty dim, an
# anchor for a window larger than the image.
code, err = run('''pipeline p(x: f32[N, C], i: i32[K]) -> (a: f32[K, C]) {
  a = take(x, i, axis = 0)
}''', {'x': np.zeros((0, 2), np.float32), 'i': np.array([0], np.int32)},
    expect_error=True)
oracle.expect_failure('take from an empty dim', code, err,
                      'index 0 at [0] of the indices is outside [0, -1] '
                      '(an empty range: no value passes); nothing was written')
code, err = run('''pipeline p(x: u8[N, H, W], a: i32[N, 2]) -> (y: u8[N, 5, 4]) {
  y = crop(x, anchor = a, shape = [5, 4])
}''', {'x': random('u8', (2, 3, 9)), 'a': np.zeros((2, 2), np.int32)},
    expect_error=True)
oracle.expect_failure('crop of a window larger than the image', code, err,
                      'sample [0] is 0, outside [0, -2] (an empty range: '
                      'no value passes); nothing was written')

# erase: several regions per sample, per-sample fill, regions past the edge.
m = random('f32', (3, 2, 9, 11))
ys = np.array([[0, 6], [4, -2], [8, 1]], np.int32)
xs = np.array([[1, 9], [0, 5], [10, 3]], np.int32)
anchor = np.stack([ys, xs], axis=2).reshape(3, 4)
fill = np.array([1.5, -2.0, 7.0], np.float32)
out = run('''pipeline p(m: f32[N, 2, H, W], a: i32[N, 4], f: f32[N]) -> (e: f32[N, 2, H, W]) {
  e = erase(m, anchor = a, shape = [3, 4], fill = f, axes = [2, 3])
}''', {'m': m, 'a': anchor, 'f': fill})
want = m.copy()
for n in range(3):
    for r in range(2):
        y0, x0 = ys[n, r], xs[n, r]
        want[n, :, max(y0, 0):max(y0 + 3, 0), max(x0, 0):max(x0 + 4, 0)] = fill[n]
check('erase regions', out['e'], want)

# erase's anchors and shapes as [N, R, k] with R or k of 1, and as [R, k]
# for every sample (docs/language.md: "[N, R * k] or [N, R, k] (or
# without the N)"); an anchor of no boxes ([N, 0]) leaves the tensor.
x = random('i32', (2, 6, 7))
one_box = np.array([[[1, 2]], [[3, -1]]], np.int32)
one_box_shape = np.array([[[2, 3]], [[1, 5]]], np.int32)
cols = np.array([[[1], [4]], [[0], [6]]], np.int32)
shared = np.array([[2, 3]], np.int32)
out = run('''pipeline p(x: i32[N, H, W], a: i32[N, 1, 2], s: i32[N, 1, 2],
           c: i32[N, 2, 1], b: i32[1, 2], z: i32[N, 0]) -> (
    one: i32[N, H, W], per: i32[N, H, W], col: i32[N, H, W],
    all: i32[N, H, W], none: i32[N, H, W]) {
  one  = erase(x, anchor = a, shape = [2, 2], axes = [1, 2])
  per  = erase(x, anchor = a, shape = s, axes = [1, 2], fill = 7)
  col  = erase(x, anchor = c, shape = [2], axes = [2])
  all  = erase(x, anchor = b, shape = [2, 2], axes = [1, 2])
  none = erase(x, anchor = z, shape = [1], axes = [1])
}''', {'x': x, 'a': one_box, 's': one_box_shape, 'c': cols, 'b': shared,
      'z': np.zeros((2, 0), np.int32)})


def erased(x, boxes, fill=0):
    """x with each sample's boxes [(anchor, shape) per axis...] filled."""
    want = x.copy()
    for n, sample in enumerate(boxes):
        for box in sample:
            index = [n] + [slice(max(a, 0), max(a + s, 0)) for a, s in box]
            want[tuple(index) + (slice(None),) * (x.ndim - 1 - len(box))] = fill
    return want


check('erase [N, 1, k] anchors', out['one'],
      erased(x, [[list(zip(one_box[n, 0], (2, 2)))] for n in range(2)]))
check('erase [N, 1, k] anchors and shapes', out['per'],
      erased(x, [[list(zip(one_box[n, 0], one_box_shape[n, 0]))]
                 for n in range(2)], 7))
want = x.copy()
for n in range(2):
    for c in cols[n, :, 0]:
        want[n, :, max(c, 0):max(c + 2, 0)] = 0
check('erase [N, R, 1] anchors', out['col'], want)
check('erase [1, k] anchors for every sample', out['all'],
      erased(x, [[list(zip(shared[0], (2, 2)))]] * 2))
check('erase of no boxes', out['none'], x)

# A float fill literal converts as a cast converts (rounded half to even,
# saturated; nonzero is true), as a crop's and a pad's do and DALI's float
# fill_value does: it was refused for integer and bool tensors.
x8 = random('u8', (2, 3, 5))
mask = np.zeros((2, 3, 5), bool)
out = run('''pipeline p(x: u8[N, H, W], m: bool[N, H, W]) -> (a: u8[N, H, W],
    b: u8[N, H, W], c: u8[N, H, W], d: bool[N, H, W]) {
  a = erase(x, anchor = [1], shape = [2], axes = [2], fill = 2.5)
  b = erase(x, anchor = [1], shape = [2], axes = [2], fill = 3.5)
  c = erase(x, anchor = [1], shape = [2], axes = [2], fill = 300.7)
  d = erase(m, anchor = [1], shape = [2], axes = [2], fill = 0.25)
}''', {'x': x8, 'm': mask})
for name, fill, base in (('a', 2, x8), ('b', 4, x8), ('c', 255, x8),
                         ('d', True, mask)):
    want = base.copy()
    want[:, :, 1:3] = fill
    check(f'erase with a float fill literal ({name})', out[name], want)

# A crop's anchors stacked from [N, 1] columns ([N, 2, 1]) or [k, 1]
# for every sample; clamped crops whose result is empty whatever the sizes
# compile and run.
x = random('i32', (3, 7, 9))
ys = np.array([[0], [4], [2]], np.int32)
xs = np.array([[6], [1], [3]], np.int32)
out = run('''pipeline p(x: i32[N, H, W], y: i32[N, 1], x0: i32[N, 1], b: i32[2, 1],
           e: i32[N, 0, 0]) -> (s: i32[N, 2, 3], t: i32[N, 2, 3],
                                 u: i32[N, 0, 3]) {
  s = crop(x, shape = [2, 3], anchor = stack([y, x0], axis = 1),
           out_of_bounds = pad, fill = -1)
  t = crop(x, shape = [2, 3], anchor = b)
  u = crop(e, shape = [0, 3], out_of_bounds = clamp)
}''', {'x': x, 'y': ys, 'x0': xs, 'b': np.array([[5], [6]], np.int32),
      'e': np.zeros((3, 0, 0), np.int32)})
want = np.full((3, 2, 3), -1, np.int32)
for n in range(3):
    y0, x0 = ys[n, 0], xs[n, 0]
    part = x[n, y0:y0 + 2, x0:x0 + 3]
    want[n, :part.shape[0], :part.shape[1]] = part
check('crop of anchors stacked from columns', out['s'], want)
check('crop of [k, 1] anchors', out['t'], x[:, 5:7, 6:9])
check('clamped crop of an empty result', out['u'],
      np.zeros((3, 0, 3), np.int32))

# A crop's and a pad's fill converts as a cast converts (Casts): rounded
# half to even and saturated, integer literals exactly (a 64-bit fill past
# 2^53 kept its value only up to f64's rounding), floats rounded once.
NP = {'u8': np.uint8, 'i8': np.int8, 'i64': np.int64, 'u64': np.uint64,
      'f32': np.float32, 'f16': np.float16, 'bool': np.bool_}
for dtype, fill, want_fill in [
        ('u8', '300', 255), ('u8', '-1', 0), ('u8', '2.5', 2), ('u8', '3.5', 4),
        ('i8', '-1000', -128), ('i64', '9007199254740993', 9007199254740993),
        ('i64', '-9007199254740995', -9007199254740995),
        ('u64', '18446744073709551615', 2**64 - 1), ('u64', '-5', 0),
        ('f32', '16777217', 16777216.0), ('f16', '100000', np.inf),
        ('f16', '2049', 2048.0), ('bool', '2', True), ('bool', '0.0', False)]:
    x = random(dtype, (2, 3))
    out = run(f'''pipeline p(x: {dtype}[N, W]) -> (p: {dtype}[N, W + 1], c: {dtype}[N, 2]) {{
  p = pad(x, before = [1], axes = [1], fill = {fill})
  c = crop(x, shape = [2], anchor = [-1], axes = [1], out_of_bounds = pad, fill = {fill})
}}''', {'x': x})
    column = np.full((2, 1), want_fill, NP[dtype])
    check(f'pad fill {fill} as {dtype}', out['p'], np.concatenate([column, x], 1))
    check(f'crop fill {fill} as {dtype}', out['c'],
          np.concatenate([column, x[:, :1]], 1))

# An erase of no boxes keeps the place of the random draws in its
# parameters among the pipeline's random calls: the draw after it is the
# one a pipeline with boxes makes.
source = '''pipeline p(x: f32[N, H, W], z: i32[N, BOXES]) -> (y: f32[N, H, W], u: f32[N]) {
  y = erase(x, anchor = z, shape = [1, 1], axes = [1, 2], fill = uniform(shape = [N]))
  u = uniform(shape = [N])
}'''
x = random('f32', (3, 4, 5))
none = run(source.replace('BOXES', '0'),
           {'x': x, 'z': np.zeros((3, 0), np.int32)})
outside = run(source.replace('BOXES', '2'),
              {'x': x, 'z': np.full((3, 2), 100, np.int32)})
check('erase of no boxes: the tensor', none['y'], x)
check('erase of no boxes: the draws after it', none['u'], outside['u'])

# iota, zeros, ones, full, dims as values.
x = random('f32', (3, 4, 6))
out = run('''pipeline p(x: f32[N, H, W]) -> (i: i32[N, H, W], z: f32[N, 2, H], o: u8[H], f: i64[N], g: f32[N, H, W], r: f32[N, H, W]) {
  i = iota([N, H, W], axis = 2)
  z = zeros([N, 2, H])
  o = ones(u8, [H])
  f = full([N], W - 1, dtype = i64)
  g = f32(iota([N, H, W], axis = 2)) / (W - 1)
  r = x * (H * W)
}''', {'x': x})
check('iota', out['i'], np.broadcast_to(np.arange(6, dtype=np.int32), (3, 4, 6)))
check('zeros', out['z'], np.zeros((3, 2, 4), np.float32))
check('ones', out['o'], np.ones(4, np.uint8))
check('full dim', out['f'], np.full(3, 5, np.int64))
check('iota / dim', out['g'], np.broadcast_to(np.arange(6, dtype=np.float32) / np.float32(5), (3, 4, 6)))
check('x * dims', out['r'], x * np.float32(24))
# A coordinate past the dtype saturates, as a cast does (docs: iota).
out = run('''pipeline p(x: f32[N]) -> (u: u8[N], s: i8[3, N]) {
  u = iota([N], axis = 0, dtype = u8)
  s = iota([3, N], axis = 1, dtype = i8)
}''', {'x': random('f32', (300,))})
check('iota u8 saturates', out['u'], np.minimum(np.arange(300), 255).astype(np.uint8))
check('iota i8 saturates', out['s'],
      np.broadcast_to(np.minimum(np.arange(300), 127).astype(np.int8), (3, 300)))

# Empty dims, as NumPy has them: a concat part empty in its type adds
# nothing, a constant pad of an empty dim is all fill (np.pad), a result
# empty in the run reads nothing; a part only the run finds empty is a
# named error, and nothing is written.
a, b = random('f32', (3, 4, 5)), random('f32', (3, 2, 5))
out = run('''pipeline p(a: f32[N, H, W], b: f32[N, 2, W], e: f32[N, 0, W]) -> (
    c: f32[N, H + 2, W], d: f32[N, H, W], f: f32[N, 3, W], g: f32[N, 0, W],
    k: f32[N, 2, W]) {
  c = concat([a[:, 0:0], a, e, b], axis = 1)
  d = concat([e, a], axis = 1)
  f = pad(e, before = [1], after = [2], axes = [1], fill = 7)
  g = concat([e, e[:, :, :]], axis = 1)
  k = crop(e, shape = [2], anchor = [1], axes = [1], out_of_bounds = pad, fill = -2.5)
}''', {'a': a, 'b': b, 'e': np.zeros((3, 0, 5), np.float32)})
check('concat with empty parts', out['c'], np.concatenate([a[:, 0:0], a, a[:, 0:0], b], axis=1))
check('concat of one part and an empty one', out['d'], a)
check('constant pad of an empty dim', out['f'],
      np.pad(np.zeros((3, 0, 5), np.float32), ((0, 0), (1, 2), (0, 0)), constant_values=7))
check('concat of empty parts', out['g'], np.zeros((3, 0, 5), np.float32))
check('padding crop of an empty dim', out['k'], np.full((3, 2, 5), -2.5, np.float32))
src = '''pipeline p(a: f32[N, A, W], b: f32[N, B, W]) -> (c: f32[N, A + B, W],
    q: f32[N, 8 * ceil(A / 8), W]) {
  c = concat([a, b], axis = 1)
  q = pad(a, shape = [8 * ceil(A / 8)], axes = [1], border = reflect101)
}'''
out = run(src, {'a': np.zeros((0, 3, 5), np.float32), 'b': np.zeros((0, 0, 5), np.float32)})
check('concat, no samples', out['c'], np.zeros((0, 3, 5), np.float32))
out = run(src, {'a': np.zeros((2, 0, 5), np.float32), 'b': np.zeros((2, 0, 5), np.float32)})
check('reflect pad of an empty dim to an empty multiple', out['q'], np.zeros((2, 0, 5), np.float32))
code2, err2 = run(src, {'a': np.zeros((2, 0, 5), np.float32), 'b': b[:2]}, expect_error=True)
code, err = run('''pipeline p(a: f32[N, A, W]) -> (k: f32[N, 2, W]) {
  k = crop(a, shape = [2], anchor = [0], axes = [1], out_of_bounds = clamp)
}''', {'a': np.zeros((2, 0, 5), np.float32)}, expect_error=True)
oracle.expect_failure('a clamping crop names a dim empty in the run', code, err,
                      "'crop' at ")
oracle.expect_failure('a clamping crop says why', code, err,
                      "dim 1 of its input is empty in this run: out_of_bounds = clamp has no element to clamp to")
oracle.expect_failure('concat names a part empty in the run', code2, err2,
                      "p.pipe:3:7: its input 0 is empty along dim 1 in this run")

# crop, flip, normalize, HWC -> CHW in one kernel, f32 and f16 out.
x = random('u8', (4, 13, 15, 3))
ay, ax = np.array([0, 3, 5, 2], np.int32), np.array([7, 0, 3, 1], np.int32)
m = np.array([True, False, False, True])
mean = np.array([123.675, 116.28, 103.53], np.float32)
std = np.array([58.395, 57.12, 57.375], np.float32)
out = run('''pipeline p(x: u8[N, H, W, 3], ay: i32[N], ax: i32[N], m: bool[N]) -> (y: f32[N, 3, 8, 7], h: f16[N, 3, 8, 7]) {
  c = flip(crop(x, anchor = [ay, ax], shape = [8, 7]), axes = [2], when = m)
  y = transpose((f32(c) - [123.675, 116.28, 103.53]) / [58.395, 57.12, 57.375], [0, 3, 1, 2])
  h = f16(y)
}''', {'x': x, 'ay': ay, 'ax': ax, 'm': m})
c = crop_np(x, [ay, ax], [8, 7], [1, 2], 'error')
c = np.where(m[:, None, None, None], c[:, :, ::-1], c)
want = ((c.astype(np.float32) - mean) / std).transpose(0, 3, 1, 2)
check('crop_mirror_normalize f32', out['y'], want)
check('crop_mirror_normalize f16', out['h'], want.astype(np.float16))

oracle.finish()
