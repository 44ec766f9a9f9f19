//===- CApiImages.cpp - PNG and JPEG files through Pipe's C API -----------===//
//
// pipe_image_read and pipe_image_write: the image helpers `pipec run` uses
// (images/Images.h), for programs that hold DLPack tensors. A read image is
// host memory the caller owns; a written one comes from host or device
// memory, and is written whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "capi/CApiPipeline.h"

#include "images/Images.h"
#include "runtime/CudaDriver.h"
#include "runtime/Npy.h"

#include <sys/stat.h>

#include <cstring>

using pipert::DType;
using pipert::Status;
using namespace pipecapi;

namespace {

/// `ref`'s bytes copied from the device with cuMemcpyDtoH, which follows
/// the work queued on the legacy default stream (the DLPack producer was
/// asked to order its work before it).
pipert::Result<pipert::HostTensor> copyToHost(const pipert::TensorRef &ref) {
  pipert::HostTensor host(ref.dtype, ref.shape);
  if (!ref.numBytes())
    return host;
  auto gpu = pipert::getCudaDevice();
  if (!gpu)
    return gpu.status();
  if (Status s = pipert::checkCuda(
          (*pipert::getCudaDriver())
              ->cuMemcpyDtoH(host.data(),
                             reinterpret_cast<CUdeviceptr>(ref.data),
                             ref.numBytes()),
          "cuMemcpyDtoH", "for the image");
      !s.ok())
    return s;
  return host;
}

} // namespace

extern "C" {

pipe_status pipe_image_read(const char *path, DLManagedTensorVersioned **image) {
  return guarded("pipe_image_read", [&] {
    if (!path || !image)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_image_read: path and image are required");
    struct stat info;
    bool folder = stat(path, &info) == 0 && S_ISDIR(info.st_mode);
    auto read = folder ? pipeimg::readImageFolder(path)
                       : pipeimg::readImage(path);
    if (!read)
      return fail(PIPE_ERROR_FILE, read.status());
    *image = adoptHostTensor(read.take());
    return PIPE_OK;
  });
}

pipe_status pipe_image_write(const char *path, const DLTensor *image) {
  return guarded("pipe_image_write", [&] {
    if (!path || !image)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_image_write: path and image are required");
    std::string name = path;
    DLDataType t = image->dtype;
    bool isU8 = t.code == kDLUInt && t.bits == 8 && t.lanes == 1;
    bool isBool = t.code == kDLBool && t.bits == 8 && t.lanes == 1;
    if (!isU8 && !isBool)
      return fail(PIPE_ERROR_ARGUMENT,
                  "image for '" + name + "' is " +
                      pipecapi::describeDLPack(t) +
                      ", not u8: an image is u8, or bool written as 0 and "
                      "255");
    DType dtype = isBool ? DType::Bool : DType::U8;
    auto ref = toTensorRef(*image, dtype, "image for", name, nullptr);
    if (!ref)
      return fail(PIPE_ERROR_ARGUMENT, ref.status());
    const std::vector<int64_t> &shape = ref->shape;
    bool rankOk = shape.size() == 2 || shape.size() == 3;
    int64_t channels = shape.size() == 3 ? shape[2] : 1;
    if (!rankOk || channels < 1 || channels > 4 || shape[0] == 0 ||
        shape[1] == 0)
      return fail(PIPE_ERROR_ARGUMENT,
                  "image for '" + name + "' is " +
                      pipert::describeTensor(dtype, shape) +
                      ": a PNG is [H, W] or [H, W, C] with H and W above 0 "
                      "and C of 1 (gray), 2 (gray and alpha), 3 (RGB) or 4 "
                      "(RGBA); write a batch one image at a time");
    // Host memory is encoded where it is; device memory from a copy.
    pipert::HostTensor copy;
    pipert::TensorRef pixels = *ref;
    if (ref->memory == pipert::Memory::Device) {
      auto host = copyToHost(*ref);
      if (!host)
        return fail(PIPE_ERROR_RUN, host.status());
      copy = host.take();
      pixels = copy.ref();
    }
    pipeimg::ImageLayout layout =
        pipeimg::imageLayoutOf(shape, /*lastIsChannels=*/shape.size() == 3);
    // Encoded before anything is written: an image libpng refuses is the
    // caller's argument, a file that cannot be written a file error.
    auto bytes = pipeimg::encodePng(pixels, layout, 0);
    if (!bytes)
      return fail(PIPE_ERROR_ARGUMENT,
                  "image for '" + name + "': " + bytes.status().message());
    Status written = pipert::writeFilesAllOrNothing(
        {{name, [&](const std::string &temporary) {
            return pipeimg::writeBytes(temporary, *bytes);
          }}});
    if (!written.ok())
      return fail(PIPE_ERROR_FILE, written);
    return PIPE_OK;
  });
}

} // extern "C"
