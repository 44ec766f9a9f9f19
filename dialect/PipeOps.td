//===- PipeOps.td - Operations of the pipe dialect --------*- tablegen -*-===//
//
// Tensor-level ops (no placement, no copies), the fused `pipe.kernel` op that
// the fusion pass forms, and the pipeline that holds them.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_OPS_TD
#define PIPE_OPS_TD

include "dialect/PipeDialect.td"
include "dialect/PipeEnums.td"
include "dialect/PipeSource.td"
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
    /// A MemorySpaceAttr where the source pins a parameter or result
    /// (`@host`, `@device`); absent where the caller chooses.
    static StringRef getMemoryAttrName() { return "pipe.memory"; }
    /// The pinned memory of argument / result `i`, if the source pins it.
    std::optional<MemorySpace> getArgMemory(unsigned i);
    std::optional<MemorySpace> getResultMemory(unsigned i);
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
  let summary = "A scalar constant, or a small constant tensor";
  let description = [{
    A scalar (rank 0) is cloned into each kernel that uses it; a dense
    tensor (a list literal) becomes a buffer the runtime uploads once.

    ```mlir
    %c = pipe.constant 1.500000e+00 : f32                       // tensor<f32>
    %m = pipe.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>   // tensor<3xf32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

// The dtypes an elementwise op accepts (see PipeDialect.h: DTypeRule).
class Pipe_DTypeRule<string r> { string rule = r; }
def AnyDType : Pipe_DTypeRule<"Any">;
def NumericDType : Pipe_DTypeRule<"Numeric">;
def FloatDType : Pipe_DTypeRule<"Float">;
def IntegerDType : Pipe_DTypeRule<"Integer">;
def IntegerOrBoolDType : Pipe_DTypeRule<"IntegerOrBool">;
def BoolDType : Pipe_DTypeRule<"Bool">;

// An elementwise op whose element is `function(operands...)` from
// core/PipeScalar.h. Operands have the result's shape or rank 0; the
// verifier checks dtypes against `rule` and, for comparisons, a bool result.
// `spellings` say how a .pipe program writes it (dialect/PipeSource.td).
class Pipe_ElementwiseOp<string mnemonic, string function,
                         Pipe_DTypeRule rule, string summaryText,
                         bit compares = 0, list<Pipe_Spelling> spellings_ = []>
    : Pipe_Op<mnemonic, [Pure,
        DeclareOpInterfaceMethods<Pipe_ElementwiseOpInterface>]> {
  let summary = summaryText;
  let results = (outs Pipe_Tensor:$result);
  let hasVerifier = 1;
  let hasFolder = 1;
  // Read by utils/op-registry/generate.py.
  string scalarFunction = function;
  string dtypeRule = rule.rule;
  list<Pipe_Spelling> spellings = spellings_;
  // Whether constant folding may compute it on the host for float
  // operands: not where CUDA's math library may differ from the host's in
  // the last bits (the kernel computes it instead).
  bit foldsFloats = 1;
  let extraClassDefinition = [{
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::pipe::foldScalarElementwise(getOperation(),
                                                 adaptor.getOperands());
    }
    std::string $cppClass::getScalarExpression(
        ::llvm::ArrayRef<std::string> operands) {
      return ::mlir::pipe::getCallExpression("}] # function # [{", operands);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::pipe::verifyElementwiseOp(getOperation(),
          ::mlir::pipe::DTypeRule::}] # rule.rule # [{, }] #
          !if(compares, "true", "false") # [{);
    }
  }];
}

class Pipe_BinaryOp<string mnemonic, string function, Pipe_DTypeRule rule,
                    string summaryText, bit compares = 0,
                    list<Pipe_Spelling> spellings = []>
    : Pipe_ElementwiseOp<mnemonic, function, rule, summaryText, compares,
                         spellings> {
  let arguments = (ins Pipe_Tensor:$lhs, Pipe_Tensor:$rhs);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

class Pipe_UnaryOp<string mnemonic, string function, Pipe_DTypeRule rule,
                   string summaryText, list<Pipe_Spelling> spellings = []>
    : Pipe_ElementwiseOp<mnemonic, function, rule, summaryText, 0, spellings> {
  let arguments = (ins Pipe_Tensor:$input);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

// Shorthands for the spellings.
class Op_<string name, Pipe_Accepts a> : Pipe_OperatorSpelling<name, a>;
class Fn_<string name, Pipe_Accepts a> : Pipe_FunctionSpelling<name, a>;

// Arithmetic. Integers wrap modulo 2^bits; integer // and % by zero give 0.
def Pipe_AddOp : Pipe_BinaryOp<"add", "pipe_add", NumericDType, "a + b", 0,
    [Op_<"+", AcceptsNumeric>]>;
def Pipe_SubOp : Pipe_BinaryOp<"sub", "pipe_sub", NumericDType, "a - b", 0,
    [Op_<"-", AcceptsNumeric>]>;
def Pipe_MulOp : Pipe_BinaryOp<"mul", "pipe_mul", NumericDType, "a * b", 0,
    [Op_<"*", AcceptsNumeric>]>;
def Pipe_DivOp : Pipe_BinaryOp<"div", "pipe_div", FloatDType, "a / b (floats)",
    0, [Op_<"/", AcceptsFloatResult>]>;
def Pipe_FloorDivOp : Pipe_BinaryOp<"floordiv", "pipe_floordiv", NumericDType,
    "a // b, rounding toward negative infinity", 0,
    [Op_<"//", AcceptsNumeric>]>;
def Pipe_RemOp : Pipe_BinaryOp<"rem", "pipe_rem", NumericDType,
    "a % b, with the sign of b", 0, [Op_<"%", AcceptsNumeric>]>;
def Pipe_PowOp : Pipe_BinaryOp<"pow", "pipe_pow", NumericDType, "a ** b", 0,
    [Op_<"**", AcceptsNumeric>, Fn_<"pow", AcceptsNumeric>]> {
  let foldsFloats = 0;
}
def Pipe_MinOp : Pipe_BinaryOp<"min", "pipe_min", NumericDType,
    "The smaller of a and b; NaN if either is", 0,
    [Fn_<"min", AcceptsNumeric>]>;
def Pipe_MaxOp : Pipe_BinaryOp<"max", "pipe_max", NumericDType,
    "The larger of a and b; NaN if either is", 0,
    [Fn_<"max", AcceptsNumeric>]>;

// Comparisons give bool.
def Pipe_EqOp : Pipe_BinaryOp<"eq", "pipe_eq", AnyDType, "a == b", 1,
    [Op_<"==", AcceptsAny>]>;
def Pipe_NeOp : Pipe_BinaryOp<"ne", "pipe_ne", AnyDType, "a != b", 1,
    [Op_<"!=", AcceptsAny>]>;
def Pipe_LtOp : Pipe_BinaryOp<"lt", "pipe_lt", NumericDType, "a < b", 1,
    [Op_<"<", AcceptsNumeric>]>;
def Pipe_LeOp : Pipe_BinaryOp<"le", "pipe_le", NumericDType, "a <= b", 1,
    [Op_<"<=", AcceptsNumeric>]>;
def Pipe_GtOp : Pipe_BinaryOp<"gt", "pipe_gt", NumericDType, "a > b", 1,
    [Op_<">", AcceptsNumeric>]>;
def Pipe_GeOp : Pipe_BinaryOp<"ge", "pipe_ge", NumericDType, "a >= b", 1,
    [Op_<">=", AcceptsNumeric>]>;

// Bitwise on integers, logical on bool.
def Pipe_AndOp : Pipe_BinaryOp<"and", "pipe_and", IntegerOrBoolDType, "a & b",
    0, [Op_<"&", AcceptsIntegerOrBool>, Op_<"&&", AcceptsBool>]>;
def Pipe_OrOp : Pipe_BinaryOp<"or", "pipe_or", IntegerOrBoolDType, "a | b", 0,
    [Op_<"|", AcceptsIntegerOrBool>, Op_<"||", AcceptsBool>]>;
def Pipe_XorOp : Pipe_BinaryOp<"xor", "pipe_xor", IntegerOrBoolDType, "a ^ b",
    0, [Op_<"^", AcceptsIntegerOrBool>]>;
def Pipe_ShlOp : Pipe_BinaryOp<"shl", "pipe_shl", IntegerDType, "a << b", 0,
    [Op_<"<<", AcceptsInteger>]>;
def Pipe_ShrOp : Pipe_BinaryOp<"shr", "pipe_shr", IntegerDType,
    "a >> b (arithmetic for signed integers)", 0,
    [Op_<">>", AcceptsInteger>]>;

def Pipe_NotOp : Pipe_UnaryOp<"not", "pipe_not", IntegerOrBoolDType,
    "~a on integers, !a on bool",
    [Op_<"~", AcceptsIntegerOrBool>, Op_<"!", AcceptsBool>]>;
def Pipe_NegOp : Pipe_UnaryOp<"neg", "pipe_neg", NumericDType,
    "-a: 0 - a for integers (wrapping), the sign flipped for floats (NaN's "
    "too)",
    [Op_<"-", AcceptsNumeric>]>;
def Pipe_AbsOp : Pipe_UnaryOp<"abs", "pipe_abs", NumericDType, "|a|",
    [Fn_<"abs", AcceptsNumeric>]>;
def Pipe_SqrtOp : Pipe_UnaryOp<"sqrt", "pipe_sqrt", FloatDType, "Square root",
    [Fn_<"sqrt", AcceptsFloatResult>]>;
def Pipe_RsqrtOp : Pipe_UnaryOp<"rsqrt", "pipe_rsqrt", FloatDType,
    "1 / sqrt(a), each step correctly rounded",
    [Fn_<"rsqrt", AcceptsFloatResult>]>;
def Pipe_ExpOp : Pipe_UnaryOp<"exp", "pipe_exp", FloatDType, "e ** a",
    [Fn_<"exp", AcceptsFloatResult>]> {
  let foldsFloats = 0;
}
def Pipe_LogOp : Pipe_UnaryOp<"log", "pipe_log", FloatDType, "Natural logarithm",
    [Fn_<"log", AcceptsFloatResult>]> {
  let foldsFloats = 0;
}
def Pipe_SinOp : Pipe_UnaryOp<"sin", "pipe_sin", FloatDType, "Sine",
    [Fn_<"sin", AcceptsFloatResult>]> {
  let foldsFloats = 0;
}
def Pipe_CosOp : Pipe_UnaryOp<"cos", "pipe_cos", FloatDType, "Cosine",
    [Fn_<"cos", AcceptsFloatResult>]> {
  let foldsFloats = 0;
}
def Pipe_TanhOp : Pipe_UnaryOp<"tanh", "pipe_tanh", FloatDType,
    "Hyperbolic tangent", [Fn_<"tanh", AcceptsFloatResult>]> {
  let foldsFloats = 0;
}
def Pipe_Atan2Op : Pipe_BinaryOp<"atan2", "pipe_atan2", FloatDType,
    "The angle of (b, a) from the x axis, in radians, in [-pi, pi] (C's "
    "atan2(a, b))", 0, [Fn_<"atan2", AcceptsFloatResult>]> {
  let foldsFloats = 0;
}
def Pipe_FloorOp : Pipe_UnaryOp<"floor", "pipe_floor", NumericDType,
    "Rounds toward negative infinity (integers unchanged)",
    [Fn_<"floor", AcceptsNumeric>]>;
def Pipe_CeilOp : Pipe_UnaryOp<"ceil", "pipe_ceil", NumericDType,
    "Rounds toward positive infinity (integers unchanged)",
    [Fn_<"ceil", AcceptsNumeric>]>;
def Pipe_RoundOp : Pipe_UnaryOp<"round", "pipe_round", NumericDType,
    "Rounds half to even (integers unchanged)",
    [Fn_<"round", AcceptsNumeric>]>;

def Pipe_SelectOp : Pipe_ElementwiseOp<"select", "pipe_select", AnyDType,
    "c ? a : b, elementwise"> {
  list<Pipe_Function> functions = [Pipe_Function<"select", 3, []>];
  let arguments = (ins Pipe_Tensor:$condition, Pipe_Tensor:$true_value,
                       Pipe_Tensor:$false_value);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value) `->`
    type($result)
  }];
}

def Pipe_DimOp : Pipe_Op<"dim", [Pure,
    DeclareOpInterfaceMethods<Pipe_ElementwiseOpInterface>]> {
  let summary = "A dim's size (or a dim expression's value) as an i64 scalar";
  let description = [{
    A dim used as a value, `W - 1`: known once the parameters bind the dims,
    computed by each kernel that uses it from the dims it is passed.

    ```mlir
    %w = pipe.dim "W - 1" : tensor<si64>
    ```
  }];
  let arguments = (ins StrAttr:$dim);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Pipe_RandomOp : Pipe_Op<"random", [Pure,
    DeclareOpInterfaceMethods<Pipe_ElementwiseOpInterface>]> {
  let summary = "Random numbers, a function of each element's index";
  let description = [{
    `uniform`, `normal`, `coin_flip`, `randint`, and `resized_crop`
    (random_resized_crop's windows, [..., 4]): element i of the result is
    drawn (core/PipeRandom.h) from the run's seed (or the op's own `seed`),
    the run's random run number, the op's `stream` (unique in its
    pipeline) and `index[i]`, the element's row-major index in the shape
    the program asked for (maps that move the result move the index with
    it). `params` are the distribution's: uniform's lo and hi, normal's
    mean and stddev (f64), coin_flip's probability (f64), randint's lo and
    hi (si64), resized_crop's image height and width, scale range and
    aspect range (f64); each of rank 0 or the result's shape. The seed and the run
    number are kernel arguments, as the dims are (kSeedDim, kRandomRunDim
    in core/DimExpr.h).

    ```mlir
    %r = pipe.random uniform stream 0 (%i, %lo, %hi : tensor<?xsi64, ["N"]>, tensor<f64>, tensor<f64>) : tensor<?xf32, ["N"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$index, Variadic<Pipe_Tensor>:$params,
                       Pipe_RandomDistribution:$distribution,
                       I64Attr:$stream, OptionalAttr<I64Attr>:$seed);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $distribution `stream` $stream `(` $index (`,` $params^)? `:` type($index)
    (`,` type($params)^)? `)` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [
      Pipe_Function<"uniform", 0, ["range", "shape", "dtype", "seed"]>,
      Pipe_Function<"normal", 0, ["mean", "stddev", "shape", "dtype", "seed"]>,
      Pipe_Function<"coin_flip", 0, ["probability", "p", "shape", "dtype",
                                     "seed"]>,
      Pipe_Function<"randint", 2, ["lo", "hi", "shape", "dtype", "seed"]>];
}

def Pipe_ChannelMixOp : Pipe_Op<"channel_mix", [Pure]> {
  let summary = "Each pixel's channels mixed by a per-sample matrix, plus an offset";
  let description = [{
    The color functions: for `input` [..., K] (K static), result element
    [..., c] is `offset[c] + m[c][0] * x[0] + ... + m[c][K-1] * x[K-1]`,
    computed in that order in the matrix's float dtype (no fused
    multiply-adds) from the input's elements converted to it, then
    converted to the result's dtype as a cast converts. `matrix` is
    [S..., C, K] and `offset` [S'..., C] or a scalar, where S... and S'...
    are leading dims of the input (one matrix per sample, or one for all).
    When both are constants (getConstantCoefficients), each output sums
    only its nonzero terms, from the first (m[c][k] * x[k] + ...), then
    adds its offset if that is not 0: an inf or NaN channel reaches only
    the outputs whose formula reads it, and -0.0 moves as it is.
    pipe-expand-layout rewrites it into slices, broadcasts and elementwise
    ops, which fuse into one kernel with what surrounds it.

    ```mlir
    %y = pipe.channel_mix %x, %m, %o : tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?x3x3xf32, ["N"]>, tensor<?x3xf32, ["N"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Pipe_Tensor:$matrix,
                       Pipe_Tensor:$offset);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $matrix `,` $offset attr-dict `:` type($input) `,`
    type($matrix) `,` type($offset) `to` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The [C, K] matrix and the offset (a scalar or [C]) when both are
    /// constants (the matrix a reshaped list, as tensor constants are).
    bool getConstantCoefficients(DenseElementsAttr &matrix,
                                 DenseElementsAttr &offset);
  }];
  list<Pipe_Function> functions = [
      Pipe_Function<"brightness_contrast", 1, ["brightness", "brightness_shift",
                                               "contrast", "contrast_center",
                                               "dtype"]>,
      Pipe_Function<"hsv", 1, ["hue", "saturation", "value", "dtype"]>,
      Pipe_Function<"hue", 1, ["hue", "dtype"]>,
      Pipe_Function<"saturation", 1, ["saturation", "dtype"]>,
      Pipe_Function<"color_twist", 1, ["brightness", "contrast", "hue",
                                       "saturation", "dtype"]>,
      Pipe_Function<"color_space_conversion", 1, ["image_type", "output_type",
                                                  "dtype"]>];
}

def Pipe_ResampleOp : Pipe_Op<"resample", [Pure]> {
  let summary = "warp_affine, rotate, resize: images resampled";
  let description = [{
    `input` is images [S..., H, W, C]; the result [S..., OH, OW, C] (its
    dtype any number dtype). Each output pixel shows the input at the
    point the sample's destination-to-source matrix gives
    (core/PipeResample.h): `param` is the matrices [S'..., 2, 3] (affine),
    the angles in degrees [S'...] (rotate), or the regions of interest
    (y0, x0, y1, x1) [S'..., 4] (resize; without one, the whole image),
    S'... a prefix of S.... Computed by the resample kernel family.

    ```mlir
    %r = pipe.resample %x, %angle : tensor<?xf32, ["N"]> rotate linear constant fill 0.000000e+00 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Optional<Pipe_Tensor>:$param,
                       Pipe_ResampleTransform:$transform, Pipe_Interp:$interp,
                       Pipe_Border:$border, F64Attr:$fill, UnitAttr:$antialias);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $param^ `:` type($param))? $transform $interp $border `fill`
    $fill (`antialias` $antialias^)? attr-dict `:` type($input) `to`
    type($result)
  }];
  let hasVerifier = 1;
  list<Pipe_Function> functions = [
      Pipe_Function<"warp_affine", 1, ["matrix", "size", "fill", "interp",
                                       "dtype"]>,
      Pipe_Function<"rotate", 1, ["angle", "size", "fill", "interp", "dtype"]>,
      Pipe_Function<"resize", 1, ["size", "interp", "antialias", "roi_start",
                                  "roi_end", "relative_roi", "dtype"]>,
      Pipe_Function<"random_resized_crop", 1, ["size", "scale", "ratio",
                                               "interp", "antialias", "dtype",
                                               "seed"]>];
}

def Pipe_ResampleKernelOp : Pipe_Op<"resample_kernel", [IsolatedFromAbove,
    AttrSizedOperandSegments, RecursiveMemoryEffects]> {
  let summary = "A resample with the elementwise kernel that consumes it";
  let description = [{
    Formed by `pipe-fuse-resample-epilogues` from a `pipe.resample` and the
    one `pipe.kernel` that reads it, through index maps that visit each of
    its elements at most once (a transpose, a flip, a flip per sample, a
    crop or slice of step 1 or -1; values no element reads are dropped). The
    resample is `pipe.resample`'s, with the same operands and attributes;
    the `epilogue` region gets each resampled value as its first argument
    (a tensor of the resampled type) and `epilogue_inputs` after it, and
    yields the results, all of its domain's shape, like the kernel's body.
    Codegen writes the results as the resample computes each value: the
    resampled tensor is never stored.

    ```mlir
    %r = pipe.resample_kernel %x, %roi : tensor<?x4xf32, ["N"]> resize linear
        clamp fill 0.000000e+00 antialias
        epilogue(%mean : tensor<3xf32>) : tensor<?x?x?x3xui8, ["N", "H", "W"]>
        -> tensor<?x3x224x224xf32, ["N"]>
      epilogue { ^bb0(%v: tensor<?x224x224x3xui8, ["N"]>, %m: tensor<3xf32>): ... }
    ```
  }];
  let arguments = (ins Pipe_Tensor:$input, Optional<Pipe_Tensor>:$param,
                       Pipe_ResampleTransform:$transform, Pipe_Interp:$interp,
                       Pipe_Border:$border, F64Attr:$fill, UnitAttr:$antialias,
                       Variadic<Pipe_Tensor>:$epilogue_inputs);
  let results = (outs Variadic<Pipe_Tensor>:$results);
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $input (`,` $param^ `:` type($param))? $transform $interp $border `fill`
    $fill (`antialias` $antialias^)?
    `epilogue` `(` ($epilogue_inputs^ `:` type($epilogue_inputs))? `)`
    `:` type($input) `->` type($results) `epilogue` $epilogue attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The resampled images' type [S..., OH, OW, C]: the epilogue's first
    /// argument.
    RankedTensorType getResampledType() {
      return ::llvm::cast<RankedTensorType>(
          getEpilogue().front().getArgument(0).getType());
    }
    /// The shape every result has: the epilogue's domain.
    RankedTensorType getDomainType() {
      return ::llvm::cast<RankedTensorType>(getResult(0).getType());
    }
  }];
}

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

include "dialect/PipeLayoutOps.td"

//===----------------------------------------------------------------------===//
// Copies between host and device
//===----------------------------------------------------------------------===//

def Pipe_CopyOp : Pipe_Op<"copy", [Pure, SameOperandsAndResultType]> {
  let summary = "An explicit move to the host or the device: x.cpu(), x.gpu()";
  let description = [{
    What the source asks for. `pipe-placement` keeps the copies the
    pipeline needs and removes the rest (a round trip whose value comes back
    to the GPU), noting each decision on the pipeline for the transfer
    report.

    ```mlir
    %h = pipe.copy %r to host : tensor<?xf32, ["N"]>
    ```
  }];
  list<Pipe_Function> functions = [Pipe_Function<"cpu", 1, []>,
                                   Pipe_Function<"gpu", 1, []>];
  let arguments = (ins Pipe_Tensor:$input, Pipe_MemorySpaceAttr:$to);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat =
      "$input `to` custom<MemoryKeyword>($to) attr-dict `:` type($result)";
  }

//===----------------------------------------------------------------------===//
// Control decided on the host
//===----------------------------------------------------------------------===//

def Pipe_ChooseOp : Pipe_Op<"choose", [Pure,
    AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "Picks one of two values by a scalar the host reads at run time";
  let description = [{
    `c ? a : b` for a rank-0 bool `c`, decided once on the host instead of
    per element on the GPU: the runtime reads `c` (the one value that
    crosses, packed with the other conditions ready at the same time), then
    runs only the work the chosen value needs. The result is the chosen
    value's buffer; nothing is copied. `pipe-host-control` makes these of
    the selects that merge an `if`'s branches or a `for` iteration's updates
    when skipping the unchosen side saves more than the round trip costs.

    ```mlir
    %x1 = pipe.choose %c, %blurred, %x0 : tensor<i1>, tensor<?x?xui8, ["H", "W"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$condition, Pipe_Tensor:$true_value,
                       Pipe_Tensor:$false_value);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Checks of values the pipeline computes or is given
//===----------------------------------------------------------------------===//

def Pipe_CheckBoundsOp : Pipe_Op<"check_bounds", [
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Fails the run where an element of `value` leaves its bounds";
  let description = [{
    `value` holds integers or floats (compared in f64; NaN is in no
    bounds). Its result is `value` (the same memory); ops that must not see a value
    out of bounds (an unclamped crop's anchors, a take's indices) read the
    result. `lo`, `hi` and `messages` hold one entry for every element, or
    one per index of `value`'s last dim (static): a crop's anchors given as
    one tensor [N, k], a column per axis. The bounds are dim expressions,
    inclusive. The runtime checks every element on the GPU; on the first bad
    one (in index order) the run fails with the message of its column, in
    which {at} is the element's coordinates (but the last, per column),
    {value} its value, {lo} and {hi} its bounds; and no kernel that follows
    it in the run writes anything. Not Pure: it must stay where it is.

    ```mlir
    %a = pipe.check_bounds %anchors lo ["0", "0"] hi ["H - 224", "W - 224"] messages ["crop at f.pipe:2:7: the anchor along dim 1 of sample {at} is {value}", "..."] : tensor<?x2xsi32, ["N"]>
    ```
  }];
  let arguments = (ins Pipe_Tensor:$value, StrArrayAttr:$lo, StrArrayAttr:$hi,
                       StrArrayAttr:$messages);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $value `lo` $lo `hi` $hi `messages` $messages attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and stencils
//===----------------------------------------------------------------------===//

def Pipe_ReduceOp : Pipe_Op<"reduce", [Pure]> {
  let summary = "Combines the elements along `axes`: sum mean min max prod any all";
  let description = [{
    The result drops the reduced dims, or keeps them with size 1 under
    `keepdims`. Its dtype follows `getReductionResultType`: sums and products
    of bool and integers are 64-bit (i64, or u64 for unsigned inputs) and
    accumulate exactly (modulo 2^64); of floats they keep the dtype and
    accumulate in at least f32 per thread and f64 across threads. `mean`
    gives a float (f32 unless the result type says otherwise) of the exact
    integer sum, or of the float sum, over the count. `min`/`max` keep the
    dtype (NaN wins); `any`/`all` give bool. Over zero elements: sum 0,
    prod 1, mean NaN, min/max the dtype's largest/smallest value (+inf/-inf),
    any false, all true.

    ```mlir
    %r = pipe.reduce mean %x [1, 2] : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?xf32, ["N"]>
    ```
  }];
  list<Pipe_Function> functions = [
    Pipe_Function<"sum", 1, ["axes", "keepdims", "dtype"]>,
    Pipe_Function<"mean", 1, ["axes", "keepdims", "dtype"]>,
    Pipe_Function<"prod", 1, ["axes", "keepdims", "dtype"]>,
    Pipe_Function<"min", 1, ["axes", "keepdims", "dtype"]>,
    Pipe_Function<"max", 1, ["axes", "keepdims", "dtype"]>,
    Pipe_Function<"any", 1, ["axes", "keepdims"]>,
    Pipe_Function<"all", 1, ["axes", "keepdims"]>];
  let arguments = (ins Pipe_Tensor:$input, Pipe_ReductionKind:$kind,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keepdims);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $kind $input $axes (`keepdims` $keepdims^)? attr-dict `:` type($input)
    `to` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether axis `d` of the input is reduced.
    bool isReducedAxis(int64_t d) { return ::llvm::is_contained(getAxes(), d); }
  }];
}

def Pipe_ReduceKernelOp : Pipe_Op<"reduce_kernel", [IsolatedFromAbove,
    AttrSizedOperandSegments, RecursiveMemoryEffects]> {
  let summary = "A reduction with its elementwise producers and consumers";
  let description = [{
    Formed by `pipe-fuse-reductions` around one `pipe.reduce`. The
    `prologue` region computes, for each element of the reduced domain, the
    value to reduce from `prologue_inputs` (like a `pipe.kernel` body) and
    yields it; the values are combined along `axes` as `pipe.reduce` does;
    the `epilogue` region gets the reduced value as its first argument and
    `epilogue_inputs` after it, and yields the results, all of the reduced
    shape. Codegen reads each input once and writes only the results.

    ```mlir
    %r = pipe.reduce_kernel mean [1, 2] "k0" (%m : tensor<?x?xui8, ["N", "W"]>)
        epilogue () -> tensor<?xf32, ["N"]>
      prologue { ^bb0(%a: ...): ... pipe.yield %v : tensor<?x?xf32, ["N", "W"]> }
      epilogue { ^bb0(%mean: tensor<?xf32, ["N"]>): pipe.yield %mean : ... }
    ```
  }];
  let arguments = (ins Pipe_ReductionKind:$kind, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims, StrAttr:$kernel_name,
                       Variadic<Pipe_Tensor>:$prologue_inputs,
                       Variadic<Pipe_Tensor>:$epilogue_inputs);
  let results = (outs Variadic<Pipe_Tensor>:$results);
  let regions = (region SizedRegion<1>:$prologue, SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $kind $axes (`keepdims` $keepdims^)? $kernel_name
    `(` ($prologue_inputs^ `:` type($prologue_inputs))? `)`
    `epilogue` `(` ($epilogue_inputs^ `:` type($epilogue_inputs))? `)`
    `->` type($results)
    `prologue` $prologue `epilogue` $epilogue attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether axis `d` of the prologue's domain is reduced.
    bool isReducedAxis(int64_t d) { return ::llvm::is_contained(getAxes(), d); }
    /// The value the prologue yields: what is reduced.
    Value getReducedValue() {
      return getPrologue().front().getTerminator()->getOperand(0);
    }
    /// The domain the prologue runs over (the reduction's input shape).
    RankedTensorType getInputDomainType() {
      return ::llvm::cast<RankedTensorType>(getReducedValue().getType());
    }
    /// The reduced value's type: the epilogue's first argument.
    RankedTensorType getReductionType() {
      return ::llvm::cast<RankedTensorType>(
          getEpilogue().front().getArgument(0).getType());
    }
  }];
}

def Pipe_GaussianBlurOp : Pipe_Op<"gaussian_blur", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "Separable Gaussian blur along `axes`, per sample";
  let description = [{
    DALI's rules: with a window only, radius = (window - 1) / 2 and sigma =
    (radius - 1) * 0.3 + 0.8; with a sigma only, window = 2 * ceil(3 sigma)
    + 1; the window is odd and positive, sigma positive. `window` (i32) and
    `sigma` (f32) are rank 0 or have the input's leading dims (per sample).
    The weights exp(-x^2 / (2 sigma^2)) are normalized to sum 1 in f64 and
    applied in f32, one axis at a time, the last first. `border`:
    reflect101 (default), clamp, constant (with `fill`), wrap. The result
    has the input's shape; an integer result rounds half to even and
    saturates.

    ```mlir
    %b = pipe.gaussian_blur %m window %w : tensor<?xi32, ["N"]> axes [1, 2] border reflect101 fill 0.0 : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x?x?xui8, ["N", "H", "W"]>
    ```
  }];
  list<Pipe_Function> functions = [Pipe_Function<"gaussian_blur", 1,
      ["window", "sigma", "axes", "border", "fill", "dtype"]>];
  let arguments = (ins Pipe_Tensor:$input, Optional<Pipe_Tensor>:$window,
                       Optional<Pipe_Tensor>:$sigma, DenseI64ArrayAttr:$axes,
                       Pipe_Border:$border, F64Attr:$fill);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input (`window` $window^ `:` type($window))?
    (`sigma` $sigma^ `:` type($sigma))? `axes` $axes `border` $border
    `fill` $fill attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Pipe_WindowOp : Pipe_Op<"window", [Pure]> {
  let summary = "box_filter, erode, dilate, median, conv2d: a window per element";
  let description = [{
    Each result element is computed from the input's taps in a window over
    `axes` (one or two increasing dims) of `window` sizes, starting size / 2
    before the element along each (core/PipeWindow.h): their mean (box),
    least (min), greatest (max), median, or their correlation with
    `weights` (f32 [S'..., window...], S'... a prefix of the input's dims
    before the first axis: one kernel per sample). Taps past an edge read
    by `border`, `fill` for a constant one. min, max and median keep the
    input's dtype; box and correlate give any number dtype. Computed by
    the window kernel family.

    ```mlir
    %m = pipe.window %x median axes [1, 2] window [3, 3] border clamp fill 0.0 : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x?x?xui8, ["N", "H", "W"]>
    ```
  }];
  list<Pipe_Function> functions = [
      Pipe_Function<"box_filter", 1, ["window", "axes", "border", "fill",
                                      "dtype"]>,
      Pipe_Function<"erode", 1, ["window", "axes", "border", "fill"]>,
      Pipe_Function<"dilate", 1, ["window", "axes", "border", "fill"]>,
      Pipe_Function<"median", 1, ["window", "axes", "border", "fill"]>,
      Pipe_Function<"conv2d", 1, ["kernel", "axes", "border", "fill",
                                  "dtype"]>];
  let arguments = (ins Pipe_Tensor:$input, Optional<Pipe_Tensor>:$weights,
                       Pipe_WindowKind:$kind, DenseI64ArrayAttr:$axes,
                       DenseI64ArrayAttr:$window, Pipe_Border:$border,
                       F64Attr:$fill);
  let results = (outs Pipe_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $weights^ `:` type($weights))? $kind `axes` $axes `window`
    $window `border` $border `fill` $fill attr-dict `:` type($input) `to`
    type($result)
  }];
  let hasVerifier = 1;
}

def Pipe_WindowKernelOp : Pipe_Op<"window_kernel", [IsolatedFromAbove,
    AttrSizedOperandSegments, RecursiveMemoryEffects]> {
  let summary = "A window op with the elementwise work around it";
  let description = [{
    Formed by `pipe-fuse-window-prologues` from a `pipe.window`, the slice
    of the `pipe.kernel` that computes its input and the `pipe.kernel`
    that consumes its value. The `prologue` region computes, for each
    element of the window's input, its value from `prologue_inputs` (like
    a `pipe.kernel` body) and yields it; the window is then `pipe.window`'s,
    with the same attributes and `weights`; the `epilogue` region gets the
    window's value as its first argument and `epilogue_inputs` after it,
    and yields the results, all of the window's shape. Codegen computes
    the prologue at each tap the window reads and the epilogue at each
    value it makes: neither the input nor the value is stored.

    ```mlir
    %b = pipe.window_kernel (%x : tensor<?x?x?xui8, ["N", "H", "W"]>) box
        axes [1, 2] window [3, 3] border reflect101 fill 0.0 epilogue ()
        -> tensor<?x?x?xf32, ["N", "H", "W"]>
      prologue { ^bb0(%a: tensor<?x?x?xui8, ...>): ... pipe.yield %v : ... }
      epilogue { ^bb0(%v: tensor<?x?x?xf32, ...>): pipe.yield %v : ... }
    ```
  }];
  let arguments = (ins Variadic<Pipe_Tensor>:$prologue_inputs,
                       Optional<Pipe_Tensor>:$weights,
                       Pipe_WindowKind:$kind, DenseI64ArrayAttr:$axes,
                       DenseI64ArrayAttr:$window, Pipe_Border:$border,
                       F64Attr:$fill, Variadic<Pipe_Tensor>:$epilogue_inputs);
  let results = (outs Variadic<Pipe_Tensor>:$results);
  let regions = (region SizedRegion<1>:$prologue, SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    `(` ($prologue_inputs^ `:` type($prologue_inputs))? `)`
    (`weights` $weights^ `:` type($weights))? $kind `axes` $axes `window`
    $window `border` $border `fill` $fill
    `epilogue` `(` ($epilogue_inputs^ `:` type($epilogue_inputs))? `)`
    `->` type($results) `prologue` $prologue `epilogue` $epilogue attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The value the prologue yields: the window's input.
    Value getWindowInput() {
      return getPrologue().front().getTerminator()->getOperand(0);
    }
    /// The window's input type (the prologue's domain).
    RankedTensorType getInputType() {
      return ::llvm::cast<RankedTensorType>(getWindowInput().getType());
    }
    /// The window's value: the epilogue's first argument.
    BlockArgument getWindowValue() {
      return getEpilogue().front().getArgument(0);
    }
    /// The window's value's type (the input's shape, its own dtype).
    RankedTensorType getWindowType() {
      return ::llvm::cast<RankedTensorType>(getWindowValue().getType());
    }
    /// Whether the prologue only passes its one input on.
    bool hasTrivialPrologue() {
      Block &block = getPrologue().front();
      return block.getNumArguments() == 1 &&
             block.getTerminator()->getOperand(0) == block.getArgument(0);
    }
    /// Whether the epilogue only passes the window's value on.
    bool hasTrivialEpilogue() {
      Block &block = getEpilogue().front();
      return block.getNumArguments() == 1 &&
             block.getTerminator()->getNumOperands() == 1 &&
             block.getTerminator()->getOperand(0) == block.getArgument(0);
    }
  }];
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
    results from the inputs; an input of rank 0 is the same for every element,
    and an input read through a `pipe.broadcast` in the body is indexed
    through that map.
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

def Pipe_YieldOp : Pipe_Op<"yield", [Pure,
    ParentOneOf<["KernelOp", "ReduceKernelOp", "ResampleKernelOp",
                 "WindowKernelOp"]>, Terminator]> {
  let summary = "Yields a kernel's results (or a reduction's value to reduce)";
  let arguments = (ins Variadic<Pipe_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // PIPE_OPS_TD
