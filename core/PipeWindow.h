//===- PipeWindow.h - box_filter, erode, dilate, median, conv2d -*- C++ -*-===//
//
// One definition of what the window ops compute for one output element,
// compiled into the window family's kernels (families/window, pasted after
// PipeScalar.h and PipeStencil.h) and called by the CPU reference, so that
// the two give the same bits. A window spans one or two axes of the tensor
// (axis 0 and axis 1 below; a window over one axis has axis 1 of length 1);
// along each its `size` taps start `anchor` = size / 2 before the element
// (OpenCV's default anchor: centred for odd sizes). Taps past an edge read
// through pipe_border_index_of (PipeStencil.h), a constant border reading
// the fill value.
//
//   box_filter: the taps' sum in Acc, in row-major tap order, divided by
//               the number of taps;
//   conv2d:     acc = fma(weight[k], tap[k], acc) in row-major tap order
//               (a correlation, the kernel not flipped, as OpenCV's
//               filter2D and DALI's filter);
//   erode, dilate: the least / greatest tap, NaN if any tap is NaN, -0
//   below +0;
//   median:     the middle of the taps sorted with NaN last (np.sort), an
//               odd number of taps, found by a sorting network's
//               exchanges (pipe_window_median_network).
//
// Acc is double when the input or the result is f64, else float; the sums
// are converted to the result's dtype as casts do (round half to even,
// saturate). erode, dilate and median select a tap: no arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPEWINDOW_H
#define PIPE_CORE_PIPEWINDOW_H

/// The window ops (the dialect's WindowKind, in its order).
enum pipe_window_kind {
  PIPE_WINDOW_BOX,
  PIPE_WINDOW_MIN,
  PIPE_WINDOW_MAX,
  PIPE_WINDOW_MEDIAN,
  PIPE_WINDOW_CORRELATE
};

/// Loops whose trip counts the kernel compiles in unroll fully on the GPU,
/// so that a median's taps stay in registers.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PIPE_WINDOW_UNROLL _Pragma("unroll")
#else
#define PIPE_WINDOW_UNROLL
#endif

/// The most taps a window has (a 32x32 box), and a median's (7x7): the
/// median keeps its taps in registers.
#define PIPE_WINDOW_MAX_TAPS 1024
#define PIPE_WINDOW_MAX_MEDIAN_TAPS 49

/// Where an element's window lies: each axis's length and stride (in
/// elements), the window's size along it and its anchor.
template <typename I> struct pipe_window_geometry {
  I n0, stride0, n1, stride1;
  int size0, anchor0, size1, anchor1;
};

/// An element of the input and its position along the window's axes:
/// i0 = (e / stride0) % n0, i1 = (e / stride1) % n1 (the kernels divide
/// in the 64-bit kernels and the reference, pipe_window_locate).
template <typename I> struct pipe_window_element {
  I e, i0, i1;
};

/// The input elements that share one kernel of conv2d's weights [samples...,
/// window...] (`weightRank` dims, `axes` of them the window's) over an
/// input of `rank` dims `shape`: the product of the dims after the samples',
/// or 0 when every element reads the one kernel.
PIPE_HD long long pipe_window_weight_stride(const long long *shape, int rank,
                                            int weightRank, int axes) {
  int samples = weightRank - axes;
  if (samples <= 0)
    return 0;
  long long stride = 1;
  for (int d = samples; d < rank; ++d)
    stride *= shape[d];
  return stride;
}

template <typename I>
PIPE_HD pipe_window_element<I>
pipe_window_locate(I e, const pipe_window_geometry<I> &g) {
  return {e, (e / g.stride0) % g.n0, (e / g.stride1) % g.n1};
}

/// Calls visit(k, at, inside) for each tap k (row-major) of element
/// `el.e`, at the input index the tap reads, or -1 where a constant border
/// gives the fill. Elements whose window lies inside the tensor (`inside`
/// true, a literal, so that the visitor's check of `at` folds away) skip
/// the border's rules: each tap is an offset from the element.
template <typename I, typename Visit>
PIPE_HD void pipe_window_taps(const pipe_window_element<I> &el,
                              const pipe_window_geometry<I> &g, int border,
                              Visit visit) {
  const I e = el.e, i0 = el.i0, i1 = el.i1;
  if (i0 >= g.anchor0 && i0 - g.anchor0 + g.size0 <= g.n0 &&
      i1 >= g.anchor1 && i1 - g.anchor1 + g.size1 <= g.n1) {
    const I first = e - g.anchor0 * g.stride0 - g.anchor1 * g.stride1;
    PIPE_WINDOW_UNROLL
    for (int k0 = 0; k0 < g.size0; ++k0) {
      const I row = first + k0 * g.stride0;
      PIPE_WINDOW_UNROLL
      for (int k1 = 0; k1 < g.size1; ++k1)
        visit(k0 * g.size1 + k1, row + k1 * g.stride1, true);
    }
    return;
  }
  PIPE_WINDOW_UNROLL
  for (int k0 = 0; k0 < g.size0; ++k0) {
    const I j0 = pipe_border_index_of<I>(i0 - g.anchor0 + k0, g.n0, border);
    PIPE_WINDOW_UNROLL
    for (int k1 = 0; k1 < g.size1; ++k1) {
      const I j1 =
          pipe_border_index_of<I>(i1 - g.anchor1 + k1, g.n1, border);
      const I at = j0 < 0 || j1 < 0
                       ? I(-1)
                       : e + (j0 - i0) * g.stride0 + (j1 - i1) * g.stride1;
      visit(k0 * g.size1 + k1, at, false);
    }
  }
}

/// One fused multiply-add, rounded once, on the host as on the GPU.
PIPE_HD float pipe_window_fma(float a, float b, float c) {
  return fmaf(a, b, c);
}
PIPE_HD double pipe_window_fma(double a, double b, double c) {
  return fma(a, b, c);
}

/// box_filter (weights null) and conv2d: the element's value in Out. `x`
/// (here and below) is the input, `x[at]` its element at index `at`: an
/// array, or a fused kernel's source computing the element (the window
/// family's prologues).
template <typename Acc, typename Out, typename I, typename X>
PIPE_HD Out pipe_window_sum(const X &x, const pipe_window_element<I> &e,
                            const pipe_window_geometry<I> &g, int border,
                            Acc fill, const float *weights) {
  Acc acc = 0;
  pipe_window_taps<I>(e, g, border, [&](int k, I at, bool inside) {
    Acc v = inside || at >= 0 ? pipe_cast<Acc>(x[at]) : fill;
    if (weights)
      acc = pipe_window_fma(Acc(weights[k]), v, acc);
    else
      acc += v;
  });
  if (!weights)
    acc /= Acc(g.size0 * g.size1);
  return pipe_cast<Out>(acc);
}

/// Whether a tap's value sorts before another's: NaN last.
template <typename T> PIPE_HD bool pipe_window_before(T a, T b) {
  return a < b || (a == a && b != b);
}

/// Whether zero `a` ranks past zero `b` (taps of dtype `In`, widened) as
/// elementwise min and max rank them (-0 below +0): for erode, a -0 after
/// a +0; for dilate the reverse. Integers have one zero.
template <typename In, typename W>
PIPE_HD bool pipe_window_zero_past(W a, W b, bool greatest) {
  if constexpr (!pipe_traits<In>::is_float)
    return false;
  else
    return a == 0 && b == 0 && (signbit(a) != 0) != greatest &&
           (signbit(b) != 0) == greatest;
}

/// One tap `v` (the k-th, row-major) of erode or dilate: the first tap,
/// then any lesser (greater) one; a NaN, once taken, stays.
template <typename In>
PIPE_HD void pipe_window_extreme_step(In &best, In v, int k, bool greatest) {
  typedef pipe_traits<In> T;
  auto a = T::widen(v), b = T::widen(best);
  if (k == 0 || (b == b && (a != a || (greatest ? b < a : a < b) ||
                            pipe_window_zero_past<In>(a, b, greatest))))
    best = v;
}

/// erode (greatest = false) and dilate: the least or greatest tap, NaN as
/// soon as one is NaN, -0 below +0 (IEEE 754-2019 minimum and maximum, as
/// min and max).
template <typename I, typename X, typename In>
PIPE_HD In pipe_window_extreme(const X &x, const pipe_window_element<I> &e,
                               const pipe_window_geometry<I> &g, int border,
                               In fill, bool greatest) {
  In best = fill;
  pipe_window_taps<I>(e, g, border, [&](int k, I at, bool inside) {
    pipe_window_extreme_step(best, inside || at >= 0 ? x[at] : fill, k,
                             greatest);
  });
  return best;
}

/// The window's taps, row-major, into taps[].
template <typename I, typename X, typename In>
PIPE_HD void pipe_window_gather(const X &x, const pipe_window_element<I> &e,
                                const pipe_window_geometry<I> &g, int border,
                                In fill, In *taps) {
  pipe_window_taps<I>(e, g, border, [&](int k, I at, bool inside) {
    taps[k] = inside || at >= 0 ? x[at] : fill;
  });
}

/// One compare-exchange of a sorting network: a before b afterwards (NaN
/// last).
template <typename In> PIPE_HD void pipe_window_exchange(In &a, In &b) {
  typedef pipe_traits<In> T;
  if (pipe_window_before(T::widen(b), T::widen(a))) {
    In t = a;
    a = b;
    b = t;
  }
}

#ifdef __CUDACC_RTC__
/// Division by a divisor fixed for the kernel, of numerators below 2^31,
/// by a multiply and a shift (Granlund and Montgomery; PyTorch's
/// IntDivider): where the window kernels' work items lie.
struct pipe_window_divider {
  unsigned magic;
  int shift;
};
__device__ __forceinline__ pipe_window_divider
pipe_window_make_divider(unsigned d) {
  int shift = 0;
  while (shift < 32 && (1ull << shift) < d)
    ++shift;
  unsigned long long magic =
      ((1ull << 32) * ((1ull << shift) - d)) / d + 1;
  return {(unsigned)magic, shift};
}
__device__ __forceinline__ unsigned pipe_window_divide(unsigned n,
                                                       pipe_window_divider d) {
  return (__umulhi(n, d.magic) + n) >> d.shift;
}

/// pipe_window_exchange of two pairs of 16-bit integers at once, one in
/// each half of a and b (signed or not): a gets the minimums, b the
/// maximums.
template <bool SIGNED>
__device__ __forceinline__ void pipe_window_exchange2(unsigned &a,
                                                      unsigned &b) {
  unsigned lo, hi;
#if __CUDA_ARCH__ >= 900
  if constexpr (SIGNED) {
    asm("min.s16x2 %0, %1, %2;" : "=r"(lo) : "r"(a), "r"(b));
    asm("max.s16x2 %0, %1, %2;" : "=r"(hi) : "r"(a), "r"(b));
  } else {
    asm("min.u16x2 %0, %1, %2;" : "=r"(lo) : "r"(a), "r"(b));
    asm("max.u16x2 %0, %1, %2;" : "=r"(hi) : "r"(a), "r"(b));
  }
#else
  if constexpr (SIGNED) {
    lo = __vmins2(a, b);
    hi = __vmaxs2(a, b);
  } else {
    lo = __vminu2(a, b);
    hi = __vmaxu2(a, b);
  }
#endif
  a = lo;
  b = hi;
}

/// The input of a window kernel that reads it from memory: its element at
/// index `at` (pipe_window_rows's sources).
template <typename In> struct pipe_window_array {
  typedef In value_type;
  const In *__restrict__ p;
  __device__ __forceinline__ In at(int, int, int, int at) const {
    return p[at];
  }
  __device__ __forceinline__ In operator[](long long at) const {
    return p[at];
  }
};

/// row(j) for the R + S0 - 1 rows of pipe_window_rows: unrolled while
/// their loads are few (the taps' places are then constants); past that a
/// loop, whose code and registers stay small.
template <int R, int S0, int S1, typename Row>
__device__ __forceinline__ void pipe_window_each_row(Row row) {
  if constexpr ((R + S0 - 1) * S1 <= 256) {
    PIPE_WINDOW_UNROLL
    for (int j = 0; j < R + S0 - 1; ++j)
      row(j);
  } else {
#pragma unroll 1
    for (int j = 0; j < R + S0 - 1; ++j)
      row(j);
  }
}

/// The kernels' work in 32 bits: a thread computes R outputs of one
/// column, at rows i0 .. i0 + R - 1 along axis 0 (those past n0 are not
/// stored), and loads each input row their windows cover once: R + S0 - 1
/// rows of S1 taps, where an output at a time loads R S0 S1. `column` is
/// the index of the column's element at row 0 and axis-1 position 0, i1
/// the column's position along axis 1. Each tap is handed to
/// visit(r, k, v, fill) for every output r whose window holds it, k its
/// place in that window (row-major), `fill` true where a constant border
/// gives the fill (v is then not read). Each output sees its taps in
/// row-major order, as pipe_window_taps gives them: the same arithmetic,
/// the same bits as the reference's output at a time.
///
/// STRIDE1 is axis 1's stride when the kernel knows it (0: g.stride1).
/// Where the columns lie inside the tensor (all but the edges') a row's
/// taps are loaded at constant offsets from its first: no index
/// arithmetic a tap.
///
/// The taps are x's elements: an array's (pipe_window_array), or those a
/// fused kernel's source computes (the window family's prologues), which
/// give the value of type `value_type` at (column, row, col, at): at =
/// column + row g.stride0 + col g.stride1, the element at position `row`
/// along axis 0 and `col` along axis 1 of column `column`.
template <int R, int S0, int S1, int BORDER, int STRIDE1, typename X,
          typename Visit>
__device__ __forceinline__ void
pipe_window_rows(const X &x, int column, int i0, int i1,
                 const pipe_window_geometry<int> &g, Visit visit) {
  typedef typename X::value_type In;
  const int stride1 = STRIDE1 ? STRIDE1 : g.stride1;
  // One row's taps to the outputs whose windows hold it.
  auto give = [&](int j, const In *v, const bool *fill) {
    PIPE_WINDOW_UNROLL
    for (int r = 0; r < R; ++r) {
      if (j - r < 0 || j - r >= S0)
        continue;
      PIPE_WINDOW_UNROLL
      for (int k1 = 0; k1 < S1; ++k1)
        visit(r, (j - r) * S1 + k1, v[k1], fill[k1]);
    }
  };
  const int c0 = i1 - S1 / 2;
  if (c0 >= 0 && c0 + S1 <= g.n1) {
    pipe_window_each_row<R, S0, S1>([&](int j) {
      const int j0 = pipe_border_index32(i0 - S0 / 2 + j, g.n0, BORDER);
      const bool outside = BORDER == PIPE_CONSTANT && j0 < 0;
      const int row = outside ? 0 : j0;
      const int first = column + row * g.stride0 + c0 * stride1;
      In v[S1];
      bool fill[S1];
      PIPE_WINDOW_UNROLL
      for (int k1 = 0; k1 < S1; ++k1) {
        fill[k1] = outside;
        if (!outside)
          v[k1] = x.at(column, row, c0 + k1, first + k1 * stride1);
      }
      give(j, v, fill);
    });
    return;
  }
  int j1[S1], col[S1];
  PIPE_WINDOW_UNROLL
  for (int k1 = 0; k1 < S1; ++k1) {
    j1[k1] = pipe_border_index32(c0 + k1, g.n1, BORDER);
    col[k1] = j1[k1] < 0 ? -1 : j1[k1] * stride1;
  }
  pipe_window_each_row<R, S0, S1>([&](int j) {
    const int j0 = pipe_border_index32(i0 - S0 / 2 + j, g.n0, BORDER);
    const int at = j0 < 0 ? -1 : column + j0 * g.stride0;
    In v[S1];
    bool fill[S1];
    PIPE_WINDOW_UNROLL
    for (int k1 = 0; k1 < S1; ++k1) {
      fill[k1] = BORDER == PIPE_CONSTANT && (at < 0 || col[k1] < 0);
      if (!fill[k1])
        v[k1] = x.at(column, j0, j1[k1], at + col[k1]);
    }
    give(j, v, fill);
  });
}
#endif

/// The most compare-exchanges a median's network has (49 taps: 319).
#define PIPE_WINDOW_MAX_EXCHANGES 640

/// The compare-exchanges (pairs[2 c], pairs[2 c + 1]) that put the middle
/// of `taps` values (odd) in place: Batcher's odd-even merge sort of that
/// many values, less every exchange the middle does not depend on; their
/// number. The window kernels run them as straight-line code (emitted by
/// the window family), the reference in a loop: the same exchanges in the
/// same order, so the same bits (the sign of a zero included).
#ifndef __CUDACC_RTC__
inline int pipe_window_median_network(int taps, short *pairs) {
  short all[2 * 2048];
  int count = 0;
  for (int p = 1; p < taps; p += p)
    for (int k = p; k >= 1; k /= 2)
      for (int j = k % p; j + k < taps; j += 2 * k)
        for (int i = 0; i < k && i < taps - j - k; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            all[2 * count] = short(i + j);
            all[2 * count + 1] = short(i + j + k);
            ++count;
          }
  // Backwards from the middle: keep what reaches it.
  bool needed[PIPE_WINDOW_MAX_MEDIAN_TAPS] = {};
  bool keep[2048] = {};
  needed[taps / 2] = true;
  for (int c = count - 1; c >= 0; --c)
    if (needed[all[2 * c]] || needed[all[2 * c + 1]])
      keep[c] = needed[all[2 * c]] = needed[all[2 * c + 1]] = true;
  int kept = 0;
  for (int c = 0; c < count; ++c)
    if (keep[c]) {
      pairs[2 * kept] = all[2 * c];
      pairs[2 * kept + 1] = all[2 * c + 1];
      ++kept;
    }
  return kept;
}
#endif

/// median on the host: the network above (`count` exchanges in `pairs`,
/// made once for the window) run in a loop.
#ifndef __CUDACC_RTC__
template <typename I, typename In>
inline In pipe_window_median(const In *x, const pipe_window_element<I> &e,
                             const pipe_window_geometry<I> &g, int border,
                             In fill, const short *pairs, int count) {
  In taps[PIPE_WINDOW_MAX_MEDIAN_TAPS];
  pipe_window_gather<I>(x, e, g, border, fill, taps);
  int n = g.size0 * g.size1;
  for (int c = 0; c < count; ++c)
    pipe_window_exchange(taps[pairs[2 * c]], taps[pairs[2 * c + 1]]);
  return taps[n / 2];
}
#endif

#endif // PIPE_CORE_PIPEWINDOW_H
