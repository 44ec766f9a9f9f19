//===- Images.h - PNG and JPEG files as u8 tensors --------------*- C++ -*-===//
//
// What `pipec run` reads and writes besides .npy: a PNG (libpng) or JPEG
// (libjpeg-turbo) file is a u8[H, W, C] tensor (C = 1 gray, 2 gray and
// alpha, 3 RGB, 4 RGBA; a JPEG is gray or RGB), a folder of same-sized
// images a u8[N, H, W, C] batch in file-name order. u8 and bool results of
// image shape are written as PNG. No MLIR, no CUDA: a library of its own,
// so that the runtime does not link image codecs.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_IMAGES_IMAGES_H
#define PIPE_IMAGES_IMAGES_H

#include "runtime/Plan.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <string>
#include <vector>

namespace pipeimg {

/// Whether `path` names an image file by its extension (.png, .jpg, .jpeg,
/// any case).
bool isImagePath(const std::string &path);

/// The image at `path` as u8[H, W, C]. A file that is not a whole image of
/// its kind (truncated, corrupt, too large) is an error naming it.
pipert::Result<pipert::HostTensor> readImage(const std::string &path);

/// The images of folder `dir` (.png, .jpg, .jpeg; sorted by name) as
/// u8[N, H, W, C]; an error names the first file whose size or channels
/// differ from the first's, or that cannot be read.
pipert::Result<pipert::HostTensor> readImageFolder(const std::string &dir);

/// How a result of `shape` is written as images: `count` images of
/// `height` x `width` x `channels` (`batch`: the first dim counts them), or
/// none (count 0) when it has no image shape. `lastIsChannels` says the
/// last dim is a literal 1, 3 or 4 in the pipeline's type (else [H, W] or
/// [N, H, W] is gray).
struct ImageLayout {
  int64_t count = 0, height = 0, width = 0, channels = 0;
  bool batch = false;
};
ImageLayout imageLayoutOf(const std::vector<int64_t> &shape,
                          bool lastIsChannels);

/// The longest side a PNG is written with (libpng's default limit).
inline constexpr int64_t kMaxPngSide = 1000000;

/// The layout of a result as images: a u8 or bool `tensor` whose type in
/// the pipeline has the dims `declared`, no side longer than kMaxPngSide;
/// count 0 for any other.
ImageLayout resultImageLayout(const pipert::HostTensor &tensor,
                              const std::vector<pipert::PlanDim> &declared);

/// The file name of image `index` of a result `name`: "NAME.png", or
/// "NAME-<index>.png" in a batch.
std::string pngName(const std::string &name, const ImageLayout &layout,
                    int64_t index);

/// Encodes image `index` of `tensor` (u8, or bool as 0 and 255; in host
/// memory) laid out as `layout` into PNG bytes.
pipert::Result<std::vector<unsigned char>>
encodePng(const pipert::TensorRef &tensor, const ImageLayout &layout,
          int64_t index);
inline pipert::Result<std::vector<unsigned char>>
encodePng(const pipert::HostTensor &tensor, const ImageLayout &layout,
          int64_t index) {
  return encodePng(tensor.ref(), layout, index);
}

/// Writes `bytes` to the file `path` (a temporary of
/// writeFilesAllOrNothing, which names the file it stands for in its own
/// messages).
pipert::Status writeBytes(const std::string &path,
                          const std::vector<unsigned char> &bytes);

/// Encodes image `index` of `tensor` as encodePng does and writes it to
/// `path` as writeBytes does.
pipert::Status writePng(const std::string &path, const pipert::HostTensor &tensor,
                        const ImageLayout &layout, int64_t index);

} // namespace pipeimg

#endif // PIPE_IMAGES_IMAGES_H
