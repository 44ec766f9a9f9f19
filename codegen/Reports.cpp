//===- Reports.cpp - What a compiled pipeline moves, and its graph --------===//
//
// Where copies happen is decided by the plan and the runtime: a parameter or
// result lives where the caller's memory is (device pointers are used in
// place, host memory is copied once per run), constants are uploaded once
// when the executable loads, a blur's kernel writes a bad sample's verdict
// straight into mapped host memory (no copy otherwise), the conditions of
// the branches the host decides come back packed, and every other value
// stays on the device. These reports enumerate exactly those copies, so
// they change when the runtime does.
//
//===----------------------------------------------------------------------===//

#include "codegen/Reports.h"

#include "codegen/KernelFamily.h"
#include "core/DimExpr.h"
#include "codegen/PlanBuilder.h"
#include "runtime/Tensor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>

using namespace mlir;
using namespace mlir::pipe;
using pipec::findKernelFamily;
using pipec::KernelFamily;

namespace {

/// "4*N*H*W", or a number when every dim is literal.
std::string bytesFormula(const pipert::PlanBuffer &buffer) {
  int64_t literal = int64_t(pipert::dtypeSize(buffer.dtype));
  std::string symbols;
  for (const pipert::PlanDim &dim : buffer.dims) {
    if (dim.symbol.empty())
      literal *= dim.size;
    else
      symbols += (symbols.empty() ? "" : "*") +
                 (pipert::DimExpr::parse(dim.symbol)->isSymbol()
                      ? dim.symbol
                      : "(" + dim.symbol + ")");
  }
  if (symbols.empty())
    return std::to_string(literal);
  if (literal == 1)
    return symbols;
  return std::to_string(literal) + "*" + symbols;
}

/// bytesFor's answer for sizes whose bytes pass 2^63 (a run refuses them).
constexpr int64_t kTooLarge = -2, kNegative = -3, kDividesByZero = -4;

/// The bytes of `buffer` under `sizes`; -1 if a dim is unbound, kTooLarge
/// if they pass the 64-bit integers, kNegative or kDividesByZero if a dim
/// is negative or divides by zero (a run refuses each).
int64_t bytesFor(const pipert::PlanBuffer &buffer,
                 const std::map<std::string, int64_t> &sizes) {
  std::vector<int64_t> shape;
  for (const pipert::PlanDim &dim : buffer.dims) {
    pipert::DimExpr::Failure failure = pipert::DimExpr::Failure::None;
    std::optional<int64_t> size =
        dim.symbol.empty()
            ? std::optional(dim.size)
            : pipert::evaluateDim(dim.symbol, sizes, nullptr, &failure);
    if (!size)
      return failure == pipert::DimExpr::Failure::Unbound ? -1
             : failure == pipert::DimExpr::Failure::DividesByZero
                 ? kDividesByZero
                 : kTooLarge;
    if (*size < 0)
      return kNegative;
    shape.push_back(*size);
  }
  return pipert::checkedNumBytes(buffer.dtype, shape).value_or(kTooLarge);
}

/// " = 1024" after a formula, " = more than 2^63 ..." where too large.
std::string bytesValue(const std::string &formula, int64_t bytes) {
  if (bytes == kTooLarge)
    return " = more than 2^63 (a run refuses these sizes)";
  if (bytes == kNegative)
    return " = none: a dim is negative for these sizes (a run refuses them)";
  if (bytes == kDividesByZero)
    return " = none: a dim divides by zero for these sizes (a run refuses "
           "them)";
  if (bytes >= 0 && formula != std::to_string(bytes))
    return " = " + std::to_string(bytes);
  return "";
}

std::string typeOf(const pipert::PlanBuffer &buffer) {
  return std::string(pipert::dtypeName(buffer.dtype)) +
         pipert::describeDims(buffer.dims);
}

/// Where each returned value is computed.
std::string resultLocation(PipelineOp pipeline, unsigned r) {
  auto ret = cast<ReturnOp>(pipeline.getBody().front().getTerminator());
  // Where the source binds it, as the frontend recorded.
  if (auto fused = dyn_cast<FusedLoc>(ret.getLoc()))
    if (auto tag = dyn_cast_or_null<StringAttr>(fused.getMetadata());
        tag && tag.getValue() == mlir::pipe::kResultLocationsTag &&
        fused.getLocations().size() == ret.getNumOperands())
      if (std::string where =
              mlir::pipe::describeLocation(fused.getLocations()[r]);
          !where.empty())
        return where;
  Value value = ret.getOperand(r);
  Operation *def = value.getDefiningOp();
  if (!def)
    return mlir::pipe::describeLocation(value.getLoc());
  // A fused kernel's results come from the ops it holds: the one that
  // computes this result (its line, not the kernel's first op's), in the
  // region that yields the results (a kernel's body; the epilogue of a
  // reduction's or a resample's kernel: their last region).
  if (def->getNumRegions() > 0 && !def->getRegions().back().empty()) {
    Operation *yield = def->getRegions().back().front().getTerminator();
    unsigned i = cast<OpResult>(value).getResultNumber();
    if (yield && yield->getNumOperands() == def->getNumResults())
      if (Operation *inner = yield->getOperand(i).getDefiningOp())
        return mlir::pipe::describeLocation(inner->getLoc());
  }
  return mlir::pipe::describeLocation(def->getLoc());
}

struct Copy {
  const char *direction;
  std::string formula;
  int64_t bytes;
  std::string value;
  std::string location;
  std::string why;
  /// Made every run, also when the caller's tensors are on the device.
  bool always = false;
  /// Made only when the caller's scalars are on the device.
  bool onlyFromDevice = false;
  /// How many times a run may make it (a condition block read after each
  /// round of choices): at most this many.
  int times = 1;
};

} // namespace

std::string pipec::describeTransfers(PipelineOp pipeline,
                                     const pipert::Plan &plan,
                                     const std::map<std::string, int64_t> &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Block &body = pipeline.getBody().front();
  std::vector<Copy> perRun, atLoad;
  std::vector<std::string> pinnedToDevice;
  // The parameters that are a choice's condition themselves (their byte is
  // read back from device memory: below, not "never copied").
  std::set<int> conditionParameters;
  for (const pipert::PlanChoice &choice : plan.choices) {
    int b = choice.condition;
    while (plan.buffers[b].aliasOf >= 0)
      b = plan.buffers[b].aliasOf;
    if (b < plan.numParams)
      conditionParameters.insert(b);
  }
  for (int i = 0; i < plan.numParams; ++i) {
    const pipert::PlanBuffer &buffer = plan.buffers[i];
    std::string value = "parameter " + buffer.name + ": " + typeOf(buffer);
    std::string where = mlir::pipe::describeLocation(body.getArgument(i).getLoc());
    if (buffer.memory == pipert::PlanMemory::Device) {
      if (!conditionParameters.count(i))
        pinnedToDevice.push_back(value + " (@device, read in place)");
      continue;
    }
    bool host = buffer.memory == pipert::PlanMemory::Host;
    perRun.push_back({"H2D", bytesFormula(buffer), bytesFor(buffer, sizes),
                      value, where,
                      host ? "declared @host: copied to the device every run"
                           : "only if the caller passes host memory (device "
                             "memory is read in place)",
                      host});
  }
  // Kernels that check their input on the GPU (a blur's windows and
  // sigmas) write a bad one into mapped host memory; a good run copies
  // nothing.
  std::vector<std::string> badSampleReports;
  for (const pipert::PlanKernel &kernel : plan.kernels)
    if (const KernelFamily *family = findKernelFamily(kernel.family))
      if (std::string copy = family->describeBadInputCopy(kernel);
          !copy.empty())
        badSampleReports.push_back(copy);
  std::vector<int> conditions = pipert::getConditionBuffers(plan);
  // Whether the host computes every condition itself, whatever the caller
  // passes: then none is copied.
  bool hostComputesConditions = false;
  if (!conditions.empty()) {
    // How many times a run may wait: a condition computed from a value
    // that a choice picks is read after that choice.
    std::vector<int> depth(plan.buffers.size(), 0);
    std::vector<int> producer(plan.buffers.size(), -1);
    for (size_t k = 0; k < plan.kernels.size(); ++k)
      for (int b : plan.kernels[k].outputs)
        producer[b] = int(k);
    int rounds = 0;
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const pipert::PlanBuffer &buffer = plan.buffers[b];
      if (buffer.aliasOf >= 0)
        depth[b] = depth[buffer.aliasOf];
      else if (buffer.choice >= 0) {
        const pipert::PlanChoice &choice = plan.choices[buffer.choice];
        rounds = std::max(rounds, depth[choice.condition] + 1);
        depth[b] = std::max({depth[choice.condition] + 1, depth[choice.ifTrue],
                             depth[choice.ifFalse]});
      } else if (producer[b] >= 0) {
        for (int input : plan.kernels[producer[b]].inputs)
          depth[b] = std::max(depth[b], depth[input]);
      }
    }
    // Conditions the host computes itself (the kernels' host steps): from
    // constants, dims and @host scalars always; from scalar parameters in
    // the caller's memory when that is host memory.
    enum Source : int8_t { Unknown = -1, Device, IfHostCaller, Host };
    std::vector<Source> source(plan.buffers.size(), Unknown);
    std::set<std::string> scalars;
    std::function<Source(int)> sourceOf = [&](int b) -> Source {
      if (source[b] != Unknown)
        return source[b];
      const pipert::PlanBuffer &buffer = plan.buffers[b];
      Source from = Device;
      if (b < plan.numParams) {
        if (buffer.dims.empty() &&
            buffer.memory != pipert::PlanMemory::Device) {
          from = buffer.memory == pipert::PlanMemory::Host ? Host
                                                           : IfHostCaller;
          if (from == IfHostCaller)
            scalars.insert(buffer.name);
        }
      } else if (!buffer.constantData.empty()) {
        from = Host;
      } else if (producer[b] >= 0 &&
                 !plan.kernels[producer[b]].hostSteps.empty()) {
        from = Host;
        for (int input : plan.kernels[producer[b]].inputs)
          from = std::min(from, sourceOf(input));
      }
      source[b] = from;
      return from;
    };
    Source least = Host;
    for (int b : conditions)
      least = std::min(least, sourceOf(b));
    hostComputesConditions = least == Host;
    std::string names;
    for (const std::string &name : scalars)
      names += (names.empty() ? "" : ", ") + name;
    std::string where;
    for (const pipert::PlanChoice &choice : plan.choices)
      if (where.find(choice.location) == std::string::npos)
        where += (where.empty() ? "" : ", ") + choice.location;
    std::string count = std::to_string(conditions.size());
    std::string why =
        "the host decides which side runs and skips the other's kernels; "
        "the conditions sit side by side on the device and come back in "
        "one copy each time the run cannot go on without them (" +
        std::string(rounds > 1 ? "at most " + std::to_string(rounds) + " times"
                               : "once") +
        " per run), after the work that does not depend on them is queued";
    if (least == IfHostCaller)
      why = "only if the caller passes " + names +
            " in device memory: from host memory the host computes the "
            "conditions itself (no copy, no wait); else " + why;
    if (least != Host)
      perRun.push_back({"D2H", count, int64_t(conditions.size()),
                        "bool[] x " + count + ": conditions of the " +
                            std::to_string(plan.choices.size()) +
                            " choices the host decides",
                        where, why, /*always=*/true,
                        /*onlyFromDevice=*/least == IfHostCaller,
                        std::max(rounds, 1)});
  }
  // Conditions that are parameters themselves: from the caller's host
  // memory the host reads them in place; from device memory it copies
  // each one's byte back before deciding (runtime/Scheduler.cpp), once
  // for each choice it decides.
  size_t parameterConditions = 0;
  for (const pipert::PlanChoice &choice : plan.choices) {
    int b = choice.condition;
    while (plan.buffers[b].aliasOf >= 0)
      b = plan.buffers[b].aliasOf;
    const pipert::PlanBuffer &buffer = plan.buffers[b];
    if (b >= plan.numParams || buffer.memory == pipert::PlanMemory::Host)
      continue;
    bool pinned = buffer.memory == pipert::PlanMemory::Device;
    ++parameterConditions;
    perRun.push_back(
        {"D2H", "1", 1,
         "parameter " + buffer.name + ": " + typeOf(buffer) +
             ", the condition of a choice the host decides",
         choice.location,
         std::string(pinned ? "declared @device: "
                            : "only if the caller passes it in device "
                              "memory (from host memory the host reads it "
                              "in place): ") +
             "the host reads its byte back and waits for it before it "
             "decides which side runs",
         /*always=*/true, /*onlyFromDevice=*/!pinned});
  }
  for (size_t r = 0; r < plan.results.size(); ++r) {
    const pipert::PlanBuffer &buffer = plan.buffers[plan.results[r]];
    std::string value =
        "result " + plan.resultNames[r] + ": " + typeOf(buffer);
    pipert::PlanMemory memory = r < plan.resultMemory.size()
                                    ? plan.resultMemory[r]
                                    : pipert::PlanMemory::Any;
    if (memory == pipert::PlanMemory::Device) {
      pinnedToDevice.push_back(value + " (@device, written in place)");
      continue;
    }
    bool host = memory == pipert::PlanMemory::Host;
    perRun.push_back({"D2H", bytesFormula(buffer), bytesFor(buffer, sizes),
                      value, resultLocation(pipeline, r),
                      host ? "pinned to host memory (@host or .cpu()): copied "
                             "back every run, after the kernels"
                           : "only if the caller's output is host memory "
                             "(device memory is written in place)",
                      host});
  }
  for (const pipert::PlanBuffer &buffer : plan.buffers)
    if (!buffer.constantData.empty())
      atLoad.push_back({"H2D", std::to_string(buffer.constantData.size()),
                        int64_t(buffer.constantData.size()),
                        "constant " + typeOf(buffer), "",
                        "once, when the executable loads"});

  os << "transfers of pipeline '" << plan.name << "'";
  if (!sizes.empty()) {
    os << " (sizes:";
    for (auto &[name, size] : sizes)
      os << " " << name << "=" << size;
    os << ")";
  }
  os << "\n";
  auto print = [&](const std::vector<Copy> &copies) {
    for (size_t i = 0; i < copies.size(); ++i) {
      const Copy &c = copies[i];
      os << "  #" << i + 1 << " " << c.direction << " " << c.formula
         << " bytes";
      os << bytesValue(c.formula, c.bytes);
      os << "  " << c.value;
      if (!c.location.empty())
        os << "  at " << c.location;
      os << "\n      why: " << c.why << "\n";
    }
  };
  os << "per run:\n";
  print(perRun);
  if (!pinnedToDevice.empty()) {
    os << "never copied:\n";
    for (const std::string &value : pinnedToDevice)
      os << "  " << value << "\n";
  }
  if (!badSampleReports.empty()) {
    os << "only on bad input:\n";
    for (const std::string &report : badSampleReports)
      os << "  " << report << "\n";
  }
  if (auto notes = pipeline->getAttrOfType<ArrayAttr>("pipe.placement")) {
    os << "explicit copies in the source:\n";
    for (Attribute note : notes)
      os << "  " << cast<StringAttr>(note).getValue() << "\n";
  }
  os << "at load:\n";
  if (atLoad.empty())
    os << "  none\n";
  print(atLoad);

  // Values computed on the GPU that never leave it.
  os << "stays on the device:\n";
  bool any = false;
  llvm::DenseMap<Value, int> bufferOf;
  for (Operation &op : body) {
    for (Value result : op.getResults()) {
      bool returned = llvm::any_of(result.getUsers(), [](Operation *user) {
        return isa<ReturnOp>(user);
      });
      bool condition = llvm::any_of(result.getUses(), [](OpOperand &use) {
        return isa<ChooseOp>(use.getOwner()) && use.getOperandNumber() == 0;
      });
      if (returned || condition || isa<ConstantOp>(op))
        continue;
      any = true;
      auto type = cast<RankedTensorType>(result.getType());
      pipert::PlanBuffer buffer = getPlanBuffer(type, "");
      std::string use = "read by the GPU";
      for (Operation *user : result.getUsers()) {
        if (auto blur = dyn_cast<GaussianBlurOp>(user))
          use = result == blur.getWindow() || result == blur.getSigma()
                    ? "a per-sample blur parameter: it only parameterizes "
                      "kernel arithmetic, so it is not a control value and "
                      "is not copied to the host"
                    : use;
      }
      if (isa<ChooseOp>(op))
        use = "the side the host picks: that buffer itself, no copy";
      os << "  " << typeOf(buffer) << " from " << op.getName().getStringRef()
         << " at " << mlir::pipe::describeLocation(op.getLoc()) << ": " << use << "\n";
    }
  }
  if (!any)
    os << "  nothing else\n";
  if (auto notes = pipeline->getAttrOfType<ArrayAttr>("pipe.control")) {
    os << "branches and loop iterations:\n";
    for (Attribute note : notes)
      os << "  " << cast<StringAttr>(note).getValue() << "\n";
  }
  auto plural = [](size_t n, const char *one, const char *many) {
    return n == 1 ? std::string(one) : std::to_string(n) + " " + many;
  };
  std::string parameters =
      parameterConditions == 0
          ? ""
          : plural(parameterConditions, "the condition",
                   "conditions") +
                " passed as a parameter above, from the caller's device "
                "memory";
  const char *dimsOnly =
      "allocation sizes and launch shapes depend on the dims only";
  os << "control values sent to the host: ";
  if (conditions.empty() && parameters.empty())
    os << "none (" << dimsOnly
       << "; branches and loop bounds are predicated on the GPU)\n";
  else if (conditions.empty())
    os << parameters << " (" << dimsOnly << ")\n";
  else if (hostComputesConditions)
    os << (parameters.empty() ? "none" : parameters) << " (the host computes "
       << plural(conditions.size(), "the branch condition",
                 "branch conditions")
       << " above itself, from constants, dims and @host scalars: no copy, "
          "no wait; "
       << dimsOnly << ")\n";
  else
    os << "the " << conditions.size()
       << (conditions.size() == 1 ? " branch condition" : " branch conditions")
       << " above" << (parameters.empty() ? "" : ", and " + parameters)
       << " (" << dimsOnly << ")\n";
  // Totals as formulas (and numbers when --dims binds every symbol).
  auto total = [](const std::vector<const Copy *> &copies) {
    std::string formula;
    int64_t bytes = 0;
    bool known = true;
    for (const Copy *c : copies) {
      formula += (formula.empty() ? "" : " + ") +
                 (c->times > 1 ? std::to_string(c->times) + " * " : "") +
                 c->formula;
      int64_t each = 0;
      known &= c->bytes >= 0 &&
               !__builtin_mul_overflow(c->bytes, int64_t(c->times), &each) &&
               !__builtin_add_overflow(bytes, each, &bytes);
    }
    if (formula.empty())
      return std::string("0 bytes");
    std::string text = formula + " bytes";
    if (known && formula != std::to_string(bytes))
      text += " = " + std::to_string(bytes);
    return text;
  };
  std::vector<const Copy *> deviceCaller, hostCaller;
  for (const Copy &c : perRun) {
    if (!c.onlyFromDevice)
      hostCaller.push_back(&c);
    if (c.always)
      deviceCaller.push_back(&c);
  }
  // (At most: a condition block may be read fewer times than it may.)
  auto count = [](const std::vector<const Copy *> &copies) {
    size_t n = 0;
    bool bounded = false;
    for (const Copy *c : copies) {
      n += size_t(c->times);
      bounded |= c->times > 1;
    }
    return std::string(bounded ? "at most " : "") + std::to_string(n) +
           (n == 1 ? " copy" : " copies");
  };
  os << describeShardedRuns(plan, sizes);
  os << describeDeviceMemory(plan, sizes);
  os << "summary: with device inputs and outputs (where not pinned) "
     << count(deviceCaller) << " of " << total(deviceCaller)
     << " per run; with host ones " << count(hostCaller) << " of "
     << total(hostCaller) << "\n";
  return text;
}

std::string pipec::describeShardedRuns(
    const pipert::Plan &plan, const std::map<std::string, int64_t> &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "in a sharded run (docs/runtime.md, Several GPUs):\n";
  if (plan.batchDim.empty()) {
    os << "  cannot be split: " << plan.shardError << "\n";
    return text;
  }
  auto names = [&](bool batched, auto &&each) {
    std::string list;
    each([&](const pipert::PlanBuffer &buffer, const std::string &name) {
      if (pipert::hasBatchDim(plan, buffer) == batched)
        list += (list.empty() ? "" : ", ") + name;
    });
    return list.empty() ? std::string("none") : list;
  };
  auto params = [&](auto &&f) {
    for (int i = 0; i < plan.numParams; ++i)
      f(plan.buffers[i], plan.buffers[i].name);
  };
  auto results = [&](auto &&f) {
    for (size_t r = 0; r < plan.results.size(); ++r)
      f(plan.buffers[plan.results[r]], plan.resultNames[r]);
  };
  os << "  the batch dim " << plan.batchDim
     << " is split into one run of samples a shard\n"
     << "  split: parameters " << names(true, params) << "; results "
     << names(true, results) << "\n"
     << "  whole in every shard: parameters " << names(false, params)
     << "; results " << names(false, results) << "\n";
  for (const pipert::PlanCombine &combine : plan.combines) {
    const pipert::PlanBuffer &buffer = plan.buffers[size_t(combine.buffer)];
    std::string formula = bytesFormula(buffer);
    int64_t bytes = bytesFor(buffer, sizes);
    os << "  D2H then H2D " << formula << " bytes" << bytesValue(formula, bytes)
       << " a shard  " << pipert::getCombineKindName(combine.kind) << " over the batch "
       << typeOf(buffer)
       << (combine.location.empty() ? "" : "  at " + combine.location)
       << "\n      why: a reduction over the whole batch: each shard "
          "reduces its own samples, the host combines the partial values "
          "and writes the result back to every shard, so that all take the "
          "same branches as one unsplit run\n";
  }
  if (plan.combines.empty())
    os << "  no value crosses shards: each shard runs on its own samples\n";
  return text;
}

std::string
pipec::describeDeviceMemory(const pipert::Plan &plan,
                            const std::map<std::string, int64_t> &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Buffers a run allocates whatever the caller passes: values between
  // kernels (not parameters, results, constants, views or chosen values).
  std::set<int> results(plan.results.begin(), plan.results.end());
  std::vector<const pipert::PlanBuffer *> temporaries;
  std::vector<int> ids;
  for (size_t b = size_t(plan.numParams); b < plan.buffers.size(); ++b) {
    const pipert::PlanBuffer &buffer = plan.buffers[b];
    if (results.count(int(b)) || !buffer.constantData.empty() ||
        buffer.aliasOf >= 0 || buffer.choice >= 0)
      continue;
    temporaries.push_back(&buffer);
    ids.push_back(int(b));
  }
  // Scratch the families allocate: a blur's f32 copies between its passes.
  std::vector<std::pair<std::string, pipert::PlanBuffer>> scratch;
  for (const pipert::PlanKernel &kernel : plan.kernels)
    if (const KernelFamily *family = findKernelFamily(kernel.family))
      for (auto &[what, buffer] : family->describeScratch(kernel))
        scratch.push_back({kernel.name + " " + what, buffer});
  os << "device memory of a run (from the stream-ordered pool, freed when "
        "the run ends):\n";
  std::vector<std::string> formulas;
  int64_t total = 0;
  bool known = true;
  auto line = [&](const std::string &what, const pipert::PlanBuffer &buffer) {
    std::string formula = bytesFormula(buffer);
    int64_t bytes = bytesFor(buffer, sizes);
    os << "  " << what << " : " << typeOf(buffer) << " " << formula
       << " bytes";
    os << bytesValue(formula, bytes);
    os << "\n";
    formulas.push_back(formula);
    known &= bytes >= 0 && !__builtin_add_overflow(total, bytes, &total);
  };
  for (size_t t = 0; t < temporaries.size(); ++t)
    line("temporary %" + std::to_string(ids[t]), *temporaries[t]);
  for (auto &[what, buffer] : scratch)
    line(what, buffer);
  if (formulas.empty()) {
    os << "  none with device inputs and outputs\n";
    return text;
  }
  // The sum as one canonical dim expression where every formula parses.
  std::optional<pipert::DimExpr> sum = pipert::DimExpr::constant(0);
  for (const std::string &formula : formulas) {
    std::optional<pipert::DimExpr> term = pipert::DimExpr::parse(formula);
    sum = sum && term ? std::optional(*sum + *term) : std::nullopt;
  }
  os << "  peak with device inputs and outputs: ";
  if (sum) {
    os << sum->str();
  } else {
    for (size_t f = 0; f < formulas.size(); ++f)
      os << (f ? " + " : "") << formulas[f];
  }
  os << " bytes";
  if (known)
    os << " = " << total;
  os << " (and per-sample parameters and partial sums, a few bytes per "
        "sample or row); host inputs and outputs add a device copy each\n";
  return text;
}

namespace {

/// Writes Graphviz: one node per op, clusters per fused kernel.
class DotWriter {
public:
  explicit DotWriter(llvm::raw_ostream &os) : os(os) {}

  std::string node(Value value) {
    auto it = producer.find(value);
    return it == producer.end() ? std::string("unknown") : it->second;
  }

  static std::string escape(llvm::StringRef text) {
    std::string out;
    for (char c : text) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    return out;
  }

  /// A node for each op of `block` (inside a cluster), edges between them;
  /// block arguments map to `argNodes`.
  void emitBlock(Block &block, llvm::ArrayRef<std::string> argNodes,
                 const std::string &prefix) {
    for (auto [arg, name] : llvm::zip(block.getArguments(), argNodes))
      producer[arg] = name;
    for (Operation &op : block.without_terminator()) {
      std::string id = prefix + std::to_string(next++);
      std::string label =
          op.getName().stripDialect().str() + " " +
          getDTypeName(
              cast<RankedTensorType>(op.getResult(0).getType()).getElementType());
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        std::string value;
        llvm::raw_string_ostream vs(value);
        constant.getValue().print(vs);
        label = value;
      }
      os << "    " << id << " [label=\"" << escape(label)
         << "\", shape=box, style=\"rounded,filled\", fillcolor=\"#c8e6c9\"];\n";
      for (Value operand : op.getOperands())
        os << "    " << node(operand) << " -> " << id << ";\n";
      producer[op.getResult(0)] = id;
    }
  }

  /// A fused op's results are drawn as the nodes its `block` yields.
  void mapResults(ResultRange results, Block &block) {
    for (auto [result, value] :
         llvm::zip(results, block.getTerminator()->getOperands()))
      producer[result] = node(value);
  }

  llvm::raw_ostream &os;
  llvm::DenseMap<Value, std::string> producer;
  unsigned next = 0;
};

} // namespace

std::string pipec::emitDot(PipelineOp pipeline, const pipert::Plan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  DotWriter dot(os);
  Block &body = pipeline.getBody().front();
  os << "digraph \"" << plan.name << "\" {\n"
     << "  // Green: runs on the GPU. White: the caller's tensors (host or\n"
     << "  // device memory). Blue: host data uploaded at load. Yellow: a\n"
     << "  // choice the host makes, running one side only. Dashed red:\n"
     << "  // host/device copies (see pipec --report=transfers).\n"
     << "  rankdir=TB; compound=true; node [fontname=\"Helvetica\"];\n"
     << "  label=\"pipeline " << plan.name << "\"; labelloc=t;\n";
  for (BlockArgument arg : body.getArguments()) {
    std::string id = "param" + std::to_string(arg.getArgNumber());
    const pipert::PlanBuffer &buffer = plan.buffers[arg.getArgNumber()];
    os << "  " << id << " [label=\"" << buffer.name << "\\n" << typeOf(buffer)
       << "\", shape=ellipse];\n";
    // As --report=transfers says: @device is read in place, @host copied
    // every run, the rest only from the caller's host memory.
    if (buffer.memory != pipert::PlanMemory::Device)
      os << "  host_" << id << " [label=\"host\", shape=plaintext];\n  host_"
         << id << " -> " << id << " [style=dashed, color=red, label=\""
         << (buffer.memory == pipert::PlanMemory::Host ? "H2D every run (@host)"
                                                        : "H2D if host memory")
         << "\"];\n";
    dot.producer[arg] = id;
  }
  unsigned cluster = 0;
  auto openCluster = [&](const std::string &id, const char *what,
                         StringRef name) {
    os << "  subgraph cluster_" << id << " {\n    label=\"" << what << " "
       << name << " (GPU)\"; style=filled; fillcolor=\"#e8f5e9\";\n";
  };
  for (Operation &op : body.without_terminator()) {
    std::string id = "op" + std::to_string(cluster++);
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      openCluster(id, "kernel", kernel.getKernelName());
      std::vector<std::string> args;
      for (Value input : kernel.getInputs())
        args.push_back(dot.node(input));
      dot.emitBlock(kernel.getBody().front(), args, id + "_");
      os << "  }\n";
      dot.mapResults(kernel.getResults(), kernel.getBody().front());
      continue;
    }
    if (auto reduction = dyn_cast<ReduceKernelOp>(op)) {
      openCluster(id, "reduction", reduction.getKernelName());
      std::vector<std::string> args;
      for (Value input : reduction.getPrologueInputs())
        args.push_back(dot.node(input));
      dot.emitBlock(reduction.getPrologue().front(), args, id + "_p");
      std::string reduceId = id + "_reduce";
      std::string axes;
      llvm::raw_string_ostream as(axes);
      llvm::interleaveComma(reduction.getAxes(), as);
      os << "    " << reduceId << " [label=\""
         << stringifyReductionKind(reduction.getKind())
         << " axes [" << axes
         << "]\", shape=box, style=\"rounded,filled\", fillcolor=\"#81c784\"];\n"
         << "    " << dot.node(reduction.getReducedValue()) << " -> "
         << reduceId << ";\n";
      std::vector<std::string> epilogueArgs{reduceId};
      for (Value input : reduction.getEpilogueInputs())
        epilogueArgs.push_back(dot.node(input));
      dot.emitBlock(reduction.getEpilogue().front(), epilogueArgs, id + "_e");
      os << "  }\n";
      dot.mapResults(reduction.getResults(), reduction.getEpilogue().front());
      continue;
    }
    std::string label = op.getName().stripDialect().str();
    std::string color = "#c8e6c9";
    if (auto blur = dyn_cast<GaussianBlurOp>(op)) {
      std::string axes;
      llvm::raw_string_ostream as(axes);
      llvm::interleaveComma(blur.getAxes(), as);
      label = "gaussian_blur axes [" + axes + "] " + stringifyBorder(blur.getBorder()).str() +
              " (GPU)";
    } else if (isa<ChooseOp>(op)) {
      label = "choose (the host decides)";
      color = "#fff9c4";
    } else if (isa<ReshapeOp>(op)) {
      label = "reshape (a view)";
    } else if (isa<ConstantOp>(op)) {
      label = "constant (uploaded at load)";
      color = "#bbdefb";
    }
    os << "  " << id << " [label=\"" << DotWriter::escape(label)
       << "\", shape=box, style=filled, fillcolor=\"" << color << "\"];\n";
    for (Value operand : op.getOperands())
      os << "  " << dot.node(operand) << " -> " << id << ";\n";
    if (isa<ConstantOp>(op))
      os << "  host_" << id << " [label=\"host\", shape=plaintext];\n  host_"
         << id << " -> " << id
         << " [style=dashed, color=red, label=\"H2D at load\"];\n";
    if (isa<GaussianBlurOp>(op))
      os << "  status_" << id << " [label=\"host\", shape=plaintext];\n  "
         << id << " -> status_" << id
         << " [style=dotted, color=red, label=\"24 B verdict, only on a bad "
            "sample\"];\n";
    if (auto choose = dyn_cast<ChooseOp>(op))
      os << "  cond_" << id << " [label=\"host\", shape=plaintext];\n  "
         << dot.node(choose.getCondition()) << " -> cond_" << id
         << " [style=dashed, color=red, label=\"D2H condition (packed)\"];\n";
    for (Value result : op.getResults())
      dot.producer[result] = id;
  }
  auto ret = cast<ReturnOp>(body.getTerminator());
  for (auto [r, value] : llvm::enumerate(ret.getOperands())) {
    const pipert::PlanBuffer &buffer = plan.buffers[plan.results[r]];
    std::string id = "result" + std::to_string(r);
    pipert::PlanMemory memory = r < plan.resultMemory.size()
                                    ? plan.resultMemory[r]
                                    : pipert::PlanMemory::Any;
    os << "  " << id << " [label=\"" << plan.resultNames[r] << "\\n"
       << typeOf(buffer) << "\", shape=ellipse];\n"
       << "  " << dot.node(value) << " -> " << id << ";\n";
    if (memory != pipert::PlanMemory::Device)
      os << "  host_" << id << " [label=\"host\", shape=plaintext];\n  " << id
         << " -> host_" << id << " [style=dashed, color=red, label=\""
         << (memory == pipert::PlanMemory::Host
                 ? "D2H every run (@host or .cpu())"
                 : "D2H if host memory")
         << "\"];\n";
  }
  os << "}\n";
  return text;
}
