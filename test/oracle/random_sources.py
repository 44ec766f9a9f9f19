"""The random sources against an independent NumPy model of their
definition (docs/language.md, Random numbers): Philox4x32-10 over the
counter (index, stream, run) keyed by the seed, and each distribution's
formula in float64. uniform, coin_flip and randint agree bit for bit;
normal, whose logarithm and cosine NumPy takes from libm, within 2e-7
relative (the f32 rounding of values a few ulps of f64 apart)."""
from oracle import check, expect_failure, finish, rng, run
from philox_model import philox, unit
import numpy as np


def uniform(shape, stream, run_number, seed, lo, hi, dtype):
    r = philox(np.arange(int(np.prod(shape))), stream, run_number, seed)
    u = unit(r[0], r[1]).reshape(shape)
    return (lo + u * (hi - lo)).astype(dtype)


def normal(shape, stream, run_number, seed, mean, stddev, dtype):
    r = philox(np.arange(int(np.prod(shape))), stream, run_number, seed)
    u1 = 1.0 - unit(r[0], r[1])
    u2 = unit(r[2], r[3])
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * np.pi * u2)
    return (mean + stddev * z.reshape(shape)).astype(dtype)


def coin_flip(shape, stream, run_number, seed, p, dtype):
    r = philox(np.arange(int(np.prod(shape))), stream, run_number, seed)
    return (unit(r[0], r[1]).reshape(shape) < p).astype(dtype)


def randint(shape, stream, run_number, seed, lo, hi, dtype):
    r = philox(np.arange(int(np.prod(shape))), stream, run_number, seed)
    bits = [(int(a) << 32) | int(b) for a, b in zip(r[0], r[1])]
    lo, hi = np.broadcast_to(lo, shape).reshape(-1), \
        np.broadcast_to(hi, shape).reshape(-1)
    out = [int(l) + ((x * (int(h) - int(l))) >> 64) if h > l else int(l)
           for x, l, h in zip(bits, lo, hi)]
    wide = np.uint64 if dtype == np.uint64 else np.int64
    return np.array(out, dtype=wide).reshape(shape).astype(dtype)


SOURCE = """
pipeline p(x: f32[N, H, W], lo: i64[N, 1, 1], ulo: u64[N, 1, 1], uhi: u64[N, 1, 1])
    -> (u: f32[N, H, W], h: f16[N, W],
    d: f64[N], z: f32[N, H, W], zd: f64[H, W], c: bool[N, H, W], k: i32[N, H, W],
    kl: i64[N, H, W], s: f32[N, 2], one: f32[1, 1], flip1: bool[1],
    ku: u64[N, H, W], kt: u64[N]) {
  u  = uniform(range = [-3.5, 7], shape = [N, H, W])
  h  = uniform(shape = [N, W], dtype = f16)
  d  = uniform(range = [1e-3, 2e-3], shape = [N], dtype = f64)
  z  = normal(mean = 2, stddev = 3, shape = [N, H, W])
  zd = normal(shape = [H, W], dtype = f64)
  c  = coin_flip(p = 0.3, shape = [N, H, W])
  k  = randint(-5, W, shape = [N, H, W])
  kl = randint(lo, lo + 1000000007, shape = [N, H, W], dtype = i64)
  s  = uniform(shape = [N, 2], seed = 77)
  one = uniform(shape = [1, 1])
  flip1 = coin_flip(shape = [1])
  ku = randint(ulo, uhi, shape = [N, H, W], dtype = u64)
  kt = randint(18446744073709551000, 18446744073709551615, shape = [N], dtype = u64)
}
"""

for n, h, w in [(1, 1, 1), (3, 5, 7), (2, 17, 33)]:
    for seed, run_number in [(0, 0), (42, 3), (2**63 + 5, 2**40 + 1)]:
        x = np.zeros((n, h, w), np.float32)
        lo = rng.integers(-2**40, 2**40, (n, 1, 1), dtype=np.int64)
        # u64 bounds past the i64s (ulo > uhi in some samples: lo).
        ulo = rng.integers(0, 2**64 - 1, (n, 1, 1), dtype=np.uint64)
        uhi = rng.integers(2**63, 2**64 - 1, (n, 1, 1), dtype=np.uint64)
        got = run(SOURCE, {'x': x, 'lo': lo, 'ulo': ulo, 'uhi': uhi},
                  options=[f'--seed={seed}', f'--random-run={run_number}'])
        case = f'{n}x{h}x{w} seed {seed} run {run_number}'
        check('uniform ' + case, got['u'],
              uniform((n, h, w), 0, run_number, seed, -3.5, 7.0, np.float32))
        check('uniform f16 ' + case, got['h'],
              uniform((n, w), 1, run_number, seed, 0.0, 1.0, np.float16))
        check('uniform f64 ' + case, got['d'],
              uniform((n,), 2, run_number, seed, 1e-3, 2e-3, np.float64))
        check('normal ' + case, got['z'],
              normal((n, h, w), 3, run_number, seed, 2.0, 3.0, np.float32),
              tol=2e-7)
        check('normal f64 ' + case, got['zd'],
              normal((h, w), 4, run_number, seed, 0.0, 1.0, np.float64),
              tol=1e-14)
        check('coin_flip ' + case, got['c'],
              coin_flip((n, h, w), 5, run_number, seed, 0.3, np.bool_))
        check('randint ' + case, got['k'],
              randint((n, h, w), 6, run_number, seed, -5, w, np.int32))
        check('randint i64 ' + case, got['kl'],
              randint((n, h, w), 7, run_number, seed, lo, lo + 1000000007,
                      np.int64))
        check('own seed ' + case, got['s'],
              uniform((n, 2), 8, run_number, 77, 0.0, 1.0, np.float32))
        # Shapes of 1s (their index is 0 throughout; they had been an
        # internal error).
        check('uniform [1, 1] ' + case, got['one'],
              uniform((1, 1), 9, run_number, seed, 0.0, 1.0, np.float32))
        check('coin_flip [1] ' + case, got['flip1'],
              coin_flip((1,), 10, run_number, seed, 0.5, np.bool_))
        check('randint u64 ' + case, got['ku'],
              randint((n, h, w), 11, run_number, seed, ulo, uhi, np.uint64))
        check('randint u64 literals ' + case, got['kt'],
              randint((n,), 12, run_number, seed, 18446744073709551000,
                      18446744073709551615, np.uint64))

# List literals as parameters: small constant tensors that broadcast to
# the shape (docs: Literals, Random numbers), one value per column.
LISTS = """
pipeline p(x: f32[N]) -> (z: f32[N, 2], c: bool[N, 3], k: i32[N, 2]) {
  z = normal(mean = [10, -10], stddev = [1, 2.5], shape = [N, 2])
  c = coin_flip(probability = [0.1, 0.5, 0.9], shape = [N, 3])
  k = randint([0, 100], [10, 1000], shape = [N, 2])
}
"""
got = run(LISTS, {'x': np.zeros(7, np.float32)}, options=['--seed=9'])
check('normal of list parameters', got['z'],
      normal((7, 2), 0, 0, 9, np.array([10.0, -10.0]), np.array([1.0, 2.5]),
             np.float32), tol=2e-7)
check('coin_flip of a list probability', got['c'],
      coin_flip((7, 3), 1, 0, 9, np.array([0.1, 0.5, 0.9]), np.bool_))
check('randint of list bounds', got['k'],
      randint((7, 2), 2, 0, 9, np.array([0, 100]), np.array([10, 1000]),
              np.int32))

# randint's bounds from sizes and tensors are checked when the pipeline
# runs where the dtype is narrower than 64 bits: lo must fit it, and
# hi - 1 (docs: Random numbers); a run that fails writes nothing.
CHECKED = """
pipeline p(x: f32[N], q: f32[W], lo: i32[N], hi: u16[N]) -> (c: u8[N], d: u8[N]) {
  c = randint(0, W, shape = [N], dtype = u8)
  d = randint(lo, hi, shape = [N], dtype = u8)
}
"""
x = np.zeros(5, np.float32)
lo = np.array([0, 3, 0, 250, 0], np.int32)
hi = np.array([256, 4, 1, 256, 0], np.uint16)
got = run(CHECKED, {'x': x, 'q': np.zeros(256, np.float32), 'lo': lo, 'hi': hi})
check('randint(0, W) with W = 256 as u8', got['c'],
      randint((5,), 0, 0, 0, 0, 256, np.uint8))
check('randint of u8 bounds from tensors', got['d'],
      randint((5,), 1, 0, 0, lo, hi, np.uint8))
for name, value, text in [
        ('q', np.zeros(300, np.float32),
         'p.pipe:3:7: hi is 300: it draws up to hi - 1, which u8 cannot hold'),
        ('lo', np.array([0, 0, -100, 0, 0], np.int32),
         'p.pipe:4:7: lo of element [2] is -100, which u8 cannot hold'),
        ('hi', np.array([256, 257, 1, 1, 1], np.uint16),
         'p.pipe:4:7: hi of element [1] is 257: it draws up to hi - 1, which u8 cannot hold')]:
    inputs = {'x': x, 'q': np.zeros(256, np.float32), 'lo': lo, 'hi': hi}
    inputs[name] = value
    code, err = run(CHECKED, inputs, expect_error=True)
    expect_failure(f'randint, bad {name}', code, err,
                   text + '; nothing was written')

finish()
