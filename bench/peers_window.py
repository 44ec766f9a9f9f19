"""Peers on the workloads of pipe_bench --window (bench/layout_bench.cpp),
u8[64, 512, 512, 3] images, timed in the same run on the GPU machine:

  box5     5x5 mean, reflect101 border: PyTorch reflect pad + avg_pool2d
           on the NCHW float image (eager, torch.compile); OpenCV's blur
           on the CPU, image by image.
  erode3   3x3 minimum: -max_pool2d(-x) with replicate padding (eager,
           torch.compile); OpenCV's erode on the CPU.
  median3, median5  replicate pad + unfold + median (eager,
           torch.compile); OpenCV's medianBlur on the CPU.
  sobel    3x3 horizontal Sobel to f32, reflect101: a depthwise conv2d
           (eager, torch.compile); OpenCV's filter2D on the CPU.
  box5_norm     box5 of f32(images) / 255, f32 out;
  box5_scaled   box5 of f32(images) * 0.5, f32 out;
  sobel_abs     u8(abs(sobel)), u8 out;
  erode3_mask   erode3 of images > 128, bool out;
  median3_crop  median3 of images[:, 8:-8, 8:-8, :]: windows over
           computed values (eager, torch.compile).

Each PyTorch peer takes and gives NHWC as Pipe does (the permutes
counted: they are what a user of NHWC images writes). Bytes: read once,
written once (u8 out, f32 for sobel).

Run there as: python3 bench/peers_window.py [--quick]   (JSON lines)
"""
import sys
import time

import torch
import torch.nn.functional as F

from peers_common import attempt, ms, record, record_copy

QUICK = "--quick" in sys.argv
dev = torch.device("cuda")
g = torch.Generator(device=dev)
g.manual_seed(1)
record_copy(dev)

N = 16 if QUICK else 64
images = torch.randint(0, 256, (N, 512, 512, 3), dtype=torch.uint8,
                       device=dev, generator=g)
nb = 2 * images.numel()


def nchw(x):
    return x.permute(0, 3, 1, 2).float()


def back(y):
    return y.round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1) \
        .contiguous()


def box5(x):
    return back(F.avg_pool2d(F.pad(nchw(x), (2, 2, 2, 2), mode='reflect'), 5,
                             stride=1))


def erode3(x):
    p = F.pad(nchw(x), (1, 1, 1, 1), mode='replicate')
    return back(-F.max_pool2d(-p, 3, stride=1))


def median(k):
    def f(x):
        r = k // 2
        p = F.pad(nchw(x), (r, r, r, r), mode='replicate')
        w = p.unfold(2, k, 1).unfold(3, k, 1)
        return back(w.reshape(*w.shape[:4], k * k).median(-1).values)
    return f


SOBEL = torch.tensor([[-1., 0., 1.], [-2., 0., 2.], [-1., 0., 1.]],
                     device=dev).expand(3, 1, 3, 3).contiguous()


def sobel(x):
    p = F.pad(nchw(x), (1, 1, 1, 1), mode='reflect')
    return F.conv2d(p, SOBEL, groups=3).permute(0, 2, 3, 1).contiguous()


def box5_norm(x):
    p = F.pad(nchw(x) / 255, (2, 2, 2, 2), mode='reflect')
    return F.avg_pool2d(p, 5, stride=1).permute(0, 2, 3, 1).contiguous()


def box5_scaled(x):
    p = F.pad(nchw(x) * 0.5, (2, 2, 2, 2), mode='reflect')
    return F.avg_pool2d(p, 5, stride=1).permute(0, 2, 3, 1).contiguous()


def sobel_abs(x):
    p = F.pad(nchw(x), (1, 1, 1, 1), mode='reflect')
    return F.conv2d(p, SOBEL, groups=3).abs().round().clamp(0, 255) \
        .to(torch.uint8).permute(0, 2, 3, 1).contiguous()


def erode3_mask(x):
    p = F.pad((nchw(x) > 128).float(), (1, 1, 1, 1), mode='replicate')
    return (-F.max_pool2d(-p, 3, stride=1) > 0.5).permute(0, 2, 3, 1) \
        .contiguous()


median3 = median(3)


def median3_crop(x):
    return median3(x[:, 8:-8, 8:-8, :])


CASES = [("box5", box5, nb), ("erode3", erode3, nb),
         ("median3", median3, nb), ("median5", median(5), nb),
         ("sobel", sobel, 5 * images.numel()),
         ("box5_norm", box5_norm, 5 * images.numel()),
         ("box5_scaled", box5_scaled, 5 * images.numel()),
         ("sobel_abs", sobel_abs, nb),
         ("erode3_mask", erode3_mask, nb),
         ("median3_crop", median3_crop, nb * 496 * 496 // (512 * 512))]
for case, fn, nbytes in CASES:
    attempt(case + " eager", lambda: record(
        case, "torch eager", ms(lambda: fn(images)), nbytes=nbytes))
    compiled = torch.compile(fn)
    attempt(case + " compile", lambda: record(
        case, "torch.compile", ms(lambda: compiled(images)), nbytes=nbytes))
    del compiled
    torch.cuda.empty_cache()


def opencv():
    import cv2
    import numpy as np
    host = images.cpu().numpy()
    sob = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    ops = {
        "box5": lambda im: cv2.blur(im, (5, 5)),
        "erode3": lambda im: cv2.erode(im, np.ones((3, 3), np.uint8)),
        "median3": lambda im: cv2.medianBlur(im, 3),
        "median5": lambda im: cv2.medianBlur(im, 5),
        "sobel": lambda im: cv2.filter2D(im, cv2.CV_32F, sob),
    }
    for case, _, nbytes in CASES:
        if case not in ops:
            continue
        op = ops[case]
        times = []
        for _ in range(3):
            t = time.perf_counter()
            for im in host:
                op(im)
            times.append((time.perf_counter() - t) * 1e3)
        record(case, f"OpenCV {cv2.__version__} CPU "
               f"({cv2.getNumThreads()} threads), image by image",
               sorted(times)[1], nbytes=nbytes)


attempt("opencv", opencv)
