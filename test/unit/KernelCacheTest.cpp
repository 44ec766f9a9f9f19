//===- KernelCacheTest.cpp - The kernel cache on disk and in memory -------===//
//
// Needs NVRTC, not a GPU.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "runtime/KernelCache.h"
#include "runtime/Nvrtc.h"

#include <cstdlib>
#include <dirent.h>
#include <fstream>

namespace {

/// Points the disk cache at a fresh directory for one test.
class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!pipert::getNvrtcVersion().ok())
      GTEST_SKIP() << "NVRTC unavailable: "
                   << pipert::getNvrtcVersion().status().message();
    dir = ::testing::TempDir() + "/pipe_cache_" +
          std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
          "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    setenv("PIPE_KERNEL_CACHE_DIR", dir.c_str(), 1);
    pipert::clearKernelMemoryCache();
  }
  void TearDown() override { unsetenv("PIPE_KERNEL_CACHE_DIR"); }

  /// The one entry in the cache directory.
  std::string entryPath() {
    DIR *d = opendir(dir.c_str());
    std::string found;
    while (dirent *e = d ? readdir(d) : nullptr)
      if (std::string(e->d_name).find(".cubin") != std::string::npos)
        found = dir + "/" + e->d_name;
    if (d)
      closedir(d);
    return found;
  }

  std::string dir;
  // A fresh source each run, so other processes' entries never interfere.
  std::string source = "extern \"C\" __global__ void k(float *p) { p[0] = " +
                       std::to_string(std::random_device()()) + ".0f; }";
};

TEST_F(KernelCacheTest, CompilesOnceThenHitsMemoryThenDisk) {
  pipert::KernelCacheStats before = pipert::kernelCacheStats();
  auto first = pipert::compileCubinCached(source, "k", 90);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto second = pipert::compileCubinCached(source, "k", 90);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  pipert::clearKernelMemoryCache();
  auto third = pipert::compileCubinCached(source, "k", 90);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*first, *third);
  pipert::KernelCacheStats after = pipert::kernelCacheStats();
  EXPECT_EQ(after.compiles - before.compiles, 1u);
  EXPECT_EQ(after.memoryHits - before.memoryHits, 1u);
  EXPECT_EQ(after.diskHits - before.diskHits, 1u);
  // Another architecture is another entry.
  ASSERT_TRUE(pipert::compileCubinCached(source, "k", 80).ok());
  EXPECT_EQ(pipert::kernelCacheStats().compiles - before.compiles, 2u);
}

TEST_F(KernelCacheTest, CorruptEntriesAreRebuiltNotLoaded) {
  auto first = pipert::compileCubinCached(source, "k", 90);
  ASSERT_TRUE(first.ok()) << first.status().message();
  std::string path = entryPath();
  ASSERT_FALSE(path.empty());
  for (int damage = 0; damage < 2; ++damage) {
    {
      std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(file)), {});
      if (damage == 0) // flip a byte of the cubin
        bytes[bytes.size() - 20] ^= 0x5a;
      else // truncate
        bytes.resize(bytes.size() / 2);
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << bytes;
    }
    pipert::KernelCacheStats before = pipert::kernelCacheStats();
    pipert::clearKernelMemoryCache();
    auto again = pipert::compileCubinCached(source, "k", 90);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(*again, *first);
    pipert::KernelCacheStats after = pipert::kernelCacheStats();
    EXPECT_EQ(after.rejectedEntries - before.rejectedEntries, 1u);
    EXPECT_EQ(after.compiles - before.compiles, 1u);
  }
  // The rewritten entry is good again.
  pipert::KernelCacheStats before = pipert::kernelCacheStats();
  pipert::clearKernelMemoryCache();
  ASSERT_TRUE(pipert::compileCubinCached(source, "k", 90).ok());
  EXPECT_EQ(pipert::kernelCacheStats().diskHits - before.diskHits, 1u);
}

TEST_F(KernelCacheTest, DirectoryFromEnvironment) {
  EXPECT_EQ(pipert::kernelCacheDirectory(), dir);
  setenv("PIPE_KERNEL_CACHE_DIR", "off", 1);
  EXPECT_EQ(pipert::kernelCacheDirectory(), "");
  unsetenv("PIPE_KERNEL_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/x", 1);
  EXPECT_EQ(pipert::kernelCacheDirectory(), "/x/pipe/kernels");
  unsetenv("XDG_CACHE_HOME");
}

} // namespace
