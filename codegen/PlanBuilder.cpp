//===- PlanBuilder.cpp - Fused pipe IR to a runtime plan ------------------===//

#include "codegen/PlanBuilder.h"

#include "dialect/DimChecks.h"

#include "codegen/KernelFamily.h"
#include "core/StorageTypes.h"
#include "runtime/Nvrtc.h"

#include "llvm/ADT/DenseMap.h"

#include <set>

using namespace mlir;
using namespace mlir::pipe;

std::string pipec::getReductionKindName(ReductionKind kind) {
  return "PIPE_" + stringifyReductionKind(kind).upper();
}

pipert::DType pipec::getRuntimeDType(Type type) {
  return mlir::pipe::getRuntimeDType(type);
}

pipert::PlanBuffer pipec::getPlanBuffer(RankedTensorType type,
                                        llvm::StringRef name) {
  pipert::PlanBuffer buffer;
  buffer.name = name.str();
  buffer.dtype = getRuntimeDType(type.getElementType());
  auto names = dyn_cast_or_null<ArrayAttr>(type.getEncoding());
  unsigned nextName = 0;
  for (int64_t size : type.getShape()) {
    pipert::PlanDim dim;
    if (ShapedType::isDynamic(size))
      dim.symbol = cast<StringAttr>(names[nextName++]).str();
    else
      dim.size = size;
    buffer.dims.push_back(dim);
  }
  return buffer;
}

std::string pipec::getConstantBytes(DenseElementsAttr value) {
  std::string bytes;
  Type elementType = value.getElementType();
  pipert::visitStorageType(getRuntimeDType(elementType), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> elements;
    if (isa<FloatType>(elementType)) {
      for (const APFloat &v : value.getValues<APFloat>())
        elements.push_back(pipe_cast<T>(v.convertToDouble()));
    } else if (elementType.isInteger(1)) {
      for (const APInt &v : value.getValues<APInt>())
        elements.push_back(pipe_cast<T>(pipe_make_bool(!v.isZero())));
    } else if (cast<IntegerType>(elementType).isUnsigned()) {
      for (const APInt &v : value.getValues<APInt>())
        elements.push_back(pipe_cast<T>(pipe_u64(v.getZExtValue())));
    } else {
      for (const APInt &v : value.getValues<APInt>())
        elements.push_back(pipe_cast<T>(pipe_i64(v.getSExtValue())));
    }
    bytes.assign(reinterpret_cast<const char *>(elements.data()),
                 elements.size() * sizeof(T));
  });
  return bytes;
}

std::vector<pipert::PlanDimCheck>
pipec::collectDimChecks(PipelineOp pipeline) {
  std::vector<pipert::PlanDimCheck> checks;
  std::set<std::string> seen;
  pipeline.walk([&](Operation *op) {
    // A size used as a value (an anchor of W * 4611686018427387904) must be
    // a 64-bit integer for the run's dims, as a dim must (docs/language.md,
    // Dim expressions): checked as max(size, 0) >= 0, which only its
    // evaluation can fail. The reference stopped with an internal error
    // there; the GPU wrapped.
    if (auto dim = dyn_cast<DimOp>(op)) {
      std::optional<pipert::DimExpr> size =
          pipert::DimExpr::parse(dim.getDim().str());
      if (!size || size->isConstant() || size->isSymbol())
        return;
      std::string location = describeLocation(op->getLoc());
      std::string expression =
          pipert::DimExpr::max(*size, pipert::DimExpr::constant(0)).str();
      std::string message = "the size " + size->str() +
                            (location.empty() ? "" : " at " + location);
      if (seen.insert(expression + "\n" + message).second)
        checks.push_back({expression, message});
      return;
    }
    auto attr = op->getAttrOfType<ArrayAttr>("dim_checks");
    if (!attr)
      return;
    std::string location = describeLocation(op->getLoc());
    // An op that replaced another checks in the other's name.
    std::string what = getDimCheckOpName(op);
    std::string where = (what == "slice" ? "the slice" : "'" + what + "'") +
                        (location.empty() ? std::string() : " at " + location);
    std::string general =
        where + (what == "slice" ? " reaches outside the dim it slices"
                                 : " would need a negative width");
    for (auto [i, check] : llvm::enumerate(attr)) {
      std::string expression = cast<StringAttr>(check).str();
      std::string reason = getDimCheckReason(op, i);
      std::string message = reason.empty() ? general : where + ": " + reason;
      // An op cloned into several kernels checks once.
      if (seen.insert(expression + "\n" + message).second)
        checks.push_back({expression, message});
    }
  });
  return checks;
}

static_assert(int(ReductionKind::sum) == int(pipert::PlanCombineKind::Sum) &&
                  int(ReductionKind::mean) == int(pipert::PlanCombineKind::Mean) &&
                  int(ReductionKind::prod) == int(pipert::PlanCombineKind::Prod) &&
                  int(ReductionKind::min) == int(pipert::PlanCombineKind::Min) &&
                  int(ReductionKind::max) == int(pipert::PlanCombineKind::Max) &&
                  int(ReductionKind::any) == int(pipert::PlanCombineKind::Any) &&
                  int(ReductionKind::all) == int(pipert::PlanCombineKind::All),
              "PlanCombineKind follows ReductionKind");

FailureOr<pipert::Plan> pipec::buildPlan(PipelineOp pipeline,
                                         bool withPrelude) {
  pipert::Plan plan;
  plan.name = pipeline.getSymName().str();
  plan.dimChecks = collectDimChecks(pipeline);
  if (auto batch = pipeline->getAttrOfType<StringAttr>("pipe.batch_dim"))
    plan.batchDim = batch.str();
  else if (auto why = pipeline->getAttrOfType<StringAttr>("pipe.unshardable"))
    plan.shardError = why.str();
  else
    plan.shardError = "the pipeline was compiled without pipe-shard-batch";
  llvm::DenseMap<Value, int> bufferOf;
  // How many kernels of each family came before (for their names).
  llvm::DenseMap<const KernelFamily *, unsigned> counts;
  // Whether a kernel that can find bad input on the GPU (a check, a blur of
  // per-sample windows) came before: then the kernels that can be are
  // guarded (KernelOptions::guarded), so that none reads what it left
  // unwritten.
  bool afterGuard = false;
  Block &body = pipeline.getBody().front();
  auto memoryOf = [](std::optional<MemorySpace> memory) {
    if (!memory)
      return pipert::PlanMemory::Any;
    return *memory == MemorySpace::host ? pipert::PlanMemory::Host
                                        : pipert::PlanMemory::Device;
  };
  for (BlockArgument arg : body.getArguments()) {
    bufferOf[arg] = plan.buffers.size();
    plan.buffers.push_back(
        getPlanBuffer(cast<RankedTensorType>(arg.getType()),
                      pipeline.getArgName(arg.getArgNumber())));
    plan.buffers.back().memory =
        memoryOf(pipeline.getArgMemory(arg.getArgNumber()));
  }
  plan.numParams = body.getNumArguments();

  for (Operation &op : body) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      // A list, or a scalar that a non-elementwise op reads (a blur's
      // window): a buffer uploaded once.
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        dense = DenseElementsAttr::get(
            constant.getType(), ArrayRef<Attribute>{constant.getValue()});
      bufferOf[constant.getResult()] = plan.buffers.size();
      pipert::PlanBuffer buffer = getPlanBuffer(constant.getType(), "");
      buffer.constantData = getConstantBytes(dense);
      plan.buffers.push_back(std::move(buffer));
      continue;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      // A view of the operand's buffer (of a view's own buffer).
      int source = bufferOf.at(reshape.getInput());
      while (plan.buffers[source].aliasOf >= 0)
        source = plan.buffers[source].aliasOf;
      bufferOf[reshape.getResult()] = plan.buffers.size();
      pipert::PlanBuffer buffer =
          getPlanBuffer(cast<RankedTensorType>(reshape.getType()), "");
      buffer.aliasOf = source;
      plan.buffers.push_back(std::move(buffer));
      continue;
    }
    if (const KernelFamily *family = findKernelFamily(&op)) {
      std::string name = family->getKernelName(&op, plan.name, counts[family]++);
      KernelOptions options;
      options.withPrelude = withPrelude;
      options.guarded = afterGuard && family->canBeGuarded();
      options.raisesGuard = family->raisesGuard(&op);
      FailureOr<pipert::PlanKernel> kernel = family->build(&op, name, options);
      if (failed(kernel))
        return failure();
      kernel->family = family->getName().str();
      kernel->guarded = options.guarded;
      kernel->raisesGuard = options.raisesGuard;
      for (Value input : op.getOperands())
        kernel->inputs.push_back(bufferOf.at(input));
      for (Value result : op.getResults()) {
        bufferOf[result] = plan.buffers.size();
        kernel->outputs.push_back(plan.buffers.size());
        plan.buffers.push_back(
            getPlanBuffer(cast<RankedTensorType>(result.getType()), ""));
        // An output that is an input's memory (a check passes it on).
        if (int aliased = family->getAliasedInput(); aliased >= 0) {
          int source = kernel->inputs[aliased];
          while (plan.buffers[source].aliasOf >= 0)
            source = plan.buffers[source].aliasOf;
          plan.buffers.back().aliasOf = source;
        }
      }
      afterGuard |= options.raisesGuard;
      // A reduction over the batch (no epilogue: its one result is the
      // reduced value), combined across the shards of a sharded run.
      if (auto reduce = dyn_cast<ReduceKernelOp>(op);
          reduce && reduce->hasAttr("pipe.combine_shards"))
        plan.combines.push_back(
            {kernel->outputs[0], pipert::PlanCombineKind(reduce.getKind()),
             describeLocation(reduce.getLoc())});
      plan.kernels.push_back(std::move(*kernel));
      continue;
    }
    if (auto choose = dyn_cast<ChooseOp>(op)) {
      pipert::PlanChoice choice;
      choice.condition = bufferOf.at(choose.getCondition());
      choice.ifTrue = bufferOf.at(choose.getTrueValue());
      choice.ifFalse = bufferOf.at(choose.getFalseValue());
      choice.result = plan.buffers.size();
      choice.location = mlir::pipe::describeLocation(choose.getLoc());
      bufferOf[choose.getResult()] = plan.buffers.size();
      plan.buffers.push_back(
          getPlanBuffer(cast<RankedTensorType>(choose.getType()), ""));
      plan.buffers.back().choice = plan.choices.size();
      plan.choices.push_back(std::move(choice));
      continue;
    }
    if (auto ret = dyn_cast<ReturnOp>(op)) {
      for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
        int buffer = bufferOf.at(operand);
        std::string name = pipeline.getResultName(i).str();
        plan.results.push_back(buffer);
        plan.resultNames.push_back(name);
        plan.resultMemory.push_back(memoryOf(pipeline.getResultMemory(i)));
        if (plan.buffers[buffer].name.empty())
          plan.buffers[buffer].name = name;
      }
      continue;
    }
    return op.emitOpError()
           << "cannot run on the GPU: no kernel family compiles it (only ops "
              "fused into 'pipe.kernel' and the like; run the default pass "
              "pipeline first)";
  }
  return plan;
}

pipert::Status pipec::addKernelImages(pipert::Plan &plan, int arch) {
  for (pipert::PlanKernel &kernel : plan.kernels) {
    auto cubin = pipert::compileCuda(kernel.source, kernel.name, arch,
                                     /*ptx=*/false, plan.fastMath);
    if (!cubin)
      return cubin.status();
    auto ptx = pipert::compileCuda(kernel.source, kernel.name, arch,
                                   /*ptx=*/true, plan.fastMath);
    if (!ptx)
      return ptx.status();
    kernel.cubinArch = arch;
    kernel.cubin = std::move(cubin->image);
    kernel.ptx = std::move(ptx->image);
  }
  return pipert::Status();
}
