//===- Passes.td - Passes over the pipe dialect -----------*- tablegen -*-===//

#ifndef PIPE_PASSES_TD
#define PIPE_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwise : Pass<"pipe-fuse-elementwise", "::mlir::pipe::PipelineOp"> {
  let summary = "Groups elementwise ops over one domain into pipe.kernel ops";
  let description = [{
    Every elementwise op over a tensor ends up in exactly one `pipe.kernel`:
    the body of a kernel is what one GPU kernel computes per element. An op
    joins the kernel of the producer of one of its operands when both have
    the same domain (result shape) and joining cannot create a cycle through
    an op outside the kernel; otherwise it starts a kernel of its own.

    Scalar (rank-0) elementwise ops, constants included, are cloned into
    every kernel that uses them instead of being passed in (codegen computes
    them once per thread); only a scalar the pipeline returns gets a kernel
    of its own.

    Before:
    ```mlir
    %0 = pipe.cast %x : tensor<?xui8, ["N"]> to tensor<?xf32, ["N"]>
    %1 = pipe.mul %0, %c : tensor<?xf32, ["N"]>, tensor<f32> -> tensor<?xf32, ["N"]>
    pipe.return %1 : tensor<?xf32, ["N"]>
    ```
    After:
    ```mlir
    %r = pipe.kernel "p_k0" (%x : tensor<?xui8, ["N"]>) -> tensor<?xf32, ["N"]> {
    ^bb0(%a: tensor<?xui8, ["N"]>):
      %c = pipe.constant 2.0 : f32
      %0 = pipe.cast %a : ...
      %1 = pipe.mul %0, %c : ...
      pipe.yield %1 : tensor<?xf32, ["N"]>
    }
    pipe.return %r : tensor<?xf32, ["N"]>
    ```
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

#endif // PIPE_PASSES_TD
