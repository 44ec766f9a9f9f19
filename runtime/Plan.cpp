//===- Plan.cpp - What a plan's choices leave to run ----------------------===//

#include "runtime/Plan.h"

#include <algorithm>

using namespace pipert;

int pipert::resolveBuffer(const Plan &plan, const std::vector<int8_t> &decided,
                          int buffer) {
  while (true) {
    const PlanBuffer &b = plan.buffers[buffer];
    if (b.aliasOf >= 0) {
      buffer = b.aliasOf;
      continue;
    }
    if (b.choice < 0)
      return buffer;
    int8_t d = decided[b.choice];
    if (d < 0)
      return -1;
    const PlanChoice &choice = plan.choices[b.choice];
    buffer = d ? choice.ifTrue : choice.ifFalse;
  }
}

std::vector<uint8_t> pipert::computeDemand(const Plan &plan,
                                           const std::vector<int8_t> &decided) {
  std::vector<uint8_t> need(plan.buffers.size(), kNotNeeded);
  for (int r : plan.results)
    need[r] = kNeeded;
  bool changed = true;
  auto raise = [&](int b, uint8_t level) {
    if (need[b] < level) {
      need[b] = level;
      changed = true;
    }
  };
  // Buffers and kernels are in program order: one backward sweep settles
  // most plans; repeat until nothing changes.
  while (changed) {
    changed = false;
    for (size_t b = plan.buffers.size(); b-- > 0;) {
      const PlanBuffer &buffer = plan.buffers[b];
      if (!need[b])
        continue;
      if (buffer.aliasOf >= 0)
        raise(buffer.aliasOf, need[b]);
      if (buffer.choice < 0)
        continue;
      const PlanChoice &choice = plan.choices[buffer.choice];
      int8_t d = decided[buffer.choice];
      if (d < 0) {
        // Once decided, the condition is not needed any more.
        raise(choice.condition, need[b]);
        raise(choice.ifTrue, kMaybeNeeded);
        raise(choice.ifFalse, kMaybeNeeded);
      } else {
        raise(d ? choice.ifTrue : choice.ifFalse, need[b]);
      }
    }
    for (size_t k = plan.kernels.size(); k-- > 0;) {
      uint8_t level = kernelDemand(plan, need, k);
      if (level)
        for (int b : plan.kernels[k].inputs)
          raise(b, level);
    }
  }
  return need;
}

uint8_t pipert::kernelDemand(const Plan &plan, const std::vector<uint8_t> &need,
                             size_t kernel) {
  uint8_t level = kNotNeeded;
  for (int b : plan.kernels[kernel].outputs)
    level = std::max(level, need[b]);
  return level;
}

bool pipert::isScalarKernel(const Plan &plan, size_t kernel) {
  const PlanKernel &k = plan.kernels[kernel];
  return k.family == "elementwise" &&
         std::all_of(k.outputs.begin(), k.outputs.end(),
                     [&](int b) { return plan.buffers[b].dims.empty(); });
}

std::vector<int> pipert::getConditionBuffers(const Plan &plan) {
  std::vector<bool> computed(plan.buffers.size(), false);
  for (const PlanKernel &kernel : plan.kernels)
    for (int b : kernel.outputs)
      computed[b] = true;
  std::vector<int> found;
  std::vector<bool> seen(plan.buffers.size(), false);
  std::vector<int> worklist;
  for (const PlanChoice &choice : plan.choices)
    worklist.push_back(choice.condition);
  // In condition order, depth first through views and choices.
  std::reverse(worklist.begin(), worklist.end());
  while (!worklist.empty()) {
    int b = worklist.back();
    worklist.pop_back();
    if (seen[b])
      continue;
    seen[b] = true;
    const PlanBuffer &buffer = plan.buffers[b];
    if (buffer.aliasOf >= 0) {
      worklist.push_back(buffer.aliasOf);
    } else if (buffer.choice >= 0) {
      worklist.push_back(plan.choices[buffer.choice].ifFalse);
      worklist.push_back(plan.choices[buffer.choice].ifTrue);
    } else if (computed[b]) {
      found.push_back(b);
    }
  }
  return found;
}

const char *pipert::getCombineKindName(PlanCombineKind kind) {
  static const char *const names[] = {"sum", "mean", "prod", "min",
                                      "max", "any", "all"};
  return names[int(kind)];
}
