//===- Passes.td - Passes over the pipe dialect -----------*- tablegen -*-===//

#ifndef PIPE_PASSES_TD
#define PIPE_PASSES_TD

include "mlir/Pass/PassBase.td"

def Placement : Pass<"pipe-placement", "::mlir::pipe::PipelineOp"> {
  let summary = "Decides where values live and which explicit copies stay";
  let description = [{
    Every op runs on the GPU, so a value must reach the host only when the
    pipeline returns it there. A `pipe.copy` to the host whose value is
    returned pins those results to host memory (`pipe.memory = "host"`;
    the runtime copies them once, after the kernels); an error if such a
    result is declared `@device`. Every other copy is a round trip back to
    the GPU and is removed. Each decision is noted, with the copy's source
    location, in the pipeline's `pipe.placement` attribute, which
    `pipec --report=transfers` prints.
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

def HostControl : Pass<"pipe-host-control", "::mlir::pipe::PipelineOp"> {
  let summary = "Decides on the host the branches and loop iterations worth it";
  let description = [{
    The frontend predicates `if` and `for`: every branch and all K
    iterations are computed, and a `pipe.select` (marked `pipe.merge`)
    keeps each name's right version. Such a select becomes a `pipe.choose`,
    which the runtime decides on the host, running only the chosen side,
    when its condition is one scalar (not per sample) and either
    - the ops computing only the side it would skip include a reduction,
      a gaussian_blur, a window filter, a resampling or another choose
      (whole kernels that then do not run, against one small copy and a
      wait), or
    - the source sends the condition to the host (`if c.cpu()`,
      `for i in 0 .. n.cpu() max K`).
    Otherwise the select stays, and fuses with the elementwise work around
    it. Each merge site's decision is noted in the pipeline's
    `pipe.control` attribute, which `pipec --report=transfers` prints.

    Before:
    ```mlir
    %b = pipe.gaussian_blur %x window %w ... axes [0, 1] border reflect101 ...
    %c = pipe.broadcast %t ... : tensor<i1> to tensor<?x?xi1, ["H", "W"]>
    %x1 = pipe.select %c, %b, %x {pipe.merge = "'x' updated by the for loop"} ...
    ```
    After:
    ```mlir
    %x1 = pipe.choose %t, %b, %x : tensor<i1>, tensor<?x?xui8, ["H", "W"]>
    ```
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

def ShardBatch : Pass<"pipe-shard-batch", "::mlir::pipe::PipelineOp"> {
  let summary = "Decides whether and how the pipeline splits along its batch";
  let description = [{
    A sharded run (docs/runtime.md, "Several GPUs") gives each shard a
    contiguous run of the samples along the batch dim, the first
    parameter's leading dim, and runs the whole pipeline on each. This
    pass checks that every op keeps the samples apart: elementwise ops with
    their samples aligned, and the ops that work along axes (blurs,
    windows, resampling, crops, flips, pads, erases, takes, concats,
    channel mixes) not along the batch dim. It names the batch dim in the
    pipeline's `pipe.batch_dim`, or says why it cannot be split, at the
    op, in `pipe.unshardable`. A reduction over the batch dim is marked
    `pipe.combine_shards`: each shard reduces its own samples and the
    runtime combines the partial values (so pipe-fuse-reductions gives it
    no epilogue); a coordinate along the batch dim (`iota`, the index
    random ops draw with) is marked `pipe.batch_offset`, and counts from
    the shard's first sample.
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

def ExpandLayout : Pass<"pipe-expand-layout", "::mlir::pipe::PipelineOp"> {
  let summary = "Rewrites the layout ops that are no total index map";
  let description = [{
    Fusion and codegen take index maps whose every result element is an
    input element, and elementwise ops. A crop that pads, a constant-border
    pad, concat and erase are rewritten into those, over coordinates
    (`pipe.coordinate`): a select of the fill (or of the input, or of one
    of the concatenated inputs) by where each element is, and clamped
    reads, so that the lanes a select drops read in bounds too.

    Before:
    ```mlir
    %p = pipe.pad %x axes [1] before ["0"] after ["3"] border constant fill 0.0 : tensor<?x5xf32, ["N"]> to tensor<?x8xf32, ["N"]>
    ```
    After:
    ```mlir
    %r = pipe.pad %x axes [1] before ["0"] after ["3"] border clamp fill 0.0 : ...
    %c = pipe.coordinate axis 1 : tensor<?x8xsi64, ["N"]>
    %in = ... 0 <= %c && %c < 5 ...
    %p = pipe.select %in, %r, %zero : ...
    ```

    It also makes the dim checks the unclamped reads need (a crop's
    anchors known from the dims, the elements a clamped read needs) and
    rejects, as the program's error at the op, any that folds to a
    negative constant: that program fails whatever the sizes.
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

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

def FuseReductions : Pass<"pipe-fuse-reductions", "::mlir::pipe::PipelineOp"> {
  let summary = "Fuses each pipe.reduce with its elementwise producer and consumer";
  let description = [{
    Runs after `pipe-fuse-elementwise`. Each `pipe.reduce` becomes a
    `pipe.reduce_kernel`:
    - prologue: the slice of the `pipe.kernel` producing the reduced value
      that computes it, so the kernel reads that kernel's inputs instead of
      the stored value (`mean(f32(masks > 0))` reads the u8 masks). When the
      value has other users too, the slice is recomputed only if its inputs
      take no more bytes per element than the value; the producer then
      still stores it for the others. A producer result no one else reads
      is dropped (with the producer, if it was its only result).
    - epilogue: one `pipe.kernel` over the reduced shape that reads the
      reduced value directly (not through a broadcast) and whose other
      inputs are not computed from it; its results become the fused op's.
      The reduced value is also a result when anything else reads it.

    Before:
    ```mlir
    %m = pipe.kernel "p_k0" (%x : tensor<?x?xui8, ["N", "W"]>) -> tensor<?x?xf32, ["N", "W"]> {...}
    %r = pipe.reduce mean %m [1] : tensor<?x?xf32, ["N", "W"]> to tensor<?xf32, ["N"]>
    %w = pipe.kernel "p_k1" (%r : tensor<?xf32, ["N"]>) -> tensor<?xsi32, ["N"]> {...}
    ```
    After:
    ```mlir
    %w = pipe.reduce_kernel mean [1] "p_r0" (%x : tensor<?x?xui8, ["N", "W"]>)
        epilogue () -> tensor<?xsi32, ["N"]> prologue {...} epilogue {...}
    ```
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

def FuseResampleEpilogues : Pass<"pipe-fuse-resample-epilogues",
                                  "::mlir::pipe::PipelineOp"> {
  let summary = "Fuses each pipe.resample with the kernel that consumes it";
  let description = [{
    Runs after `pipe-fuse-elementwise`. A `pipe.resample` whose only user is
    a `pipe.kernel` that reads it once per element, through index maps that
    read each resampled value at most once (a transpose to CHW, a flip, a
    flip per sample, a crop or slice: IndexExpr's invertInjectiveRead),
    becomes a `pipe.resample_kernel` whose epilogue is that kernel's body:
    codegen applies it to each value as the resample computes it (dropping
    the values a crop leaves out), and writes the kernel's results in
    place of the resampled images. Images of more than 4 channels, or of
    channels known only at run time, stay apart (the resample's kernels
    keep a pixel's channels in registers).

    Before:
    ```mlir
    %r = pipe.resample %x, %roi : tensor<?x4xf32, ["N"]> resize linear clamp fill 0.000000e+00 antialias : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x224x224x3xui8, ["N"]>
    %y = pipe.kernel "p_k1" (%r, %mean : ...) -> tensor<?x3x224x224xf32, ["N"]> {...}
    ```
    After:
    ```mlir
    %y = pipe.resample_kernel %x, %roi : tensor<?x4xf32, ["N"]> resize linear clamp fill 0.000000e+00 antialias epilogue(%mean : tensor<3xf32>) : tensor<?x?x?x3xui8, ["N", "H", "W"]> -> tensor<?x3x224x224xf32, ["N"]> epilogue {...}
    ```
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

def FuseWindowPrologues : Pass<"pipe-fuse-window-prologues",
                                "::mlir::pipe::PipelineOp"> {
  let summary = "Fuses each pipe.window with the kernels around it";
  let description = [{
    Runs after `pipe-fuse-elementwise`. A `pipe.window` (box_filter, erode,
    dilate, median, conv2d) becomes a `pipe.window_kernel`:
    - prologue: where its input is a result of a `pipe.kernel`, the slice
      of that kernel computing the input: index maps (a slice, a crop, a
      flip, a transpose, a broadcast parameter), coordinates, and at most 8
      cheap elementwise ops (casts, comparisons, selects, +, -, *, min,
      max, bitwise ops, rounding; not a division, a power or a
      transcendental function), since the window's kernel runs them at
      every tap it loads. When the value has other readers, the slice is
      recomputed only if its inputs take no more bytes per element than
      the value; the producer then still stores it for them. A producer
      result no one else reads is dropped (with the producer, if it was
      its only result). Every window's prologue is taken first.
    - epilogue: one `pipe.kernel` over the window's shape that reads its
      value directly (not through a map) and whose other inputs are not
      computed from it, and that draws no random numbers; its results
      become the fused op's, and the window's value is one too when
      anything else reads it.

    Before:
    ```mlir
    %f = pipe.kernel "p_k0" (%x : tensor<?x?x?xui8, ["N", "H", "W"]>) -> tensor<?x?x?xf32, ["N", "H", "W"]> {...}
    %b = pipe.window %f box axes [1, 2] window [3, 3] border reflect101 fill 0.000000e+00 : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
    %y = pipe.kernel "p_k1" (%b : tensor<?x?x?xf32, ["N", "H", "W"]>) -> tensor<?x?x?xui8, ["N", "H", "W"]> {...}
    ```
    After:
    ```mlir
    %y = pipe.window_kernel (%x : tensor<?x?x?xui8, ["N", "H", "W"]>) box axes [1, 2] window [3, 3] border reflect101 fill 0.000000e+00 epilogue() -> tensor<?x?x?xui8, ["N", "H", "W"]> prologue {...} epilogue {...}
    ```
  }];
  let dependentDialects = ["::mlir::pipe::PipeDialect"];
}

def TestBreakKernels : Pass<"pipe-test-break-kernels", "::mlir::pipe::PipelineOp"> {
  let summary = "For tests: gives each kernel an input it does not read";
  let description = [{
    A kernel input nothing reads does not verify: this pass makes IR that
    fails verification, as a compiler bug would, so that tests can check
    how such a failure is reported (as an internal error of this pass, not
    as the user's mistake). pipec runs it with --test-pass=pipe-test-break-kernels.
  }];
}

#endif // PIPE_PASSES_TD
