//===- PipeRandom.h - Counter-based random numbers --------------*- C++ -*-===//
//
// The random sources of the language (uniform, normal, coin_flip, randint),
// compiled twice like PipeScalar.h (after it): into every kernel, and into
// the CPU reference. Each value is a pure function of (seed, random run,
// stream, element index): Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11; the generator of cuRAND and of
// PyTorch's CUDA generator) keyed by the seed, over the counter
//   (index low 32 bits, index high 16 bits | stream << 16, run low, run high)
// where `stream` numbers the random op in its pipeline and `index` is the
// element's row-major index in the op's shape. No state is carried from
// element to element or from run to run, so the GPU, whatever its launch
// shape, and the reference give the same bits, and a run is replayed from
// its seed and run number.
//
// The distributions use only IEEE 754 double arithmetic, which both sides
// round alike (kernels are compiled without contraction, the reference
// with -ffp-contract=off): normal's logarithm and cosine are polynomials
// here, not the math libraries', so that normal too agrees bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPERANDOM_H
#define PIPE_CORE_PIPERANDOM_H

struct pipe_philox_block {
  pipe_u32 v[4];
};

PIPE_HD pipe_u32 pipe_mulhi32(pipe_u32 a, pipe_u32 b) {
  return (pipe_u32)(((pipe_u64)a * (pipe_u64)b) >> 32);
}

/// Philox4x32-10 of counter `c` under key `k` (Random123's philox4x32).
PIPE_HD pipe_philox_block pipe_philox4x32_10(pipe_philox_block c, pipe_u32 k0,
                                             pipe_u32 k1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    pipe_u32 hi0 = pipe_mulhi32(0xD2511F53u, c.v[0]);
    pipe_u32 lo0 = 0xD2511F53u * c.v[0];
    pipe_u32 hi1 = pipe_mulhi32(0xCD9E8D57u, c.v[2]);
    pipe_u32 lo1 = 0xCD9E8D57u * c.v[2];
    pipe_philox_block next;
    next.v[0] = hi1 ^ c.v[1] ^ k0;
    next.v[1] = lo1;
    next.v[2] = hi0 ^ c.v[3] ^ k1;
    next.v[3] = lo0;
    c = next;
  }
  return c;
}

/// The 128 random bits of element `index` of random op `stream`.
PIPE_HD pipe_philox_block pipe_random_bits(pipe_u64 seed, pipe_u64 run,
                                           pipe_u64 stream, pipe_i64 index) {
  pipe_u64 i = (pipe_u64)index;
  pipe_philox_block c;
  c.v[0] = (pipe_u32)i;
  c.v[1] = (pipe_u32)((i >> 32) & 0xFFFFu) | (pipe_u32)(stream << 16);
  c.v[2] = (pipe_u32)run;
  c.v[3] = (pipe_u32)(run >> 32);
  return pipe_philox4x32_10(c, (pipe_u32)seed, (pipe_u32)(seed >> 32));
}

/// A double in [0, 1): 53 random bits of words `a` (high) and `b`.
PIPE_HD double pipe_random_unit(pipe_u32 a, pipe_u32 b) {
  pipe_u64 bits = (((pipe_u64)a << 32) | b) >> 11;
  return (double)bits * (1.0 / 9007199254740992.0);
}

/// log(x) for x in (0, 1], by x = m 2^e with m in [sqrt(1/2), sqrt(2)) and
/// log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172: the series to
/// s^23 is within 1e-17 of it. The coefficients are constants (1 / k,
/// folded when compiled, alike on both sides): a division per term took
/// the GPU 1.8 ms for 2^26 normals on the H100.
PIPE_HD double pipe_random_log(double x) {
  pipe_u64 bits = pipe_double_bits(x);
  long long e = (long long)((bits >> 52) & 0x7FF) - 1023;
  double m = pipe_double_from_bits((bits & 0x000FFFFFFFFFFFFFull) |
                                   0x3FF0000000000000ull);
  if (e == -1023) { // subnormal: x < 2^-1022, which 53-bit units never give
    m = x * 4503599627370496.0; // 2^52
    bits = pipe_double_bits(m);
    e = (long long)((bits >> 52) & 0x7FF) - 1023 - 52;
    m = pipe_double_from_bits((bits & 0x000FFFFFFFFFFFFFull) |
                              0x3FF0000000000000ull);
  }
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    e += 1;
  }
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  const double inverse[12] = {1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17,
                              1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9,
                              1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};
  double series = inverse[0];
  for (int i = 1; i < 12; ++i)
    series = inverse[i] + s2 * series;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  return (double)e * ln2_hi + (2.0 * s * series + (double)e * ln2_lo);
}

/// cos(2 pi t) for t in [0, 1): the sine or cosine series of the angle
/// within its quarter turn, to x^22 and x^21 (within 1e-16), whichever
/// the quarter needs.
PIPE_HD double pipe_random_cos_turn(double t) {
  double q4 = t * 4.0;
  int quadrant = (int)q4; // 0..3
  double x = (q4 - (double)quadrant) * 1.5707963267948966; // [0, pi/2)
  double x2 = x * x;
  // 1 / (k (k - 1)), for k from 22 (cosine) or 21 (sine) down.
  const double cosine[11] = {1.0 / 462, 1.0 / 380, 1.0 / 306, 1.0 / 240,
                             1.0 / 182, 1.0 / 132, 1.0 / 90,  1.0 / 56,
                             1.0 / 30,  1.0 / 12,  1.0 / 2};
  const double sine[10] = {1.0 / 420, 1.0 / 342, 1.0 / 272, 1.0 / 210,
                           1.0 / 156, 1.0 / 110, 1.0 / 72,  1.0 / 42,
                           1.0 / 20,  1.0 / 6};
  double r = 1.0;
  if (quadrant == 0 || quadrant == 2) {
    for (int i = 0; i < 11; ++i)
      r = 1.0 - x2 * cosine[i] * r;
    return quadrant == 0 ? r : -r;
  }
  for (int i = 0; i < 10; ++i)
    r = 1.0 - x2 * sine[i] * r;
  r = x * r;
  return quadrant == 1 ? -r : r;
}

/// An integer in [0, range) from 64 random bits, as randint draws.
PIPE_HD pipe_u64 pipe_random_below(pipe_u32 a, pipe_u32 b, pipe_u64 range) {
  pipe_u64 bits = ((pipe_u64)a << 32) | b;
#if defined(__CUDA_ARCH__)
  return __umul64hi(bits, range);
#else
  return (pipe_u64)(((unsigned __int128)bits * (unsigned __int128)range) >> 64);
#endif
}

/// uniform: lo + u (hi - lo) for u in [0, 1), rounded to T (hi itself may
/// come out only by that rounding, as NumPy's uniform says).
template <typename T>
PIPE_HD T pipe_random_uniform(pipe_u64 seed, pipe_u64 run, pipe_u64 stream,
                              pipe_i64 index, double lo, double hi) {
  pipe_philox_block r = pipe_random_bits(seed, run, stream, index);
  double u = pipe_random_unit(r.v[0], r.v[1]);
  return pipe_cast<T>(lo + u * (hi - lo));
}

/// normal: mean + stddev z, z standard normal by Box and Muller's
/// sqrt(-2 log u1) cos(2 pi u2), u1 in (0, 1].
template <typename T>
PIPE_HD T pipe_random_normal(pipe_u64 seed, pipe_u64 run, pipe_u64 stream,
                             pipe_i64 index, double mean, double stddev) {
  pipe_philox_block r = pipe_random_bits(seed, run, stream, index);
  double u1 = 1.0 - pipe_random_unit(r.v[0], r.v[1]);
  double u2 = pipe_random_unit(r.v[2], r.v[3]);
  double z = pipe_sqrtf(-2.0 * pipe_random_log(u1)) * pipe_random_cos_turn(u2);
  return pipe_cast<T>(mean + stddev * z);
}

/// coin_flip: 1 (true) with probability p: u < p for u in [0, 1), so
/// p <= 0 (and NaN) never and p >= 1 always.
template <typename T>
PIPE_HD T pipe_random_coin_flip(pipe_u64 seed, pipe_u64 run, pipe_u64 stream,
                                pipe_i64 index, double p) {
  pipe_philox_block r = pipe_random_bits(seed, run, stream, index);
  double u = pipe_random_unit(r.v[0], r.v[1]);
  return pipe_cast<T>(pipe_make_bool(u < p));
}

/// randint: an integer in [lo, hi), each with probability 1 / (hi - lo)
/// to within (hi - lo) / 2^64: lo + the high 64 bits of 64 random bits
/// times hi - lo. lo where hi <= lo. The bounds are an i64's bits, a
/// u64's when T is u64 (pipe.random takes u64 bounds for a u64 draw).
template <typename T>
PIPE_HD T pipe_random_randint(pipe_u64 seed, pipe_u64 run, pipe_u64 stream,
                              pipe_i64 index, pipe_i64 lo, pipe_i64 hi) {
  constexpr bool u64 = pipe_traits<T>::is_int && sizeof(T) == 8 &&
                       !pipe_traits<T>::is_signed;
  if (u64 ? (pipe_u64)hi <= (pipe_u64)lo : hi <= lo) {
    if constexpr (u64)
      return pipe_cast<T>((pipe_u64)lo);
    else
      return pipe_cast<T>(lo);
  }
  pipe_philox_block r = pipe_random_bits(seed, run, stream, index);
  pipe_u64 offset =
      pipe_random_below(r.v[0], r.v[1], (pipe_u64)hi - (pipe_u64)lo);
  pipe_u64 value = (pipe_u64)lo + offset;
  if constexpr (u64)
    return pipe_cast<T>(value);
  else
    return pipe_cast<T>((pipe_i64)value);
}

/// exp(x) by x = k ln 2 + r, |r| <= ln 2 / 2, and the series of exp(r) to
/// r^14 (within 1e-17 of it), times 2^k: alike on both sides, as the
/// logarithm above is (subnormal results may round twice).
PIPE_HD double pipe_random_exp(double x) {
  if (!(x == x))
    return x;
  if (x > 709.8)
    return pipe_double_from_bits(0x7FF0000000000000ull); // +inf
  if (x < -745.2)
    return 0.0;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  double k = pipe_rint(x * 1.4426950408889634);
  double r = (x - k * ln2_hi) - k * ln2_lo;
  // 1 / i!, for i from 14 down to 1.
  const double inverse[14] = {
      1.0 / 87178291200.0, 1.0 / 6227020800.0, 1.0 / 479001600.0,
      1.0 / 39916800.0,    1.0 / 3628800.0,    1.0 / 362880.0,
      1.0 / 40320.0,       1.0 / 5040.0,       1.0 / 720.0,
      1.0 / 120.0,         1.0 / 24.0,         1.0 / 6.0,
      1.0 / 2.0,           1.0};
  double series = inverse[0];
  for (int i = 1; i < 14; ++i)
    series = inverse[i] + r * series;
  double e = 1.0 + r * series;
  // Times 2^k, built from its bits in two steps at the ends of the range
  // (k from -1075 to 1024).
  long long n = (long long)k;
  if (n > 1023) {
    e = e * 2.0;
    n -= 1;
  } else if (n < -1022) {
    e = e * 0x1p-60;
    n += 60;
  }
  return e * pipe_double_from_bits((pipe_u64)(n + 1023) << 52);
}

/// random_resized_crop's window: element `index` of a [samples..., 4]
/// draw is coordinate index % 4 of (top, left, bottom, right) of sample
/// index / 4's window in an image of h x w, by torchvision's
/// RandomResizedCrop: up to ten tries of an area `scale` of the image's
/// and an aspect (width / height) log-uniform in `ratio`, rounded to
/// whole pixels (half to even) and kept when it fits, then a place drawn
/// for it; else the whole image cut to the nearest aspect in `ratio`,
/// centred. Try t of a sample draws from counter index 16 sample + t, its
/// place from 16 sample + 10.
template <typename T>
PIPE_HD T pipe_random_resized_crop(pipe_u64 seed, pipe_u64 run,
                                   pipe_u64 stream, pipe_i64 index, double h,
                                   double w, double scale_lo, double scale_hi,
                                   double ratio_lo, double ratio_hi) {
  pipe_i64 sample = index >> 2;
  int which = (int)(index & 3);
  double log_lo = pipe_random_log(ratio_lo), log_hi = pipe_random_log(ratio_hi);
  double area = h * w, ch = 0.0, cw = 0.0, top = 0.0, left = 0.0;
  bool found = false;
  for (int attempt = 0; attempt < 10 && !found; ++attempt) {
    pipe_philox_block r =
        pipe_random_bits(seed, run, stream, sample * 16 + attempt);
    double target =
        area * (scale_lo + pipe_random_unit(r.v[0], r.v[1]) * (scale_hi - scale_lo));
    double aspect = pipe_random_exp(
        log_lo + pipe_random_unit(r.v[2], r.v[3]) * (log_hi - log_lo));
    cw = pipe_rint(pipe_sqrtf(target * aspect));
    ch = pipe_rint(pipe_sqrtf(target / aspect));
    found = cw > 0.0 && cw <= w && ch > 0.0 && ch <= h;
  }
  if (found) {
    pipe_philox_block r = pipe_random_bits(seed, run, stream, sample * 16 + 10);
    top = (double)pipe_random_below(r.v[0], r.v[1], (pipe_u64)(h - ch + 1.0));
    left = (double)pipe_random_below(r.v[2], r.v[3], (pipe_u64)(w - cw + 1.0));
  } else {
    double in_ratio = w / h;
    cw = w;
    ch = h;
    if (in_ratio < ratio_lo)
      ch = pipe_rint(cw / ratio_lo);
    else if (in_ratio > ratio_hi)
      cw = pipe_rint(ch * ratio_hi);
    top = pipe_floorf((h - ch) * 0.5);
    left = pipe_floorf((w - cw) * 0.5);
  }
  double value = which == 0 ? top : which == 1 ? left : which == 2 ? top + ch
                                                                  : left + cw;
  return pipe_cast<T>(value);
}

#endif // PIPE_CORE_PIPERANDOM_H
