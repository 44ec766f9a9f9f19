//===- KernelFamily.cpp - The kernel families the compiler has ------------===//
//
// The one list of families on the compiler's side (runtime/
// KernelLauncher.cpp lists their launchers). A new family is its folder
// under families/ and a line in each list.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelFamily.h"

#include "codegen/PipeBlurEmbedded.h"
#include "codegen/PipeKernelEmbedded.h"
#include "codegen/PipeReduceEmbedded.h"
#include "codegen/PipeScalarEmbedded.h"
#include "codegen/PipeRandomEmbedded.h"
#include "codegen/PipeStencilEmbedded.h"

#include "llvm/Support/raw_ostream.h"

using namespace pipec;

KernelFamily::~KernelFamily() = default;

namespace pipec {
const KernelFamily &getElementwiseFamily();
const KernelFamily &getReductionFamily();
const KernelFamily &getBlurFamily();
const KernelFamily &getCheckFamily();
const KernelFamily &getResampleFamily();
const KernelFamily &getWindowFamily();
} // namespace pipec

llvm::ArrayRef<const KernelFamily *> pipec::getKernelFamilies() {
  static const KernelFamily *const families[] = {
      &getElementwiseFamily(), &getReductionFamily(), &getBlurFamily(),
      &getCheckFamily(), &getResampleFamily(), &getWindowFamily()};
  return families;
}

const KernelFamily *pipec::findKernelFamily(mlir::Operation *op) {
  for (const KernelFamily *family : getKernelFamilies())
    if (family->matches(op))
      return family;
  return nullptr;
}

const KernelFamily *pipec::findKernelFamily(llvm::StringRef name) {
  for (const KernelFamily *family : getKernelFamilies())
    if (family->getName() == name)
      return family;
  return nullptr;
}

std::string pipec::getGuardedKernelOpening(const KernelOptions &options) {
  std::string text;
  if (options.guarded)
    text += ",\n    const unsigned long long *__restrict__ pipe_guard, "
            "unsigned long long pipe_run";
  text += ") {\n  pipe_wait_for_previous_kernel();\n";
  if (options.guarded)
    text += "  if (pipe_check_failed(pipe_guard, pipe_run))\n    return;\n";
  return text;
}

std::string pipec::getCudaPrelude(bool withStencils) {
  std::string prelude = std::string(kPipeScalarSource) + "\n" +
                       kPipeRandomSource + "\n";
  if (withStencils)
    prelude += std::string(kPipeReduceSource) + "\n" + kPipeStencilSource + "\n";
  prelude += kPipeKernelSource;
  if (withStencils)
    prelude += std::string("\n") + kPipeBlurSource;
  return prelude;
}

std::string pipec::formatList(llvm::ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(values, os);
  os << "]";
  return text;
}
