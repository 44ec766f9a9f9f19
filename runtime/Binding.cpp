//===- Binding.cpp - Checking a run's tensors and binding its dims --------===//
//
// Before a run touches the GPU: each input's dtype, rank, literal sizes and
// memory against its parameter, and the size each symbolic dim takes.
//
//===----------------------------------------------------------------------===//

#include "runtime/Executable.h"

#include "core/DimExpr.h"

#include <set>

using namespace pipert;

Status pipert::checkPinnedMemory(const std::string &what, PlanMemory pinned,
                                 Memory actual) {
  if (pinned == PlanMemory::Any ||
      (pinned == PlanMemory::Host) == (actual == Memory::Host))
    return Status();
  const char *declared = pinned == PlanMemory::Host ? "host" : "device";
  const char *given = actual == Memory::Host ? "host" : "device";
  return Status::error(what + " is declared @" + declared + " but is in " +
                       given + " memory; pass " + declared +
                       " memory, or drop the annotation to let the caller "
                       "choose");
}

std::string pipert::describeInputCount(const std::string &pipeline,
                                      size_t expected, size_t got) {
  return "pipeline '" + pipeline + "' takes " + std::to_string(expected) +
         (expected == 1 ? " input, got " : " inputs, got ") +
         std::to_string(got);
}

std::string pipert::describeOutputCount(const std::string &pipeline,
                                       size_t expected, size_t got) {
  return "pipeline '" + pipeline + "' has " + std::to_string(expected) +
         (expected == 1 ? " result, got " : " results, got ") +
         std::to_string(got) +
         (got == 1 ? " output tensor" : " output tensors");
}

Result<std::map<std::string, int64_t>>
pipert::bindDims(const std::string &pipeline, const PlanBuffer *params,
                 size_t numParams, const std::vector<TensorRef> &inputs,
                 bool checkPins) {
  if (inputs.size() != numParams)
    return Status::error(describeInputCount(pipeline, numParams,
                                            inputs.size()));
  std::map<std::string, int64_t> sizes;
  // Where each dim was bound: input index and dim, for the message when
  // another input disagrees.
  std::map<std::string, std::pair<size_t, size_t>> boundBy;
  for (size_t i = 0; i < numParams; ++i) {
    const PlanBuffer &param = params[i];
    const TensorRef &input = inputs[i];
    // Named only for a message: a run's checks make no strings.
    auto what = [&] { return "input '" + param.name + "'"; };
    if (input.dtype != param.dtype)
      return Status::error(what() + " has dtype " + dtypeName(input.dtype) +
                           " but the pipeline expects " +
                           dtypeName(param.dtype) + describeDims(param.dims));
    if (input.shape.size() != param.dims.size())
      return Status::error(what() + " has rank " +
                           std::to_string(input.shape.size()) + " (" +
                           describeTensor(input.dtype, input.shape) +
                           ") but the pipeline expects rank " +
                           std::to_string(param.dims.size()) + " (" +
                           dtypeName(param.dtype) + describeDims(param.dims) +
                           ")");
    for (size_t d = 0; d < param.dims.size(); ++d) {
      const PlanDim &dim = param.dims[d];
      int64_t size = input.shape[d];
      if (size < 0)
        return Status::error(what() + " has a negative size in dim " +
                             std::to_string(d));
      if (dim.symbol.empty()) {
        if (size != dim.size)
          return Status::error(what() + " dim " + std::to_string(d) + " is " +
                               std::to_string(size) + " but must be " +
                               std::to_string(dim.size));
        continue;
      }
      auto [it, inserted] = sizes.emplace(dim.symbol, size);
      if (inserted) {
        boundBy[dim.symbol] = {i, d};
      } else if (it->second != size) {
        auto [first, firstDim] = boundBy[dim.symbol];
        return Status::error("dim " + dim.symbol + " is " +
                             std::to_string(it->second) + " in input '" +
                             params[first].name + "' dim " +
                             std::to_string(firstDim) + " but " +
                             std::to_string(size) + " in " + what() + " dim " +
                             std::to_string(d));
      }
    }
    if (!checkedNumBytes(input.dtype, input.shape))
      return Status::error(what() + " has shape " +
                           describeTensor(input.dtype, input.shape) +
                           ", whose size in bytes passes 2^63");
    if (input.numElements() > 0 && !input.data)
      return Status::error(what() + " is a null pointer");
    if (checkPins && param.memory != PlanMemory::Any)
      if (Status s = checkPinnedMemory(what(), param.memory, input.memory);
          !s.ok())
        return s;
  }
  return sizes;
}

std::vector<int64_t>
pipert::shapeOf(const PlanBuffer &buffer,
                const std::map<std::string, int64_t> &sizes) {
  std::vector<int64_t> shape;
  for (const PlanDim &dim : buffer.dims)
    shape.push_back(dim.symbol.empty() ? dim.size
                                       : *evaluateDim(dim.symbol, sizes));
  return shape;
}

Result<std::vector<std::vector<int64_t>>>
Executable::resultShapes(const std::vector<TensorRef> &inputs) const {
  return pipert::resultShapes(plan_, inputs);
}

/// Each dim's size for `inputs`: the parameters' dims bound, then every
/// dim expression the plan's buffers use evaluated.
static Result<std::map<std::string, int64_t>>
bindPlanDims(const Plan &plan, const std::vector<TensorRef> &inputs,
             bool checkPins = true) {
  auto sizes = bindDims(plan.name, plan.buffers.data(),
                        size_t(plan.numParams), inputs, checkPins);
  if (!sizes)
    return sizes.status();
  if (Status s = evaluatePlanDims(plan, *sizes); !s.ok())
    return s;
  return sizes;
}

Result<std::vector<std::vector<int64_t>>>
pipert::resultShapes(const Plan &plan, const std::vector<TensorRef> &inputs,
                     bool checkPins) {
  // Every failure here is the inputs': their count, dtypes, shapes.
  auto sizes = bindPlanDims(plan, inputs, checkPins);
  if (!sizes)
    return Status::badArgument(sizes.status().message());
  std::vector<std::vector<int64_t>> shapes;
  for (int buffer : plan.results)
    shapes.push_back(shapeOf(plan.buffers[buffer], *sizes));
  return shapes;
}

/// "H = 20, W = 7": the sizes `expr` uses, and those of the dim
/// expressions in parentheses in `message` (a check's reason names dims
/// its simplified expression may have lost: "the anchor along dim 1 (W -
/// 5) puts the window of H - 1 past the end of the dim (H)" checks 6 - W).
static std::string describeSizes(const DimExpr &expr,
                                 const std::map<std::string, int64_t> &sizes,
                                 const std::string &message = "") {
  std::set<std::string> symbols;
  expr.collectSymbols(symbols);
  // Each outermost parenthesized part that parses as a dim expression.
  for (size_t open = message.find('('); open != std::string::npos;) {
    size_t close = open;
    for (int depth = 0; close < message.size(); ++close) {
      depth += message[close] == '(' ? 1 : message[close] == ')' ? -1 : 0;
      if (depth == 0)
        break;
    }
    if (close == message.size())
      break;
    if (auto named = DimExpr::parse(message.substr(open + 1, close - open - 1)))
      named->collectSymbols(symbols);
    open = message.find('(', close + 1);
  }
  std::string text;
  for (const std::string &symbol : symbols)
    if (auto it = sizes.find(symbol); it != sizes.end())
      text += (text.empty() ? "" : ", ") + symbol + " = " +
              std::to_string(it->second);
  return text;
}

Status pipert::evaluatePlanDims(const Plan &plan,
                                std::map<std::string, int64_t> &sizes) {
  // Every dim expression a buffer uses gets its value, under its text, so
  // that shapes and launches look it up like a symbol.
  for (const PlanBuffer &buffer : plan.buffers)
    for (const PlanDim &dim : buffer.dims) {
      if (dim.symbol.empty() || sizes.count(dim.symbol))
        continue;
      std::string error, missing;
      DimExpr::Failure failure;
      std::shared_ptr<const DimExpr> expr = DimExpr::parseCached(dim.symbol);
      if (!expr) {
        DimExpr::parse(dim.symbol, &error);
        return Status::error("internal error: pipeline '" + plan.name +
                             "' has a malformed dim '" + dim.symbol +
                             "': " + error);
      }
      std::optional<int64_t> value = expr->evaluate(sizes, &missing, &failure);
      if (!value)
        return Status::error(
            "pipeline '" + plan.name + "': dim " + dim.symbol +
            (failure == DimExpr::Failure::Unbound
                 ? " needs the size of " + missing + ", which no parameter binds"
             : failure == DimExpr::Failure::DividesByZero
                 ? std::string(" divides by zero")
                 : std::string(" passes the 64-bit integers")) +
            " (" + describeSizes(*expr, sizes) + ")");
      if (*value < 0)
        return Status::error("pipeline '" + plan.name + "': dim " +
                             dim.symbol + " is " + std::to_string(*value) +
                             " for " + describeSizes(*expr, sizes) +
                             "; a size cannot be negative" +
                             (buffer.name.empty() ? ""
                                                  : " (of '" + buffer.name +
                                                        "')"));
      sizes[dim.symbol] = *value;
    }
  // The program's own checks first: a slice that reaches outside its dim
  // is what the user wrote, and the huge intermediate it would make (a
  // dim of 2^63 - 1) only follows from it.
  for (const PlanDimCheck &check : plan.dimChecks) {
    std::shared_ptr<const DimExpr> expr =
        DimExpr::parseCached(check.expression);
    std::string missing;
    DimExpr::Failure failure = DimExpr::Failure::Unbound;
    std::optional<int64_t> value =
        expr ? expr->evaluate(sizes, &missing, &failure) : std::nullopt;
    // A size of the program's that passes the 64-bit integers or divides
    // by zero for these sizes is the run's to refuse; a check the plan
    // cannot evaluate at all is the compiler's fault.
    if (!value && expr && failure != DimExpr::Failure::Unbound)
      return Status::error(
          "pipeline '" + plan.name + "': " +
          (failure == DimExpr::Failure::DividesByZero
               ? "a size divides by zero"
               : "a size passes the 64-bit integers") +
          " (" + describeSizes(*expr, sizes, check.message) +
          "), where it checks: " + check.message);
    if (!value)
      return Status::error("internal error: pipeline '" + plan.name +
                           "' checks a dim it cannot compute: " +
                           check.expression);
    if (*value < 0) {
      std::string described = describeSizes(*expr, sizes, check.message);
      return Status::error(check.message +
                           (described.empty() ? "" : " (" + described + ")"));
    }
  }
  // Every buffer's size in bytes must be a 64-bit integer too (a result
  // f32[N, H] with N = 2^62 would wrap to 0 bytes).
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const PlanBuffer &buffer = plan.buffers[b];
    std::vector<int64_t> shape = shapeOf(buffer, sizes);
    if (checkedNumBytes(buffer.dtype, shape))
      continue;
    // A result computed by a kernel is a buffer without a name of its own.
    std::string what = describeBuffer(plan, int(b));
    for (size_t r = 0; r < plan.results.size(); ++r)
      if (plan.results[r] == int(b) && buffer.name.empty())
        what = "result '" + plan.resultNames[r] + "'";
    return Status::error("pipeline '" + plan.name + "': " + what +
                         " would be " + describeTensor(buffer.dtype, shape) +
                         ", whose size in bytes passes 2^63");
  }
  return Status();
}

Status pipert::checkNoOverlap(const Plan &plan,
                              const std::vector<TensorRef> &inputs,
                              const std::vector<TensorRef> &outputs) {
  auto overlap = [](const TensorRef &a, const TensorRef &b) {
    if (a.memory != b.memory || a.numBytes() == 0 || b.numBytes() == 0)
      return false;
    auto start = [](const TensorRef &t) {
      return reinterpret_cast<uintptr_t>(t.data);
    };
    return start(a) < start(b) + b.numBytes() &&
           start(b) < start(a) + a.numBytes();
  };
  for (size_t r = 0; r < outputs.size() && r < plan.resultNames.size(); ++r) {
    for (size_t i = 0; i < inputs.size() && i < size_t(plan.numParams); ++i)
      if (overlap(outputs[r], inputs[i]))
        return Status::error("output '" + plan.resultNames[r] +
                             "' overlaps input '" + plan.buffers[i].name +
                             "' in memory; Pipe does not run in place");
    for (size_t s = 0; s < r; ++s)
      if (overlap(outputs[r], outputs[s]))
        return Status::error("outputs '" + plan.resultNames[s] + "' and '" +
                             plan.resultNames[r] + "' overlap in memory");
  }
  return Status();
}

Result<std::map<std::string, int64_t>>
pipert::checkRunTensors(const Plan &plan, const std::vector<TensorRef> &inputs,
                        const std::vector<TensorRef> &outputs,
                        std::vector<std::vector<int64_t>> &shapes,
                        bool checkPins) {
  auto sizes = bindPlanDims(plan, inputs, checkPins);
  if (!sizes)
    return sizes.status();
  if (outputs.size() != plan.results.size())
    return Status::error(describeOutputCount(plan.name, plan.results.size(),
                                             outputs.size()));
  shapes.clear();
  for (const PlanBuffer &buffer : plan.buffers)
    shapes.push_back(shapeOf(buffer, *sizes));
  for (size_t r = 0; r < outputs.size(); ++r) {
    const PlanBuffer &buffer = plan.buffers[plan.results[r]];
    const TensorRef &output = outputs[r];
    auto what = [&] { return "output '" + plan.resultNames[r] + "'"; };
    const std::vector<int64_t> &shape = shapes[plan.results[r]];
    if (output.dtype != buffer.dtype || output.shape != shape)
      return Status::error(what() + " is " +
                           describeTensor(output.dtype, output.shape) +
                           " but the result is " +
                           describeTensor(buffer.dtype, shape));
    if (output.numElements() > 0 && !output.data)
      return Status::error(what() + " is a null pointer");
    if (checkPins && r < plan.resultMemory.size() &&
        plan.resultMemory[r] != PlanMemory::Any)
      if (Status s = checkPinnedMemory(what(), plan.resultMemory[r],
                                       output.memory);
          !s.ok())
        return s;
  }
  if (Status s = checkNoOverlap(plan, inputs, outputs); !s.ok())
    return s;
  return sizes;
}

Status pipert::checkRunArguments(const Plan &plan,
                                 const std::vector<TensorRef> &inputs,
                                 const std::vector<TensorRef> &outputs) {
  std::vector<std::vector<int64_t>> shapes;
  if (auto checked = checkRunTensors(plan, inputs, outputs, shapes); !checked)
    return Status::badArgument(checked.status().message());
  return Status();
}
