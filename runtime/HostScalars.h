//===- HostScalars.h - Scalar kernels computed on the host ------*- C++ -*-===//
//
// A branch condition computed from scalars that are already on the host (a
// trip count the caller passes, a flag) need not go to the GPU and back:
// the runtime runs the kernel's host steps (PlanKernel::hostSteps) with the
// scalar functions the GPU uses (core/PipeScalar.h), so the host gets
// the very value the kernel would have written.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_HOSTSCALARS_H
#define PIPE_RUNTIME_HOSTSCALARS_H

#include "runtime/Plan.h"
#include "runtime/Status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pipert {

/// Runs the host steps of `kernel` (one of `plan`'s) on `inputs` (each
/// input's element, in its dtype's bytes), with the run's dims `sizes`, and
/// sets `outputs` to each output's element. An error names a step the host
/// cannot run.
Status evaluateHostSteps(const Plan &plan, const PlanKernel &kernel,
                         const std::vector<const void *> &inputs,
                         const std::map<std::string, int64_t> &sizes,
                         std::vector<std::string> &outputs);

/// One elementwise op (as a PlanScalarStep names it: `op`, the operands'
/// `dtype`, `resultDType`) on scalars given as the low bytes of 64-bit
/// words, the result likewise; nothing for an op the host cannot run.
/// Constant folding computes through this, so that it agrees with kernels.
std::optional<uint64_t> evaluateScalarOp(const std::string &op, DType dtype,
                                         DType resultDType,
                                         const std::vector<uint64_t> &operands);

} // namespace pipert

#endif // PIPE_RUNTIME_HOSTSCALARS_H
