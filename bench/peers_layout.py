"""Peers on the layout workloads of pipe_bench --layout (bench/layout_bench.cpp),
timed on the GPU machine in the same run: PyTorch eager (batched, and the
per-sample torchvision v2 loop people write), torch.compile, CuPy and JAX,
on the same shapes and the same distribution of inputs.

Run there as: python3 bench/peers_layout.py [--quick]   (JSON lines)
"""
import sys

import torch

from peers_common import attempt, cold, ms, record, record_copy

QUICK = "--quick" in sys.argv
dev = torch.device("cuda")
g = torch.Generator(device=dev)
g.manual_seed(1)


record_copy(dev)

# crop_mirror_normalize: u8[N, 256, 256, 3] -> f32[N, 3, 224, 224].
N = 64 if QUICK else 256
S = 224
images = torch.randint(0, 256, (N, 256, 256, 3), dtype=torch.uint8, device=dev, generator=g)
anchor = torch.randint(0, 33, (N, 2), dtype=torch.int32, device=dev, generator=g)
mirror = torch.randint(0, 2, (N,), device=dev, generator=g).bool()
mean = torch.tensor([123.675, 116.28, 103.53], device=dev)
std = torch.tensor([58.395, 57.12, 57.375], device=dev)
nb = N * S * S * 3 * (1 + 4)
ar = torch.arange(S, device=dev)


def cmn_batched(img, a, m):
    """One gather of every sample's window (flipped columns where m)."""
    iy = a[:, 0:1].long() + ar                       # [N, S]
    ix = a[:, 1:2].long() + torch.where(m[:, None], S - 1 - ar, ar)
    nidx = torch.arange(img.shape[0], device=img.device)[:, None, None]
    win = img[nidx, iy[:, :, None], ix[:, None, :]]  # [N, S, S, 3]
    return ((win.float() - mean) / std).permute(0, 3, 1, 2).contiguous()


want = cmn_batched(images, anchor, mirror)
record("crop_mirror_normalize", "torch eager (batched gather)",
       ms(lambda: cmn_batched(images, anchor, mirror)), nbytes=nb)
ccmn = torch.compile(cmn_batched)
attempt("torch.compile", lambda: (
    record("crop_mirror_normalize", "torch.compile cold compile",
           cold(lambda: ccmn(images, anchor, mirror))),
    record("crop_mirror_normalize", "torch.compile",
           ms(lambda: ccmn(images, anchor, mirror)), nbytes=nb)))


def cmn_torchvision():
    """The per-sample loop of torchvision.transforms.v2.functional."""
    from torchvision.transforms.v2 import functional as F
    chw = images.permute(0, 3, 1, 2)
    ah = anchor.tolist()
    mh = mirror.tolist()
    out = []
    for i in range(N):
        t = F.crop(chw[i], ah[i][0], ah[i][1], S, S)
        if mh[i]:
            t = F.horizontal_flip(t)
        out.append(F.normalize(t.float(), mean.tolist(), std.tolist()))
    return torch.stack(out)


def run_torchvision():
    got = cmn_torchvision()
    assert torch.allclose(got, want, atol=1e-4), "torchvision disagrees"
    record("crop_mirror_normalize", "torchvision v2 (per-sample loop)",
           ms(cmn_torchvision, warmup=2, rep=20), nbytes=nb)


attempt("torchvision", run_torchvision)


def run_jax_cmn():
    import jax
    import jax.numpy as jnp
    jimg = jax.dlpack.from_dlpack(images)
    ja = jax.dlpack.from_dlpack(anchor)
    jm = jax.dlpack.from_dlpack(mirror.to(torch.uint8)).astype(bool)
    jmean, jstd = jnp.asarray(mean.cpu().numpy()), jnp.asarray(std.cpu().numpy())

    def one(img, a, m):
        win = jax.lax.dynamic_slice(img, (a[0], a[1], 0), (S, S, 3))
        win = jnp.where(m, win[:, ::-1], win)
        return jnp.transpose((win.astype(jnp.float32) - jmean) / jstd, (2, 0, 1))

    f = jax.jit(jax.vmap(one))
    record("crop_mirror_normalize", "jax.jit(vmap(dynamic_slice))",
           ms(lambda: f(jimg, ja, jm).block_until_ready()), nbytes=nb)


attempt("jax", run_jax_cmn)
del images, want

# erase: f32[64, 2, 1024, 1024], 4 regions of 128x128 per sample.
N = 16 if QUICK else 64
P = 128
m = torch.rand((N, 2, 1024, 1024), device=dev, generator=g)
ea = torch.randint(-64, 1024, (N, 4, 2), dtype=torch.int32, device=dev, generator=g)
fill = torch.rand((N,), device=dev, generator=g)
nb = 2 * m.numel() * 4
yy = torch.arange(1024, device=dev)


def erase_batched(v, a, f):
    """select(inside some region, fill, v), from per-region masks."""
    y0, x0 = a[..., 0].long()[:, :, None], a[..., 1].long()[:, :, None]
    rows = (yy >= y0) & (yy < y0 + P)                # [N, 4, H]
    cols = (yy >= x0) & (yy < x0 + P)                # [N, 4, W]
    inside = (rows[:, :, :, None] & cols[:, :, None, :]).any(1)  # [N, H, W]
    return torch.where(inside[:, None], f[:, None, None, None], v)


def erase_loop(v, a, f):
    """A clone, then one slice assignment per region (the eager idiom)."""
    out = v.clone()
    for i, regions in enumerate(a.tolist()):
        for y0, x0 in regions:
            out[i, :, max(y0, 0):max(y0 + P, 0), max(x0, 0):max(x0 + P, 0)] = f[i]
    return out


want = erase_batched(m, ea, fill)
assert torch.equal(erase_loop(m, ea, fill), want)
record("erase", "torch eager (batched masks)", ms(lambda: erase_batched(m, ea, fill)), nbytes=nb)
record("erase", "torch eager (clone + slice per region)",
       ms(lambda: erase_loop(m, ea, fill), warmup=2, rep=20), nbytes=nb)
cerase = torch.compile(erase_batched)
attempt("torch.compile", lambda: (
    record("erase", "torch.compile cold compile", cold(lambda: cerase(m, ea, fill))),
    record("erase", "torch.compile", ms(lambda: cerase(m, ea, fill)), nbytes=nb)))
del m, want

# concat: u8[64, 512, 512, 3] x 2 along the channels.
N = 16 if QUICK else 64
a = torch.randint(0, 256, (N, 512, 512, 3), dtype=torch.uint8, device=dev, generator=g)
b = torch.randint(0, 256, (N, 512, 512, 3), dtype=torch.uint8, device=dev, generator=g)
nb = 4 * a.numel()
record("concat", "torch eager (torch.cat)", ms(lambda: torch.cat([a, b], dim=3)), nbytes=nb)
ccat = torch.compile(lambda u, v: torch.cat([u, v], dim=3))
attempt("torch.compile", lambda: (
    record("concat", "torch.compile cold compile", cold(lambda: ccat(a, b))),
    record("concat", "torch.compile", ms(lambda: ccat(a, b)), nbytes=nb)))


def run_cupy_cat():
    import cupy as cp
    ca, cb = cp.from_dlpack(a), cp.from_dlpack(b)
    record("concat", "cupy.concatenate", ms(lambda: cp.concatenate([ca, cb], axis=3)), nbytes=nb)


def run_jax_cat():
    import jax
    import jax.numpy as jnp
    ja, jb = jax.dlpack.from_dlpack(a), jax.dlpack.from_dlpack(b)
    f = jax.jit(lambda u, v: jnp.concatenate([u, v], axis=3))
    record("concat", "jax.jit", ms(lambda: f(ja, jb).block_until_ready()), nbytes=nb)


attempt("cupy", run_cupy_cat)
attempt("jax", run_jax_cat)
del a, b

# pad32: u8[64, 1000, 1000, 3] -> u8[64, 1024, 1024, 3], zeros after.
N = 16 if QUICK else 64
x = torch.randint(0, 256, (N, 1000, 1000, 3), dtype=torch.uint8, device=dev, generator=g)
nb = x.numel() + N * 1024 * 1024 * 3
pad = (0, 0, 0, 24, 0, 24)
record("pad32", "torch eager (F.pad)", ms(lambda: torch.nn.functional.pad(x, pad)), nbytes=nb)
cpad = torch.compile(lambda v: torch.nn.functional.pad(v, pad))
attempt("torch.compile", lambda: (
    record("pad32", "torch.compile cold compile", cold(lambda: cpad(x))),
    record("pad32", "torch.compile", ms(lambda: cpad(x)), nbytes=nb)))


def run_cupy_pad():
    import cupy as cp
    cx = cp.from_dlpack(x)
    widths = ((0, 0), (0, 24), (0, 24), (0, 0))
    record("pad32", "cupy.pad", ms(lambda: cp.pad(cx, widths)), nbytes=nb)


def run_jax_pad():
    import jax
    import jax.numpy as jnp
    jx = jax.dlpack.from_dlpack(x)
    f = jax.jit(lambda v: jnp.pad(v, ((0, 0), (0, 24), (0, 24), (0, 0))))
    record("pad32", "jax.jit", ms(lambda: f(jx).block_until_ready()), nbytes=nb)


attempt("cupy", run_cupy_pad)
attempt("jax", run_jax_pad)
