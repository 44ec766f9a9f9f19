//===- FrontendFuzzer.cpp - .pipe text through the whole compiler ---------===//
//
// Text -> parser -> Sema -> MLIRGen -> the default pass pipeline -> plans
// and CUDA source. Any outcome but a user diagnostic or a compiled plan is a
// bug: a crash, a sanitizer report, or an internal error (FuzzCommon.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pipefuzz::compile(data, size, "fuzz.pipe");
  return 0;
}
