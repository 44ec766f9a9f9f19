//===- BlurParams.h - What a blur kernel's plan entry carries ---*- C++ -*-===//
//
// Shared by the blur family's compiler half (BlurEmitter.cpp), which writes
// them, and its launcher (BlurLauncher.cpp), which reads them. The kernels'
// geometry and the layout of their buffers are core/PipeStencil.h's, which
// both the launcher and the kernels include.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_BLUR_BLURPARAMS_H
#define PIPE_FAMILIES_BLUR_BLURPARAMS_H

#include "runtime/KernelParams.h"

#include <string>
#include <vector>

namespace pipert {

/// A blur's entries are `prepare`, then one pass per axis, the last axis
/// first; its inputs the tensor, then the window and the sigma where it has
/// them, each with the tensor's first `sampleRank` dims or fewer.
struct BlurParams {
  std::vector<int64_t> axes;
  bool hasWindow = false;
  bool hasSigma = false;
  int sampleRank = 0;

  std::string encode() const {
    return KernelParamWriter()
        .add("axes", axes)
        .add("window", hasWindow)
        .add("sigma", hasSigma)
        .add("sample_rank", sampleRank)
        .str();
  }
  static Result<BlurParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("blur", text);
    if (!reader)
      return reader.status();
    BlurParams params;
    params.axes = reader->getInts("axes");
    params.hasWindow = reader->getInt("window") != 0;
    params.hasSigma = reader->getInt("sigma") != 0;
    params.sampleRank = int(reader->getInt("sample_rank"));
    if (!reader->status().ok())
      return reader->status();
    if (params.axes.empty())
      return Status::error("a 'blur' kernel has no axes");
    return params;
  }
};

/// The message for a gaussian_blur sample whose parameters are wrong
/// (`error` is a pipe_blur_error of core/PipeStencil.h).
std::string describeBlurError(const std::string &location, long long sample,
                              int error, long long window, double sigma);

} // namespace pipert

#endif // PIPE_FAMILIES_BLUR_BLURPARAMS_H
