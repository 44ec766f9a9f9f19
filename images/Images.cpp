//===- Images.cpp - PNG and JPEG files as u8 tensors ----------------------===//
//
// PNG through libpng's full API for reading (its simplified API converts
// gamma, so a file's stored values would not come back) and its simplified
// API for writing, JPEG through TurboJPEG. Both decode from memory after
// the file is read whole (a regular file of at most kMaxFileBytes), so that
// a truncated or corrupt file is an error naming it and nothing is
// allocated from what a header claims beyond what the file's bytes can
// hold.
//
//===----------------------------------------------------------------------===//

#include "images/Images.h"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
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

/// What libpng's callbacks share with decodePng: the bytes being read and
/// the message of the error that ended the read.
struct PngSource {
  const unsigned char *data;
  size_t size;
  size_t at = 0;
  char message[256] = "";
};

void readPngBytes(png_structp png, png_bytep out, size_t count) {
  auto *source = static_cast<PngSource *>(png_get_io_ptr(png));
  if (count > source->size - source->at)
    png_error(png, "the file ends early");
  std::memcpy(out, source->data + source->at, count);
  source->at += count;
}

[[noreturn]] void onPngError(png_structp png, png_const_charp message) {
  auto *source = static_cast<PngSource *>(png_get_error_ptr(png));
  std::snprintf(source->message, sizeof source->message, "%s", message);
  png_longjmp(png, 1);
}

void onPngWarning(png_structp, png_const_charp) {}

// The two steps that can fail inside libpng, each its own frame holding
// nothing with a destructor: libpng reports an error by longjmp back to
// the setjmp here, which must not skip C++ objects.

/// Reads the header and sets the transforms to 8 bits a sample, the file's
/// own values: no gamma or colour conversion (as PIL and OpenCV read
/// them), a 16-bit sample's high byte (as both do), palettes and
/// low-bit gray expanded, a tRNS chunk as an alpha channel.
/// `fileRowBytes`: a row's bytes as the file stores them (before the
/// transforms).
bool readPngHeader(png_structp png, png_infop info, size_t *fileRowBytes) {
  if (setjmp(png_jmpbuf(png)))
    return false;
  png_read_info(png, info);
  *fileRowBytes = png_get_rowbytes(png, info);
  int depth = png_get_bit_depth(png, info);
  int color = png_get_color_type(png, info);
  if (depth == 16)
    png_set_strip_16(png);
  if (color == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  return true;
}

bool readPngRows(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png)))
    return false;
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

Result<HostTensor> decodePng(const std::string &path,
                             const std::vector<unsigned char> &bytes) {
  PngSource source{bytes.data(), bytes.size()};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source,
                                           onPngError, onPngWarning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  struct Closer {
    png_structp &png;
    png_infop &info;
    ~Closer() { png_destroy_read_struct(&png, &info, nullptr); }
  } closer{png, info};
  if (!info)
    return Status::error("cannot start libpng for '" + path + "'");
  png_set_read_fn(png, &source, readPngBytes);
  size_t fileRowBytes = 0;
  if (!readPngHeader(png, info, &fileRowBytes))
    return Status::error("'" + path + "' is not a PNG libpng can read: " +
                         source.message);
  int64_t width = png_get_image_width(png, info);
  int64_t height = png_get_image_height(png, info);
  int64_t channels = png_get_channels(png, info);
  if (width * height > kMaxPixels)
    return Status::error("'" + path + "' has more than 2^31 pixels");
  int64_t rowBytes = int64_t(png_get_rowbytes(png, info));
  if (channels < 1 || channels > 4 || png_get_bit_depth(png, info) != 8 ||
      rowBytes != width * channels)
    return Status::error("'" + path + "' is a PNG of a kind Pipe cannot "
                         "read as u8 (" + std::to_string(channels) +
                         " channels after conversion)");
  // Deflate packs at most 1032 bytes into one: a header that claims more
  // rows than the file's bytes can hold is refused before the pixels are
  // allocated.
  int64_t stored = height * (int64_t(fileRowBytes) + 1);
  if (stored / 1032 > int64_t(bytes.size()))
    return Status::error("'" + path + "' is not a whole PNG: its header "
                         "claims " + std::to_string(width) + " x " +
                         std::to_string(height) +
                         " pixels, more than its " +
                         std::to_string(bytes.size()) + " bytes hold");
  HostTensor tensor(DType::U8, {height, width, channels});
  std::vector<png_bytep> rows(static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y)
    rows[size_t(y)] = tensor.as<unsigned char>() + y * rowBytes;
  if (!readPngRows(png, info, rows.data()))
    return Status::error("'" + path + "' is not a whole PNG: " +
                         source.message);
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
  ImageLayout layout = imageLayoutOf(tensor.shape(), lastIsChannels);
  // libpng writes no side past a million pixels: such a result is a .npy
  // only (its preview's failure lost the .npy with it).
  if (layout.height > kMaxPngSide || layout.width > kMaxPngSide)
    layout.count = 0;
  return layout;
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
