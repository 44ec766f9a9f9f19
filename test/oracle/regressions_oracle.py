"""Programs the fuzzer of issue 15 found failing inside the compiler
(test/e2e/Inputs), run as a user runs them and compared with NumPy: each
must not only compile but compute what docs/language.md says.

  regressions_oracle.py PIPEC BACKEND [SEED]     BACKEND: reference or gpu
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
from oracle import check, rng, run  # noqa: E402

INPUTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e',
                      'Inputs')


def program(name, inputs):
    return run(None, inputs, path=os.path.join(INPUTS, name + '.pipe'))


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# y = x * 2 - mean(x * r, axes = [1, 2], keepdims = true): reduction fusion
# built an invalid kernel.
x, r = normal(3, 5, 7), normal(7)
want = x * 2 - (x * r).astype(np.float64).mean(axis=(1, 2), keepdims=True)
check('fused-keepdims', program('fused-keepdims', {'x': x, 'r': r})['y'],
      want.astype(np.float32), tol=1e-5)

# A scalar result chosen on the host (.cpu() on the condition).
for sign in (1, -1):
    x, s = np.abs(normal(9)) * sign, normal()[()]
    got = program('host-choice-scalar', {'x': x, 's': np.float32(s)})['y']
    check(f'host-choice-scalar, sum {"> 0" if sign > 0 else "<= 0"}', got,
          np.float32(s * 2 if x.sum() > 0 else s))

# y = s in one branch, a tensor in the other: the choice broadcasts s (the
# host's choose was mistyped).
for sign in (1, -1):
    x, s = np.abs(normal(11)) * sign, normal()[()]
    got = program('host-choice-broadcast', {'x': x, 's': np.float32(s)})['y']
    check(f'host-choice-broadcast, sum {"> 0" if sign > 0 else "<= 0"}', got,
          np.full(11, s, np.float32) if x.sum() > 0 else x)

# A blur whose window is computed, then a branch over the whole batch
# (elementwise fusion made a cycle). With sum(x) > 3 the blur is not
# looked at; with x all zeros its result is (zeros blur to zeros).
for name, n in (('blur-then-branch', np.array([3, 5], np.int32)),
                ('blur-scalar-window-branch', np.int32(4))):
    x = rng.integers(0, 256, (2, 9, 11), dtype=np.uint8)
    x[0, 0, 0] = 200
    check(f'{name}, taken', program(name, {'x': x, 'n': n})['y'], x != 0)
    zeros = np.zeros_like(x)
    check(f'{name}, not taken', program(name, {'x': zeros, 'n': n})['y'],
          np.zeros(x.shape, np.bool_))

# Elementwise fusion cloned a whole kernel into two others (an erased op's
# address reused). With one 1 in d, t1 is 1.5 // 1 = 1.
a = rng.integers(-50, 50, (2, 3, 5), dtype=np.int64)
b = rng.integers(0, 50, (3, 1), dtype=np.uint64)
d = np.zeros((2, 3, 5), np.uint16)
d[1, 2, 3] = 1
out = program('recomputed-address-reuse', {'a': a, 'b': b, 'd': d})
check('recomputed-address-reuse r0', out['r0'],
      np.transpose(a.astype(np.float32) < b.astype(np.float32), (1, 0, 2)))
check('recomputed-address-reuse r1', out['r1'], b > d)

# f16 compared with i64 in an unrolled loop (NVRTC took minutes on it). The
# compare is in f16 (c converted to f16); subnormal f16 values included.
a = rng.standard_normal((2, 3, 5))
b = (rng.standard_normal((2, 3, 1)) * 4).astype(np.float16)
b[0, 0, 0] = np.float16(3e-6)  # subnormal
c = rng.integers(-4, 4, (3, 1), dtype=np.int64)
want = a.copy()
for _ in range(3):
    want = want - np.where(c.astype(np.float16) < b, a, b.astype(np.float64))
out = program('f16-compare-loop', {'a': a, 'b': b, 'c': c, 'd': np.int32(3)})
check('f16-compare-loop', out['r0'], want)

# abs of each signed dtype's lowest value wraps to it; a saturating cast of
# that is the target's lowest (NVVM assumed abs is never negative). NumPy's
# abs wraps lo to lo as well.
def lowest(t):
    return np.array([np.iinfo(t).min, -5, 0, 7, np.iinfo(t).max], t)


def saturate(x, t):
    info = np.iinfo(t)
    return np.clip(x.astype(np.int64), info.min, info.max).astype(t)


a, b, c, d = lowest(np.int64), lowest(np.int32), lowest(np.int8), lowest(np.int16)
out = program('abs-of-lo-cast', {'a': a, 'b': b, 'c': c, 'd': d})
check('abs-of-lo-cast i64 -> i16', out['w'], saturate(np.abs(a), np.int16))
check('abs-of-lo-cast i32 -> i16', out['x'], saturate(np.abs(b), np.int16))
check('abs-of-lo-cast i8 -> u8', out['y'], saturate(np.abs(c), np.uint8))
check('abs-of-lo-cast i16 -> i8', out['z'], saturate(np.abs(d), np.int8))

# A slice that drops every dim (rank 0), in a kernel of rank 0 and one of
# rank 1: NVRTC refused the kernel (the random oracle, seed 2, program 184).
a = (rng.standard_normal((2, 3, 5)) * 4).astype(np.float16)
a[-1, 0, -2] = np.float16(1.5)
out = program('slice-to-scalar', {'a': a})
check('slice-to-scalar r', out['r'], np.array(True))
check('slice-to-scalar s', out['s'],
      a[0, :, 1].astype(np.float32) * np.float32(a[-1, -1, -1]))

# Anchors near the ends of the 64-bit integers (a conformance review): a
# clamped crop's anchor + c wrapped to a small number and read element 0;
# an erase's anchor + shape wrapped and erased nothing; an entry of 32-bit
# indices truncated a 64-bit anchor (2^32 + 1 read as 1).
x = rng.integers(0, 256, (3, 5), dtype=np.uint8)
a = np.array([2**63 - 1, -2**63, 2**32 + 1], np.int64)
b = np.array([3, -2**63, 2**62], np.int64)
source = """
pipeline p(x: u8[N, W], a: i64[N], b: i64[N]) -> (c: u8[N, 3], d: u8[N, 3],
                                                   e: u8[N, W], f: u8[N, 3]) {
  c = crop(x, shape = [3], anchor = [a], out_of_bounds = clamp)
  d = crop(x, shape = [3], anchor = [9223372036854775807], out_of_bounds = clamp)
  e = erase(x, anchor = [b], shape = [9223372036854775807], axes = [1], fill = 9)
  f = crop(x, shape = [3], anchor = [a], out_of_bounds = pad, fill = 7)
}
"""
out = run(source, {'x': x, 'a': a, 'b': b})


def clamped(anchor):
    # Position anchor + c of a row of 5, clamped, in Python's integers.
    return [min(max(anchor + c, 0), 4) for c in range(3)]


check('crop clamp at 64-bit anchors', out['c'],
      np.stack([x[n, clamped(int(a[n]))] for n in range(3)]))
check('crop clamp at a literal 2^63 - 1', out['d'],
      np.stack([x[n, [4, 4, 4]] for n in range(3)]))
want = x.copy()
for n in range(3):
    lo, hi = int(b[n]), int(b[n]) + (2**63 - 1)
    for w in range(5):
        if lo <= w < hi:
            want[n, w] = 9
check('erase to a box end past 2^63', out['e'], want)
# (The pad crop was right before too: a wrapped position is outside; kept
# as the pad counterpart of c.)
check('crop pad at 64-bit anchors', out['f'], np.full((3, 3), 7, np.uint8))

# u64 anchors past the i64s read as the largest i64 (saturated), on the
# GPU (pipe_index) and the reference alike: a clamped crop at 2^63 reads
# the last element. An erase box of u64 extent 2^64 - 1 reaches the end.
a = np.array([2**63, 2**64 - 1, 1], np.uint64)
source = """
pipeline p(x: u8[N, W], a: u64[N]) -> (c: u8[N, 3], e: u8[N, W]) {
  c = crop(x, shape = [3], anchor = [a], out_of_bounds = clamp)
  e = erase(x, anchor = [2], shape = [a], axes = [1], fill = 9)
}
"""
out = run(source, {'x': x, 'a': a})
check('crop clamp at u64 anchors', out['c'],
      np.stack([x[n, clamped(min(int(a[n]), 2**63 - 1))] for n in range(3)]))
want = x.copy()
want[:, 2:] = 9
want[2, 3:] = x[2, 3:]
check('erase of u64 extents', out['e'], want)

# A branch the host decides not to take does not run, on either backend: its
# bad blur windows fail only the run that takes it (the reference ran every
# op and failed both; a conformance review).
source = """
pipeline p(x: f32[N, W], w: i32[N], t: f32) -> (y: f32[N, W]) {
  y = x
  if t > 0 { y = gaussian_blur(x, window = w, axes = [1]) }
}
"""
x = normal(2, 5)
w = np.array([2, 4], np.int32)
got = run(source, {'x': x, 'w': w, 't': np.float32(-1)})
check('host-decided branch not taken', got['y'], x)
code, err = run(source, {'x': x, 'w': w, 't': np.float32(1)},
                expect_error=True)
oracle.expect_failure('host-decided branch taken', code, err,
                      'its window is 2; a window must be odd')

# Names local to a loop's body are not bound before its next copy: a loop
# variable or an if's name reused in each iteration (they were rejected as
# 'already bound' or 'unknown name' from the second iteration on).
source = """
pipeline p(x: f32[N, W], n: i32) -> (a: f32[N, W], c: f32[N, W]) {
  y = x
  for i in 0 .. n max 4 {
    for j in 0 .. 2 max 2 {
      y = y + 1
    }
    j = 10
    y = y + f32(j)
  }
  a = y
  z = x
  for k in 0 .. n max 3 {
    if true {
      u = z * 2
      z = u
    }
    u = z + 1
    z = u - 1
  }
  c = z
}
"""
x = normal(2, 3)
for n in (0, 2, 5):
    got = run(source, {'x': x, 'n': np.int32(n)})
    check(f'loop locals, n = {n}: nested loop variable', got['a'],
          x + np.float32(12 * min(n, 4)), tol=1e-5)
    check(f'loop locals, n = {n}: if inside', got['c'],
          x * np.float32(2 ** min(n, 3)), tol=1e-5)

# Sizes as anchors and shapes are exact sizes: ceil(W / 3) was emitted as
# the f32 value's ceil and failed inside the compiler (a conformance
# review). W = 7: ceil 3, floor 2; an anchor W - 10 is -3, outside.
x = rng.integers(0, 256, (3, 5, 7), dtype=np.uint8)
source = """
pipeline p(x: u8[N, H, W]) -> (y: u8[N, H, W], c: u8[N, 2, 2], z: u8[N, H, W]) {
  y = erase(x, anchor = [0, ceil(W / 3)], shape = [2, floor(W / 3)], axes = [1, 2], fill = 9)
  c = crop(x, anchor = [floor(H / 2), ceil(W / 3)], shape = [2, 2], axes = [1, 2])
  z = erase(x, anchor = [W - 10, 1], shape = [5, 1], axes = [1, 2], fill = 7)
}
"""
out = run(source, {'x': x})
want = x.copy()
want[:, 0:2, 3:5] = 9
check('erase at ceil/floor sizes', out['y'], want)
check('crop at ceil/floor sizes', out['c'], x[:, 2:4, 3:5])
want = x.copy()
want[:, 0:2, 1] = 7
check('erase at a negative size anchor', out['z'], want)

# A dim's value as a blur's window or sigma (was refused), equal to the
# literal it is; the value at contrast 1 passes brightness_contrast, an
# infinite one too (inf * 0 made NaN); an integer hue is reduced in its
# own dtype (f32 rounded 16777217 degrees to 16777216 first).
x = normal(2, 5, 7)
z = np.array([[np.inf, -np.inf, 0.5], [np.nan, 1e30, -2.5]], np.float32)
img = rng.integers(0, 256, (2, 3, 4, 3), dtype=np.uint8)
h = np.array([16777217, -16777217], np.int32)
g = np.array([2**64 - 1, 361], np.uint64)
source = """
pipeline p(x: f32[N, H, W], z: f32[N, 3], img: u8[N, 3, 4, 3], h: i32[N],
           g: u64[N], r: f32[N], s: f32[N])
    -> (a: f32[N, H, W], a7: f32[N, H, W], b: f32[N, H, W], b5: f32[N, H, W],
        c: f32[N, 3], d: f32[N, 3, 4, 3], e: f32[N, 3, 4, 3],
        f: f32[N, 3, 4, 3], k: f32[N, 3, 4, 3]) {
  a = gaussian_blur(x, window = W | 1, axes = [1, 2])
  a7 = gaussian_blur(x, window = 7, axes = [1, 2])
  b = gaussian_blur(x, sigma = H / 10, axes = [1, 2])
  b5 = gaussian_blur(x, sigma = 0.5, axes = [1, 2])
  c = brightness_contrast(z)
  d = hue(img, hue = h, dtype = f32)
  e = hue(img, hue = r, dtype = f32)
  f = hue(img, hue = g, dtype = f32)
  k = hue(img, hue = s, dtype = f32)
}
"""
out = run(source, {'x': x, 'z': z, 'img': img, 'h': h, 'g': g,
                   'r': np.array([137, 223], np.float32),
                   's': np.array([15, 1], np.float32)})
check('blur window W | 1', out['a'], out['a7'])
check('blur sigma H / 10', out['b'], out['b5'])
check('brightness_contrast at contrast 1', out['c'], z)
check('hue of i32 degrees past 2^24', out['d'], out['e'])
check('hue of u64 degrees', out['f'], out['k'])

# Reflecting pads of pads, 12 deep (a conformance review): each level's
# coordinate used the one below three times, so the kernel grew 3x a level
# (150 MB of CUDA at 10, out of memory at 40). Now linear; both chains
# are checked against np.pad ('reflect' is reflect101) and the identity.
x = rng.integers(-300, 300, (3, 5, 7), dtype=np.int16)
nested = 'x'
for _ in range(12):
    nested = f'pad({nested}, before = [1], after = [1], border = reflect101)'
chain = ''.join(
    f'  c{i + 1} = crop(pad(c{i}, before = [1, 1], after = [1, 1], '
    'border = reflect101), shape = [H, W], anchor = [1, 1], axes = [1, 2])\n'
    for i in range(12))
source = f"""
pipeline p(x: i16[N, H, W]) -> (y: i16[N, H + 24, W], z: i16[N, H, W]) {{
  y = {nested}
  c0 = x
{chain}  z = c12
}}
"""
out = run(source, {'x': x})
want = x
for _ in range(12):
    want = np.pad(want, ((0, 0), (1, 1), (0, 0)), mode='reflect')
check('reflect101 pads 12 deep', out['y'], want)
check('crop of reflect101 pad, 12 deep', out['z'], x)

# i64 arithmetic at the edges of 32 bits: the GPU computes an i64 value
# whose range fits in 32 bits as an int (families/elementwise/
# IndexNarrowing.cpp). A coordinate minus 2^31 fits; a coordinate plus
# 2^31 - 1, times 2^32, or an i32 minus a coordinate does not; each must
# be exact.
x = rng.integers(-5, 5, (3, 4, 37)).astype(np.int32)
x[0, 0, :3] = [-2**31, 2**31 - 1, -2**31 + 1]
lo = rng.integers(-8, 40, (3, 1, 1)).astype(np.int64)
source = """
pipeline p(x: i32[N, H, W], lo: i64[N, 1, 1]) -> (a: i64[N, H, W], b: i64[N, H, W], c: i64[N, H, W], d: bool[N, H, W], e: i64[N, H, W], f: i64[N, H, W]) {
  w = iota([N, H, W], axis = 2, dtype = i64)
  a = w - 2147483648
  b = w + 2147483647
  c = w * 4294967296 + x
  d = w - 8 >= lo
  e = min(w, x) - max(w * 2, 3)
  f = x - w
}
"""
out = run(source, {'x': x, 'lo': lo})
w = np.broadcast_to(np.arange(37, dtype=np.int64), x.shape)
x64 = x.astype(np.int64)
check('i64: coordinate - 2^31', out['a'], w - 2**31)
check('i64: coordinate + 2^31 - 1', out['b'], w + 2**31 - 1)
check('i64: coordinate * 2^32 + i32', out['c'], w * 2**32 + x64)
check('i64: coordinate - 8 >= i64 anchor', out['d'], w - 8 >= lo)
check('i64: min and max of coordinates', out['e'],
      np.minimum(w, x64) - np.maximum(w * 2, 3))
check('i64: i32 - coordinate', out['f'], x64 - w)

# Literals over a '~' compute in the dtype they take, as the '~' does, and
# so does a name bound to them (a conformance review: n = ~1 became an
# i32 -2, saturated to 0 next to u8; (~0 & 255) next to u8 was i32).
x = rng.integers(0, 256, (29,), dtype=np.uint8)
source = """
pipeline p(x: u8[N]) -> (a: u8[N], b: u8[N], c: u8[N], d: i16[N]) {
  n = ~1
  a = x & n
  b = x + (~0 & 255)
  c = (x | ~254) - (~0 ^ 15)
  d = i16(x) + (~0 & 255)
}
"""
out = run(source, {'x': x})
check('u8 & a name bound to ~1', out['a'], x & np.uint8(254))
check('u8 + (~0 & 255)', out['b'], x + np.uint8(255))
check('(u8 | ~254) - (~0 ^ 15)', out['c'],
      (x | np.uint8(1)) - np.uint8(240))
check('i16 + (~0 & 255)', out['d'], x.astype(np.int16) + np.int16(255))

oracle.finish()
