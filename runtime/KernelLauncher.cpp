//===- KernelLauncher.cpp - The kernel families the runtime has -----------===//
//
// The one list of families on the runtime's side: a plan kernel's `family`
// picks its launcher here. Each factory is defined next to its family's
// emitter, in families/<name>/.
//
//===----------------------------------------------------------------------===//

#include "runtime/KernelLauncher.h"

#include "runtime/CudaDriver.h"

using namespace pipert;

namespace pipert {
Result<std::unique_ptr<KernelLauncher>>
createElementwiseLauncher(const Plan &plan, size_t index);
Result<std::unique_ptr<KernelLauncher>>
createReductionLauncher(const Plan &plan, size_t index);
Result<std::unique_ptr<KernelLauncher>> createBlurLauncher(const Plan &plan,
                                                           size_t index);
Result<std::unique_ptr<KernelLauncher>> createCheckLauncher(const Plan &plan,
                                                            size_t index);
Result<std::unique_ptr<KernelLauncher>>
createResampleLauncher(const Plan &plan, size_t index);
Result<std::unique_ptr<KernelLauncher>>
createWindowLauncher(const Plan &plan, size_t index);
} // namespace pipert

namespace {
struct Family {
  const char *name;
  Result<std::unique_ptr<KernelLauncher>> (*create)(const Plan &, size_t);
};
const Family kFamilies[] = {
    {"elementwise", createElementwiseLauncher},
    {"reduction", createReductionLauncher},
    {"blur", createBlurLauncher},
    {"check", createCheckLauncher},
    {"resample", createResampleLauncher},
    {"window", createWindowLauncher},
};
} // namespace

Result<std::unique_ptr<KernelLauncher>>
pipert::createKernelLauncher(const Plan &plan, size_t index) {
  const std::string &family = plan.kernels[index].family;
  for (const Family &known : kFamilies)
    if (family == known.name)
      return known.create(plan, index);
  std::string names;
  for (const Family &known : kFamilies)
    names += std::string(names.empty() ? "" : ", ") + known.name;
  return Status::error("kernel '" + plan.kernels[index].name +
                       "' of pipeline '" + plan.name +
                       "' belongs to the kernel family '" + family +
                       "', which this runtime does not have (it has " + names +
                       "): the plan was made by a newer compiler");
}

Status pipert::getFunction(const CudaDriver &cu, CUmodule module,
                           const std::string &entry, CUfunction *function) {
  return checkCuda(cu.cuModuleGetFunction(function, module, entry.c_str()),
                   "cuModuleGetFunction", "for kernel '" + entry + "'");
}
