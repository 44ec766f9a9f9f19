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
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

  /// The names in the cache directory.
  std::vector<std::string> listDirectory() {
    DIR *d = opendir(dir.c_str());
    std::vector<std::string> names;
    while (dirent *e = d ? readdir(d) : nullptr)
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    if (d)
      closedir(d);
    return names;
  }

  /// The one entry in the cache directory.
  std::string entryPath() {
    std::string found;
    for (const std::string &name : listDirectory())
      if (name.find(".cubin") != std::string::npos)
        found = dir + "/" + name;
    return found;
  }

  /// Compiles `source` again with the memory cache cleared, and says how
  /// the disk cache answered.
  pipert::KernelCacheStats compileAgain(const std::string &expected) {
    pipert::KernelCacheStats before = pipert::kernelCacheStats();
    pipert::clearKernelMemoryCache();
    auto again = pipert::compileCubinCached(source, "k", 90);
    EXPECT_TRUE(again.ok()) << again.status().message();
    if (again.ok())
      EXPECT_EQ(*again, expected);
    pipert::KernelCacheStats after = pipert::kernelCacheStats();
    return {after.memoryHits - before.memoryHits,
            after.diskHits - before.diskHits, after.compiles - before.compiles,
            after.rejectedEntries - before.rejectedEntries};
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

// Whatever sits where an entry should be is not read unless it is a
// regular file of ours of a sane size: a link to /dev/zero would never end,
// a FIFO would block, a huge file would be read into memory. Each is a miss,
// compiled and replaced by a good entry.
TEST_F(KernelCacheTest, WhatIsNotAnEntryFileIsNotRead) {
  auto first = pipert::compileCubinCached(source, "k", 90);
  ASSERT_TRUE(first.ok()) << first.status().message();
  std::string path = entryPath();
  ASSERT_FALSE(path.empty());
  const char *kinds[] = {"link to /dev/zero", "fifo", "huge file"};
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(kinds[kind]);
    ASSERT_EQ(unlink(path.c_str()), 0);
    if (kind == 0)
      ASSERT_EQ(symlink("/dev/zero", path.c_str()), 0);
    else if (kind == 1)
      ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    else { // 1 GiB, sparse
      int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0600);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(ftruncate(fd, off_t(1) << 30), 0);
      close(fd);
    }
    pipert::KernelCacheStats delta = compileAgain(*first);
    EXPECT_EQ(delta.rejectedEntries, 1u);
    EXPECT_EQ(delta.compiles, 1u);
    struct stat info;
    ASSERT_EQ(lstat(path.c_str(), &info), 0);
    EXPECT_TRUE(S_ISREG(info.st_mode));
    EXPECT_EQ(compileAgain(*first).diskHits, 1u);
  }
}

// A cache directory that others can write is neither read nor written; one
// the cache creates is private to the user.
TEST_F(KernelCacheTest, OnlyAPrivateDirectoryIsTrusted) {
  auto first = pipert::compileCubinCached(source, "k", 90);
  ASSERT_TRUE(first.ok()) << first.status().message();
  struct stat info;
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  pipert::KernelCacheStats delta = compileAgain(*first);
  EXPECT_EQ(delta.diskHits, 0u);
  EXPECT_EQ(delta.compiles, 1u);
  ASSERT_EQ(chmod(dir.c_str(), 0700), 0);
  EXPECT_EQ(compileAgain(*first).diskHits, 1u);
}

// Eight threads asking for one kernel at once run NVRTC once; the others
// wait for its cubin.
TEST_F(KernelCacheTest, ConcurrentRequestsCompileOnce) {
  pipert::KernelCacheStats before = pipert::kernelCacheStats();
  std::vector<std::string> cubins(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      auto cubin = pipert::compileCubinCached(source, "k", 90);
      cubins[t] = cubin.ok() ? *cubin : "failed: " + cubin.status().message();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &cubin : cubins)
    EXPECT_EQ(cubin, cubins[0]);
  pipert::KernelCacheStats after = pipert::kernelCacheStats();
  EXPECT_EQ(after.compiles - before.compiles, 1u);
  EXPECT_EQ(after.memoryHits - before.memoryHits, 7u);
}

// Two processes compiling one kernel into one cache at once: both succeed,
// and what is left is one whole entry and no temporary.
TEST_F(KernelCacheTest, TwoProcessesShareOneEntry) {
  pid_t children[2];
  for (pid_t &child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0)
      _exit(pipert::compileCubinCached(source, "k", 90).ok() ? 0 : 1);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<std::string> names = listDirectory();
  ASSERT_EQ(names.size(), 1u) << names.size() << " files in the cache";
  EXPECT_EQ(names[0].find(".tmp"), std::string::npos) << names[0];
  pipert::KernelCacheStats before = pipert::kernelCacheStats();
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
