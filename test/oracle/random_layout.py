"""The random oracle's layout functions and blurs (docs/language.md, "Layout
functions" and "gaussian_blur"): slicing, crop, flip, pad, concat, stack,
take, erase, iota, zeros, ones, full and gaussian_blur, each drawn with
random parameters (per-sample tensors among them) and computed here with
NumPy from the doc's words, not from Pipe's code.

`LayoutRoots` is mixed into random_oracle.Program: `layout_root()` draws one
such function of an expression over [N, H, W] and returns its V, whose
shape is a tuple of dim expressions (`H - 2`, `ceil(W / 2)`) that the
compiler must find equal to its own. The generator knows the dims' sizes,
so it draws parameters valid for them; a program is one set of sizes."""
import numpy as np

from random_oracle_core import (FULL, FLOATS, INTS, NP, V, Invalid, convert,
                                irange, is_float)

AXIS_DIMS = {0: 'N', 1: 'H', 2: 'W'}


def blur_weights(window, sigma):
    """DALI's rules (3 sigma in f32, as its SigmaToDiameter computes it),
    then the weights normalized in f64 and rounded to f32."""
    if window is None:
        window = 2 * int(np.ceil(np.float32(sigma) * np.float32(3))) + 1
    radius = (window - 1) // 2
    if sigma is None:
        sigma = (radius - 1) * 0.3 + 0.8
    d = np.arange(-radius, radius + 1, dtype=np.float64)
    raw = np.exp(-d * d / (2 * sigma * sigma))
    return (raw / raw.sum()).astype(np.float32)


def border_index(k, size, border):
    """Where position k (outside [0, size) maybe) reads, or -1 for the fill."""
    if 0 <= k < size:
        return k
    if border == 'constant':
        return -1
    if border == 'clamp':
        return min(max(k, 0), size - 1)
    if border == 'wrap':
        return k % size
    if size == 1:  # reflect101
        return 0
    period = 2 * (size - 1)
    k = k % period
    return k if k < size else period - k


def blur_axis(x, axis, weights_of, border, fill):
    """One pass along `axis` of f32 `x`: per position, acc = fma(w[j],
    x[i - r + j], acc) for j in order, each step rounded to f32 (the f64
    product of two f32 values is exact; the sum may round twice, rarely,
    which the tolerance covers). weights_of(sample index) gives the taps."""
    out = np.empty_like(x)
    size = x.shape[axis]
    moved = np.moveaxis(x, axis, -1)
    result = np.moveaxis(out, axis, -1)
    for n in range(x.shape[0]):
        w = weights_of(n)
        r = (len(w) - 1) // 2
        line = moved[n].astype(np.float64)
        acc = np.zeros(line.shape, np.float32)
        for j in range(len(w)):
            taps = []
            for i in range(size):
                k = border_index(i - r + j, size, border)
                taps.append(k)
            taps = np.array(taps)
            values = np.where(taps >= 0, line[..., np.maximum(taps, 0)],
                              np.float64(fill))
            acc = (np.float64(w[j]) * values + acc.astype(np.float64)
                   ).astype(np.float32)
        result[n] = acc
    return out


class LayoutRoots:
    """The layout functions and blurs as roots of a random program."""

    def full_operand(self):
        """An exact expression over [N, H, W] (the first parameter's shape)."""
        for _ in range(20):
            e = self.expr(2)
            if e.literal is None and e.shape == FULL and not e.approx:
                return e
        return self.leaves[0]

    def size(self, axis):
        return self.sizes[AXIS_DIMS[axis]]

    def int_param(self, dims_text, values, dtype='i32'):
        name = self.new_param(f'{dtype}[{", ".join(dims_text)}]'
                              if dims_text else dtype)
        self.inputs[name] = np.asarray(values, NP[dtype]).reshape(
            [self.sizes.get(d, None) or int(d) for d in dims_text])
        return name

    def layout_root(self):
        kind = self.r.choice(['slice', 'crop', 'flip', 'pad', 'concat',
                              'stack', 'take', 'erase', 'constant', 'blur'])
        v = getattr(self, kind + '_root')()
        # Half of them feed an elementwise op, which fuses them into its
        # loads (or a blur's result into its store).
        if v.approx or self.r.random() < 0.5:
            return v
        choice = self.r.random()
        if choice < 0.4:
            return self.cast(self.r.choice(list(NP)), v)
        if choice < 0.7:
            return self.unary(self.r.choice(['-', 'abs', '~', '!']), v)
        return self.binary(self.r.choice(['+', '*', '-', '==']), v,
                           self.literal())

    # --- Slicing --------------------------------------------------------------

    def slice_root(self):
        a = self.tensor(self.full_operand())
        subs, index, shape = [], [], []
        for axis in range(3):
            D, dim = self.size(axis), AXIS_DIMS[axis]
            kind = self.r.random()
            if kind < 0.25:
                subs.append(':')
                index.append(slice(None))
                shape.append(dim)
            elif kind < 0.45:
                i = self.r.randint(-D, D - 1)
                subs.append(str(i))
                index.append(i)
            else:
                step = self.r.choice([1, 1, 2, 3, -1, -2])
                text, sl, extent = self.draw_slice(D, dim, step)
                subs.append(text)
                index.append(sl)
                shape.append(extent)
        while subs and subs[-1] == ':' and self.r.random() < 0.5:
            subs.pop()  # dims without a subscript are taken whole
        text = f'{a.text}[{", ".join(subs)}]' if subs else a.text
        if not subs:
            raise Invalid
        return V(text, a.value[tuple(index)], a.dtype, tuple(shape))

    def draw_slice(self, D, dim, step):
        """A slice inside a dim of size D: its text, the Python slice, and
        the result's dim expression (docs: ceil((b - a) / s))."""
        def bound(k):  # a literal, or counted from the end
            if k < D and self.r.random() < 0.4:
                return str(k - D), f'({dim} - {D - k})'
            return str(k), str(k)
        if step > 0:
            a = self.r.randint(0, D)
            b = self.r.randint(a, D)
            at, ae = ('', '0') if a == 0 and self.r.random() < 0.5 else bound(a)
            bt, be = ('', dim) if b == D and self.r.random() < 0.5 else (
                bound(b) if b < D else (dim, dim))
            extent = f'ceil(({be} - {ae}) / {step})'
            sl = slice(a, b, step)
        else:
            a = self.r.randint(0, D - 1)
            b = self.r.randint(-1, a)
            at, ae = ('', f'({dim} - 1)') if a == D - 1 and \
                self.r.random() < 0.5 else bound(a)
            bt, be = ('', '-1') if b == -1 else bound(b)
            extent = f'ceil(({ae} - {be}) / {-step})'
            sl = slice(a, None if b == -1 else b, step)
        text = f'{at}:{bt}' + (f':{step}' if step != 1 or self.r.random() < 0.2
                               else '')
        return text, sl, extent

    # --- crop, flip, pad ------------------------------------------------------

    def draw_axes(self, choices=(1, 2)):
        k = self.r.randint(1, len(choices))
        return sorted(self.r.sample(list(choices), k))

    def fill_literal(self, d):
        """A number literal for a fill, and its value in dtype d (converted
        as a cast converts)."""
        f = self.r.choice([0, 1, 7, 255, 300, -3, 2.5, 0.5, -1.5])
        if d == 'bool' or (not is_float(d) and isinstance(f, float)):
            f = self.r.choice([0, 1, 7])
        return repr(f), convert(np.float64(f), 'f64', d)

    def crop_root(self):
        a = self.tensor(self.full_operand())
        axes = self.draw_axes()
        mode = self.r.choice(['error', 'pad', 'clamp'])
        shape, shape_text = [], []
        for axis in axes:
            D, dim = self.size(axis), AXIS_DIMS[axis]
            if mode == 'error':
                s = self.r.randint(0, D)
            else:
                s = self.r.randint(0, D + 3)
            if s <= D and self.r.random() < 0.4:
                shape_text.append(f'{dim} - {D - s}')
            else:
                shape_text.append(str(s))
            shape.append(s)
        N = self.sizes['N']
        anchors = []
        form = self.r.choice(['centre', 'list', 'tensor'])
        if form == 'centre':
            anchors = [np.full(N, (self.size(ax) - s) // 2)
                       for ax, s in zip(axes, shape)]
            anchor_text = ''
        else:
            for ax, s in zip(axes, shape):
                D = self.size(ax)
                lo, hi = (0, D - s) if mode == 'error' else (-3, D + 1)
                anchors.append(np.array([self.r.randint(lo, hi)
                                         for _ in range(N)]))
            if form == 'list':
                # literals (the same for every sample) or i32[N] tensors
                parts = []
                for j in range(len(axes)):
                    if self.r.random() < 0.5:
                        anchors[j][:] = anchors[j][0]
                        parts.append(str(int(anchors[j][0])))
                    else:
                        parts.append(self.int_param(['N'], anchors[j]))
                anchor_text = f', anchor = [{", ".join(parts)}]'
            else:
                name = self.int_param(['N', str(len(axes))],
                                      np.stack(anchors, axis=1))
                anchor_text = f', anchor = {name}'
        fill_text, fill = '', np.zeros((), NP[a.dtype])
        if mode == 'pad' and self.r.random() < 0.7:
            lit, fill = self.fill_literal(a.dtype)
            fill_text = f', fill = {lit}'
        x = a.value
        out = []
        for n in range(N):
            idx, valid = [], np.ones(shape, bool)
            for j, ax in enumerate(axes):
                k = int(anchors[j][n]) + np.arange(shape[j])
                inside = (k >= 0) & (k < self.size(ax))
                expand = [1] * len(axes)
                expand[j] = shape[j]
                valid &= inside.reshape(expand)
                idx.append(np.clip(k, 0, self.size(ax) - 1))
            full_idx = [np.arange(x.shape[1]), np.arange(x.shape[2])]
            for j, ax in enumerate(axes):
                full_idx[ax - 1] = idx[j]
            window = x[n][np.ix_(*full_idx)]
            if mode == 'pad':
                vfull = np.ones(window.shape, bool)
                vshape = [1, 1]
                for j, ax in enumerate(axes):
                    vshape[ax - 1] = shape[j]
                vfull &= valid.reshape(vshape)
                window = np.where(vfull, window, fill)
            out.append(window)
        value = np.stack(out).astype(NP[a.dtype])
        dims = list(FULL)
        for j, ax in enumerate(axes):
            dims[ax] = shape_text[j]
        axes_text = f', axes = [{", ".join(map(str, axes))}]' \
            if axes != [1, 2][:len(axes)] or self.r.random() < 0.5 else ''
        oob = f', out_of_bounds = {mode}' if mode != 'error' or \
            self.r.random() < 0.3 else ''
        text = (f'crop({a.text}, shape = [{", ".join(shape_text)}]'
                f'{anchor_text}{axes_text}{oob}{fill_text})')
        return V(text, value, a.dtype, tuple(dims))

    def flip_root(self):
        a = self.tensor(self.full_operand())
        axes = self.draw_axes((0, 1, 2))
        x = a.value
        flipped = np.flip(x, tuple(axes))
        when_text = ''
        if min(axes) >= 1 and self.r.random() < 0.6:
            when = self.rng.random(self.sizes['N']) < 0.5
            name = self.new_param('bool[N]')
            self.inputs[name] = when
            when_text = f', when = {name}'
            flipped = np.where(when.reshape(-1, 1, 1), flipped, x)
        elif self.r.random() < 0.2:
            when_text = ', when = false'
            flipped = x
        return V(f'flip({a.text}, axes = [{", ".join(map(str, axes))}]'
                 f'{when_text})', flipped, a.dtype, a.shape)

    def pad_root(self):
        a = self.tensor(self.full_operand())
        axes = self.draw_axes()
        border = self.r.choice(['constant', 'clamp', 'reflect101', 'wrap'])
        before, after, dims = [], [], list(FULL)
        use_shape = self.r.random() < 0.4
        shape_text = []
        for ax in axes:
            D, dim = self.size(ax), AXIS_DIMS[ax]
            b = self.r.randint(0, 3)
            if use_shape:
                m = self.r.choice([2, 4, 8])
                target = m * -(-D // m) + self.r.randint(0, 2) + b
                extra = target - m * -(-D // m)
                text = f'{m} * ceil({dim} / {m})' + (f' + {extra}' if extra
                                                    else '')
                shape_text.append(text)
                after.append(target - D - b)
                dims[ax] = text
            else:
                after.append(self.r.randint(0, 3))
                dims[ax] = f'{dim} + {b + after[-1]}'
            before.append(b)
        fill_text, fill = '', np.zeros((), NP[a.dtype])
        if border == 'constant' and self.r.random() < 0.6:
            lit, fill = self.fill_literal(a.dtype)
            fill_text = f', fill = {lit}'
        # Each position of a padded axis reads border_index's element, or
        # the fill. (Not np.pad: NumPy before 2.0 wraps pads wider than the
        # dim in strides of the pad, not periodically as the doc's bcd|abcd.)
        value = a.value
        for j, ax in enumerate(axes):
            D = self.size(ax)
            k = np.array([border_index(i - before[j], D, border)
                          for i in range(before[j] + D + after[j])], int)
            picked = np.take(value, np.maximum(k, 0), axis=ax)
            mask = (k >= 0).reshape([-1 if i == ax else 1 for i in range(3)])
            value = np.where(mask, picked, fill).astype(NP[a.dtype])
        parts = []
        if any(before) or self.r.random() < 0.3:
            parts.append(f'before = [{", ".join(map(str, before))}]')
        if use_shape:
            parts.append(f'shape = [{", ".join(shape_text)}]')
        else:
            parts.append(f'after = [{", ".join(map(str, after))}]')
        if axes != [1, 2][:len(axes)] or self.r.random() < 0.5:
            parts.append(f'axes = [{", ".join(map(str, axes))}]')
        if border != 'constant' or self.r.random() < 0.3:
            parts.append(f'border = {border}')
        text = f'pad({a.text}, {", ".join(parts)}{fill_text})'
        return V(text, value, a.dtype, tuple(dims))

    # --- concat, stack, take --------------------------------------------------

    def several(self):
        vals = [self.tensor(self.full_operand())
                for _ in range(self.r.randint(2, 3))]
        d, *values = self.operands(*vals)
        return vals, d, values

    def concat_root(self):
        vals, d, values = self.several()
        axis = self.r.randint(0, 2)
        shown = axis - 3 if self.r.random() < 0.3 else axis
        dims = list(FULL)
        dims[axis] = ' + '.join([FULL[axis]] * len(vals))
        return V(f'concat([{", ".join(v.text for v in vals)}], axis = {shown})',
                 np.concatenate(values, axis=axis).astype(NP[d]), d,
                 tuple(dims))

    def stack_root(self):
        vals, d, values = self.several()
        axis = self.r.randint(0, 3)
        shown = axis - 4 if self.r.random() < 0.3 else axis
        dims = list(FULL)
        dims.insert(axis, str(len(vals)))
        return V(f'stack([{", ".join(v.text for v in vals)}], axis = {shown})',
                 np.stack(values, axis=axis).astype(NP[d]), d, tuple(dims))

    def take_root(self):
        a = self.tensor(self.full_operand())
        axis = self.r.randint(0, 2)
        D = self.size(axis)
        if D == 0:
            raise Invalid
        dtype = self.r.choice(INTS)
        lo, hi = irange(dtype)
        lo, hi = max(lo, -D), min(hi, D - 1)
        form = self.r.choice(['scalar', 'vector', 'matrix'])
        dims = {'scalar': [], 'vector': [str(self.r.randint(1, 5))],
                'matrix': ['N', '2']}[form]
        count = int(np.prod([self.sizes.get(t, None) or int(t) for t in dims]))
        indices = [self.r.randint(lo, hi) for _ in range(count)]
        name = self.int_param(dims, indices, dtype)
        idx = self.inputs[name].astype(np.int64)
        word = 'take' if self.r.random() < 0.7 else 'gather'
        axis_text = f', axis = {axis}' if axis or self.r.random() < 0.3 else ''
        shape = list(FULL[:axis]) + dims + list(FULL[axis + 1:])
        return V(f'{word}({a.text}, {name}{axis_text})',
                 np.take(a.value, idx, axis=axis), a.dtype, tuple(shape))

    # --- erase ----------------------------------------------------------------

    def erase_root(self):
        a = self.tensor(self.full_operand())
        axes = self.draw_axes()
        k, R, N = len(axes), self.r.randint(1, 3), self.sizes['N']
        anchors = np.array([[self.r.randint(-2, self.size(ax))
                             for _ in range(R) for ax in axes]
                            for _ in range(N)])
        per_box = self.r.random() < 0.5
        boxes = R if per_box else 1
        sizes = np.array([[self.r.randint(-1, self.size(ax) + 1)
                           for _ in range(boxes) for ax in axes]
                          for _ in range(N)])
        if self.r.random() < 0.5:
            anchors[:] = anchors[0]
            anchor_text = f'[{", ".join(map(str, anchors[0]))}]'
        else:
            anchor_text = self.int_param(['N', str(R * k)], anchors)
        if self.r.random() < 0.5:
            sizes[:] = sizes[0]
            shape_text = f'[{", ".join(map(str, sizes[0]))}]'
        else:
            shape_text = self.int_param(['N', str(boxes * k)], sizes)
        d = a.dtype
        fill_text = ''
        fills = np.zeros(N, NP[d])
        choice = self.r.random()
        if choice < 0.4:
            lo, hi = irange('u8' if d == 'bool' else d) if not is_float(d) \
                else (-1000, 1000)
            f = self.r.choice([v for v in [0, 1, 7, -3, 255, 2.5]
                               if (is_float(d) or float(v).is_integer())
                               and lo <= v <= hi])
            fill_text = f', fill = {f!r}'
            fills[:] = convert(np.float64(f), 'f64', d)
        elif choice < 0.7:
            fd = self.r.choice(['f32', 'i32', 'u8'])
            values = self.random_array(fd, ('N',))
            name = self.new_param(f'{fd}[N]')
            self.inputs[name] = values
            fill_text = f', fill = {name}'
            fills = convert(values, fd, d)
        x = a.value.copy()
        for n in range(N):
            for r in range(R):
                region = [slice(None)] * 2
                for j, ax in enumerate(axes):
                    start = int(anchors[n][r * k + j])
                    size = int(sizes[n][(r if per_box else 0) * k + j])
                    lo = min(max(start, 0), self.size(ax))
                    hi = min(max(start + size, lo), self.size(ax))
                    region[ax - 1] = slice(lo, hi)
                x[n][tuple(region)] = fills[n]
        return V(f'erase({a.text}, anchor = {anchor_text}, shape = '
                 f'{shape_text}, axes = [{", ".join(map(str, axes))}]'
                 f'{fill_text})', x, d, a.shape)

    # --- iota, zeros, ones, full ----------------------------------------------

    def constant_root(self):
        dims = [d for d in FULL if self.r.random() < 0.8] or ['W']
        shape = [self.sizes[d] for d in dims]
        kind = self.r.choice(['iota', 'zeros', 'ones', 'full'])
        dims_text = f'[{", ".join(dims)}]'
        if kind == 'iota':
            d = self.r.choice(INTS + FLOATS)
            axis = self.r.randrange(len(dims))
            shown = axis - len(dims) if self.r.random() < 0.5 else axis
            value = np.indices(shape)[axis]
            axis_text = '' if axis == len(dims) - 1 and \
                self.r.random() < 0.5 else f', axis = {shown}'
            dtype_text = '' if d == 'i32' and self.r.random() < 0.5 \
                else f', dtype = {d}'
            text = f'iota({dims_text}{axis_text}{dtype_text})'
        elif kind in ('zeros', 'ones'):
            d = self.r.choice(list(NP))
            value = np.full(shape, 0 if kind == 'zeros' else 1)
            text = (f'{kind}({d}, {dims_text})' if self.r.random() < 0.5
                    else f'{kind}({dims_text}, dtype = {d})')
        else:
            d = self.r.choice(list(NP))
            if d == 'bool':
                raise Invalid
            lo, hi = irange(d) if not is_float(d) else (-1e4, 1e4)
            f = self.r.choice([v for v in [0, 3, -2, 100, 1.5]
                               if (is_float(d) or float(v).is_integer())
                               and lo <= v <= hi])
            value = np.full(shape, f)
            text = f'full({dims_text}, {f!r}, dtype = {d})'
        return V(text, convert(value, 'f64', d), d, tuple(dims))

    # --- gaussian_blur --------------------------------------------------------

    def blur_root(self):
        d = self.r.choice(['u8', 'i16', 'f32', 'f16', 'f64', 'u16'])
        a = self.param(d, FULL)
        N = self.sizes['N']
        axes = self.draw_axes()
        border = self.r.choice(['reflect101', 'clamp', 'constant', 'wrap'])
        windows = sigmas = None
        parts = []
        form = self.r.choice(['window', 'sigma', 'both', 'window-tensor',
                              'sigma-tensor'])
        if form in ('window', 'both'):
            windows = [self.r.choice([1, 3, 5, 7, 9, 15])] * N
            parts.append(f'window = {windows[0]}')
        if form == 'window-tensor':
            windows = [self.r.choice([1, 3, 5, 7, 11]) for _ in range(N)]
            parts.append(f'window = {self.int_param(["N"], windows)}')
        if form in ('sigma', 'both'):
            sigmas = [self.r.choice([0.5, 1.0, 1.5, 2.5])] * N
            parts.append(f'sigma = {sigmas[0]!r}')
        if form == 'sigma-tensor':
            sigmas = [self.r.choice([0.5, 0.8, 1.0, 2.0]) for _ in range(N)]
            name = self.new_param('f32[N]')
            self.inputs[name] = np.array(sigmas, np.float32)
            parts.append(f'sigma = {name}')
        fill = 0.0
        if border != 'reflect101' or self.r.random() < 0.3:
            parts.append(f'border = {border}')
        if border == 'constant' and self.r.random() < 0.5:
            fill = self.r.choice([0.0, 7.0, 100.5])
            parts.append(f'fill = {fill!r}')
        out = d
        if self.r.random() < 0.4:
            out = self.r.choice(['f32', 'u8', 'i32', 'f16'])
            parts.append(f'dtype = {out}')
        parts.append(f'axes = [{", ".join(map(str, axes))}]')

        def weights_of(n):
            return blur_weights(windows[n] if windows else None,
                                float(np.float32(sigmas[n])) if sigmas
                                else None)
        x = a.value.astype(np.float32)
        bound = np.abs(x.astype(np.float64))
        for ax in reversed(axes):
            x = blur_axis(x, ax, weights_of, border, fill)
            bound = blur_axis(bound.astype(np.float32), ax, weights_of,
                              border, abs(fill)).astype(np.float64)
        value = convert(x, 'f32', out)
        # The tolerance, per element: a few f32 ulps of the sum of |w x| (the
        # f64 sums of f32 products here may round where an f32 fma does
        # not); an integer result only where that reaches a half.
        slack = 64 * float(np.finfo(np.float32).eps) * bound
        if out == 'f16':
            slack = 2 * float(np.finfo(np.float16).eps) * bound + slack
        if not is_float(out):
            x64 = x.astype(np.float64)
            half = np.abs(x64 - np.floor(x64) - 0.5) <= slack
            slack = np.where(half, 1.0, 0.0)
        return V(f'gaussian_blur({a.text}, {", ".join(parts)})', value, out,
                 FULL, approx='blur', scale=slack)
