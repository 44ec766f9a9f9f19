//===- layout_bench.cpp - Pipe's side of the layout benchmarks ------------===//
//
// pipe_bench --layout: the workloads of the index-map ops, each with its
// peers in bench/peers_layout.py (same shapes, same inputs' distribution):
//   crop_mirror_normalize  u8[N, 256, 256, 3] -> f32[N, 3, 224, 224], per-
//                          sample anchors (checked) and mirror flags
//   erase                  f32[64, 2, 1024, 1024], 4 regions of 128x128 per
//                          sample, per-sample fill
//   concat                 u8[64, 512, 512, 3] x 2 along the channels
//   pad32                  u8[64, 1000, 1000, 3] to a multiple of 32 (1024)
// and pipe_bench --color, with bench/peers_color.py:
//   color_jitter           u8[128, 256, 256, 3] -> u8, brightness, contrast,
//                          saturation and hue drawn per image (color_twist)
//   noise                  f32[64, 1024, 1024] + normal noise drawn per element
//   rotate                 u8[64, 512, 512, 3], an angle per image, linear
//   resize                 u8[64, 1024, 1024, 3] -> 512 x 512, antialiased
//   train_aug              u8[256, 480, 640, 3] -> f32[256, 3, 224, 224]:
//                          examples/imagenet_train.pipe (random_resized_crop,
//                          flip p = 0.5, normalize, CHW)
//   validation             u8[256, 480, 640, 3] -> f32[256, 3, 224, 224]:
//                          examples/validation_resize.pipe (resize to 256,
//                          centre crop 224, normalize, CHW)
// Results are checked against the CPU reference on two samples before
// anything is timed; bytes are those the op must read and write.
//
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"

#include <random>

using namespace pipebench;

namespace {

const char *const kCropMirrorNormalize =
    "pipeline crop_mirror_normalize(images: u8[N, H, W, 3], anchor: i32[N, 2],"
    " mirror: bool[N]) -> (out: f32[N, 3, 224, 224]) {\n"
    "  c = flip(crop(images, anchor = anchor, shape = [224, 224]{OOB}), "
    "axes = [2], when = mirror)\n"
    "  out = transpose((f32(c) - [123.675, 116.28, 103.53]) / "
    "[58.395, 57.12, 57.375], [0, 3, 1, 2])\n}\n";
const char *const kErase =
    "pipeline erase4(m: f32[N, C, H, W], anchor: i32[N, 8], fill: f32[N]) -> "
    "(e: f32[N, C, H, W]) {\n"
    "  e = erase(m, anchor = anchor, shape = [128, 128], fill = fill, "
    "axes = [2, 3])\n}\n";
const char *const kConcat =
    "pipeline concat(a: u8[N, H, W, 3], b: u8[N, H, W, 3]) -> "
    "(c: u8[N, H, W, 6]) {\n"
    "  c = concat([a, b], axis = 3)\n}\n";
const char *const kPad32 =
    "pipeline pad32(x: u8[N, H, W, 3]) -> "
    "(y: u8[N, 32 * ceil(H / 32), 32 * ceil(W / 32), 3]) {\n"
    "  y = pad(x, shape = [32 * ceil(H / 32), 32 * ceil(W / 32)], "
    "axes = [1, 2])\n}\n";

HostTensor randomU8(std::vector<int64_t> shape, unsigned seed) {
  HostTensor t(DType::U8, std::move(shape));
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.numElements(); i += 8) {
    uint64_t v = rng();
    std::memcpy(t.as<uint8_t>() + i, &v,
                size_t(std::min<int64_t>(8, t.numElements() - i)));
  }
  return t;
}

HostTensor randomF32(std::vector<int64_t> shape, unsigned seed) {
  HostTensor t(DType::F32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.as<float>()[i] = dist(rng);
  return t;
}

HostTensor randomI32(std::vector<int64_t> shape, unsigned seed, int lo,
                     int hi) {
  HostTensor t(DType::I32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.as<int32_t>()[i] = dist(rng);
  return t;
}

/// The first `n` samples of `t`.
HostTensor firstSamples(const HostTensor &t, int64_t n) {
  std::vector<int64_t> shape = t.shape();
  shape[0] = n;
  HostTensor part(t.dtype(), shape);
  std::memcpy(part.data(), t.data(), part.numBytes());
  return part;
}

/// Runs `pipeline` on `inputs` into fresh device outputs, checks the first
/// two samples of each result against the reference on those samples, then
/// times it (GPU time, wall time of a waited run, host time to queue).
void measureLayout(const char *workload, const char *impl,
                   pipec::JitPipeline &pipeline,
                   const std::vector<HostTensor> &inputs, double bytes,
                   int reps) {
  std::vector<DeviceTensor> in;
  std::vector<pipert::TensorRef> inRefs;
  for (const HostTensor &t : inputs) {
    in.push_back(upload(t));
    inRefs.push_back(in.back().ref());
  }
  auto shapes = pipeline.resultShapes(inRefs);
  if (!shapes) {
    fprintf(stderr, "%s: %s\n", workload, shapes.status().message().c_str());
    exit(1);
  }
  std::vector<DeviceTensor> out;
  std::vector<pipert::TensorRef> outRefs;
  for (size_t r = 0; r < shapes->size(); ++r) {
    out.push_back(allocate(pipeline.plan().buffers[pipeline.plan().results[r]]
                               .dtype,
                           (*shapes)[r]));
    outRefs.push_back(out.back().ref());
  }
  auto runOnce = [&](bool wait) {
    if (pipert::Status s = pipeline.run(inRefs, outRefs, nullptr, wait);
        !s.ok()) {
      fprintf(stderr, "%s: %s\n", workload, s.message().c_str());
      exit(1);
    }
  };
  // The reference draws what the first run drew (random ops).
  pipert::RandomState drawn = pipeline.randomState();
  runOnce(true);
  std::vector<HostTensor> few;
  for (const HostTensor &t : inputs)
    few.push_back(t.shape().size() > 0 ? firstSamples(t, 2) : t);
  auto want = pipeline.runReference(few, drawn);
  if (!want) {
    fprintf(stderr, "%s: %s\n", workload, want.status().message().c_str());
    exit(1);
  }
  for (size_t r = 0; r < out.size(); ++r)
    check(workload, firstSamples(download(out[r]), 2), (*want)[r]);
  double ms = gpuMs([&](int) { runOnce(false); }, 5, reps);
  double us = wallUs([&](int) { runOnce(true); }, 5, reps);
  std::vector<double> enqueue;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    runOnce(false);
    auto t1 = std::chrono::steady_clock::now();
    if (!pipert::waitFor(nullptr).ok())
      exit(1);
    enqueue.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  const auto &stats = pipeline.lastRunStats();
  char extra[200];
  snprintf(extra, sizeof(extra),
           "\"wall_us_per_run\": %.1f, \"host_us_per_run\": %.1f, "
           "\"kernels_launched\": %d",
           us, median(enqueue), stats.kernelsLaunched);
  record(workload, impl, ms, bytes, extra);
  for (DeviceTensor &t : in)
    cu->cuMemFree(t.ptr);
  for (DeviceTensor &t : out)
    cu->cuMemFree(t.ptr);
}

const char *const kColorJitter =
    "pipeline color_jitter(images: u8[N, H, W, 3]) -> (out: u8[N, H, W, 3]) {\n"
    "  b = uniform(range = [0.6, 1.4], shape = [N])\n"
    "  c = uniform(range = [0.6, 1.4], shape = [N])\n"
    "  s = uniform(range = [0.6, 1.4], shape = [N])\n"
    "  h = uniform(range = [-36, 36], shape = [N])\n"
    "  out = color_twist(images, brightness = b, contrast = c, "
    "saturation = s, hue = h)\n}\n";
const char *const kNoise =
    "pipeline noise(x: f32[N, H, W]) -> (y: f32[N, H, W]) {\n"
    "  y = x + normal(stddev = 0.1, shape = [N, H, W])\n}\n";

const char *const kRotate =
    "pipeline rotate(images: u8[N, H, W, 3], angle: f32[N]) -> "
    "(out: u8[N, H, W, 3]) {\n"
    "  out = rotate(images, angle = angle)\n}\n";
const char *const kResize =
    "pipeline resize(images: u8[N, H, W, 3]) -> (out: u8[N, 512, 512, 3]) {\n"
    "  out = resize(images, size = [512, 512])\n}\n";
const char *const kResizeCubic =
    "pipeline resize(images: u8[N, H, W, 3]) -> (out: u8[N, 512, 512, 3]) {\n"
    "  out = resize(images, size = [512, 512], interp = cubic)\n}\n";

/// The window ops on u8[64, 512, 512, 3] (peers_window.py times the same):
/// the statement, the result's type, and the bytes moved per input byte
/// (read once, written once). The last five filter computed values (a
/// prologue the window's kernel runs at each tap, but for box5_norm's
/// division) or work on the values (an epilogue: sobel_abs).
struct WindowCase {
  const char *name, *body, *result;
  double bytesPerInputByte;
};
const WindowCase kWindows[] = {
    {"box5", "y = box_filter(images, window = 5)", "u8[N, H, W, 3]", 2},
    {"erode3", "y = erode(images, window = 3)", "u8[N, H, W, 3]", 2},
    {"median3", "y = median(images, window = 3)", "u8[N, H, W, 3]", 2},
    {"median5", "y = median(images, window = 5)", "u8[N, H, W, 3]", 2},
    {"sobel",
     "y = conv2d(images, kernel = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], "
     "dtype = f32)",
     "f32[N, H, W, 3]", 5},
    {"box5_norm", "y = box_filter(f32(images) / 255, window = 5)",
     "f32[N, H, W, 3]", 5},
    {"box5_scaled", "y = box_filter(f32(images) * 0.5, window = 5)",
     "f32[N, H, W, 3]", 5},
    {"sobel_abs",
     "y = u8(abs(conv2d(images, kernel = [[-1, 0, 1], [-2, 0, 2], [-1, 0, "
     "1]], dtype = f32)))",
     "u8[N, H, W, 3]", 2},
    {"erode3_mask", "y = erode(images > 128, window = 3)", "bool[N, H, W, 3]",
     2},
    // 496 x 496 of 512 x 512 read and written.
    {"median3_crop", "y = median(images[:, 8:-8, 8:-8, :], window = 3)",
     "u8[N, H - 16, W - 16, 3]", 2 * (496.0 * 496) / (512.0 * 512)},
};

const char *const kTrainAugmentation =
    "pipeline imagenet_train(images: u8[N, H, W, 3]) -> "
    "(out: f32[N, 3, 224, 224]) {\n"
    "  crop = random_resized_crop(images, size = [224, 224])\n"
    "  c = flip(crop, axes = [2], when = coin_flip(p = 0.5, shape = [N]))\n"
    "  out = transpose((f32(c) - [123.675, 116.28, 103.53]) / "
    "[58.395, 57.12, 57.375], [0, 3, 1, 2])\n}\n";

const char *const kValidation =
    "pipeline validation(images: u8[N, H, W, 3]) -> "
    "(out: f32[N, 3, 224, 224]) {\n"
    "  resized = resize(images, size = [256, 256])\n"
    "  c = crop(resized, shape = [224, 224])\n"
    "  out = transpose((f32(c) - [123.675, 116.28, 103.53]) / "
    "[58.395, 57.12, 57.375], [0, 3, 1, 2])\n}\n";

std::string replaceAll(std::string text, const std::string &key,
                       const std::string &value) {
  for (size_t at = text.find(key); at != std::string::npos;
       at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

} // namespace

int runLayout(bool quick) {
  const int reps = quick ? 20 : 50;
  // crop_mirror_normalize, anchors checked on the GPU (the default
  // out_of_bounds = error) and, to show what the check costs, padded.
  {
    const int64_t n = quick ? 64 : 256;
    std::vector<HostTensor> inputs = {
        randomU8({n, 256, 256, 3}, 1), randomI32({n, 2}, 2, 0, 32),
        HostTensor(DType::Bool, {n})};
    std::mt19937 rng(3);
    for (int64_t i = 0; i < n; ++i)
      inputs[2].as<uint8_t>()[i] = rng() & 1;
    double bytes = double(n) * 224 * 224 * 3 * (1 + 4);
    for (auto [impl, oob] :
         {std::pair<const char *, const char *>{"pipe", ""},
          {"pipe, out_of_bounds = clamp (no check)",
           ", out_of_bounds = clamp"},
          {"pipe, out_of_bounds = pad (no check)",
           ", out_of_bounds = pad"}}) {
      std::string source = replaceAll(kCropMirrorNormalize, "{OOB}", oob);
      auto pipeline = compile(source.c_str());
      measureLayout("crop_mirror_normalize", impl, *pipeline, inputs, bytes,
                    reps);
    }
  }
  // erase: 4 regions per sample, anywhere (partly outside too).
  {
    const int64_t n = quick ? 16 : 64;
    std::vector<HostTensor> inputs = {randomF32({n, 2, 1024, 1024}, 4),
                                      randomI32({n, 8}, 5, -64, 1023),
                                      randomF32({n}, 6)};
    auto pipeline = compile(kErase);
    measureLayout("erase", "pipe", *pipeline, inputs,
                  2.0 * double(inputs[0].numBytes()), reps);
  }
  // concat along the channels.
  {
    const int64_t n = quick ? 16 : 64;
    std::vector<HostTensor> inputs = {randomU8({n, 512, 512, 3}, 7),
                                      randomU8({n, 512, 512, 3}, 8)};
    auto pipeline = compile(kConcat);
    measureLayout("concat", "pipe", *pipeline, inputs,
                  4.0 * double(inputs[0].numBytes()), reps);
  }
  // pad to a multiple of 32.
  {
    const int64_t n = quick ? 16 : 64;
    std::vector<HostTensor> inputs = {randomU8({n, 1000, 1000, 3}, 9)};
    auto pipeline = compile(kPad32);
    measureLayout("pad32", "pipe", *pipeline, inputs,
                  double(inputs[0].numBytes()) + double(n) * 1024 * 1024 * 3,
                  reps);
  }
  return 0;
}

int runWindow(bool quick) {
  const int reps = quick ? 20 : 50;
  const int64_t n = quick ? 16 : 64;
  std::vector<HostTensor> inputs = {randomU8({n, 512, 512, 3}, 16)};
  for (const WindowCase &c : kWindows) {
    if (!benchWanted(c.name))
      continue;
    std::string source =
        std::string("pipeline window(images: u8[N, H, W, 3]) -> (y: ") +
        c.result + ") {\n  " + c.body + "\n}\n";
    auto pipeline = compile(source.c_str());
    measureLayout(c.name, "pipe", *pipeline, inputs,
                  c.bytesPerInputByte * double(inputs[0].numBytes()), reps);
  }
  return 0;
}

int runColor(bool quick) {
  const int reps = quick ? 20 : 50;
  if (benchWanted("color_jitter")) {
    const int64_t n = quick ? 32 : 128;
    std::vector<HostTensor> inputs = {randomU8({n, 256, 256, 3}, 10)};
    auto pipeline = compile(kColorJitter);
    measureLayout("color_jitter", "pipe", *pipeline, inputs,
                  2.0 * double(inputs[0].numBytes()), reps);
  }
  if (benchWanted("noise")) {
    const int64_t n = quick ? 16 : 64;
    std::vector<HostTensor> inputs = {randomF32({n, 1024, 1024}, 11)};
    auto pipeline = compile(kNoise);
    measureLayout("noise", "pipe", *pipeline, inputs,
                  2.0 * double(inputs[0].numBytes()), reps);
  }
  if (benchWanted("rotate")) {
    const int64_t n = quick ? 16 : 64;
    HostTensor angle = randomF32({n}, 12);
    for (int64_t i = 0; i < n; ++i)
      angle.as<float>()[i] = angle.as<float>()[i] * 20 - 10;
    std::vector<HostTensor> inputs = {randomU8({n, 512, 512, 3}, 13), angle};
    auto pipeline = compile(kRotate);
    measureLayout("rotate", "pipe", *pipeline, inputs,
                  2.0 * double(inputs[0].numBytes()), reps);
  }
  if (benchWanted("resize")) {
    const int64_t n = quick ? 16 : 64;
    std::vector<HostTensor> inputs = {randomU8({n, 1024, 1024, 3}, 14)};
    auto pipeline = compile(kResize);
    measureLayout("resize", "pipe", *pipeline, inputs,
                  1.25 * double(inputs[0].numBytes()), reps);
    auto cubic = compile(kResizeCubic);
    measureLayout("resize_cubic", "pipe", *cubic, inputs,
                  1.25 * double(inputs[0].numBytes()), reps);
  }
  if (benchWanted("train_aug")) {
    // The bytes the work must touch: each window read once (0.433 of a
    // 480 x 640 image on average, torchvision's algorithm run 200k times
    // in NumPy) and the f32 output written once.
    const int64_t n = quick ? 64 : 256;
    std::vector<HostTensor> inputs = {randomU8({n, 480, 640, 3}, 15)};
    auto pipeline = compile(kTrainAugmentation);
    measureLayout("train_aug", "pipe", *pipeline, inputs,
                  double(n) * (0.433 * 480 * 640 * 3 + 3 * 224 * 224 * 4),
                  reps);
    // The whole image read once (a resize to 256 reads every pixel), the
    // f32 crop written once.
    auto validation = compile(kValidation);
    measureLayout("validation", "pipe", *validation, inputs,
                  double(n) * (480 * 640 * 3 + 3 * 224 * 224 * 4), reps);
  }
  return 0;
}
