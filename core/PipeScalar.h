//===- PipeScalar.h - The scalar semantics of Pipe's ops --------*- C++ -*-===//
//
// One definition of what each elementwise op does to one element, compiled
// twice: NVRTC compiles it into every generated kernel (codegen pastes this
// file in front of the kernel), and the CPU reference executor includes it.
// The GPU and the reference therefore cannot disagree on casts, rounding,
// saturation, integer wrap-around or division by zero. (Transcendental
// functions are the exception: they come from CUDA's and the host's math
// libraries, which differ by an ulp or two.)
//
// No includes for NVRTC (it has no standard headers); plain C++17 otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPESCALAR_H
#define PIPE_CORE_PIPESCALAR_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define PIPE_HD __host__ __device__ __forceinline__
#else
#include <math.h>
#include <string.h>
#define PIPE_HD inline
#endif

typedef unsigned char pipe_u8;
typedef signed char pipe_i8;
typedef unsigned short pipe_u16;
typedef short pipe_i16;
typedef unsigned int pipe_u32;
typedef int pipe_i32;
typedef unsigned long long pipe_u64;
typedef long long pipe_i64;

/// bool: one byte holding 0 or 1 (any nonzero byte read from memory is true).
struct pipe_bool {
  unsigned char v;
};
/// IEEE binary16 and bfloat16, stored as their bits. Arithmetic on them is
/// done in f32 and rounded back after each op (as PyTorch does).
struct pipe_f16 {
  unsigned short bits;
};
struct pipe_bf16 {
  unsigned short bits;
};

/// What lies beyond a tensor's edge, for the stencils (PipeStencil.h) and
/// the resampling ops (PipeResample.h): dcb|abcd|cba, aaa|abcd|ddd, a fill,
/// bcd|abcd|abc (Border in dialect/PipeEnums.td).
enum pipe_border { PIPE_REFLECT101, PIPE_CLAMP, PIPE_CONSTANT, PIPE_WRAP };

PIPE_HD pipe_bool pipe_make_bool(bool b) {
  pipe_bool r;
  r.v = b ? 1 : 0;
  return r;
}

//===----------------------------------------------------------------------===//
// f16 and bf16 conversions, in software so that host and device agree.
//===----------------------------------------------------------------------===//

PIPE_HD unsigned long long pipe_double_bits(double x) {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  return (unsigned long long)__double_as_longlong(x);
#else
  unsigned long long b;
  memcpy(&b, &x, 8);
  return b;
#endif
}

PIPE_HD double pipe_double_from_bits(unsigned long long b) {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  return __longlong_as_double((long long)b);
#else
  double d;
  memcpy(&d, &b, 8);
  return d;
#endif
}

PIPE_HD unsigned int pipe_float_bits(float x) {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  return __float_as_uint(x);
#else
  unsigned int b;
  memcpy(&b, &x, 4);
  return b;
#endif
}

PIPE_HD float pipe_float_from_bits(unsigned int b) {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  return __uint_as_float(b);
#else
  float f;
  memcpy(&f, &b, 4);
  return f;
#endif
}

/// Rounds `x` (exactly, from its double value) to a binary float with MANT
/// stored mantissa bits and EXP exponent bits, to nearest even, and returns
/// its bits. Overflow gives infinity; NaN stays NaN.
template <int MANT, int EXP> PIPE_HD unsigned short pipe_round_small(double x) {
  const unsigned long long b = pipe_double_bits(x);
  const unsigned short sign = (unsigned short)((b >> 63) << (MANT + EXP));
  const int dexp = (int)((b >> 52) & 0x7ff);
  const unsigned long long dmant = b & 0xfffffffffffffull;
  const unsigned short expMask = (unsigned short)(((1u << EXP) - 1) << MANT);
  if (dexp == 0x7ff) // inf or NaN
    return (unsigned short)(sign | expMask |
                            (dmant ? (1u << (MANT - 1)) : 0u));
  const int bias = (1 << (EXP - 1)) - 1;
  int e = dexp - 1023 + bias; // biased exponent in the target
  if (dexp == 0 || e < -MANT - 1)
    return sign; // zero, or too small to round up to the least subnormal
  // The significand with its implicit 1: 53 bits.
  unsigned long long sig = dmant | (1ull << 52);
  int shift = 52 - MANT; // bits dropped for a normal result
  if (e <= 0) {          // subnormal in the target
    shift += 1 - e;
    e = 0;
  }
  if (shift > 63)
    return sign;
  unsigned long long kept = sig >> shift;
  unsigned long long rest = sig & ((1ull << shift) - 1);
  unsigned long long half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  // `kept` holds the implicit bit for normals; adding the exponent field
  // handles the carry from rounding into the next binade.
  unsigned long long result =
      e == 0 ? kept : (((unsigned long long)e << MANT) + (kept - (1ull << MANT)));
  if (result >= expMask)
    return (unsigned short)(sign | expMask); // overflow to infinity
  return (unsigned short)(sign | result);
}

template <int MANT, int EXP> PIPE_HD float pipe_widen_small(unsigned short h) {
#if defined(__CUDA_ARCH__)
  // One exact instruction on the GPU. (The loop below that normalizes
  // subnormals, unrolled into a kernel's vector loop, made NVRTC take
  // seconds to minutes on a kernel comparing f16 values.)
  if constexpr (MANT == 10 && EXP == 5) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
  }
#endif
  const unsigned int sign = (unsigned int)(h >> (MANT + EXP)) << 31;
  const int exp = (h >> MANT) & ((1 << EXP) - 1);
  unsigned int mant = h & ((1u << MANT) - 1);
  const int bias = (1 << (EXP - 1)) - 1;
  if (exp == (1 << EXP) - 1)
    return pipe_float_from_bits(sign | 0x7f800000u | (mant << (23 - MANT)));
  if (exp == 0) {
    if (mant == 0)
      return pipe_float_from_bits(sign);
    // Subnormal: normalize.
    int e = 1 - bias;
    while (!(mant & (1u << MANT))) {
      mant <<= 1;
      --e;
    }
    mant &= (1u << MANT) - 1;
    return pipe_float_from_bits(sign | ((unsigned int)(e + 127) << 23) |
                                (mant << (23 - MANT)));
  }
  return pipe_float_from_bits(sign | ((unsigned int)(exp - bias + 127) << 23) |
                              (mant << (23 - MANT)));
}

PIPE_HD float pipe_to_float(pipe_f16 h) { return pipe_widen_small<10, 5>(h.bits); }
// bf16 is the top half of an f32.
PIPE_HD float pipe_to_float(pipe_bf16 h) {
  return pipe_float_from_bits((unsigned int)h.bits << 16);
}
PIPE_HD pipe_f16 pipe_make_f16(double x) {
  pipe_f16 r;
  r.bits = pipe_round_small<10, 5>(x);
  return r;
}
PIPE_HD pipe_bf16 pipe_make_bf16(double x) {
  pipe_bf16 r;
  r.bits = pipe_round_small<7, 8>(x);
  return r;
}

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

template <typename T> struct pipe_traits;

/// Integers: range, signedness, and the unsigned type of at least 32 bits in
/// which wrapping arithmetic is done without C++'s promotions overflowing a
/// signed int.
#define PIPE_INT_TRAITS(T, LO, HI, SIGNED, WIDE, BITS)                         \
  template <> struct pipe_traits<T> {                                          \
    static constexpr bool is_float = false;                                    \
    static constexpr bool is_int = true;                                       \
    static constexpr bool is_signed = SIGNED;                                  \
    static constexpr int bits = BITS;                                          \
    typedef WIDE wide_unsigned;                                                \
    typedef T compute;                                                         \
    static PIPE_HD T lo() { return (T)(LO); }                                  \
    static PIPE_HD T hi() { return (T)(HI); }                                  \
    static PIPE_HD T widen(T x) { return x; }                                  \
    static PIPE_HD T narrow(T x) { return x; }                                 \
  };
PIPE_INT_TRAITS(pipe_u8, 0, 255, false, pipe_u32, 8)
PIPE_INT_TRAITS(pipe_i8, -128, 127, true, pipe_u32, 8)
PIPE_INT_TRAITS(pipe_u16, 0, 65535, false, pipe_u32, 16)
PIPE_INT_TRAITS(pipe_i16, -32768, 32767, true, pipe_u32, 16)
PIPE_INT_TRAITS(pipe_u32, 0u, 4294967295u, false, pipe_u32, 32)
PIPE_INT_TRAITS(pipe_i32, -2147483647 - 1, 2147483647, true, pipe_u32, 32)
PIPE_INT_TRAITS(pipe_u64, 0ull, 18446744073709551615ull, false, pipe_u64, 64)
PIPE_INT_TRAITS(pipe_i64, -9223372036854775807ll - 1, 9223372036854775807ll,
                true, pipe_u64, 64)
#undef PIPE_INT_TRAITS

/// Floats compute in `compute` (f32 for the 16-bit floats): `widen` a value
/// to it, compute, `narrow` the result back.
#define PIPE_FLOAT_TRAITS(T, COMPUTE, WIDEN, NARROW)                           \
  template <> struct pipe_traits<T> {                                          \
    static constexpr bool is_float = true;                                     \
    static constexpr bool is_int = false;                                      \
    static constexpr bool is_signed = true;                                    \
    typedef COMPUTE compute;                                                   \
    static PIPE_HD COMPUTE widen(T x) { return WIDEN; }                        \
    static PIPE_HD T narrow(COMPUTE x) { return NARROW; }                      \
  };
PIPE_FLOAT_TRAITS(float, float, x, x)
PIPE_FLOAT_TRAITS(double, double, x, x)
PIPE_FLOAT_TRAITS(pipe_f16, float, pipe_to_float(x), pipe_make_f16(x))
PIPE_FLOAT_TRAITS(pipe_bf16, float, pipe_to_float(x), pipe_make_bf16(x))
#undef PIPE_FLOAT_TRAITS

template <> struct pipe_traits<pipe_bool> {
  static constexpr bool is_float = false;
  static constexpr bool is_int = false;
  static constexpr bool is_signed = false;
  typedef bool compute;
  static PIPE_HD bool widen(pipe_bool x) { return x.v != 0; }
  static PIPE_HD pipe_bool narrow(bool x) { return pipe_make_bool(x); }
};

//===----------------------------------------------------------------------===//
// Math wrappers: one name for float and double, host and device.
//===----------------------------------------------------------------------===//

PIPE_HD float pipe_rint(float x) { return rintf(x); }
PIPE_HD double pipe_rint(double x) { return rint(x); }
PIPE_HD float pipe_floorf(float x) { return floorf(x); }
PIPE_HD double pipe_floorf(double x) { return floor(x); }
PIPE_HD float pipe_ceilf(float x) { return ceilf(x); }
PIPE_HD double pipe_ceilf(double x) { return ceil(x); }
PIPE_HD float pipe_fmod(float a, float b) { return fmodf(a, b); }
PIPE_HD double pipe_fmod(double a, double b) { return fmod(a, b); }
PIPE_HD float pipe_copysign(float a, float b) { return copysignf(a, b); }
PIPE_HD double pipe_copysign(double a, double b) { return copysign(a, b); }
PIPE_HD float pipe_sqrtf(float x) { return sqrtf(x); }
PIPE_HD double pipe_sqrtf(double x) { return sqrt(x); }
PIPE_HD float pipe_expf(float x) { return expf(x); }
PIPE_HD double pipe_expf(double x) { return exp(x); }
PIPE_HD float pipe_logf(float x) { return logf(x); }
PIPE_HD double pipe_logf(double x) { return log(x); }
PIPE_HD float pipe_sinf(float x) { return sinf(x); }
PIPE_HD double pipe_sinf(double x) { return sin(x); }
PIPE_HD float pipe_cosf(float x) { return cosf(x); }
PIPE_HD double pipe_cosf(double x) { return cos(x); }
PIPE_HD float pipe_tanhf(float x) { return tanhf(x); }
PIPE_HD double pipe_tanhf(double x) { return tanh(x); }
PIPE_HD float pipe_atan2f(float a, float b) { return atan2f(a, b); }
PIPE_HD double pipe_atan2f(double a, double b) { return atan2(a, b); }
PIPE_HD float pipe_powf(float a, float b) { return powf(a, b); }
PIPE_HD double pipe_powf(double a, double b) { return pow(a, b); }
PIPE_HD float pipe_fabs(float x) { return fabsf(x); }
PIPE_HD double pipe_fabs(double x) { return fabs(x); }

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

template <typename T> PIPE_HD T pipe_small_from_double(double x);
template <> PIPE_HD pipe_f16 pipe_small_from_double<pipe_f16>(double x) {
  return pipe_make_f16(x);
}
template <> PIPE_HD pipe_bf16 pipe_small_from_double<pipe_bf16>(double x) {
  return pipe_make_bf16(x);
}

/// The value of `x` as a double, exactly for every dtype but 64-bit integers
/// beyond 2^53 (rounded to nearest).
template <typename T> PIPE_HD double pipe_as_double(T x) {
  if constexpr (pipe_traits<T>::is_float)
    return (double)pipe_traits<T>::widen(x);
  else if constexpr (pipe_traits<T>::is_int)
    return (double)x;
  else
    return x.v ? 1.0 : 0.0;
}

#if defined(__CUDA_ARCH__)
/// On the GPU, float to integer is one instruction: PTX's cvt.rni rounds
/// half to even, saturates to the destination's range and turns NaN to 0,
/// the same rules as the portable code below.
#define PIPE_CVT(TO, FROM, PTX, OUT, IN, REG)                                  \
  template <> PIPE_HD TO pipe_device_cvt<TO, FROM>(FROM x) {                   \
    REG r;                                                                     \
    asm("cvt.rni.sat." PTX " %0, %1;" : "=" OUT(r) : IN(x));                 \
    return (TO)r;                                                              \
  }
template <typename To, typename From> PIPE_HD To pipe_device_cvt(From x);
#define PIPE_CVT_FROM(FROM, FPTX, IN)                                          \
  PIPE_CVT(pipe_u8, FROM, "u8." FPTX, "h", IN, unsigned short)                 \
  PIPE_CVT(pipe_i8, FROM, "s8." FPTX, "h", IN, short)                          \
  PIPE_CVT(pipe_u16, FROM, "u16." FPTX, "h", IN, unsigned short)               \
  PIPE_CVT(pipe_i16, FROM, "s16." FPTX, "h", IN, short)                        \
  PIPE_CVT(pipe_u32, FROM, "u32." FPTX, "r", IN, unsigned int)                 \
  PIPE_CVT(pipe_i32, FROM, "s32." FPTX, "r", IN, int)                          \
  PIPE_CVT(pipe_u64, FROM, "u64." FPTX, "l", IN, unsigned long long)           \
  PIPE_CVT(pipe_i64, FROM, "s64." FPTX, "l", IN, long long)
PIPE_CVT_FROM(float, "f32", "f")
PIPE_CVT_FROM(double, "f64", "d")
#undef PIPE_CVT_FROM
#undef PIPE_CVT
#endif

/// Converts one element. To bool: nonzero (NaN too) is true. To an integer:
/// from a float, round half to even, saturate to the range, NaN to 0; from
/// an integer or bool, saturate. To a float: round to nearest even.
template <typename To, typename From> PIPE_HD To pipe_cast(From x) {
  typedef pipe_traits<To> TT;
  typedef pipe_traits<From> FT;
  if constexpr (!TT::is_float && !TT::is_int) { // to bool
    if constexpr (FT::is_float)
      return pipe_make_bool(FT::widen(x) != 0);
    else if constexpr (FT::is_int)
      return pipe_make_bool(x != 0);
    else
      return pipe_make_bool(x.v != 0);
  } else if constexpr (!FT::is_float && !FT::is_int) { // from bool
    if constexpr (TT::is_float)
      return TT::narrow((typename TT::compute)(x.v != 0 ? 1 : 0));
    else
      return (To)(x.v != 0 ? 1 : 0);
  } else if constexpr (TT::is_float) {
    if constexpr (sizeof(To) == 2) // f16, bf16: round once from the exact value
      return pipe_small_from_double<To>(pipe_as_double(x));
    else if constexpr (FT::is_float)
      return (To)FT::widen(x);
    else
      return (To)x;
  } else if constexpr (FT::is_float) {
    typename FT::compute v = FT::widen(x);
#if defined(__CUDA_ARCH__)
    // cvt.rni.sat gives 0 for NaN only from f32 to 32 bits and narrower;
    // to 64 bits, or from f64, it gives the range's end or garbage (u8 of
    // an f64 NaN was 128) where docs/language.md says NaN becomes 0.
    if constexpr (sizeof(To) == 8 || sizeof(v) == 8)
      if (v != v)
        return (To)0;
    return pipe_device_cvt<To, typename FT::compute>(v);
#endif
    if (v != v)
      return (To)0;
    if (v <= (typename FT::compute)TT::lo())
      return TT::lo();
    if (v >= (typename FT::compute)TT::hi())
      return TT::hi();
    return (To)pipe_rint(v);
  } else {
    if constexpr (FT::is_signed) {
      if (x < 0) {
        if constexpr (!TT::is_signed)
          return (To)0;
        else
          return (long long)x < (long long)TT::lo() ? TT::lo() : (To)x;
      }
    }
    return (unsigned long long)x > (unsigned long long)TT::hi() ? TT::hi()
                                                                : (To)x;
  }
}

//===----------------------------------------------------------------------===//
// Elementwise ops, on storage types. Floats compute in their compute type;
// integers wrap modulo 2^bits; integer division or remainder by zero is 0.
//===----------------------------------------------------------------------===//

#define PIPE_ARITH(NAME, OP)                                                   \
  template <typename T> PIPE_HD T NAME(T a, T b) {                             \
    typedef pipe_traits<T> TR;                                                 \
    if constexpr (TR::is_float) {                                              \
      return TR::narrow(TR::widen(a) OP TR::widen(b));                         \
    } else {                                                                   \
      typedef typename TR::wide_unsigned W;                                    \
      return (T)((W)a OP(W) b);                                                \
    }                                                                          \
  }
PIPE_ARITH(pipe_add, +)
PIPE_ARITH(pipe_sub, -)
PIPE_ARITH(pipe_mul, *)
#undef PIPE_ARITH

/// Floats only: the frontend makes integer operands of '/' f32 first.
template <typename T> PIPE_HD T pipe_div(T a, T b) {
  typedef pipe_traits<T> TR;
  return TR::narrow(TR::widen(a) / TR::widen(b));
}

/// Python's divmod of floats (CPython's float_divmod, NumPy's npy_divmod):
/// the quotient is computed from a - fmod(a, b), which is exact, not from
/// a / b, which rounds (1.0 // 0.1 is 9, and 1.0 % 0.1 is 0.09999...);
/// a zero remainder takes b's sign, a zero quotient a / b's. A zero divisor
/// gives a / b and fmod's NaN.
template <typename C> PIPE_HD C pipe_float_divmod(C a, C b, C *mod) {
  C m = pipe_fmod(a, b);
  if (b == 0) {
    *mod = m;
    return a / b;
  }
  C div = (a - m) / b;
  if (m != 0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      div -= 1;
    }
  } else {
    m = pipe_copysign((C)0, b);
  }
  C floordiv;
  if (div != 0) {
    floordiv = (C)pipe_floorf(div);
    if (div - floordiv > (C)0.5)
      floordiv += 1;
  } else {
    floordiv = pipe_copysign((C)0, a / b);
  }
  *mod = m;
  return floordiv;
}

/// Floor division (Python's //).
template <typename T> PIPE_HD T pipe_floordiv(T a, T b) {
  typedef pipe_traits<T> TR;
  if constexpr (TR::is_float) {
    typename TR::compute mod;
    return TR::narrow(pipe_float_divmod(TR::widen(a), TR::widen(b), &mod));
  } else {
    if (b == 0)
      return (T)0;
    if constexpr (TR::is_signed) {
      if (b == (T)-1) // avoids the overflow of lo() / -1
        return (T)((typename TR::wide_unsigned)0 - (typename TR::wide_unsigned)a);
      T q = (T)(a / b);
      if ((T)(a % b) != 0 && ((a < 0) != (b < 0)))
        q = (T)(q - 1);
      return q;
    } else {
      return (T)(a / b);
    }
  }
}

/// Remainder with the divisor's sign (Python's %), so a == (a // b) * b + a % b.
template <typename T> PIPE_HD T pipe_rem(T a, T b) {
  typedef pipe_traits<T> TR;
  if constexpr (TR::is_float) {
    typename TR::compute mod;
    pipe_float_divmod(TR::widen(a), TR::widen(b), &mod);
    return TR::narrow(mod);
  } else {
    if (b == 0)
      return (T)0;
    if constexpr (TR::is_signed) {
      if (b == (T)-1)
        return (T)0;
      T r = (T)(a % b);
      if (r != 0 && ((r < 0) != (b < 0)))
        r = (T)(r + b);
      return r;
    } else {
      return (T)(a % b);
    }
  }
}

/// a ** b. For integers: wrapping repeated squaring; a negative exponent
/// gives 0 unless the base is 1 or -1.
template <typename T> PIPE_HD T pipe_pow(T a, T b) {
  typedef pipe_traits<T> TR;
  if constexpr (TR::is_float) {
    return TR::narrow(pipe_powf(TR::widen(a), TR::widen(b)));
  } else {
    typedef typename TR::wide_unsigned W;
    if constexpr (TR::is_signed) {
      if (b < 0) {
        if (a == 1)
          return (T)1;
        if (a == (T)-1)
          return (T)((b & 1) ? -1 : 1);
        return (T)0;
      }
    }
    W result = 1, base = (W)a;
    unsigned long long e = (unsigned long long)b;
    while (e) {
      if (e & 1)
        result = (W)(result * base);
      base = (W)(base * base);
      e >>= 1;
    }
    return (T)result;
  }
}

#define PIPE_COMPARE(NAME, OP)                                                 \
  template <typename T> PIPE_HD pipe_bool NAME(T a, T b) {                     \
    return pipe_make_bool(pipe_traits<T>::widen(a) OP pipe_traits<T>::widen(b)); \
  }
PIPE_COMPARE(pipe_eq, ==)
PIPE_COMPARE(pipe_ne, !=)
PIPE_COMPARE(pipe_lt, <)
PIPE_COMPARE(pipe_le, <=)
PIPE_COMPARE(pipe_gt, >)
PIPE_COMPARE(pipe_ge, >=)
#undef PIPE_COMPARE

/// & | ^ on integers (bitwise) and on bool (logical).
#define PIPE_BITWISE(NAME, OP)                                                 \
  template <typename T> PIPE_HD T NAME(T a, T b) {                             \
    if constexpr (pipe_traits<T>::is_int)                                      \
      return (T)(a OP b);                                                      \
    else                                                                       \
      return pipe_make_bool((a.v != 0) OP(b.v != 0));                          \
  }
PIPE_BITWISE(pipe_and, &)
PIPE_BITWISE(pipe_or, |)
PIPE_BITWISE(pipe_xor, ^)
#undef PIPE_BITWISE

/// ~ on integers; ! on bool.
template <typename T> PIPE_HD T pipe_not(T a) {
  if constexpr (pipe_traits<T>::is_int)
    return (T)~a;
  else
    return pipe_make_bool(a.v == 0);
}

/// Shifts by a count outside [0, bits) give 0, or -1 for >> of a negative.
template <typename T> PIPE_HD T pipe_shl(T a, T b) {
  typedef pipe_traits<T> TR;
  if ((TR::is_signed && b < 0) || (unsigned long long)b >= (unsigned long long)TR::bits)
    return (T)0;
  return (T)((typename TR::wide_unsigned)a << (int)b);
}
template <typename T> PIPE_HD T pipe_shr(T a, T b) {
  typedef pipe_traits<T> TR;
  if ((TR::is_signed && b < 0) || (unsigned long long)b >= (unsigned long long)TR::bits)
    return (T)((TR::is_signed && a < 0) ? -1 : 0);
  return (T)(a >> (int)b); // arithmetic for signed types
}

/// min and max are IEEE 754-2019 minimum and maximum: NaN if either operand
/// is NaN (like torch.minimum), and -0 below +0. On the GPU, f32 uses PTX's
/// min.NaN/max.NaN, one instruction with those rules.
#define PIPE_MINMAX(NAME, PTX, BEFORE, ZERO_NEG)                               \
  template <typename T> PIPE_HD T NAME(T a, T b) {                             \
    typedef pipe_traits<T> TR;                                                 \
    if constexpr (TR::is_float) {                                              \
      typename TR::compute x = TR::widen(a), y = TR::widen(b);                 \
      PIPE_MINMAX_DEVICE(PTX)                                                  \
      if (x != x)                                                              \
        return a;                                                              \
      if (y != y)                                                              \
        return b;                                                              \
      if (x == y) /* only zeros of different signs differ */                   \
        return (signbit(x) != 0) == ZERO_NEG ? a : b;                          \
      return y BEFORE x ? b : a;                                               \
    } else {                                                                   \
      return b BEFORE a ? b : a;                                               \
    }                                                                          \
  }
#if defined(__CUDA_ARCH__)
#define PIPE_MINMAX_DEVICE(PTX)                                                \
  if constexpr (sizeof(typename TR::compute) == 4) {                           \
    float r;                                                                   \
    asm(PTX ".NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));                \
    return TR::narrow(r);                                                      \
  }
#else
#define PIPE_MINMAX_DEVICE(PTX)
#endif
PIPE_MINMAX(pipe_min, "min", <, true)
PIPE_MINMAX(pipe_max, "max", >, false)
#undef PIPE_MINMAX
#undef PIPE_MINMAX_DEVICE

template <typename T> PIPE_HD T pipe_select(pipe_bool c, T a, T b) {
  return c.v ? a : b;
}

/// -a: 0 - a for integers (wrapping, as NumPy's negative); for floats the
/// sign bit flipped, as IEEE negation does: -0.0 from 0.0, and NaN's sign
/// too (a subtraction from -0.0 would keep NaN's, and quiet a signalling
/// one). PTX's neg.f32 leaves a NaN's result unspecified, so the bits.
template <typename T> PIPE_HD T pipe_neg(T a) {
  typedef typename pipe_traits<T>::wide_unsigned W;
  return (T)((W)0 - (W)a);
}
PIPE_HD float pipe_neg(float a) {
  return pipe_float_from_bits(pipe_float_bits(a) ^ 0x80000000u);
}
PIPE_HD double pipe_neg(double a) {
  return pipe_double_from_bits(pipe_double_bits(a) ^ 0x8000000000000000ull);
}
PIPE_HD pipe_f16 pipe_neg(pipe_f16 a) {
  a.bits ^= 0x8000;
  return a;
}
PIPE_HD pipe_bf16 pipe_neg(pipe_bf16 a) {
  a.bits ^= 0x8000;
  return a;
}

/// |a|; for signed integers abs(lo) wraps to lo.
template <typename T> PIPE_HD T pipe_abs(T a) {
  typedef pipe_traits<T> TR;
  if constexpr (TR::is_float) {
    return TR::narrow(pipe_fabs(TR::widen(a)));
  } else if constexpr (TR::is_signed) {
#if defined(__CUDA_ARCH__)
    // NVVM reads `a < 0 ? 0 - a : a` as an abs that is never negative, and
    // drops the sign test of a cast after it: i16(abs(i64 lo)) gave 32767,
    // not -32768 (found by the random oracle). Negation in PTX wraps and
    // is opaque to it. Narrower types go through 32 bits (lo of i8 negates
    // to 128, which narrows back to lo).
    if constexpr (sizeof(T) == 8) {
      long long r;
      asm("{\n\t.reg .pred n;\n\tsetp.lt.s64 n, %1, 0;\n\t"
          "neg.s64 %0, %1;\n\tselp.b64 %0, %0, %1, n;\n\t}"
          : "=l"(r) : "l"((long long)a));
      return (T)r;
    } else {
      int r;
      asm("{\n\t.reg .pred n;\n\tsetp.lt.s32 n, %1, 0;\n\t"
          "neg.s32 %0, %1;\n\tselp.b32 %0, %0, %1, n;\n\t}"
          : "=r"(r) : "r"((int)a));
      return (T)r;
    }
#else
    return a < 0 ? (T)((typename TR::wide_unsigned)0 - (typename TR::wide_unsigned)a) : a;
#endif
  } else {
    return a;
  }
}

/// Float functions (the frontend converts integer operands to f32).
#define PIPE_FLOAT_FN(NAME, EXPR)                                              \
  template <typename T> PIPE_HD T NAME(T a) {                                  \
    typedef pipe_traits<T> TR;                                                 \
    typename TR::compute x = TR::widen(a);                                     \
    return TR::narrow(EXPR);                                                   \
  }
PIPE_FLOAT_FN(pipe_sqrt, pipe_sqrtf(x))
// 1 / sqrt(x), both correctly rounded, so the GPU and the host agree.
PIPE_FLOAT_FN(pipe_rsqrt, (typename TR::compute)1 / pipe_sqrtf(x))
PIPE_FLOAT_FN(pipe_exp, pipe_expf(x))
PIPE_FLOAT_FN(pipe_log, pipe_logf(x))
PIPE_FLOAT_FN(pipe_sin, pipe_sinf(x))
PIPE_FLOAT_FN(pipe_cos, pipe_cosf(x))
PIPE_FLOAT_FN(pipe_tanh, pipe_tanhf(x))
#undef PIPE_FLOAT_FN

/// atan2(a, b) of floats (the frontend converts integers to f32).
template <typename T> PIPE_HD T pipe_atan2(T a, T b) {
  typedef pipe_traits<T> TR;
  return TR::narrow(pipe_atan2f(TR::widen(a), TR::widen(b)));
}

/// floor, ceil and round (half to even) of floats; integers are unchanged.
#define PIPE_ROUNDING(NAME, FN)                                                \
  template <typename T> PIPE_HD T NAME(T a) {                                  \
    typedef pipe_traits<T> TR;                                                 \
    if constexpr (TR::is_float)                                                \
      return TR::narrow(FN(TR::widen(a)));                                     \
    else                                                                       \
      return a;                                                                \
  }
PIPE_ROUNDING(pipe_floor, pipe_floorf)
PIPE_ROUNDING(pipe_ceil, pipe_ceilf)
PIPE_ROUNDING(pipe_round, pipe_rint)
#undef PIPE_ROUNDING

#endif // PIPE_CORE_PIPESCALAR_H
