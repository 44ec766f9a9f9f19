"""Peers on the elementwise workloads, timed on the GPU machine in the same
run as pipe_bench: PyTorch eager, torch.compile, CuPy and JAX. Adapted from
../shared/bench/peers.py (same workloads and timing: triton's do_bench,
median), plus the small sizes, where host overhead per call dominates.

Run there as: python3 bench/peers_elementwise.py [--quick]   (JSON lines)
"""
import sys
import time

import torch

from peers_common import cold, ms, record

QUICK = "--quick" in sys.argv
dev = torch.device("cuda")


def wall_us(fn, reps=200):
    """Median wall-clock microseconds of one synchronized call."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e6)
    times.sort()
    return times[len(times) // 2]


n = 1 << 28
x = torch.rand(n, device=dev)
y = torch.empty_like(x)
record("copy", "torch.copy_", ms(lambda: y.copy_(x)), nbytes=2 * 4 * n)
del y


def chain(v):
    return ((v * 1.5 + 0.25).clamp(0, 1) * 255).round().to(torch.uint8)


cchain = torch.compile(chain)
for size, case in ((n, "ew_chain"), (224 * 224 * 3, "ew_chain_small")):
    v = x[:size].clone()
    nb = 5 * size
    small = size < n
    extra = (lambda f: {"wall_us_per_run": round(wall_us(lambda: f(v)), 1)}) if small else (lambda f: {})
    record(case, "torch eager", ms(lambda: chain(v)), nbytes=nb, **extra(chain))
    if not small:
        record(case, "torch.compile cold compile", cold(lambda: cchain(v)))
    record(case, "torch.compile", ms(lambda: cchain(v)), nbytes=nb, **extra(cchain))
    try:
        import cupy as cp
        cv = cp.from_dlpack(v)

        @cp.fuse()
        def cfuse(u):
            return cp.rint(cp.clip(u * 1.5 + 0.25, 0, 1) * 255).astype(cp.uint8)

        if not small:
            record(case, "cupy.fuse cold compile", cold(lambda: cfuse(cv)))
        record(case, "cupy.fuse", ms(lambda: cfuse(cv)), nbytes=nb, **extra(lambda _: cfuse(cv)))
        ek = cp.ElementwiseKernel(
            "float32 v", "uint8 o",
            "o = (unsigned char)rintf(fminf(fmaxf(v*1.5f+0.25f,0.f),1.f)*255.f)", "chain")
        record(case, "cupy ElementwiseKernel", ms(lambda: ek(cv)), nbytes=nb, **extra(lambda _: ek(cv)))
    except Exception as e:  # noqa: BLE001
        print("cupy failed:", e, flush=True)
    try:
        import jax
        import jax.numpy as jnp
        jv = jax.dlpack.from_dlpack(v)
        jf = jax.jit(lambda u: jnp.round(jnp.clip(u * 1.5 + 0.25, 0, 1) * 255).astype(jnp.uint8))
        if not small:
            record(case, "jax.jit cold compile", cold(lambda: jf(jv).block_until_ready()))
        record(case, "jax.jit", ms(lambda: jf(jv).block_until_ready()), nbytes=nb,
               **extra(lambda _: jf(jv).block_until_ready()))
    except Exception as e:  # noqa: BLE001
        print("jax failed:", e, flush=True)
del x

mean = torch.tensor([0.485, 0.456, 0.406], device=dev) * 255
std = torch.tensor([0.229, 0.224, 0.225], device=dev) * 255


def normalize(v):
    return ((v.float() - mean) / std).permute(0, 3, 1, 2).contiguous()


# A plain 2-D transpose, materialized.
S = 4096 if QUICK else 8192
tx = torch.rand(S, S, device=dev)
def transpose2d(v):
    return v.t().contiguous()
record("transpose2d", "torch eager", ms(lambda: transpose2d(tx)), nbytes=8 * S * S)
ct = torch.compile(transpose2d)
record("transpose2d", "torch.compile cold compile", cold(lambda: ct(tx)))
record("transpose2d", "torch.compile", ms(lambda: ct(tx)), nbytes=8 * S * S)
del tx

# From host memory to host memory (pageable, as a user's arrays are).
host_img = torch.randint(0, 256, (16, 512, 512, 3), dtype=torch.uint8)
record("normalize_host_io", "torch eager (.cuda() ... .cpu())",
       wall_us(lambda: normalize(host_img.cuda()).cpu(), reps=20) / 1000,
       nbytes=16 * 512 * 512 * 3 * 5)
del host_img

cnorm = torch.compile(normalize)
for (N, H, W, case) in (((16 if QUICK else 64), 512, 512, "normalize"), (1, 224, 224, "normalize_small")):
    img = torch.randint(0, 256, (N, H, W, 3), dtype=torch.uint8, device=dev)
    nb = N * H * W * 3 * (1 + 4)
    small = N == 1
    extra = (lambda f: {"wall_us_per_run": round(wall_us(lambda: f(img)), 1)}) if small else (lambda f: {})
    record(case, "torch eager", ms(lambda: normalize(img)), nbytes=nb, **extra(normalize))
    if not small:
        record(case, "torch.compile cold compile", cold(lambda: cnorm(img)))
    record(case, "torch.compile", ms(lambda: cnorm(img)), nbytes=nb, **extra(cnorm))
    try:
        import jax
        import jax.numpy as jnp
        jimg = jax.dlpack.from_dlpack(img)
        jm = jnp.asarray(mean.cpu().numpy())
        js = jnp.asarray(std.cpu().numpy())
        jn = jax.jit(lambda v: jnp.transpose((v.astype(jnp.float32) - jm) / js, (0, 3, 1, 2)))
        record(case, "jax.jit", ms(lambda: jn(jimg).block_until_ready()), nbytes=nb,
               **extra(lambda _: jn(jimg).block_until_ready()))
    except Exception as e:  # noqa: BLE001
        print("jax failed:", e, flush=True)
