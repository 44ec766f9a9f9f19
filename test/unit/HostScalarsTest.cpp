//===- HostScalarsTest.cpp - Scalar kernels on the host -------------------===//
//
// The runtime computes branch conditions from host scalars with a scalar
// kernel's host steps; they must give the reference's bits, op by op and
// dtype by dtype, for any input.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "runtime/HostScalars.h"

using namespace pipetest;
using pipert::DType;
using pipert::HostTensor;

namespace {

/// Every scalar kernel of `source`'s plan, run on the host for random
/// inputs, against the reference.
void expectHostStepsMatchReference(const std::string &source,
                                   const std::vector<DType> &params) {
  auto pipeline = compileOrDie(source);
  ASSERT_TRUE(pipeline);
  const pipert::Plan &plan = pipeline->plan();
  ASSERT_EQ(plan.kernels.size(), 1u);
  const pipert::PlanKernel &kernel = plan.kernels[0];
  ASSERT_FALSE(kernel.hostSteps.empty());
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < params.size(); ++i)
      inputs.push_back(randomTensor(params[i], {}, seed * 31 + i, -40, 40));
    if (seed % 10 == 0) // zeros: division, shifts, logs
      for (HostTensor &t : inputs)
        std::memset(t.data(), 0, t.numBytes());
    auto expected = pipeline->runReference(inputs);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    std::vector<const void *> args;
    for (int b : kernel.inputs)
      args.push_back(inputs[b].data());
    std::vector<std::string> outputs;
    pipert::Status status = pipert::evaluateHostSteps(plan, kernel, args, {}, outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(outputs.size(), kernel.outputs.size());
    for (size_t r = 0; r < plan.results.size(); ++r) {
      auto it = std::find(kernel.outputs.begin(), kernel.outputs.end(),
                          plan.results[r]);
      ASSERT_NE(it, kernel.outputs.end());
      const std::string &got = outputs[it - kernel.outputs.begin()];
      const HostTensor &want = (*expected)[r];
      ASSERT_EQ(got.size(), want.numBytes());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size()))
          << "result " << plan.resultNames[r] << ", seed " << seed;
    }
  }
}

} // namespace

TEST(HostScalars, FloatOpsMatchTheReference) {
  expectHostStepsMatchReference(
      "pipeline p(a: f32, b: f32, h: f16) -> (r0: f32, r1: f32, r2: f32, "
      "r3: f32, r4: bool, r5: f16, r6: bf16, r7: f64, r8: f32) {\n"
      "  r0 = a + b * 2 - a / b\n"
      "  r1 = a // b + a % b + min(a, b) - max(a, b)\n"
      "  r2 = sqrt(abs(a)) + rsqrt(abs(b) + 1) + exp(a / 40) + log(abs(b) + 1)\n"
      "  r3 = sin(a) + cos(b) + tanh(a) + floor(a) + ceil(b) + round(a / 3)\n"
      "  r4 = a < b && a <= b || a > 2 && b >= -1 || a == b || a != 0\n"
      "  r5 = h * 3 + f16(a)\n"
      "  r6 = bf16(a * b)\n"
      "  r7 = f64(a) ** 2\n"
      "  r8 = select(a > b, a, b) + clamp(a, -1, 1)\n}\n",
      {DType::F32, DType::F32, DType::F16});
}

TEST(HostScalars, IntegerOpsAndCastsMatchTheReference) {
  expectHostStepsMatchReference(
      "pipeline p(i: i32, j: i32, u: u8, k: i64, m: bool) -> (r0: i32, "
      "r1: i32, r2: u8, r3: i64, r4: bool, r5: u16, r6: i8, r7: bool, "
      "r8: i32) {\n"
      "  r0 = i * j + i // j - i % j + i ** 2\n"
      "  r1 = (i & j) | (i ^ 255) + (i << 3) + (j >> 2) + ~i + abs(j)\n"
      "  r2 = u * 7 + u // 3\n"
      "  r3 = k * k - i64(i)\n"
      "  r4 = !m && i > j || bool(u)\n"
      "  r5 = u16(f32(i) * 1000.5)\n"
      "  r6 = i8(j)\n"
      "  r7 = m ^ (u > 100)\n"
      "  r8 = i32(16 + f32(u) * 300.0) | 1\n}\n",
      {DType::I32, DType::I32, DType::U8, DType::I64, DType::Bool});
}
