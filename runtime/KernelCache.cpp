//===- KernelCache.cpp - Compiled kernels, in memory and on disk ----------===//

#include "runtime/KernelCache.h"

#include "runtime/Nvrtc.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <sys/stat.h>
#include <unistd.h>

using namespace pipert;

namespace {
std::mutex cacheMutex;
std::unordered_map<std::string, std::string> memoryCache;
KernelCacheStats stats;

constexpr char kMagic[8] = {'P', 'I', 'P', 'E', 'K', 'C', '0', '1'};

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// mkdir -p.
bool makeDirectories(const std::string &path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/')
      continue;
    std::string prefix = path.substr(0, pos);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  return true;
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

bool readFile(const std::string &path, std::string &out) {
  FILE *file = fopen(path.c_str(), "rb");
  if (!file)
    return false;
  char buffer[1 << 16];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0)
    out.append(buffer, n);
  fclose(file);
  return true;
}

/// The cubin in `entry` if it is a whole, uncorrupted entry for `key`.
bool parseEntry(const std::string &entry, const std::string &key,
                std::string &cubin) {
  if (entry.size() < 8 || memcmp(entry.data(), kMagic, 8) != 0)
    return false;
  size_t pos = 8;
  uint64_t keySize, cubinSize, checksum;
  if (!readU64(entry, pos, keySize) || pos + keySize > entry.size() ||
      entry.compare(pos, keySize, key) != 0)
    return false;
  pos += keySize;
  if (!readU64(entry, pos, cubinSize) || pos + cubinSize > entry.size())
    return false;
  cubin = entry.substr(pos, cubinSize);
  pos += cubinSize;
  return readU64(entry, pos, checksum) && pos == entry.size() &&
         checksum == fnv1a(cubin);
}

/// Writes atomically: a reader sees the old entry or the whole new one.
void writeEntry(const std::string &directory, const std::string &path,
                const std::string &key, const std::string &cubin) {
  if (!makeDirectories(directory))
    return; // The cache is an optimization; a read-only home is fine.
  std::string entry(kMagic, 8);
  appendU64(entry, key.size());
  entry += key;
  appendU64(entry, cubin.size());
  entry += cubin;
  appendU64(entry, fnv1a(cubin));
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  FILE *file = fopen(temporary.c_str(), "wb");
  if (!file)
    return;
  bool ok = fwrite(entry.data(), 1, entry.size(), file) == entry.size();
  ok &= fclose(file) == 0;
  if (!ok || rename(temporary.c_str(), path.c_str()) != 0)
    unlink(temporary.c_str());
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
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (auto it = memoryCache.find(key); it != memoryCache.end()) {
      ++stats.memoryHits;
      return it->second;
    }
  }
  std::string directory = kernelCacheDirectory();
  char hash[32];
  snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fnv1a(key));
  std::string path = directory.empty()
                         ? std::string()
                         : directory + "/" + name + "-" + hash + ".cubin";
  std::string entry, cubin;
  if (!path.empty() && readFile(path, entry)) {
    if (parseEntry(entry, key, cubin)) {
      std::lock_guard<std::mutex> lock(cacheMutex);
      ++stats.diskHits;
      memoryCache[key] = cubin;
      return cubin;
    }
    std::lock_guard<std::mutex> lock(cacheMutex);
    ++stats.rejectedEntries;
  }
  auto compiled = compileCuda(source, name, arch, /*ptx=*/false, fastMath);
  if (!compiled)
    return compiled.status();
  if (!path.empty())
    writeEntry(directory, path, key, compiled->image);
  std::lock_guard<std::mutex> lock(cacheMutex);
  ++stats.compiles;
  memoryCache[key] = compiled->image;
  return compiled->image;
}
