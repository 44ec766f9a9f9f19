//===- GpuTest.cpp - GPU results against the CPU reference ----------------===//
//
// Each kernel these pipelines generate is compiled by NVRTC for sm_90 even
// where there is no GPU (NvrtcCompilesEveryKernel); the rest runs on the
// GPU, or reports itself skipped with the reason when there is none.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "runtime/CudaDriver.h"
#include "runtime/Nvrtc.h"

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

namespace {

struct Case {
  const char *name;
  const char *source;
  std::vector<DType> inputDTypes;
  /// The shape of each input, given N (first dim) and W (last dim).
  std::vector<std::vector<int64_t>> (*shapes)(int64_t n, int64_t w);
};

std::vector<std::vector<int64_t>> imageAndScalar(int64_t n, int64_t w) {
  return {{n, 3, w}, {}};
}
std::vector<std::vector<int64_t>> twoVectors(int64_t n, int64_t) {
  return {{n}, {n}};
}
std::vector<std::vector<int64_t>> oneMatrix(int64_t n, int64_t w) {
  return {{n, w}};
}

const Case kCases[] = {
    {"scale",
     "pipeline scale(x: u8[N, C, W], g: f32) -> (unit: f32[N, C, W], y: u8[N, C, W]) {\n"
     "  unit = f32(x) / 255\n  y = u8(unit * g * 255)\n}\n",
     {DType::U8, DType::F32}, imageAndScalar},
    {"int_mix",
     "pipeline int_mix(a: i32[N], b: i16[N]) -> (s: i32[N], q: f64[N], c: u8[N]) {\n"
     "  s = a * 3 - i32(b)\n  q = f64(a) / f64(b)\n  c = u8(s)\n}\n",
     {DType::I32, DType::I16}, twoVectors},
    {"casts",
     "pipeline casts(x: f64[N, W]) -> (a: i8[N, W], b: u16[N, W], c: i64[N, W], "
     "d: u64[N, W], e: f32[N, W], f: u32[N, W]) {\n"
     "  a = i8(x)\n  b = u16(x * 300)\n  c = i64(x * 1e17)\n  d = u64(x * 1e18)\n"
     "  e = f32(x) - 0.5\n  f = u32(-x)\n}\n",
     {DType::F64}, oneMatrix},
};

/// The reason to skip GPU tests, or empty when there is a GPU.
std::string noGpuReason() {
  pipert::Status gpu = pipert::checkGpuAvailable();
  return gpu.ok() ? std::string() : gpu.message();
}

#define REQUIRE_GPU()                                                          \
  if (std::string reason = noGpuReason(); !reason.empty())                     \
  GTEST_SKIP() << "no CUDA GPU: " << reason

std::vector<HostTensor> randomInputs(const Case &c, int64_t n, int64_t w,
                                     unsigned seed) {
  std::vector<HostTensor> inputs;
  std::vector<std::vector<int64_t>> shapes = c.shapes(n, w);
  for (size_t i = 0; i < shapes.size(); ++i)
    inputs.push_back(randomTensor(c.inputDTypes[i], shapes[i], seed + i,
                                  i == 1 && c.inputDTypes[i] == DType::F32 ? 0.5 : -300,
                                  i == 1 && c.inputDTypes[i] == DType::F32 ? 1.5 : 300));
  return inputs;
}

} // namespace

TEST(Gpu, NvrtcCompilesEveryKernel) {
  if (!pipert::getNvrtcVersion().ok())
    GTEST_SKIP() << "NVRTC unavailable: "
                 << pipert::getNvrtcVersion().status().message();
  for (const Case &c : kCases) {
    auto pipeline = compileOrDie(c.source);
    ASSERT_TRUE(pipeline);
    for (const pipert::PlanKernel &kernel : pipeline->plan().kernels) {
      auto cubin = pipert::compileCuda(kernel.source, kernel.entry, 90, false);
      EXPECT_TRUE(cubin.ok()) << c.name << ": " << cubin.status().message();
      EXPECT_GT(cubin->image.size(), 0u);
    }
  }
}

TEST(Gpu, MatchesReferenceOnRandomOddSizes) {
  REQUIRE_GPU();
  const std::pair<int64_t, int64_t> sizes[] = {
      {1, 1}, {3, 7}, {5, 333}, {2, 100003}, {0, 5}};
  for (const Case &c : kCases) {
    auto pipeline = compileOrDie(c.source);
    ASSERT_TRUE(pipeline);
    unsigned seed = 100;
    for (auto [n, w] : sizes) {
      std::vector<HostTensor> inputs = randomInputs(c, n, w, seed++);
      auto expected = pipeline->runReference(inputs);
      ASSERT_TRUE(expected.ok()) << expected.status().message();
      auto got = pipeline->run(inputs);
      ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
      ASSERT_EQ(got->size(), expected->size());
      for (size_t r = 0; r < got->size(); ++r)
        EXPECT_TRUE(sameBits((*got)[r], (*expected)[r]))
            << c.name << " result " << r << " at N=" << n << " W=" << w;
    }
  }
}

/// Device memory for a test, freed at scope exit.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) : bytes(bytes) {
    const pipert::CudaDriver &cu = **pipert::getCudaDriver();
    EXPECT_EQ(cu.cuMemAlloc(&ptr, bytes ? bytes : 1), CUDA_SUCCESS);
  }
  ~DeviceBuffer() { (*pipert::getCudaDriver())->cuMemFree(ptr); }
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

TEST(Gpu, DevicePointersInAndOutMatchHost) {
  REQUIRE_GPU();
  const Case &c = kCases[0];
  auto pipeline = compileOrDie(c.source);
  ASSERT_TRUE(pipeline);
  std::vector<HostTensor> inputs = randomInputs(c, 4, 1001, 7);
  auto expected = pipeline->runReference(inputs);
  ASSERT_TRUE(expected.ok());

  DeviceBuffer x(inputs[0].numBytes()), unit((*expected)[0].numBytes()),
      y((*expected)[1].numBytes());
  x.upload(inputs[0].data());
  pipert::TensorRef xRef{x.get(), DType::U8, inputs[0].shape(),
                         pipert::Memory::Device};
  // Mixed: the scalar from the host, one output on the device, one on the host.
  HostTensor hostY(DType::U8, (*expected)[1].shape());
  pipert::Status status = pipeline->run(
      {xRef, inputs[1].ref()},
      {pipert::TensorRef{unit.get(), DType::F32, (*expected)[0].shape(),
                         pipert::Memory::Device},
       hostY.ref()});
  ASSERT_TRUE(status.ok()) << status.message();
  HostTensor hostUnit(DType::F32, (*expected)[0].shape());
  unit.download(hostUnit.data());
  EXPECT_TRUE(sameBits(hostUnit, (*expected)[0]));
  EXPECT_TRUE(sameBits(hostY, (*expected)[1]));
}

TEST(Gpu, InputsAreNeverWritten) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N]) -> (y: f32[N], same: f32[N]) { y = x * 2\n same = x }\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {12345}, 3);
  HostTensor copy = x;
  auto got = pipeline->run({x});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(sameBits(x, copy));
  EXPECT_TRUE(sameBits((*got)[1], x));
}

TEST(Gpu, BadInputsLeaveOutputsUntouched) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(a: f32[N], b: f32[N]) -> (y: f32[N]) { y = a + b }\n");
  ASSERT_TRUE(pipeline);
  HostTensor a = randomTensor(DType::F32, {10}, 1);
  HostTensor b = randomTensor(DType::F32, {11}, 2);
  HostTensor y(DType::F32, {10});
  for (int i = 0; i < 10; ++i)
    y.as<float>()[i] = -12345.f;
  HostTensor poisoned = y;
  pipert::Status status = pipeline->run({a.ref(), b.ref()}, {y.ref()});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "dim N is 10 in input 'a' dim 0 but 11 in input 'b' dim 0");
  EXPECT_TRUE(sameBits(y, poisoned));

  HostTensor b10 = randomTensor(DType::F32, {10}, 2);
  HostTensor wrong(DType::F32, {9});
  status = pipeline->run({a.ref(), b10.ref()}, {wrong.ref()});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "output 'y' is f32[9] but the result is f32[10]");
  status = pipeline->run({a.ref(), b10.ref()},
                         {pipert::TensorRef{nullptr, DType::F32, {10},
                                            pipert::Memory::Host}});
  EXPECT_EQ(status.message(), "output 'y' is a null pointer");
}

TEST(Gpu, OutOfMemoryIsAnError) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N]) -> (y: f32[N]) { y = x * 2 }\n");
  ASSERT_TRUE(pipeline);
  // 2^45 floats (128 TiB) fit no GPU. The input pointer is never read: the
  // allocation for the output fails first.
  float dummy = 0;
  int64_t huge = int64_t(1) << 45;
  pipert::Status status = pipeline->run(
      {pipert::TensorRef{&dummy, DType::F32, {huge}, pipert::Memory::Device}},
      {pipert::TensorRef{&dummy, DType::F32, {huge}, pipert::Memory::Host}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos)
      << status.message();
  // The process and the GPU are still usable.
  HostTensor x = randomTensor(DType::F32, {5}, 1);
  EXPECT_TRUE(pipeline->run({x}).ok());
}
