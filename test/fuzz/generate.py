"""Generates random well-typed-or-not pipelines and checks that pipec never
crashes, that every kernel it generates compiles with NVRTC (--emit=ptx),
and that the CPU reference runs what compiles: elementwise expressions,
reductions that broadcast back, blurs, and if/for around them. Not part of CI (minutes).

  python3 test/fuzz/generate.py SEED COUNT [BUILD_DIR]

Failing programs are kept in a temporary directory, printed at the end."""
import os
import random
import subprocess
import sys
import tempfile

random.seed(int(sys.argv[1]))
N = int(sys.argv[2])
build = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(__file__), '..', '..', 'build')
PIPEC = os.path.abspath(os.path.join(build, 'tools', 'pipec', 'pipec'))
NPY = os.path.abspath(os.path.join(build, 'tools', 'pipe-npy', 'pipe-npy'))
os.chdir(tempfile.mkdtemp(prefix='pipe-fuzz-'))
dtypes = ['bool', 'u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f16', 'bf16', 'f32', 'f64']
shapes = [('[N, 3]', '5,3'), ('[3]', '3'), ('', ''), ('[N, 1]', '5,1')]
# The operators and elementwise functions the compiler knows (from the ODS
# records), so that a new op is fuzzed without an edit here.
language = [line.split() for line in
            subprocess.run([PIPEC, '--list-functions'], capture_output=True,
                           text=True, check=True).stdout.splitlines()]
binops = [w[1] for w in language if w[0] == 'operator' and w[2] == '2']
funcs1 = [w[1] for w in language if w[0] == 'elementwise' and w[2] == '1'] + dtypes
funcs2 = [w[1] for w in language if w[0] == 'elementwise' and w[2] == '2']
def expr(params, depth):
    r = random.random()
    if depth <= 0 or r < 0.25:
        c = random.random()
        if c < 0.6: return random.choice(params)
        if c < 0.8: return random.choice(['1', '2', '0', '255', '2.5', '-3', '1e-3', 'true'])
        return random.choice(['[1, 2, 3]', '[0.5, 1.5, 2.5]'])
    if r < 0.55: return f'({expr(params, depth-1)} {random.choice(binops)} {expr(params, depth-1)})'
    if r < 0.70: return f'{random.choice(funcs1)}({expr(params, depth-1)})'
    if r < 0.78: return f'{random.choice(funcs2)}({expr(params, depth-1)}, {expr(params, depth-1)})'
    if r < 0.84: return f'select({expr(params, depth-1)} > 0, {expr(params, depth-1)}, {expr(params, depth-1)})'
    if r < 0.86: return f'-{expr(params, depth-1)}'
    if r < 0.88: return f'clamp({expr(params, depth-1)}, 0, 10)'
    # Reductions that broadcast back to [N, 3], and blurs, which keep it.
    red = random.choice(['sum', 'mean', 'prod', 'min', 'max', 'any', 'all'])
    if r < 0.94:
        axes = random.choice(['axes = [1], keepdims = true', 'axes = [0], keepdims = true',
                              'axes = [-1], keepdims = true', ''])
        return f'{red}({expr(params, depth-1)}{", " + axes if axes else ""})'
    border = random.choice(['reflect101', 'clamp', 'wrap', 'constant, fill = 2'])
    param = random.choice(['window = 3', 'window = 7', 'sigma = 1.5', 'window = 5, sigma = 0.7'])
    return f'gaussian_blur({expr(params, depth-1)}, {param}, axes = [1], border = {border})'
stats = {'ok': 0, 'ok_with_reduce_or_blur': 0, 'error': 0, 'crash': 0, 'nvrtc_fail': 0, 'ref_fail': 0}
for it in range(N):
    params = []
    decls = []
    for k in range(random.randint(1, 3)):
        dt = random.choice(dtypes); sh, npysh = random.choice(shapes)
        decls.append((f'p{k}', dt, sh, npysh)); params.append(f'p{k}')
    if not any(d[2] == '[N, 3]' for d in decls):
        decls[0] = (decls[0][0], decls[0][1], '[N, 3]', '5,3')
    rdt = random.choice(dtypes)
    body = f'  y = {rdt}({expr(params, 3)})\n'
    # if and for around blurs and reductions: decided on the host or
    # predicated (pipe-host-control), with conditions from data or scalars.
    if random.random() < 0.4:
        cond = random.choice([f'sum(f32({expr(params, 1)})) > 0',
                              f'any({expr(params, 1)} > 1, axes = [1], keepdims = true)',
                              f'(mean(f32({expr(params, 1)})) > 0).cpu()', 'true'])
        inner = random.choice([f'gaussian_blur(y, window = 3, axes = [1])',
                               f'y + {expr(params, 2)}', f'max(y, axes = [1], keepdims = true)'])
        body += f'  if {cond} {{\n    y = {rdt}({inner})\n  }}\n'
    if random.random() < 0.4:
        bound = random.choice(['2', f'i32(mean(f32({expr(params, 1)})))', 'i32(sum(f32(y > 0)))'])
        inner = random.choice(['gaussian_blur(y, window = 2 * i + 3, axes = [1])',
                               f'y * 2 + {expr(params, 1)}', 'y - sum(y, axes = [1], keepdims = true)'])
        body += f'  for i in 0 .. {bound} max {random.randint(0, 4)} {{\n    y = {rdt}({inner})\n  }}\n'
    src = 'pipeline g(' + ', '.join(f'{n}: {dt}{sh}' for n, dt, sh, _ in decls) + f') -> (y: {rdt}[N, 3]) {{\n' + body + '}\n'
    open('g.pipe', 'w').write(src)
    p = subprocess.run([PIPEC, 'g.pipe', '--emit=ptx'], capture_output=True, text=True)
    if p.returncode < 0 or 'Stack dump' in p.stderr or 'LLVM ERROR' in p.stderr or 'internal error' in p.stderr:
        stats['crash'] += 1; os.rename('g.pipe', f'crash{it}.pipe'); print('CRASH', src, p.stderr[-800:]); continue
    if 'NVRTC failed' in p.stderr:
        stats['nvrtc_fail'] += 1; os.rename('g.pipe', f'nvrtc{it}.pipe'); print('NVRTC', src, p.stderr[-1500:]); continue
    if p.returncode != 0:
        stats['error'] += 1; continue
    stats['ok'] += 1
    if 'gaussian_blur' in src or any(k + '(' in src for k in ('sum', 'mean', 'prod', 'any', 'all')):
        stats['ok_with_reduce_or_blur'] += 1
    args = []
    for n, dt, sh, npysh in decls:
        if dt in ('bf16',):
            break
        subprocess.run([NPY, 'random', f'{n}.npy', dt, npysh, '--range', '-20,20'], check=True, capture_output=True)
        args.append(f'--input={n}={n}.npy')
    else:
        if rdt != 'bf16':
            q = subprocess.run([PIPEC, 'run', 'g.pipe', '--backend=reference', '--output=out'] + args, capture_output=True, text=True)
            if q.returncode != 0:
                stats['ref_fail'] += 1; os.rename('g.pipe', f'ref{it}.pipe'); print('REF', src, q.stderr[-800:])
print(stats, 'in', os.getcwd())
sys.exit(1 if stats['crash'] or stats['nvrtc_fail'] or stats['ref_fail'] else 0)
