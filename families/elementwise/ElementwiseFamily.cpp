//===- ElementwiseFamily.cpp - Elementwise kernels in a plan --------------===//
//
// The compiler half of the elementwise family: a `pipe.kernel` becomes a
// plan kernel with its variants' entries (ElementwiseEmitter.cpp) and, when
// it computes only scalars, the same computation as host steps.
//
//===----------------------------------------------------------------------===//

#include "families/elementwise/ElementwiseEmitter.h"
#include "families/elementwise/ElementwiseParams.h"

#include "codegen/KernelFamily.h"
#include "codegen/PlanBuilder.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// The host steps of a kernel whose values are all scalars (see
/// PlanKernel::hostSteps), or nothing when it has an op without a host form.
void addHostSteps(KernelOp kernel, pipert::PlanKernel &planKernel) {
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
    } else if (auto dim = dyn_cast<DimOp>(op)) {
      // A dim's size, which the host binds before anything runs.
      step.op = "dim";
      step.dtype = step.resultDType;
      step.constant = dim.getDim().str();
    } else if (isa<RandomOp>(op)) {
      return; // drawn on the GPU, which has the run's seed and number
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

class ElementwiseFamily : public pipec::KernelFamily {
public:
  StringRef getName() const override { return "elementwise"; }
  bool canBeGuarded() const override { return true; }
  bool matches(Operation *op) const override { return isa<KernelOp>(op); }
  std::string getKernelName(Operation *op, StringRef, unsigned) const override {
    return cast<KernelOp>(op).getKernelName().str();
  }

  FailureOr<pipert::PlanKernel>
  build(Operation *op, const std::string &name,
        const pipec::KernelOptions &options) const override {
    bool withPrelude = options.withPrelude;
    auto kernel = cast<KernelOp>(op);
    pipec::ElementwiseInfo info;
    info.guarded = options.guarded;
    FailureOr<std::string> source = pipec::emitElementwiseKernel(kernel, info);
    if (failed(source))
      return failure();
    pipert::PlanKernel planKernel;
    planKernel.name = name;
    planKernel.entries.resize(pipert::kNumElementwiseEntries);
    planKernel.entries[pipert::kElementwiseMain] = info.entry;
    planKernel.entries[pipert::kElementwiseFallback] = info.fallbackEntry;
    planKernel.entries[pipert::kElementwiseVector] = info.vectorEntry;
    planKernel.entries[pipert::kElementwiseRows] = info.rowEntry;
    planKernel.entries[pipert::kElementwiseTiles] = info.tileEntry;
    planKernel.entries[pipert::kElementwiseSpan] = info.spanEntry;
    planKernel.entries[pipert::kElementwiseSpanStaged] = info.spanStagedEntry;
    pipert::ElementwiseParams params;
    params.coordinates = info.coordinates;
    params.vectorWidth = info.vectorWidth;
    params.vectorPlanes = info.vectorPlanes;
    params.spanWidth = info.spanWidth;
    params.elementsPerThread = info.elementsPerThread;
    params.tileDim = info.tileDim;
    planKernel.params = params.encode();
    planKernel.dimArgs = info.dimArgs;
    planKernel.domain = pipec::getPlanBuffer(kernel.getDomainType(), "").dims;
    planKernel.location = describeLocation(kernel.getLoc());
    planKernel.source =
        (withPrelude ? pipec::getCudaPrelude() + "\n" : std::string()) +
        *source;
    addHostSteps(kernel, planKernel);
    return planKernel;
  }

  std::string describe(const pipert::PlanKernel &kernel) const override {
    return "kernel " + kernel.name;
  }
};

} // namespace

namespace pipec {
const KernelFamily &getElementwiseFamily() {
  static const ElementwiseFamily family;
  return family;
}
} // namespace pipec
