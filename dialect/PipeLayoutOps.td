//===- PipeLayoutOps.td - Which element each result is ---*- tablegen -*-===//
//
// Layout ops move elements without computing them: each result element is
// an element of the input (or a fill value). The index maps among them
// (IndexMapOpInterface) fuse into the loads of the kernel that consumes
// them; `pipe-expand-layout` rewrites the others (a crop that pads, a
// constant-border pad, concat, erase) into index maps, coordinates and
// selects before fusion.
//
// Sizes that are not literals are dim expressions (core/DimExpr.h) in the
// types' encoding; attributes that hold sizes (a slice's starts, a pad's
// widths) hold their canonical text too.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_LAYOUT_OPS_TD
#define PIPE_LAYOUT_OPS_TD

def Pipe_BroadcastOp : Pipe_Op<"broadcast", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface>]> {
  let summary = "Maps each result element to an operand element";
  let description = [{
    Operand dim `i` becomes result dim `dimensions[i]`; result dims that no
    operand dim maps to repeat the operand, and an operand dim of literal
    size 1 repeats along its result dim. The dimensions need not be
    increasing, so a broadcast also transposes. A rank-0 operand fills the
    result (`zeros`, `full`).

    ```mlir
    // NumPy broadcasting of f32[3] against [N, H, W, 3]
    %b = pipe.broadcast %mean [3] : tensor<3xf32> to tensor<?x?x?x3xf32, ["N", "H", "W"]>
    // transpose([0, 3, 1, 2]) of [N, H, W, 3]
    %t = pipe.broadcast %x [0, 2, 3, 1] : tensor<?x?x?x3xf32, ["N", "H", "W"]> to tensor<?x3x?x?xf32, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, DenseI64ArrayAttr:$dimensions);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat =
      "$input $dimensions attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  list<Pipe_Function> functions = [
    Pipe_Function<"zeros", 2, ["dtype"]>, Pipe_Function<"ones", 2, ["dtype"]>,
    Pipe_Function<"full", 3, ["dtype"]>];
}

def Pipe_TransposeOp : Pipe_Op<"transpose", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface>]> {
  let summary = "Permutes dims: result dim d is operand dim permutation[d]";
  let description = [{
    What `transpose(x, [...])` is in the source; canonicalization turns it
    into a `pipe.broadcast` with the inverse permutation.
  }];
  let arguments = (ins Pipe_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat =
      "$input $permutation attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  list<Pipe_Function> functions = [Pipe_Function<"transpose", 2, ["perm"]>];
}

def Pipe_ReshapeOp : Pipe_Op<"reshape", [Pure]> {
  let summary = "The same elements in row-major order, in another shape";
  let description = [{
    The element count provably stays: the same dim names, the same product
    of literal sizes. The runtime makes it a view of the operand's buffer.
  }];
  let arguments = (ins Pipe_Tensor:$input);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  list<Pipe_Function> functions = [Pipe_Function<"reshape", 2, ["shape"]>];
}

def Pipe_SliceOp : Pipe_Op<"slice", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface>]> {
  let summary = "x[a:b:s, i, ...]: every s-th element from a, or one index";
  let description = [{
    Along input dim `d` the result takes the elements `starts[d] + steps[d] *
    k`, k from 0 to the result's size there; a `dropped` dim is the one
    index `starts[d]` and has no result dim. Starts are dim expressions
    (text, core/DimExpr.h), steps nonzero literals. Each of `dim_checks` is
    a dim expression that must not be negative, or the slice would reach
    outside its input: the runtime checks them once the dims are bound
    (PlanDimCheck), where the compiler could not.

    ```mlir
    // x[:, 2:W - 2, ::-1] of [N, W, 3]
    %s = pipe.slice %x starts ["0", "2", "2"] steps [1, 1, -1] dropped [false, false, false] : tensor<?x?x3xf32, ["N", "W"]> to tensor<?x?x3xf32, ["N", "W - 4"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, StrArrayAttr:$starts,
                       DenseI64ArrayAttr:$steps, DenseBoolArrayAttr:$dropped,
                       OptionalAttr<StrArrayAttr>:$dim_checks);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input `starts` $starts `steps` $steps `dropped` $dropped
    (`checks` $dim_checks^)? attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Pipe_CropOp : Pipe_Op<"crop", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface, ["isTotal"]>]> {
  let summary = "A window of each sample at its own anchor";
  let description = [{
    Along `axes[j]` the result takes the input's elements from `anchors[j]`
    on, as many as the result's size there; other dims are the input's.
    Each anchor is an integer of rank 0 or with the input's leading dims
    before the first axis (one per sample), so every sample has its own
    window and all windows have the result's size (DALI's `fn.slice` with
    an absolute anchor and shape). Where a window leaves the input,
    `out_of_bounds` says what happens: `error` (the pipeline fails, naming
    the sample: a check the runtime makes), `pad` (those positions get
    `fill`), `clamp` (the nearest edge element, as border = clamp). `fill`
    is a value of the input's dtype (the frontend converts the literal as a
    cast does), so a 64-bit integer fill is exact.

    ```mlir
    %c = pipe.crop %x anchors(%ay, %ax : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) axes [1, 2] out_of_bounds pad fill 0 : ui8 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x224x224x3xui8, ["N"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Variadic<Pipe_Tensor>:$anchors,
                       DenseI64ArrayAttr:$axes, Pipe_OutOfBounds:$out_of_bounds,
                       TypedAttrInterface:$fill);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input `anchors` `(` $anchors `:` type($anchors) `)` `axes` $axes
    `out_of_bounds` $out_of_bounds `fill` $fill attr-dict `:` type($input)
    `to` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"crop", 1,
      ["anchor", "shape", "axes", "out_of_bounds", "fill"]>];
}

def Pipe_FlipOp : Pipe_Op<"flip", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface>]> {
  let summary = "Reverses `axes`, for the samples whose `when` is true";
  let description = [{
    Along each of `axes`, result element k is input element size - 1 - k
    where `when` (bool, rank 0 or the input's leading dims before the
    first axis: one flag per sample) is true, else element k; without
    `when`, always.

    ```mlir
    %f = pipe.flip %x when %m : tensor<?xi1, ["N"]> axes [2] : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Optional<Pipe_Tensor>:$when,
                       DenseI64ArrayAttr:$axes);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input (`when` $when^ `:` type($when))? `axes` $axes attr-dict `:`
    type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"flip", 1, ["axes", "when"]>];
}

def Pipe_PadOp : Pipe_Op<"pad", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface, ["isTotal"]>]> {
  let summary = "Grows `axes` by `before` and `after` elements";
  let description = [{
    Along `axes[j]` the result has `before[j]` + the input's size +
    `after[j]` elements (dim expressions, as text); position k is the
    input's element k - before[j] inside it, and outside it `border` says
    what: `constant` (`fill`), `clamp` (the nearest edge element),
    `reflect101` (dcb|abcd|cba) or `wrap`.

    ```mlir
    %p = pipe.pad %x axes [1] before ["0"] after ["32 * ceil(H / 32) - H"] border constant fill 0 : ui8 : tensor<?x?xui8, ["N", "H"]> to tensor<?x?xui8, ["N", "32 * ceil(H / 32)"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, DenseI64ArrayAttr:$axes,
                       StrArrayAttr:$before, StrArrayAttr:$after,
                       Pipe_Border:$border, TypedAttrInterface:$fill);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input `axes` $axes `before` $before `after` $after `border` $border
    `fill` $fill attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"pad", 1,
      ["before", "after", "shape", "axes", "border", "fill"]>];
}

def Pipe_TakeOp : Pipe_Op<"take", [Pure,
    DeclareOpInterfaceMethods<Pipe_IndexMapOpInterface>]> {
  let summary = "Elements along `axis` at the positions `indices` gives";
  let description = [{
    NumPy's `take`: the result's shape is the input's dims before `axis`,
    then the indices' dims, then the input's dims after `axis`; each
    element is the input's at that index along `axis`. A negative index
    counts from the end; one outside [-size, size) is an error the runtime
    reports, naming it (in the map, it is clamped, so that no read leaves
    the input).

    ```mlir
    %g = pipe.take %x, %perm axis 0 : tensor<?x?xf32, ["N", "D"]>, tensor<?xsi32, ["N"]> to tensor<?x?xf32, ["N", "D"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Pipe_Tensor:$indices,
                       I64Attr:$axis);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `axis` $axis attr-dict `:` type($input) `,`
    type($indices) `to` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"take", 2, ["axis"]>,
                                   Pipe_Function<"gather", 2, ["axis"]>];
}

def Pipe_ConcatOp : Pipe_Op<"concat", [Pure]> {
  let summary = "Its inputs one after another along `axis`";
  let description = [{
    NumPy's `concatenate`: the inputs have one dtype and the same dims but
    along `axis`, where the result's size is their sum.
    `pipe-expand-layout` makes it a select over coordinates of index maps.

    ```mlir
    %c = pipe.concat %a, %b axis 3 : tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x6xui8, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins Variadic<Pipe_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` type($inputs) `to` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"concat", 1, ["axis"]>,
                                   Pipe_Function<"stack", 1, ["axis"]>];
}

def Pipe_CoordinateOp : Pipe_Op<"coordinate", [Pure]> {
  let summary = "Each element's coordinate along `axis`";
  let description = [{
    `iota`: element (c0, c1, ...) is c<axis>, converted to the result's
    integer (or float) dtype.

    ```mlir
    %i = pipe.coordinate axis 2 : tensor<?x?x?xsi32, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = "`axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"iota", 1, ["axis", "dtype"]>];
}

def Pipe_EraseOp : Pipe_Op<"erase", [Pure, AttrSizedOperandSegments]> {
  let summary = "Fills rectangular regions of each sample";
  let description = [{
    DALI's `fn.erase`: `regions` boxes per sample over `axes`; box r covers
    [anchors[r * k + j], anchors[r * k + j] + shapes[r * k + j]) along
    axes[j] (k axes), clipped to the input, and its elements become `fill`;
    the others keep the input's. Anchors, shapes and the fill are of rank 0
    or have the input's leading dims before the first axis (per sample).

    ```mlir
    %e = pipe.erase %m anchors(%y, %x : ...) shapes(%s, %s : ...) fill %mean : tensor<?xf32, ["N"]> axes [2, 3] regions 1 : tensor<?x2x?x?xf32, ["N", "H", "W"]> to tensor<?x2x?x?xf32, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Variadic<Pipe_Tensor>:$anchors,
                       Variadic<Pipe_Tensor>:$shapes, Pipe_Tensor:$fill,
                       DenseI64ArrayAttr:$axes, I64Attr:$regions);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input `anchors` `(` $anchors `:` type($anchors) `)` `shapes` `(`
    $shapes `:` type($shapes) `)` `fill` $fill `:` type($fill) `axes` $axes
    `regions` $regions attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [Pipe_Function<"erase", 1,
      ["anchor", "shape", "fill", "axes"]>];
}

#endif // PIPE_LAYOUT_OPS_TD
