//===- Sharded.h - One pipeline over a batch split across GPUs --*- C++ -*-===//
//
// A sharded run splits the batch along its batch dim (Plan::batchDim, the
// leading dim of the parameters that have it) into contiguous shards, as
// evenly as possible, and runs the whole pipeline on each shard, each on
// its own GPU (or several on one: the same code then runs, and is tested,
// on a machine with one). Parameters without the batch dim go to every
// shard whole. A reduction over the batch (a branch condition over the
// whole batch) is computed by each shard over its own samples; the shards
// then hand their partial values (a few bytes each) to the host, which
// combines them and gives every shard the combined value, so that every
// shard takes the same branches as one run over the whole batch would.
// Coordinates along the batch (iota, the index random ops draw with)
// count from each shard's first sample: a sharded run gives the results
// of the unsharded one.
//
// The compiler decides whether a pipeline can be split (pipe-shard-batch):
// ops that work across the samples (a blur along the batch dim, a flip of
// it, a slice of it) make a sharded load fail with the op and its place.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_SHARDED_H
#define PIPE_RUNTIME_SHARDED_H

#include "runtime/Executable.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pipert {

/// One shard: samples [begin, begin + count) of the batch, on `device`.
struct ShardRange {
  int device = 0;
  int64_t begin = 0;
  int64_t count = 0;
};

/// Splits `batch` samples over one shard per entry of `devices`, as evenly
/// as possible: the first `batch % n` shards get one sample more. Shards
/// past the batch's end (more shards than samples) get none.
std::vector<ShardRange> splitBatch(int64_t batch, const std::vector<int> &devices);

/// The first sample and the count of part `shardId` of `numShards` of a
/// batch (or a data source) of `total` samples, split as splitBatch does:
/// what a process launched by torchrun takes as its part (rank, world
/// size). An error if shardId is not in [0, numShards).
Result<ShardRange> shardOf(int64_t total, int shardId, int numShards);

/// Combines the shards' partial values of a reduction over the batch:
/// `parts[s]` holds shard s's value (elements of `dtype`), computed over
/// `weights[s]` samples (mean weighs by them; shards of no samples are
/// left out). The result is as the reduction over the whole batch, up to
/// rounding of float sums and means (min and max let NaN win, as the
/// reductions do). Needs no GPU.
Result<std::string> combinePartials(PlanCombineKind kind, DType dtype,
                                    const std::vector<std::string> &parts,
                                    const std::vector<int64_t> &weights);

/// Where a shard's partial values meet the others' (Sharded.cpp).
class ShardExchange {
public:
  virtual ~ShardExchange() = default;
  /// Hands over this shard's partial value of plan buffer `buffer` and
  /// returns once every shard has, with `bytes` replaced by the combined
  /// value; an error if another shard failed meanwhile.
  virtual Status combine(int buffer, std::string &bytes) = 0;
};

/// What the last sharded run did: each shard's range and statistics, and
/// the bytes it moved between GPUs or through the host for the split.
struct ShardedRunStats {
  std::vector<ShardRange> shards;
  std::vector<RunStats> shardStats;
  /// Inputs copied to a shard's GPU from another GPU (scatter), results
  /// copied from a shard's GPU to the output's (gather).
  size_t scatterBytes = 0;
  size_t gatherBytes = 0;
  /// Partial values of reductions over the batch read back by all shards
  /// together (as many are written back).
  size_t combineBytes = 0;
};

class ShardedExecutable {
public:
  /// Loads `plan` once per shard: shard s runs on device `devices[s]` (an
  /// ordinal may repeat, to split over several shards on one GPU); no
  /// devices means one shard per visible GPU. A kernel is compiled once
  /// per GPU architecture (runtime/KernelCache.h). Fails with the
  /// compiler's reason when the pipeline cannot be split.
  static Result<std::unique_ptr<ShardedExecutable>>
  load(Plan plan, std::vector<int> devices = {});
  ~ShardedExecutable();
  ShardedExecutable(const ShardedExecutable &) = delete;
  ShardedExecutable &operator=(const ShardedExecutable &) = delete;

  const Plan &plan() const { return shards_[0]->plan(); }
  /// The device of each shard.
  const std::vector<int> &devices() const { return devices_; }

  /// The shards a run over `inputs` makes (checks the inputs first).
  Result<std::vector<ShardRange>>
  shardsOf(const std::vector<TensorRef> &inputs) const;

  /// The whole-batch shape of each result (as Executable::resultShapes).
  Result<std::vector<std::vector<int64_t>>>
  resultShapes(const std::vector<TensorRef> &inputs) const;
  /// Each shard's result shapes: a result with the batch dim has the
  /// shard's samples, the others are whole.
  Result<std::vector<std::vector<std::vector<int64_t>>>>
  shardResultShapes(const std::vector<TensorRef> &inputs) const;
  /// Whether result `r` has the batch dim (is split between the shards);
  /// the others are the same in every shard.
  bool isBatchedResult(size_t r) const;
  /// Whether parameter `p` has the batch dim; the others go whole to
  /// every shard.
  bool isBatchedParam(size_t p) const;

  /// Runs over `inputs` (host tensors, or device tensors on any GPU) into
  /// `outputs`, whole-batch tensors (host, or device on any GPU): each
  /// shard writes its samples of a batched result in place when the
  /// output is on its GPU, else through a copy; a result without the batch
  /// dim is written once. Returns when every result is written. A failure
  /// in one shard stops the others and leaves the outputs unspecified;
  /// errors in the inputs are found before anything runs.
  Status run(const std::vector<TensorRef> &inputs,
             const std::vector<TensorRef> &outputs);

  /// Runs leaving each shard's results on its GPU: `shardOutputs[s]` are
  /// shard s's outputs, device tensors on devices()[s] of the shapes
  /// shardResultShapes gives (what a data-parallel trainer consumes).
  /// Shards of no samples are not run.
  Status runShards(const std::vector<TensorRef> &inputs,
                   const std::vector<std::vector<TensorRef>> &shardOutputs);

  /// The random state of the whole batch (Executable::randomState; its
  /// batchOffset places the batch in a larger one split over processes):
  /// each shard draws, per sample, what one run over the batch would.
  RandomState randomState() const { return shards_[0]->randomState(); }
  void setRandomState(RandomState state);

  ShardedRunStats lastRunStats() const;

private:
  ShardedExecutable() = default;
  /// The shards of a run whose dims are `sizes`.
  Result<std::vector<ShardRange>>
  rangesOf(const std::map<std::string, int64_t> &sizes) const;
  Status runOn(const std::vector<TensorRef> &inputs,
               const std::vector<std::vector<TensorRef>> &shardOutputs,
               const std::vector<ShardRange> &ranges);
  std::vector<std::unique_ptr<Executable>> shards_;
  std::vector<int> devices_;
  std::vector<CUstream> streams_;
  /// One run at a time: the shards' executables and streams are shared.
  mutable std::mutex runMutex_;
  ShardedRunStats stats_;
};

} // namespace pipert

#endif // PIPE_RUNTIME_SHARDED_H
