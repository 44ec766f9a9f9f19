//===- jit_example.cpp - Compile a pipeline from C++ and run it -----------===//
//
// The JIT way in: a pipeline written as a string in the host program,
// compiled at run time, run on the GPU on random images of an odd size, and
// checked against the CPU reference executor.
//
//   jit_example [N H W]      exit 0: equal; 1: differ or failed; 77: no GPU
//
//===----------------------------------------------------------------------===//

#include "compiler/JitPipeline.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

static const char *const kSource = R"pipe(
# Brightness and contrast on u8 images, per-batch gain from the host.
pipeline adjust(images: u8[N, H, W], gain: f32) -> (out: u8[N, H, W]) {
  centered = f32(images) - 128
  out = u8(centered * gain + 128)
}
)pipe";

int main(int argc, char **argv) {
  int64_t n = 3, h = 37, w = 101;
  if (argc == 4) {
    n = atoll(argv[1]);
    h = atoll(argv[2]);
    w = atoll(argv[3]);
  }
  auto pipeline = pipec::JitPipeline::compile(kSource, "adjust.pipe");
  if (!pipeline) {
    fprintf(stderr, "compile failed:\n%s\n", pipeline.status().message().c_str());
    return 1;
  }

  pipert::HostTensor images(pipert::DType::U8, {n, h, w});
  pipert::HostTensor gain(pipert::DType::F32, {});
  std::mt19937 rng(12345);
  for (int64_t i = 0; i < images.numElements(); ++i)
    images.as<uint8_t>()[i] = uint8_t(rng());
  *gain.as<float>() = 1.37f;

  auto expected = (*pipeline)->runReference({images, gain});
  if (!expected) {
    fprintf(stderr, "reference failed: %s\n", expected.status().message().c_str());
    return 1;
  }
  if (pipert::Status gpu = pipert::checkGpuAvailable(); !gpu.ok()) {
    printf("skipped: %s\n", gpu.message().c_str());
    return 77;
  }
  auto results = (*pipeline)->run({images, gain});
  if (!results) {
    fprintf(stderr, "GPU run failed: %s\n", results.status().message().c_str());
    return 1;
  }
  const pipert::HostTensor &got = (*results)[0], &want = (*expected)[0];
  int64_t mismatches = 0;
  for (int64_t i = 0; i < got.numElements(); ++i)
    mismatches += got.as<uint8_t>()[i] != want.as<uint8_t>()[i];
  printf("adjust on %s: %lld of %lld elements differ from the CPU reference\n",
         got.describe().c_str(), (long long)mismatches,
         (long long)got.numElements());
  return mismatches == 0 ? 0 : 1;
}
