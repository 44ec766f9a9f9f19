//===- RuntimeTest.cpp - Runtime checks that need no GPU ------------------===//

#include "CatchHelpers.h"
#include "TestUtil.h"

#include "families/blur/BlurParams.h"
#include "families/elementwise/ElementwiseParams.h"
#include "runtime/CudaDriver.h"
#include "runtime/Executable.h"
#include "runtime/Nvrtc.h"

#include <random>

using namespace pipetest;
using pipert::DType;

static std::vector<pipert::PlanBuffer> params() {
  return {{"a", DType::U8, {{-1, "N"}, {-1, "H"}}},
          {"b", DType::U8, {{-1, "N"}, {4, ""}}}};
}

static pipert::TensorRef ref(void *data, DType dtype, std::vector<int64_t> shape) {
  return pipert::TensorRef{data, dtype, std::move(shape), pipert::Memory::Host};
}

// The launch's divisors (PipeKernel.cuh's pipe_fast_div computes the same
// formula on the device): every numerator below 2^31 divides exactly, for
// divisors from 1 to 2^31 - 1; sizes past that give no divisor.
TEST(Runtime, ElementwiseDivisorsDivideExactly) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> divisors = {
      1,       2,     3,           7,       224,           1000,
      1023,    1024,  1025,        65535,   65536,         65537,
      1 << 20, (1 << 20) + 1, 1 << 30, (1 << 30) + 1, 0x7ffffffe, 0x7fffffff};
  for (int i = 0; i < 200; ++i)
    divisors.push_back(int64_t(rng() % 0x7fffffff) + 1);
  for (int i = 0; i < 50; ++i)
    divisors.push_back(int64_t(rng() % 5000) + 1);
  for (int64_t d : divisors) {
    const pipert::ElementwiseDivisor divisor =
        pipert::ElementwiseDivisor::of(d);
    std::vector<uint32_t> numerators = {0, 1, 0x7fffffff, 0x7ffffffe};
    for (int64_t k : {int64_t(1), int64_t(2), int64_t(3), 0x7fffffff / d})
      for (int64_t delta : {-1, 0, 1}) {
        int64_t n = k * d + delta;
        if (n >= 0 && n <= 0x7fffffff)
          numerators.push_back(uint32_t(n));
      }
    for (int i = 0; i < 2000; ++i)
      numerators.push_back(uint32_t(rng() % 0x80000000u));
    for (uint32_t n : numerators)
      ASSERT_EQ(divisor.divide(n), n / uint32_t(d))
          << n << " / " << d << " (mul " << divisor.mul << ", shift "
          << divisor.shift << ")";
  }
  EXPECT_EQ(pipert::ElementwiseDivisor::of(int64_t(1) << 31).mul, 0u);
  EXPECT_EQ(pipert::ElementwiseDivisor::of(0).shift, 0u);
}

// An intermediate is named by where the source computes it: its own
// location (the reference's), else the kernel that writes it.
TEST(Runtime, IntermediatesAreNamedByWhereTheyAreComputed) {
  pipert::Plan plan;
  plan.buffers = {{"x", DType::U8, {}}, {"", DType::F32, {}},
                  {"", DType::F32, {}}, {"", DType::F32, {}}};
  plan.buffers[2].location = "f.pipe:3:5";
  pipert::PlanKernel kernel;
  kernel.outputs = {1};
  kernel.location = "f.pipe:2:8";
  plan.kernels.push_back(kernel);
  EXPECT_EQ(pipert::describeBuffer(plan, 0), "'x'");
  EXPECT_EQ(pipert::describeBuffer(plan, 1),
            "intermediate %1 (computed at f.pipe:2:8)");
  EXPECT_EQ(pipert::describeBuffer(plan, 2),
            "intermediate %2 (computed at f.pipe:3:5)");
  EXPECT_EQ(pipert::describeBuffer(plan, 3), "intermediate %3");
}

TEST(Runtime, BindsSymbolicDims) {
  char byte = 0;
  auto sizes = pipert::bindDims("p", params(),
                                {ref(&byte, DType::U8, {3, 9}),
                                 ref(&byte, DType::U8, {3, 4})});
  ASSERT_TRUE(sizes.ok()) << sizes.status().message();
  EXPECT_EQ(sizes->at("N"), 3);
  EXPECT_EQ(sizes->at("H"), 9);
}

TEST(Runtime, NullDataIsAnErrorUnlessEmpty) {
  auto sizes = pipert::bindDims("p", params(),
                                {ref(nullptr, DType::U8, {3, 9}),
                                 ref(nullptr, DType::U8, {3, 4})});
  ASSERT_FALSE(sizes.ok());
  EXPECT_EQ(sizes.status().message(), "input 'a' is a null pointer");
  auto empty = pipert::bindDims("p", params(),
                                {ref(nullptr, DType::U8, {0, 9}),
                                 ref(nullptr, DType::U8, {0, 4})});
  EXPECT_TRUE(empty.ok()) << empty.status().message();
}

TEST(Runtime, PinnedParametersRefuseTheOtherMemory) {
  char byte = 0;
  std::vector<pipert::PlanBuffer> pinned = params();
  pinned[0].memory = pipert::PlanMemory::Device;
  auto sizes = pipert::bindDims("p", pinned,
                                {ref(&byte, DType::U8, {3, 9}),
                                 ref(&byte, DType::U8, {3, 4})});
  ASSERT_FALSE(sizes.ok());
  EXPECT_EQ(sizes.status().message(),
            "input 'a' is declared @device but is in host memory; pass device "
            "memory, or drop the annotation to let the caller choose");
  pinned[0].memory = pipert::PlanMemory::Host;
  EXPECT_TRUE(pipert::bindDims("p", pinned,
                               {ref(&byte, DType::U8, {3, 9}),
                                ref(&byte, DType::U8, {3, 4})})
                  .ok());
  EXPECT_EQ(pipert::checkPinnedMemory("output 'y'", pipert::PlanMemory::Host,
                                      pipert::Memory::Device)
                .message(),
            "output 'y' is declared @host but is in device memory; pass host "
            "memory, or drop the annotation to let the caller choose");
}

TEST(Runtime, NegativeSizeIsAnError) {
  char byte = 0;
  auto sizes = pipert::bindDims("p", params(),
                                {ref(&byte, DType::U8, {3, -1}),
                                 ref(&byte, DType::U8, {3, 4})});
  ASSERT_FALSE(sizes.ok());
  EXPECT_EQ(sizes.status().message(), "input 'a' has a negative size in dim 1");
}

// Issue 15, item 1: an element count that overflows is refused before
// anything is allocated from it (2^32 * 2^32 wrapped to 0).
TEST(Runtime, OverflowingSizesAreErrors) {
  char byte = 0;
  auto sizes = pipert::bindDims("p", params(),
                                {ref(&byte, DType::U8, {int64_t(1) << 32,
                                                        int64_t(1) << 32}),
                                 ref(&byte, DType::U8, {int64_t(1) << 32, 4})});
  ASSERT_FALSE(sizes.ok());
  EXPECT_EQ(sizes.status().message(),
            "input 'a' has shape u8[4294967296, 4294967296], whose size in "
            "bytes passes 2^63");
  EXPECT_EQ(pipert::checkedNumBytes(DType::F32, {int64_t(1) << 61, 3}),
            std::nullopt);
  EXPECT_EQ(pipert::checkedNumBytes(DType::F32, {0, INT64_MAX}), 0);
  EXPECT_EQ(pipert::checkedNumBytes(DType::F64, {3, 5}), 120);

  // A result whose dims each fit but whose bytes do not: f32[N, H] with N
  // bound to 2^62 (the input u8[N, 0] is empty, so it binds).
  pipert::Plan plan;
  plan.name = "p";
  plan.numParams = 1;
  plan.buffers = {{"x", DType::U8, {{-1, "N"}, {0, ""}}},
                  {"y", DType::F32, {{-1, "N"}, {-1, "N + 1"}}}};
  plan.results = {1};
  plan.resultNames = {"y"};
  auto shapes = pipert::resultShapes(
      plan, {ref(nullptr, DType::U8, {int64_t(1) << 62, 0})});
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().message(),
            "pipeline 'p': 'y' would be f32[4611686018427387904, "
            "4611686018427387905], whose size in bytes passes 2^63");
  // A dim expression past the 64-bit integers is named as such.
  plan.buffers[1].dims[1].symbol = "N * N";
  shapes = pipert::resultShapes(
      plan, {ref(nullptr, DType::U8, {int64_t(1) << 62, 0})});
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().message(),
            "pipeline 'p': dim N * N passes the 64-bit integers (N = "
            "4611686018427387904)");
}

// A caller's HostTensor of a shape that cannot be is refused as std::vector
// refuses one (an exception naming it), never allocated wrapped and never
// an abort; allocate() says it, and host memory that runs out, as a Status.
TEST(Runtime, HostTensorsOfImpossibleShapesAreRefused) {
  EXPECT_EQ(hostTensorConstructionError(DType::F32, {4, -1}),
            "std::invalid_argument: HostTensor f32[4, -1]: a dim is negative");
  EXPECT_EQ(hostTensorConstructionError(DType::F64, {INT64_MAX / 4, 2}),
            "std::invalid_argument: HostTensor f64[2305843009213693951, 2]: "
            "more than 2^63 bytes");
  EXPECT_EQ(hostTensorConstructionError(DType::F64, {0, -1}),
            "std::invalid_argument: HostTensor f64[0, -1]: a dim is negative");
  EXPECT_EQ(hostTensorConstructionError(DType::U8, {3, 0, INT64_MAX}), "");
  auto negative = pipert::HostTensor::allocate(DType::U8, {-3});
  ASSERT_FALSE(negative.ok());
  EXPECT_TRUE(negative.status().isBadArgument());
  EXPECT_EQ(negative.status().message(),
            "HostTensor u8[-3]: a dim is negative");
  auto wide = pipert::HostTensor::allocate(DType::I32, {int64_t(1) << 31,
                                                        int64_t(1) << 31});
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(),
            "HostTensor i32[2147483648, 2147483648]: more than 2^63 bytes");
  auto empty = pipert::HostTensor::allocate(DType::U8, {0, INT64_MAX});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->numBytes(), 0u);
  auto small = pipert::HostTensor::allocate(DType::U16, {3, 5});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->numBytes(), 30u);
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(small->as<uint16_t>()[i], 0);
}

TEST(Runtime, HostTensorPastTheAddressSpaceIsOutOfMemory) {
  SKIP_UNDER_ASAN();
  // 2^52 bytes: more than any x86-64 or AArch64 process can map.
  auto huge = pipert::HostTensor::allocate(DType::F32, {int64_t(1) << 50});
  ASSERT_FALSE(huge.ok());
  EXPECT_FALSE(huge.status().isBadArgument());
  EXPECT_EQ(huge.status().message(),
            "out of host memory: f32[1125899906842624] needs "
            "4503599627370496 bytes");
}

// A dim check whose size passes the 64-bit integers or divides by zero for
// the run's sizes is the program's (x[W * 2^62] with W = 4), not an
// internal error; one the plan cannot evaluate at all still is.
TEST(Runtime, DimChecksThatCannotBeComputedNameTheSizes) {
  pipert::Plan plan;
  plan.name = "p";
  plan.numParams = 1;
  plan.buffers = {{"x", DType::U8, {{-1, "W"}, {-1, "H"}}}};
  char byte = 0;
  auto run = [&](const std::string &expression) {
    plan.dimChecks = {{expression, "the index (W * 4611686018427387904) is "
                                   "outside the dim (W)"}};
    return pipert::resultShapes(plan, {ref(&byte, DType::U8, {4, 2})})
        .status()
        .message();
  };
  EXPECT_EQ(run("W - 1 - 4611686018427387904 * W"),
            "pipeline 'p': a size passes the 64-bit integers (W = 4), where "
            "it checks: the index (W * 4611686018427387904) is outside the "
            "dim (W)");
  EXPECT_EQ(run("W // (H - 2)"),
            "pipeline 'p': a size divides by zero (H = 2, W = 4), where it "
            "checks: the index (W * 4611686018427387904) is outside the dim "
            "(W)");
  EXPECT_EQ(run("Q - 1"),
            "internal error: pipeline 'p' checks a dim it cannot compute: Q - 1");
}

TEST(Runtime, LoadWithoutGpuSaysWhy) {
  if (pipert::checkGpuAvailable().ok())
    GTEST_SKIP() << "a GPU is present; this checks the message without one";
  auto pipeline = compileOrDie("pipeline p(x: f32[N]) -> (y: f32[N]) { y = x }\n");
  ASSERT_TRUE(pipeline);
  pipert::HostTensor x(DType::F32, {4});
  auto results = pipeline->run({x});
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message().rfind("no ", 0), 0u)
      << results.status().message();
}

TEST(Runtime, FailedNvrtcCompileReportsLogAndSource) {
  if (!pipert::getNvrtcVersion().ok())
    GTEST_SKIP() << "NVRTC unavailable: "
                 << pipert::getNvrtcVersion().status().message();
  auto compiled = pipert::compileCuda(
      "extern \"C\" __global__ void broken() { undefined_thing(); }", "broken",
      90, /*ptx=*/false);
  ASSERT_FALSE(compiled.ok());
  const std::string &message = compiled.status().message();
  EXPECT_NE(message.find("NVRTC failed to compile kernel 'broken' for sm_90"),
            std::string::npos) << message;
  EXPECT_NE(message.find("undefined_thing"), std::string::npos) << message;
  size_t at = message.find("the generated source is in ");
  ASSERT_NE(at, std::string::npos) << message;
  std::string path = message.substr(at + 27);
  FILE *file = fopen(path.c_str(), "r");
  ASSERT_NE(file, nullptr) << path;
  fclose(file);
}

// A per-sample window or sigma past the most taps (2^24 + 1) names the one
// that decides: it printed a sigma of 0 beside a window given alone, and a
// window of 0 beside a sigma, and said 'larger than 2^24 taps'.
TEST(Runtime, BlurTooLargeNamesWindowOrSigma) {
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 1, 4, 16777219, 0),
            "gaussian_blur at f.pipe:3:7: sample 1: its window is 16777219; a "
            "window is at most 2^24 + 1 (16777217) taps; nothing was written");
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 0, 4, 0, 1e7),
            "gaussian_blur at f.pipe:3:7: sample 0: its sigma is "
            "1e+07, which needs a window of more than 2^24 + 1 "
            "(16777217) taps; nothing was written");
  // A sigma is said with the digits that give it back, not six decimals
  // ("-0.000000" for -1e-9).
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 2, 3, 0, double(-1e-9f)),
            "gaussian_blur at f.pipe:3:7: sample 2: its sigma is -1e-09; "
            "sigma must be positive; nothing was written");
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 0, 3, 0, double(-1.f / 3)),
            "gaussian_blur at f.pipe:3:7: sample 0: its sigma is "
            "-0.33333334; sigma must be positive; nothing was written");
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 0, 3, 0, 0.0),
            "gaussian_blur at f.pipe:3:7: sample 0: its sigma is 0; sigma "
            "must be positive; nothing was written");
  // Windows are i32s, saturated from wider dtypes: an i64 of 2^32 + 3 is
  // 2147483647, said as what it may stand for.
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 1, 4, 2147483647, 0),
            "gaussian_blur at f.pipe:3:7: sample 1: its window is 2147483647 "
            "or more (taken as an i32); a window is at most 2^24 + 1 "
            "(16777217) taps; nothing was written");
  EXPECT_EQ(pipert::describeBlurError("f.pipe:3:7", 0, 1, -2147483648LL, 0),
            "gaussian_blur at f.pipe:3:7: sample 0: its window is -2147483648 "
            "or less (taken as an i32); a window must be positive; nothing "
            "was written");
}

// A code the driver cannot name (a stub libcuda's, a newer driver's, or no
// driver at all) is still given by its number, and nothing reads the null
// name the lookup leaves.
TEST(Runtime, DriverErrorsTheDriverCannotNameGiveTheirNumber) {
  // (1000: no enumerator, yet inside CUresult's range, 0 to 1023.)
  pipert::Status s =
      pipert::checkCuda(CUresult(1000), "cuSomething", "doing this");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cuSomething failed doing this: CUDA error 1000");
}
