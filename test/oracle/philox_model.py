"""Philox4x32-10 in NumPy, written from Salmon et al. (SC'11) and
docs/language.md's counter layout: (index low 32 bits, index high 16 bits
| stream << 16, run low, run high), keyed by the seed."""
import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = np.uint64(0xFFFFFFFF)


def philox(index, stream, run_number, seed):
    """The four 32-bit words (as uint64 arrays) of each element's block."""
    index = np.asarray(index, dtype=np.uint64)
    c0 = index & MASK
    c1 = ((index >> np.uint64(32)) & np.uint64(0xFFFF)) | np.uint64(stream << 16)
    c2 = np.full_like(c0, run_number & 0xFFFFFFFF)
    c3 = np.full_like(c0, run_number >> 32)
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for r in range(10):
        if r:
            k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0),
                          p1 & MASK,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1),
                          p0 & MASK)
    return c0, c1, c2, c3


def unit(a, b):
    """A float64 in [0, 1) from the 53 high bits of words a (high) and b."""
    return (((a << np.uint64(32)) | b) >> np.uint64(11)).astype(
        np.float64) * 2.0 ** -53
