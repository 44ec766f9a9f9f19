"""What the NumPy oracles share: random inputs of every dtype (special
values included), running a .pipe program through `pipec run` on a backend,
and comparing results bit for bit (NaNs equal, the sign of zero kept).

An oracle script takes PIPEC BACKEND [SEED], uses random/run/check, and
ends with finish(), which prints "N of N cases agree" and exits 1 on a
mismatch."""
import os
import subprocess
import sys
import tempfile

import numpy as np

PIPEC, BACKEND = sys.argv[1], sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = np.random.default_rng(SEED)
NP = {'u8': np.uint8, 'i8': np.int8, 'u16': np.uint16, 'i16': np.int16,
      'i32': np.int32, 'u32': np.uint32, 'i64': np.int64, 'u64': np.uint64,
      'f16': np.float16, 'f32': np.float32, 'f64': np.float64, 'bool': np.bool_}


def random(dtype, shape):
    t = NP[dtype]
    if t == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(t, np.floating):
        x = (rng.standard_normal(shape) * 100).astype(t)
        # Special values move like any other.
        flat = x.reshape(-1)
        if flat.size > 4:
            flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
        return x
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, shape, dtype=t, endpoint=True)


def run(source, inputs, expect_error=None, path=None, pipeline=None,
        options=()):
    """Runs the program `source` (or the file at `path`; its pipeline
    `pipeline` when it has several) on `inputs`, with pipec's `options`
    besides; returns {name: array} of its results, or with `expect_error`
    (exit code, error text)."""
    with tempfile.TemporaryDirectory() as d:
        if path is None:
            path = os.path.join(d, 'p.pipe')
            open(path, 'w').write(source)
        args = [PIPEC, 'run', path, '--backend=' + BACKEND, '--output', d]
        if pipeline:
            args.append('--pipeline=' + pipeline)
        args += list(options)
        for name, value in inputs.items():
            np.save(os.path.join(d, name + '.npy'), value)
            args += ['--input', f'{name}={os.path.join(d, name)}.npy']
        r = subprocess.run(args, capture_output=True, text=True)
        if expect_error is not None:
            return r.returncode, r.stderr
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        return {f[:-4]: np.load(os.path.join(d, f)) for f in os.listdir(d)
                if f.endswith('.npy') and f[:-4] not in inputs}


failures = []
cases = 0


def check(name, got, want, tol=0):
    global cases
    cases += 1
    want = np.asarray(want)
    ok = got.shape == want.shape and got.dtype == want.dtype
    if ok:
        if tol:
            ok = np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
        else:
            same = (got == want) | ((got != got) & (want != want))
            if np.issubdtype(got.dtype, np.floating):
                # -0.0 and 0.0 compare equal; their bits must too. (A NaN's
                # sign is not: IEEE 754 leaves it to the machine, and the
                # GPU's NaN is positive where x86's is negative.)
                same &= (np.signbit(got) == np.signbit(want)) | (want != want)
            ok = bool(np.all(same))
    if ok:
        print(f'ok      {name}')
        return
    print(f'MISMATCH {name} (seed {SEED}): got {got.dtype}{list(got.shape)}, '
          f'want {want.dtype}{list(want.shape)}')
    if got.shape == want.shape:
        same = (got == want) | ((got != got) & (want != want))
        if not tol and np.issubdtype(got.dtype, np.floating) and \
                got.dtype == want.dtype:
            same &= (np.signbit(got) == np.signbit(want)) | (want != want)
        bad = np.argwhere(~same)
        if len(bad):
            print(f'  {len(bad)} elements differ, first at {bad[0].tolist()}: '
                  f'{got[tuple(bad[0])]!r} vs {want[tuple(bad[0])]!r}')
    failures.append(name)


def expect_failure(name, code, err, text):
    """A run that must fail with `text` in its message."""
    global cases
    cases += 1
    if code != 0 and text in err:
        print(f'ok      {name}')
    else:
        print(f'MISMATCH {name}: exit {code}, {err}')
        failures.append(name)


def finish():
    print(f'{cases - len(failures)} of {cases} cases agree')
    sys.exit(1 if failures else 0)
