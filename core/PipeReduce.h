//===- PipeReduce.h - How reductions combine elements -----------*- C++ -*-===//
//
// One definition of each reduction's accumulator, identity, combination and
// final value, compiled into the reduction kernels (pasted after
// PipeScalar.h) and into the CPU reference. A kernel accumulates each
// thread's elements in `local` (f32 for the sums of f32 and narrower floats,
// as fast as the loads), widens to `acc` (f64 for floats, 64-bit integers,
// exact and wrapping) and combines threads, blocks and chunks in a fixed
// order, so a result depends only on the shape, never on the GPU or on
// timing. The reference combines in `acc` one element at a time.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPEREDUCE_H
#define PIPE_CORE_PIPEREDUCE_H

enum pipe_reduce_kind {
  PIPE_SUM,
  PIPE_MEAN,
  PIPE_PROD,
  PIPE_MIN,
  PIPE_MAX,
  PIPE_ANY,
  PIPE_ALL
};

/// The 64-bit integer a sum or product of T accumulates in: u64 for
/// unsigned integers, i64 for signed ones and bool.
template <typename T> struct pipe_wide_int { typedef pipe_i64 type; };
template <> struct pipe_wide_int<pipe_u8> { typedef pipe_u64 type; };
template <> struct pipe_wide_int<pipe_u16> { typedef pipe_u64 type; };
template <> struct pipe_wide_int<pipe_u32> { typedef pipe_u64 type; };
template <> struct pipe_wide_int<pipe_u64> { typedef pipe_u64 type; };

template <bool C, typename A, typename B> struct pipe_pick { typedef A type; };
template <typename A, typename B> struct pipe_pick<false, A, B> {
  typedef B type;
};

/// The mean of i64 or u64 divides the exact integer sum (docs/language.md),
/// which a 64-bit sum is not: it accumulates in 128 bits (2^63 elements of
/// 2^64 - 1 fit).
typedef __int128 pipe_i128;
typedef unsigned __int128 pipe_u128;
template <typename T> struct pipe_exact_sum { typedef void type; };
template <> struct pipe_exact_sum<pipe_i64> { typedef pipe_i128 type; };
template <> struct pipe_exact_sum<pipe_u64> { typedef pipe_u128 type; };

/// A 128-bit integer as the nearest double (ties to even), in one rounding:
/// the bits below the 63 that a long long conversion takes are folded into
/// a sticky bit, then the exact power of two is put back.
template <typename T> PIPE_HD double pipe_double_from_128(T x) {
  const bool negative = x < 0;
  pipe_u128 magnitude = negative ? (pipe_u128)0 - (pipe_u128)x : (pipe_u128)x;
  int shift = 0;
  while ((magnitude >> shift) > (pipe_u128)0x7fffffffffffffffULL)
    ++shift;
  pipe_u128 kept = magnitude >> shift;
  if (shift > 0 && (magnitude & (((pipe_u128)1 << shift) - 1)) != 0)
    kept |= 1; // sticky: below the bits a double keeps, so rounds correctly
  double value = (double)(long long)kept;
  for (int i = 0; i < shift; ++i)
    value *= 2.0;
  return negative ? -value : value;
}

/// Sums, means and products: floats in f64 (per thread in f32 for sums of
/// f32 and narrower), bool and integers in 64-bit integers (128 for the
/// mean of 64-bit ones).
template <int KIND, typename T> struct pipe_reducer {
  static constexpr bool is_float = pipe_traits<T>::is_float;
  static constexpr bool exact128 =
      KIND == PIPE_MEAN && !is_float && sizeof(T) == 8;
  typedef typename pipe_pick<exact128, typename pipe_exact_sum<T>::type,
                             typename pipe_wide_int<T>::type>::type int_acc;
  typedef typename pipe_pick<is_float, double, int_acc>::type acc;
  // Products always go through acc (f32 products overflow sooner).
  typedef typename pipe_pick<
      is_float && KIND != PIPE_PROD,
      typename pipe_pick<sizeof(typename pipe_traits<T>::compute) == 8, double,
                         float>::type,
      acc>::type local;

  static PIPE_HD acc identity() { return (acc)(KIND == PIPE_PROD ? 1 : 0); }
  static PIPE_HD local local_identity() {
    return (local)(KIND == PIPE_PROD ? 1 : 0);
  }
  static PIPE_HD local value(T x) {
    if constexpr (is_float)
      return (local)pipe_traits<T>::widen(x);
    else if constexpr (exact128)
      return (local)x;
    else
      return (local)pipe_cast<int_acc>(x);
  }
  static PIPE_HD local add_local(local a, local b) {
    if constexpr (is_float || exact128)
      return KIND == PIPE_PROD ? a * b : a + b;
    else
      return KIND == PIPE_PROD ? pipe_mul(a, b) : pipe_add(a, b);
  }
  static PIPE_HD acc widen(local a) { return (acc)a; }
  static PIPE_HD acc combine(acc a, acc b) {
    if constexpr (is_float || exact128)
      return KIND == PIPE_PROD ? a * b : a + b;
    else
      return KIND == PIPE_PROD ? pipe_mul(a, b) : pipe_add(a, b);
  }
  /// The result from the accumulated value of `count` elements.
  template <typename R> static PIPE_HD R finish(acc a, long long count) {
    if constexpr (exact128)
      return pipe_cast<R>(pipe_double_from_128(a) / (double)count);
    else if constexpr (KIND == PIPE_MEAN)
      return pipe_cast<R>(pipe_as_double(a) / (double)count);
    else
      return pipe_cast<R>(a);
  }
};

/// min and max: in the element's own dtype, NaN winning (pipe_min/pipe_max);
/// the identity is the dtype's largest (smallest) value, +inf (-inf).
template <typename T, bool IS_MAX> struct pipe_minmax_reducer {
  typedef T acc;
  typedef T local;
  static PIPE_HD T identity() {
    const double inf = (double)pipe_float_from_bits(0x7f800000u);
    return pipe_cast<T>(IS_MAX ? -inf : inf);
  }
  static PIPE_HD T local_identity() { return identity(); }
  static PIPE_HD T value(T x) { return x; }
  static PIPE_HD T add_local(T a, T b) {
    return IS_MAX ? pipe_max(a, b) : pipe_min(a, b);
  }
  static PIPE_HD T widen(T a) { return a; }
  static PIPE_HD T combine(T a, T b) { return add_local(a, b); }
  template <typename R> static PIPE_HD R finish(T a, long long) {
    return pipe_cast<R>(a);
  }
};
template <typename T> struct pipe_reducer<PIPE_MIN, T>
    : pipe_minmax_reducer<T, false> {};
template <typename T> struct pipe_reducer<PIPE_MAX, T>
    : pipe_minmax_reducer<T, true> {};

/// any and all: whether some (every) element is nonzero (NaN is nonzero).
template <typename T, bool IS_ALL> struct pipe_logical_reducer {
  typedef unsigned int acc;
  typedef unsigned int local;
  static PIPE_HD acc identity() { return IS_ALL ? 1u : 0u; }
  static PIPE_HD local local_identity() { return identity(); }
  static PIPE_HD local value(T x) { return pipe_cast<pipe_bool>(x).v ? 1u : 0u; }
  static PIPE_HD local add_local(local a, local b) { return IS_ALL ? a & b : a | b; }
  static PIPE_HD acc widen(local a) { return a; }
  static PIPE_HD acc combine(acc a, acc b) { return add_local(a, b); }
  template <typename R> static PIPE_HD R finish(acc a, long long) {
    return pipe_cast<R>(pipe_make_bool(a != 0));
  }
};
template <typename T> struct pipe_reducer<PIPE_ANY, T>
    : pipe_logical_reducer<T, false> {};
template <typename T> struct pipe_reducer<PIPE_ALL, T>
    : pipe_logical_reducer<T, true> {};

#endif // PIPE_CORE_PIPEREDUCE_H
