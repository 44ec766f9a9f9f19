//===- PipeDialect.td - The pipe dialect ------------------*- tablegen -*-===//
//
// The pipe dialect holds a pipeline at tensor level: values are ranked tensors
// whose dynamic dims carry symbolic names, so that passes can tell that two
// tensors have the same shape without knowing the sizes.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_DIALECT_TD
#define PIPE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Pipe_Dialect : Dialect {
  let name = "pipe";
  let cppNamespace = "::mlir::pipe";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasCanonicalizer = 1;
  let summary = "Dataflow pipelines over tensors with symbolic dims";
  let description = [{
    A `pipe.pipeline` is a function over tensors. A tensor type is a builtin
    ranked tensor; a dynamic dim is named by the tensor's encoding, an array
    with one string per `?` dim, in order:

    ```mlir
    tensor<?x?x3xui8, ["N", "H"]>   // u8[N, H, 3]
    ```

    One name is one size across a pipeline. Rank-0 tensors are scalars and
    broadcast against any shape in elementwise ops.
  }];
}

class Pipe_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pipe_Dialect, mnemonic, traits>;

// A ranked tensor of a supported element type whose encoding names each
// dynamic dim (see PipeDialect.h: isPipeTensorType).
def Pipe_Tensor : Type<CPred<"::mlir::pipe::isPipeTensorType($_self)">,
    "tensor of a pipe dtype with one name per dynamic dim",
    "::mlir::RankedTensorType">;

#endif // PIPE_DIALECT_TD
