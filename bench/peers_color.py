"""Peers on the workloads of pipe_bench --color (bench/layout_bench.cpp),
timed in the same run on the GPU machine:

  color_jitter  u8[N, 256, 256, 3] -> u8, brightness, contrast and
                saturation in [0.6, 1.4] and hue in [-0.1, 0.1] of a turn,
                drawn per image: torchvision.transforms.v2.ColorJitter as
                users write it (per image, CHW), the same on the whole
                batch at once (one draw for all: faster, but not per image),
                and DALI's color_twist (a 3x3 matrix per image) batched in
                PyTorch eager, torch.compile and JAX.
  noise         f32[64, 1024, 1024] + normal noise: torch.randn_like + add
                (eager, compiled), CuPy, JAX.

  rotate        u8[64, 512, 512, 3], an angle per image: affine_grid +
                grid_sample (bilinear, zeros), eager and torch.compile.
  resize        u8[64, 1024, 1024, 3] -> 512 x 512, antialiased:
                torch.nn.functional.interpolate(antialias=True) on the
                NCHW float image, and torchvision v2 resize per image;
                resize_cubic the same with interp = cubic against
                interpolate(mode='bicubic', antialias=True).

  train_aug     u8[256, 480, 640, 3] -> f32[256, 3, 224, 224], ImageNet
                training augmentation (RandomResizedCrop(224), flip p = 0.5,
                normalize, CHW): torchvision v2 as users write it (per
                image), the same on the whole batch (one window and one
                flip for all: faster, but not per image), and per-sample
                windows batched with torchvision.ops.roi_align (bilinear,
                2x2 samples per output pixel, no antialias) in eager.
  validation    the same images -> f32[256, 3, 224, 224], ImageNet
                evaluation (resize to 256 x 256 antialiased, centre crop
                224, normalize, CHW): torchvision v2 on the whole batch
                and per image, interpolate + slice + normalize in eager
                and torch.compile.

Run there as: python3 bench/peers_color.py [--quick]   (JSON lines)
"""
import math
import os
import sys

import torch

from peers_common import attempt, cold, ms, record, record_copy

QUICK = "--quick" in sys.argv
# PIPE_BENCH_CASES=resize,train_aug runs those cases alone, as pipe_bench
# does (train_aug also runs validation).
CASES = [c for c in os.environ.get("PIPE_BENCH_CASES", "").split(",") if c]


def wanted(case):
    return not CASES or case in CASES


dev = torch.device("cuda")
g = torch.Generator(device=dev)
g.manual_seed(1)


record_copy(dev)

# color_jitter
if wanted("color_jitter"):
    N = 32 if QUICK else 128
    images = torch.randint(0, 256, (N, 256, 256, 3), dtype=torch.uint8,
                           device=dev, generator=g)
    nb = 2 * images.numel()
    chw = images.permute(0, 3, 1, 2).contiguous()


    def torchvision_per_image():
        from torchvision.transforms import v2
        jitter = v2.ColorJitter(0.4, 0.4, 0.4, 0.1)
        return [jitter(chw[i]) for i in range(N)]


    def torchvision_batch():
        from torchvision.transforms import v2
        return v2.ColorJitter(0.4, 0.4, 0.4, 0.1)(chw)


    attempt("torchvision per image", lambda: record(
        "color_jitter", "torchvision v2 ColorJitter (per image, CHW)",
        ms(torchvision_per_image, warmup=2, rep=10), nbytes=nb))
    attempt("torchvision batch", lambda: record(
        "color_jitter", "torchvision v2 ColorJitter (whole batch, one draw)",
        ms(torchvision_batch), nbytes=nb))

    RGB2YIQ = torch.tensor([[.299, .587, .114], [.596, -.274, -.321],
                            [.211, -.523, .311]], device=dev)
    YIQ2RGB = torch.linalg.inv(RGB2YIQ)


    def twist(img):
        """DALI's color_twist with per-image parameters drawn on the GPU."""
        n = img.shape[0]
        b, c, s = (torch.empty(n, device=dev).uniform_(0.6, 1.4) for _ in range(3))
        h = torch.empty(n, device=dev).uniform_(-36, 36) * (math.pi / 180)
        cos, sin = torch.cos(h), torch.sin(h)
        hs = torch.zeros(n, 3, 3, device=dev)
        hs[:, 0, 0] = 1
        hs[:, 1, 1], hs[:, 2, 2] = s * cos, s * cos
        hs[:, 1, 2], hs[:, 2, 1] = s * sin, -s * sin
        m = (b * c)[:, None, None] * (YIQ2RGB @ hs @ RGB2YIQ)
        off = (128 - 128 * c) * b
        out = torch.einsum('nck,nhwk->nhwc', m, img.float()) + off[:, None, None, None]
        return out.round().clamp(0, 255).to(torch.uint8)


    record("color_jitter", "torch eager (color_twist, batched)",
           ms(lambda: twist(images)), nbytes=nb)
    ctwist = torch.compile(twist)
    attempt("torch.compile", lambda: (
        record("color_jitter", "torch.compile cold compile",
               cold(lambda: ctwist(images))),
        record("color_jitter", "torch.compile (color_twist, batched)",
               ms(lambda: ctwist(images)), nbytes=nb)))


    def run_jax_twist():
        import jax
        import jax.numpy as jnp
        jimg = jax.dlpack.from_dlpack(images)
        r2y = jnp.asarray(RGB2YIQ.cpu().numpy())
        y2r = jnp.asarray(YIQ2RGB.cpu().numpy())

        @jax.jit
        def f(img, key):
            n = img.shape[0]
            kb, kc, ks, kh = jax.random.split(key, 4)
            b = jax.random.uniform(kb, (n,), minval=0.6, maxval=1.4)
            c = jax.random.uniform(kc, (n,), minval=0.6, maxval=1.4)
            s = jax.random.uniform(ks, (n,), minval=0.6, maxval=1.4)
            h = jax.random.uniform(kh, (n,), minval=-36, maxval=36) * (jnp.pi / 180)
            z, o = jnp.zeros(n), jnp.ones(n)
            hs = jnp.stack([jnp.stack([o, z, z], -1),
                            jnp.stack([z, s * jnp.cos(h), s * jnp.sin(h)], -1),
                            jnp.stack([z, -s * jnp.sin(h), s * jnp.cos(h)], -1)], 1)
            m = (b * c)[:, None, None] * (y2r @ hs @ r2y)
            out = jnp.einsum('nck,nhwk->nhwc', m, img.astype(jnp.float32))
            out = out + ((128 - 128 * c) * b)[:, None, None, None]
            return jnp.clip(jnp.round(out), 0, 255).astype(jnp.uint8)

        key = jax.random.PRNGKey(0)
        record("color_jitter", "jax.jit (color_twist, batched)",
               ms(lambda: f(jimg, key).block_until_ready()), nbytes=nb)


    attempt("jax", run_jax_twist)
    del images, chw

# noise
if wanted("noise"):
    N = 16 if QUICK else 64
    x = torch.rand((N, 1024, 1024), device=dev, generator=g)
    nb = 2 * x.numel() * 4


    def noise(v):
        return v + 0.1 * torch.randn_like(v)


    record("noise", "torch eager (randn_like + add)", ms(lambda: noise(x)), nbytes=nb)
    cnoise = torch.compile(noise)
    attempt("torch.compile noise", lambda: record(
        "noise", "torch.compile", ms(lambda: cnoise(x)), nbytes=nb))


    def run_cupy_noise():
        import cupy
        cx = cupy.from_dlpack(x)
        rs = cupy.random.default_rng(0)
        record("noise", "cupy (standard_normal + add)",
               ms(lambda: cx + 0.1 * rs.standard_normal(cx.shape, dtype=cupy.float32)),
               nbytes=nb)


    attempt("cupy", run_cupy_noise)


    def run_jax_noise():
        import jax
        jx = jax.dlpack.from_dlpack(x)
        f = jax.jit(lambda v, k: v + 0.1 * jax.random.normal(k, v.shape))
        key = jax.random.PRNGKey(0)
        record("noise", "jax.jit (random.normal + add)",
               ms(lambda: f(jx, key).block_until_ready()), nbytes=nb)


    attempt("jax", run_jax_noise)

    del x

# rotate
if wanted("rotate"):
    N = 16 if QUICK else 64
    images = torch.randint(0, 256, (N, 512, 512, 3), dtype=torch.uint8,
                           device=dev, generator=g)
    angle = torch.rand((N,), device=dev, generator=g) * 20 - 10
    nb = 2 * images.numel()


    def rotate_torch(img, degrees):
        t = torch.deg2rad(degrees)
        c, s = torch.cos(t), torch.sin(t)
        theta = torch.stack([torch.stack([c, -s, torch.zeros_like(c)], -1),
                             torch.stack([s, c, torch.zeros_like(c)], -1)], 1)
        x = img.permute(0, 3, 1, 2).float()
        grid = torch.nn.functional.affine_grid(theta, x.shape, align_corners=False)
        y = torch.nn.functional.grid_sample(x, grid, mode='bilinear',
                                            padding_mode='zeros',
                                            align_corners=False)
        return y.round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).contiguous()


    record("rotate", "torch eager (affine_grid + grid_sample)",
           ms(lambda: rotate_torch(images, angle)), nbytes=nb)
    crot = torch.compile(rotate_torch)
    attempt("torch.compile rotate", lambda: record(
        "rotate", "torch.compile (affine_grid + grid_sample)",
        ms(lambda: crot(images, angle)), nbytes=nb))
    del images

# resize
if wanted("resize"):
    N = 16 if QUICK else 64
    images = torch.randint(0, 256, (N, 1024, 1024, 3), dtype=torch.uint8,
                           device=dev, generator=g)
    nb = 1.25 * images.numel()


    def resize_torch(img, mode='bilinear'):
        x = img.permute(0, 3, 1, 2).float()
        y = torch.nn.functional.interpolate(x, size=(512, 512), mode=mode,
                                            antialias=True, align_corners=False)
        return y.round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).contiguous()


    record("resize", "torch eager (interpolate antialias)",
           ms(lambda: resize_torch(images)), nbytes=nb)
    cres = torch.compile(resize_torch)
    attempt("torch.compile resize", lambda: record(
        "resize", "torch.compile (interpolate antialias)",
        ms(lambda: cres(images)), nbytes=nb))


    def resize_torchvision():
        from torchvision.transforms.v2 import functional as F
        chw = images.permute(0, 3, 1, 2)
        return [F.resize(chw[i], [512, 512], antialias=True) for i in range(N)]


    attempt("torchvision resize", lambda: record(
        "resize", "torchvision v2 resize (per image, uint8 CHW)",
        ms(resize_torchvision, warmup=2, rep=10), nbytes=nb))


    def resize_cubic_torch(img):
        return resize_torch(img, mode='bicubic')


    record("resize_cubic", "torch eager (interpolate bicubic antialias)",
           ms(lambda: resize_cubic_torch(images)), nbytes=nb)
    cresc = torch.compile(resize_cubic_torch)
    attempt("torch.compile resize cubic", lambda: record(
        "resize_cubic", "torch.compile (interpolate bicubic antialias)",
        ms(lambda: cresc(images)), nbytes=nb))
    del images

# train_aug
if wanted("train_aug"):
    N = 64 if QUICK else 256
    images = torch.randint(0, 256, (N, 480, 640, 3), dtype=torch.uint8,
                           device=dev, generator=g)
    # The bytes the work must touch, as pipe_bench counts them.
    nb = N * (0.433 * 480 * 640 * 3 + 3 * 224 * 224 * 4)
    MEAN = [0.485, 0.456, 0.406]
    STD = [0.229, 0.224, 0.225]


    def train_transform():
        from torchvision.transforms import v2
        return v2.Compose([v2.RandomResizedCrop(224, antialias=True),
                           v2.RandomHorizontalFlip(),
                           v2.ToDtype(torch.float32, scale=True),
                           v2.Normalize(MEAN, STD)])


    def train_per_image(t):
        chw = images.permute(0, 3, 1, 2)
        return torch.stack([t(chw[i]) for i in range(N)])


    def train_batch(t):
        return t(images.permute(0, 3, 1, 2))


    def run_torchvision_train():
        t = train_transform()
        record("train_aug", "torchvision v2 (per image, as users write it)",
               ms(lambda: train_per_image(t), warmup=2, rep=5), nbytes=nb)
        record("train_aug", "torchvision v2 (whole batch, one window for all)",
               ms(lambda: train_batch(t)), nbytes=nb)


    attempt("torchvision train", run_torchvision_train)

    mean = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1) * 255
    std = torch.tensor(STD, device=dev).view(1, 3, 1, 1) * 255


    def boxes_per_sample():
        """torchvision's RandomResizedCrop windows, drawn per sample on the
        GPU (ten tries in parallel, the first that fits)."""
        h, w = 480, 640
        area = h * w * torch.empty((N, 10), device=dev).uniform_(0.08, 1.0)
        logr = torch.empty((N, 10), device=dev).uniform_(math.log(3 / 4),
                                                         math.log(4 / 3))
        aspect = torch.exp(logr)
        cw = torch.sqrt(area * aspect).round()
        ch = torch.sqrt(area / aspect).round()
        fits = (cw > 0) & (cw <= w) & (ch > 0) & (ch <= h)
        first = torch.argmax(fits.int(), dim=1, keepdim=True)
        cw = torch.where(fits.any(1), cw.gather(1, first)[:, 0], float(w))
        ch = torch.where(fits.any(1), ch.gather(1, first)[:, 0], float(h))
        top = (torch.rand(N, device=dev) * (h - ch + 1)).floor()
        left = (torch.rand(N, device=dev) * (w - cw + 1)).floor()
        index = torch.arange(N, device=dev, dtype=torch.float32)
        return torch.stack([index, left, top, left + cw, top + ch], 1)


    def train_roi_align():
        from torchvision.ops import roi_align
        x = images.permute(0, 3, 1, 2).float()
        y = roi_align(x, boxes_per_sample(), output_size=224, spatial_scale=1.0,
                      sampling_ratio=2, aligned=True)
        flip = torch.rand(N, device=dev) < 0.5
        y = torch.where(flip.view(N, 1, 1, 1), y.flip(3), y)
        return (y - mean) / std


    attempt("roi_align train", lambda: record(
        "train_aug", "torch eager (per-sample windows, torchvision.ops.roi_align)",
        ms(train_roi_align), nbytes=nb))


    # validation (the same images)
    nb = N * (480 * 640 * 3 + 3 * 224 * 224 * 4)


    def validation_transform():
        from torchvision.transforms import v2
        return v2.Compose([v2.Resize((256, 256), antialias=True),
                           v2.CenterCrop(224),
                           v2.ToDtype(torch.float32, scale=True),
                           v2.Normalize(MEAN, STD)])


    def run_torchvision_validation():
        t = validation_transform()
        record("validation", "torchvision v2 (whole batch)",
               ms(lambda: train_batch(t)), nbytes=nb)
        record("validation", "torchvision v2 (per image, as users write it)",
               ms(lambda: train_per_image(t), warmup=2, rep=5), nbytes=nb)


    attempt("torchvision validation", run_torchvision_validation)


    def validation_torch(img):
        x = img.permute(0, 3, 1, 2).float()
        y = torch.nn.functional.interpolate(x, size=(256, 256), mode='bilinear',
                                            antialias=True, align_corners=False)
        y = y.round().clamp(0, 255)[:, :, 16:240, 16:240]
        return (y - mean) / std


    record("validation", "torch eager (interpolate, slice, normalize)",
           ms(lambda: validation_torch(images)), nbytes=nb)
    cval = torch.compile(validation_torch)
    attempt("torch.compile validation", lambda: record(
        "validation", "torch.compile (interpolate, slice, normalize)",
        ms(lambda: cval(images)), nbytes=nb))
