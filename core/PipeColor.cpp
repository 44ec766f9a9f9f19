//===- PipeColor.cpp - The color functions' constants ---------------------===//

#include "core/PipeColor.h"

#include <string>

using namespace pipert;

namespace {

bool isFloatName(std::string_view dtype) {
  return dtype == "f16" || dtype == "bf16" || dtype == "f32" || dtype == "f64";
}

int bitsOf(std::string_view dtype) {
  return std::stoi(std::string(dtype.substr(dtype[0] == 'b' ? 2 : 1)));
}

using Mat3 = std::array<std::array<double, 3>, 3>;

/// DALI's Rgb2Yiq (float constants, taken at their float values).
Mat3 rgbToYiq() {
  return {{{double(.299f), double(.587f), double(.114f)},
           {double(.596f), double(-.274f), double(-.321f)},
           {double(.211f), double(-.523f), double(.311f)}}};
}

Mat3 inverse(const Mat3 &m) {
  double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
               m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  Mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      // The cofactor of m[j][i], over the determinant.
      int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      r[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
    }
  return r;
}

} // namespace

double pipert::getColorFullRange(std::string_view dtype) {
  if (isFloatName(dtype))
    return 1.0;
  int bits = bitsOf(dtype);
  bool isSigned = dtype[0] == 'i';
  return double((~0ull) >> (64 - bits + (isSigned ? 1 : 0)));
}

double pipert::getColorHalfRange(std::string_view dtype) {
  if (isFloatName(dtype))
    return 0.5;
  int bits = bitsOf(dtype);
  bool isSigned = dtype[0] == 'i';
  return double(1ull << (bits - (isSigned ? 1 : 0) - 1));
}

ColorYiqTerms pipert::getColorYiqTerms() {
  Mat3 r = rgbToYiq(), y = inverse(r);
  ColorYiqTerms terms;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) {
      terms.a0[c * 3 + k] = y[c][0] * r[0][k];
      terms.a1[c * 3 + k] = y[c][1] * r[1][k] + y[c][2] * r[2][k];
      terms.a2[c * 3 + k] = y[c][1] * r[2][k] - y[c][2] * r[1][k];
    }
  return terms;
}

ColorConversion pipert::getColorConversion(std::string_view from,
                                           std::string_view to,
                                           std::string_view dtype) {
  // YCbCr (ITU-R BT.601, studio range) in the image's units: offsets 16
  // and 128 for u8, 1/16 and 1/2 for floats (DALI's bias scale).
  double unit = isFloatName(dtype) ? 1.0 / 256 : 1.0;
  double luma = 16 * unit, chroma = 128 * unit;
  // Everything goes through RGB: `from` -> RGB -> `to`, composed here.
  std::vector<double> toRgb, toRgbOffset(3, 0.0);
  if (from == "rgb")
    toRgb = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  else if (from == "bgr")
    toRgb = {0, 0, 1, 0, 1, 0, 1, 0, 0};
  else if (from == "gray")
    toRgb = {1, 1, 1};
  else { // ycbcr
    double s = 255.0 / 219.0;
    toRgb = {s, 0, 1.5960267848, s, -0.39176228842, -0.81296764538,
             s, 2.0172321417, 0};
    for (int c = 0; c < 3; ++c)
      toRgbOffset[c] = -luma * s - toRgb[c * 3 + 1] * chroma -
                       toRgb[c * 3 + 2] * chroma;
  }
  int64_t k = from == "gray" ? 1 : 3;
  // Shortcuts DALI takes without going through RGB.
  if (from == to) {
    ColorConversion identity;
    for (int64_t c = 0; c < k; ++c)
      for (int64_t j = 0; j < k; ++j)
        identity.matrix.push_back(c == j ? 1 : 0);
    identity.offset.assign(size_t(k), 0.0);
    return identity;
  }
  if (from == "gray" && to == "ycbcr")
    return {{219.0 / 255.0, 0, 0}, {luma, chroma, chroma}};
  if (from == "ycbcr" && to == "gray")
    return {{255.0 / 219.0, 0, 0}, {-luma * 255.0 / 219.0}};
  std::vector<double> out, outOffset;
  if (to == "rgb" || to == "bgr")
    out = to == "rgb" ? std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}
                      : std::vector<double>{0, 0, 1, 0, 1, 0, 1, 0, 0},
    outOffset = {0, 0, 0};
  else if (to == "gray")
    out = {0.299, 0.587, 0.114}, outOffset = {0};
  else // ycbcr
    out = {0.25678823529,  0.50412941176,  0.09790588235,
           -0.14822289945, -0.29099278682, 0.43921568627,
           0.43921568627,  -0.36778831435, -0.07142737192},
    outOffset = {luma, chroma, chroma};
  // out * (toRgb * x + toRgbOffset) + outOffset.
  ColorConversion conversion;
  size_t c = outOffset.size();
  conversion.matrix.assign(c * size_t(k), 0.0);
  conversion.offset = outOffset;
  for (size_t i = 0; i < c; ++i)
    for (size_t m = 0; m < 3; ++m) {
      for (size_t j = 0; j < size_t(k); ++j)
        conversion.matrix[i * size_t(k) + j] += out[i * 3 + m] * toRgb[m * size_t(k) + j];
      conversion.offset[i] += out[i * 3 + m] * toRgbOffset[m];
    }
  return conversion;
}
