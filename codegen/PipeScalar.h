//===- PipeScalar.h - The scalar semantics of Pipe's ops --------*- C++ -*-===//
//
// One definition of what each elementwise op does to one element, compiled
// twice: NVRTC compiles it into every generated kernel (codegen pastes this
// file in front of the kernel), and the CPU reference executor includes it.
// The GPU and the reference therefore cannot disagree on casts, rounding,
// saturation or integer wrap-around.
//
// No includes for NVRTC (it has no standard headers); plain C++17 otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CODEGEN_PIPESCALAR_H
#define PIPE_CODEGEN_PIPESCALAR_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define PIPE_HD __host__ __device__ __forceinline__
#else
#include <math.h>
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

template <typename T> struct pipe_limits;

/// For integers: the range, the signedness, and the unsigned type at least
/// 32 bits wide in which wrapping arithmetic is computed without the C++
/// integer promotions overflowing a signed int.
#define PIPE_INT_LIMITS(T, LO, HI, SIGNED, WIDE)                               \
  template <> struct pipe_limits<T> {                                          \
    static constexpr bool is_float = false;                                    \
    static constexpr bool is_signed = SIGNED;                                  \
    typedef WIDE wide_unsigned;                                                \
    static PIPE_HD T lo() { return (T)(LO); }                                  \
    static PIPE_HD T hi() { return (T)(HI); }                                  \
  };
PIPE_INT_LIMITS(pipe_u8, 0, 255, false, pipe_u32)
PIPE_INT_LIMITS(pipe_i8, -128, 127, true, pipe_u32)
PIPE_INT_LIMITS(pipe_u16, 0, 65535, false, pipe_u32)
PIPE_INT_LIMITS(pipe_i16, -32768, 32767, true, pipe_u32)
PIPE_INT_LIMITS(pipe_u32, 0u, 4294967295u, false, pipe_u32)
PIPE_INT_LIMITS(pipe_i32, -2147483647 - 1, 2147483647, true, pipe_u32)
PIPE_INT_LIMITS(pipe_u64, 0ull, 18446744073709551615ull, false, pipe_u64)
PIPE_INT_LIMITS(pipe_i64, -9223372036854775807ll - 1, 9223372036854775807ll,
                true, pipe_u64)
#undef PIPE_INT_LIMITS

template <> struct pipe_limits<float> {
  static constexpr bool is_float = true;
  static constexpr bool is_signed = true;
};
template <> struct pipe_limits<double> {
  static constexpr bool is_float = true;
  static constexpr bool is_signed = true;
};

/// Round half to even (the default rounding mode, on host and device).
PIPE_HD float pipe_rint(float x) { return rintf(x); }
PIPE_HD double pipe_rint(double x) { return rint(x); }

// Arithmetic. Floats follow IEEE 754 (kernels are compiled without FMA
// contraction); integers wrap around modulo 2^bits.
#define PIPE_BINARY(NAME, OP)                                                  \
  template <typename T> PIPE_HD T NAME(T a, T b) {                             \
    if constexpr (pipe_limits<T>::is_float) {                                  \
      return a OP b;                                                           \
    } else {                                                                   \
      typedef typename pipe_limits<T>::wide_unsigned W;                        \
      return (T)((W)a OP(W) b);                                                \
    }                                                                          \
  }
PIPE_BINARY(pipe_add, +)
PIPE_BINARY(pipe_sub, -)
PIPE_BINARY(pipe_mul, *)
#undef PIPE_BINARY

/// Floats only: the frontend makes integer operands of '/' f32 first.
template <typename T> PIPE_HD T pipe_div(T a, T b) { return a / b; }

/// Converts one element. To an integer: round half to even from a float,
/// saturate to the target's range, NaN to 0. To a float: round to nearest.
template <typename To, typename From> PIPE_HD To pipe_cast(From x) {
  if constexpr (pipe_limits<To>::is_float) {
    return (To)x;
  } else if constexpr (pipe_limits<From>::is_float) {
    if (x != x)
      return (To)0;
    if (x <= (From)pipe_limits<To>::lo())
      return pipe_limits<To>::lo();
    if (x >= (From)pipe_limits<To>::hi())
      return pipe_limits<To>::hi();
    return (To)pipe_rint(x);
  } else {
    if constexpr (pipe_limits<From>::is_signed) {
      if (x < 0) {
        if constexpr (!pipe_limits<To>::is_signed)
          return (To)0;
        else
          return (long long)x < (long long)pipe_limits<To>::lo()
                     ? pipe_limits<To>::lo()
                     : (To)x;
      }
    }
    return (unsigned long long)x > (unsigned long long)pipe_limits<To>::hi()
               ? pipe_limits<To>::hi()
               : (To)x;
  }
}

#endif // PIPE_CODEGEN_PIPESCALAR_H
