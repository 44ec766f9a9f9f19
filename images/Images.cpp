//===- Images.cpp - PNG and JPEG files as u8 tensors ----------------------===//
//
// PNG through libpng's simplified API, JPEG through TurboJPEG; both decode
// from memory after the file is read whole (a regular file of at most
// kMaxFileBytes), so that a truncated or corrupt file is an error naming it
// and nothing is allocated from what a header claims beyond the pixels
// libpng or TurboJPEG check against the data.
//
//===----------------------------------------------------------------------===//

#include "images/Images.h"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sys/stat.h>

using pipert::DType;
using pipert::HostTensor;
using pipert::Result;
using pipert::Status;

namespace {

constexpr int64_t kMaxFileBytes = int64_t(1) << 30;
/// Larger images than this are refused before decoding (2^31 pixels).
constexpr int64_t kMaxPixels = int64_t(1) << 31;

std::string lower(std::string text) {
  for (char &c : text)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool endsWith(const std::string &text, const char *suffix) {
  size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

Result<std::vector<unsigned char>> readWhole(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status::error("'" + path + "' is not a regular file");
  if (st.st_size > kMaxFileBytes)
    return Status::error("'" + path + "' is larger than 1 GiB");
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> bytes(size_t(st.st_size));
  if (!in || !in.read(reinterpret_cast<char *>(bytes.data()), st.st_size))
    return Status::error("cannot read '" + path + "'");
  return bytes;
}

Result<HostTensor> decodePng(const std::string &path,
                             const std::vector<unsigned char> &bytes) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
    return Status::error("'" + path + "' is not a PNG libpng can read: " +
                         image.message);
  int64_t channels = PNG_IMAGE_SAMPLE_CHANNELS(image.format);
  // 8 bits per sample, sRGB, the file's own channels.
  image.format = channels == 1   ? PNG_FORMAT_GRAY
                 : channels == 2 ? PNG_FORMAT_GA
                 : channels == 3 ? PNG_FORMAT_RGB
                                 : PNG_FORMAT_RGBA;
  if (int64_t(image.width) * image.height > kMaxPixels) {
    png_image_free(&image);
    return Status::error("'" + path + "' has more than 2^31 pixels");
  }
  HostTensor tensor(DType::U8, {int64_t(image.height), int64_t(image.width),
                                channels});
  if (!png_image_finish_read(&image, nullptr, tensor.data(), 0, nullptr))
    return Status::error("'" + path + "' is not a whole PNG: " + image.message);
  return tensor;
}

Result<HostTensor> decodeJpeg(const std::string &path,
                              const std::vector<unsigned char> &bytes) {
  tjhandle handle = tjInitDecompress();
  if (!handle)
    return Status::error("cannot start TurboJPEG for '" + path + "'");
  struct Closer {
    tjhandle h;
    ~Closer() { tjDestroy(h); }
  } closer{handle};
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle, bytes.data(), (unsigned long)bytes.size(),
                          &width, &height, &subsampling, &colorspace) != 0)
    return Status::error("'" + path + "' is not a JPEG TurboJPEG can read: " +
                         tjGetErrorStr2(handle));
  if (int64_t(width) * height > kMaxPixels)
    return Status::error("'" + path + "' has more than 2^31 pixels");
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
    return Status::error("'" + path + "' is a CMYK JPEG: Pipe reads gray "
                         "and RGB ones (convert it, e.g. to an RGB PNG)");
  bool gray = colorspace == TJCS_GRAY;
  HostTensor tensor(DType::U8, {height, width, gray ? 1 : 3});
  // A warning (a truncated file TurboJPEG pads out) is an error here: the
  // pixels are not all the file's.
  if (tjDecompress2(handle, bytes.data(), (unsigned long)bytes.size(),
                    tensor.as<unsigned char>(), width, 0, height,
                    gray ? TJPF_GRAY : TJPF_RGB, TJFLAG_STOPONWARNING) != 0)
    return Status::error("'" + path + "' is not a whole JPEG: " +
                         tjGetErrorStr2(handle));
  return tensor;
}

} // namespace

bool pipeimg::isImagePath(const std::string &path) {
  std::string name = lower(path);
  return endsWith(name, ".png") || endsWith(name, ".jpg") ||
         endsWith(name, ".jpeg");
}

Result<HostTensor> pipeimg::readImage(const std::string &path) {
  auto bytes = readWhole(path);
  if (!bytes)
    return bytes.status();
  // By the file's signature, not its name: a PNG named .jpg (or nothing)
  // is still a PNG. Neither signature: the name says which decoder's
  // message is the more useful.
  static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n',
                                       0x1a, '\n'};
  const std::vector<unsigned char> &data = *bytes;
  if (data.size() >= 8 && std::memcmp(data.data(), png, 8) == 0)
    return decodePng(path, data);
  if (data.size() >= 3 && data[0] == 0xff && data[1] == 0xd8 &&
      data[2] == 0xff)
    return decodeJpeg(path, data);
  if (endsWith(lower(path), ".png"))
    return decodePng(path, data);
  return decodeJpeg(path, data);
}

Result<HostTensor> pipeimg::readImageFolder(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *entry = readdir(d))
      if (isImagePath(entry->d_name))
        names.push_back(entry->d_name);
    closedir(d);
  } else {
    return Status::error("cannot open folder '" + dir + "': " +
                         std::strerror(errno));
  }
  if (names.empty())
    return Status::error("folder '" + dir + "' has no .png, .jpg or .jpeg file");
  std::sort(names.begin(), names.end());
  std::vector<HostTensor> images;
  auto pathOf = [&](const std::string &name) {
    return dir + (endsWith(dir, "/") ? "" : "/") + name;
  };
  for (const std::string &name : names) {
    std::string path = pathOf(name);
    auto image = readImage(path);
    if (!image)
      return image.status();
    if (!images.empty() && image->shape() != images.front().shape())
      return Status::error("'" + path + "' is " + image->describe() +
                           " but '" + pathOf(names.front()) + "' is " +
                           images.front().describe() +
                           ": the images of a folder are one batch");
    images.push_back(image.take());
  }
  std::vector<int64_t> shape = images.front().shape();
  shape.insert(shape.begin(), int64_t(images.size()));
  HostTensor batch(DType::U8, shape);
  size_t each = images.front().numBytes();
  for (size_t i = 0; i < images.size(); ++i)
    std::memcpy(batch.as<unsigned char>() + i * each, images[i].data(), each);
  return batch;
}

pipeimg::ImageLayout pipeimg::imageLayoutOf(const std::vector<int64_t> &shape,
                                            bool lastIsChannels) {
  ImageLayout layout;
  size_t rank = shape.size();
  int64_t channels = lastIsChannels ? shape.back() : 1;
  size_t spatial = lastIsChannels ? rank - 1 : rank;
  if (spatial != 2 && spatial != 3)
    return layout;
  layout.batch = spatial == 3;
  layout.count = layout.batch ? shape[0] : 1;
  layout.height = shape[spatial - 2];
  layout.width = shape[spatial - 1];
  layout.channels = channels;
  if (layout.height == 0 || layout.width == 0 || layout.count == 0)
    layout.count = 0; // nothing to look at: .npy only
  return layout;
}

pipeimg::ImageLayout
pipeimg::resultImageLayout(const HostTensor &tensor,
                           const std::vector<pipert::PlanDim> &declared) {
  if (tensor.dtype() != DType::U8 && tensor.dtype() != DType::Bool)
    return ImageLayout();
  bool lastIsChannels = !declared.empty() && declared.back().symbol.empty() &&
                        (declared.back().size == 1 || declared.back().size == 3 ||
                         declared.back().size == 4);
  return imageLayoutOf(tensor.shape(), lastIsChannels);
}

std::string pipeimg::pngName(const std::string &name, const ImageLayout &layout,
                             int64_t index) {
  return name + (layout.batch ? "-" + std::to_string(index) : "") + ".png";
}

Result<std::vector<unsigned char>>
pipeimg::encodePng(const pipert::TensorRef &tensor, const ImageLayout &layout,
                   int64_t index) {
  int64_t pixels = layout.height * layout.width * layout.channels;
  const unsigned char *from =
      static_cast<const unsigned char *>(tensor.data) + index * pixels;
  std::vector<unsigned char> scaled;
  if (tensor.dtype == DType::Bool) {
    scaled.assign(from, from + pixels);
    for (unsigned char &v : scaled)
      v = v ? 255 : 0;
    from = scaled.data();
  }
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(layout.width);
  image.height = png_uint_32(layout.height);
  image.format = layout.channels == 1   ? PNG_FORMAT_GRAY
                 : layout.channels == 2 ? PNG_FORMAT_GA
                 : layout.channels == 3 ? PNG_FORMAT_RGB
                                        : PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  if (!png_image_write_get_memory_size(image, size, 0, from, 0, nullptr))
    return Status::error(std::string("cannot encode a PNG: ") + image.message);
  std::vector<unsigned char> bytes(size);
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, from, 0,
                                 nullptr))
    return Status::error(std::string("cannot encode a PNG: ") + image.message);
  bytes.resize(size);
  return bytes;
}

Status pipeimg::writeBytes(const std::string &path,
                           const std::vector<unsigned char> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
  out.close();
  if (!out)
    return Status::error("cannot write '" + path + "': " + std::strerror(errno));
  return Status();
}

Status pipeimg::writePng(const std::string &path, const HostTensor &tensor,
                         const ImageLayout &layout, int64_t index) {
  auto bytes = encodePng(tensor, layout, index);
  if (!bytes)
    return bytes.status();
  return writeBytes(path, *bytes);
}
