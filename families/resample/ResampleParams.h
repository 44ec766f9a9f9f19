//===- ResampleParams.h - What a resample kernel carries --------*- C++ -*-===//
//
// Shared by the resample family's compiler half (ResampleFamily.cpp) and
// its launcher (ResampleLauncher.cpp). The kernel's one entry takes
// (const In *in, const float *param, Out *out, long long rows, long long
// h, long long w, long long channels, long long oh, long long ow, long
// long paramDivisor[, guard, run]): one block per output row (sample,
// oy), or per tile of the output (PIPE_RESIZE_TILE_ROWS x _COLS of a
// sample, in order) when `tiled`. A tiled kernel has a second entry,
// NAME_fits, without the pixel path, for resizes whose every tile the
// tiled path takes (pipe_resize_tiles_fit of `interp`, `antialias` and
// `valueBytes`), and, when `strips`, a third, NAME_strips, a strip of
// output columns a warp (pipe_resize_strips_fit). `param` holds each sample's matrix (6 floats) or angle (1), image
// sample s reading the param's s / paramDivisor, or all the first when
// paramDivisor is 0 (pipe_resample_param_divisor, core/PipeResample.h).
// A fused resample (pipe.resample_kernel, `epilogue`) stores no images:
// its entries take, after `param`, the same sizes, then its epilogue
// inputs (the kernel's inputs after the image and the param, if
// `hasParam`), its results, and its dimArgs; the images' shape is the
// kernel's domain.
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
  /// Whether the kernel takes the output in tiles (pipe_resize_tile),
  /// blocks of PIPE_RESIZE_THREADS, rather than a block of 128 per row.
  bool tiled = false;
  /// Whether a tiled kernel has a third entry, NAME_strips: a strip of
  /// output columns a warp (pipe_resize_strips), for the resizes it fits.
  bool strips = false;
  /// A tiled kernel's interpolation (PIPE_INTERP_*), whether it
  /// antialiases, and the bytes of its input values.
  int interp = 0;
  bool antialias = false;
  int valueBytes = 0;
  /// Whether it is fused with its consumer (the entries run an epilogue),
  /// and whether it takes a parameter (its second input).
  bool epilogue = false;
  bool hasParam = false;

  std::string encode() const {
    return KernelParamWriter()
        .add("transform", transform)
        .add("tiled", tiled ? 1 : 0)
        .add("strips", strips ? 1 : 0)
        .add("interp", interp)
        .add("antialias", antialias ? 1 : 0)
        .add("value_bytes", valueBytes)
        .add("epilogue", epilogue ? 1 : 0)
        .add("has_param", hasParam ? 1 : 0)
        .str();
  }
  static Result<ResampleParams> decode(const std::string &text) {
    auto reader = KernelParamReader::parse("resample", text);
    if (!reader)
      return reader.status();
    ResampleParams params;
    params.transform = int(reader->getInt("transform"));
    params.tiled = reader->getInt("tiled") != 0;
    params.strips = reader->getInt("strips") != 0;
    params.interp = int(reader->getInt("interp"));
    params.antialias = reader->getInt("antialias") != 0;
    params.valueBytes = int(reader->getInt("value_bytes"));
    params.epilogue = reader->getInt("epilogue") != 0;
    params.hasParam = reader->getInt("has_param") != 0;
    if (!reader->status().ok())
      return reader->status();
    if (params.transform < 0 || params.transform > 2)
      return Status::error("a 'resample' kernel has an unknown transform");
    if (params.strips && !params.tiled)
      return Status::error("a 'resample' kernel has a strip entry without "
                           "its tiled ones");
    if (params.interp < 0 || params.interp > 3 || params.valueBytes < 0 ||
        params.valueBytes > 8)
      return Status::error("a 'resample' kernel has an unknown "
                           "interpolation or value size");
    return params;
  }
};

} // namespace pipert

#endif // PIPE_FAMILIES_RESAMPLE_RESAMPLEPARAMS_H
