//===- Launch.h - What every kernel family's launcher shares ----*- C++ -*-===//
//
// The run a launch belongs to (its stream, its buffers' pointers and shapes,
// the symbolic dims' sizes, the device memory it may allocate), and the one
// way kernels are launched (with programmatic dependent launch on Hopper
// and later). A family's launcher (families/<name>/) reads these and never
// the executable's internals.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_LAUNCH_H
#define PIPE_RUNTIME_LAUNCH_H

#include "runtime/Plan.h"
#include "runtime/Status.h"

#include <cuda.h>

#include <map>
#include <string>
#include <vector>

namespace pipert {

struct CudaDriver;
struct CudaDevice;

/// What one run did. Branches and loop iterations the host decides
/// (Plan::choices) launch only the kernels the chosen values need; each
/// time the run cannot go on without conditions the GPU computed, it reads
/// all of those that are ready in one copy and waits for it.
struct RunStats {
  int kernelsLaunched = 0; ///< Plan kernels (a blur's passes count once).
  int kernelsSkipped = 0;  ///< Not needed by the values chosen.
  /// Checks of values in host memory, made before the run (not launched).
  int checksOnHost = 0;
  int decisions = 0;       ///< Waits for conditions.
  int controlCopies = 0;   ///< Device-to-host copies of conditions.
  size_t controlBytes = 0; ///< Bytes those copies moved.
  /// For one shard of a sharded run: the reductions over the batch it
  /// combined with the other shards', and the bytes it read back for them
  /// (it writes as many back).
  int shardCombines = 0;
  size_t shardCombineBytes = 0;
  /// The entry (variant) of each elementwise kernel launched, in order:
  /// which of a kernel's variants the shapes and pointers allowed.
  std::vector<std::string> elementwiseVariants;
};

/// Device memory of one run, freed (stream-ordered) when the run ends.
class RunAllocations {
public:
  RunAllocations(const CudaDriver &cu, CUstream stream)
      : cu(cu), stream(stream) {}
  ~RunAllocations();
  RunAllocations(const RunAllocations &) = delete;
  RunAllocations &operator=(const RunAllocations &) = delete;
  /// `bytes` from the stream-ordered pool into `*ptr` (0 for no bytes); an
  /// error says for what (`what`).
  Status allocate(size_t bytes, const std::string &what, CUdeviceptr *ptr);

private:
  const CudaDriver &cu;
  CUstream stream;
  std::vector<CUdeviceptr> owned;
};

/// The run a launch belongs to.
struct LaunchContext {
  const CudaDriver &cu;
  const CudaDevice &device;
  CUstream stream;
  RunAllocations &allocations;
  /// The size of each symbolic dim.
  const std::map<std::string, int64_t> &sizes;
  /// Each plan buffer's device memory and shape.
  const std::vector<CUdeviceptr> &ptrs;
  const std::vector<std::vector<int64_t>> &shapes;
  /// This run's number (1, 2, ...; it wraps, see Executable): device words
  /// tagged with it need no reset between runs.
  unsigned long long runNumber;
  /// This run's guard word (0 when no kernel raises it): a failed check or
  /// a refused blur raises it (PlanKernel::raisesGuard), and the kernels
  /// after them (PlanKernel::guarded) read it before they write anything.
  CUdeviceptr guardWord;
  RunStats &stats;
};

/// Run numbers wrap after 2^kRunNumberBits runs (the launchers then forget
/// what they tagged with older ones): the bits above a blur's sample code
/// in its device word (core/PipeStencil.h, PIPE_BLUR_RUN_SHIFT).
constexpr int kRunNumberBits = 24;

/// Device words kept from run to run (a blur's or a check's status, the
/// run's guard) come kRunSlots to a set: run r uses slot r % kRunSlots, so
/// that runs of one executable queued on different streams at once (fewer
/// than kRunSlots) do not share a word.
constexpr size_t kRunSlots = 64;
constexpr size_t kRunWordBytes = sizeof(unsigned long long);

/// A launch's grid of blocks.
struct Grid {
  unsigned x = 1, y = 1, z = 1;
};

/// Launches `function` on the run's stream, with programmatic dependent
/// launch where the device has it (every generated entry starts with
/// pipe_wait_for_previous_kernel, codegen/PipeKernel.cuh); an error names
/// `entry`.
Status launchKernel(const LaunchContext &ctx, CUfunction function,
                    const std::string &entry, Grid grid, unsigned threadsX,
                    unsigned threadsY, std::vector<void *> &params);
/// A flat grid of `blocks` (at least one).
Status launchKernel(const LaunchContext &ctx, CUfunction function,
                    const std::string &entry, long long blocks,
                    unsigned threadsX, unsigned threadsY,
                    std::vector<void *> &params);

/// The product of `shape`.
int64_t numElementsOf(const std::vector<int64_t> &shape);

/// After a check, a guarded entry (PlanKernel::guarded) takes the run's
/// guard word and number last: appends them to `args` when `kernel` is
/// guarded (pointers into `ctx`, which outlives the launch).
void addGuardArgs(const LaunchContext &ctx, const PlanKernel &kernel,
                  std::vector<void *> &args);

/// The sizes of `dims` (a PlanKernel's dimArgs), in order.
std::vector<long long> dimValues(const LaunchContext &ctx,
                                 const std::vector<std::string> &dims);

/// The sizes of `dims` under the run's dim sizes.
std::vector<int64_t> resolveDims(const LaunchContext &ctx,
                                 const std::vector<PlanDim> &dims);

} // namespace pipert

#endif // PIPE_RUNTIME_LAUNCH_H
