//===- ImagesTest.cpp - PNG and JPEG files as u8 tensors ------------------===//
//
// images/Images.h against independent encodings: PNGs it writes read back
// bit for bit in every channel count (bool as 0 and 255); JPEGs that
// TurboJPEG's own encoder writes (quality 100, no subsampling) read back
// within the codec's rounding; broken files and mismatched folders are
// errors naming the file.
//
//===----------------------------------------------------------------------===//

#include "images/Images.h"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

using pipert::DType;
using pipert::HostTensor;

namespace {

/// A fresh directory, removed with its files.
struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/pipe-images-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const std::string &name) const {
    return path + "/" + name;
  }
};

HostTensor randomImage(DType dtype, std::vector<int64_t> shape, unsigned seed) {
  HostTensor t(dtype, std::move(shape));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.as<uint8_t>()[i] = dtype == DType::Bool ? uint8_t(rng() % 2) : uint8_t(rng());
  return t;
}

void writeBytes(const std::string &path, const std::vector<unsigned char> &bytes,
                size_t count) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(count));
}

} // namespace

TEST(Images, PngRoundTripsEveryChannelCount) {
  TempDir dir;
  for (int64_t channels : {1, 3, 4}) {
    HostTensor image = randomImage(DType::U8, {13, 17, channels}, channels);
    pipeimg::ImageLayout layout = pipeimg::imageLayoutOf(image.shape(), true);
    ASSERT_EQ(layout.count, 1);
    auto bytes = pipeimg::encodePng(image, layout, 0);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    std::string path = dir / ("c" + std::to_string(channels) + ".png");
    writeBytes(path, *bytes, bytes->size());
    auto back = pipeimg::readImage(path);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->shape(), image.shape());
    EXPECT_EQ(0, std::memcmp(back->data(), image.data(), image.numBytes()));
  }
  // bool is written as 0 and 255; a batch [N, H, W] is N gray images.
  HostTensor mask = randomImage(DType::Bool, {2, 5, 9}, 7);
  pipeimg::ImageLayout layout = pipeimg::imageLayoutOf(mask.shape(), false);
  ASSERT_EQ(layout.count, 2);
  auto bytes = pipeimg::encodePng(mask, layout, 1);
  ASSERT_TRUE(bytes.ok());
  writeBytes(dir / "m.png", *bytes, bytes->size());
  auto back = pipeimg::readImage(dir / "m.png");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->shape(), (std::vector<int64_t>{5, 9, 1}));
  for (int64_t i = 0; i < 45; ++i)
    ASSERT_EQ(back->as<uint8_t>()[i], mask.as<uint8_t>()[45 + i] ? 255 : 0);
}

TEST(Images, JpegFromTurboJpegsEncoder) {
  TempDir dir;
  for (int channels : {1, 3}) {
    // A smooth image: JPEG at quality 100 keeps it within a few levels.
    HostTensor image(DType::U8, {24, 40, channels});
    for (int64_t y = 0; y < 24; ++y)
      for (int64_t x = 0; x < 40; ++x)
        for (int c = 0; c < channels; ++c)
          image.as<uint8_t>()[(y * 40 + x) * channels + c] =
              uint8_t(4 * x + 3 * y + 20 * c);
    tjhandle encoder = tjInitCompress();
    unsigned char *jpeg = nullptr;
    unsigned long size = 0;
    ASSERT_EQ(tjCompress2(encoder, image.as<unsigned char>(), 40, 0, 24,
                          channels == 1 ? TJPF_GRAY : TJPF_RGB, &jpeg, &size,
                          channels == 1 ? TJSAMP_GRAY : TJSAMP_444, 100, 0),
              0);
    std::vector<unsigned char> bytes(jpeg, jpeg + size);
    tjFree(jpeg);
    tjDestroy(encoder);
    std::string path = dir / ("c" + std::to_string(channels) + ".JPG");
    writeBytes(path, bytes, bytes.size());
    auto back = pipeimg::readImage(path);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->shape(), image.shape());
    int worst = 0;
    for (int64_t i = 0; i < image.numElements(); ++i)
      worst = std::max(worst, std::abs(int(back->as<uint8_t>()[i]) -
                                       int(image.as<uint8_t>()[i])));
    EXPECT_LE(worst, 3);
    // Truncated: an error naming the file, not a padded image.
    writeBytes(dir / "cut.jpg", bytes, bytes.size() / 2);
    auto cut = pipeimg::readImage(dir / "cut.jpg");
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.status().message().find("cut.jpg"), std::string::npos);
  }
}

TEST(Images, BrokenFilesAndFoldersAreNamed) {
  TempDir dir;
  HostTensor image = randomImage(DType::U8, {6, 8, 3}, 1);
  auto bytes = pipeimg::encodePng(image, pipeimg::imageLayoutOf(image.shape(), true), 0);
  ASSERT_TRUE(bytes.ok());
  writeBytes(dir / "cut.png", *bytes, bytes->size() / 2);
  auto cut = pipeimg::readImage(dir / "cut.png");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("'" + (dir / "cut.png") + "' is not a whole PNG"),
            std::string::npos)
      << cut.status().message();
  writeBytes(dir / "text.png", std::vector<unsigned char>{'h', 'i'}, 2);
  auto text = pipeimg::readImage(dir / "text.png");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("text.png"), std::string::npos);
  // A folder is one batch: a file of another size is named.
  TempDir folder;
  writeBytes(folder / "a.png", *bytes, bytes->size());
  HostTensor other = randomImage(DType::U8, {6, 9, 3}, 2);
  auto otherBytes =
      pipeimg::encodePng(other, pipeimg::imageLayoutOf(other.shape(), true), 0);
  writeBytes(folder / "b.png", *otherBytes, otherBytes->size());
  auto batch = pipeimg::readImageFolder(folder.path);
  ASSERT_FALSE(batch.ok());
  // (Both named by their path, the folder's included.)
  EXPECT_NE(batch.status().message().find(
                "b.png' is u8[6, 9, 3] but '" + (folder / "a.png") +
                "' is u8[6, 8, 3]"),
            std::string::npos)
      << batch.status().message();
  // Same sizes: the batch in name order.
  writeBytes(folder / "b.png", *bytes, bytes->size());
  batch = pipeimg::readImageFolder(folder.path);
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  EXPECT_EQ(batch->shape(), (std::vector<int64_t>{2, 6, 8, 3}));
}

TEST(Images, WhatHasAnImageShape) {
  using pipeimg::imageLayoutOf;
  EXPECT_EQ(imageLayoutOf({5, 7}, false).count, 1);
  EXPECT_EQ(imageLayoutOf({2, 5, 7}, false).count, 2);
  EXPECT_EQ(imageLayoutOf({5, 7, 3}, true).count, 1);
  EXPECT_EQ(imageLayoutOf({4, 5, 7, 3}, true).channels, 3);
  EXPECT_EQ(imageLayoutOf({7}, false).count, 0);
  EXPECT_EQ(imageLayoutOf({2, 3, 5, 7}, false).count, 0);
  EXPECT_EQ(imageLayoutOf({0, 7}, false).count, 0);
}

// A result with a side past a million pixels has no preview: libpng refuses
// it, and the refusal lost the result's .npy with it (pipec run writes all
// or nothing).
TEST(Images, ResultsTooLongForAPngHaveNoPreview) {
  std::vector<pipert::PlanDim> declared(2);
  pipert::HostTensor wide(pipert::DType::U8, {1, pipeimg::kMaxPngSide + 1});
  EXPECT_EQ(pipeimg::resultImageLayout(wide, declared).count, 0);
  pipert::HostTensor tall(pipert::DType::Bool, {pipeimg::kMaxPngSide + 1, 2});
  EXPECT_EQ(pipeimg::resultImageLayout(tall, declared).count, 0);
  pipert::HostTensor longest(pipert::DType::U8, {1, pipeimg::kMaxPngSide});
  EXPECT_EQ(pipeimg::resultImageLayout(longest, declared).count, 1);
}
