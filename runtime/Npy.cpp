//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "runtime/Npy.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <memory>

#include <sys/stat.h>
#include <unistd.h>

using namespace pipert;

namespace {
struct NpyDType {
  DType dtype;
  const char *descr;
};
constexpr NpyDType kNpyDTypes[] = {
    {DType::U8, "|u1"},  {DType::I8, "|i1"},  {DType::U16, "<u2"},
    {DType::I16, "<i2"}, {DType::U32, "<u4"}, {DType::I32, "<i4"},
    {DType::U64, "<u8"}, {DType::I64, "<i8"}, {DType::F32, "<f4"},
    {DType::F64, "<f8"}, {DType::Bool, "|b1"}, {DType::F16, "<f2"}};

struct FileCloser {
  void operator()(FILE *file) const { fclose(file); }
};
using File = std::unique_ptr<FILE, FileCloser>;

/// The text after `'key':` in a header dict, up to the next top-level comma.
std::string findValue(const std::string &header, const std::string &key) {
  size_t pos = header.find("'" + key + "'");
  if (pos == std::string::npos)
    return {};
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return {};
  ++pos;
  while (pos < header.size() && header[pos] == ' ')
    ++pos;
  size_t end = pos;
  if (header[pos] == '(') {
    end = header.find(')', pos);
    return end == std::string::npos ? std::string() : header.substr(pos, end - pos + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}')
    ++end;
  return header.substr(pos, end - pos);
}

/// The first key of the header's dict that is not 'descr', 'fortran_order'
/// or 'shape' (as written, cut to 40 characters), or "" when there is none.
std::string findUnknownKey(const std::string &header) {
  size_t open = header.find('{');
  size_t close = header.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return {};
  // The entries: split at the commas outside parentheses and quotes.
  std::vector<std::string> entries(1);
  int depth = 0;
  char quote = 0;
  for (size_t i = open + 1; i < close; ++i) {
    char c = header[i];
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      entries.emplace_back();
      continue;
    }
    entries.back() += c;
  }
  for (const std::string &entry : entries) {
    size_t first = entry.find_first_not_of(" \t\n");
    if (first == std::string::npos)
      continue; // after a trailing comma
    size_t colon = entry.find(':', first);
    std::string key = entry.substr(first, colon == std::string::npos
                                              ? std::string::npos
                                              : colon - first);
    while (!key.empty() && std::isspace((unsigned char)key.back()))
      key.pop_back();
    bool known = false;
    for (const char *name : {"descr", "fortran_order", "shape"})
      known |= key == std::string("'") + name + "'" ||
               key == std::string("\"") + name + "\"";
    if (!known)
      return key.size() > 40 ? key.substr(0, 37) + "..." : key;
  }
  return {};
}
} // namespace

Result<HostTensor> pipert::readNpy(const std::string &path) {
  auto bad = [&](const std::string &why) {
    return Status::error("'" + path + "' is not a .npy file Pipe can read: " +
                         why);
  };
  // Only regular files: their size is known before anything is allocated
  // from what the header claims (a FIFO would block, even in fopen, and
  // /dev/zero never end). Checked before opening, and again on what was
  // opened.
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    return bad("not a regular file");
  File file(fopen(path.c_str(), "rb"));
  if (!file)
    return Status::error("cannot open '" + path + "': " + strerror(errno));
  if (fstat(fileno(file.get()), &info) != 0)
    return Status::error("cannot read '" + path + "': " + strerror(errno));
  if (!S_ISREG(info.st_mode))
    return bad("not a regular file");
  const unsigned long long fileBytes = (unsigned long long)info.st_size;
  unsigned char magic[8];
  size_t got = fread(magic, 1, 8, file.get());
  if (memcmp(magic, "\x93NUMPY", std::min<size_t>(got, 6)) != 0 || got == 0)
    return bad("no .npy magic string");
  if (got != 8)
    return bad("truncated header");
  uint32_t headerLength = 0;
  if (magic[6] == 1) {
    unsigned char len[2];
    if (fread(len, 1, 2, file.get()) != 2)
      return bad("truncated header");
    headerLength = len[0] | (len[1] << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    unsigned char len[4];
    if (fread(len, 1, 4, file.get()) != 4)
      return bad("truncated header");
    headerLength = len[0] | (len[1] << 8) | (len[2] << 16) | (uint32_t(len[3]) << 24);
  } else {
    return bad("unknown version " + std::to_string(magic[6]));
  }
  const unsigned long long dataStart =
      (magic[6] == 1 ? 10ull : 12ull) + headerLength;
  if (dataStart > fileBytes)
    return bad("truncated header");
  std::string header(headerLength, '\0');
  if (fread(header.data(), 1, headerLength, file.get()) != headerLength)
    return bad("truncated header");

  // A Python dict literal: {'descr': ..., 'fortran_order': ..., 'shape': ...}.
  size_t open = header.find_first_not_of(' ');
  if (open == std::string::npos || header[open] != '{' ||
      header.find('}') == std::string::npos)
    return bad("its header is not a dict ({'descr': ..., 'shape': ...})");
  // NumPy's writer puts each key once and no NUL in the text; a header that
  // does otherwise was not written by it (and would be read differently:
  // Python takes a repeated key's last value).
  if (header.find('\0') != std::string::npos)
    return bad("its header holds a NUL byte");
  // NumPy's reader refuses a key other than these three ("Header does not
  // contain the correct keys"): a file that has one was meant otherwise.
  if (std::string key = findUnknownKey(header); !key.empty())
    return bad("its header has the key " + key +
               ", which .npy files do not (only 'descr', 'fortran_order' "
               "and 'shape')");
  for (const char *key : {"descr", "fortran_order", "shape"}) {
    const std::string quoted = std::string("'") + key + "'";
    size_t first = header.find(quoted);
    if (first == std::string::npos)
      return bad(std::string("its header has no '") + key + "'");
    if (header.find(quoted, first + 1) != std::string::npos)
      return bad(std::string("its header has '") + key + "' twice");
  }
  std::string descr = findValue(header, "descr");
  if (!descr.empty() && descr.front() == '[')
    return bad("a structured dtype (fields) is not a tensor Pipe can read");
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"'))
    return bad("no dtype");
  descr = descr.substr(1, descr.size() - 2);
  // Without a byte order ('u1', 'f4'), NumPy reads the machine's: little.
  // (Only a type code and a size: 'bfloat16' is named as written.)
  if (descr.size() >= 2 && descr.size() <= 3 &&
      std::isalpha(static_cast<unsigned char>(descr[0])) &&
      std::isdigit(static_cast<unsigned char>(descr[1])))
    descr = "<" + descr;
  if (descr.size() > 1 && descr[0] == '=') // native: little-endian here
    descr[0] = '<';
  if (descr == "<u1") descr = "|u1";
  if (descr == "<i1") descr = "|i1";
  if (descr == "<b1") descr = "|b1";
  const NpyDType *found = nullptr;
  for (const NpyDType &candidate : kNpyDTypes)
    if (descr == candidate.descr)
      found = &candidate;
  if (!found)
    return bad("dtype '" + descr +
               "' is not one of bool u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 "
               "f64 (little-endian)");
  // Python literals, as NumPy's reader evaluates them: False or True.
  std::string fortranOrder = findValue(header, "fortran_order");
  while (!fortranOrder.empty() && fortranOrder.back() == ' ')
    fortranOrder.pop_back();
  if (fortranOrder == "True")
    return bad("Fortran-ordered arrays are not supported; save with "
               "np.ascontiguousarray");
  if (fortranOrder != "False")
    return bad("its 'fortran_order' is " + fortranOrder.substr(0, 40) +
               ", not False or True");
  std::string shapeText = findValue(header, "shape");
  if (shapeText.empty() || shapeText.front() != '(')
    return bad("no shape");
  // A tuple of integers, as Python writes it: "()", "(5,)", "(2, 3)",
  // followed by the next key or the dict's end.
  size_t after = header.find(shapeText, header.find("'shape'")) +
                 shapeText.size();
  after = header.find_first_not_of(' ', after);
  if (after == std::string::npos ||
      (header[after] != ',' && header[after] != '}'))
    return bad("bad shape " + shapeText +
               (after == std::string::npos ? "" : header.substr(after, 20)));
  std::vector<int64_t> shape;
  const char *p = shapeText.c_str() + 1;
  while (*p == ' ')
    ++p;
  while (*p != ')') {
    char *end;
    errno = 0;
    long long dim = strtoll(p, &end, 10);
    if (end == p || dim < 0 || errno == ERANGE)
      return bad("bad shape " + shapeText);
    shape.push_back(dim);
    p = end;
    while (*p == ' ')
      ++p;
    if (*p == ',')
      ++p;
    else if (*p != ')')
      return bad("bad shape " + shapeText);
    while (*p == ' ')
      ++p;
  }
  // The data's size, computed without overflow, must be what the file
  // holds after the header: checked before anything is allocated.
  std::optional<int64_t> size = checkedNumBytes(found->dtype, shape);
  if (!size)
    return bad("shape " + shapeText + " has more bytes than 2^63");
  const unsigned long long bytes = (unsigned long long)*size;
  const unsigned long long held = fileBytes - dataStart;
  if (bytes > held)
    return bad("the data is " + std::to_string(held) + " bytes, shorter than "
               "the " + std::to_string(bytes) + " its shape " + shapeText +
               " needs");
  if (bytes < held)
    return bad(std::to_string(held - bytes) + " bytes follow the " +
               std::to_string(bytes) + " of the array its shape " +
               shapeText + " describes");
  HostTensor tensor(found->dtype, shape);
  if (bytes && fread(tensor.data(), 1, bytes, file.get()) != bytes)
    return bad("the data is shorter than " + tensor.describe() + " needs");
  // A bool byte other than 0 or 1 (memory viewed as bool) is true, as
  // NumPy takes it; Pipe's kernels take bools as 0 or 1.
  if (tensor.dtype() == DType::Bool)
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      tensor.as<uint8_t>()[i] = tensor.as<uint8_t>()[i] != 0;
  return tensor;
}

Status pipert::writeNpyInPlace(const std::string &path,
                               const std::string &shownPath,
                               const HostTensor &tensor) {
  std::string descr;
  for (const NpyDType &candidate : kNpyDTypes)
    if (candidate.dtype == tensor.dtype())
      descr = candidate.descr;
  if (descr.empty())
    return Status::error("cannot write '" + shownPath + "': NumPy has no " +
                         dtypeName(tensor.dtype()) + " dtype");
  std::string shape = "(";
  for (int64_t dim : tensor.shape())
    shape += std::to_string(dim) + ", ";
  if (tensor.shape().size() > 1)
    shape.resize(shape.size() - 2);
  else if (tensor.shape().size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Version 1.0 gives the header's length in 2 bytes; a longer header (a
  // rank in the thousands) takes version 2.0's 4, as NumPy writes it. Pad
  // so that the data starts on a 64-byte boundary, ending in '\n'.
  bool version2 = 10 + header.size() + 64 > 65535;
  size_t prefixBytes = version2 ? 12 : 10;
  size_t total = prefixBytes + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  auto failed = [&]() {
    return Status::error("cannot write '" + shownPath + "': " +
                         strerror(errno));
  };
  File file(fopen(path.c_str(), "wb"));
  if (!file)
    return failed();
  unsigned char prefix[12] = {0x93, 'N', 'U', 'M', 'P', 'Y',
                              (unsigned char)(version2 ? 2 : 1), 0};
  for (size_t i = 0; i < prefixBytes - 8; ++i)
    prefix[8 + i] = (unsigned char)(header.size() >> (8 * i));
  if (fwrite(prefix, 1, prefixBytes, file.get()) != prefixBytes ||
      fwrite(header.data(), 1, header.size(), file.get()) != header.size() ||
      (tensor.numBytes() &&
       fwrite(tensor.data(), 1, tensor.numBytes(), file.get()) !=
           tensor.numBytes()))
    return failed();
  if (fclose(file.release()) != 0)
    return failed();
  return Status();
}

Status pipert::writeNpyFiles(
    const std::vector<std::pair<std::string, const HostTensor *>> &files) {
  std::vector<std::pair<std::string, std::function<Status(const std::string &)>>>
      writers;
  for (const auto &[path, tensor] : files)
    writers.push_back({path, [path = path, tensor = tensor](
                                 const std::string &temporary) {
                         return writeNpyInPlace(temporary, path, *tensor);
                       }});
  return writeFilesAllOrNothing(writers);
}

Status pipert::writeFilesAllOrNothing(
    const std::vector<std::pair<std::string,
                                std::function<Status(const std::string &)>>>
        &files) {
  // Temporaries in the same directory, so that the renames do not cross
  // file systems; named per process and call, so that concurrent writers
  // do not share one.
  static std::atomic<unsigned> calls{0};
  std::string suffix = ".tmp-" + std::to_string(getpid()) + "-" +
                       std::to_string(calls++);
  std::vector<std::string> temporaries;
  auto removeAll = [](const std::vector<std::string> &paths) {
    for (const std::string &path : paths)
      unlink(path.c_str());
  };
  // Where each file goes: through a symbolic link to its target (renaming
  // over the link would replace the link, not write the file), and only
  // onto a regular file or nothing (renaming over a FIFO or a device such
  // as /dev/null would replace it, as root). A file there keeps its mode.
  std::vector<std::string> targets;
  std::vector<int> modes;
  for (const auto &entry : files) {
    const std::string &path = entry.first;
    std::string target = path;
    int mode = -1;
    struct stat info;
    if (lstat(path.c_str(), &info) == 0) {
      if (S_ISLNK(info.st_mode)) {
        char *real = realpath(path.c_str(), nullptr);
        if (!real)
          return Status::error("cannot write '" + path +
                               "': it is a symbolic link to nothing (" +
                               strerror(errno) + ")");
        target = real;
        free(real);
        if (stat(target.c_str(), &info) != 0)
          return Status::error("cannot write '" + path + "': " +
                               strerror(errno));
      }
      if (!S_ISREG(info.st_mode))
        return Status::error("cannot write '" + path + "': " +
                             (S_ISDIR(info.st_mode)
                                  ? std::string(strerror(EISDIR))
                                  : "it is not a regular file (a FIFO, a "
                                    "device or a socket), which a new file "
                                    "would replace"));
      mode = int(info.st_mode & 07777);
    }
    targets.push_back(target);
    modes.push_back(mode);
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string &path = files[i].first;
    std::string temporary = targets[i] + suffix;
    Status status = files[i].second(temporary);
    if (status.ok() && modes[i] >= 0)
      chmod(temporary.c_str(), mode_t(modes[i]));
    if (!status.ok()) {
      unlink(temporary.c_str());
      removeAll(temporaries);
      // The caller asked for `path`: the temporary's name is ours.
      std::string message = status.message();
      for (size_t at = message.find(temporary); at != std::string::npos;
           at = message.find(temporary, at + path.size()))
        message.replace(at, temporary.size(), path);
      return status.isBadArgument() ? Status::badArgument(message)
                                    : Status::error(message);
    }
    temporaries.push_back(temporary);
  }
  // The files there before are kept under a second name (a hard link) until
  // every rename has succeeded, so that a failing rename (the path is a
  // directory, say) can put back the ones already replaced.
  std::vector<std::string> backups(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    std::string backup = targets[i] + suffix + ".old";
    if (link(targets[i].c_str(), backup.c_str()) == 0)
      backups[i] = backup;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (rename(temporaries[i].c_str(), targets[i].c_str()) == 0)
      continue;
    Status status = Status::error("cannot write '" + files[i].first + "': " +
                                  strerror(errno));
    for (size_t j = 0; j < i; ++j) {
      if (backups[j].empty())
        unlink(targets[j].c_str());
      else
        rename(backups[j].c_str(), targets[j].c_str());
    }
    removeAll(std::vector<std::string>(temporaries.begin() + i,
                                       temporaries.end()));
    removeAll(backups);
    return status;
  }
  removeAll(backups);
  return Status();
}

Status pipert::writeNpy(const std::string &path, const HostTensor &tensor) {
  return writeNpyFiles({{path, &tensor}});
}
