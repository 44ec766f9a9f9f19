//===- GpuLayoutTest.cpp - Index-map ops and checks on the GPU ------------===//
//
// The layout ops (slices, crop, flip, pad, concat, take, erase, ...) on the
// GPU against the reference executor at odd sizes, after fusion with the
// elementwise and reduction work around them; and the checks an unclamped
// crop or a take needs: a bad anchor or index fails the run naming it, as
// the reference does, and nothing is written.
//
//===----------------------------------------------------------------------===//

#include "GpuTestUtil.h"

#include "runtime/Nvrtc.h"

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

namespace {

/// Integers drawn uniformly from [lo, hi].
HostTensor randomInts(DType dtype, std::vector<int64_t> shape, unsigned seed,
                      int64_t lo, int64_t hi) {
  HostTensor tensor(dtype, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> pick(lo, hi);
  pipert::visitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      tensor.as<T>()[i] = T(pick(rng));
  });
  return tensor;
}

struct Sizes {
  int64_t n, h, w;
};

struct LayoutCase {
  const char *name;
  const char *source;
  std::vector<HostTensor> (*inputs)(Sizes, unsigned seed);
};

const LayoutCase kLayoutCases[] = {
    {"slices",
     "pipeline slices(x: u8[N, H, W]) -> (a: u8[N, H - 2, ceil(W / 2)], "
     "b: i16[N, W], c: u8[N, H, W], s: f32[N, ceil(H / 3)]) {\n"
     "  a = x[:, 1:H - 1, ::2]\n"
     "  b = i16(x[:, -1]) - i16(x[:, 0])\n"
     "  c = x[::-1, :, ::-1]\n"
     "  s = sum(f32(x[:, ::3, :]), axes = [2])\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w}, seed)};
     }},
    {"crops",
     "pipeline crops(x: f16[N, H, W, 3], ay: i32[N], ax: i32[N]) -> "
     "(pd: f16[N, 5, 4, 3], cl: f32[N, 5, 4, 3], ce: f16[N, 5, 4, 3]) {\n"
     "  pd = crop(x, anchor = [ay, ax], shape = [5, 4], out_of_bounds = pad, "
     "fill = 9)\n"
     "  cl = f32(crop(x, anchor = [ay, ax], shape = [5, 4], out_of_bounds = "
     "clamp)) * 2\n"
     "  ce = crop(x, shape = [5, 4])\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::F16, {s.n, s.h, s.w, 3}, seed),
               randomInts(DType::I32, {s.n}, seed + 1, -8, s.h + 3),
               randomInts(DType::I32, {s.n}, seed + 2, -8, s.w + 3)};
     }},
    {"crop_mirror_normalize",
     "pipeline crop_mirror_normalize(x: u8[N, H, W, 3], a: i64[N, 2], "
     "m: bool[N]) -> (y: f32[N, 3, 5, 4], h: f16[N, 3, 5, 4]) {\n"
     "  c = flip(crop(x, anchor = a, shape = [5, 4]), axes = [2], when = m)\n"
     "  y = transpose((f32(c) - [123.675, 116.28, 103.53]) / "
     "[58.395, 57.12, 57.375], [0, 3, 1, 2])\n"
     "  h = f16(y)\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       HostTensor a = randomInts(DType::I64, {s.n, 2}, seed + 1, 0,
                                 std::min(s.h, s.w) - 5);
       for (int64_t i = 0; i < s.n; ++i)
         a.as<int64_t>()[2 * i] %= s.h - 4;
       return {randomTensor(DType::U8, {s.n, s.h, s.w, 3}, seed), a,
               randomInts(DType::Bool, {s.n}, seed + 2, 0, 1)};
     }},
    // f16 planes of 8: the vector variant's groups of 8 halves in each of
    // the 3 planes (vector_planes), the clamped crop's reads per pixel.
    {"crop_mirror_normalize_f16",
     "pipeline cmn16(x: u8[N, H, W, 3], a: i32[N, 2], m: bool[N]) -> "
     "(h: f16[N, 3, 6, 8]) {\n"
     "  c = flip(crop(x, anchor = a, shape = [6, 8], out_of_bounds = clamp), "
     "axes = [2], when = m)\n"
     "  h = f16(transpose((f32(c) - [123.675, 116.28, 103.53]) / "
     "[58.395, 57.12, 57.375], [0, 3, 1, 2]))\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w, 3}, seed),
               randomInts(DType::I32, {s.n, 2}, seed + 1, -3, s.w + 3),
               randomInts(DType::Bool, {s.n}, seed + 2, 0, 1)};
     }},
    {"flips",
     "pipeline flips(x: i32[N, H, W], m: bool[N]) -> (a: i32[N, H, W], "
     "b: i32[N, H, W], r: f32[N, H]) {\n"
     "  a = flip(x, axes = [2], when = m)\n"
     "  b = flip(x, axes = [1, 2]) + 1\n"
     // A reduction read through a flip (it was fused as the reduction's
     // epilogue, whose threads cannot read each other's results).
     "  r = flip(mean(f32(x & 1023), axes = [2]), axes = [1]) * 2\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::I32, {s.n, s.h, s.w}, seed),
               randomInts(DType::Bool, {s.n}, seed + 1, 0, 1)};
     }},
    {"pads",
     "pipeline pads(x: u8[N, H, W]) -> (m: u8[N, 32 * ceil(H / 32), W], "
     "r: u8[N, H, W + 7], w: f32[N, H, W + 12], e: u8[N, H + 3, W]) {\n"
     "  m = pad(x, shape = [32 * ceil(H / 32)], axes = [1], fill = 3)\n"
     "  r = pad(x, before = [4], after = [3], axes = [2], border = reflect101)\n"
     "  w = f32(pad(x, before = [6], after = [6], axes = [2], border = wrap))\n"
     "  e = pad(x, before = [1], after = [2], axes = [1], border = clamp)\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w}, seed)};
     }},
    {"joins",
     "pipeline joins(a: u8[N, H, W], b: i8[N, H, W]) -> "
     "(k: i16[N, 2 * H + 1, W], s: u8[N, H, W, 2]) {\n"
     "  k = concat([a, b, a[:, :1]], axis = 1)\n"
     "  s = stack([a, a * 2], axis = -1)\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w}, seed),
               randomTensor(DType::I8, {s.n, s.h, s.w}, seed + 1)};
     }},
    // Last dims of 3 and 6 (channels), which 16-byte groups do not divide:
    // the vector variant's groups span pixels.
    {"channels",
     "pipeline channels(a: u8[N, H, W, 3], b: u8[N, H, W, 3], x: f16[N, H, W, 3]) -> "
     "(c: u8[N, H, W, 6], p: u8[N, 32 * ceil(H / 32), W + 1, 3], "
     "h: f16[N, H, W, 3]) {\n"
     "  c = concat([a, b], axis = 3)\n"
     "  p = pad(a, shape = [32 * ceil(H / 32), W + 1], axes = [1, 2], fill = 7)\n"
     "  h = flip(x, axes = [3]) * 2\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w, 3}, seed),
               randomTensor(DType::U8, {s.n, s.h, s.w, 3}, seed + 1),
               randomTensor(DType::F16, {s.n, s.h, s.w, 3}, seed + 2)};
     }},
    // Groups of whole pixels whose rows are runs in the input in three
    // ways: in the result's order (a concat's parts, no check), checked
    // by the group's ends (clamped pads, per-sample crops), or checked
    // row by row (a flipped part); and a reflected pad, never a run.
    {"channel_runs",
     "pipeline channel_runs(a: u8[N, H, W, 3], b: u8[N, H, W, 3], k: i32[N, 2]) -> "
     "(f: u8[N, H, W, 6], e: u8[N, H, W + 3, 3], r: u8[N, H, W + 7, 3], "
     "q: u8[N, 4, 5, 6], t: i16[N, H + 1, W, 6]) {\n"
     "  f = concat([flip(a, axes = [2]), b], axis = 3)\n"
     "  e = pad(a, before = [1], after = [2], axes = [2], border = clamp)\n"
     "  r = pad(a, before = [4], after = [3], axes = [2], border = reflect101)\n"
     "  q = concat([crop(a, anchor = k, shape = [4, 5], out_of_bounds = clamp),\n"
     "              crop(b, anchor = k, shape = [4, 5], out_of_bounds = pad)], axis = 3)\n"
     "  t = i16(concat([pad(a, before = [1], axes = [1], border = clamp), "
     "pad(b, after = [1], axes = [1])], axis = 3))\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w, 3}, seed),
               randomTensor(DType::U8, {s.n, s.h, s.w, 3}, seed + 1),
               randomInts(DType::I32, {s.n, 2}, seed + 2, -3,
                          std::max(s.h, s.w) + 1)};
     }},
    // Runs of 16 bytes (a 4-channel part of 4 pixels), and a slice of the
    // channels, whose longer rows are loaded element by element.
    {"wide_runs",
     "pipeline wide_runs(x: u8[N, H, W, 4], y: u8[N, H, W, 2]) -> "
     "(s: u8[N, H, W, 3], c: u8[N, H, W, 6]) {\n"
     "  s = x[:, :, :, 1:]\n"
     "  c = concat([x, y], axis = 3)\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::U8, {s.n, s.h, s.w, 4}, seed),
               randomTensor(DType::U8, {s.n, s.h, s.w, 2}, seed + 1)};
     }},
    {"takes",
     "pipeline takes(x: f32[N, H, W], p: i32[N], i: i64[3]) -> "
     "(a: f32[N, H, W], b: f32[N, 3, W]) {\n"
     "  a = take(x, p, axis = 0)\n"
     "  b = take(x, i, axis = 1) * 2\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::F32, {s.n, s.h, s.w}, seed),
               randomInts(DType::I32, {s.n}, seed + 1, -s.n, s.n - 1),
               randomInts(DType::I64, {3}, seed + 2, -s.h, s.h - 1)};
     }},
    {"erases",
     "pipeline erases(m: f32[N, 2, H, W], a: i32[N, 4], f: f32[N]) -> "
     "(e: f32[N, 2, H, W]) {\n"
     "  e = erase(m, anchor = a, shape = [3, 4], fill = f, axes = [2, 3])\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::F32, {s.n, 2, s.h, s.w}, seed),
               randomInts(DType::I32, {s.n, 4}, seed + 1, -4,
                          std::max(s.h, s.w) + 2),
               randomTensor(DType::F32, {s.n}, seed + 2)};
     }},
    {"generated",
     "pipeline generated(x: f32[N, H, W]) -> (i: i32[N, H, W], "
     "g: f32[N, H, W], f: i64[N]) {\n"
     "  i = iota([N, H, W], axis = 2)\n"
     "  g = x * f32(iota([N, H, W], axis = 1)) + f32(W - 1)\n"
     "  f = full([N], H * W, dtype = i64)\n}\n",
     [](Sizes s, unsigned seed) -> std::vector<HostTensor> {
       return {randomTensor(DType::F32, {s.n, s.h, s.w}, seed)};
     }},
};

const Sizes kSizes[] = {{1, 6, 6}, {3, 7, 9}, {2, 33, 65}, {5, 64, 128},
                        {1, 301, 257}};

} // namespace

TEST(GpuLayout, NvrtcCompilesEveryKernel) {
  if (!pipert::getNvrtcVersion().ok())
    GTEST_SKIP() << "NVRTC unavailable: "
                 << pipert::getNvrtcVersion().status().message();
  for (const LayoutCase &c : kLayoutCases) {
    auto pipeline = compileOrDie(c.source);
    ASSERT_TRUE(pipeline) << c.name;
    for (const pipert::PlanKernel &kernel : pipeline->plan().kernels) {
      auto cubin = pipert::compileCuda(kernel.source, kernel.name, 90, false);
      EXPECT_TRUE(cubin.ok()) << c.name << ": " << cubin.status().message();
    }
  }
}

TEST(GpuLayout, MatchesReferenceOnRandomOddSizes) {
  REQUIRE_GPU();
  for (const LayoutCase &c : kLayoutCases) {
    auto pipeline = compileOrDie(c.source);
    ASSERT_TRUE(pipeline) << c.name;
    unsigned seed = 11;
    for (Sizes s : kSizes)
      expectMatchesReference(*pipeline, c.inputs(s, seed++), 0,
                             std::string("of ") + c.name + " at N=" +
                                 std::to_string(s.n) + " H=" +
                                 std::to_string(s.h) + " W=" +
                                 std::to_string(s.w));
  }
}

namespace {

/// A crop whose anchors are checked, then work after it: an elementwise
/// kernel into a device output and a reduction into a host one.
const char *const kCheckedCrop =
    "pipeline p(x: u8[N, H, W], a: i32[N, 2]) -> (y: f32[N, 5, 4], "
    "s: f32[N]) {\n"
    "  y = f32(crop(x, anchor = a, shape = [5, 4])) * 2\n"
    "  s = sum(y, axes = [1, 2])\n}\n";

/// `t` in device memory (`buffer` holds it), or in host memory.
pipert::TensorRef on(pipert::Memory memory, const HostTensor &t,
                     std::unique_ptr<DeviceBuffer> &buffer) {
  if (memory == pipert::Memory::Host)
    return t.ref();
  buffer = std::make_unique<DeviceBuffer>(t.numBytes());
  buffer->upload(t.data());
  return {buffer->get(), t.dtype(), t.shape(), pipert::Memory::Device};
}

/// Runs `executable` on x and anchors `a` (in device memory, so that the
/// GPU checks them, unless `anchorsOn` says host), into `y` (device) and
/// `s` (host).
pipert::Status runCheckedCrop(pipert::Executable &executable,
                              const HostTensor &x, const HostTensor &a,
                              DeviceBuffer &y, HostTensor &s,
                              pipert::Memory anchorsOn = pipert::Memory::Device) {
  std::unique_ptr<DeviceBuffer> anchorsBuffer;
  return executable.run(
      {x.ref(), on(anchorsOn, a, anchorsBuffer)},
      {pipert::TensorRef{y.get(), DType::F32, {x.shape()[0], 5, 4},
                         pipert::Memory::Device},
       s.ref()});
}

HostTensor anchors(std::vector<int32_t> values) {
  HostTensor a(DType::I32, {int64_t(values.size() / 2), 2});
  std::memcpy(a.data(), values.data(), values.size() * sizeof(int32_t));
  return a;
}

} // namespace

TEST(GpuLayout, BadCropAnchorNamesTheSampleAndWritesNothing) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(kCheckedCrop);
  ASSERT_TRUE(pipeline);
  auto executable = pipert::Executable::load(pipeline->plan());
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  HostTensor x = randomTensor(DType::U8, {3, 10, 12}, 1);
  DeviceBuffer y(3 * 5 * 4 * sizeof(float));
  HostTensor poisonY(DType::F32, {3, 5, 4}), s(DType::F32, {3});
  for (int64_t i = 0; i < poisonY.numElements(); ++i)
    poisonY.as<float>()[i] = -7.f;
  y.upload(poisonY.data());
  for (int i = 0; i < 3; ++i)
    s.as<float>()[i] = -9.f;
  HostTensor poisonS = s;

  HostTensor bad = anchors({0, 0, 6, 8, 2, 3}); // sample 1: 6 > H - 5
  pipert::Status status = runCheckedCrop(**executable, x, bad, y, s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "crop at test.pipe:2:11: the anchor along dim 1 of sample [1] is "
            "6, outside [0, 5]; nothing was written");
  auto reference = pipeline->runReference({x, bad});
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(reference.status().message(), status.message());
  HostTensor gotY(DType::F32, {3, 5, 4});
  y.download(gotY.data());
  EXPECT_TRUE(sameBits(gotY, poisonY));
  EXPECT_TRUE(sameBits(s, poisonS));

  // The same executable runs once the anchors are right...
  HostTensor good = anchors({0, 0, 5, 8, 2, 3});
  status = runCheckedCrop(**executable, x, good, y, s);
  ASSERT_TRUE(status.ok()) << status.message();
  auto expected = pipeline->runReference({x, good});
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  y.download(gotY.data());
  EXPECT_TRUE(sameBits(gotY, (*expected)[0]));
  EXPECT_TRUE(sameBits(s, (*expected)[1]));

  // ...and reports a later run's first bad anchor (the lowest flat index of
  // the anchors: sample 1's along dim 2 before sample 2's along dim 1), not
  // an earlier run's.
  HostTensor later = anchors({0, 0, 5, 9, -1, 3});
  HostTensor before = gotY, beforeS = s;
  status = runCheckedCrop(**executable, x, later, y, s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "crop at test.pipe:2:11: the anchor along dim 2 of sample [1] is "
            "9, outside [0, 8]; nothing was written");
  reference = pipeline->runReference({x, later});
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(reference.status().message(), status.message());
  y.download(gotY.data());
  EXPECT_TRUE(sameBits(gotY, before));
  EXPECT_TRUE(sameBits(s, beforeS));
}

TEST(GpuLayout, ChecksSurviveTheRunNumbersWrap) {
  REQUIRE_GPU();
  // As a blur's words (GpuTest's BlurVerdictsSurviveTheRunNumbersWrap): run
  // 1 after the wrap shares slot 1 with run 2^24 - 63, whose larger tag
  // would hide run 1's failure unless the wrap zeroes the check's word and
  // the guard word.
  auto pipeline = compileOrDie(kCheckedCrop);
  ASSERT_TRUE(pipeline);
  auto executable = pipert::Executable::load(pipeline->plan());
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  HostTensor x = randomTensor(DType::U8, {3, 10, 12}, 2);
  DeviceBuffer y(3 * 5 * 4 * sizeof(float));
  HostTensor s(DType::F32, {3});
  (*executable)->setLatestRunNumberForTesting((1ull << 24) - 64);
  pipert::Status status =
      runCheckedCrop(**executable, x, anchors({0, 0, 1, 1, 6, 0}), y, s);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("sample [2] is 6"), std::string::npos)
      << status.message();
  (*executable)->setLatestRunNumberForTesting((1ull << 24) - 1);
  HostTensor untouched = s;
  status = runCheckedCrop(**executable, x, anchors({0, 0, 0, 9, 0, 0}), y, s);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("dim 2 of sample [1] is 9"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(sameBits(s, untouched));
  HostTensor good = anchors({0, 0, 1, 1, 5, 8});
  status = runCheckedCrop(**executable, x, good, y, s);
  ASSERT_TRUE(status.ok()) << status.message();
  auto expected = pipeline->runReference({x, good});
  ASSERT_TRUE(expected.ok());
  EXPECT_TRUE(sameBits(s, (*expected)[1]));
}

TEST(GpuLayout, TakeOutOfRangeNamesTheIndex) {
  REQUIRE_GPU();
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, C], i: i32[K]) -> (y: f32[K, C]) {\n"
      "  y = take(x, i, axis = 0) + 1\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {3, 5}, 3);
  HostTensor i(DType::I32, {4});
  const int32_t indices[] = {0, -3, 2, -4};
  std::memcpy(i.data(), indices, sizeof indices);
  HostTensor y(DType::F32, {4, 5});
  std::memset(y.data(), 0x5a, y.numBytes());
  HostTensor poisoned = y;
  // Indices on the device are checked there; on the host, before the run.
  pipert::Status status;
  for (pipert::Memory memory : {pipert::Memory::Device, pipert::Memory::Host}) {
    std::unique_ptr<DeviceBuffer> buffer;
    status = pipeline->run({x.ref(), on(memory, i, buffer)}, {y.ref()});
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(),
              "take at test.pipe:2:7: index -4 at [3] of the indices is "
              "outside [-3, 2]; nothing was written");
  }
  auto reference = pipeline->runReference({x, i});
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(reference.status().message(), status.message());
  EXPECT_TRUE(sameBits(y, poisoned));
}

TEST(GpuLayout, U64IndicesPast2To63AreOutOfRange) {
  REQUIRE_GPU();
  // As a long long, 2^64 - 1 would be -1, a valid index from the end.
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, C], i: u64[K]) -> (y: f32[K, C]) {\n"
      "  y = take(x, i, axis = 0)\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F32, {3, 2}, 5);
  HostTensor i(DType::U64, {2});
  i.as<uint64_t>()[0] = 1;
  i.as<uint64_t>()[1] = ~0ull;
  HostTensor y(DType::F32, {2, 2});
  pipert::Status status;
  for (pipert::Memory memory : {pipert::Memory::Device, pipert::Memory::Host}) {
    std::unique_ptr<DeviceBuffer> buffer;
    status = pipeline->run({x.ref(), on(memory, i, buffer)}, {y.ref()});
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(),
              "take at test.pipe:2:7: index 18446744073709551615 at [1] of "
              "the indices is outside [-3, 2]; nothing was written");
  }
  auto reference = pipeline->runReference({x, i});
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(reference.status().message(), status.message());
}

TEST(GpuLayout, BlurAfterAFailedCheckWritesNothing) {
  REQUIRE_GPU();
  // The blur reads a crop whose anchors failed their check: its prepare
  // kernel sees the run's guard and stops its passes, and the check, not
  // the blur, reports.
  auto pipeline = compileOrDie(
      "pipeline p(x: u8[N, H, W], a: i32[N, 2]) -> (y: u8[N, 8, 8]) {\n"
      "  y = gaussian_blur(crop(x, anchor = a, shape = [8, 8]), window = 3, "
      "axes = [1, 2])\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::U8, {2, 12, 12}, 6);
  HostTensor poison(DType::U8, {2, 8, 8});
  std::memset(poison.data(), 91, poison.numBytes());
  DeviceBuffer y(poison.numBytes());
  y.upload(poison.data());
  pipert::TensorRef out{y.get(), DType::U8, {2, 8, 8}, pipert::Memory::Device};
  HostTensor bad = anchors({0, 0, 5, 0});
  std::unique_ptr<DeviceBuffer> badOnDevice;
  pipert::Status status = pipeline->run(
      {x.ref(), on(pipert::Memory::Device, bad, badOnDevice)}, {out});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "crop at test.pipe:2:21: the anchor along dim 1 of sample [1] is "
            "5, outside [0, 4]; nothing was written");
  HostTensor got(DType::U8, {2, 8, 8});
  y.download(got.data());
  EXPECT_TRUE(sameBits(got, poison));
  // And a good run after it blurs as the reference does.
  HostTensor good = anchors({0, 0, 4, 3});
  status = pipeline->run({x.ref(), good.ref()}, {out});
  ASSERT_TRUE(status.ok()) << status.message();
  auto want = pipeline->runReference({x, good});
  ASSERT_TRUE(want.ok()) << want.status().message();
  y.download(got.data());
  EXPECT_TRUE(sameBits(got, (*want)[0]));
}

TEST(GpuLayout, AnchorsInHostMemoryAreCheckedBeforeTheRun) {
  REQUIRE_GPU();
  // Values the host has are checked there: a bad one fails before anything
  // is queued, a good run launches no check kernel.
  auto pipeline = compileOrDie(kCheckedCrop);
  ASSERT_TRUE(pipeline);
  auto executable = pipert::Executable::load(pipeline->plan());
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  HostTensor x = randomTensor(DType::U8, {3, 10, 12}, 8);
  DeviceBuffer y(3 * 5 * 4 * sizeof(float));
  HostTensor s(DType::F32, {3});
  pipert::Status status = runCheckedCrop(
      **executable, x, anchors({0, 0, 6, 8, 2, 3}), y, s, pipert::Memory::Host);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "crop at test.pipe:2:11: the anchor along dim 1 of sample [1] is "
            "6, outside [0, 5]; nothing was written");
  HostTensor good = anchors({0, 0, 5, 8, 2, 3});
  status = runCheckedCrop(**executable, x, good, y, s, pipert::Memory::Host);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ((*executable)->lastRunStats().checksOnHost, 1);
  EXPECT_EQ((*executable)->lastRunStats().kernelsLaunched, 2);
  auto expected = pipeline->runReference({x, good});
  ASSERT_TRUE(expected.ok());
  EXPECT_TRUE(sameBits(s, (*expected)[1]));
}
