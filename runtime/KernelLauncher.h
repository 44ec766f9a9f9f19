//===- KernelLauncher.h - The runtime half of a kernel family ---*- C++ -*-===//
//
// A plan kernel names its family (PlanKernel::family); the executable makes
// one launcher per kernel from the family's factory and knows nothing else
// of it. The launcher finds its entries in the loaded module, reads its
// parameters once, keeps what the family needs across runs (the blur's
// status words), launches the kernel's work for a run, and reports what
// only the GPU could check. families/<name>/ holds each family's launcher
// next to its emitter; runtime/KernelLauncher.cpp lists the families.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_KERNELLAUNCHER_H
#define PIPE_RUNTIME_KERNELLAUNCHER_H

#include "runtime/Launch.h"
#include "runtime/Tensor.h"

#include <memory>

namespace pipert {

class KernelLauncher {
public:
  virtual ~KernelLauncher() = default;

  /// Once, after the kernel's module is loaded: finds the entries, reads the
  /// parameters, allocates what the family keeps across runs.
  virtual Status load(const CudaDriver &cu, CUmodule module) = 0;
  /// Frees what load allocated.
  virtual void release(const CudaDriver &) {}

  /// Before anything of a run is queued: a kernel that only checks values
  /// the host already has (a parameter in host memory) checks them here,
  /// reports a bad one at once, and sets `done` so that the run does not
  /// launch it.
  virtual Status checkOnHost(const Plan &, const std::vector<TensorRef> &,
                             const std::map<std::string, int64_t> &,
                             bool &done) {
    done = false;
    return Status();
  }

  /// Queues the kernel's work of one run on `ctx.stream`.
  virtual Status launch(const LaunchContext &ctx) = 0;

  /// Whether the kernel checks its input on the GPU and reports a bad one
  /// after the run (verdict): host outputs then wait for the verdict.
  virtual bool hasVerdict() const { return false; }
  /// Before each run's first launch, on the host.
  virtual void beginRun() {}
  /// Once the run has completed: what only the GPU could check, or ok.
  virtual Status verdict() const { return Status(); }
  /// The run numbers wrapped around: forget what is tagged with old ones.
  virtual Status forgetRuns(const CudaDriver &, CUstream) { return Status(); }
};

/// The launcher for kernel `index` of `plan`, by its family; an error for a
/// family this runtime does not have.
Result<std::unique_ptr<KernelLauncher>> createKernelLauncher(const Plan &plan,
                                                             size_t index);

/// A family's factory, for a launcher constructed from the plan kernel and
/// its parameters (`Params::decode` of PlanKernel::params): the launcher,
/// or why the parameters do not decode.
template <typename Launcher, typename Params>
Result<std::unique_ptr<KernelLauncher>> createLauncherOf(const Plan &plan,
                                                         size_t index) {
  const PlanKernel &kernel = plan.kernels[index];
  auto params = Params::decode(kernel.params);
  if (!params)
    return params.status();
  return std::unique_ptr<KernelLauncher>(
      new Launcher(kernel, std::move(*params)));
}

/// Looks up `entry` in `module` into `*function`; an error names it.
Status getFunction(const CudaDriver &cu, CUmodule module,
                   const std::string &entry, CUfunction *function);

} // namespace pipert

#endif // PIPE_RUNTIME_KERNELLAUNCHER_H
