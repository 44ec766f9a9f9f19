//===- Scheduler.cpp - The order a run launches its kernels in ------------===//
//
// Without choices, a run launches the plan's kernels in order. With
// branches and loop iterations the host decides (Plan::choices), it
// launches only the kernels the chosen values need, and reads the
// conditions the GPU computes when nothing else can run.
//
//===----------------------------------------------------------------------===//

#include "runtime/Executable.h"

#include "runtime/CudaDriver.h"
#include "runtime/HostScalars.h"
#include "runtime/KernelLauncher.h"
#include "runtime/Sharded.h"

#include <algorithm>

using namespace pipert;

/// Runs the plan's kernels in order, except that with choices
///  - a kernel runs only once the values it computes are known to be needed
///    (by a result, through the chosen side of each choice on the way), and
///    never when they are known not to be;
///  - when nothing more can run, the host reads every condition the queued
///    kernels compute, in one copy of the block they share, waits for it,
///    and decides those choices. Independent work is queued before that
///    wait, so the GPU stays busy while the host waits.
/// Memory is allocated, for all kernels known to run, before the first
/// launch that follows a decision, so that running out of it is reported
/// before those kernels write anything.
Status Executable::schedule(RunState &st) {
  const Plan &plan = plan_;
  const CudaDriver &cu = st.ctx.cu;
  const size_t numBuffers = plan.buffers.size();
  const size_t numKernels = plan.kernels.size();
  std::vector<int8_t> decided(plan.choices.size(), -1);
  std::vector<bool> ready(numBuffers, false);
  for (size_t b = 0; b < numBuffers; ++b)
    ready[b] = int(b) < plan.numParams || !plan.buffers[b].constantData.empty();

  auto concrete = [&](int b) { return resolveBuffer(plan, decided, b); };
  // Views and decided choices use the memory of the buffer they stand for.
  auto shareChosenMemory = [&] {
    for (size_t b = 0; b < numBuffers; ++b)
      if (int c = concrete(int(b)); c >= 0 && c != int(b))
        st.ptrs[b] = st.ptrs[c];
  };
  auto isReady = [&](int b) {
    int c = concrete(b);
    return c >= 0 && ready[c];
  };
  // A kernel runs once it is needed, or may be and only computes scalars
  // (conditions, mostly: computing them early can save a wait).
  std::vector<uint8_t> need;
  auto runs = [&](size_t k) {
    uint8_t level = kernelDemand(plan, need, k);
    return level == kNeeded ||
           (level == kMaybeNeeded && isScalarKernel(plan, k));
  };

  // Scalars the host has without asking the GPU: parameters in host
  // memory, constants, and what scalar kernels compute from them and the
  // dims (their host steps). A choice whose condition is one of them is decided at
  // once, with no copy, and the kernel computing the condition on the GPU
  // is skipped unless something else reads it.
  std::vector<const void *> hostValue;
  std::vector<std::string> hostComputed;
  // Computes what the scalar kernels' host steps can from the host values
  // known so far (again after each combine of a sharded run).
  auto evaluateOnHost = [&]() -> Status {
    for (const PlanKernel &kernel : plan.kernels) {
      if (kernel.hostSteps.empty() || hostValue[kernel.outputs[0]])
        continue;
      std::vector<const void *> args;
      for (int b : kernel.inputs)
        if (int c = resolveBuffer(plan, decided, b); c >= 0 && hostValue[c])
          args.push_back(hostValue[c]);
      if (args.size() != kernel.inputs.size())
        continue;
      std::vector<std::string> results;
      if (Status s = evaluateHostSteps(plan, kernel, args, st.ctx.sizes,
                                       results); !s.ok())
        return s;
      for (size_t r = 0; r < results.size(); ++r) {
        hostComputed[kernel.outputs[r]] = std::move(results[r]);
        hostValue[kernel.outputs[r]] = hostComputed[kernel.outputs[r]].data();
      }
    }
    return Status();
  };
  if (!plan.choices.empty()) {
    hostValue.assign(numBuffers, nullptr);
    hostComputed.resize(numBuffers);
    for (int i = 0; i < plan.numParams; ++i)
      if (st.inputs[i].memory == Memory::Host &&
          plan.buffers[i].dims.empty() && st.inputs[i].data)
        hostValue[i] = st.inputs[i].data;
    for (size_t b = 0; b < numBuffers; ++b)
      if (!plan.buffers[b].constantData.empty())
        hostValue[b] = plan.buffers[b].constantData.data();
    if (Status s = evaluateOnHost(); !s.ok())
      return s;
  }
  // A shard of a sharded run: the reductions over the batch, whose values
  // are ready only once combined with the other shards'.
  std::vector<bool> combined(numBuffers, true);
  if (st.exchange)
    for (const PlanCombine &combine : plan.combines)
      combined[combine.buffer] = false;
  std::vector<int> toCombine;
  auto decideOnHost = [&] {
    bool any = true;
    while (any) {
      any = false;
      for (size_t c = 0; c < plan.choices.size(); ++c) {
        if (decided[c] >= 0)
          continue;
        int b = concrete(plan.choices[c].condition);
        if (b < 0 || !hostValue[b])
          continue;
        decided[c] = *static_cast<const unsigned char *>(hostValue[b]) != 0;
        any = true;
      }
    }
  };

  std::vector<bool> done(numKernels, false);
  size_t remaining = numKernels;
  for (size_t k = 0; k < numKernels; ++k)
    if (st.doneOnHost[k]) {
      done[k] = true;
      --remaining;
      ++stats_.checksOnHost;
      for (int b : plan.kernels[k].outputs)
        ready[b] = true;
    }
  while (true) {
    decideOnHost();
    need = computeDemand(plan, decided);
    bool undecided = false;
    for (size_t c = 0; c < plan.choices.size(); ++c)
      undecided |= decided[c] < 0 && need[plan.choices[c].result] > 0;
    if (remaining == 0 && !undecided && toCombine.empty())
      break;
    // Memory for every kernel now known to run.
    for (size_t k = 0; k < numKernels; ++k) {
      if (done[k] || !runs(k))
        continue;
      for (int b : plan.kernels[k].outputs) {
        // A view of its input's memory (a check's output) needs none.
        if (st.bound[b] || plan.buffers[b].aliasOf >= 0)
          continue;
        size_t bytes = size_t(numElementsOf(st.ctx.shapes[b])) *
                       dtypeSize(plan.buffers[b].dtype);
        if (Status s = st.ctx.allocations.allocate(
                bytes, describeBuffer(plan, b), &st.ptrs[b]);
            !s.ok())
          return s;
        st.bound[b] = true;
      }
    }
    shareChosenMemory();

    bool progress = false;
    for (size_t k = 0; k < numKernels; ++k) {
      if (done[k])
        continue;
      const PlanKernel &kernel = plan.kernels[k];
      if (kernelDemand(plan, need, k) == kNotNeeded) {
        done[k] = true;
        --remaining;
        ++stats_.kernelsSkipped;
        progress = true;
        continue;
      }
      if (!runs(k) ||
          !std::all_of(kernel.inputs.begin(), kernel.inputs.end(), isReady))
        continue;
      if (Status s = launchers_[k]->launch(st.ctx); !s.ok())
        return s;
      for (int b : kernel.outputs) {
        ready[b] = combined[b];
        if (!combined[b])
          toCombine.push_back(b);
      }
      done[k] = true;
      --remaining;
      ++stats_.kernelsLaunched;
      progress = true;
    }
    if (progress)
      continue;

    // Nothing more can run before the partial reductions are combined
    // with the other shards': read them back (one wait), hand them over,
    // write the combined values back (the kernels that read them are
    // queued after the copy) and let the host steps use them.
    if (!toCombine.empty()) {
      std::vector<std::string> values;
      if (Status s = combineShards(st, toCombine, values); !s.ok())
        return s;
      for (size_t i = 0; i < toCombine.size(); ++i) {
        int b = toCombine[i];
        ready[b] = combined[b] = true;
        if (!hostValue.empty() && plan.buffers[b].dims.empty()) {
          hostComputed[b] = std::move(values[i]);
          hostValue[b] = hostComputed[b].data();
        }
      }
      toCombine.clear();
      if (!hostValue.empty())
        if (Status s = evaluateOnHost(); !s.ok())
          return s;
      continue;
    }

    // Nothing more can run before the host knows more conditions: read all
    // those computed so far.
    std::vector<size_t> pending;
    for (size_t c = 0; c < plan.choices.size(); ++c)
      if (decided[c] < 0 && need[plan.choices[c].result] > 0 &&
          isReady(plan.choices[c].condition))
        pending.push_back(c);
    if (pending.empty())
      return Status::error("internal error: pipeline '" + plan.name +
                           "' waits for a branch condition nothing computes");
    auto *host = static_cast<unsigned char *>(controlHost_);
    bool blockCopied = false;
    std::vector<const unsigned char *> values;
    for (size_t c : pending) {
      int b = concrete(plan.choices[c].condition);
      const unsigned char *value = nullptr;
      if (controlSlot_[b] >= 0) {
        if (!blockCopied) {
          if (CUresult r = cu.cuMemcpyDtoHAsync(host, st.controlBlock,
                                                numControlSlots_,
                                                st.ctx.stream);
              r != CUDA_SUCCESS)
            return checkCuda(r, "cuMemcpyDtoHAsync", "for branch conditions");
          blockCopied = true;
          ++stats_.controlCopies;
          stats_.controlBytes += numControlSlots_;
        }
        value = host + controlSlot_[b];
      } else {
        // A parameter in device memory.
        unsigned char *slot = host + numControlSlots_ + c;
        if (CUresult r = cu.cuMemcpyDtoHAsync(slot, st.ptrs[b], 1,
                                              st.ctx.stream);
            r != CUDA_SUCCESS)
          return checkCuda(r, "cuMemcpyDtoHAsync", "for a branch condition");
        ++stats_.controlCopies;
        ++stats_.controlBytes;
        value = slot;
      }
      values.push_back(value);
    }
    if (CUresult r = cu.cuStreamSynchronize(st.ctx.stream); r != CUDA_SUCCESS)
      return checkCuda(r, "cuStreamSynchronize",
                       "waiting for branch conditions of pipeline '" +
                           plan.name + "'");
    ++stats_.decisions;
    // A kernel that found bad input has raised the guard: what it left
    // unwritten may be a condition, so the run stops here.
    if (Status s = checkVerdicts(); !s.ok())
      return s;
    for (size_t i = 0; i < pending.size(); ++i)
      decided[pending[i]] = *values[i] != 0;
  }
  shareChosenMemory();
  return Status();
}

Status Executable::combineShards(RunState &st, const std::vector<int> &buffers,
                                 std::vector<std::string> &values) {
  const CudaDriver &cu = st.ctx.cu;
  values.clear();
  for (int b : buffers) {
    size_t bytes = size_t(numElementsOf(st.ctx.shapes[b])) *
                   dtypeSize(plan_.buffers[b].dtype);
    values.emplace_back(bytes, '\0');
    if (CUresult r = cu.cuMemcpyDtoHAsync(values.back().data(), st.ptrs[b],
                                          bytes, st.ctx.stream);
        r != CUDA_SUCCESS)
      return checkCuda(r, "cuMemcpyDtoHAsync",
                       "for a reduction over the batch's partial value");
    ++stats_.shardCombines;
    stats_.shardCombineBytes += bytes;
  }
  if (CUresult r = cu.cuStreamSynchronize(st.ctx.stream); r != CUDA_SUCCESS)
    return checkCuda(r, "cuStreamSynchronize",
                     "waiting for a reduction over the batch of pipeline '" +
                         plan_.name + "'");
  if (Status s = checkVerdicts(); !s.ok())
    return s;
  for (size_t i = 0; i < buffers.size(); ++i) {
    int b = buffers[i];
    if (Status s = st.exchange->combine(b, values[i]); !s.ok())
      return s;
    // From pageable memory: the driver has copied it when the call returns.
    if (CUresult r = cu.cuMemcpyHtoDAsync(st.ptrs[b], values[i].data(),
                                          values[i].size(), st.ctx.stream);
        r != CUDA_SUCCESS)
      return checkCuda(r, "cuMemcpyHtoDAsync",
                       "for a reduction over the batch's combined value");
  }
  return Status();
}
