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

def Pipe_IndexMapOpInterface : OpInterface<"IndexMapOpInterface"> {
  let cppNamespace = "::mlir::pipe";
  let description = [{
    A layout op: each element of the result is one element of its source,
    at coordinates that `mapIndex` computes from the result's (a broadcast,
    a transpose, a slice, a crop, a flip, a pad with a border rule). The map
    is total: every result coordinate maps inside the source. Its other
    operands are parameters (a crop's per-sample anchors, a flip's flags),
    read where `mapIndex` says (IndexExpr::read).

    Fusion treats every index map alike: one whose source is a kernel input
    becomes index arithmetic on that input's loads, and chains of them
    compose (codegen/IndexCodegen.h), so a crop, a flip and a transpose in
    front of a normalize read only the bytes the output needs.
  }];
  let methods = [
    InterfaceMethod<[{
      The tensor whose elements the result takes.
    }], "::mlir::Value", "getSource">,
    InterfaceMethod<[{
      For result coordinates `result` (one per result dim), the source's
      coordinates (one per source dim), each inside the source.
    }], "::mlir::pipe::IndexCoordinates", "mapIndex",
      (ins "::llvm::ArrayRef<::mlir::pipe::IndexExpr>":$result)>,
    InterfaceMethod<[{
      Whether every result element is a source element. A crop that pads
      out-of-bounds positions with a fill value, or a constant-border pad,
      is not, until `pipe-expand-layout` splits it into a total map and a
      select of the fill: canonicalization, fusion and codegen take only
      total maps.
    }], "bool", "isTotal", (ins), "", [{ return true; }]>,
  ];
}

#endif // PIPE_INTERFACES_TD
