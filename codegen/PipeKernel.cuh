//===- PipeKernel.cuh - Device helpers of generated kernels -----*- C++ -*-===//
//
// Pasted after PipeScalar.h into every generated kernel (device code only).
//
//===----------------------------------------------------------------------===//

/// The first thing every generated entry does. The runtime launches kernels
/// with programmatic dependent launch on sm_90 and later (runtime/
/// Launch.cpp, usesDependentLaunch): this kernel's blocks may be
/// resident before the kernel ahead of it in the stream has finished, so
/// they wait here until it has completed and its writes are visible; then
/// they let the next kernel's blocks be scheduled in turn. A no-op when the
/// kernel was launched without it, and before sm_90.
__device__ __forceinline__ void pipe_wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// An elementwise launch's divisors, one for each dim d of its domain:
/// with D the dim's size, below 2^31, n / D == (umulhi(n, mul[d]) + n) >>
/// shift[d] for every n below 2^31 (Granlund and Montgomery's method, as
/// PyTorch's IntDivider). The launcher computes them
/// (pipert::ElementwiseDivisor); the 32-bit variants decode an element's
/// index into coordinates with them where a dim is known only at run time:
/// three instructions a division instead of about twenty.
template <int R> struct pipe_divisors {
  unsigned mul[R];
  unsigned shift[R];
};

__device__ __forceinline__ unsigned pipe_fast_div(unsigned n, unsigned mul,
                                                  unsigned shift) {
  return (__umulhi(n, mul) + n) >> shift;
}

template <int BYTES> struct pipe_chunk;
template <> struct pipe_chunk<16> { typedef uint4 type; };
template <> struct pipe_chunk<8> { typedef uint2 type; };
template <> struct pipe_chunk<4> { typedef unsigned int type; };
template <> struct pipe_chunk<2> { typedef unsigned short type; };
template <> struct pipe_chunk<1> { typedef unsigned char type; };

/// The chunk N elements of T move in: the largest power of two up to 16
/// bytes that divides their size. Groups of N start at multiples of N
/// elements, so chunks are aligned too (the arrays are 16-byte aligned:
/// the runtime checks the pointers); 24 u8 of a group of 8 pixels of 3
/// move in 8-byte chunks.
template <int BYTES>
__device__ constexpr int pipe_chunk_bytes() {
  return BYTES % 16 == 0 ? 16 : BYTES % 8 == 0 ? 8 : BYTES % 4 == 0 ? 4
       : BYTES % 2 == 0 ? 2 : 1;
}

/// Loads N consecutive elements in chunks of up to 16 bytes.
template <typename T, int N>
__device__ __forceinline__ void pipe_load_vec(T (&dst)[N], const T *src) {
  constexpr int BYTES = int(sizeof(T)) * N;
  constexpr int CHUNK = pipe_chunk_bytes<BYTES>();
  typedef typename pipe_chunk<CHUNK>::type C;
#pragma unroll
  for (int k = 0; k < BYTES / CHUNK; ++k)
    reinterpret_cast<C *>(dst)[k] =
        reinterpret_cast<const C *>(src)[k];
}

/// Loads N consecutive elements in CHUNK-byte chunks; `src` is aligned to
/// CHUNK (the caller checked it) and N elements fill whole chunks.
template <int CHUNK, typename T, int N>
__device__ __forceinline__ void pipe_load_chunks(T (&dst)[N], const T *src) {
  typedef typename pipe_chunk<CHUNK>::type C;
#pragma unroll
  for (int k = 0; k < int(sizeof(T)) * N / CHUNK; ++k)
    reinterpret_cast<C *>(dst)[k] = reinterpret_cast<const C *>(src)[k];
}

template <typename T, int N>
__device__ __forceinline__ void pipe_store_vec(T *dst, const T (&src)[N]) {
  constexpr int BYTES = int(sizeof(T)) * N;
  constexpr int CHUNK = pipe_chunk_bytes<BYTES>();
  typedef typename pipe_chunk<CHUNK>::type C;
#pragma unroll
  for (int k = 0; k < BYTES / CHUNK; ++k)
    reinterpret_cast<C *>(dst)[k] = reinterpret_cast<const C *>(src)[k];
}

/// pipe_store_vec for a warp whose 32 threads store consecutive groups
/// (the warp's groups one run of 32 * N elements), through shared memory:
/// each of the warp's stores then writes one contiguous run of 32 chunks,
/// where pipe_store_vec's k-th store writes the k-th chunk of every group
/// (3 of 24 bytes of u8 pixels), touching every sector of the run three
/// times. concat of two u8[64,512,512,3] on the channels: 86.5% -> 91.5%
/// of copy on the H200 (pipe_bench; bench/NOTES.md). Every thread of the
/// warp calls it, in one-dimensional blocks of at most 256 threads, a
/// multiple of 32 (the emitter keeps 256 * N * sizeof(T) to 16 KiB).
template <typename T, int N>
__device__ __forceinline__ void pipe_store_warp(T *dst, const T (&src)[N]) {
  constexpr int BYTES = int(sizeof(T)) * N;
  constexpr int CHUNK = pipe_chunk_bytes<BYTES>();
  constexpr int W = BYTES / CHUNK;
  typedef typename pipe_chunk<CHUNK>::type C;
  __shared__ C stage[256 * W];
  const unsigned lane = threadIdx.x & 31;
  C *warp = stage + (threadIdx.x - lane) * W;
  __syncwarp(); // the warp's last call has read the stage
#pragma unroll
  for (int k = 0; k < W; ++k)
    warp[lane * W + k] = reinterpret_cast<const C *>(src)[k];
  __syncwarp();
  C *run = reinterpret_cast<C *>(dst) - lane * W;
#pragma unroll
  for (int k = 0; k < W; ++k)
    run[k * 32 + lane] = warp[k * 32 + lane];
}

/// Where the run's number sits in the guard word: pipert::kCheckIndexBits
/// (families/check/CheckParams.h), below it a check's bad index.
#define PIPE_GUARD_RUN_SHIFT 40

/// Whether a kernel of run `run` found bad input (a check, a blur's
/// window): then a guarded kernel writes nothing. That kernel raised the
/// guard word to (run << 40) | ...; a word of an earlier run has a smaller
/// run number.
/// That kernel finished before this one passed pipe_wait_for_previous_kernel,
/// so the word is read through the read-only cache: every thread of the
/// grid reads it, and uncached reads of one address queue at one L2 slice.
__device__ __forceinline__ bool pipe_check_failed(
    const unsigned long long *guard, unsigned long long run) {
  return (__ldg(guard) >> PIPE_GUARD_RUN_SHIFT) == run;
}

//===----------------------------------------------------------------------===//
// Index arithmetic of index maps (codegen/IndexCodegen.cpp) and of dim
// expressions (core/DimExpr.h: DimExpr::toC), in J, a signed integer type.
//===----------------------------------------------------------------------===//

/// A parameter's element (a crop's anchor, a flip's flag) as an index.
__device__ __forceinline__ long long pipe_index(pipe_bool x) { return x.v; }
template <typename T> __device__ __forceinline__ long long pipe_index(T x) {
  return (long long)x;
}
/// A u64 past the i64s saturates (a wrap would make an anchor of 2^63 a
/// negative position; the reference reads it the same way).
__device__ __forceinline__ long long pipe_index(pipe_u64 x) {
  return x > 9223372036854775807ull ? 9223372036854775807ll : (long long)x;
}

/// pipe_index(x) in J, saturated: a 64-bit parameter read by an entry of
/// 32-bit indices keeps its order (an anchor of 2^40 under a clamp still
/// clamps to the end, where a truncation would make it 0).
template <typename J, typename T> __device__ __forceinline__ J pipe_index_as(T x) {
  long long v = pipe_index(x);
  if (sizeof(J) < sizeof(long long)) {
    const long long lo = -2147483647ll - 1, hi = 2147483647ll;
    v = v < lo ? lo : v > hi ? hi : v;
  }
  return (J)v;
}

template <typename J> __device__ __forceinline__ J pipe_index_min(J a, J b) {
  return a < b ? a : b;
}
template <typename J> __device__ __forceinline__ J pipe_index_max(J a, J b) {
  return a > b ? a : b;
}
template <typename J> __device__ __forceinline__ J pipe_index_abs(J a) {
  return a < 0 ? -a : a;
}
/// Rounding toward negative infinity, as Python's //.
template <typename J>
__device__ __forceinline__ J pipe_index_floordiv(J a, J b) {
  J q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// With the divisor's sign, as Python's %.
template <typename J> __device__ __forceinline__ J pipe_index_mod(J a, J b) {
  J r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

__device__ __forceinline__ long long pipe_dim_floordiv(long long a,
                                                       long long b) {
  return pipe_index_floordiv<long long>(a, b);
}
__device__ __forceinline__ long long pipe_dim_mod(long long a, long long b) {
  return pipe_index_mod<long long>(a, b);
}
__device__ __forceinline__ long long pipe_dim_min(long long a, long long b) {
  return a < b ? a : b;
}
__device__ __forceinline__ long long pipe_dim_max(long long a, long long b) {
  return a > b ? a : b;
}
