//===- ReductionParams.h - What a reduction kernel carries ------*- C++ -*-===//
//
// Shared by the reduction family's compiler half (ReductionEmitter.cpp) and
// its launcher (ReductionLauncher.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_REDUCTION_REDUCTIONPARAMS_H
#define PIPE_FAMILIES_REDUCTION_REDUCTIONPARAMS_H

#include "runtime/KernelParams.h"

#include <string>
#include <vector>

namespace pipert {

/// A reduction's entries, in PlanKernel::entries' order.
enum ReductionEntry { kReduceInner, kReduceRows, kReduceOuter, kReduceFinal };

/// A reduction over its input domain (PlanKernel::domain) along `axes`; its
/// inputs are the prologue's (`numPrologueInputs` of them), then the
/// epilogue's; partial results take `accBytes` each.
struct ReductionParams {
  std::vector<int64_t> axes;
  int numPrologueInputs = 0;
  int accBytes = 0;

  std::string encode() const {
    return KernelParamWriter()
        .add("axes", axes)
        .add("prologue_inputs", numPrologueInputs)
        .add("acc_bytes", accBytes)
        .str();
  }
  static Result<ReductionParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("reduction", text);
    if (!reader)
      return reader.status();
    ReductionParams params;
    params.axes = reader->getInts("axes");
    params.numPrologueInputs = int(reader->getInt("prologue_inputs"));
    params.accBytes = int(reader->getInt("acc_bytes"));
    if (!reader->status().ok())
      return reader->status();
    if (params.axes.empty() || params.accBytes <= 0)
      return Status::error("a 'reduction' kernel has no axes or no "
                           "accumulator size");
    return params;
  }
};

} // namespace pipert

#endif // PIPE_FAMILIES_REDUCTION_REDUCTIONPARAMS_H
