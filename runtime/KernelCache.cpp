//===- KernelCache.cpp - Compiled kernels, in memory and on disk ----------===//

#include "runtime/KernelCache.h"

#include "runtime/Nvrtc.h"

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace pipert;

namespace {
std::mutex cacheMutex;
std::condition_variable compileDone;
std::unordered_map<std::string, std::string> memoryCache;
/// Keys that some thread of this process is compiling now: the others wait
/// for its result instead of running NVRTC on the same source again.
std::unordered_set<std::string> compiling;
KernelCacheStats stats;
std::atomic<unsigned> temporaryCounter{0};

constexpr char kMagic[8] = {'P', 'I', 'P', 'E', 'K', 'C', '0', '1'};
/// No cubin of a pipeline comes near this; a larger file is not an entry
/// (and is not read into memory).
constexpr off_t kMaxEntryBytes = off_t(256) << 20;

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// mkdir -p, private to the user (as CuPy and ccache keep theirs): whoever
/// can write the directory could plant a cubin that this process loads.
bool makeDirectories(const std::string &path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/')
      continue;
    std::string prefix = path.substr(0, pos);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

/// Whether the cache directory may be trusted: ours, and writable by no one
/// else. A directory that is not is neither read nor written.
bool isPrivateDirectory(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode) &&
         info.st_uid == geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(char((v >> (8 * i)) & 0xff));
}

bool readU64(const std::string &in, size_t &pos, uint64_t &v) {
  if (pos + 8 > in.size())
    return false;
  v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t((unsigned char)in[pos + i]) << (8 * i);
  pos += 8;
  return true;
}

enum class Read { Missing, Read, Rejected };

/// Reads an entry, refusing what is not one without reading it: a link, a
/// FIFO (which would block), a device such as /dev/zero (endless), another
/// user's file, or a file larger than any entry.
Read readEntryFile(const std::string &path, std::string &out) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? Read::Missing : Read::Rejected;
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
      info.st_uid != geteuid() || info.st_size > kMaxEntryBytes) {
    close(fd);
    return Read::Rejected;
  }
  out.resize(size_t(info.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = read(fd, &out[done], out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  close(fd);
  // A file that shrank while read is caught by the entry's own sizes.
  out.resize(done);
  return Read::Read;
}

/// The cubin in `entry` if it is a whole, uncorrupted entry for `key`.
bool parseEntry(const std::string &entry, const std::string &key,
                std::string &cubin) {
  if (entry.size() < 8 || memcmp(entry.data(), kMagic, 8) != 0)
    return false;
  size_t pos = 8;
  uint64_t keySize, cubinSize, checksum;
  if (!readU64(entry, pos, keySize) || keySize > entry.size() - pos ||
      entry.compare(pos, keySize, key) != 0)
    return false;
  pos += keySize;
  if (!readU64(entry, pos, cubinSize) || cubinSize > entry.size() - pos)
    return false;
  cubin = entry.substr(pos, cubinSize);
  pos += cubinSize;
  return readU64(entry, pos, checksum) && pos == entry.size() &&
         checksum == fnv1a(cubin);
}

/// Writes atomically: a reader sees the old entry or the whole new one. The
/// temporary's name is unique to the process and the call, and it is
/// created exclusively, so concurrent writers never share one.
void writeEntry(const std::string &path, const std::string &key,
                const std::string &cubin) {
  std::string entry(kMagic, 8);
  appendU64(entry, key.size());
  entry += key;
  appendU64(entry, cubin.size());
  entry += cubin;
  appendU64(entry, fnv1a(cubin));
  std::string temporary = path + ".tmp." + std::to_string(getpid()) + "." +
                          std::to_string(temporaryCounter++);
  int fd = open(temporary.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return; // The cache is an optimization; a read-only home is fine.
  bool ok = true;
  for (size_t done = 0; ok && done < entry.size();) {
    ssize_t n = write(fd, entry.data() + done, entry.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    done += ok ? size_t(n) : 0;
  }
  ok &= close(fd) == 0;
  if (!ok || rename(temporary.c_str(), path.c_str()) != 0)
    unlink(temporary.c_str());
}

/// Where `key`'s entry lives, or "" when the disk cache is off or the
/// directory cannot be trusted.
std::string entryPath(const std::string &key, const std::string &name) {
  std::string directory = kernelCacheDirectory();
  if (directory.empty() || !makeDirectories(directory) ||
      !isPrivateDirectory(directory))
    return "";
  char hash[32];
  snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fnv1a(key));
  return directory + "/" + name + "-" + hash + ".cubin";
}

/// Finds `key`'s cubin on disk or compiles it (and caches it on disk). Runs
/// without the lock, in the one thread that claimed `key`.
Result<std::string> diskOrCompile(const std::string &key,
                                  const std::string &source,
                                  const std::string &name, int arch,
                                  bool fastMath) {
  std::string path = entryPath(key, name);
  std::string entry, cubin;
  if (!path.empty()) {
    Read read = readEntryFile(path, entry);
    if (read == Read::Read && parseEntry(entry, key, cubin)) {
      std::lock_guard<std::mutex> lock(cacheMutex);
      ++stats.diskHits;
      return cubin;
    }
    if (read != Read::Missing) {
      std::lock_guard<std::mutex> lock(cacheMutex);
      ++stats.rejectedEntries;
    }
  }
  auto compiled = compileCuda(source, name, arch, /*ptx=*/false, fastMath);
  if (!compiled)
    return compiled.status();
  if (!path.empty())
    writeEntry(path, key, compiled->image);
  std::lock_guard<std::mutex> lock(cacheMutex);
  ++stats.compiles;
  return std::move(compiled->image);
}
} // namespace

std::string pipert::kernelCacheDirectory() {
  if (const char *dir = std::getenv("PIPE_KERNEL_CACHE_DIR"); dir && *dir)
    return std::string(dir) == "off" ? std::string() : std::string(dir);
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/pipe/kernels";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/pipe/kernels";
  return "";
}

void pipert::clearKernelMemoryCache() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  memoryCache.clear();
}

KernelCacheStats pipert::kernelCacheStats() {
  std::lock_guard<std::mutex> lock(cacheMutex);
  return stats;
}

Result<std::string> pipert::compileCubinCached(const std::string &source,
                                               const std::string &name,
                                               int arch, bool fastMath) {
  auto version = getNvrtcVersion();
  // Without NVRTC a cached cubin is still usable only if we can tell which
  // NVRTC made it; we cannot, so compile (and fail with NVRTC's reason).
  if (!version)
    return version.status();
  std::string key = "arch=sm_" + std::to_string(arch) + "\n" + *version +
                    "\noptions=" + nvrtcOptionsKey(fastMath) + "\n" + source;
  {
    std::unique_lock<std::mutex> lock(cacheMutex);
    // Wait while another thread compiles this key; then it is cached, or
    // that compile failed and this thread tries (and reports) itself.
    compileDone.wait(lock, [&] { return !compiling.count(key); });
    if (auto it = memoryCache.find(key); it != memoryCache.end()) {
      ++stats.memoryHits;
      return it->second;
    }
    compiling.insert(key);
  }
  Result<std::string> cubin = diskOrCompile(key, source, name, arch, fastMath);
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (cubin)
      memoryCache[key] = *cubin;
    compiling.erase(key);
  }
  compileDone.notify_all();
  return cubin;
}
