//===- MlirFuzzer.cpp - .mlir input through pipe-opt's pipeline -----------===//
//
// Text -> MLIR's parser with the pipe dialect -> the verifier -> the default
// pass pipeline -> plans, as `pipec` does with a .mlir file. The dialect's
// verifiers are the contract: IR they accept must not crash a pass, and a
// pass that fails on it must say so as a diagnostic. Internal errors are
// allowed here (hand-written IR can break what passes assume of the
// frontend's output, and saying so is right); crashes and sanitizer reports
// are not.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pipefuzz::compile(data, size, "fuzz.mlir", /*internalErrorsAllowed=*/true);
  return 0;
}
