"""What the random oracle's generators share: the dtypes, promotion and
casts of docs/language.md computed with NumPy from exact values, and V, an
expression's text, value, dtype and symbolic shape."""
import numpy as np

np.seterr(all='ignore')

NP = {'bool': np.bool_, 'u8': np.uint8, 'i8': np.int8, 'u16': np.uint16,
      'i16': np.int16, 'u32': np.uint32, 'i32': np.int32, 'u64': np.uint64,
      'i64': np.int64, 'f16': np.float16, 'f32': np.float32,
      'f64': np.float64}
DTYPES = list(NP)
INTS = [d for d in DTYPES if d[0] in 'ui']
FLOATS = ['f16', 'f32', 'f64']
NUMBERS = INTS + FLOATS


def bits(d):
    return 1 if d == 'bool' else int(d[1:])


def is_float(d):
    return d in FLOATS


def signed(d):
    return d[0] == 'i'


def irange(d):
    if d == 'bool':
        return 0, 1
    if signed(d):
        return -(1 << (bits(d) - 1)), (1 << (bits(d) - 1)) - 1
    return 0, (1 << bits(d)) - 1


# --- Promotion (docs/language.md, "Promotion of mixed dtypes") -------------

def promote(a, b):
    """The dtype both operands convert to, or None where it is an error."""
    if a == b:
        return a
    if a == 'bool':
        return b
    if b == 'bool':
        return a
    if is_float(a) and is_float(b):
        return max(a, b, key=bits)
    if is_float(a) or is_float(b):
        return a if is_float(a) else b
    if signed(a) == signed(b):
        return max(a, b, key=bits)
    s, u = (a, b) if signed(a) else (b, a)
    if u == 'u64':
        return None
    return s if bits(s) > bits(u) else 'i' + str(2 * bits(u))


# --- Casts ("Casts"), from the exact values ---------------------------------

def convert(x, src, dst):
    x = np.asarray(x)
    if src == dst:
        return x.astype(NP[dst])
    if dst == 'bool':
        return x != 0
    if src == 'bool':
        return x.astype(NP[dst])
    if is_float(src) and not is_float(dst):
        lo, hi = irange(dst)
        out = []
        for v in x.astype(np.float64).reshape(-1):
            if np.isnan(v):
                out.append(0)
            elif v >= hi:
                out.append(hi)
            elif v <= lo:
                out.append(lo)
            else:
                out.append(int(np.rint(v)))
        return np.array(out, dtype=object).astype(NP[dst]).reshape(x.shape)
    if not is_float(src) and not is_float(dst):
        lo, hi = irange(dst)
        return np.array([min(max(int(v), lo), hi) for v in x.reshape(-1)],
                        dtype=object).astype(NP[dst]).reshape(x.shape)
    if not is_float(src) and dst == 'f16':
        # Once from the exact value; 64-bit integers past 2^53 through f64.
        return np.array([float(int(v)) for v in x.reshape(-1)],
                        np.float64).astype(np.float16).reshape(x.shape)
    return x.astype(NP[dst])  # to f32/f64 from an integer, float to float


def round_to_bf16(x):
    """f32 values rounded to bf16 (8 significant bits, half to even) and
    back to f32: the upper 16 bits of the f32 after the rounding carry; NaN
    stays NaN, and what passes the largest bf16 becomes inf."""
    x = np.asarray(x, np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    one, sixteen = np.uint64(1), np.uint64(16)
    rounded = (bits + np.uint64(0x7FFF) + ((bits >> sixteen) & one)) & \
        np.uint64(0xFFFF0000)
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out).astype(np.float32)


def wrap(values, d, shape):
    """Python integers wrapped modulo 2^bits into dtype d."""
    lo, hi = irange(d)
    span = 1 << bits(d)
    out = [((int(v) - lo) % span) + lo for v in values]
    return np.array(out, dtype=object).astype(NP[d]).reshape(shape)


def compute_dtype(d):
    """f16 is computed in f32 and rounded ("Types")."""
    return np.float32 if d == 'f16' else NP[d]


def float_op(fn, d, *xs):
    r = fn(*[x.astype(compute_dtype(d)) for x in xs])
    return np.asarray(r).astype(NP[d])


def ieee_min_max(a, b, d, is_max):
    if not is_float(d):
        return np.maximum(a, b) if is_max else np.minimum(a, b)
    a, b = np.broadcast_arrays(a, b)
    pick_a = (a > b) if is_max else (a < b)
    same = a == b
    # -0 below +0.
    pick_a |= same & ((~np.signbit(a)) if is_max else np.signbit(a))
    r = np.where(pick_a, a, b)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, r).astype(NP[d])


def int_binary(op, a, b, d):
    a, b = np.broadcast_arrays(a, b)
    shape = a.shape
    n = bits(d)
    out = []
    for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()):
        x, y = int(x), int(y)
        if op == '//':
            out.append(0 if y == 0 else x // y)
        elif op == '%':
            out.append(0 if y == 0 else x % y)
        elif op == '**':
            if y >= 0:
                out.append(pow(x, y, 1 << n))
            else:
                out.append(1 if x == 1 else (1 if y % 2 == 0 else -1)
                           if x == -1 else 0)
        elif op == '<<':
            out.append(x << y if 0 <= y < n else 0)
        elif op == '>>':
            out.append(x >> y if 0 <= y < n else (-1 if x < 0 else 0))
    return wrap(out, d, shape)


# --- Values -----------------------------------------------------------------

class V:
    """An expression: its text, its NumPy value, dtype and symbolic shape.
    `approx` marks values the doc lets differ in the last bits; `literal`
    holds a weakly typed literal's Python value (its dtype is decided by
    the other operand)."""

    def __init__(self, text, value, dtype, shape, approx=None, literal=None,
                 scale=None):
        self.text, self.value, self.dtype, self.shape = text, value, dtype, shape
        self.approx, self.literal, self.scale = approx, literal, scale


def broadcast_shape(a, b):
    n = max(len(a), len(b))
    a = ('1',) * (n - len(a)) + tuple(a)
    b = ('1',) * (n - len(b)) + tuple(b)
    return tuple(y if x == '1' else x for x, y in zip(a, b))


def type_text(d, shape):
    return d + ('[' + ', '.join(shape) + ']' if shape else '')


# Symbolic shapes: the dim at position -1 is W or 1, at -2 H or 1, at -3 N
# or 1, so that any two broadcast.
SHAPES = [(), ('W',), ('H', 'W'), ('N', 'H', 'W'), ('N', 'H', 'W'),
          ('1', 'W'), ('H', '1'), ('N', '1', '1'), ('N', 'H', '1'),
          ('1', 'H', 'W')]
FULL = ('N', 'H', 'W')


class Invalid(Exception):
    """The generator drew something the language rejects; draw again."""
