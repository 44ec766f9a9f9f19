"""The example programs (examples/*.pipe) against NumPy: each is run as a
user runs it (pipec run FILE) on random inputs of odd sizes, and its
results compared with the NumPy expression of what docs/language.md says
it computes.

  examples_oracle.py PIPEC BACKEND [SEED]     BACKEND: reference or gpu
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
from oracle import check, random, rng, run  # noqa: E402
from philox_model import philox, unit  # noqa: E402
from resample_model import crop_windows, resize_aa  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                        'examples')


def example(name, inputs, pipeline=None, expect_error=None, options=()):
    """Runs examples/NAME.pipe (its pipeline `pipeline`) on `inputs`."""
    return run(None, inputs, expect_error=expect_error,
               path=os.path.join(EXAMPLES, name + '.pipe'), pipeline=pipeline,
               options=options)


MEAN = np.array([123.675, 116.28, 103.53], np.float32)
STD = np.array([58.395, 57.12, 57.375], np.float32)


def normalize_chw(c):
    return ((c.astype(np.float32) - MEAN) / STD).transpose(0, 3, 1, 2)


# mask_generation: zeros, one square per sample of its image's mean.
n, h, w = 4, 37, 45
images = random('u8', (n, h, w))
y = rng.integers(-10, h, n).astype(np.int32)
x = rng.integers(-10, w, n).astype(np.int32)
p = rng.integers(0, 20, n).astype(np.int32)
out = example('mask_generation', {'images': images, 'y': y, 'x': x, 'p': p})
want = np.zeros((n, 2, h, w), np.float32)
for i in range(n):
    brightness = np.float32(images[i].astype(np.float32).sum()) / np.float32(h * w)
    want[i, :, max(y[i], 0):max(y[i] + p[i], 0), max(x[i], 0):max(x[i] + p[i], 0)] = brightness
check('mask_generation', out['masks'], want)

# crop_mirror_normalize, f32 and f16 out.
n, h, w = 5, 231, 250
images = random('u8', (n, h, w, 3))
anchor = np.stack([rng.integers(0, h - 224 + 1, n), rng.integers(0, w - 224 + 1, n)],
                  axis=1).astype(np.int32)
anchor[0] = [0, 0]
anchor[1] = [h - 224, w - 224]
mirror = rng.random(n) < 0.5
inputs = {'images': images, 'anchor': anchor, 'mirror': mirror}
c = np.stack([images[i, a[0]:a[0] + 224, a[1]:a[1] + 224] for i, a in enumerate(anchor)])
c = np.where(mirror[:, None, None, None], c[:, :, ::-1], c)
want = normalize_chw(c)
out = example('crop_mirror_normalize', inputs, 'crop_mirror_normalize')
check('crop_mirror_normalize', out['out'], want)
out = example('crop_mirror_normalize', inputs, 'crop_mirror_normalize_f16')
check('crop_mirror_normalize_f16', out['out'], want.astype(np.float16))
bad = anchor.copy()
bad[3] = [h - 223, 0]
code, err = example('crop_mirror_normalize', dict(inputs, anchor=bad),
                    'crop_mirror_normalize', expect_error=True)
oracle.expect_failure('crop_mirror_normalize names a bad anchor', code, err,
                      f'the anchor along dim 1 of sample [3] is {h - 223}, '
                      f'outside [0, {h - 224}]; nothing was written')

# validation: the centre window.
n, h, w = 3, 256, 301
images = random('u8', (n, h, w, 3))
out = example('validation', {'images': images})
top, left = (h - 224) // 2, (w - 224) // 2
check('validation', out['out'], normalize_chw(images[:, top:top + 224, left:left + 224]))

# pad32: zeros after, to the next multiple of 32.
for h, w in ((37, 64), (32, 1), (65, 95)):
    images = random('u8', (2, h, w, 3))
    out = example('pad32', {'images': images})
    H, W = -(-h // 32) * 32, -(-w // 32) * 32
    check(f'pad32 {h}x{w}', out['padded'],
          np.pad(images, ((0, 0), (0, H - h), (0, W - w), (0, 0))))

# color_jitter: parameters drawn per image; a run replays from its seed and
# random run number, and the next run draws anew. In float64, the jitter
# keeps a gray image gray (saturation and hue move only I and Q; a gray
# pixel has none), so each pixel's channels stay within 1 of each other
# outside the erased box, and the box is 0.
n, h, w = 6, 41, 53
gray = rng.integers(0, 256, (n, h, w, 1), dtype=np.uint8).repeat(3, axis=3)
first = example('color_jitter', {'images': gray}, options=['--seed=5'])['out']
again = example('color_jitter', {'images': gray}, options=['--seed=5'])['out']
later = example('color_jitter', {'images': gray},
                options=['--seed=5', '--random-run=1'])['out']
check('color_jitter replays', again, first)
check('color_jitter draws anew', np.asarray(np.array_equal(first, later)),
      np.asarray(False))
spread = first.max(axis=3).astype(int) - first.min(axis=3).astype(int)
check('color_jitter keeps gray gray', np.asarray(int(spread.max()) <= 1),
      np.asarray(True))

# rotate_random: each image turned by its own angle in [-10, 10) about its
# centre; a run replays from its seed; the corners, outside the turned
# image for any angle but 0, are the fill.
n, h, w = 3, 64, 80
images = rng.integers(1, 256, (n, h, w, 3), dtype=np.uint8)
first = example('rotate_random', {'images': images}, options=['--seed=3'])
again = example('rotate_random', {'images': images}, options=['--seed=3'])
check('rotate_random replays', again['rotated'], first['rotated'])
corners = first['rotated'][:, [0, 0, -1, -1], [0, -1, 0, -1]]
check('rotate_random fills the corners', corners, np.zeros_like(corners))

# imagenet_train: torchvision's RandomResizedCrop windows (stream 0) on the
# documented draws, the crop resized with antialiasing to u8 (torchvision
# on a u8 tensor), mirrored where coin_flip (stream 1) says, normalized,
# CHW: within one u8 step of the model, i.e. 1 / 57.12 after the
# normalization; f16 within its rounding besides.
n, h, w = 3, 300, 257
images = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
for seed, run_number in [(1, 0), (77, 5)]:
    opts = [f'--seed={seed}', f'--random-run={run_number}']
    got = example('imagenet_train', {'images': images},
                  pipeline='imagenet_train', options=opts)
    got16 = example('imagenet_train', {'images': images},
                    pipeline='imagenet_train_f16', options=opts)
    windows = crop_windows(n, h, w, 0, run_number, seed, (0.08, 1.0),
                           (0.75, 4 / 3))
    r = philox(np.arange(n), 1, run_number, seed)
    mirror = unit(r[0], r[1]) < 0.5
    crops = []
    for i, (t, l, b, r_) in enumerate(windows):
        c = np.clip(np.rint(resize_aa(images[i, t:b, l:r_], 224, 224)), 0, 255)
        crops.append(c[:, ::-1] if mirror[i] else c)
    want = normalize_chw(np.stack(crops).astype(np.uint8))
    for name, out, tol in [('f32', got['out'], 0), ('f16', got16['out'], 4e-3)]:
        diff = float(np.max(np.abs(out.astype(np.float64) - want)))
        check(f'imagenet_train {name} seed {seed} run {run_number} '
              f'({mirror.sum()} of {n} mirrored): within one u8 step '
              f'({diff:.4f})',
              np.asarray(diff <= 1 / 57.12 + 1e-5 + tol * np.abs(want).max()),
              np.asarray(True))

oracle.finish()
