//===- GpuTest.cpp - GPU results against the CPU reference ----------------===//
//
// Each kernel these pipelines generate is compiled by NVRTC for sm_90 even
// where there is no GPU (NvrtcCompilesEveryKernel); the rest runs on the
// GPU, or reports itself skipped with the reason when there is none.
//
//===----------------------------------------------------------------------===//

#include "GpuTestUtil.h"

#include "runtime/CudaDriver.h"
#include "runtime/Nvrtc.h"

#include <algorithm>
#include <functional>
#include <random>
#include <set>

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

namespace {

using Shapes = std::vector<std::vector<int64_t>>;

struct Case {
  const char *name;
  const char *source;
  std::vector<DType> inputDTypes;
  /// The shape of each input, given sizes n (first dim) and w (last dim).
  Shapes (*shapes)(int64_t n, int64_t w);
  /// 0 for exact agreement; transcendental functions differ by an ulp or
  /// two between CUDA's math library and the host's.
  double relativeTolerance = 0;
};

const Case kCases[] = {
    {"scale",
     "pipeline scale(x: u8[N, C, W], g: f32) -> (unit: f32[N, C, W], y: u8[N, C, W]) {\n"
     "  unit = f32(x) / 255\n  y = u8(unit * g * 255)\n}\n",
     {DType::U8, DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 3, w}, {}}; }},
    {"int_mix",
     "pipeline int_mix(a: i32[N], b: i16[N]) -> (s: i32[N], q: f64[N], c: u8[N]) {\n"
     "  s = a * 3 - i32(b)\n  q = f64(a) / f64(b)\n  c = u8(s)\n}\n",
     {DType::I32, DType::I16},
     [](int64_t n, int64_t) -> Shapes { return {{n}, {n}}; }},
    {"casts",
     "pipeline casts(x: f64[N, W]) -> (a: i8[N, W], b: u16[N, W], c: i64[N, W], "
     "d: u64[N, W], e: f32[N, W], f: u32[N, W], g: f16[N, W], h: bf16[N, W], "
     "m: bool[N, W]) {\n"
     "  a = i8(x)\n  b = u16(x * 300)\n  c = i64(x * 1e17)\n  d = u64(x * 1e18)\n"
     "  e = f32(x) - 0.5\n  f = u32(-x)\n  g = f16(x * 300)\n  h = bf16(x)\n"
     "  m = bool(x)\n}\n",
     {DType::F64},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}}; }},
    {"half",
     "pipeline half(a: f16[N, W], b: bf16[N, W]) -> (x: f16[N, W], y: bf16[N, W], "
     "z: f32[N, W], i: i16[N, W]) {\n"
     "  x = a * 2 + 1\n  y = b - bf16(a)\n  z = f32(a) + f32(b)\n  i = i16(a)\n}\n",
     {DType::F16, DType::BF16},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {n, w}}; }},
    {"logic",
     "pipeline logic(a: i16[N, W], b: i16[N, W]) -> (m: bool[N, W], s: i16[N, W], "
     "q: i16[N, W], c: u8[N, W]) {\n"
     "  m = (a > b) && !(a == 0) || a < -100\n"
     "  s = select(m, a // (b | 1), a % 7)\n"
     "  q = a // (b & 3) + a % (b & 3)\n"
     "  c = u8(m) + u8(a & 255) ^ 3\n}\n",
     {DType::I16, DType::I16},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {n, w}}; }},
    {"bits",
     "pipeline bits(a: u32[N, W], k: i64[N, W]) -> (x: u32[N, W], y: i64[N, W]) {\n"
     "  x = (a << (a & 31)) >> 3 ^ ~a\n"
     "  y = k ** 3 + (k >> 70) + abs(k) + (k << (k & 127))\n}\n",
     {DType::U32, DType::I64},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {n, w}}; }},
    {"rounding",
     "pipeline rounding(d: f64[N, W]) -> (b: f64[N, W], r: i32[N, W]) {\n"
     "  b = floor(d) + ceil(d) * 10 + round(d) * 100 + min(d, 0) + max(d, 1) + "
     "clamp(d, -5, 5)\n  r = i32(d ** 2) % 1000\n}\n",
     {DType::F64},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}}; }},
    {"math",
     "pipeline math(x: f32[N, W]) -> (a: f32[N, W], s: f32[N, W], t: f32[N, W]) {\n"
     "  a = exp(x / 100) + log(abs(x) + 1) + sin(x) * cos(x) + tanh(x / 50) + x ** 1.5\n"
     "  s = sqrt(abs(x)) + rsqrt(abs(x) + 1)\n"
     "  t = atan2(x, x * x - 50)\n}\n",
     {DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}}; },
     /*relativeTolerance=*/1e-5},
    {"normalize",
     "pipeline normalize(images: u8[N, H, W, 3]) -> (out: f32[N, 3, H, W]) {\n"
     "  out = transpose((f32(images) - [123.675, 116.28, 103.53]) / "
     "[58.395, 57.12, 57.375], [0, 3, 1, 2])\n}\n",
     {DType::U8},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 5, w, 3}}; }},
    {"broadcast",
     "pipeline broadcast(x: u8[N, W], row: f32[W], col: f32[N, 1]) -> (y: f32[N, W], "
     "t: f32[W, N]) {\n"
     "  y = f32(x) * row + col\n  t = transpose(y, [1, 0])\n}\n",
     {DType::U8, DType::F32, DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {w}, {n, 1}}; }},
    // Broadcasts whose last dim the vector variant's groups divide at some
    // sizes (LastDimGroupsMatchTheReference): 16 u8 elements, 2 f64.
    {"groups_u8",
     "pipeline groups_u8(x: u8[N, W], b: u8[W]) -> (y: u8[N, W]) {\n"
     "  y = x + b * 2\n}\n",
     {DType::U8, DType::U8},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {w}}; }},
    {"groups_f64",
     "pipeline groups_f64(x: i16[N, W], s: f64[N, 1], b: f32[W]) -> (z: f64[N, W]) {\n"
     "  z = f64(x) * s + f64(b)\n}\n",
     {DType::I16, DType::F64, DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {n, 1}, {w}}; }},
    {"transpose",
     "pipeline transpose(x: f16[N, R, W], y: u8[N, W, R]) -> (a: f16[N, W, R], "
     "b: f32[W, R, N]) {\n"
     "  a = transpose(x, [0, 2, 1]) * 2\n"
     "  b = transpose(f32(y), [1, 2, 0]) + f32(transpose(x, [2, 1, 0]))\n}\n",
     {DType::F16, DType::U8},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 45, w}, {n, w, 45}}; }},
    {"reshape",
     "pipeline reshape(x: f32[N, 4, W]) -> (z: f32[N, W, 4], y: f32[N, 4, W]) {\n"
     "  z = reshape(x * 2, [N, W, 4]) + 1\n  y = x\n}\n",
     {DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 4, w}}; }},
    // Every layout class: inner (chunked when W is long), outer, strided,
    // non-contiguous axes, full; prologues, epilogues, keepdims.
    {"reductions",
     "pipeline reductions(x: f32[N, C, W], m: u8[N, C, W]) -> (s: f32[N], "
     "mx: f32[N, W], mn: u8[C], p: u64[N, C], a: bool[N, 1, W], t: f32, "
     "e: i32[N], q: f64[N, C], al: bool[C, W], hm: f16[W]) {\n"
     "  s = sum(abs(x) * 2, axes = [1, 2])\n"
     "  mx = max(x, axes = [1])\n"
     "  mn = min(m, axes = [0, 2])\n"
     "  p = sum(m, axes = [2])\n"
     "  a = any(m > 200, axes = [1], keepdims = true)\n"
     "  t = max(abs(x))\n"
     "  e = i32(mean(f32(m > 0), axes = [1, 2]) * 1000) + i32(s)\n"
     "  q = prod(f64(m) / 128 + 0.5, axes = [2])\n"
     "  al = all(m != 7, axes = [0])\n"
     "  hm = mean(f16(x) / 8, axes = [0, 1], dtype = f16)\n}\n",
     {DType::F32, DType::U8},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 3, w}, {n, 3, w}}; },
     /*relativeTolerance=*/1e-5},
    // Per-sample windows (up to 15 over 5 rows: wider than the image),
    // sigma only, every border, several dtypes.
    {"blur",
     "pipeline blur(x: u8[N, H, W], w: i32[N], f: f32[N, H, W]) -> "
     "(a: u8[N, H, W], b: f32[N, H, W], c: u8[N, H, W], d: f32[N, H, W], "
     "e: i16[N, H, W], g: u8[N, H, W], h: f32[N, H, W]) {\n"
     "  a = gaussian_blur(x, window = (w & 15) | 1, axes = [1, 2])\n"
     "  b = gaussian_blur(f, sigma = 2.5, axes = [2], border = wrap)\n"
     "  c = gaussian_blur(x, window = 7, axes = [1, 2], border = constant, "
     "fill = 9)\n"
     "  d = gaussian_blur(f, window = 3, axes = [1], border = clamp)\n"
     "  e = gaussian_blur(f, window = 5, sigma = f32(w & 7) + 0.5, axes = [1, 2], "
     "dtype = i16)\n"
     // Radii past the staged column tile (80) and past the staged weights
     // (512): the kernels' other paths.
     "  g = gaussian_blur(x, window = 301, axes = [1, 2])\n"
     "  h = gaussian_blur(f, window = 1201, axes = [1])\n}\n",
     {DType::U8, DType::I32, DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 5, w}, {n}, {n, 5, w}}; },
     /*relativeTolerance=*/1e-5},
    // if and for: predicated branches and an unrolled loop with a bound
    // computed on the GPU, a blur inside the loop.
    {"control",
     "pipeline control(m: u8[N, H, W]) -> (b: u8[N, H, W], y: f32[N, H, W]) {\n"
     "  n = i32(mean(f32(m > 128)) * 4)\n"
     "  b = m\n"
     "  for i in 0 .. n max 3 {\n"
     "    b = gaussian_blur(b, window = 2 * i + 3, axes = [1, 2])\n"
     "  }\n"
     "  if any(m > 250, axes = [1, 2], keepdims = true) {\n"
     "    y = f32(b) * 2\n"
     "  } else {\n"
     "    y = -f32(m)\n"
     "  }\n}\n",
     {DType::U8},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 9, w}}; }},
    // Channels last: both passes strided (the channel dim is innermost),
    // a per-sample sigma, an f16 input.
    {"blur_hwc",
     "pipeline blur_hwc(x: u8[N, H, W, 3], s: f32[N], h: f16[N, H, W, 3]) -> "
     "(a: u8[N, H, W, 3], b: f16[N, H, W, 3]) {\n"
     "  a = gaussian_blur(x, sigma = abs(s) / 100 + 0.3, axes = [1, 2])\n"
     "  b = gaussian_blur(h, window = 5, axes = [1, 2], border = clamp)\n}\n",
     {DType::U8, DType::F32, DType::F16},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 6, w, 3}, {n}, {n, 6, w, 3}}; },
     /*relativeTolerance=*/1e-3},
    // Branches and iterations the host decides (pipe.choose): conditions
    // from a reduction, a host scalar and .cpu(), a loop whose trip count
    // the GPU computes from a scalar, nested in data dependence.
    {"host_control",
     "pipeline host_control(x: f32[N, W], t: f32) -> (y: f32[N, W], s: f32) {\n"
     "  y = x\n"
     "  if mean(x) > 0 {\n"
     "    y = gaussian_blur(x, window = 5, axes = [1])\n"
     "  }\n"
     "  s = 0.0\n"
     "  if t > 1 {\n"
     "    s = max(y)\n"
     "  }\n"
     "  for i in 0 .. i32(t * 3) max 3 {\n"
     "    y = gaussian_blur(y, window = 2 * i + 3, axes = [1]) + 1\n"
     "  }\n"
     "  if t.cpu() > 0.9 {\n"
     "    y = y * 2\n"
     "  }\n}\n",
     {DType::F32, DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, w}, {}}; },
     /*relativeTolerance=*/1e-5},
    // Found by issue 15's fuzzer inside the compiler: reduction fusion
    // built an invalid kernel, and elementwise fusion a cycle.
    {"fused_keepdims",
     "pipeline fused_keepdims(x: f32[N, H, W], r: f32[W]) -> (y: f32[N, H, W]) {\n"
     // (Small integers in the mean, so that its f32 sum is exact in any
     // order.)
     "  y = x * 2 - mean(f32(i32(x) & 7) * f32(i32(r) & 1), axes = [1, 2], "
     "keepdims = true)\n}\n",
     {DType::F32, DType::F32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 5, w}, {w}}; }},
    {"blur_then_branch",
     "pipeline blur_then_branch(x: u8[N, H, W], k: i32[N]) -> (y: bool[N, H, W]) {\n"
     "  y = bool(gaussian_blur(x, window = (k & 7) | 1, axes = [1, 2]))\n"
     "  if sum(f32(x)) > 3 {\n    y = bool(x)\n  }\n}\n",
     {DType::U8, DType::I32},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 6, w}, {n}}; }},
    {"dynamic_blur",
     "pipeline dynamic_blur(masks: u8[N, H, W]) -> (blurred: u8[N, H, W]) {\n"
     "  ratio = mean(f32(masks > 100), axes = [1, 2])\n"
     "  window = i32(16 + ratio * 300) | 1\n"
     "  blurred = gaussian_blur(masks, window = window, axes = [1, 2])\n}\n",
     {DType::U8},
     [](int64_t n, int64_t w) -> Shapes { return {{n, 37, w}}; }},
};

std::vector<HostTensor> randomInputs(const Case &c, int64_t n, int64_t w,
                                     unsigned seed) {
  std::vector<HostTensor> inputs;
  Shapes shapes = c.shapes(n, w);
  for (size_t i = 0; i < shapes.size(); ++i) {
    bool gain = shapes[i].empty() && c.inputDTypes[i] == DType::F32;
    inputs.push_back(randomTensor(c.inputDTypes[i], shapes[i], seed + i,
                                  gain ? 0.5 : -300, gain ? 1.5 : 300));
  }
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
      auto cubin = pipert::compileCuda(kernel.source, kernel.name, 90, false);
      EXPECT_TRUE(cubin.ok()) << c.name << ": " << cubin.status().message();
      EXPECT_GT(cubin->image.size(), 0u);
    }
  }
}

/// Runs every case at each (n, w) of `sizes` on random inputs (seeds from
/// `seed`) and expects the GPU to agree with the reference; `afterRun` sees
/// the pipeline after each run.
static void expectEveryCaseMatches(
    const std::vector<std::pair<int64_t, int64_t>> &sizes, unsigned seed,
    const std::function<void(pipec::JitPipeline &)> &afterRun = {}) {
  for (const Case &c : kCases) {
    auto pipeline = compileOrDie(c.source);
    ASSERT_TRUE(pipeline);
    unsigned next = seed;
    for (auto [n, w] : sizes) {
      expectMatchesReference(*pipeline, randomInputs(c, n, w, next++),
                             c.relativeTolerance,
                             std::string("of ") + c.name + " at N=" +
                                 std::to_string(n) + " W=" + std::to_string(w));
      if (afterRun)
        afterRun(*pipeline);
    }
  }
}

TEST(Gpu, MatchesReferenceOnRandomOddSizes) {
  REQUIRE_GPU();
  expectEveryCaseMatches({{1, 1}, {3, 7}, {5, 333}, {2, 100003}, {0, 5}}, 100);
}

TEST(Gpu, LastDimGroupsMatchTheReference) {
  REQUIRE_GPU();
  // Last dims that groups of 2, 4, 8 and 16 elements divide, so that
  // kernels reading inputs through broadcasts take the vector variant.
  std::set<std::string> grouped;
  expectEveryCaseMatches(
      {{4, 96}, {3, 48}, {1, 16}}, 300, [&](pipec::JitPipeline &pipeline) {
        for (const std::string &entry :
             pipeline.lastRunStats().elementwiseVariants)
          if (entry.size() > 4 &&
              entry.compare(entry.size() - 4, 4, "_vec") == 0)
            grouped.insert(entry);
      });
  // The ones that must have taken it (more do: broadcast's, reshape's).
  for (const char *entry : {"normalize_k0_vec", "groups_u8_k0_vec",
                            "groups_f64_k0_vec"})
    EXPECT_TRUE(grouped.count(entry)) << entry << " was not launched";
}

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

// Results that do not fit in host memory fail the run with a message that
// names the result; nothing has run.
TEST(Gpu, HostResultsPastHostMemoryAreAnError) {
  REQUIRE_GPU();
  SKIP_UNDER_ASAN();
  auto pipeline = compileOrDie(
      "pipeline outer(a: f32[N], b: f32[M], c: f32[K]) -> (y: f32[N, M, K]) "
      "{\n  y = reshape(a, [N, 1, 1]) + reshape(b, [M, 1]) + c\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor a(DType::F32, {1 << 17});
  auto results = pipeline->run({a, a, a});
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "result 'y': out of host memory: f32[131072, 131072, 131072] "
            "needs 9007199254740992 bytes");
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

TEST(Gpu, BadBlurWindowNamesTheSampleAndWritesNothing) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N, W], w: i32[N]) -> (y: u8[N, W]) {\n"
      "  y = gaussian_blur(x, window = w, axes = [1])\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::U8, {4, 1000}, 1);
  HostTensor w(DType::I32, {4});
  const int32_t windows[] = {3, 5, 4, -1};
  std::memcpy(w.data(), windows, sizeof windows);
  HostTensor y(DType::U8, {4, 1000});
  std::memset(y.data(), 77, y.numBytes());
  HostTensor poisoned = y;
  pipert::Status status = pipeline->run({x.ref(), w.ref()}, {y.ref()});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "gaussian_blur at test.pipe:2:7: sample 2: its window is 4; a "
            "window must be odd; nothing was written");
  EXPECT_TRUE(sameBits(y, poisoned));
  auto reference = pipeline->runReference({x, w});
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(reference.status().message(), status.message());
  // The same executable runs again once the windows are right.
  w.as<int32_t>()[2] = 9;
  w.as<int32_t>()[3] = 1;
  status = pipeline->run({x.ref(), w.ref()}, {y.ref()});
  ASSERT_TRUE(status.ok()) << status.message();
  auto expected = pipeline->runReference({x, w});
  ASSERT_TRUE(expected.ok());
  EXPECT_TRUE(sameValues(y, (*expected)[0]));
  // And reports a later run's bad sample, not an earlier run's (the blur's
  // device word is kept from run to run, tagged with the run).
  w.as<int32_t>()[1] = 0;
  HostTensor good = y;
  status = pipeline->run({x.ref(), w.ref()}, {y.ref()});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "gaussian_blur at test.pipe:2:7: sample 1: its window is 0; a "
            "window must be positive; nothing was written");
  EXPECT_TRUE(sameBits(y, good));
}

TEST(Gpu, BlurVerdictsSurviveTheRunNumbersWrap) {
  REQUIRE_GPU();
  // A blur's device word of run slot r % 64 keeps the tag of the last run
  // in that slot. After the run numbers wrap (2^24), run 1 shares slot 1
  // with run 2^24 - 63: unless the wrap zeroes the words, that run's larger
  // tag would win run 1's atomicMax and hide run 1's bad sample.
  auto pipeline =
      compileOrDie("pipeline p(x: u8[N, W], w: i32[N]) -> (y: u8[N, W]) {\n"
                   "  y = gaussian_blur(x, window = w, axes = [1])\n}\n");
  ASSERT_TRUE(pipeline);
  auto executable = pipert::Executable::load(pipeline->plan());
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  HostTensor x = randomTensor(DType::U8, {4, 300}, 3);
  HostTensor w(DType::I32, {4});
  HostTensor y(DType::U8, {4, 300});
  std::memset(y.data(), 55, y.numBytes());
  HostTensor untouched = y;
  auto runWith = [&](std::vector<int32_t> windows) {
    std::memcpy(w.data(), windows.data(), 4 * sizeof(int32_t));
    return (*executable)->run({x.ref(), w.ref()}, {y.ref()});
  };
  (*executable)->setLatestRunNumberForTesting((1ull << 24) - 64);
  pipert::Status status = runWith({3, 5, 4, 7}); // run 2^24 - 63, slot 1
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("sample 2: its window is 4"),
            std::string::npos)
      << status.message();
  (*executable)->setLatestRunNumberForTesting((1ull << 24) - 1);
  status = runWith({3, -5, 9, 7}); // wraps: run 1, slot 1
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("sample 1: its window is -5"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(sameBits(y, untouched));
  status = runWith({3, 5, 9, 7}); // run 2
  ASSERT_TRUE(status.ok()) << status.message();
  auto expected = pipeline->runReference({x, w});
  ASSERT_TRUE(expected.ok());
  EXPECT_TRUE(sameValues(y, (*expected)[0]));
}

TEST(Gpu, BadBlurWindowStopsTheKernelsAfterIt) {
  REQUIRE_GPU();
  // A blur that refuses a sample writes nothing, and raises the run's
  // guard: the kernels after it (a mean of the blur, a device output
  // computed in place) must not read the blur's unwritten output, nor write
  // from it into the caller's tensor (compute-sanitizer's initcheck found
  // the mean reading it).
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N, W], w: i32[N]) -> (y: f32[N, W], m: f32) {\n"
      "  b = gaussian_blur(x, window = w, axes = [1])\n"
      "  y = f32(b) * 2 + 1\n"
      "  m = mean(f32(b))\n}\n");
  ASSERT_TRUE(pipeline);
  for (const pipert::PlanKernel &kernel : pipeline->plan().kernels)
    EXPECT_TRUE(kernel.family == "blur" ? kernel.raisesGuard : kernel.guarded)
        << kernel.name;
  HostTensor x = randomTensor(DType::U8, {3, 301}, 7);
  HostTensor w(DType::I32, {3});
  HostTensor poisonY(DType::F32, {3, 301});
  for (int64_t i = 0; i < poisonY.numElements(); ++i)
    poisonY.as<float>()[i] = -7.5f;
  DeviceBuffer y(poisonY.numBytes());
  y.upload(poisonY.data());
  HostTensor m(DType::F32, {});
  m.as<float>()[0] = 42.f;
  auto runWith = [&](std::vector<int32_t> windows) {
    std::memcpy(w.data(), windows.data(), 3 * sizeof(int32_t));
    return pipeline->run({x.ref(), w.ref()},
                         {pipert::TensorRef{y.get(), DType::F32, {3, 301},
                                            pipert::Memory::Device},
                          m.ref()});
  };
  pipert::Status status = runWith({3, 6, 5});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("sample 1: its window is 6"),
            std::string::npos)
      << status.message();
  HostTensor gotY(DType::F32, {3, 301});
  y.download(gotY.data());
  EXPECT_TRUE(sameBits(gotY, poisonY));
  EXPECT_EQ(m.as<float>()[0], 42.f);
  // The next run, with good windows, writes both.
  status = runWith({3, 7, 5});
  ASSERT_TRUE(status.ok()) << status.message();
  auto expected = pipeline->runReference({x, w});
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  y.download(gotY.data());
  EXPECT_TRUE(sameValues(gotY, (*expected)[0]));
  EXPECT_TRUE(sameValues(m, (*expected)[1]));
}

TEST(Gpu, ReductionsOfLongRowsAndEmptyAxes) {
  REQUIRE_GPU();
  // Long rows take several chunks and the final pass; an empty reduced axis
  // gives the identities.
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N, W], f: f32[N, W]) -> (s: u64[N], m: f32[N], "
      "lo: f32[N], hi: u8[N], any_: bool[N], all_: bool[N], c: f32[W]) {\n"
      "  s = sum(x, axes = [1])\n  m = mean(f32(x > 0), axes = [1])\n"
      "  lo = min(f, axes = [1])\n  hi = max(x, axes = [1])\n"
      "  any_ = any(x, axes = [1])\n  all_ = all(x, axes = [1])\n"
      "  c = sum(f, axes = [0])\n}\n");
  ASSERT_TRUE(pipeline);
  const std::pair<int64_t, int64_t> shapes[] = {
      {3, 5000001}, {1, 65537}, {4, 0}, {0, 9}, {70000, 3}, {5000, 333}};
  unsigned seed = 7;
  for (auto [n, w] : shapes) {
    HostTensor x = randomTensor(DType::U8, {n, w}, seed++);
    HostTensor f = randomTensor(DType::F32, {n, w}, seed++, 0, 1);
    expectMatchesReference(*pipeline, {x, f}, 1e-5,
                           "at N=" + std::to_string(n) + " W=" + std::to_string(w));
  }
}

TEST(Gpu, BlurOfManySamplesEitherWayMatchesTheReference) {
  REQUIRE_GPU();
  // A blur's first pass of two takes its items backwards, the last
  // forwards (PipeBlur.cuh): per-sample windows in no order, repeated and
  // past the image, through a contiguous and a strided pass and a strided
  // pass alone, twice on one executable.
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N, H, W], w: i32[N]) -> (a: u8[N, H, W], "
      "b: f32[N, H, W]) {\n"
      "  a = gaussian_blur(x, window = w, axes = [1, 2])\n"
      "  b = gaussian_blur(f32(x), window = w, axes = [1], border = clamp)\n"
      "}\n");
  ASSERT_TRUE(pipeline);
  const int64_t n = 37;
  HostTensor x = randomTensor(DType::U8, {n, 29, 45}, 31);
  for (unsigned seed : {1u, 2u}) {
    HostTensor w(DType::I32, {n});
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < n; ++i)
      w.as<int32_t>()[i] = 2 * int32_t(rng() % 40) + 1; // 1 .. 79
    expectMatchesReference(*pipeline, {x, w}, 1e-5,
                           "windows of seed " + std::to_string(seed));
  }
}

TEST(Gpu, BlurOfMoreLinesThanAGridDimHoldsMatchesTheReference) {
  REQUIRE_GPU();
  // Passes take one item per block on a grid of (segment, line) or (column
  // block, row segment, block of lines); over 65535 lines the contiguous
  // pass spreads them over two grid dims (blocks past the last idle), and
  // the strided pass over 65535 blocks of lines falls back to a flat grid.
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[A, B], y: u8[C, D, E]) -> (a: u8[A, B], "
      "b: u8[A, B], c: u8[C, D, E]) {\n"
      "  a = gaussian_blur(x, window = 5, axes = [1])\n"
      "  b = gaussian_blur(x, window = 3, axes = [0, 1])\n"
      "  c = gaussian_blur(y, window = 3, axes = [1], border = wrap)\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::U8, {70001, 9}, 41);
  HostTensor y = randomTensor(DType::U8, {65537, 3, 2}, 42);
  expectMatchesReference(*pipeline, {x, y}, 0, "70001 lines");
}

TEST(Gpu, BlurLinesOfAlignedLengthsMatchTheReference) {
  REQUIRE_GPU();
  // Lines whose length makes every line 16-byte aligned take the vector
  // stores of the contiguous pass (odd sizes elsewhere do not): one short
  // line, a tail thread, several segments.
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N, H, W], f: f32[N, H, W]) -> (a: u8[N, H, W], "
      "b: f32[N, H, W]) {\n"
      "  a = gaussian_blur(x, window = 9, axes = [2])\n"
      "  b = gaussian_blur(f, sigma = 3.5, axes = [1, 2], border = wrap)\n}\n");
  ASSERT_TRUE(pipeline);
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{3, 5, 64}, {2, 3, 1008}, {2, 3, 2096}}) {
    HostTensor x = randomTensor(DType::U8, shape, 21);
    HostTensor f = randomTensor(DType::F32, shape, 22);
    expectMatchesReference(*pipeline, {x, f}, 1e-5,
                           "at W=" + std::to_string(shape[2]));
  }
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

TEST(Gpu, MisalignedDevicePointersUseTheScalarVariant) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N]) -> (y: f32[N]) { y = f32(x) * 0.5 + 1 }\n");
  ASSERT_TRUE(pipeline);
  const int64_t n = 10007;
  HostTensor x = randomTensor(DType::U8, {n}, 5);
  auto expected = pipeline->runReference({x});
  ASSERT_TRUE(expected.ok());
  // Offset both device pointers so that neither is 16-byte aligned.
  DeviceBuffer in(n + 16), out((n + 16) * 4);
  const pipert::CudaDriver &cu = **pipert::getCudaDriver();
  auto inPtr = reinterpret_cast<CUdeviceptr>(in.get()) + 3;
  auto outPtr = reinterpret_cast<CUdeviceptr>(out.get()) + 4;
  ASSERT_EQ(cu.cuMemcpyHtoD(inPtr, x.data(), n), CUDA_SUCCESS);
  pipert::Status status = pipeline->run(
      {pipert::TensorRef{reinterpret_cast<void *>(inPtr), DType::U8, {n},
                         pipert::Memory::Device}},
      {pipert::TensorRef{reinterpret_cast<void *>(outPtr), DType::F32, {n},
                         pipert::Memory::Device}});
  ASSERT_TRUE(status.ok()) << status.message();
  HostTensor y(DType::F32, {n});
  ASSERT_EQ(cu.cuMemcpyDtoH(y.data(), outPtr, n * 4), CUDA_SUCCESS);
  EXPECT_TRUE(sameBits(y, (*expected)[0]));
}

TEST(Gpu, TensorsOver2To31ElementsUse64BitIndices) {
  REQUIRE_GPU();
  // 2^31 + 37 u8 elements, transposed: the coordinate kernel needs 64-bit
  // indices. Checked at sampled positions against the definition.
  auto pipeline = compileOrDie(
      "pipeline big(x: u8[R, C]) -> (y: u8[C, R], z: u8[R, C]) {\n"
      "  y = transpose(x, [1, 0]) + 1\n  z = x * 3\n}\n");
  ASSERT_TRUE(pipeline);
  const int64_t rows = 2, cols = (int64_t(1) << 30) + 19;
  HostTensor x(DType::U8, {rows, cols});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.as<uint8_t>()[i] = uint8_t(i * 2654435761u >> 7);
  auto got = pipeline->run({x});
  ASSERT_TRUE(got.ok()) << got.status().message();
  const HostTensor &y = (*got)[0], &z = (*got)[1];
  std::mt19937_64 rng(9);
  for (int sample = 0; sample < 100000; ++sample) {
    int64_t r = int64_t(rng() % rows), c = int64_t(rng() % cols);
    uint8_t v = x.as<uint8_t>()[r * cols + c];
    ASSERT_EQ(y.as<uint8_t>()[c * rows + r], uint8_t(v + 1)) << r << "," << c;
    ASSERT_EQ(z.as<uint8_t>()[r * cols + c], uint8_t(v * 3)) << r << "," << c;
  }
  // The last elements too, where 32-bit indices would have wrapped.
  int64_t last = cols - 1;
  EXPECT_EQ(y.as<uint8_t>()[last * rows + 1],
            uint8_t(x.as<uint8_t>()[1 * cols + last] + 1));
}

TEST(Gpu, SpecialValuesAgreeWithTheReference) {
  REQUIRE_GPU();
  // Every pair of special and ordinary values through min, max, casts and
  // rounding: the GPU's one-instruction forms keep the portable rules.
  const float specials[] = {0.f, -0.f, NAN, INFINITY, -INFINITY, 1.f, -1.f,
                            0.5f, 2.5f, -2.5f, 255.5f, 256.f, 1e10f, -1e10f,
                            3.4e38f, 1e-40f, -1e-40f};
  const int64_t k = std::size(specials);
  HostTensor a(DType::F32, {k, k}), b(DType::F32, {k, k});
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j) {
      a.as<float>()[i * k + j] = specials[i];
      b.as<float>()[i * k + j] = specials[j];
    }
  auto pipeline = compileOrDie(
      "pipeline s(a: f32[I, J], b: f32[I, J]) -> (lo: f32[I, J], hi: f32[I, J], "
      "u: u8[I, J], i: i32[I, J], h: f16[I, J], r: f32[I, J], c: f32[I, J]) {\n"
      "  lo = min(a, b)\n  hi = max(a, b)\n  u = u8(a)\n  i = i32(a * b)\n"
      "  h = f16(a)\n  r = round(a)\n  c = clamp(a, b, 1)\n}\n");
  ASSERT_TRUE(pipeline);
  auto expected = pipeline->runReference({a, b});
  auto got = pipeline->run({a, b});
  ASSERT_TRUE(expected.ok() && got.ok()) << got.status().message();
  for (size_t r = 0; r < got->size(); ++r) {
    const HostTensor &g = (*got)[r], &e = (*expected)[r];
    size_t size = pipert::dtypeSize(g.dtype());
    for (int64_t i = 0; i < g.numElements(); ++i) {
      double x = valueAt(g, i), y = valueAt(e, i);
      if (std::isnan(x) && std::isnan(y))
        continue;
      // Exact, zeros' signs included.
      EXPECT_EQ(std::memcmp(static_cast<const char *>(g.data()) + i * size,
                            static_cast<const char *>(e.data()) + i * size, size),
                0)
          << "result " << r << " at (" << specials[i / k] << ", "
          << specials[i % k] << "): " << x << " vs " << y;
    }
  }
}

TEST(Gpu, PinnedStagingMovesHostTensorsExactly) {
  REQUIRE_GPU();
  // Over several 8 MiB chunks in and out, with a ragged last chunk.
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N]) -> (y: f32[N]) { y = f32(x) * 0.5 + 1 }\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::U8, {(int64_t(20) << 20) + 13}, 11);
  auto expected = pipeline->runReference({x});
  ASSERT_TRUE(expected.ok());
  setenv("PIPE_PINNED_STAGING", "1", 1);
  auto staged = pipeline->run({x});
  unsetenv("PIPE_PINNED_STAGING");
  ASSERT_TRUE(staged.ok()) << staged.status().message();
  EXPECT_TRUE(sameBits((*staged)[0], (*expected)[0]));
}

TEST(Gpu, FastMathStaysCloseToTheReference) {
  REQUIRE_GPU();
  const char *source =
      "pipeline p(x: f32[N], s: f32) -> (y: f32[N]) { y = (x * 1.5 + 0.25) / s }\n";
  auto fast = pipec::JitPipeline::compile(source, "fast.pipe", "", /*fastMath=*/true);
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  EXPECT_TRUE((*fast)->plan().fastMath);
  HostTensor x = randomTensor(DType::F32, {100003}, 21);
  HostTensor s(DType::F32, {});
  *s.as<float>() = 3.7f;
  auto expected = (*fast)->runReference({x, s});
  auto got = (*fast)->run({x, s});
  ASSERT_TRUE(expected.ok() && got.ok()) << got.status().message();
  // FMA contraction and approximate division: a few ulps of the operands.
  // Near zero, x * 1.5 + 0.25 cancels, so the bound is on the absolute
  // difference, scaled by the operands' size (|x| * 1.5 + 0.25) / s.
  for (int64_t i = 0; i < x.numElements(); ++i) {
    float a = (*got)[0].as<float>()[i], b = (*expected)[0].as<float>()[i];
    float scale = (std::fabs(x.as<float>()[i]) * 1.5f + 0.25f) / 3.7f;
    ASSERT_LE(std::fabs(a - b), 8e-7f * scale) << "at " << i << ": " << a
                                               << " vs " << b;
  }
}

TEST(Gpu, OverlappingOutputsAreRefused) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, N]) -> (y: f32[N, N]) { y = transpose(x, [1, 0]) }\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {33, 33}, 4);
  HostTensor copy = x;
  // In place: the transpose would read what it has already overwritten.
  pipert::Status status = pipeline->run({x.ref()}, {x.ref()});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "output 'y' overlaps input 'x' in memory; Pipe does not run in place");
  EXPECT_TRUE(sameBits(x, copy));
  // Partly overlapping device buffers too.
  DeviceBuffer buffer(33 * 33 * 4 * 2);
  auto *base = static_cast<char *>(buffer.get());
  status = pipeline->run(
      {pipert::TensorRef{base, DType::F32, {33, 33}, pipert::Memory::Device}},
      {pipert::TensorRef{base + 100 * 4, DType::F32, {33, 33},
                         pipert::Memory::Device}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("overlaps input 'x'"), std::string::npos);
}

TEST(Gpu, HostDecidedLoopRunsOnlyItsIterations) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, W], n: i32) -> (y: f32[N, W]) {\n"
      "  y = x\n"
      "  for i in 0 .. n max 6 {\n"
      "    y = gaussian_blur(y, window = 5, axes = [1]) + f32(i)\n"
      "  }\n}\n");
  ASSERT_TRUE(pipeline);
  ASSERT_EQ(pipeline->plan().choices.size(), 6u);
  const int64_t kernels = int64_t(pipeline->plan().kernels.size());
  HostTensor x = randomTensor(DType::F32, {5, 1001}, 7);
  for (int32_t n : {-2, 0, 1, 3, 6, 9}) {
    HostTensor count(DType::I32, {});
    *count.as<int32_t>() = n;
    auto expected = pipeline->runReference({x, count});
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    int iterations = std::clamp(n, 0, 6);
    // Host tensors: the host computes the conditions from n itself (the
    // kernel computing them on the GPU is skipped) and decides at once.
    auto got = pipeline->run({x, count});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(sameValues((*got)[0], (*expected)[0], 1e-5)) << "n=" << n;
    pipert::Executable::RunStats stats = pipeline->lastRunStats();
    EXPECT_EQ(stats.kernelsSkipped, 2 * (6 - iterations) + 1) << "n=" << n;
    EXPECT_EQ(stats.kernelsLaunched + stats.kernelsSkipped, kernels);
    EXPECT_EQ(stats.decisions, 0);
    EXPECT_EQ(stats.controlCopies, 0);
    // Everything on the device, the trip count too.
    DeviceBuffer dx(x.numBytes()), dn(4), dy(x.numBytes());
    dx.upload(x.data());
    dn.upload(count.data());
    HostTensor y(DType::F32, {5, 1001});
    pipert::Status status = pipeline->run(
        {pipert::TensorRef{dx.get(), DType::F32, {5, 1001}, pipert::Memory::Device},
         pipert::TensorRef{dn.get(), DType::I32, {}, pipert::Memory::Device}},
        {pipert::TensorRef{dy.get(), DType::F32, {5, 1001}, pipert::Memory::Device}});
    ASSERT_TRUE(status.ok()) << status.message();
    dy.download(y.data());
    EXPECT_TRUE(sameValues(y, (*expected)[0], 1e-5)) << "n=" << n;
    // Each skipped iteration skips its blur and its + 1; the six
    // conditions come back in one 6-byte copy, one wait.
    stats = pipeline->lastRunStats();
    EXPECT_EQ(stats.kernelsSkipped, 2 * (6 - iterations)) << "n=" << n;
    EXPECT_EQ(stats.kernelsLaunched + stats.kernelsSkipped, kernels);
    EXPECT_EQ(stats.decisions, 1);
    EXPECT_EQ(stats.controlCopies, 1);
    EXPECT_EQ(stats.controlBytes, 6u);
  }
}

TEST(Gpu, ConditionsOnTheDimsAreComputedByTheHost) {
  REQUIRE_GPU();
  // `W > 64` is known once the dims are bound; `t > 0.5` from a host
  // scalar, even beside a condition on the data (it once shared that
  // condition's kernel, so both waited for its copy).
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, W], t: f32) -> (y: f32[N, W]) {\n"
      "  y = x\n"
      "  if W > 64 {\n"
      "    y = gaussian_blur(y, window = 5, axes = [1])\n"
      "  }\n"
      "  if t > 0.5 {\n"
      "    y = gaussian_blur(y, window = 3, axes = [1])\n"
      "  }\n"
      "  if sum(x) > 0 {\n"
      "    y = gaussian_blur(y, window = 7, axes = [1])\n"
      "  }\n}\n");
  ASSERT_TRUE(pipeline);
  for (int64_t width : {63, 65, 200}) {
    HostTensor x = randomTensor(DType::F32, {3, width}, 11);
    for (float t : {0.25f, 0.75f}) {
      HostTensor threshold(DType::F32, {});
      *threshold.as<float>() = t;
      auto expected = pipeline->runReference({x, threshold});
      ASSERT_TRUE(expected.ok()) << expected.status().message();
      auto got = pipeline->run({x, threshold});
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_TRUE(sameValues((*got)[0], (*expected)[0], 1e-5))
          << "W=" << width << " t=" << t;
      // Only the condition on the data comes back: one copy, one wait,
      // and the two blurs the host skipped never launch.
      pipert::Executable::RunStats stats = pipeline->lastRunStats();
      EXPECT_EQ(stats.controlCopies, 1);
      EXPECT_EQ(stats.decisions, 1);
      EXPECT_GE(stats.kernelsSkipped, int(width <= 64) + int(t <= 0.5f));
    }
  }
}

TEST(Gpu, HostConditionsAreReadInPlaceWhenTheyAreHostParameters) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, W], c: bool) -> (y: f32[N, W]) {\n"
      "  y = x\n"
      "  if c {\n"
      "    y = gaussian_blur(x, window = 7, axes = [1])\n"
      "  } else {\n"
      "    y = x - mean(x)\n"
      "  }\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {3, 777}, 9);
  for (bool c : {true, false}) {
    HostTensor flag(DType::Bool, {});
    *flag.as<uint8_t>() = c;
    auto expected = pipeline->runReference({x, flag});
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    auto got = pipeline->run({x, flag});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(sameValues((*got)[0], (*expected)[0], 1e-5)) << "c=" << c;
    pipert::Executable::RunStats stats = pipeline->lastRunStats();
    // The condition is the caller's host memory: no copy, no wait; only
    // the chosen side's kernels run.
    EXPECT_EQ(stats.controlCopies, 0);
    EXPECT_EQ(stats.decisions, 0);
    EXPECT_GE(stats.kernelsSkipped, 1);
  }
}
