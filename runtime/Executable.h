//===- Executable.h - A loaded plan, ready to run ---------------*- C++ -*-===//
//
// Loads a Plan's kernels onto the GPU once, then runs the pipeline on the
// caller's tensors as often as asked. Every input is validated before any
// GPU work starts: a wrong dtype, rank or size, a null buffer, a dim that
// disagrees with another parameter's, an output that overlaps an input or
// another output, gives a Status that names the tensors (and the dim), and
// leaves the caller's buffers untouched.
//
// The executable knows its kernels only through their families' launchers
// (runtime/KernelLauncher.h): it validates, binds dims, allocates, stages
// host tensors, and schedules (runtime/Scheduler.cpp); the launchers launch.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_EXECUTABLE_H
#define PIPE_RUNTIME_EXECUTABLE_H

#include "runtime/Launch.h"
#include "runtime/Plan.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

typedef struct CUstream_st *CUstream;

namespace pipert {

struct CudaDriver;
class KernelLauncher;
class ShardExchange;
struct Staging;

/// Checks `inputs` against the parameters `params` of pipeline `pipeline`
/// (count, dtype, rank, literal sizes, non-null data) and binds each symbolic
/// dim; an error names the input and the dim that do not fit, and for a dim
/// bound twice, both places.
/// The messages of a run given the wrong number of tensors: "pipeline 'p'
/// takes 1 input, got 2", "pipeline 'p' has 2 results, got 1 output
/// tensor".
std::string describeInputCount(const std::string &pipeline, size_t expected,
                               size_t got);
std::string describeOutputCount(const std::string &pipeline, size_t expected,
                                size_t got);

Result<std::map<std::string, int64_t>>
bindDims(const std::string &pipeline, const PlanBuffer *params,
         size_t numParams, const std::vector<TensorRef> &inputs,
         bool checkPins = true);
inline Result<std::map<std::string, int64_t>>
bindDims(const std::string &pipeline, const std::vector<PlanBuffer> &params,
         const std::vector<TensorRef> &inputs) {
  return bindDims(pipeline, params.data(), params.size(), inputs);
}

/// An error naming `what` when a tensor in `actual` memory is passed where
/// the source pinned `pinned` memory (`@host` / `@device`).
Status checkPinnedMemory(const std::string &what, PlanMemory pinned,
                         Memory actual);

/// An error naming the output when one of `outputs` (the results of
/// pipeline `plan`) shares memory with an input or another output: kernels
/// read inputs while they write outputs, in any order.
Status checkNoOverlap(const Plan &plan, const std::vector<TensorRef> &inputs,
                      const std::vector<TensorRef> &outputs);

/// Waits for the work queued on `stream` (after run(..., wait = false)).
Status waitFor(CUstream stream);

/// Adds to `sizes` the value of each dim expression the plan's buffers use
/// (under its text), and checks the plan's dim checks; an error names the
/// dim, or says what the check is about, with the sizes that break it.
Status evaluatePlanDims(const Plan &plan, std::map<std::string, int64_t> &sizes);

/// The shape of `buffer` under the dims `sizes` binds (dim expressions are
/// evaluated when `sizes` does not hold them already).
std::vector<int64_t> shapeOf(const PlanBuffer &buffer,
                             const std::map<std::string, int64_t> &sizes);

/// How messages name buffer `b` of `plan`: 'name', or intermediate %b.
std::string describeBuffer(const Plan &plan, int b);

/// Binds each symbolic dim of `plan` from the inputs and returns the shape
/// of each result; an error names the input and dim that do not fit. Needs
/// no GPU. (`checkPins`: as checkRunTensors's.)
Result<std::vector<std::vector<int64_t>>>
resultShapes(const Plan &plan, const std::vector<TensorRef> &inputs,
             bool checkPins = true);

/// The tensors of a run against `plan`: each input against its parameter,
/// the outputs' count, dtypes, shapes and memory, no overlap. Returns each
/// dim's size, and sets `shapes` to each buffer's shape. Executable::run
/// makes these checks (reporting a failure as Status::badArgument); a
/// caller that has no Executable yet makes them before loading one, so
/// that a bad tensor is named before a missing GPU is. Without
/// `checkPins`, @host and @device are not checked: the CPU reference,
/// which has no device memory, ignores them (docs/language.md).
Result<std::map<std::string, int64_t>>
checkRunTensors(const Plan &plan, const std::vector<TensorRef> &inputs,
                const std::vector<TensorRef> &outputs,
                std::vector<std::vector<int64_t>> &shapes,
                bool checkPins = true);

/// checkRunTensors alone, its failure a Status::badArgument: for callers
/// that check a run before its kernels are loaded.
Status checkRunArguments(const Plan &plan, const std::vector<TensorRef> &inputs,
                         const std::vector<TensorRef> &outputs);

/// What the random ops of a run draw (core/PipeRandom.h): each value is a
/// function of the seed, the random run number and the element, so a run
/// is replayed by setting both back. (Ops with a `seed =` of their own use
/// that instead of `seed`.)
struct RandomState {
  uint64_t seed = 0;
  uint64_t run = 0;
  /// Where this run's samples sit in a batch split over processes (a
  /// torchrun rank's part, docs/runtime.md "Several GPUs"): the index of
  /// its first sample along the batch dim. Coordinates along the batch
  /// dim (`iota`, and the index random ops draw with) count from it, so
  /// that each part draws what one run over the whole batch would draw for
  /// the same samples. Runs do not change it.
  int64_t batchOffset = 0;
};

class Executable {
public:
  /// Loads every kernel of `plan` on device `device` (compiling with NVRTC
  /// what has no usable image for its architecture). Fails if there is no
  /// such GPU or a kernel does not load. Runs then make that device's
  /// context current on the calling thread.
  static Result<std::unique_ptr<Executable>> load(Plan plan, int device = 0);
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const Plan &plan() const { return plan_; }
  /// The CUDA device ordinal it runs on.
  int device() const { return device_; }

  /// Binds each symbolic dim from the inputs and returns the shape of each
  /// result; an error names the input and dim that do not fit.
  Result<std::vector<std::vector<int64_t>>>
  resultShapes(const std::vector<TensorRef> &inputs) const;

  /// Runs on `inputs` (one per parameter, host or device) into `outputs`
  /// (one per result, host or device, of the shapes resultShapes gives).
  /// `stream` is the caller's, or null for the default stream. With `wait`,
  /// returns once the results are written; without, returns once the work
  /// is queued on `stream`: the caller then waits on it (waitFor) before
  /// reading the outputs or changing host inputs. Errors in the inputs are
  /// reported either way, before anything is queued. Host tensors are
  /// copied by the driver from the caller's memory; PIPE_PINNED_STAGING=1
  /// (with `wait`) moves them through pinned buffers instead, the CPU's copy
  /// of one chunk overlapping the DMA of the last (slower on the machines
  /// measured so far; see runtime/Staging.h). A kernel that checks its
  /// input on the GPU (a gaussian_blur's per-sample windows, a crop's
  /// anchors, a take's indices) reports a bad one: with `wait`, run does;
  /// without, wait() does. Then that kernel and every kernel after a check
  /// write nothing, and outputs that are copies are not copied either (so
  /// with such outputs the run waits for the verdict before copying them). A pipeline with branches the host decides waits, even without
  /// `wait`, for each condition computed on the GPU
  /// (lastRunStats().decisions times).
  Status run(const std::vector<TensorRef> &inputs,
             const std::vector<TensorRef> &outputs, CUstream stream = nullptr,
             bool wait = true);

  /// Waits for a run queued with `wait = false` on `stream`, then reports
  /// what only the GPU could check (a gaussian_blur window or sigma that is
  /// wrong for some sample: the blur then wrote nothing). It reports on the
  /// executable's last run: wait for a run before queueing the next one if
  /// its verdict matters.
  Status wait(CUstream stream) const;

  /// Runs on host tensors and returns the results as host tensors.
  Result<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs);

  using RunStats = pipert::RunStats;
  /// The statistics of the last run (of any thread's: one at a time).
  RunStats lastRunStats() const {
    std::lock_guard<std::mutex> lock(runMutex_);
    return stats_;
  }

  /// The seed of the random ops (0 until set), and the random run number
  /// the next run draws with: it starts at 0 and each run that passes the
  /// checks of its inputs advances it by one, whether or not its pipeline
  /// draws random numbers. Setting it replays (or skips to) a run.
  RandomState randomState() const {
    std::lock_guard<std::mutex> lock(runMutex_);
    return random_;
  }
  void setRandomState(RandomState state) {
    std::lock_guard<std::mutex> lock(runMutex_);
    random_ = state;
  }

  /// For tests of the run numbers' wrap: makes `run` the latest run's
  /// number, so that the next run is run + 1.
  void setLatestRunNumberForTesting(unsigned long long run) {
    runNumber_ = run;
  }

private:
  friend class ShardedExecutable;
  explicit Executable(Plan plan);
  /// run(), as one shard of a sharded run when `exchange` is not null: the
  /// reductions over the batch (Plan::combines) then wait for every
  /// shard's partial value and go on with the combined one.
  Status runWith(const std::vector<TensorRef> &inputs,
                 const std::vector<TensorRef> &outputs, CUstream stream,
                 bool wait, ShardExchange *exchange);
  Plan plan_;
  int device_ = 0;
  /// Held by run() and wait() throughout: runs from several threads are
  /// serialized, since a run updates the state below (its number, the
  /// statistics, the pinned block of conditions, the verdicts it reads
  /// back). See docs/runtime.md, "Threads".
  mutable std::mutex runMutex_;
  /// Each kernel's module and its family's launcher, in plan order.
  std::vector<CUmodule> modules_;
  std::vector<std::unique_ptr<KernelLauncher>> launchers_;
  /// Device memory of each buffer's constant data (0 for other buffers),
  /// and the allocations behind them.
  std::vector<unsigned long long> constantPtrs_;
  std::vector<unsigned long long> constants_;
  /// Pinned host memory for host inputs and outputs, made on first use.
  std::unique_ptr<Staging> staging_;
  /// The number of the latest run (see kRunNumberBits).
  unsigned long long runNumber_ = 0;
  /// The seed, and the random run number of the next run.
  RandomState random_;
  /// Whether some kernel reports a verdict after the run.
  bool hasVerdicts_ = false;
  /// Whether the plan has kernels that raise the guard (checks, blurs of
  /// per-sample windows) and kernels guarded by them: then the runs' guard
  /// words, one per run slot (LaunchContext::guardWord).
  bool hasGuard_ = false;
  unsigned long long guardWords_ = 0;
  Status checkVerdicts() const;

  /// Where each condition a choice reads sits in the run's block of
  /// conditions (-1 for other buffers), the block's size, and pinned host
  /// memory for it (then one byte per choice, for conditions outside it).
  std::vector<int> controlSlot_;
  size_t numControlSlots_ = 0;
  void *controlHost_ = nullptr;
  RunStats stats_;
  /// Allocates, launches, skips and decides, in an order the buffers'
  /// dependencies and the choices allow (see Scheduler.cpp).
  /// One run's buffers, as run() set them up.
  struct RunState {
    const LaunchContext &ctx;
    std::vector<CUdeviceptr> &ptrs;
    /// Buffers whose memory is known: the caller's, a constant's, a
    /// condition's slot. Others are allocated when first needed.
    std::vector<bool> &bound;
    const std::vector<TensorRef> &inputs;
    CUdeviceptr controlBlock;
    /// Kernels whose work the host did before the run (checks of host
    /// values): not launched, their outputs ready.
    const std::vector<bool> &doneOnHost;
    /// For a shard of a sharded run: where its partial reductions go.
    ShardExchange *exchange;
  };
  Status schedule(RunState &state);
  /// Reads back the partial values of `buffers` (reductions over the
  /// batch), combines each with the other shards' through the run's
  /// exchange, and writes the combined values back; `values[i]` is then
  /// buffers[i]'s combined value.
  Status combineShards(RunState &state, const std::vector<int> &buffers,
                       std::vector<std::string> &values);
  Status prepareControl(const CudaDriver &cu);
};

} // namespace pipert

#endif // PIPE_RUNTIME_EXECUTABLE_H
