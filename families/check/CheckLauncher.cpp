//===- CheckLauncher.cpp - Launching checks of values ---------------------===//
//
// A check (see CheckFamily.cpp) runs two kernels: one over every element,
// which raises the check's word of the run's slot and the run's guard word
// at a bad one, and one thread that writes the first bad element and its
// value into mapped pinned host memory, which verdict() reads once the run
// is done. The words are tagged with the run's number: nothing resets them
// between runs.
//
//===----------------------------------------------------------------------===//

#include "families/check/CheckParams.h"

#include "core/DimExpr.h"
#include "runtime/CudaDriver.h"
#include "runtime/KernelLauncher.h"
#include "core/StorageTypes.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace pipert;

namespace {

/// What the check kernel's last block writes: the run's number (0 before),
/// the first bad element's flat index and its value.
struct CheckReport {
  long long run, index, value;
};

/// The failure of a check of `value` (its shape `shape`) at flat index
/// `index`, with `bounds` (lo and hi per column) and the value as text.
Status describeFailure(const CheckParams &params,
                       const std::vector<int64_t> &shape, long long index,
                       const std::vector<long long> &bounds,
                       const std::string &value) {
  std::vector<long long> coordinates(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coordinates[d] = shape[d] ? index % shape[d] : 0;
    index = shape[d] ? index / shape[d] : 0;
  }
  size_t column = 0;
  if (params.columns.size() > 1) {
    column = size_t(coordinates.back());
    coordinates.pop_back();
  }
  std::string at = "[";
  for (size_t d = 0; d < coordinates.size(); ++d)
    at += (d ? ", " : "") + std::to_string(coordinates[d]);
  at += "]";
  return Status::error(formatCheckMessage(params.columns[column].message, at,
                                          value, bounds[2 * column],
                                          bounds[2 * column + 1]) +
                       "; nothing was written");
}

/// lo and hi of each column under `sizes`.
Result<std::vector<long long>>
evaluateBounds(const PlanKernel &kernel, const CheckParams &params,
               const std::map<std::string, int64_t> &sizes) {
  std::vector<long long> bounds;
  for (const CheckParams::Column &column : params.columns)
    for (const std::string *bound : {&column.lo, &column.hi}) {
      std::string missing;
      auto size = evaluateDim(*bound, sizes, &missing);
      if (!size)
        return Status::error("internal error: check kernel '" + kernel.name +
                             "' has a bound of unknown size '" + missing +
                             "'");
      bounds.push_back(*size);
    }
  return bounds;
}

class CheckLauncher : public KernelLauncher {
public:
  CheckLauncher(const PlanKernel &kernel, CheckParams params)
      : kernel(kernel), params(std::move(params)) {}

  Status load(const CudaDriver &cu, CUmodule module) override;
  void release(const CudaDriver &cu) override {
    if (report)
      cu.cuMemFreeHost(const_cast<CheckReport *>(report));
    if (words)
      cu.cuMemFree(words);
  }
  Status checkOnHost(const Plan &plan, const std::vector<TensorRef> &inputs,
                     const std::map<std::string, int64_t> &sizes,
                     bool &done) override;
  Status launch(const LaunchContext &ctx) override;
  bool hasVerdict() const override { return true; }
  void beginRun() override { report->run = 0; }
  Status verdict() const override;
  Status forgetRuns(const CudaDriver &cu, CUstream stream) override {
    return checkCuda(
        cu.cuMemsetD8Async(words, 0, kWordBytes, stream),
        "cuMemsetD8Async", "for check words");
  }

private:
  const PlanKernel &kernel;
  CheckParams params;
  CUfunction check = nullptr;
  /// The report, in mapped pinned memory, and its device address.
  volatile CheckReport *report = nullptr;
  CUdeviceptr reportDevice = 0;
  /// Two device words per run slot: the first bad element's (CheckParams.h)
  /// and the count of the check's blocks that have finished.
  static constexpr size_t kWordBytes = kRunSlots * 2 * kRunWordBytes;
  CUdeviceptr words = 0;
  /// Of the latest launch, for the verdict's message: the value's shape,
  /// and lo and hi of each column.
  std::vector<int64_t> shape;
  std::vector<long long> bounds;
};

Status CheckLauncher::load(const CudaDriver &cu, CUmodule module) {
  if (kernel.entries.size() != 1 || kernel.inputs.size() != 1)
    return Status::error("check kernel '" + kernel.name +
                         "' does not have its one entry and one input");
  if (Status s = getFunction(cu, module, kernel.entries[0], &check); !s.ok())
    return s;
  void *host = nullptr;
  if (Status s = checkCuda(cu.cuMemHostAlloc(&host, sizeof(CheckReport),
                                             CU_MEMHOSTALLOC_DEVICEMAP),
                           "cuMemHostAlloc", "for a check's report");
      !s.ok())
    return s;
  report = static_cast<volatile CheckReport *>(host);
  report->run = 0;
  if (Status s = checkCuda(cu.cuMemHostGetDevicePointer(&reportDevice, host, 0),
                           "cuMemHostGetDevicePointer", "for a check's report");
      !s.ok())
    return s;
  if (Status s = checkCuda(cu.cuMemAlloc(&words, kWordBytes), "cuMemAlloc",
                           "for check words");
      !s.ok())
    return s;
  std::vector<unsigned char> zeros(kWordBytes, 0);
  return checkCuda(cu.cuMemcpyHtoD(words, zeros.data(), zeros.size()),
                   "cuMemcpyHtoD", "for check words");
}

Status CheckLauncher::launch(const LaunchContext &ctx) {
  shape = ctx.shapes[kernel.inputs.front()];
  long long n = numElementsOf(shape);
  if (n == 0)
    return Status();
  if ((unsigned long long)n > kCheckIndexMask)
    return Status::error("check at " + kernel.location + ": " +
                         std::to_string(n) +
                         " values are more than a check can look at (2^" +
                         std::to_string(kCheckIndexBits) + ")");
  auto evaluated = evaluateBounds(kernel, params, ctx.sizes);
  if (!evaluated)
    return evaluated.status();
  bounds = evaluated.take();
  CUdeviceptr value = ctx.ptrs[kernel.inputs.front()];
  CUdeviceptr word =
      words + (ctx.runNumber % kRunSlots) * 2 * kRunWordBytes;
  CUdeviceptr blocksDone = word + kRunWordBytes;
  CUdeviceptr guard = ctx.guardWord;
  CUdeviceptr out = reportDevice;
  unsigned long long run = ctx.runNumber;
  // The bounds go by value, as the kernel's struct of long longs.
  std::vector<void *> args = {&value, &n,   bounds.data(), &word,
                              &guard, &run, &blocksDone,   &out};
  long long blocks = std::min((n + 255) / 256,
                              (long long)ctx.device.multiprocessors * 8);
  return launchKernel(ctx, check, kernel.entries[0], blocks, 256, 1, args);
}

Status CheckLauncher::checkOnHost(const Plan &plan,
                                  const std::vector<TensorRef> &inputs,
                                  const std::map<std::string, int64_t> &sizes,
                                  bool &done) {
  done = false;
  int b = kernel.inputs.front();
  if (b >= plan.numParams || inputs[b].memory != Memory::Host)
    return Status();
  const TensorRef &value = inputs[b];
  auto checked = evaluateBounds(kernel, params, sizes);
  if (!checked)
    return checked.status();
  const std::vector<long long> &bounds = *checked;
  size_t columns = params.columns.size();
  int64_t n = value.numElements();
  Status status;
  visitStorageType(value.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, pipe_bool>) {
      // Not checked (the verifier takes integers and floats).
    } else if constexpr (!std::is_integral_v<T>) {
      // Floats (f16 and bf16 through their widening): NaN is out.
      const T *data = static_cast<const T *>(value.data);
      for (int64_t i = 0; i < n && status.ok(); ++i) {
        size_t c = columns > 1 ? size_t(i % int64_t(columns)) : 0;
        double x = pipe_cast<double>(data[i]);
        if (x >= double(bounds[2 * c]) && x <= double(bounds[2 * c + 1]))
          continue;
        status = describeFailure(params, value.shape, i, bounds,
                                 formatCheckFloat(x));
      }
    } else {
      const T *data = static_cast<const T *>(value.data);
      for (int64_t i = 0; i < n && status.ok(); ++i) {
        size_t c = columns > 1 ? size_t(i % int64_t(columns)) : 0;
        bool huge = std::is_unsigned_v<T> && sizeof(T) == 8 &&
                    uint64_t(data[i]) > uint64_t(INT64_MAX);
        long long x = (long long)data[i];
        if (!huge && x >= bounds[2 * c] && x <= bounds[2 * c + 1])
          continue;
        status = describeFailure(params, value.shape, i, bounds,
                                 std::to_string(data[i]));
      }
    }
  });
  if (!status.ok())
    return status;
  done = true;
  return Status();
}

Status CheckLauncher::verdict() const {
  if (report->run == 0)
    return Status();
  long long value = report->value;
  if (params.floating) {
    double x;
    std::memcpy(&x, &value, sizeof(x));
    return describeFailure(params, shape, report->index, bounds,
                           formatCheckFloat(x));
  }
  return describeFailure(params, shape, report->index, bounds,
                         params.unsigned64
                             ? std::to_string((unsigned long long)value)
                             : std::to_string(value));
}

} // namespace

namespace pipert {
Result<std::unique_ptr<KernelLauncher>> createCheckLauncher(const Plan &plan,
                                                            size_t index) {
  return createLauncherOf<CheckLauncher, CheckParams>(plan, index);
}
} // namespace pipert
