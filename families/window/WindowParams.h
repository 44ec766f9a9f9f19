//===- WindowParams.h - What a window kernel carries ------------*- C++ -*-===//
//
// Shared by the window family's compiler half (WindowFamily.cpp) and its
// launcher (WindowLauncher.cpp). The kernel's two entries take (const In0
// *in0, ..., const float *weights, Out *out, long long total, long long
// n0, long long stride0, long long n1, long long stride1, long long
// weightStride, long long d_<dim>...[, guard, run]): the window's input,
// or a fused window's prologue inputs (`inputs` of them), then the dims of
// the plan kernel's dimArgs; a fused window with an epilogue takes its
// inputs (`epilogueInputs`) and its results (out0, ...) in place of `out`;
// grid-stride: the first with 32-bit indices, a
// thread per `rows` outputs down a column (pipe_window_rows), the second
// ("_wide") with 64-bit ones, a thread per output. Axis 0 and 1 are the
// window's axes (n1 = stride1 = 1 for a window over one axis); element e reads
// the weights of sample e / weightStride, or the first when weightStride is 0.
// The window's sizes and anchors are compiled in.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_WINDOW_WINDOWPARAMS_H
#define PIPE_FAMILIES_WINDOW_WINDOWPARAMS_H

#include "runtime/KernelParams.h"

#include <string>
#include <vector>

namespace pipert {

struct WindowParams {
  /// The window's axes of the input (one or two, increasing).
  std::vector<int64_t> axes;
  /// The outputs a thread of the 32-bit entry computes.
  int64_t rows = 1;
  /// The kernel's inputs before the weights: 1, the window's input, or a
  /// fused window's prologue inputs.
  int64_t inputs = 1;
  /// Whether the weights (conv2d's) follow them.
  bool weights = false;
  /// A fused window's epilogue inputs, after the weights; its results are
  /// the kernel's outputs (one without an epilogue).
  int64_t epilogueInputs = 0;

  std::string encode() const {
    return KernelParamWriter()
        .add("axes", axes)
        .add("rows", rows)
        .add("inputs", inputs)
        .add("weights", int64_t(weights))
        .add("epilogue_inputs", epilogueInputs)
        .str();
  }
  static Result<WindowParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("window", text);
    if (!reader)
      return reader.status();
    WindowParams params;
    params.axes = reader->getInts("axes");
    params.rows = reader->getInt("rows");
    params.inputs = reader->getInt("inputs");
    params.weights = reader->getInt("weights") != 0;
    params.epilogueInputs = reader->getInt("epilogue_inputs");
    if (!reader->status().ok())
      return reader->status();
    if (params.axes.empty() || params.axes.size() > 2)
      return Status::error("a 'window' kernel has one or two axes");
    if (params.rows < 1 || params.rows > 64)
      return Status::error("a 'window' kernel's rows are 1 to 64");
    if (params.inputs < 0 || params.epilogueInputs < 0)
      return Status::error("a 'window' kernel's inputs are not negative");
    return params;
  }
};

} // namespace pipert

#endif // PIPE_FAMILIES_WINDOW_WINDOWPARAMS_H
