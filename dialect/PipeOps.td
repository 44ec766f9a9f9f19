//===- PipeOps.td - Operations of the pipe dialect --------*- tablegen -*-===//
//
// Tensor-level ops (no placement, no copies), the fused `pipe.kernel` op that
// the fusion pass forms, and the pipeline that holds them.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_OPS_TD
#define PIPE_OPS_TD

include "dialect/PipeDialect.td"
include "dialect/PipeInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

def Pipe_PipelineOp : Pipe_Op<"pipeline", [
    FunctionOpInterface, IsolatedFromAbove, OpAsmOpInterface]> {
  let summary = "A pipeline: named tensor parameters to named tensor results";
  let description = [{
    The unit that `pipec` compiles and the runtime runs. Each argument and
    result carries its source name in a `pipe.name` attribute; the runtime
    binds and checks arguments by these names and their symbolic dims.

    ```mlir
    pipe.pipeline @scale(%images: tensor<?x?xui8, ["N", "H"]> {pipe.name = "images"})
        -> (tensor<?x?xf32, ["N", "H"]> {pipe.name = "out"}) {
      ...
      pipe.return %0 : tensor<?x?xf32, ["N", "H"]>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let builders = [OpBuilder<(ins "StringRef":$name, "FunctionType":$type,
      "ArrayRef<StringRef>":$argNames, "ArrayRef<StringRef>":$resultNames)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ArrayRef<Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ArrayRef<Type> getResultTypes() { return getFunctionType().getResults(); }
    /// The source name of argument `i` (its `pipe.name`).
    StringRef getArgName(unsigned i);
    /// The source name of result `i` (its `pipe.name`).
    StringRef getResultName(unsigned i);
    static StringRef getNameAttrName() { return "pipe.name"; }
    // OpAsmOpInterface: print arguments under their source names.
    void getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setNameFn);
    static StringRef getDefaultDialect() { return "pipe"; }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Pipe_ReturnOp : Pipe_Op<"return", [Pure, HasParent<"PipelineOp">,
                                        Terminator]> {
  let summary = "Returns the results of a pipeline";
  let arguments = (ins Variadic<Pipe_Tensor>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

def Pipe_ConstantOp : Pipe_Op<"constant", [Pure, ConstantLike,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Pipe_ElementwiseOpInterface>]> {
  let summary = "A scalar constant (a rank-0 tensor)";
  let description = [{
    ```mlir
    %c = pipe.constant 1.500000e+00 : f32   // : tensor<f32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

class Pipe_BinaryOp<string mnemonic, string summaryText> : Pipe_Op<mnemonic, [
    Pure,
    DeclareOpInterfaceMethods<Pipe_ElementwiseOpInterface>]> {
  let summary = summaryText;
  let description = [{
    Both operands have the result's dtype. Each operand has the result's shape
    or is rank 0 (a scalar, broadcast). Integer arithmetic wraps around;
    see docs/language.md for the exact semantics.
  }];
  let arguments = (ins Pipe_Tensor:$lhs, Pipe_Tensor:$rhs);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Pipe_AddOp : Pipe_BinaryOp<"add", "Elementwise addition">;
def Pipe_SubOp : Pipe_BinaryOp<"sub", "Elementwise subtraction">;
def Pipe_MulOp : Pipe_BinaryOp<"mul", "Elementwise multiplication">;
def Pipe_DivOp : Pipe_BinaryOp<"div", "Elementwise floating-point division">;

def Pipe_CastOp : Pipe_Op<"cast", [Pure,
    DeclareOpInterfaceMethods<Pipe_ElementwiseOpInterface>]> {
  let summary = "Converts each element to another dtype";
  let description = [{
    A cast to an integer dtype rounds half to even (from floats) and saturates
    to the target's range; NaN becomes 0. A cast to a float rounds to nearest.

    ```mlir
    %1 = pipe.cast %0 : tensor<?xf32, ["N"]> to tensor<?xui8, ["N"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Fused kernels
//===----------------------------------------------------------------------===//

def Pipe_KernelOp : Pipe_Op<"kernel", [IsolatedFromAbove,
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "A group of elementwise ops that runs as one GPU kernel";
  let description = [{
    Formed by `pipe-fuse-elementwise`. The body computes, for each element of
    the kernel's domain (the shape of its results, which all agree), the
    results from the inputs; an input of rank 0 is the same for every element.
    Values cross the kernel's boundary only through its inputs and results, so
    the body is what codegen turns into one CUDA kernel.

    ```mlir
    %r = pipe.kernel "scale_k0" (%x : tensor<?xui8, ["N"]>) -> tensor<?xf32, ["N"]> {
    ^bb0(%a: tensor<?xui8, ["N"]>):
      %0 = pipe.cast %a : tensor<?xui8, ["N"]> to tensor<?xf32, ["N"]>
      pipe.yield %0 : tensor<?xf32, ["N"]>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kernel_name, Variadic<Pipe_Tensor>:$inputs);
  let results = (outs Variadic<Pipe_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kernel_name (`(` $inputs^ `:` type($inputs) `)`)? `->` type($results)
    $body attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The shape every result has: what one thread-element of the kernel covers.
    RankedTensorType getDomainType() {
      return ::llvm::cast<RankedTensorType>(getResult(0).getType());
    }
  }];
}

def Pipe_YieldOp : Pipe_Op<"yield", [Pure, HasParent<"KernelOp">, Terminator]> {
  let summary = "Yields a kernel's results";
  let arguments = (ins Variadic<Pipe_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // PIPE_OPS_TD
