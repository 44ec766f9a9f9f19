"""resize with regions of interest, and random_resized_crop, against NumPy
(float64) models: an integer region resizes as torchvision's resized_crop
does (the crop, then PIL's antialiased resize of it), a fractional or
flipped one as docs/language.md defines it (resample_model.py), and
random_resized_crop's windows are torchvision's RandomResizedCrop
algorithm run on the Philox draws of docs/language.md (philox_model.py).
u8 within 1 of the model, floats within 1e-3; the windows themselves
exactly."""
from oracle import check, expect_failure, finish, rng, run
from resample_model import (crop_windows, near, resize_aa, resize_roi_aa,
                            resize_roi_linear, to)
import numpy as np


SOURCE = """
pipeline p(x: u8[N, H, W, 3], s: f32[N, 2], e: i32[N, 2]) -> (
    fixed: u8[N, 9, 11, 3], per: f32[N, 13, 7, 3], flip: u8[N, 10, 10, 3],
    frac: f32[N, 6, 8, 3], rel: u8[N, 12, 12, 3], lin: u8[N, 15, 9, 3],
    rrc: u8[N, 16, 16, 3], rrc2: f32[N, 7, 9, 3]) {
  fixed = resize(x, size = [9, 11], roi_start = [2, 3], roi_end = [H - 1, W - 2])
  per   = resize(x, size = [13, 7], roi_start = s, roi_end = e, dtype = f32)
  flip  = resize(x, size = [10, 10], roi_start = [1, W - 1], roi_end = [H, 0])
  frac  = resize(x, size = [6, 8], roi_start = [1.25, 0.5], roi_end = [7.75, 10.5], dtype = f32)
  rel   = resize(x, size = [12, 12], roi_start = [0.25, 0.5], roi_end = [1, 1], relative_roi = true)
  lin   = resize(x, size = [15, 9], roi_start = s, roi_end = e, antialias = false)
  rrc   = random_resized_crop(x, size = [16, 16])
  rrc2  = random_resized_crop(x, size = [7, 9], scale = [0.5, 0.9], ratio = [0.5, 2], dtype = f32, seed = 9)
}
"""

cases = 0
for n, h, w in [(2, 12, 14), (3, 37, 45), (4, 64, 57)]:
    for seed, run_number in [(0, 0), (123, 7)]:
        x = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
        # Whole-pixel regions per sample, each at least a pixel.
        s = np.stack([rng.integers(0, h // 2, n), rng.integers(0, w // 2, n)],
                     axis=1)
        e = np.stack([rng.integers(h // 2 + 1, h + 1, n),
                      rng.integers(w // 2 + 1, w + 1, n)], axis=1)
        got = run(SOURCE, {'x': x, 's': s.astype(np.float32),
                           'e': e.astype(np.int32)},
                  options=[f'--seed={seed}', f'--random-run={run_number}'])
        case = f'{n}x{h}x{w} seed {seed} run {run_number}'
        windows = crop_windows(n, h, w, 0, run_number, seed, (0.08, 1.0),
                               (3 / 4, 4 / 3))
        windows2 = crop_windows(n, h, w, 1, run_number, 9, (0.5, 0.9),
                                (0.5, 2.0))
        for i in range(n):
            img = x[i]
            # torchvision's resized_crop: the crop, then the resize.
            near(f'roi literal {case} [{i}]', got['fixed'][i],
                 to(resize_aa(img[2:h - 1, 3:w - 2], 9, 11), np.uint8))
            y0, x0 = s[i]
            y1, x1 = e[i]
            near(f'roi per sample {case} [{i}]', got['per'][i],
                 to(resize_aa(img[y0:y1, x0:x1], 13, 7), np.float32))
            near(f'roi flipped {case} [{i}]', got['flip'][i],
                 to(resize_aa(img[1:h, 0:w - 1], 10, 10)[:, ::-1], np.uint8))
            near(f'roi fractional {case} [{i}]', got['frac'][i],
                 to(resize_roi_aa(img, 6, 8, (1.25, 0.5, 7.75, 10.5)),
                    np.float32))
            near(f'roi relative {case} [{i}]', got['rel'][i],
                 to(resize_roi_aa(img, 12, 12, (0.25 * h, 0.5 * w, h, w)),
                    np.uint8))
            near(f'roi linear {case} [{i}]', got['lin'][i],
                 to(resize_roi_linear(img, 15, 9, (y0, x0, y1, x1)), np.uint8))
            t, l, b, r = windows[i]
            near(f'random_resized_crop {case} [{i}] window {windows[i]}',
                 got['rrc'][i], to(resize_aa(img[t:b, l:r], 16, 16), np.uint8))
            t, l, b, r = windows2[i]
            near(f'random_resized_crop scale ratio {case} [{i}] window '
                 f'{windows2[i]}', got['rrc2'][i],
                 to(resize_aa(img[t:b, l:r], 7, 9), np.float32))

# Regions from tensors are checked when the pipeline runs: a coordinate
# outside the image (or NaN) fails the run, naming the sample, its value
# and the bounds, and nothing is written.
CHECKED = """
pipeline p(x: u8[N, H, W, 3], s: f32[N, 2], e: f32[N, 2]) -> (y: u8[N, 5, 5, 3]) {
  y = resize(x, size = [5, 5], roi_start = s, roi_end = e)
}
"""
x = rng.integers(0, 256, (3, 20, 30, 3), dtype=np.uint8)
s = np.zeros((3, 2), np.float32)
e = np.tile(np.array([[20, 30]], np.float32), (3, 1))
for what, bad_s, bad_e, text in [
        ('x past W', None, [2, 1, 30.5],
         "roi_end's x of sample [2] is 30.5, outside the image's [0, 30]"),
        ('negative y', [1, 0, -0.25], None,
         "roi_start's y of sample [1] is -0.25, outside the image's [0, 20]"),
        ('NaN', [0, 1, np.nan], None,
         "roi_start's x of sample [0] is nan, outside the image's [0, 30]")]:
    s2, e2 = s.copy(), e.copy()
    if bad_s:
        s2[bad_s[0], bad_s[1]] = bad_s[2]
    if bad_e:
        e2[bad_e[0], bad_e[1]] = bad_e[2]
    code, err = run(CHECKED, {'x': x, 's': s2, 'e': e2}, expect_error=True)
    expect_failure(f'region outside the image: {what}', code, err,
                   text + '; nothing was written')
got = run(CHECKED, {'x': x, 's': s, 'e': e})
near('region the whole image, checked', got['y'][0],
     to(resize_aa(x[0], 5, 5), np.uint8))

# The model's windows keep torchvision's promises: inside the image, an
# aspect in the ratio range (to rounding), and areas distributed as the
# algorithm run on NumPy's own generator distributes them (tries rejected
# where the window does not fit make the mean ~0.44 here, not 0.54).
h, w = 48, 64
windows = crop_windows(2000, h, w, 0, 5, 11, (0.08, 1.0), (3 / 4, 4 / 3))
ok = all(0 <= t < b <= h and 0 <= l < r <= w for t, l, b, r in windows)
areas = np.array([(b - t) * (r - l) / (h * w) for t, l, b, r in windows])
aspects = np.array([(r - l) / (b - t) for t, l, b, r in windows])
check('model windows inside', np.asarray(ok), np.asarray(True))
check('model windows aspect', np.asarray(bool(
    (aspects > 0.7).all() and (aspects < 1.43).all())), np.asarray(True))
independent = []
for _ in range(20000):
    for _ in range(10):
        area = h * w * rng.uniform(0.08, 1.0)
        aspect = np.exp(rng.uniform(np.log(3 / 4), np.log(4 / 3)))
        cw, ch = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            independent.append(cw * ch / (h * w))
            break
    else:
        independent.append(1.0)
check(f'model windows area: mean {areas.mean():.3f}, torchvision\'s '
      f'{np.mean(independent):.3f}; std {areas.std():.3f}, '
      f'{np.std(independent):.3f}',
      np.asarray(bool(abs(areas.mean() - np.mean(independent)) < 0.02 and
                      abs(areas.std() - np.std(independent)) < 0.02)),
      np.asarray(True))

finish()
