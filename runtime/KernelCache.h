//===- KernelCache.h - Compiled kernels, in memory and on disk --*- C++ -*-===//
//
// NVRTC takes a good part of a second per pipeline; the same kernel source
// compiles to the same cubin. The cache keeps cubins in memory for the
// process and on disk across processes, keyed by the source, the GPU
// architecture, the NVRTC version and the compile options. A disk entry
// holds its whole key and a checksum of the cubin: an entry that is
// truncated, corrupt or for another key is recompiled and rewritten, never
// loaded.
//
// The directory must be private to the user (see docs/runtime.md).
//
// Directory: $PIPE_KERNEL_CACHE_DIR, else $XDG_CACHE_HOME/pipe/kernels, else
// $HOME/.cache/pipe/kernels. PIPE_KERNEL_CACHE_DIR=off turns the disk cache
// off.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_KERNELCACHE_H
#define PIPE_RUNTIME_KERNELCACHE_H

#include "runtime/Status.h"

#include <string>

namespace pipert {

/// Where compiled kernels are cached on disk, or "" when that is off.
std::string kernelCacheDirectory();

/// A cubin of `source` for sm_<arch>, from the cache or compiled by NVRTC
/// (and then cached).
Result<std::string> compileCubinCached(const std::string &source,
                                       const std::string &name, int arch,
                                       bool fastMath = false);

struct KernelCacheStats {
  unsigned memoryHits = 0, diskHits = 0, compiles = 0, rejectedEntries = 0;
};
/// What the cache did in this process (for tests and --time-phases).
KernelCacheStats kernelCacheStats();

/// Forgets the in-memory cache (tests use it to reach the disk cache).
void clearKernelMemoryCache();

} // namespace pipert

#endif // PIPE_RUNTIME_KERNELCACHE_H
