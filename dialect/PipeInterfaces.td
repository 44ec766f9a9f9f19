//===- PipeInterfaces.td - Interfaces of the pipe dialect -*- tablegen -*-===//
//
// Passes and backends ask ops these questions instead of matching op names,
// so that a new op is one ODS definition plus its answers here.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_INTERFACES_TD
#define PIPE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Pipe_ElementwiseOpInterface : OpInterface<"ElementwiseOpInterface"> {
  let cppNamespace = "::mlir::pipe";
  let description = [{
    An op computed independently for each element: result[i] depends only on
    operand[i] (or operand[] for rank-0 operands). Fusion puts such ops into
    one kernel; codegen asks each op for the C++ expression of one element.
  }];
  let methods = [
    InterfaceMethod<[{
      The C++ expression (valid in CUDA C++ and in host C++ against
      core/PipeScalar.h) that computes one element of the result from the
      expressions of the operands' elements.
    }], "std::string", "getScalarExpression",
      (ins "::llvm::ArrayRef<std::string>":$operands)>,
  ];
}

#endif // PIPE_INTERFACES_TD
