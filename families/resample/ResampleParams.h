//===- ResampleParams.h - What a resample kernel carries --------*- C++ -*-===//
//
// Shared by the resample family's compiler half (ResampleFamily.cpp) and
// its launcher (ResampleLauncher.cpp). The kernel's one entry takes
// (const In *in, const float *param, Out *out, long long rows, long long
// h, long long w, long long channels, long long oh, long long ow, long
// long paramSamples, long long paramDivisor[, guard, run]): one block per
// group of output rows (sample, oy); `param` holds each sample's matrix (6
// floats) or angle (1), the samples of the param being the output's
// divided by `paramDivisor` (a param over fewer sample dims than the
// images), or all the same when paramSamples is 0.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_RESAMPLE_RESAMPLEPARAMS_H
#define PIPE_FAMILIES_RESAMPLE_RESAMPLEPARAMS_H

#include "runtime/KernelParams.h"

#include <string>

namespace pipert {

struct ResampleParams {
  /// PIPE_RESAMPLE_AFFINE, _ROTATE or _RESIZE (core/PipeResample.h).
  int transform = 0;
  /// The param's rank: its sample dims (and [2, 3] for affine).
  int paramRank = 0;

  std::string encode() const {
    return KernelParamWriter()
        .add("transform", transform)
        .add("param_rank", paramRank)
        .str();
  }
  static Result<ResampleParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("resample", text);
    if (!reader)
      return reader.status();
    ResampleParams params;
    params.transform = int(reader->getInt("transform"));
    params.paramRank = int(reader->getInt("param_rank"));
    if (!reader->status().ok())
      return reader->status();
    if (params.transform < 0 || params.transform > 2 || params.paramRank < 0)
      return Status::error("a 'resample' kernel has an unknown transform or "
                           "a negative parameter rank");
    return params;
  }
};

} // namespace pipert

#endif // PIPE_FAMILIES_RESAMPLE_RESAMPLEPARAMS_H
