//===- CudaEmitter.cpp - pipe.kernel ops to CUDA C++ ----------------------===//
//
// A kernel is a grid-stride loop over its domain. Each thread loads the
// inputs' elements, evaluates the body's ops in order (each op supplies its
// own scalar expression through ElementwiseOpInterface), and stores the
// results. Values of rank 0 are the same for every element, so they are
// loaded or computed once per thread, before the loop.
//
//===----------------------------------------------------------------------===//

#include "codegen/CudaEmitter.h"

#include "codegen/PipeScalarEmbedded.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pipe;

const char *pipec::getCudaPrelude() { return kPipeScalarSource; }

static std::string getCppType(Type tensorType) {
  Type type = cast<RankedTensorType>(tensorType).getElementType();
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  auto intType = cast<IntegerType>(type);
  return (intType.isUnsigned() ? "pipe_u" : "pipe_i") +
         std::to_string(intType.getWidth());
}

static bool isScalar(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank() == 0;
}

FailureOr<std::string> pipec::emitCudaKernel(KernelOp kernel,
                                             bool withPrelude) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (withPrelude)
    os << getCudaPrelude() << "\n";
  Block &body = kernel.getBody().front();
  std::string name = kernel.getKernelName().str();

  os << "// " << name << ": " << kernel.getInputs().size() << " inputs, "
     << kernel.getNumResults() << " outputs over "
     << kernel.getDomainType() << "\n";
  os << "extern \"C\" __global__ void __launch_bounds__(256)\n" << name << "(";
  llvm::SmallVector<std::string> params;
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    params.push_back("const " + getCppType(arg.getType()) +
                     " *__restrict__ in" + std::to_string(i));
  for (auto [i, result] : llvm::enumerate(kernel.getResults()))
    params.push_back(getCppType(result.getType()) + " *__restrict__ out" +
                     std::to_string(i));
  params.push_back("long long n");
  llvm::interleave(params, os, ",\n    ");
  os << ") {\n";

  llvm::DenseMap<Value, std::string> names;
  std::string hoisted, loop;
  llvm::raw_string_ostream hoistedOs(hoisted), loopOs(loop);
  unsigned nextValue = 0;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    std::string var = "v" + std::to_string(nextValue++);
    names[arg] = var;
    llvm::raw_string_ostream &target = isScalar(arg) ? hoistedOs : loopOs;
    target << "    const " << getCppType(arg.getType()) << " " << var << " = in"
           << i << (isScalar(arg) ? "[0]" : "[i]") << ";\n";
  }
  for (Operation &op : body.without_terminator()) {
    auto elementwise = dyn_cast<ElementwiseOpInterface>(op);
    if (!elementwise)
      return op.emitOpError() << "has no CUDA lowering";
    llvm::SmallVector<std::string> operands;
    for (Value operand : op.getOperands())
      operands.push_back(names.lookup(operand));
    Value result = op.getResult(0);
    std::string var = "v" + std::to_string(nextValue++);
    names[result] = var;
    llvm::raw_string_ostream &target = isScalar(result) ? hoistedOs : loopOs;
    target << "    const " << getCppType(result.getType()) << " " << var
           << " = " << elementwise.getScalarExpression(operands) << ";\n";
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [i, value] : llvm::enumerate(yield.getValues()))
    loopOs << "    out" << i << "[i] = " << names.lookup(value) << ";\n";

  // Hoisted lines are indented for the loop body; shift them out one level.
  llvm::StringRef rest(hoisted);
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    os << line.drop_front(2) << "\n";
    rest = tail;
  }
  os << "  for (long long i = (long long)blockIdx.x * blockDim.x + "
        "threadIdx.x; i < n;\n"
        "       i += (long long)gridDim.x * blockDim.x) {\n"
     << loop << "  }\n}\n";
  return text;
}
