"""Peers on the reduction and dynamic-blur workloads, timed on the GPU machine
in the same run as `pipe_bench --dynamic`: PyTorch eager and torch.compile,
CuPy and JAX (mask_ratio), the per-sample conv2d of ../shared/bench/peers.py
and OpenCV on 16 CPU threads (dyn_blur). Also checks Pipe's dyn_blur (run
through `pipec run`) against OpenCV's GaussianBlur with BORDER_REFLECT_101.

Run there as: python3 bench/peers_dynamic.py PIPEC [--quick]   (JSON lines)
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

from peers_common import cold, ms, record

PIPEC = sys.argv[1]
QUICK = "--quick" in sys.argv
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
dev = torch.device("cuda")


def masks_with(n, h, w, lo, hi):
    density = torch.linspace(lo, hi, n, device=dev)[:, None, None]
    return (torch.rand(n, h, w, device=dev) < density).to(torch.uint8) * 255


# --- mask_ratio: mean(f32(m > 0), axes = [1, 2]) ----------------------------
def ratio(v):
    return (v > 0).float().mean(dim=(1, 2))


cratio = torch.compile(ratio)
for n, case in (((16 if QUICK else 64), "mask_ratio"), (1024, "mask_ratio_1GiB")):
    m = masks_with(n, 1024, 1024, 0.05, 0.95)
    nb = m.numel()
    record(case, "torch eager", ms(lambda: ratio(m)), nbytes=nb)
    if case == "mask_ratio":
        record(case, "torch.compile cold compile", cold(lambda: cratio(m)))
    record(case, "torch.compile", ms(lambda: cratio(m)), nbytes=nb)
    try:
        import cupy as cp
        cm = cp.from_dlpack(m)
        record(case, "cupy", ms(lambda: (cm > 0).mean(axis=(1, 2), dtype=cp.float32)), nbytes=nb)
    except Exception as e:  # noqa: BLE001
        print("cupy failed:", e, flush=True)
    try:
        import jax
        import jax.numpy as jnp
        jm = jax.dlpack.from_dlpack(m)
        jr = jax.jit(lambda v: jnp.mean((v > 0).astype(jnp.float32), axis=(1, 2)))
        record(case, "jax.jit", ms(lambda: jr(jm).block_until_ready()), nbytes=nb)
    except Exception as e:  # noqa: BLE001
        print("jax failed:", e, flush=True)
    del m


# --- every layout class of a reduction, f32 over 256 MiB ---------------------
for case, shape, dims in (("reduce_rows", (1 << 24, 4), (1,)), ("reduce_outer", (8192, 8192), (0,)),
                          ("reduce_middle", (64, 1024, 1024), (1,)), ("reduce_all", (1 << 26,), (0,))):
    x = torch.rand(shape, device=dev)
    if case == "reduce_middle":
        def f(v, d=dims):
            return v.mean(dim=d)
    else:
        def f(v, d=dims):
            return v.sum(dim=d)
    nb = x.numel() * 4
    record(case, "torch eager", ms(lambda: f(x)), nbytes=nb)
    cf = torch.compile(f)
    record(case, "torch.compile", ms(lambda: cf(x)), nbytes=nb)
    del x


# --- dyn_blur: the seeds' pipeline -------------------------------------------
def gauss1d(w):
    r = (w - 1) // 2
    sigma = (r - 1) * 0.3 + 0.8
    k = torch.exp(-0.5 * (torch.arange(-r, r + 1, device=dev, dtype=torch.float32) / sigma) ** 2)
    return k / k.sum()


def dyn_blur(ms_):
    r = (ms_ > 0).float().mean(dim=(1, 2))
    sizes = (16 + r.cpu() * 300).int() | 1  # control values go to the host
    out = torch.empty_like(ms_)
    for i, w in enumerate(sizes.tolist()):
        k = gauss1d(w)
        p = (w - 1) // 2
        s = ms_[i].float()[None, None]
        s = torch.nn.functional.pad(s, (p, p, 0, 0), mode="reflect")
        s = torch.nn.functional.conv2d(s, k.view(1, 1, 1, -1))
        s = torch.nn.functional.pad(s, (0, 0, p, p), mode="reflect")
        s = torch.nn.functional.conv2d(s, k.view(1, 1, -1, 1))
        out[i] = s[0, 0].round().clamp(0, 255).to(torch.uint8)
    return out, sizes


for n, case in ((1, "dyn_blur_1"), ((4 if QUICK else 16), "dyn_blur"), ((16 if QUICK else 256), "dyn_blur_256")):
    masks = masks_with(n, 1024, 1024, 0.02, 0.3)
    out, sizes = dyn_blur(masks)
    rep = 3 if n > 16 else 10
    record(case, "torch eager (per-sample conv2d)", ms(lambda: dyn_blur(masks), warmup=2, rep=rep),
           nbytes=2 * masks.numel(), windows=[sizes[0].item(), sizes[-1].item()])
    if case != "dyn_blur":
        continue
    host = masks.cpu().numpy()
    # Pipe's window rule: i32() rounds half to even in f32 arithmetic, where
    # peers.py's .int() truncates; the comparison uses Pipe's windows.
    ratios = (host > 0).mean(axis=(1, 2)).astype(np.float32)
    pipe_windows = [int(np.rint(np.float32(16) + r * np.float32(300))) | 1 for r in ratios]
    try:
        import cv2

        def cv_blur(windows=None, exact=False):
            res = np.empty_like(host)
            r = (host > 0).mean(axis=(1, 2))
            for i in range(n):
                w = windows[i] if windows else int(16 + r[i] * 300) | 1
                sigma = ((w - 1) // 2 - 1) * 0.3 + 0.8
                if exact:  # OpenCV's float path, rounded half to even once
                    f = cv2.GaussianBlur(host[i].astype(np.float64), (w, w), sigma,
                                         borderType=cv2.BORDER_REFLECT_101)
                    res[i] = np.clip(np.rint(f), 0, 255).astype(np.uint8)
                else:  # u8 in, u8 out: OpenCV's fixed-point path
                    res[i] = cv2.GaussianBlur(host[i], (w, w), sigma,
                                              borderType=cv2.BORDER_REFLECT_101)
            return res

        cv2.setNumThreads(16)
        t = time.perf_counter()
        cv_blur()
        t = (time.perf_counter() - t) * 1e3
        record(case, "opencv cpu 16 threads", t, nbytes=2 * masks.numel())
        cvo = cv_blur(pipe_windows)
        cvf = cv_blur(pipe_windows, exact=True)
    except Exception as e:  # noqa: BLE001
        cvo = cvf = None
        print("opencv failed:", e, flush=True)
    # Pipe's result for the same masks, through pipec run.
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "masks.npy"), host)
        subprocess.run([PIPEC, "run", os.path.join(ROOT, "examples", "dynamic_blur.pipe"),
                        "--input", "masks=" + os.path.join(tmp, "masks.npy"),
                        "--output", tmp], check=True, stdout=subprocess.DEVNULL)
        pipe_out = np.load(os.path.join(tmp, "blurred.npy")).astype(int)
    check = {"windows_differing_from_peers_py": sum(
        int(a != b) for a, b in zip(pipe_windows, sizes.tolist()))}
    if cvo is not None:
        diff = np.abs(pipe_out - cvo.astype(int))
        check["maxdiff_vs_opencv"] = int(diff.max())
        check["fraction_differing_from_opencv"] = float((diff > 0).mean())
        diff = np.abs(pipe_out - cvf.astype(int))
        check["maxdiff_vs_opencv_f64"] = int(diff.max())
        check["fraction_differing_from_opencv_f64"] = float((diff > 0).mean())
        # OpenCV against itself: how far its u8 fixed-point path (weights
        # rounded to 1/256) is from its own float path on the same input.
        diff = np.abs(cvo.astype(int) - cvf.astype(int))
        check["opencv_u8_vs_its_f64_maxdiff"] = int(diff.max())
        check["opencv_u8_vs_its_f64_fraction_differing"] = float((diff > 0).mean())
    record(case, "pipe vs peers (u8 results)", 0, **check)
    del masks, out
