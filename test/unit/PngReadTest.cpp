//===- PngReadTest.cpp - PNGs of every kind read as their stored values ---===//
//
// readImage against files that libpng's own full-API encoder writes, in the
// kinds Pipe's writer never makes: 16-bit samples, a gAMA chunk that is not
// sRGB's, palettes with transparency, 1- to 4-bit gray, Adam7 interlacing.
// What comes back is what PIL and OpenCV give: the stored values (no gamma
// conversion), a 16-bit sample's high byte, palettes and low-bit gray
// expanded, tRNS as alpha.
//
//===----------------------------------------------------------------------===//

#include "images/Images.h"

#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

using pipert::HostTensor;

namespace {

/// A PNG as libpng's full API writes it: `rows` holds the file's own
/// samples, packed as the format stores them (16-bit big-endian).
struct PngFile {
  int width = 0, height = 0, depth = 8, color = PNG_COLOR_TYPE_GRAY;
  bool interlaced = false;
  double gamma = 0; // a gAMA chunk when not 0
  std::vector<png_color> palette;
  std::vector<png_byte> paletteAlpha; // tRNS of a palette
  std::vector<std::vector<unsigned char>> rows;
};

void appendBytes(png_structp png, png_bytep data, size_t count) {
  auto *out = static_cast<std::vector<unsigned char> *>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + count);
}

void flushNothing(png_structp) {}

std::vector<unsigned char> encode(const PngFile &file) {
  std::vector<unsigned char> out;
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, appendBytes, flushNothing);
  png_set_IHDR(png, info, png_uint_32(file.width), png_uint_32(file.height),
               file.depth, file.color,
               file.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!file.palette.empty())
    png_set_PLTE(png, info, file.palette.data(), int(file.palette.size()));
  if (!file.paletteAlpha.empty())
    png_set_tRNS(png, info, file.paletteAlpha.data(),
                 int(file.paletteAlpha.size()), nullptr);
  if (file.gamma != 0)
    png_set_gAMA(png, info, file.gamma);
  png_write_info(png, info);
  std::vector<png_bytep> rows;
  for (const auto &row : file.rows)
    rows.push_back(const_cast<png_bytep>(row.data()));
  png_write_image(png, rows.data());
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::vector<unsigned char> &bytes) {
    char name[] = "/tmp/pipe-png-XXXXXX";
    int fd = mkstemp(name);
    close(fd);
    path = name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()),
               std::streamsize(bytes.size()));
  }
  ~TempFile() { std::remove(path.c_str()); }
};

HostTensor read(const PngFile &file) {
  std::vector<unsigned char> bytes = encode(file);
  EXPECT_FALSE(bytes.empty());
  TempFile temp(bytes);
  auto image = pipeimg::readImage(temp.path);
  EXPECT_TRUE(image.ok()) << image.status().message();
  return image.ok() ? image.take() : HostTensor();
}

std::vector<unsigned char> randomBytes(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> bytes(count);
  for (unsigned char &b : bytes)
    b = (unsigned char)rng();
  return bytes;
}

} // namespace

TEST(PngRead, SixteenBitSamplesGiveTheirHighByte) {
  // RGB and gray with alpha, odd sizes; a linear gAMA (1.0) too, which the
  // simplified API would have converted.
  for (int color : {PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_GRAY_ALPHA}) {
    int channels = color == PNG_COLOR_TYPE_RGB ? 3 : 2;
    PngFile file;
    file.width = 7, file.height = 5, file.depth = 16, file.color = color;
    file.gamma = 1.0;
    for (int y = 0; y < file.height; ++y)
      file.rows.push_back(randomBytes(size_t(2 * channels * file.width), y));
    HostTensor image = read(file);
    ASSERT_EQ(image.shape(), (std::vector<int64_t>{5, 7, channels}));
    for (int y = 0; y < file.height; ++y)
      for (int i = 0; i < channels * file.width; ++i)
        ASSERT_EQ(image.as<uint8_t>()[y * channels * file.width + i],
                  file.rows[size_t(y)][size_t(2 * i)])
            << "row " << y << " sample " << i;
  }
}

TEST(PngRead, EightBitSamplesComeBackWhateverTheGamma) {
  for (double gamma : {1.0, 0.3, 1 / 2.2}) {
    for (bool interlaced : {false, true}) {
      PngFile file;
      file.width = 11, file.height = 9, file.color = PNG_COLOR_TYPE_RGB_ALPHA;
      file.gamma = gamma, file.interlaced = interlaced;
      for (int y = 0; y < file.height; ++y)
        file.rows.push_back(randomBytes(size_t(4 * file.width), 100 + y));
      HostTensor image = read(file);
      ASSERT_EQ(image.shape(), (std::vector<int64_t>{9, 11, 4}));
      for (int y = 0; y < file.height; ++y)
        ASSERT_EQ(0, std::memcmp(image.as<uint8_t>() + y * 44,
                                 file.rows[size_t(y)].data(), 44))
            << "gamma " << gamma << " interlaced " << interlaced << " row "
            << y;
    }
  }
}

TEST(PngRead, PalettesAndLowBitGrayAreExpanded) {
  // A 2-bit palette of 4 colours, the first two partly transparent: RGBA.
  PngFile palette;
  palette.width = 6, palette.height = 3, palette.depth = 2;
  palette.color = PNG_COLOR_TYPE_PALETTE;
  palette.palette = {{10, 20, 30}, {40, 50, 60}, {70, 80, 90}, {255, 0, 7}};
  palette.paletteAlpha = {0, 128};
  // Indices 0 1 2 3 3 2 in every row: 2 bits each, packed from the top.
  for (int y = 0; y < 3; ++y)
    palette.rows.push_back({0x1B, 0xE0});
  HostTensor rgba = read(palette);
  ASSERT_EQ(rgba.shape(), (std::vector<int64_t>{3, 6, 4}));
  int indices[6] = {0, 1, 2, 3, 3, 2};
  for (int x = 0; x < 6; ++x) {
    const png_color &c = palette.palette[size_t(indices[x])];
    int alpha = indices[x] < 2 ? palette.paletteAlpha[size_t(indices[x])] : 255;
    const uint8_t *px = rgba.as<uint8_t>() + 2 * 24 + 4 * x;
    EXPECT_EQ(px[0], c.red) << x;
    EXPECT_EQ(px[1], c.green) << x;
    EXPECT_EQ(px[2], c.blue) << x;
    EXPECT_EQ(px[3], alpha) << x;
  }
  // 1-bit gray: 0 and 255; 4-bit gray: v * 17.
  PngFile bits;
  bits.width = 9, bits.height = 1, bits.depth = 1;
  bits.rows = {{0xA5, 0x80}}; // 1 0 1 0 0 1 0 1 1
  HostTensor one = read(bits);
  ASSERT_EQ(one.shape(), (std::vector<int64_t>{1, 9, 1}));
  int expected[9] = {1, 0, 1, 0, 0, 1, 0, 1, 1};
  for (int x = 0; x < 9; ++x)
    EXPECT_EQ(one.as<uint8_t>()[x], expected[x] ? 255 : 0) << x;
  PngFile nibbles;
  nibbles.width = 3, nibbles.height = 1, nibbles.depth = 4;
  nibbles.rows = {{0x3F, 0x70}};
  HostTensor four = read(nibbles);
  ASSERT_EQ(four.shape(), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(four.as<uint8_t>()[0], 3 * 17);
  EXPECT_EQ(four.as<uint8_t>()[1], 15 * 17);
  EXPECT_EQ(four.as<uint8_t>()[2], 7 * 17);
}

TEST(PngRead, AHeaderClaimingMoreThanTheFileHoldsIsRefused) {
  // A whole 1 x 1 file whose IHDR is patched to 40000 x 40000 (its CRC
  // fixed up): refused before 1.6 GB are allocated, naming the file.
  PngFile file;
  file.width = 1, file.height = 1;
  file.rows = {{42}};
  std::vector<unsigned char> bytes = encode(file);
  ASSERT_GT(bytes.size(), 33u);
  // Signature (8), length (4), "IHDR" (4), width, height.
  for (int i : {16, 20}) {
    bytes[size_t(i)] = 0, bytes[size_t(i + 1)] = 0;
    bytes[size_t(i + 2)] = 0x9C, bytes[size_t(i + 3)] = 0x40;
  }
  png_uint_32 crc = png_uint_32(crc32(0, bytes.data() + 12, 17));
  for (int i = 0; i < 4; ++i)
    bytes[size_t(29 + i)] = (unsigned char)(crc >> (24 - 8 * i));
  TempFile temp(bytes);
  auto image = pipeimg::readImage(temp.path);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find(
                "'" + temp.path + "' is not a whole PNG: its header claims "
                "40000 x 40000 pixels"),
            std::string::npos)
      << image.status().message();
}
