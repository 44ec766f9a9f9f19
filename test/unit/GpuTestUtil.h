//===- GpuTestUtil.h - What the GPU tests share ----------------*- C++ -*-===//
//
// Skipping without a GPU (with the reason), device memory that frees
// itself, and comparing a run on the GPU with the reference executor's.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_TEST_UNIT_GPUTESTUTIL_H
#define PIPE_TEST_UNIT_GPUTESTUTIL_H

#include "TestUtil.h"

#include "runtime/CudaDriver.h"

namespace pipetest {

/// The reason to skip GPU tests, or empty when there is a GPU.
inline std::string noGpuReason() {
  pipert::Status gpu = pipert::checkGpuAvailable();
  return gpu.ok() ? std::string() : gpu.message();
}

#define REQUIRE_GPU()                                                          \
  if (std::string reason = pipetest::noGpuReason(); !reason.empty())           \
  GTEST_SKIP() << "no CUDA GPU: " << reason

/// Runs `pipeline` on `inputs` on the GPU and on the reference, and expects
/// every result to agree within `tolerance`; `where` names the case.
inline void expectMatchesReference(pipec::JitPipeline &pipeline,
                                   const std::vector<pipert::HostTensor> &inputs,
                                   double tolerance, const std::string &where) {
  auto expected = pipeline.runReference(inputs);
  ASSERT_TRUE(expected.ok()) << where << ": " << expected.status().message();
  auto got = pipeline.run(inputs);
  ASSERT_TRUE(got.ok()) << where << ": " << got.status().message();
  ASSERT_EQ(got->size(), expected->size());
  for (size_t r = 0; r < got->size(); ++r)
    EXPECT_TRUE(sameValues((*got)[r], (*expected)[r], tolerance))
        << "result " << r << " " << where;
}

/// Device memory for a test, freed at scope exit.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) : bytes(bytes) {
    const pipert::CudaDriver &cu = **pipert::getCudaDriver();
    EXPECT_EQ(cu.cuMemAlloc(&ptr, bytes ? bytes : 1), CUDA_SUCCESS);
  }
  ~DeviceBuffer() { (*pipert::getCudaDriver())->cuMemFree(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  void upload(const void *data) {
    EXPECT_EQ((*pipert::getCudaDriver())->cuMemcpyHtoD(ptr, data, bytes),
              CUDA_SUCCESS);
  }
  void download(void *data) {
    EXPECT_EQ((*pipert::getCudaDriver())->cuMemcpyDtoH(data, ptr, bytes),
              CUDA_SUCCESS);
  }
  void *get() { return reinterpret_cast<void *>(ptr); }

private:
  CUdeviceptr ptr = 0;
  size_t bytes;
};

} // namespace pipetest

#endif // PIPE_TEST_UNIT_GPUTESTUTIL_H
