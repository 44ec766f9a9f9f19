//===- HostScalars.cpp - Scalar kernels computed on the host --------------===//

#include "runtime/HostScalars.h"

#include "core/DimExpr.h"
#include "core/ElementwiseOps.h"
#include "core/StorageTypes.h"

#include <cstring>
#include <optional>

using namespace pipert;
using namespace pipescalar;
using pipert::visitStorageType;

namespace {

/// One scalar of any dtype (8 bytes hold the widest).
struct Register {
  alignas(8) char bytes[8] = {};
  template <typename T> T get() const {
    T value;
    std::memcpy(&value, bytes, sizeof(T));
    return value;
  }
  template <typename T> void set(T value) {
    static_assert(sizeof(T) <= sizeof(bytes));
    std::memcpy(bytes, &value, sizeof(T));
  }
};

/// registers[result] = fn(operands...) for operands of the step's dtype, if
/// `Allowed` admits it.
template <template <typename> class Allowed, unsigned Arity, typename Fn>
bool apply(const PlanScalarStep &step, std::vector<Register> &registers,
           Register &result, Fn fn) {
  if (step.args.size() != Arity)
    return false;
  bool ok = false;
  visitStorageType(step.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (Allowed<T>::value) {
      if constexpr (Arity == 1)
        result.set(fn(registers[step.args[0]].get<T>()));
      else
        result.set(fn(registers[step.args[0]].get<T>(),
                      registers[step.args[1]].get<T>()));
      ok = true;
    }
  });
  return ok;
}

bool runStep(const PlanScalarStep &step, std::vector<Register> &registers,
             Register &result) {
  if (step.op == "constant") {
    if (step.constant.size() > sizeof(result.bytes))
      return false;
    std::memcpy(result.bytes, step.constant.data(), step.constant.size());
    return true;
  }
  if (step.op == "cast") {
    if (step.args.size() != 1)
      return false;
    visitStorageType(step.resultDType, [&](auto toTag) {
      using To = decltype(toTag);
      visitStorageType(step.dtype, [&](auto fromTag) {
        using From = decltype(fromTag);
        result.set(pipe_cast<To, From>(registers[step.args[0]].get<From>()));
      });
    });
    return true;
  }
  if (step.op == "select") {
    if (step.args.size() != 3)
      return false;
    visitStorageType(step.dtype, [&](auto tag) {
      using T = decltype(tag);
      result.set(pipe_select(registers[step.args[0]].get<pipe_bool>(),
                             registers[step.args[1]].get<T>(),
                             registers[step.args[2]].get<T>()));
    });
    return true;
  }
#define PIPE_BINARY_STEP(Op, mnemonic, fn, allowed)                            \
  if (step.op == mnemonic)                                                     \
    return apply<Allowed_##allowed, 2>(                                        \
        step, registers, result, [](auto a, auto b) { return fn(a, b); });
#define PIPE_UNARY_STEP(Op, mnemonic, fn, allowed)                             \
  if (step.op == mnemonic)                                                     \
    return apply<Allowed_##allowed, 1>(step, registers, result,                \
                                       [](auto a) { return fn(a); });
  PIPE_BINARY_OPS(PIPE_BINARY_STEP)
  PIPE_UNARY_OPS(PIPE_UNARY_STEP)
#undef PIPE_BINARY_STEP
#undef PIPE_UNARY_STEP
  return false;
}

} // namespace

std::optional<uint64_t>
pipert::evaluateScalarOp(const std::string &op, DType dtype, DType resultDType,
                         const std::vector<uint64_t> &operands) {
  PlanScalarStep step{op, dtype, resultDType, {}, {}};
  std::vector<Register> registers(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    std::memcpy(registers[i].bytes, &operands[i], sizeof(operands[i]));
    step.args.push_back(int(i));
  }
  Register result;
  if (!runStep(step, registers, result))
    return std::nullopt;
  uint64_t word = 0;
  std::memcpy(&word, result.bytes, dtypeSize(resultDType));
  return word;
}

Status pipert::evaluateHostSteps(const Plan &plan, const PlanKernel &kernel,
                                 const std::vector<const void *> &inputs,
                                 const std::map<std::string, int64_t> &sizes,
                                 std::vector<std::string> &outputs) {
  std::vector<Register> registers(inputs.size() + kernel.hostSteps.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    std::memcpy(registers[i].bytes, inputs[i],
                dtypeSize(plan.buffers[kernel.inputs[i]].dtype));
  for (size_t s = 0; s < kernel.hostSteps.size(); ++s) {
    const PlanScalarStep &step = kernel.hostSteps[s];
    for (int arg : step.args)
      if (arg < 0 || size_t(arg) >= inputs.size() + s)
        return Status::error("kernel '" + kernel.name + "': host step " +
                             std::to_string(s) + " reads register " +
                             std::to_string(arg) + ", not yet computed");
    if (step.op == "dim") {
      std::string missing;
      std::optional<int64_t> value =
          evaluateDim(step.constant, sizes, &missing);
      if (!value)
        return Status::error("kernel '" + kernel.name + "': host step " +
                             std::to_string(s) + " needs dim '" +
                             step.constant + "', which the run does not " +
                             "bind" + (missing.empty() ? "" : " (" + missing +
                                                                 ")"));
      registers[inputs.size() + s].set(*value);
      continue;
    }
    if (!runStep(step, registers, registers[inputs.size() + s]))
      return Status::error("kernel '" + kernel.name + "': the host cannot run "
                           "step " + std::to_string(s) + " ('" + step.op +
                           "' on " + dtypeName(step.dtype) + ")");
  }
  outputs.clear();
  for (size_t r = 0; r < kernel.hostResults.size(); ++r) {
    int reg = kernel.hostResults[r];
    size_t bytes = dtypeSize(plan.buffers[kernel.outputs[r]].dtype);
    outputs.emplace_back(registers[reg].bytes, bytes);
  }
  return Status();
}
