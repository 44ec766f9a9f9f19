"""Operators and functions whose semantics docs/language.md takes from
Python and NumPy, checked against NumPy on special values (issue 15, item
10: the GPU and the reference once agreed with each other and not with the
doc).

  semantics_oracle.py PIPEC BACKEND [SEED]     BACKEND: reference or gpu
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
from oracle import check, rng, run  # noqa: E402

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 3.0, -3.0, 2.5, 1e30, -1e30,
           np.inf, -np.inf, np.nan, 5e-40, 7.0, 0.3]

# Float // and %: Python's (NumPy's floor_divide and remainder), so that
# a == (a // b) * b + a % b up to rounding, 1.0 // 0.1 is 9.0 and
# -0.0 % 3.0 is +0.0.
np.seterr(all='ignore')
for dtype, t in (('f32', np.float32), ('f64', np.float64), ('f16', np.float16)):
    a = np.array([x for x in SPECIAL for _ in SPECIAL], t)
    b = np.array([y for _ in SPECIAL for y in SPECIAL], t)
    extra = 301
    a = np.concatenate([a, (rng.standard_normal(extra) * 50).astype(t)])
    b = np.concatenate([b, (rng.standard_normal(extra) * 3).astype(t)])
    source = (f'pipeline p(a: {dtype}[N], b: {dtype}[N]) -> '
              f'(q: {dtype}[N], r: {dtype}[N]) {{\n'
              '  q = a // b\n  r = a % b\n}\n')
    out = run(source, {'a': a, 'b': b})
    check(f'{dtype} //', out['q'], np.floor_divide(a, b))
    check(f'{dtype} %', out['r'], np.remainder(a, b))

# NaN to an integer is 0, as to every integer dtype; infinities saturate.
for dtype in ('i64', 'u64', 'i32', 'u8'):
    for src, t in (('f32', np.float32), ('f64', np.float64)):
        x = np.array([np.nan, -np.nan, np.inf, -np.inf, 2.5, -3.5, 1e30,
                      -1e30, 0.0], t)
        out = run(f'pipeline p(x: {src}[N]) -> (y: {dtype}[N]) {{\n'
                  f'  y = {dtype}(x)\n}}\n', {'x': x})
        info = np.iinfo(oracle.NP[dtype])

        def convert(v):
            if np.isnan(v):
                return 0
            if np.isinf(v):
                return info.max if v > 0 else info.min
            return min(max(round(float(v)), info.min), info.max)
        want = np.array([convert(v) for v in x], oracle.NP[dtype])
        check(f'{dtype}({src}) of NaN, inf, halves', out['y'], want)

# A cast of a literal converts its exact value, u64's past the i64s too
# (they were refused as not fitting i64).
x = np.zeros(2, np.uint64)
out = run('pipeline p(x: u64[N]) -> (a: u64[N], b: f64[N], c: u8[N], d: i64[N]) {\n'
          '  a = x + u64(9223372036854775808)\n'
          '  b = f64(x) + f64(18446744073709551615)\n'
          '  c = u8(x) + u8(18446744073709551615)\n'
          '  d = i64(x) + i64(18446744073709551615)\n}\n', {'x': x})
check('u64 of a literal 2^63', out['a'], np.full(2, 2**63, np.uint64))
check('f64 of a literal 2^64 - 1', out['b'], np.full(2, 2.0**64))
check('u8 of a literal 2^64 - 1 (saturates)', out['c'], np.full(2, 255, np.uint8))
check('i64 of a literal 2^64 - 1 (saturates)', out['d'],
      np.full(2, 2**63 - 1, np.int64))

# The mean of i64 and u64 divides the exact integer sum (in f64).
for dtype in ('i64', 'u64'):
    t = oracle.NP[dtype]
    info = np.iinfo(t)
    x = np.array([[info.max, info.max, info.max, 1, 2],
                  [info.min, info.min, 5, 0, info.max],
                  [info.max, info.min, info.max, info.min, 7]], t)
    out = run(f'pipeline p(x: {dtype}[N, K]) -> (m: f64[N], n: f32[N]) {{\n'
              '  m = mean(x, axes = [1], dtype = f64)\n'
              '  n = mean(x, axes = [1])\n}\n', {'x': x})
    exact = [sum(int(v) for v in row) for row in x]
    check(f'mean of {dtype} (f64)', out['m'],
          np.array([float(s) / x.shape[1] for s in exact], np.float64))
    check(f'mean of {dtype} (f32)', out['n'],
          np.array([float(s) / x.shape[1] for s in exact],
                   np.float64).astype(np.float32))
    # Many elements: the per-thread and per-block partial sums, too.
    big = rng.integers(info.max // 2, info.max, (2, 10007), dtype=t,
                       endpoint=True)
    out = run(f'pipeline p(x: {dtype}[N, K]) -> (m: f64[N]) {{\n'
              '  m = mean(x, axes = [1], dtype = f64)\n}\n', {'x': big})
    exact = [sum(int(v) for v in row) for row in big]
    check(f'mean of {dtype}, 10007 large elements', out['m'],
          np.array([float(s) / big.shape[1] for s in exact], np.float64))

# -x flips the sign of a float, zeros included (IEEE 754 and NumPy; 0 - x
# gave +0.0 for -(0.0)); integers wrap.
for dtype in ('f16', 'f32', 'f64'):
    t = oracle.NP[dtype]
    x = np.array(SPECIAL, t)
    out = run(f'pipeline p(x: {dtype}[N]) -> (y: {dtype}[N]) {{\n'
              '  y = -x\n}\n', {'x': x})
    check(f'-x of {dtype}', out['y'], np.negative(x))
# NaNs too: negation flips the sign bit and keeps the payload (IEEE 754's
# negate, NumPy's negative), for quiet NaNs of either sign and a
# signalling one (a subtraction from -0.0 kept a NaN's sign and quieted it).
for dtype, bits, nans in (
        ('f16', np.uint16, [0x7E00, 0xFE00, 0x7D01]),
        ('f32', np.uint32, [0x7FC00000, 0xFFC00000, 0x7FA00001]),
        ('f64', np.uint64, [0x7FF8000000000000, 0xFFF8000000000000,
                            0x7FF4000000000001])):
    x = np.array(nans, bits).view(oracle.NP[dtype])
    out = run(f'pipeline p(x: {dtype}[N]) -> (y: {dtype}[N]) {{\n'
              '  y = -x\n}\n', {'x': x})
    sign = bits(1) << bits(8 * np.dtype(bits).itemsize - 1)
    check(f'-x of {dtype} NaNs, bit for bit', out['y'].view(bits),
          np.array(nans, bits) ^ sign)
for dtype in ('i8', 'u8', 'i64', 'u64'):
    info = np.iinfo(oracle.NP[dtype])
    x = np.array([info.min, info.max, 0, 1], oracle.NP[dtype])
    out = run(f'pipeline p(x: {dtype}[N]) -> (y: {dtype}[N]) {{\n'
              '  y = -x\n}\n', {'x': x})
    check(f'-x of {dtype}', out['y'], np.negative(x))

# sum and prod of bool count 0s and 1s, in i64 (NumPy's np.prod of bools).
m = rng.random((3, 4, 5)) < 0.8
m[0] = True
out = run('pipeline p(m: bool[N, H, W]) -> (p: i64[N], s: i64[N, 1, W]) {\n'
          '  p = prod(m, axes = [1, 2])\n'
          '  s = sum(m, axes = [1], keepdims = true)\n}\n', {'m': m})
check('prod of bool', out['p'], np.prod(m, axis=(1, 2)))
check('sum of bool', out['s'], np.sum(m, axis=1, keepdims=True))

# A dim's value is weakly typed (docs/language.md, Dim expressions): an
# expression of dims and literals alone, `-W` and `min(W, 1000)` included,
# is computed in i64 and then converted as a cast converts (saturating),
# and a name bound to one stays weak where it is used, also when it is a
# result too (which has the result's dtype).
W = 300
a = rng.integers(-128, 128, W).astype(np.int8)
b = rng.integers(0, 256, W).astype(np.uint8)
f = rng.standard_normal(W).astype(np.float16)
out = run('pipeline p(a: i8[W], b: u8[W], f: f16[W], x: f32[N]) -> (y: i8[W], '
          'z: u8[W], m: u8[W], q: f16[W], n: i64, scale: f32, k: i32, '
          'v: u8[W], g: f16[W], t: i8[W], h: f32[W]) {\n'
          '  y = a + -W\n'
          '  z = b + min(W, 1000)\n'
          '  m = b + max(N, 1) - abs(N - W)\n'
          '  q = f + min(W, 2.5)\n'
          '  n = N - 1\n'
          '  scale = 2.5\n'
          '  k = 3\n'
          '  v = b + n + k\n'
          '  g = scale * f\n'
          '  t = a - ~W\n'
          '  h = f32(b) + ~W\n}\n',
          {'a': a, 'b': b, 'f': f, 'x': np.zeros(5, np.float32)})
def sat(value, t):
    info = np.iinfo(t)
    return t(min(max(value, info.min), info.max))
with np.errstate(over='ignore'):
    check('i8 + -W (W = 300)', out['y'], a + sat(-W, np.int8))
    check('u8 + min(W, 1000)', out['z'], b + sat(min(W, 1000), np.uint8))
    check('u8 + max(N, 1) - abs(N - W)', out['m'],
          b + sat(5, np.uint8) - sat(abs(5 - W), np.uint8))
    check('f16 + min(W, 2.5)', out['q'], f + np.float16(2.5))
    check('a dim bound to a result', out['n'], np.array(4, np.int64))
    check('a literal bound to a result', out['scale'], np.array(2.5, np.float32))
    check('u8 + names bound to a dim and a literal, results too', out['v'],
          b + np.uint8(4) + np.uint8(3))
    check('f16 times a name bound to a literal, a result too', out['g'],
          np.float16(2.5) * f)
    check('i8 - ~W', out['t'], a - sat(~W, np.int8))
    # A dim's '~' is computed in i64, then converted (not a literal's).
    check('f32 + ~W', out['h'], b.astype(np.float32) + np.float32(~W))

# Integer // and % of literals by zero are left to the run time, in the
# dtype the literals get there (docs: Literals): 0, next to any tensor.
b = rng.integers(0, 256, 7).astype(np.uint8)
u = rng.integers(0, 2**63, 7).astype(np.uint64)
l = rng.integers(-2**40, 2**40, 7)
out = run('pipeline p(b: u8[W], u: u64[W], l: i64[W]) -> (y: u8[W], '
          'z: u64[W], w: i64[W], r: i32) {\n'
          '  y = b + 7 % 0\n  z = u + (7 // 0)\n'
          '  w = l + (3000000000 // 0)\n  r = 5 // 0\n}\n',
          {'b': b, 'u': u, 'l': l})
check('u8 + 7 % 0', out['y'], b)
check('u64 + 7 // 0', out['z'], u)
check('i64 + 3000000000 // 0', out['w'], l)
check('5 // 0 as a result', out['r'], np.array(0, np.int32))

# A name bound to a literal is that literal where it is used (docs:
# Literals, Dim expressions): checked and converted there, not first made
# an i32 or f32 (3000000000 wrapped, 0.1 was rounded to f32, 300 next to
# u8 saturated); a loop's variable is the literal lo + k, an index too.
x64 = rng.integers(-2**40, 2**40, 5)
xs = rng.standard_normal((5, 4)).astype(np.float32)
out = run('pipeline p(x: i64[N], z: f32[N, 4]) -> (y: i64[N], f: f64[N], '
          'r: i64, s: f32[N]) {\n'
          '  n = 3000000000\n  k = 0.1\n  m = n\n'
          '  y = x + m\n  f = f64(x) * 0 + k\n  r = n\n'
          '  s = z[:, 0]\n'
          '  for i in 1 .. 4 max 3 {\n    s = s + z[:, i]\n  }\n}\n',
          {'x': x64, 'z': xs})
check('i64 + a name bound to 3000000000', out['y'], x64 + 3000000000)
check('f64 + a name bound to 0.1', out['f'], x64.astype(np.float64) * 0 + 0.1)
check('a result bound to a name of a literal', out['r'],
      np.array(3000000000, np.int64))
check('x[:, i] with a loop variable', out['s'],
      ((xs[:, 0] + xs[:, 1]) + xs[:, 2]) + xs[:, 3])
code, err = run('pipeline p(x: u8[N]) -> (y: u8[N]) {\n  n = 300\n'
                '  y = x + n\n}\n', {'x': np.zeros(3, np.uint8)},
                expect_error=True)
oracle.expect_failure('u8 + a name bound to 300', code, err,
                      'literal 300 does not fit in u8')

# A loop's bound is compared with each lo + k as an i64: with n: u8,
# 250 .. n max 10 reached 256, which no u8 holds (it was an error); with
# n = 253 the body runs three times, with n = 255 five.
x64 = rng.integers(-100, 100, 7).astype(np.int64)
for n in (253, 255, 0):
    out = run('pipeline p(x: i64[N], n: u8) -> (a: i64[N]) {\n  a = x\n'
              '  for i in 250 .. n max 10 {\n    a = a + 1\n  }\n}\n',
              {'x': x64, 'n': np.array(n, np.uint8)})
    check(f'250 .. n max 10 with n: u8 = {n}', out['a'],
          x64 + max(0, n - 250))

oracle.finish()
