//===- Staging.h - Pinned buffers that host tensors pass through -*- C++ -*-===//
//
// Off by default (PIPE_PINNED_STAGING=1 turns it on, see Executable::run):
// the driver copies pageable host memory itself, which measured faster on
// the machines tried so far.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_STAGING_H
#define PIPE_RUNTIME_STAGING_H

#include "runtime/CudaDriver.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace pipert {

/// Two pinned host buffers that host tensors are copied through in chunks:
/// while the DMA engine moves one chunk, the CPU copies the next into the
/// other buffer. Each buffer's event says when the DMA that last used it is
/// done.
struct Staging {
  static constexpr size_t kChunk = size_t(8) << 20;
  void *buffers[2] = {nullptr, nullptr};
  CUevent done[2] = {nullptr, nullptr};

  static Result<std::unique_ptr<Staging>> create(const CudaDriver &cu) {
    auto staging = std::make_unique<Staging>();
    for (int i = 0; i < 2; ++i) {
      if (Status s = checkCuda(cu.cuMemHostAlloc(&staging->buffers[i], kChunk, 0),
                               "cuMemHostAlloc", "for pinned staging");
          !s.ok())
        return s;
      if (Status s = checkCuda(cu.cuEventCreate(&staging->done[i],
                                                CU_EVENT_DISABLE_TIMING),
                               "cuEventCreate");
          !s.ok())
        return s;
    }
    return staging;
  }
  void destroy(const CudaDriver &cu) {
    for (int i = 0; i < 2; ++i) {
      if (done[i])
        cu.cuEventDestroy(done[i]);
      if (buffers[i])
        cu.cuMemFreeHost(buffers[i]);
    }
  }

  /// Host to device, through the buffers.
  CUresult upload(const CudaDriver &cu, CUdeviceptr dst, const void *src,
                  size_t bytes, CUstream stream) {
    int slot = 0;
    for (size_t offset = 0; offset < bytes; offset += kChunk, slot ^= 1) {
      size_t n = std::min(kChunk, bytes - offset);
      if (CUresult r = cu.cuEventSynchronize(done[slot]); r != CUDA_SUCCESS)
        return r;
      std::memcpy(buffers[slot], static_cast<const char *>(src) + offset, n);
      if (CUresult r = cu.cuMemcpyHtoDAsync(dst + offset, buffers[slot], n,
                                            stream);
          r != CUDA_SUCCESS)
        return r;
      if (CUresult r = cu.cuEventRecord(done[slot], stream); r != CUDA_SUCCESS)
        return r;
    }
    return CUDA_SUCCESS;
  }

  /// Device to host, through the buffers; returns with `dst` written.
  CUresult download(const CudaDriver &cu, void *dst, CUdeviceptr src,
                    size_t bytes, CUstream stream) {
    size_t chunks = (bytes + kChunk - 1) / kChunk;
    auto issue = [&](size_t c) {
      size_t offset = c * kChunk, n = std::min(kChunk, bytes - offset);
      CUresult r = cu.cuMemcpyDtoHAsync(buffers[c & 1], src + offset, n, stream);
      return r == CUDA_SUCCESS ? cu.cuEventRecord(done[c & 1], stream) : r;
    };
    if (chunks == 0)
      return CUDA_SUCCESS;
    if (CUresult r = issue(0); r != CUDA_SUCCESS)
      return r;
    for (size_t c = 0; c < chunks; ++c) {
      if (CUresult r = cu.cuEventSynchronize(done[c & 1]); r != CUDA_SUCCESS)
        return r;
      // The next chunk's DMA runs while this one is copied out.
      if (c + 1 < chunks)
        if (CUresult r = issue(c + 1); r != CUDA_SUCCESS)
          return r;
      size_t offset = c * kChunk, n = std::min(kChunk, bytes - offset);
      std::memcpy(static_cast<char *>(dst) + offset, buffers[c & 1], n);
    }
    return CUDA_SUCCESS;
  }
};

} // namespace pipert

#endif // PIPE_RUNTIME_STAGING_H
