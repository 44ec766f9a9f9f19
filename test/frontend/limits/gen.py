"""Writes the programs of limits.test: each nests one construct N deep.

  gen.py KIND N OUT.pipe"""
import sys

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
head = 'pipeline p(x: f32[N], k: i32) -> (y: f32[N]) {\n'
body = {
    'parens': '  y = ' + '(' * n + 'x' + ')' * n + '\n',
    'calls': '  y = ' + 'abs(' * n + 'x' + ')' * n + '\n',
    'chain': '  y = x' + ' + x' * n + '\n',
    'negations': '  y = ' + '-' * n + 'x' + '\n',
    'powers': '  y = ' + 'x ** ' * n + '1.0\n',
    'methods': '  y = x' + '.cpu()' * n + '\n',
    'subscripts': '  y = x' + '[:]' * n + '\n',
    'ifs': '  y = x\n' + 'if sum(x) > 0 {\n' * n + 'y = y + 1\n' + '}\n' * n,
    'loops': '  y = x\n' + ''.join(f'for i{d} in 0..k max 64 {{\n'
                                   for d in range(n)) + 'y = y + 1\n' +
             '}\n' * n,
    'emptyloops': '  y = x\n' + ''.join(f'for i{d} in 0..k max 64 {{\n'
                                        for d in range(n)) + '}\n' * n,
}.get(kind, '')
tail = '}\n'
if kind == 'params':  # N parameters on one line; y sums the first and last
    head = ('pipeline p(' + ', '.join(f'a{i}: f32[N]' for i in range(n)) +
            ') -> (y: f32[N]) {\n')
    body = f'  y = a0 + a{n - 1}\n'
if kind == 'dim':
    head = ('pipeline p(x: f32[N], k: i32) -> (y: f32[' + '(' * n + 'N' +
            ')' * n + ']) {\n')
    body = '  y = x\n'



def nested(depth, inner, wrap):
    for i in range(depth):
        inner = wrap(inner, i)
    return inner


# Sizes whose functions nest N deep: in a result's type (ceil), in the
# body (iota's shape), made by the ops (a chain of x[::2], each a ceil),
# and min and max in turn (whose CUDA once wrote each operand twice).
ceils = nested(n, 'N', lambda e, i: f'ceil({e} / 2)')
minmax = nested(n, 'N', lambda e, i: f'min({e}, K + {i})' if i % 2
                else f'max({e}, K - {i})')
if kind == 'dimfuncs':
    head = f'pipeline p(x: f32[N], k: i32) -> (y: i32[{ceils}]) {{\n'
    body = f'  y = iota([{ceils}])\n'
if kind == 'bodyfuncs':
    head = 'pipeline p(x: f32[N], k: i32) -> (y: i64) {\n'
    body = f'  y = sum(iota([{ceils}]))\n'
if kind == 'steps':
    head = 'pipeline p(x: f32[N], k: i32) -> (y: f32) {\n'
    body = '  a0 = x\n' + ''.join(f'  a{i} = a{i - 1}[::2]\n'
                                   for i in range(1, n + 1))
    body += f'  y = sum(a{n})\n'
if kind == 'flips':  # N statements, each flipping the last
    head = 'pipeline p(x: f32[N, W], k: i32) -> (y: f32[N, W]) {\n'
    body = '  a0 = x\n' + ''.join(f'  a{i} = a{i - 1}[:, ::-1]\n'
                                   for i in range(1, n + 1))
    body += f'  y = a{n}\n'
if kind == 'minmax':
    head = f'pipeline p(x: f32[N, K]) -> (y: i32[{minmax}]) {{\n'
    body = f'  y = iota([{minmax}])\n'
open(out, 'w').write(head + body + tail)
