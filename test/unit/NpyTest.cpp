//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "TestUtil.h"

#include "runtime/Npy.h"

#include <cstdio>
#include <fstream>
#include <tuple>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

static std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/pipe_npy_" + name;
}

/// Writes a version 1 .npy file at `path`: `header` padded to 118 bytes
/// and a newline, then `data`.
static void writeNpyFile(const std::string &path, const std::string &header,
                         const std::string &data) {
  std::ofstream file(path, std::ios::binary);
  std::string padded = header;
  padded.resize(118, ' ');
  padded += '\n';
  file << std::string("\x93NUMPY\x01\x00", 8) << char(padded.size() & 0xff)
       << char(padded.size() >> 8) << padded << data;
}

TEST(Npy, RoundTripsEveryDTypeAndShape) {
  for (int d = 0; d <= int(DType::F64); ++d) {
    for (auto shape : {std::vector<int64_t>{}, {7}, {3, 1, 5}, {0, 4}}) {
      HostTensor tensor = randomTensor(DType(d), shape, unsigned(d));
      std::string path = tempPath("roundtrip.npy");
      ASSERT_TRUE(pipert::writeNpy(path, tensor).ok());
      auto read = pipert::readNpy(path);
      ASSERT_TRUE(read.ok()) << read.status().message();
      EXPECT_TRUE(sameBits(*read, tensor)) << pipert::dtypeName(DType(d));
    }
  }
}

TEST(Npy, HeaderIsWhatNumPyWrites) {
  HostTensor tensor(DType::I16, {2, 3});
  std::string path = tempPath("header.npy");
  ASSERT_TRUE(pipert::writeNpy(path, tensor).ok());
  std::ifstream file(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), {});
  ASSERT_GE(bytes.size(), 128u);
  EXPECT_EQ(bytes.substr(1, 5), "NUMPY");
  EXPECT_NE(bytes.find("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }"),
            std::string::npos);
  // Data starts on a 64-byte boundary and the header ends in a newline.
  EXPECT_EQ(bytes.size(), 128u + 12u);
  EXPECT_EQ(bytes[127], '\n');
}

// A header past 64 KiB (rank 30000) cannot give its length in version
// 1.0's two bytes: it is written as version 2.0, four bytes, as NumPy
// writes it (a truncated length once made a file that read back as junk).
TEST(Npy, LongHeadersAreVersion2) {
  HostTensor tensor(DType::U8, std::vector<int64_t>(30000, 1));
  tensor.as<uint8_t>()[0] = 42;
  std::string path = tempPath("long-header.npy");
  ASSERT_TRUE(pipert::writeNpy(path, tensor).ok());
  std::ifstream file(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), {});
  ASSERT_GT(bytes.size(), 12u);
  EXPECT_EQ(bytes[6], 2);
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i)
    length |= uint32_t((unsigned char)bytes[size_t(8 + i)]) << (8 * i);
  EXPECT_GT(length, 65535u);
  EXPECT_EQ((12 + length) % 64, 0u);
  EXPECT_EQ(bytes.size(), 12u + length + 1u);
  auto read = pipert::readNpy(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_TRUE(sameBits(*read, tensor));
}

TEST(Npy, RejectsWhatItCannotRead) {
  auto missing = pipert::readNpy(tempPath("missing.npy"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos);

  std::string path = tempPath("bad.npy");
  auto write = [&](const std::string &header, const std::string &data) {
    writeNpyFile(path, header, data);
  };
  // The reader refuses a file of `header` and `data`, saying `why`.
  auto expectRefused = [&](const std::string &header, const std::string &data,
                           const std::string &why) {
    write(header, data);
    std::string message = pipert::readNpy(path).status().message();
    EXPECT_NE(message.find(why), std::string::npos)
        << "'" << why << "' not in: " << message;
  };
  const std::string f4x2(8, '\0'), f4x1(4, '\0');
  expectRefused("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                "", "dtype '<c8'");
  expectRefused("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                f4x2, "Fortran");
  expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
                f4x2, "shorter");
  // Headers NumPy's writer never makes: a key twice (Python would take the
  // last), a key missing, a NUL in the text; a dtype name that is no type
  // code is named as written.
  expectRefused("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, "
                "'shape': (1,), }",
                f4x2, "its header has 'descr' twice");
  expectRefused("{'descr': '<f4', 'shape': (1,), }", f4x1,
                "its header has no 'fortran_order'");
  expectRefused(std::string("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (1,), ") +
                    '\0' + "}",
                f4x1, "NUL");
  // A key NumPy's reader refuses, also after the three it knows; a comma
  // inside the shape's tuple or a quoted value splits nothing.
  expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                "'offset': 4, }",
                f4x1, "its header has the key 'offset'");
  expectRefused("{'extra, ': 1, 'descr': '<f4', 'fortran_order': False, "
                "'shape': (1,), }",
                f4x1, "the key 'extra, '");
  write("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", f4x2);
  EXPECT_TRUE(pipert::readNpy(path).ok());
  // Python literals only: a shape tuple missing its comma, or with text
  // after it, and a fortran_order NumPy could not evaluate, are refused
  // (the first two read as f32[2, 3], the last was called Fortran order).
  const std::string f4x6(24, '\0');
  expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }",
                f4x6, "bad shape (2 3)");
  expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)xyz"
                ", }",
                f4x6, "bad shape (2, 3)xyz");
  expectRefused("{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }",
                f4x2, "its 'fortran_order' is false, not False or True");
  write("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f4x1);
  EXPECT_TRUE(pipert::readNpy(path).ok());
  // A bool byte that is neither 0 nor 1 reads as true, as NumPy takes it.
  write("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        std::string("\x00\x02\x01", 3));
  auto bools = pipert::readNpy(path);
  ASSERT_TRUE(bools.ok()) << bools.status().message();
  EXPECT_EQ(bools->as<uint8_t>()[0], 0);
  EXPECT_EQ(bools->as<uint8_t>()[1], 1);
  EXPECT_EQ(bools->as<uint8_t>()[2], 1);
  // A file cut inside its magic string is truncated, not another format.
  {
    std::ofstream cut(path, std::ios::binary | std::ios::trunc);
    cut << std::string("\x93NUMPY", 6);
  }
  EXPECT_NE(pipert::readNpy(path).status().message().find("truncated header"),
            std::string::npos);
  expectRefused(
      "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (1,), }",
      std::string(2, '\0'), "dtype 'bfloat16'");
  // Issue 15: shapes whose byte count overflows 63 bits (one wrapped to 24
  // elements and was read), a terabyte claimed by a small file (it was
  // allocated first), a dim past the range of a long long, and bytes after
  // the array are refused before anything is allocated.
  expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(4294967296, 4294967296, 6), }",
                std::string(96, '\0'), "more bytes than 2^63");
  expectRefused("{'descr': '<u1', 'fortran_order': False, "
                "'shape': (1099511627776,), }",
                std::string(14, '\0'),
                "the data is 14 bytes, shorter than the 1099511627776");
  expectRefused("{'descr': '<u1', 'fortran_order': False, 'shape': "
                "(99999999999999999999,), }",
                "", "bad shape");
  expectRefused("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }",
                std::string(7, '\0'), "3 bytes follow the 4 of the array");
  // An empty array needs no data, and reads back empty.
  write("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", "");
  auto empty = pipert::readNpy(path);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->numElements(), 0);
  // Not a regular file: a directory (a FIFO would block, /dev/zero never
  // end).
  EXPECT_NE(pipert::readNpy(testing::TempDir())
                .status()
                .message()
                .find("not a regular file"),
            std::string::npos);
  std::string fifo = tempPath("fifo.npy");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(pipert::readNpy(fifo).status().message().find(
                "not a regular file"),
            std::string::npos);
  std::remove(fifo.c_str());
  {
    std::ofstream file(path, std::ios::binary);
    file << "not a numpy file at all";
  }
  EXPECT_NE(pipert::readNpy(path).status().message().find("no .npy magic"),
            std::string::npos);
  // A header that is no dict, and a structured dtype, are said as such.
  expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ",
                f4x2, "is not a dict");
  expectRefused(
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
      f4x2, "structured dtype");
}

// Dtypes written without a byte order ('u1', 'f4') or with '=' are the
// machine's, as NumPy reads them.
TEST(Npy, ReadsDTypesWithoutAByteOrder) {
  std::string path = tempPath("order.npy");
  for (auto [descr, bytes, dtype] :
       {std::tuple{"u1", 3, DType::U8}, {"b1", 3, DType::Bool},
        {"f4", 12, DType::F32}, {"=i2", 6, DType::I16}}) {
    writeNpyFile(path,
                 std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': (3,), }",
                 std::string(bytes, '\0'));
    auto tensor = pipert::readNpy(path);
    ASSERT_TRUE(tensor.ok()) << descr << ": " << tensor.status().message();
    EXPECT_EQ(tensor->dtype(), dtype) << descr;
    EXPECT_EQ(tensor->numElements(), 3) << descr;
  }
}

// Issue 15, item 6: a write that fails leaves the earlier files as they
// were, and no temporary behind.
TEST(Npy, WritesAreAllOrNothing) {
  std::string dir = ::testing::TempDir() + "/pipe_npy_all_or_nothing";
  mkdir(dir.c_str(), 0700);
  std::string first = dir + "/a.npy", second = dir + "/b.npy";
  HostTensor old = randomTensor(DType::F32, {5}, 1);
  ASSERT_TRUE(pipert::writeNpy(first, old).ok());
  ASSERT_TRUE(pipert::writeNpy(second, old).ok());

  // The second result has a dtype NumPy lacks: neither file changes.
  HostTensor fresh = randomTensor(DType::F32, {9}, 2);
  HostTensor bf16(DType::BF16, {3});
  pipert::Status status = pipert::writeNpyFiles({{first, &fresh}, {second, &bf16}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("b.npy"), std::string::npos) << status.message();
  for (const std::string &path : {first, second}) {
    auto read = pipert::readNpy(path);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_TRUE(sameBits(*read, old)) << path;
  }

  // A path that cannot be written (its directory is missing): the same.
  status = pipert::writeNpyFiles({{first, &fresh}, {dir + "/no/such/c.npy", &fresh}});
  ASSERT_FALSE(status.ok());
  auto read = pipert::readNpy(first);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(sameBits(*read, old));

  // Only the two files: no temporaries left.
  int entries = 0;
  if (DIR *list = opendir(dir.c_str())) {
    while (dirent *entry = readdir(list))
      entries += entry->d_name[0] != '.';
    closedir(list);
  }
  EXPECT_EQ(entries, 2);

  // When everything can be written, everything is.
  ASSERT_TRUE(pipert::writeNpyFiles({{first, &fresh}, {second, &fresh}}).ok());
  for (const std::string &path : {first, second}) {
    auto again = pipert::readNpy(path);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(sameBits(*again, fresh)) << path;
  }
}

// Renaming a new file over the path replaced a symbolic link (its target
// unchanged) and, as root, a FIFO or a device such as /dev/null. Links are
// written through; anything but a regular file is refused and left; a file
// replaced keeps its mode.
TEST(Npy, WritesGoThroughLinksAndOnlyOntoRegularFiles) {
  std::string dir = ::testing::TempDir() + "/pipe_npy_links";
  mkdir(dir.c_str(), 0700);
  std::string target = dir + "/target.npy", link = dir + "/link.npy";
  HostTensor old = randomTensor(DType::F32, {4}, 3);
  ASSERT_TRUE(pipert::writeNpy(target, old).ok());
  ASSERT_EQ(chmod(target.c_str(), 0640), 0);
  unlink(link.c_str());
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);

  HostTensor fresh = randomTensor(DType::F32, {6}, 4);
  pipert::Status status = pipert::writeNpy(link, fresh);
  ASSERT_TRUE(status.ok()) << status.message();
  struct stat info;
  ASSERT_EQ(lstat(link.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  auto read = pipert::readNpy(target);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(sameBits(*read, fresh));
  ASSERT_EQ(stat(target.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);

  std::string fifo = dir + "/fifo.npy";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  status = pipert::writeNpy(fifo, fresh);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not a regular file"), std::string::npos)
      << status.message();
  ASSERT_EQ(lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));

  std::string dangling = dir + "/dangling.npy";
  unlink(dangling.c_str());
  ASSERT_EQ(symlink((dir + "/no/such/file.npy").c_str(), dangling.c_str()),
            0);
  status = pipert::writeNpy(dangling, fresh);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("symbolic link to nothing"),
            std::string::npos)
      << status.message();
}
