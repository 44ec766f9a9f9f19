//===- PlanBuilder.cpp - Fused pipe IR to a runtime plan ------------------===//

#include "codegen/PlanBuilder.h"

#include "codegen/CudaEmitter.h"
#include "core/StorageTypes.h"
#include "runtime/Nvrtc.h"

#include "llvm/ADT/DenseMap.h"

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

/// Bytes of one partial result of a reduction (its RD::acc in
/// core/PipeReduce.h).
static int getAccumulatorBytes(ReductionKind kind, Type element) {
  if (kind == ReductionKind::any || kind == ReductionKind::all)
    return 4;
  if (kind == ReductionKind::min || kind == ReductionKind::max)
    return int(getElementBytes(element));
  return 8;
}

/// The host steps of a kernel whose values are all scalars (see
/// PlanKernel::hostSteps), or nothing when it has an op without a host form.
static void addHostSteps(KernelOp kernel, pipert::PlanKernel &planKernel) {
  auto isScalar = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getRank() == 0;
  };
  if (!llvm::all_of(kernel.getInputs(), isScalar) ||
      !llvm::all_of(kernel.getResults(), isScalar))
    return;
  Block &body = kernel.getBody().front();
  llvm::DenseMap<Value, int> registerOf;
  for (BlockArgument arg : body.getArguments())
    registerOf[arg] = arg.getArgNumber();
  int next = body.getNumArguments();
  std::vector<pipert::PlanScalarStep> steps;
  auto dtypeOf = [](Value value) {
    return pipec::getRuntimeDType(
        cast<RankedTensorType>(value.getType()).getElementType());
  };
  for (Operation &op : body.without_terminator()) {
    pipert::PlanScalarStep step;
    step.resultDType = dtypeOf(op.getResult(0));
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        dense = DenseElementsAttr::get(constant.getType(),
                                       ArrayRef<Attribute>{constant.getValue()});
      step.op = "constant";
      step.dtype = step.resultDType;
      step.constant = pipec::getConstantBytes(dense);
    } else if (isa<ElementwiseOpInterface>(op) && op.getNumOperands() > 0) {
      step.op = op.getName().stripDialect().str();
      // A select's dtype is its values'; every other op's, its operands'.
      step.dtype = dtypeOf(op.getOperand(isa<SelectOp>(op) ? 1 : 0));
      for (Value operand : op.getOperands()) {
        auto it = registerOf.find(operand);
        if (it == registerOf.end())
          return;
        step.args.push_back(it->second);
      }
    } else {
      return;
    }
    registerOf[op.getResult(0)] = next++;
    steps.push_back(std::move(step));
  }
  for (Value result : body.getTerminator()->getOperands())
    planKernel.hostResults.push_back(registerOf.at(result));
  planKernel.hostSteps = std::move(steps);
}

FailureOr<pipert::Plan> pipec::buildPlan(PipelineOp pipeline) {
  pipert::Plan plan;
  plan.name = pipeline.getSymName().str();
  llvm::DenseMap<Value, int> bufferOf;
  unsigned numBlurs = 0;
  // A buffer for each of `results`, the outputs of `kernel`, which then
  // joins the plan.
  auto addOutputs = [&](pipert::PlanKernel &kernel, ResultRange results) {
    for (Value result : results) {
      bufferOf[result] = plan.buffers.size();
      kernel.outputs.push_back(plan.buffers.size());
      plan.buffers.push_back(
          getPlanBuffer(cast<RankedTensorType>(result.getType()), ""));
    }
    plan.kernels.push_back(std::move(kernel));
  };
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
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      KernelInfo info;
      FailureOr<std::string> source = pipec::emitCudaKernel(kernel, info);
      if (failed(source))
        return failure();
      pipert::PlanKernel planKernel;
      planKernel.entry = info.entry;
      planKernel.fallbackEntry = info.fallbackEntry;
      planKernel.rowEntry = info.rowEntry;
      planKernel.tileEntry = info.tileEntry;
      planKernel.tileDim = info.tileDim;
      planKernel.vectorEntry = info.vectorEntry;
      planKernel.vectorWidth = info.vectorWidth;
      planKernel.elementsPerThread = info.elementsPerThread;
      planKernel.dimArgs = info.dimArgs;
      planKernel.indexing = info.coordinates
                                ? pipert::PlanKernel::Indexing::Coordinates
                                : pipert::PlanKernel::Indexing::Flat;
      planKernel.source = std::move(*source);
      for (Value input : kernel.getInputs())
        planKernel.inputs.push_back(bufferOf.at(input));
      addHostSteps(kernel, planKernel);
      addOutputs(planKernel, kernel.getResults());
      continue;
    }
    if (auto reduction = dyn_cast<ReduceKernelOp>(op)) {
      KernelInfo info;
      FailureOr<std::string> source = pipec::emitCudaReduction(reduction, info);
      if (failed(source))
        return failure();
      pipert::PlanKernel planKernel;
      planKernel.kind = pipert::PlanKernel::Kind::Reduction;
      planKernel.entries = info.entries;
      planKernel.entry = info.entries.front();
      planKernel.dimArgs = info.dimArgs;
      planKernel.domain = getPlanBuffer(reduction.getInputDomainType(), "").dims;
      planKernel.axes.assign(reduction.getAxes().begin(),
                             reduction.getAxes().end());
      planKernel.numPrologueInputs = reduction.getPrologueInputs().size();
      planKernel.accBytes = getAccumulatorBytes(
          reduction.getKind(), reduction.getInputDomainType().getElementType());
      planKernel.location = mlir::pipe::describeLocation(reduction.getLoc());
      planKernel.source = std::move(*source);
      for (Value input : reduction.getPrologueInputs())
        planKernel.inputs.push_back(bufferOf.at(input));
      for (Value input : reduction.getEpilogueInputs())
        planKernel.inputs.push_back(bufferOf.at(input));
      addOutputs(planKernel, reduction.getResults());
      continue;
    }
    if (auto blur = dyn_cast<GaussianBlurOp>(op)) {
      KernelInfo info;
      std::string name = (pipeline.getSymName() + "_b" +
                          std::to_string(numBlurs++)).str();
      FailureOr<std::string> source = pipec::emitCudaBlur(blur, name, info);
      if (failed(source))
        return failure();
      pipert::PlanKernel planKernel;
      planKernel.kind = pipert::PlanKernel::Kind::Blur;
      planKernel.entries = info.entries;
      planKernel.entry = info.entries.front();
      auto inputType = cast<RankedTensorType>(blur.getInput().getType());
      planKernel.domain = getPlanBuffer(inputType, "").dims;
      planKernel.axes.assign(blur.getAxes().begin(), blur.getAxes().end());
      planKernel.location = mlir::pipe::describeLocation(blur.getLoc());
      planKernel.source = std::move(*source);
      planKernel.inputs.push_back(bufferOf.at(blur.getInput()));
      for (Value param : {blur.getWindow(), blur.getSigma()}) {
        if (!param)
          continue;
        planKernel.inputs.push_back(bufferOf.at(param));
        planKernel.sampleRank =
            std::max<int>(planKernel.sampleRank,
                          cast<RankedTensorType>(param.getType()).getRank());
      }
      planKernel.hasWindow = bool(blur.getWindow());
      planKernel.hasSigma = bool(blur.getSigma());
      addOutputs(planKernel, blur->getResults());
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
           << "cannot run on the GPU: only ops fused into 'pipe.kernel' can "
              "(run the pipe-fuse-elementwise pass first)";
  }
  return plan;
}

pipert::Status pipec::addKernelImages(pipert::Plan &plan, int arch) {
  for (pipert::PlanKernel &kernel : plan.kernels) {
    auto cubin = pipert::compileCuda(kernel.source, kernel.entry, arch,
                                     /*ptx=*/false, plan.fastMath);
    if (!cubin)
      return cubin.status();
    auto ptx = pipert::compileCuda(kernel.source, kernel.entry, arch,
                                   /*ptx=*/true, plan.fastMath);
    if (!ptx)
      return ptx.status();
    kernel.cubinArch = arch;
    kernel.cubin = std::move(cubin->image);
    kernel.ptx = std::move(ptx->image);
  }
  return pipert::Status();
}
