//===- Passes.td - Passes over the pipe dialect -----------*- tablegen -*-===//

#ifndef PIPE_PASSES_TD
#define PIPE_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwise : Pass<"pipe-fuse-elementwise", "::mlir::pipe::PipelineOp"> {
  let summary = "Groups elementwise ops over one domain into pipe.kernel ops";
  let description = [{
    Every elementwise op over a tensor ends up in exactly one `pipe.kernel`:
    the body of a kernel is what one GPU kernel computes per element. Walking
    the pipeline in order, an op joins the latest kernel over the same domain
    (result shape), unless one of its operands depends on that kernel through
    an op outside it (joining would make a cycle); otherwise it starts a
    kernel of its own. Independent ops over one domain thus share a kernel.
    A `pipe.broadcast` (transposes are broadcasts after canonicalization)
    joins the same way when its operand comes from outside the kernel: it
    becomes index arithmetic on a kernel input. Afterwards the block is
    sorted topologically, so that ops reading a kernel's results follow it.

    Scalar (rank-0) elementwise ops, constants included, are cloned into
    every kernel that uses them instead of being passed in (codegen computes
    them once per thread); only a scalar the pipeline returns gets a kernel
    of its own. List constants stay outside, as buffers.

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
