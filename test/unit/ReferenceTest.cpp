//===- ReferenceTest.cpp - The CPU reference executor ---------------------===//
//
// The reference is the oracle for the GPU, so it is checked against
// independent C++ written from the language's documented semantics, on
// random inputs of odd sizes.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "compiler/Compiler.h"
#include "reference/LayoutReference.h"
#include "reference/ReferenceExecutor.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <cmath>

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

TEST(Reference, ScaleMatchesHandWrittenLoop) {
  auto pipeline = compileOrDie(
      "pipeline scale(images: u8[N, H, W], gain: f32) -> (out: u8[N, H, W]) {\n"
      "  out = u8(f32(images) / 255 * gain * 255)\n}\n");
  ASSERT_TRUE(pipeline);
  for (auto shape : {std::vector<int64_t>{1, 1, 1}, {3, 5, 7}, {2, 31, 97}}) {
    HostTensor images = randomTensor(DType::U8, shape, 17);
    HostTensor gain(DType::F32, {});
    *gain.as<float>() = 1.3f;
    auto results = pipeline->runReference({images, gain});
    ASSERT_TRUE(results.ok()) << results.status().message();
    const HostTensor &out = (*results)[0];
    ASSERT_EQ(out.shape(), shape);
    for (int64_t i = 0; i < out.numElements(); ++i) {
      float v = float(images.as<uint8_t>()[i]) / 255.f * 1.3f * 255.f;
      float rounded = std::nearbyint(std::clamp(v, 0.f, 255.f));
      ASSERT_EQ(out.as<uint8_t>()[i], uint8_t(rounded)) << "at " << i;
    }
  }
}

TEST(Reference, IntegerArithmeticWrapsAndDivisionGivesFloat) {
  auto pipeline = compileOrDie(
      "pipeline p(a: i32[N], b: i32[N]) -> (s: i32[N], q: f32[N]) {\n"
      "  s = a * b + 7\n  q = a / b\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor a = randomTensor(DType::I32, {1001}, 1);
  HostTensor b = randomTensor(DType::I32, {1001}, 2);
  auto results = pipeline->runReference({a, b});
  ASSERT_TRUE(results.ok()) << results.status().message();
  for (int64_t i = 0; i < 1001; ++i) {
    uint32_t x = uint32_t(a.as<int32_t>()[i]), y = uint32_t(b.as<int32_t>()[i]);
    EXPECT_EQ((*results)[0].as<int32_t>()[i], int32_t(x * y + 7u));
    EXPECT_EQ((*results)[1].as<float>()[i],
              float(a.as<int32_t>()[i]) / float(b.as<int32_t>()[i]));
  }
}

TEST(Reference, ScalarBroadcastAndParameterResult) {
  auto pipeline = compileOrDie(
      "pipeline p(x: f64[N, 3], s: f64) -> (y: f64[N, 3], same: f64[N, 3], "
      "t: f64) {\n  y = x - s * 2\n  same = x\n  t = s + 1\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = randomTensor(DType::F64, {5, 3}, 3);
  HostTensor s(DType::F64, {});
  *s.as<double>() = 0.25;
  auto results = pipeline->runReference({x, s});
  ASSERT_TRUE(results.ok()) << results.status().message();
  for (int64_t i = 0; i < 15; ++i)
    EXPECT_EQ((*results)[0].as<double>()[i], x.as<double>()[i] - 0.5);
  EXPECT_TRUE(sameBits((*results)[1], x));
  EXPECT_EQ(*(*results)[2].as<double>(), 1.25);
}

TEST(Reference, ZeroSizedTensorsAreLegal) {
  auto pipeline = compileOrDie(
      "pipeline p(x: f32[N, W]) -> (y: f32[N, W]) { y = x * 2 }\n");
  ASSERT_TRUE(pipeline);
  HostTensor x(DType::F32, {0, 9});
  auto results = pipeline->runReference({x});
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ((*results)[0].shape(), (std::vector<int64_t>{0, 9}));
}

TEST(Reference, BadInputsAreClearErrors) {
  auto pipeline = compileOrDie(
      "pipeline p(a: f32[N, W], b: f32[N, W, 3]) -> (y: f32[N, W]) { y = a }\n");
  ASSERT_TRUE(pipeline);
  HostTensor a(DType::F32, {2, 5});
  auto expectError = [&](std::vector<HostTensor> inputs,
                         const std::string &message) {
    auto results = pipeline->runReference(inputs);
    ASSERT_FALSE(results.ok());
    EXPECT_EQ(results.status().message(), message);
  };
  expectError({a}, "pipeline 'p' takes 2 inputs, got 1");
  expectError({a, HostTensor(DType::U8, {2, 5, 3})},
              "input 'b' has dtype u8 but the pipeline expects f32[N, W, 3]");
  expectError({a, HostTensor(DType::F32, {2, 5})},
              "input 'b' has rank 2 (f32[2, 5]) but the pipeline expects rank "
              "3 (f32[N, W, 3])");
  expectError({a, HostTensor(DType::F32, {2, 6, 3})},
              "dim W is 5 in input 'a' dim 1 but 6 in input 'b' dim 1");
  expectError({a, HostTensor(DType::F32, {2, 5, 4})},
              "input 'b' dim 2 is 4 but must be 3");
}

namespace {
HostTensor tensorOf(DType dtype, std::vector<int64_t> shape,
                    std::vector<double> values) {
  HostTensor t(dtype, std::move(shape));
  pipert::visitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < values.size(); ++i)
      t.as<T>()[i] = T(values[i]);
  });
  return t;
}
} // namespace

TEST(Reference, ReductionsByHand) {
  auto pipeline = compileOrDie(
      "pipeline r(x: u8[N, W], f: f32[N, W]) -> (s: u64[N], m: f32[N], "
      "hi: u8[W], p: u64[N], some: bool[N], every: bool[N], lo: f32[N], "
      "k: f32[N, 1], t: u64) {\n"
      "  s = sum(x, axes = [1])\n  m = mean(x, axes = [-1])\n"
      "  hi = max(x, axes = [0])\n  p = prod(x, axes = [1])\n"
      "  some = any(x > 5, axes = [1])\n  every = all(x, axes = [1])\n"
      "  lo = min(f, axes = [1])\n  k = sum(f, axes = [1], keepdims = true)\n"
      "  t = sum(x)\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = tensorOf(DType::U8, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor f = tensorOf(DType::F32, {2, 3}, {1.5, NAN, -2, 0.25, -0.5, 8});
  auto got = pipeline->runReference({x, f});
  ASSERT_TRUE(got.ok()) << got.status().message();
  const std::vector<HostTensor> &r = *got;
  EXPECT_TRUE(sameValues(r[0], tensorOf(DType::U64, {2}, {6, 15})));
  EXPECT_TRUE(sameValues(r[1], tensorOf(DType::F32, {2}, {2, 5})));
  EXPECT_TRUE(sameValues(r[2], tensorOf(DType::U8, {3}, {4, 5, 6})));
  EXPECT_TRUE(sameValues(r[3], tensorOf(DType::U64, {2}, {6, 120})));
  EXPECT_TRUE(sameValues(r[4], tensorOf(DType::Bool, {2}, {0, 1})));
  EXPECT_TRUE(sameValues(r[5], tensorOf(DType::Bool, {2}, {1, 1})));
  // NaN wins a min, as in torch.amin.
  EXPECT_TRUE(sameValues(r[6], tensorOf(DType::F32, {2}, {NAN, -0.5})));
  EXPECT_TRUE(sameValues(r[7], tensorOf(DType::F32, {2, 1}, {NAN, 7.75})));
  EXPECT_TRUE(sameValues(r[8], tensorOf(DType::U64, {}, {21})));
}

TEST(Reference, ReductionsOverNothingGiveTheIdentities) {
  auto pipeline = compileOrDie(
      "pipeline r(x: u8[N, W], f: f32[N, W]) -> (s: u64[N], p: u64[N], "
      "m: f32[N], lo: u8[N], hi: f32[N], some: bool[N], every: bool[N]) {\n"
      "  s = sum(x, axes = [1])\n  p = prod(x, axes = [1])\n"
      "  m = mean(x, axes = [1])\n  lo = min(x, axes = [1])\n"
      "  hi = max(f, axes = [1])\n  some = any(x, axes = [1])\n"
      "  every = all(x, axes = [1])\n}\n");
  ASSERT_TRUE(pipeline);
  auto got = pipeline->runReference(
      {HostTensor(DType::U8, {2, 0}), HostTensor(DType::F32, {2, 0})});
  ASSERT_TRUE(got.ok()) << got.status().message();
  const std::vector<HostTensor> &r = *got;
  EXPECT_TRUE(sameValues(r[0], tensorOf(DType::U64, {2}, {0, 0})));
  EXPECT_TRUE(sameValues(r[1], tensorOf(DType::U64, {2}, {1, 1})));
  EXPECT_TRUE(sameValues(r[2], tensorOf(DType::F32, {2}, {NAN, NAN})));
  EXPECT_TRUE(sameValues(r[3], tensorOf(DType::U8, {2}, {255, 255})));
  EXPECT_TRUE(sameValues(r[4], tensorOf(DType::F32, {2}, {-INFINITY, -INFINITY})));
  EXPECT_TRUE(sameValues(r[5], tensorOf(DType::Bool, {2}, {0, 0})));
  EXPECT_TRUE(sameValues(r[6], tensorOf(DType::Bool, {2}, {1, 1})));
}

TEST(Reference, IntegerSumsAreWide) {
  // 70000 values of 255 overflow 16 bits and u8 many times over.
  auto pipeline = compileOrDie(
      "pipeline r(x: u8[N]) -> (s: u64, m: f32) {\n"
      "  s = sum(x)\n  m = mean(x)\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x(DType::U8, {70000});
  std::fill_n(x.as<uint8_t>(), 70000, uint8_t(255));
  auto got = pipeline->runReference({x});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].as<uint64_t>()[0], 70000u * 255u);
  EXPECT_EQ((*got)[1].as<float>()[0], 255.f);
}

TEST(Reference, GaussianBlurByHand) {
  // window 3: radius 1, sigma (1 - 1) * 0.3 + 0.8 = 0.8; weights e^(-x^2 /
  // 1.28) normalized: 0.238994, 0.522011, 0.238994.
  auto pipeline = compileOrDie(
      "pipeline b(x: u8[N, W]) -> (y: u8[N, W], c: f32[N, W]) {\n"
      "  y = gaussian_blur(x, window = 3, axes = [1])\n"
      "  c = gaussian_blur(f32(x), window = 3, axes = [1], border = constant, "
      "fill = 100)\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = tensorOf(DType::U8, {1, 5}, {0, 0, 255, 0, 0});
  auto got = pipeline->runReference({x});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(sameValues((*got)[0], tensorOf(DType::U8, {1, 5}, {0, 61, 133, 61, 0})));
  double e = std::exp(-1 / 1.28), w0 = e / (1 + 2 * e), w1 = 1 / (1 + 2 * e);
  EXPECT_TRUE(sameValues(
      (*got)[1],
      tensorOf(DType::F32, {1, 5},
               {100 * w0, 255 * w0, 255 * w1, 255 * w0, 100 * w0}),
      1e-6));
}

TEST(Reference, BadBlurWindowNamesTheSample) {
  auto pipeline = compileOrDie(
      "pipeline b(x: u8[N, W], w: i32[N]) -> (y: u8[N, W]) {\n"
      "  y = gaussian_blur(x, window = w, axes = [1])\n}\n");
  ASSERT_TRUE(pipeline);
  auto got = pipeline->runReference(
      {HostTensor(DType::U8, {3, 4}), tensorOf(DType::I32, {3}, {5, 0, 2})});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "gaussian_blur at test.pipe:2:7: sample 1: its window is 0; a "
            "window must be positive; nothing was written");
}

TEST(Reference, ForLoopsRunUpToTheBoundAndIfPicksPerElement) {
  // acc halves n times (at most 5), plus the iteration index; y picks per
  // sample between two branches, with a per-sample condition.
  auto pipeline = compileOrDie(
      "pipeline c(x: f32[N, W], n: i32) -> (acc: f32[N, W], y: f32[N, W]) {\n"
      "  acc = x\n"
      "  for i in 0 .. n max 5 {\n"
      "    acc = acc * 0.5 + i\n"
      "  }\n"
      "  if any(x > 10, axes = [1], keepdims = true) {\n"
      "    y = x * 2\n"
      "  } else {\n"
      "    t = x + 1\n"
      "    y = t * t\n"
      "  }\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor x = tensorOf(DType::F32, {2, 2}, {20, 4, 1, 3});
  for (int32_t n : {0, 2, 5, 9}) {
    auto got = pipeline->runReference({x, tensorOf(DType::I32, {}, {double(n)})});
    ASSERT_TRUE(got.ok()) << got.status().message();
    std::vector<double> want;
    for (double v : {20.0, 4.0, 1.0, 3.0}) {
      for (int i = 0; i < std::min(n, 5); ++i)
        v = float(float(v) * 0.5f) + float(i);
      want.push_back(v);
    }
    EXPECT_TRUE(sameValues((*got)[0], tensorOf(DType::F32, {2, 2}, want)))
        << "n = " << n;
    EXPECT_TRUE(sameValues((*got)[1], tensorOf(DType::F32, {2, 2},
                                              {40, 8, 4, 16})));
  }
}

TEST(Reference, HostDecidedIterationsEqualALoopOfExactlyThatMany) {
  // The loop's iterations become choices the host decides; whatever the
  // bound, the result is that of a loop unrolled exactly that many times.
  auto loop = [](int most) {
    return "pipeline p(x: f32[N, W], n: i32) -> (y: f32[N, W]) {\n"
           "  y = x\n"
           "  for i in 0 .. n max " + std::to_string(most) + " {\n"
           "    y = gaussian_blur(y, window = 2 * i + 3, axes = [1]) * 0.5\n"
           "  }\n}\n";
  };
  auto decided = compileOrDie(loop(5));
  ASSERT_TRUE(decided);
  ASSERT_EQ(decided->plan().choices.size(), 5u);
  HostTensor x = randomTensor(DType::F32, {2, 41}, 5);
  for (int n : {0, 2, 5}) {
    auto exact = compileOrDie(loop(n));
    ASSERT_TRUE(exact);
    HostTensor count(DType::I32, {});
    *count.as<int32_t>() = n;
    auto a = decided->runReference({x, count});
    auto b = exact->runReference({x, count});
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(sameBits((*a)[0], (*b)[0])) << "n=" << n;
  }
}

TEST(Reference, UnboundDimIsAnInternalErrorNotACrash) {
  // The reference evaluates the dims a layout op names (a pipe.dim, a
  // slice's start, a pad's widths, a check's bounds); a run binds them all
  // first, so one that is unbound (hand-written IR) is the compiler's
  // fault: an internal error naming the dim, not a dereferenced nothing.
  mlir::MLIRContext context;
  pipec::registerDialects(context);
  mlir::OpBuilder builder(&context);
  auto i64 = mlir::RankedTensorType::get({}, builder.getI64Type());
  auto dim = mlir::pipe::DimOp::create(builder, builder.getUnknownLoc(), i64,
                                       builder.getStringAttr("Q + 1"));
  HostTensor out(DType::I64, {});
  pipert::Status status = pipec::runLayoutReference(
      dim, [](mlir::Value) -> const HostTensor & { std::abort(); },
      {{"H", 3}}, out);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "internal error: the reference executor cannot evaluate dim 'Q + "
            "1' of pipe.dim ('Q' is not bound)");
  dim->erase();
}

// The reference runs tensor-level IR as written (its layout ops, color
// mixes, random draws and resamples by their own loops) as well as the
// fused IR that pipec and the JIT give it, where pipe-expand-layout has
// rewritten concat, erase, padding crops and channel_mix into maps and
// selects: the two must agree bit for bit, so each checks the other.
// Values past what the host can allocate fail the run with a message; the
// caller's process goes on (the result would be 2^53 bytes).
TEST(Reference, OutOfHostMemoryIsAnErrorNotACrash) {
  SKIP_UNDER_ASAN();
  auto pipeline = compileOrDie(
      "pipeline outer(a: f32[N], b: f32[M], c: f32[K]) -> (y: f32[N, M, K]) "
      "{\n  y = reshape(a, [N, 1, 1]) + reshape(b, [M, 1]) + c\n}\n");
  ASSERT_TRUE(pipeline);
  HostTensor a(DType::F32, {1 << 17}), b(DType::F32, {1 << 17}),
      c(DType::F32, {1 << 17});
  auto results = pipeline->runReference({a, b, c});
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "out of host memory running pipeline 'outer' on the CPU reference");
  // And the pipeline still runs where the memory is there.
  HostTensor one(DType::F32, {2});
  auto small = pipeline->runReference({one, one, one});
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ((*small)[0].shape(), (std::vector<int64_t>{2, 2, 2}));
}

TEST(Reference, TensorLevelIrMatchesTheFusedIr) {
  const char *source = R"(
pipeline p(x: u8[N, H, W, 3], b: f32[N], a: i32[N, 2]) -> (
    joined: u8[N, H, W, 6], erased: u8[N, H, W, 3], padded: u8[N, 8, 9, 3],
    twisted: u8[N, H, W, 3], bright: f32[N, H, W, 3], gray: u8[N, H, W, 1],
    ycc: f32[N, H, W, 3], drawn: f32[N, H, W], rotated: u8[N, H, W, 3],
    small: u8[N, 4, 5, 3]) {
  joined  = concat([x, x // 2], axis = 3)
  erased  = erase(x, anchor = a, shape = [3, 4], axes = [1, 2], fill = 9)
  padded  = crop(x, anchor = a, shape = [8, 9], out_of_bounds = pad, fill = 7)
  twisted = color_twist(x, brightness = b, contrast = 1.3, hue = 25, saturation = b)
  bright  = brightness_contrast(x, brightness = b, contrast = 0.7, dtype = f32)
  gray    = color_space_conversion(x, image_type = rgb, output_type = gray)
  ycc     = color_space_conversion(f32(x) / 255, image_type = rgb, output_type = ycbcr)
  drawn   = normal(mean = b[0], shape = [N, H, W]) + uniform(shape = [N, 1, 1])
  rotated = rotate(x, angle = b * 40, fill = 3)
  small   = resize(x, size = [4, 5])
}
)";
  auto pipeline = compileOrDie(source);
  ASSERT_TRUE(pipeline);
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(source, "p.pipe"),
                               llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = pipec::loadModule(context, sourceMgr);
  ASSERT_TRUE(module);
  auto tensorLevel =
      llvm::cast<mlir::pipe::PipelineOp>(&module->getBody()->front());
  for (auto [n, h, w] : {std::tuple<int64_t, int64_t, int64_t>{1, 5, 6},
                         {3, 11, 13}}) {
    HostTensor b = randomTensor(DType::F32, {n}, 3, 0.5, 1.5);
    HostTensor a = randomTensor(DType::I32, {n, 2}, 4, -3, 12);
    std::vector<HostTensor> inputs = {
        randomTensor(DType::U8, {n, h, w, 3}, 2, 0, 255), b, a};
    pipert::RandomState state{uint64_t(7 * n), 5};
    auto fused = pipeline->runReference(inputs, state);
    auto direct = pipec::runReference(tensorLevel, inputs, state);
    ASSERT_TRUE(fused.ok()) << fused.status().message();
    ASSERT_TRUE(direct.ok()) << direct.status().message();
    ASSERT_EQ(fused->size(), direct->size());
    for (size_t r = 0; r < fused->size(); ++r)
      EXPECT_TRUE(sameValues((*direct)[r], (*fused)[r], 0))
          << pipeline->plan().resultNames[r] << " at " << n << "x" << h << "x"
          << w;
  }
}
