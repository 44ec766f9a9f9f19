"""The window ops against NumPy (float64) models of their documented
formulas (docs/language.md): box_filter (the mean), erode and dilate (the
least and greatest tap, NaN if any is), median (np.sort's middle, NaN
last), conv2d (a correlation, as OpenCV's filter2D and DALI's filter);
taps past an edge as np.pad's modes (reflect101 = 'reflect', clamp =
'edge', constant, wrap), the anchor at size // 2. Random inputs of odd
sizes, images smaller than the window, special values; every border,
dtypes u8 to f64 (bool for the selections), windows over one or two axes,
literal and per-sample kernels; windows over elementwise work and index
maps (casts, comparisons, per-sample scales, slices, crops at per-sample
anchors, flips, transposes), which the kernels compute at each tap (a
fused prologue), and elementwise work on the windows' values (an
epilogue: a Sobel's magnitude, a morphological gradient, an unsharp mask,
a per-channel normalize). The selections agree exactly (the sign of
a zero aside: -0 and 0 are equal taps); sums converted to an integer
within 1, float sums within their rounding (f32: 1e-5 of the sum of
|weight * tap|). On the GPU, each result is also the reference's, bit for
bit."""
from oracle import check, failures, finish, random, rng, run
import oracle
import numpy as np

NP = {'u8': np.uint8, 'i8': np.int8, 'i16': np.int16, 'u16': np.uint16,
      'i32': np.int32, 'f16': np.float16, 'f32': np.float32,
      'f64': np.float64, 'bool': np.bool_}
MODES = {'reflect101': 'reflect', 'clamp': 'edge', 'constant': 'constant',
         'wrap': 'wrap'}


def windows(x, axes, sizes, border, fill):
    """x's windows: x's shape, then the window's taps (row-major)."""
    pad = [(0, 0)] * x.ndim
    for axis, size in zip(axes, sizes):
        pad[axis] = (size // 2, size - 1 - size // 2)
    kw = {'constant_values': fill} if border == 'constant' else {}
    padded = np.pad(x, pad, mode=MODES[border], **kw)
    view = np.lib.stride_tricks.sliding_window_view(padded, sizes, axis=axes)
    return view.reshape(x.shape + (-1,))


def to_dtype(y, dtype):
    t = NP[dtype]
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        with np.errstate(invalid='ignore'):
            y = np.where(np.isnan(y), 0, y)
            return np.clip(np.rint(y), info.min, info.max).astype(t)
    return y.astype(t)


def model(kind, x, axes, sizes, border, fill, kernel=None, out=None):
    if kind in ('erode', 'dilate', 'median'):
        f = np.array(fill).astype(x.dtype) if x.dtype != np.bool_ else \
            np.bool_(fill)
        w = windows(x, axes, sizes, border, f)
        if kind == 'median':
            return np.sort(w, axis=-1)[..., w.shape[-1] // 2], None
        if x.dtype == np.bool_:
            return (w.all(-1) if kind == 'erode' else w.any(-1)), None
        return (w.min(-1) if kind == 'erode' else w.max(-1)), None
    w = windows(x.astype(np.float64), axes, sizes, border, fill)
    if kind == 'box':
        y, bound = w.mean(-1), np.abs(w).mean(-1)
    else:
        # kernel: [KH, KW] or [N, KH, KW], one per sample (the first dim).
        k = kernel.astype(np.float64).reshape(kernel.shape[:-2] + (-1,))
        if k.ndim == 1:
            k = np.broadcast_to(k, (x.shape[0], k.size))
        k = k.reshape((x.shape[0],) + (1,) * (x.ndim - 1) + (-1,))
        with np.errstate(invalid='ignore'):
            y = (w * k).sum(-1)
            bound = np.abs(w * k).sum(-1)
    return to_dtype(y, out), bound


def compare(name, got, want, bound, out):
    if bound is None:
        # The selections: exact (-0 and 0 the same tap).
        oracle.check(name, got + np.zeros((), got.dtype) if got.dtype !=
                     np.bool_ else got, want + np.zeros((), want.dtype)
                     if want.dtype != np.bool_ else want)
        return
    oracle.cases += 1
    ok = got.shape == want.shape and got.dtype == want.dtype
    if ok:
        g, t = got.astype(np.float64), want.astype(np.float64)
        if np.issubdtype(NP[out], np.integer):
            close = np.abs(g - t) <= 1
        else:
            eps = 1e-5 if out != 'f16' else 2e-3
            eps = 1e-12 if out == 'f64' else eps
            with np.errstate(invalid='ignore'):
                close = (np.abs(g - t) <= eps * bound + 1e-30) | (g == t) | \
                    (np.isnan(g) & np.isnan(t))
        ok = bool(np.all(close))
        if not ok:
            bad = np.argwhere(~close)[0]
            print(f'  first at {bad.tolist()}: {got[tuple(bad)]} vs '
                  f'{want[tuple(bad)]}')
    print(('ok      ' if ok else 'MISMATCH ') + name)
    if not ok:
        failures.append(name)


def run_checked(name, source, inputs):
    """The program's results; on the GPU each is also checked to be the
    reference's, bit for bit (core/PipeWindow.h computes both)."""
    got = run(source, inputs)
    if oracle.BACKEND == 'gpu':
        oracle.BACKEND = 'reference'
        try:
            reference = run(source, inputs)
        finally:
            oracle.BACKEND = 'gpu'
        for key in got:
            check(f'{name}: {key} GPU == reference', got[key], reference[key])
    return got


def fused_case(kind, dtype, shape, sizes, expr, prep, result, params='',
               inputs=(), out=None, border=None, fill=None, kernel=None):
    """A window over `expr` of x (pipe-fuse-window-prologues makes them one
    kernel): `prep(x, inputs)` is NumPy's value of `expr`, `result` the
    result's type, `params` and `inputs` further parameters."""
    x = random(dtype, shape)
    extra = dict(inputs)
    names = ['N', 'H', 'W', 'C'][:len(shape)]
    args = ['window = [' + ', '.join(map(str, sizes)) + ']'] \
        if kind != 'conv' else [f'kernel = {kernel}']
    if border:
        args.append(f'border = {border}')
    if fill is not None:
        args.append(f'fill = {fill}')
    if out:
        args.append(f'dtype = {out}')
    source = (f'pipeline w(x: {dtype}[{", ".join(names)}]{params}) -> '
              f'(y: {result}) {{\n'
              f'  y = {CALL[kind]}({expr}, {", ".join(args)})\n}}\n')
    got = run_checked(f'{kind} of {expr}', source, {'x': x, **extra})['y']
    v = prep(x, extra)
    default = 'clamp' if kind in ('erode', 'dilate', 'median') else \
        'reflect101'
    k = None
    if kind == 'conv':
        k = np.array(eval(kernel), dtype=np.float32)
    out = out or {np.dtype(t): n for n, t in NP.items()}[v.dtype]
    want, bound = model(kind, v, (1, 2), tuple(sizes), border or default,
                        fill or 0, k, out)
    compare(f'{kind} of {expr} window {sizes} {border or default} -> {out}',
            got, want, bound, out)


def epilogue_case(name, source, inputs, want, bound=None, out=None):
    """A whole program whose windows' values feed elementwise work (one
    kernel: pipe-fuse-window-prologues' epilogue); `want` the results in
    NumPy, `bound` a float result's scale (None: exact)."""
    got = run_checked(name, source, inputs)
    for key, value in want.items():
        compare(f'{name}: {key}', got[key], value,
                None if bound is None else bound[key],
                {np.dtype(t): n for n, t in NP.items()}[value.dtype])


CALL = {'box': 'box_filter', 'erode': 'erode', 'dilate': 'dilate',
        'median': 'median', 'conv': 'conv2d'}


def case(kind, dtype, shape, sizes, axes=None, border=None, fill=None,
         out=None, kernel=None, per_sample=False, literal=()):
    x = random(dtype, shape)
    if dtype in ('f16', 'f32', 'f64') and x.size > 8:
        # Keep the special values away from most windows: a few NaNs and
        # infinities, not one per image.
        x.reshape(-1)[4:] = np.where(np.isfinite(x.reshape(-1)[4:]),
                                     x.reshape(-1)[4:], 1)
    names = ['N', 'H', 'W', 'C'][:len(shape)]
    if len(shape) == 2:
        names = ['H', 'W']
    # Dims written as literals (the kernels compile their strides in).
    names = [str(shape[d]) if d in literal else n for d, n in enumerate(names)]
    args = []
    if kind == 'conv':
        if per_sample:
            k = rng.standard_normal((shape[0],) + tuple(sizes)).astype(
                np.float32)
            args.append('kernel = k')
        else:
            k = rng.integers(-3, 4, sizes).astype(np.float32)
            rows = ', '.join('[' + ', '.join(str(int(v)) for v in row) + ']'
                             for row in k)
            args.append(f'kernel = [{rows}]')
    else:
        k = None
        args.append('window = [' + ', '.join(map(str, sizes)) + ']')
    if axes is not None:
        args.append('axes = [' + ', '.join(map(str, axes)) + ']')
    if border:
        args.append(f'border = {border}')
    if fill is not None:
        args.append(f'fill = {fill}')
    if out:
        args.append(f'dtype = {out}')
    out = out or dtype
    ty = f'{dtype}[{", ".join(names)}]'
    params = f'x: {ty}'
    if kind == 'conv' and per_sample:
        params += f', k: f32[{names[0]}, {sizes[0]}, {sizes[1]}]'
    source = (f'pipeline w({params}) -> (y: {out}[{", ".join(names)}]) {{\n'
              f'  y = {CALL[kind]}(x, {", ".join(args)})\n}}\n')
    inputs = {'x': x}
    if kind == 'conv' and per_sample:
        inputs['k'] = k
    got = run_checked(f'{kind} {ty} {sizes}', source, inputs)['y']
    rank = len(shape)
    axes = axes or ([1, 2] if rank > 2 else [0, 1])
    default = 'clamp' if kind in ('erode', 'dilate', 'median') else \
        'reflect101'
    want, bound = model(kind, x, tuple(axes), tuple(sizes), border or default,
                        fill or 0, k, out)
    compare(f'{kind} {ty} window {sizes} axes {axes} {border or default}'
            f'{" fill " + str(fill) if fill is not None else ""} -> {out}'
            f'{" per sample" if per_sample else ""}', got, want, bound, out)


for dtype in ('u8', 'i16', 'f32', 'f64'):
    case('box', dtype, (2, 7, 9, 3), (3, 5))
    case('erode', dtype, (2, 7, 9, 3), (3, 3))
    case('dilate', dtype, (2, 7, 9, 3), (2, 4))
    case('median', dtype, (2, 7, 9, 3), (5, 5))
    case('conv', dtype, (2, 7, 9, 3), (3, 3), out='f32')
for border in ('reflect101', 'clamp', 'constant', 'wrap'):
    fill = 7 if border == 'constant' else None
    # An image smaller than the window: taps reach past both edges.
    case('box', 'u8', (3, 2, 3, 1), (5, 7), border=border, fill=fill)
    case('erode', 'u8', (2, 5, 6), (3, 5), border=border, fill=fill)
    case('median', 'f32', (2, 3, 4, 2), (5, 3), border=border, fill=fill)
    case('conv', 'f32', (2, 4, 5, 3), (3, 5), border=border, fill=fill,
         per_sample=True)
case('dilate', 'bool', (2, 6, 7), (3, 3))
case('erode', 'bool', (2, 6, 7), (3, 3), border='constant', fill=0)
case('median', 'bool', (2, 6, 7), (3, 3))
case('median', 'f16', (2, 6, 7, 3), (3, 3))
case('dilate', 'i8', (2, 6, 7, 3), (1, 5))
case('box', 'u8', (2, 6, 7, 3), (9,), axes=[2])
case('median', 'u16', (5, 33), (3, 3))
case('box', 'u8', (2, 6, 7, 3), (4, 4), out='f32')
case('conv', 'u8', (2, 6, 7, 3), (3, 3))
case('conv', 'u8', (2, 6, 7, 3), (3, 3), out='i16', border='clamp')
case('conv', 'f32', (2, 6, 7, 3), (1, 7), axes=[1, 2], per_sample=True)
case('box', 'f32', (2, 40, 37, 1), (31, 31))
# A thread computes several outputs down a column (8, a median's 4 or 2):
# columns whose rows are not a multiple of that, windows along the last
# axis (columns of one element), windows of one row.
case('box', 'f32', (3, 17, 5, 2), (7, 3), border='constant', fill=2.5)
case('median', 'u8', (2, 19, 11), (3, 3), border='wrap')
case('median', 'i16', (2, 11, 4, 3), (5, 5), border='reflect101')
case('erode', 'f32', (3, 41), (5,), axes=[1])
case('conv', 'i16', (2, 13, 10, 3), (5, 5), out='f32')
case('dilate', 'u8', (1, 9, 300, 3), (1, 15))
case('box', 'u16', (2, 70, 3), (33,), axes=[1], border='wrap')
# Known channels: the taps at constant offsets (inside columns), the edges'
# columns through the border, every border.
for border in ('reflect101', 'clamp', 'constant', 'wrap'):
    fill = 9 if border == 'constant' else None
    case('box', 'u8', (2, 13, 21, 3), (5, 5), border=border, fill=fill,
         literal=(3,))
    case('median', 'u8', (2, 9, 10, 3), (3, 3), border=border, fill=fill,
         literal=(3,))
    case('conv', 'f32', (2, 11, 9, 2), (3, 5), border=border, fill=fill,
         literal=(2, 3), per_sample=True)
case('erode', 'f32', (3, 12, 17), (3, 5), literal=(0, 1, 2))
# Medians of 8- and 16-bit integers, two outputs to a word: signed ones
# with their extremes, rows not a multiple of the 8 or 4 a thread takes.
case('median', 'i8', (2, 11, 6, 3), (3, 3))
case('median', 'i8', (3, 5, 4), (5, 5), border='constant', fill=-128)
case('median', 'i16', (2, 13, 5, 2), (7, 7), border='wrap')
case('median', 'u16', (2, 6, 9), (1, 3), literal=(0, 1, 2))
case('dilate', 'i16', (2, 10, 8, 3), (5,), axes=[1], literal=(3,))
# Windows over computed values (one kernel: the prologue runs at each
# tap): casts and arithmetic, comparisons, a per-sample scale, slices,
# crops at per-sample anchors, flips and transposes.
f32 = np.float32
fused_case('box', 'u8', (2, 11, 9, 3), (5, 5), 'f32(x) * 0.25 - 3',
           lambda x, i: x.astype(f32) * f32(0.25) - f32(3), 'f32[N, H, W, C]')
fused_case('erode', 'u8', (2, 10, 13, 3), (3, 3), 'x > 100',
           lambda x, i: x > 100, 'bool[N, H, W, C]')
fused_case('dilate', 'i16', (2, 9, 7), (3, 5), '(x >> 1) + 1',
           lambda x, i: ((x >> 1) + 1).astype(np.int16), 'i16[N, H, W]',
           border='constant', fill=-5)
fused_case('median', 'u8', (2, 12, 11, 3), (3, 3), 'x[:, 2:-1, 1:, :]',
           lambda x, i: x[:, 2:-1, 1:, :], 'u8[N, H - 3, W - 1, C]')
fused_case('median', 'f32', (3, 9, 8, 2), (5, 5), 'flip(x, axes = [1, 2])',
           lambda x, i: x[:, ::-1, ::-1, :], 'f32[N, H, W, C]',
           border='reflect101')
fused_case('box', 'f32', (2, 7, 10, 3), (3, 1),
           'transpose(x * 2, [0, 2, 1, 3])',
           lambda x, i: (x * f32(2)).transpose(0, 2, 1, 3), 'f32[N, W, H, C]',
           border='wrap')
fused_case('dilate', 'u8', (3, 14, 15, 3), (3, 3),
           'crop(x, anchor = a, shape = [6, 7], axes = [1, 2])',
           lambda x, i: np.stack([x[n, a0:a0 + 6, a1:a1 + 7]
                                  for n, (a0, a1) in enumerate(i['a'])]),
           'u8[N, 6, 7, C]', params=', a: i32[N, 2]',
           inputs={'a': np.array([[0, 0], [8, 8], [3, 5]], np.int32)})
fused_case('conv', 'u8', (2, 8, 9, 3), (3, 3), 'f32(x) * g',
           lambda x, i: x.astype(f32) * i['g'], 'f32[N, H, W, C]',
           params=', g: f32[N, 1, 1, 1]',
           inputs={'g': np.array([0.5, -3], f32).reshape(2, 1, 1, 1)},
           kernel='[[1, 2, 1], [0, 0, 0], [-1, -2, -1]]', border='clamp')
fused_case('box', 'u16', (2, 21, 6), (7, 3), 'min(x, 1000)',
           lambda x, i: np.minimum(x, 1000).astype(np.uint16),
           'u8[N, H, W]', out='u8')
# Elementwise work on a window's values runs in its kernel (an
# epilogue), its value stored only where something else reads it.
x = random('u8', (2, 9, 11, 3))
sobel = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
w, _ = model('conv', x, (1, 2), (3, 3), 'reflect101', 0, sobel, 'f32')
epilogue_case(
    'u8(abs(sobel))',
    'pipeline w(x: u8[N, H, W, C]) -> (y: u8[N, H, W, C]) {\n'
    '  y = u8(abs(conv2d(x, kernel = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], '
    'dtype = f32)))\n}\n', {'x': x},
    {'y': to_dtype(np.abs(w.astype(np.float64)), 'u8')})
x = random('u8', (2, 10, 7))
dil, _ = model('dilate', x, (1, 2), (3, 3), 'clamp', 0)
ero, _ = model('erode', x, (1, 2), (3, 3), 'clamp', 0)
epilogue_case(
    'morphological gradient',
    'pipeline w(x: u8[N, H, W]) -> (y: u8[N, H, W]) {\n'
    '  y = dilate(x, window = 3) - erode(x, window = 3)\n}\n', {'x': x},
    {'y': (dil - ero).astype(np.uint8)})
x = random('u8', (3, 8, 13, 3))
m = windows(x.astype(np.float64), (1, 2), (3, 3), 'reflect101', 0).mean(-1)
epilogue_case(
    'unsharp mask',
    'pipeline w(x: u8[N, H, W, C]) -> (y: f32[N, H, W, C]) {\n'
    '  y = (f32(x) - box_filter(x, window = 3, dtype = f32)) * 0.5 + f32(x)\n'
    '}\n', {'x': x},
    {'y': ((x - m) * 0.5 + x).astype(np.float32)},
    bound={'y': 2.0 * x + m})
x = random('u8', (2, 7, 9, 3))
mean = np.array([120.5, 110.25, 100], np.float32)
std = np.array([58, 57, 0.5], np.float32)
b = windows(x.astype(np.float64) * 2, (1, 2), (5, 5), 'reflect101', 0).mean(-1)
epilogue_case(
    'normalize after a box over a scaled input',
    'pipeline w(x: u8[N, H, W, 3], mean: f32[3], std: f32[3]) -> '
    '(y: f32[N, H, W, 3]) {\n'
    '  y = (box_filter(f32(x) * 2, window = 5) - mean) / std\n}\n',
    {'x': x, 'mean': mean, 'std': std},
    {'y': ((b - mean) / std).astype(np.float32)},
    bound={'y': (b + np.abs(mean)) / std})
x = random('i16', (2, 11, 6))
med, _ = model('median', x, (1, 2), (3, 3), 'clamp', 0)
epilogue_case(
    'a median and its double, both results',
    'pipeline w(x: i16[N, H, W]) -> (a: i16[N, H, W], b: f32[N, H, W]) {\n'
    '  a = median(x, window = 3)\n  b = f32(a) * 2\n}\n', {'x': x},
    {'a': med, 'b': med.astype(np.float32) * 2})
finish()
