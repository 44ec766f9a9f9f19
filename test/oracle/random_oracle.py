"""Random well-typed pipelines, each checked against an independent NumPy
implementation of docs/language.md (not against the other backend).

  random_oracle.py PIPEC BACKEND SEED COUNT [--only I] [--jobs J]

BACKEND is reference or gpu. Program i of a run is generated from (SEED, i)
alone, so `--only I` with the same SEED regenerates and reruns the program
a mismatch names. Every program mixes: parameters of every dtype but bf16
(NumPy and .npy have none: bf16 is drawn inside programs, as round trips
and arithmetic read back as f32) and broadcastable shapes over odd sizes with NaN,
+-inf, -0 and the integer extremes in them; literals (weakly typed);
operators and functions with dtype promotion; casts; reductions; every
layout function (slicing, crop, flip, pad, concat, stack, take, erase,
iota, zeros, ones, full: random_layout.py) and gaussian_blur, with per-
sample tensors for their parameters; and if/for statements. Results must
agree bit for bit, except those the doc calls approximate (transcendental
functions, float powers, float sums, products and means, blurs), which
agree within a tolerance; those only appear as a result's last operation,
so that no exact comparison downstream depends on the last bit of one.

Prints one line per mismatch (with the program) and ends with "N of N
programs agree"; exits 1 on a mismatch."""
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_oracle_core import (  # noqa: E402
    DTYPES, FULL, NP, SHAPES, Invalid, V, broadcast_shape, compute_dtype,
    convert, float_op, ieee_min_max, int_binary, irange, is_float, promote,
    round_to_bf16, signed, type_text, wrap)
from random_layout import LayoutRoots  # noqa: E402


# Parameter names (not `i`, a loop's, nor `p`, the pipeline's).
PARAM_NAMES = 'abcdefghjkmoqsuvwxyz'


class Program(LayoutRoots):
    def __init__(self, seed, index, attempt):
        self.r = random.Random(f'{seed}/{index}/{attempt}')
        self.rng = np.random.default_rng([seed, index, attempt])
        self.sizes = {'N': self.r.randint(1, 4), 'H': self.r.randint(1, 6),
                      'W': self.r.randint(1, 9)}
        self.params, self.inputs, self.leaves = [], {}, []
        self.lines, self.results, self.count = [], [], 0

    # Inputs with special values: NaN, +-inf, -0, the integer extremes.
    def random_array(self, d, shape):
        dims = [self.sizes.get(s, 1) for s in shape]
        t = NP[d]
        if d == 'bool':
            return self.rng.random(dims) < 0.5
        if is_float(d):
            x = (self.rng.standard_normal(dims) * self.r.choice([1, 3, 100])
                 ).astype(t)
            specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, 2.5]
        else:
            lo, hi = irange(d)
            small = self.r.random() < 0.5
            x = (self.rng.integers(-20 if signed(d) else 0, 20, dims,
                                   endpoint=True).astype(t) if small else
                 self.rng.integers(lo, hi, dims, dtype=t, endpoint=True))
            specials = [lo, hi, 0, 1, -1 if signed(d) else 2]
        flat = x.reshape(-1)
        for i in range(flat.size):
            if self.r.random() < 0.15:
                flat[i] = self.r.choice(specials)
        return x

    def new_param(self, type_text):
        """A new parameter's name, declared with `type_text`."""
        if len(self.params) == len(PARAM_NAMES):
            raise Invalid
        name = PARAM_NAMES[len(self.params)]
        self.params.append(f'{name}: {type_text}')
        return name

    def param(self, d=None, shape=None):
        d = d or self.r.choice(DTYPES)
        shape = shape if shape is not None else self.r.choice(SHAPES)
        name = self.new_param(type_text(d, shape))
        self.inputs[name] = self.random_array(d, shape)
        v = V(name, self.inputs[name], d, shape)
        self.leaves.append(v)
        return v

    def literal(self):
        if self.r.random() < 0.5:
            n = self.r.choice([0, 1, 2, 3, 7, 100])
            return V(str(n), None, None, (), literal=n)
        f = self.r.choice([0.5, 1.5, 2.5, 0.25, 3.0, 100.0])
        return V(repr(f), None, None, (), literal=f)

    # --- The expression grammar ---------------------------------------------

    def leaf(self):
        if self.r.random() < 0.15:
            return self.literal()
        return self.r.choice(self.leaves)

    def expr(self, depth):
        """An exact (bit-for-bit) expression."""
        if depth <= 0 or self.r.random() < 0.2:
            return self.leaf()
        for _ in range(20):
            kind = self.r.random()
            try:
                if kind < 0.40:
                    v = self.binary(self.r.choice(BINARY), self.expr(depth - 1),
                                    self.expr(depth - 1))
                elif kind < 0.55:
                    v = self.unary(self.r.choice(UNARY), self.expr(depth - 1))
                elif kind < 0.67:
                    v = self.cast(self.r.choice(DTYPES), self.expr(depth - 1))
                elif kind < 0.70:
                    v = self.bf16_round_trip(self.expr(depth - 1))
                elif kind < 0.80:
                    v = self.select(self.expr(depth - 1), self.expr(depth - 1),
                                    self.expr(depth - 1))
                elif kind < 0.88:
                    v = self.reduction(self.expr(depth - 1), keepdims=True,
                                       exact=True)
                elif kind < 0.94:
                    v = self.layout(self.expr(depth - 1))
                else:
                    v = self.clamp(self.expr(depth - 1), self.expr(depth - 1),
                                   self.expr(depth - 1))
            except Invalid:
                continue
            if v is not None:
                return v
        return self.leaf()

    def tensor(self, v):
        """A literal made a tensor of its default dtype."""
        if v.literal is None:
            return v
        d = 'f32' if isinstance(v.literal, float) else 'i32'
        return V(v.text, np.array(v.literal, NP[d]), d, ())

    def operands(self, *vals):
        """The dtype the operands of an op promote to, and each value in it:
        the strong (non-literal) operands promote together, then the
        literals take that dtype (a float literal makes an integer or bool
        op f32; an integer literal makes a bool op i32) and must fit it."""
        strong = [v for v in vals if v.literal is None]
        if not strong:
            raise Invalid  # folded at compile time: not what is tested here
        d = strong[0].dtype
        for v in strong[1:]:
            d = promote(d, v.dtype)
            if d is None:
                raise Invalid
        literals = [v.literal for v in vals if v.literal is not None]
        if any(isinstance(x, float) for x in literals) and not is_float(d):
            d = 'f32'
        elif literals and d == 'bool':
            d = 'i32'
        if not is_float(d) and not all(irange(d)[0] <= x <= irange(d)[1]
                                       for x in literals):
            raise Invalid
        return (d, *[convert(v.value, v.dtype, d) if v.literal is None else
                     np.array(v.literal, np.float64 if is_float(d) else object
                              ).astype(NP[d]) for v in vals])

    def binary(self, op, a, b):
        if a.approx or b.approx:
            raise Invalid
        d, x, y = self.operands(a, b)
        text = f'({a.text} {op} {b.text})'
        shape = broadcast_shape(a.shape, b.shape)
        if op in ('==', '!=', '<', '<=', '>', '>='):
            if d == 'bool' and op not in ('==', '!='):
                raise Invalid
            fn = {'==': np.equal, '!=': np.not_equal, '<': np.less,
                  '<=': np.less_equal, '>': np.greater,
                  '>=': np.greater_equal}[op]
            return V(text, fn(x, y), 'bool', shape)
        if op in ('&&', '||'):
            if d != 'bool' or a.literal is not None or b.literal is not None:
                raise Invalid
            return V(text, (x & y) if op == '&&' else (x | y), 'bool', shape)
        if op in ('&', '|', '^'):
            if is_float(d):
                raise Invalid
            fn = {'&': np.bitwise_and, '|': np.bitwise_or,
                  '^': np.bitwise_xor}[op]
            return V(text, fn(x, y), d, shape)
        if d == 'bool':
            raise Invalid  # arithmetic takes numbers
        if op in ('<<', '>>'):
            if is_float(d):
                raise Invalid
            return V(text, int_binary(op, x, y, d), d, shape)
        if op == '/':
            if not is_float(d):
                d, x, y = 'f32', convert(x, d, 'f32'), convert(y, d, 'f32')
            return V(text, float_op(np.divide, d, x, y), d, shape)
        if op in ('//', '%', '**') and not is_float(d):
            return V(text, int_binary(op, x, y, d), d, shape)
        if op == '**':
            raise Invalid  # float powers are approximate: root() makes them
        fn = {'+': np.add, '-': np.subtract, '*': np.multiply,
              '//': np.floor_divide, '%': np.remainder}[op]
        if is_float(d):
            return V(text, float_op(fn, d, x, y), d, shape)
        return V(text, fn(x, y).astype(NP[d]), d, shape)

    def unary(self, fn, a):
        if a.literal is not None or a.approx:
            raise Invalid
        d, x = a.dtype, a.value
        if fn == '-':
            if d == 'bool':
                raise Invalid
            return V(f'(-{a.text})', float_op(np.negative, d, x) if is_float(d)
                     else np.negative(x).astype(NP[d]), d, a.shape)
        if fn == '!':
            if d != 'bool':
                raise Invalid
            return V(f'(!{a.text})', ~x, d, a.shape)
        if fn == '~':
            if is_float(d):
                raise Invalid
            return V(f'(~{a.text})', ~x, d, a.shape)
        if d == 'bool':
            raise Invalid
        text = f'{fn}({a.text})'
        if fn == 'abs':
            return V(text, np.abs(x).astype(NP[d]), d, a.shape)
        if fn in ('floor', 'ceil', 'round'):
            if not is_float(d):
                return V(text, x, d, a.shape)
            f = {'floor': np.floor, 'ceil': np.ceil, 'round': np.rint}[fn]
            return V(text, float_op(f, d, x), d, a.shape)
        # sqrt and rsqrt are correctly rounded, so exact.
        if not is_float(d):
            d, x = 'f32', convert(x, d, 'f32')
        if fn == 'sqrt':
            return V(text, float_op(np.sqrt, d, x), d, a.shape)
        one = compute_dtype(d)(1)
        return V(text, float_op(lambda v: one / np.sqrt(v), d, x), d, a.shape)

    def cast(self, d, a):
        if a.literal is not None or a.approx:
            raise Invalid
        return V(f'{d}({a.text})', convert(a.value, a.dtype, d), d, a.shape)

    def bf16_round_trip(self, a):
        """f32(bf16(a)), or bf16 arithmetic read back as f32: bf16 has no
        NumPy dtype and no .npy form, so it lives inside the program. The
        sources are those whose values f32 holds exactly, so that rounding
        the f32's bits is rounding the exact value (docs: "round once")."""
        if a.literal is not None or a.approx or a.dtype not in (
                'bool', 'u8', 'i8', 'u16', 'i16', 'f16', 'f32'):
            raise Invalid
        x = round_to_bf16(convert(a.value, a.dtype, 'f32'))
        if self.r.random() < 0.5:
            return V(f'f32(bf16({a.text}))', x, 'f32', a.shape)
        # An op in bf16: computed in f32, rounded to bf16 (docs, "Types").
        op = self.r.choice(['+', '*', '-'])
        fn = {'+': np.add, '*': np.multiply, '-': np.subtract}[op]
        y = round_to_bf16(fn(x, x).astype(np.float32))
        return V(f'f32(bf16({a.text}) {op} bf16({a.text}))', y, 'f32',
                 a.shape)

    def select(self, c, a, b):
        if c.dtype != 'bool' or c.literal is not None:
            raise Invalid
        if a.approx or b.approx:
            raise Invalid
        d, x, y = self.operands(a, b)
        shape = broadcast_shape(c.shape, broadcast_shape(a.shape, b.shape))
        return V(f'select({c.text}, {a.text}, {b.text})',
                 np.where(c.value, x, y).astype(NP[d]), d, shape)

    def minmax(self, fn, a, b):
        if a.approx or b.approx:
            raise Invalid
        d, x, y = self.operands(a, b)
        if d == 'bool':
            raise Invalid
        return V(f'{fn}({a.text}, {b.text})', ieee_min_max(x, y, d, fn == 'max'),
                 d, broadcast_shape(a.shape, b.shape))

    def clamp(self, x, lo, hi):
        """min(max(x, lo), hi), the three promoted together (operands)."""
        if x.approx or lo.approx or hi.approx:
            raise Invalid
        d, vx, vlo, vhi = self.operands(x, lo, hi)
        if d == 'bool':
            raise Invalid
        shape = broadcast_shape(x.shape, broadcast_shape(lo.shape, hi.shape))
        value = ieee_min_max(ieee_min_max(vx, vlo, d, True), vhi, d, False)
        return V(f'clamp({x.text}, {lo.text}, {hi.text})', value, d, shape)

    def reduction(self, a, keepdims, exact):
        a = self.tensor(a)
        if not a.shape or a.approx:
            raise Invalid
        kinds = ['min', 'max', 'any', 'all'] + (
            ['sum', 'prod', 'mean'] if not is_float(a.dtype) or not exact else [])
        kind = self.r.choice(kinds)
        if kind in ('min', 'max') and a.dtype == 'bool':
            raise Invalid
        rank = len(a.shape)
        if self.r.random() < 0.3:
            axes = list(range(rank))
            axes_text = ''
        else:
            axes = sorted(self.r.sample(range(rank), self.r.randint(1, rank)))
            shown = [ax - rank if self.r.random() < 0.3 else ax for ax in axes]
            axes_text = f', axes = [{", ".join(map(str, shown))}]'
        keep_text = ', keepdims = true' if keepdims else ''
        if keepdims:
            shape = tuple('1' if i in axes else s for i, s in enumerate(a.shape))
        else:
            shape = tuple(s for i, s in enumerate(a.shape) if i not in axes)
        x = a.value
        ax = tuple(axes)
        d = a.dtype
        approx = scale = None
        if kind in ('any', 'all'):
            fn = np.any if kind == 'any' else np.all
            value, rd = fn(x != 0, axis=ax, keepdims=keepdims), 'bool'
        elif kind in ('min', 'max'):
            fn = np.max if kind == 'max' else np.min
            value, rd = fn(x, axis=ax, keepdims=keepdims), d
            if is_float(d):
                approx = 'zero-sign'  # which zero wins is not specified
        elif kind == 'mean':
            count = int(np.prod([x.shape[i] for i in axes]))
            rd = 'f64' if d == 'f64' else 'f32'
            if is_float(d):
                s = np.sum(x.astype(np.float64), axis=ax, keepdims=keepdims)
                value = (s / count).astype(NP[rd])
                approx = 'sum'
                scale = np.sum(np.abs(x.astype(np.float64)), axis=ax,
                               keepdims=keepdims) / count
            else:
                s = np.sum(x.astype(object), axis=ax, keepdims=keepdims)
                value = np.vectorize(lambda t: float(int(t)) / count,
                                     otypes=[np.float64])(s).astype(NP[rd])
        else:
            if is_float(d):
                rd = d
                f = np.sum if kind == 'sum' else np.prod
                value = f(x.astype(np.float64), axis=ax,
                          keepdims=keepdims).astype(NP[d])
                approx = 'sum'
                scale = (np.sum(np.abs(x.astype(np.float64)), axis=ax,
                                keepdims=keepdims) if kind == 'sum' else None)
            else:
                rd = 'u64' if d[0] == 'u' else 'i64'
                f = np.sum if kind == 'sum' else np.prod
                s = f(x.astype(object), axis=ax, keepdims=keepdims)
                s = np.asarray(s, dtype=object)
                value = wrap(s.reshape(-1).tolist(), rd, s.shape)
        if exact and approx:
            raise Invalid
        return V(f'{kind}({a.text}{axes_text}{keep_text})', np.asarray(value),
                 rd, shape, approx=approx, scale=scale)

    def layout(self, a):
        """A shape-keeping layout function: flip, or a reversing slice."""
        a = self.tensor(a)
        if not a.shape:
            raise Invalid
        rank = len(a.shape)
        axis = self.r.randrange(rank)
        if self.r.random() < 0.5:
            text = f'flip({a.text}, axes = [{axis}])'
        else:
            subs = [':'] * axis + ['::-1']
            text = f'{a.text}[{", ".join(subs)}]'
        return V(text, np.flip(a.value, axis), a.dtype, a.shape, approx=a.approx)

    # --- Roots: what a result may end with ------------------------------------

    def root(self):
        r = self.r.random()
        try:
            if r < 0.12:
                return self.transcendental(self.expr(2))
            if r < 0.20:
                return self.reduction(self.expr(2), keepdims=self.r.random() < 0.5,
                                      exact=False)
            if r < 0.26:
                return self.transpose(self.expr(2))
            if r < 0.32:
                return self.minmax(self.r.choice(['min', 'max']), self.expr(2),
                                   self.expr(2))
            if r < 0.50:
                return self.layout_root()
        except Invalid:
            pass
        return self.tensor(self.expr(3))

    def transcendental(self, a):
        if a.literal is not None or a.approx or a.dtype == 'bool':
            raise Invalid  # (a function of a literal alone is folded)
        fn = self.r.choice(['exp', 'log', 'sin', 'cos', 'tanh', 'atan2', '**'])
        if fn in ('atan2', '**'):
            b = self.expr(1)
            if b.approx or b.dtype == 'bool':
                raise Invalid
            d, x, y = self.operands(a, b)
            shape = broadcast_shape(a.shape, b.shape)
            if fn == '**':
                if not is_float(d):
                    raise Invalid  # integer powers are exact: expr() has them
                return V(f'({a.text} ** {b.text})', float_op(np.power, d, x, y),
                         d, shape, approx='ulps')
            if not is_float(d):
                d, x, y = 'f32', convert(x, d, 'f32'), convert(y, d, 'f32')
            return V(f'atan2({a.text}, {b.text})', float_op(np.arctan2, d, x, y),
                     d, shape, approx='ulps')
        d = a.dtype if is_float(a.dtype) else 'f32'
        x = convert(a.value, a.dtype, d)
        f = {'exp': np.exp, 'log': np.log, 'sin': np.sin, 'cos': np.cos,
             'tanh': np.tanh}[fn]
        return V(f'{fn}({a.text})', float_op(f, d, x), d, a.shape,
                 approx='ulps')

    def transpose(self, a):
        a = self.tensor(a)
        if len(a.shape) < 2 or a.approx:
            raise Invalid
        perm = list(range(len(a.shape)))
        self.r.shuffle(perm)
        return V(f'transpose({a.text}, [{", ".join(map(str, perm))}])',
                 np.transpose(a.value, perm), a.dtype,
                 tuple(a.shape[p] for p in perm))

    # --- Statements -----------------------------------------------------------

    def build(self):
        self.param(shape=FULL)
        for _ in range(self.r.randint(0, 3)):
            self.param()
        for _ in range(self.r.randint(0, 2)):  # named intermediates
            v = self.expr(2)
            name = f't{len(self.lines)}'
            self.lines.append(f'  {name} = {v.text}')
            # A name bound to a literal stays weakly typed where it is used.
            self.leaves.append(V(name, v.value, v.dtype, v.shape,
                                 literal=v.literal))
        for k in range(self.r.randint(1, 3)):
            name = f'r{k}'
            v = self.root()
            v = V(v.text, v.value, v.dtype, v.shape, v.approx, None, v.scale)
            self.lines.append(f'  {name} = {v.text}')
            self.results.append([name, v])
            if v.approx or self.r.random() < 0.6:
                continue
            if self.r.random() < 0.5:
                self.if_statement(name, v)
            else:
                self.for_statement(name, v)

    def same_shape_expr(self, v):
        for _ in range(20):
            e = self.expr(2)
            if e.literal is None and e.shape == v.shape and not e.approx:
                return e
        return None

    def if_statement(self, name, v):
        other = self.same_shape_expr(v)
        for _ in range(20):
            c = self.expr(2)
            if c.dtype == 'bool' and c.literal is None and c.shape and \
                    not c.approx:
                break
        else:
            return
        per_sample = len(c.shape) == 3 and self.r.random() < 0.5
        try:
            cond = self.reduction(c, keepdims=per_sample, exact=True)
        except Invalid:
            return
        if other is None or cond.dtype != 'bool' or \
                broadcast_shape(cond.shape, v.shape) != v.shape:
            return
        then = convert(other.value, other.dtype, v.dtype)
        self.lines.append(f'  if {cond.text} {{\n    {name} = '
                          f'{v.dtype}({other.text})\n  }}')
        v.value = np.where(cond.value, then, v.value).astype(NP[v.dtype])

    def for_statement(self, name, v):
        other = self.same_shape_expr(v)
        if other is None:
            return
        op = self.r.choice(['+', '*', '-', 'max'])
        try:
            k_name = self.new_param('i32')
        except Invalid:
            return
        trips = self.r.randint(-1, 5)
        self.inputs[k_name] = np.array(trips, np.int32)
        bound = self.r.randint(1, 4)
        body = (f'max({name}, {other.text})' if op == 'max'
                else f'({name} {op} {other.text})')
        self.lines.append(f'  for i in 0 .. {k_name} max {bound} {{\n'
                          f'    {name} = {v.dtype}({body})\n  }}')
        acc = V(name, v.value, v.dtype, v.shape)

        def step(acc):
            # Raises Invalid for a body the language rejects, run or not.
            if op == 'max':
                r = self.minmax('max', acc, other)
            else:
                r = self.binary(op, acc, other)
            return V(name, convert(r.value, r.dtype, v.dtype), v.dtype,
                     v.shape)
        step(acc)
        for _ in range(max(0, min(trips, bound))):
            acc = step(acc)
        v.value = acc.value

    def source(self):
        results = ', '.join(f'{n}: {type_text(v.dtype, v.shape)}'
                            for n, v in self.results)
        return (f'pipeline p({", ".join(self.params)}) -> ({results}) {{\n' +
                '\n'.join(self.lines) + '\n}\n')


BINARY = ['+', '-', '*', '/', '//', '%', '**', '==', '!=', '<', '<=', '>',
          '>=', '&&', '||', '&', '|', '^', '<<', '>>']
UNARY = ['-', '!', '~', 'abs', 'floor', 'ceil', 'round', 'sqrt', 'rsqrt']


def generate(seed, index):
    for attempt in range(100):
        p = Program(seed, index, attempt)
        try:
            p.build()
        except Invalid:
            continue
        return p
    raise RuntimeError('no program')


# --- Comparison ---------------------------------------------------------------

def agree(got, v):
    """Whether `got` is `v`'s value: bit for bit (a NaN's sign aside), or
    within the doc's tolerance for approximate values."""
    want = np.asarray(v.value).astype(NP[v.dtype])
    if got.dtype != want.dtype or got.shape != want.shape:
        return f'got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}'
    nan = (got != got) & (want != want)
    same = (got == want) | nan
    if is_float(v.dtype) and v.approx != 'zero-sign':
        same &= (np.signbit(got) == np.signbit(want)) | nan
    if v.approx == 'blur':
        # v.scale is the tolerance of each element (random_layout.py).
        g, w = got.astype(np.float64), want.astype(np.float64)
        same = nan | (g == w) | (np.abs(g - w) <= np.asarray(v.scale))
    elif v.approx in ('ulps', 'sum'):
        eps = float(np.finfo(NP[v.dtype]).eps)
        g, w = got.astype(np.float64), want.astype(np.float64)
        scale = np.abs(w) if v.scale is None else np.asarray(v.scale)
        # f16 results are rounded from f32 values that may differ in the
        # last bits: one f16 ulp; a float sum may differ by the f32
        # rounding of each thread's part.
        rtol = {'ulps': 8 * eps, 'sum': 3e-5 if v.dtype != 'f64' else 1e-12}[v.approx]
        if v.dtype == 'f16':
            rtol = 2 * eps
        close = np.abs(g - w) <= rtol * scale + 1e-30
        same |= close | (np.isinf(g) & (g == w))
        if v.approx == 'sum':
            # An f32 partial sum may overflow where the f64 sum does not,
            # or the other way round, at values near the f32 limit.
            same |= np.isinf(g) & (np.abs(w) > float(np.finfo(NP[v.dtype]).max) / 2)
    if np.all(same):
        return None
    bad = np.argwhere(~np.asarray(same))
    at = tuple(bad[0]) if bad.size else ()
    return (f'{len(bad)} of {want.size} elements differ, first at '
            f'{list(map(int, at))}: got {got[at]!r}, want {want[at]!r}')


# A program runs in well under a second; one that takes this long hangs.
TIMEOUT_S = 60


def run(pipec, backend, source, inputs):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'p.pipe')
        open(path, 'w').write(source)
        args = [pipec, 'run', path, '--backend=' + backend, '--output', d]
        for name, value in inputs.items():
            np.save(os.path.join(d, name + '.npy'), value)
            args += ['--input', f'{name}={os.path.join(d, name)}.npy']
        try:
            r = subprocess.run(args, capture_output=True, text=True,
                               timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f'pipec did not finish in {TIMEOUT_S} s'
        if r.returncode != 0:
            return r.stderr
        return {f[:-4]: np.load(os.path.join(d, f)) for f in os.listdir(d)
                if f.endswith('.npy') and f[:-4] not in inputs}


def main():
    argv = sys.argv[1:]
    only = jobs = None
    if '--only' in argv:
        i = argv.index('--only')
        only = int(argv[i + 1])
        del argv[i:i + 2]
    if '--jobs' in argv:
        i = argv.index('--jobs')
        jobs = int(argv[i + 1])
        del argv[i:i + 2]
    pipec, backend, seed, count = argv[0], argv[1], int(argv[2]), int(argv[3])
    indices = [only] if only is not None else range(count)
    programs = [(i, generate(seed, i)) for i in indices]
    with concurrent.futures.ThreadPoolExecutor(jobs or os.cpu_count()) as pool:
        outs = list(pool.map(
            lambda ip: run(pipec, backend, ip[1].source(), ip[1].inputs),
            programs))
    failed = 0
    for (i, p), out in zip(programs, outs):
        problems = []
        if isinstance(out, str):
            problems.append('pipec failed: ' + out.strip())
        else:
            for name, v in p.results:
                why = agree(out[name], v) if name in out else 'no result'
                if why:
                    problems.append(f'{name}: {why}')
        if problems:
            failed += 1
            print(f'MISMATCH program {i} (seed {seed}; rerun with --only {i})'
                  f' on {backend}:')
            for line in problems:
                print('  ' + line)
            print('  sizes ' + str(p.sizes))
            print('  ' + p.source().replace('\n', '\n  '))
    print(f'{len(programs) - failed} of {len(programs)} programs agree')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
