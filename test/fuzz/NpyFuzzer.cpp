//===- NpyFuzzer.cpp - The .npy reader on arbitrary bytes -----------------===//
//
// The bytes are the file. What the reader accepts is written back and read
// again: the round trip must give the same dtype, shape and bytes.
//
//===----------------------------------------------------------------------===//

#include "runtime/Npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

namespace {
/// A private directory for this process's files.
const std::string &directory() {
  static const std::string path = [] {
    char templ[] = "/tmp/pipe-npy-fuzz-XXXXXX";
    const char *made = mkdtemp(templ);
    if (!made)
      abort();
    return std::string(made);
  }();
  return path;
}

void writeBytes(const std::string &path, const uint8_t *data, size_t size) {
  FILE *file = fopen(path.c_str(), "wb");
  if (!file || (size && fwrite(data, 1, size, file) != size) || fclose(file))
    abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string in = directory() + "/in.npy", out = directory() + "/out.npy";
  writeBytes(in, data, size);
  pipert::Result<pipert::HostTensor> tensor = pipert::readNpy(in);
  if (!tensor.ok()) {
    if (tensor.status().message().empty())
      abort(); // every refusal says why
    return 0;
  }
  if (!pipert::writeNpy(out, *tensor).ok())
    abort();
  pipert::Result<pipert::HostTensor> again = pipert::readNpy(out);
  if (!again.ok() || again->dtype() != tensor->dtype() ||
      again->shape() != tensor->shape() ||
      again->numBytes() != tensor->numBytes() ||
      (tensor->numBytes() &&
       memcmp(again->data(), tensor->data(), tensor->numBytes()) != 0))
    abort();
  return 0;
}
