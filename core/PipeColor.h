//===- PipeColor.h - The color functions' constants -------------*- C++ -*-===//
//
// What brightness_contrast, hsv, hue, saturation, color_twist and
// color_space_conversion compute, as DALI defines them (its
// brightness_contrast.h, color_twist.h and color space conversion
// kernels): the ranges of a dtype, the YIQ matrices, the conversions'
// coefficients. MLIRGen builds each function's matrix and offset from
// these; the oracle tests write the same formulas in NumPy from DALI's
// documentation.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CORE_PIPECOLOR_H
#define PIPE_CORE_PIPECOLOR_H

#include <array>
#include <string_view>
#include <vector>

namespace pipert {

/// DALI's FullRange<T>: the largest value of an integer dtype, 1 for floats.
double getColorFullRange(std::string_view dtype);
/// DALI's HalfRange<T>: 2^(bits - 1 - signed) for integers (128 for u8),
/// 0.5 for floats.
double getColorHalfRange(std::string_view dtype);

/// Yiq2Rgb * hue(h) * saturation(s) * Rgb2Yiq (DALI's color_twist) is
/// a0 + s cos(h) a1 + s sin(h) a2; each a 3x3 row-major matrix.
struct ColorYiqTerms {
  std::array<double, 9> a0, a1, a2;
};
ColorYiqTerms getColorYiqTerms();

/// A conversion between image types (rgb, bgr, gray, ycbcr): out[c] =
/// offset[c] + sum over k of matrix[c * K + k] * in[k].
struct ColorConversion {
  std::vector<double> matrix;
  std::vector<double> offset;
};
/// The conversion from `from` to `to` of an image of `dtype` (the offsets
/// and ranges of YCbCr scale with it).
ColorConversion getColorConversion(std::string_view from, std::string_view to,
                                   std::string_view dtype);

} // namespace pipert

#endif // PIPE_CORE_PIPECOLOR_H
