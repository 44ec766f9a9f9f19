//===- PipeEnums.td - Enum attributes of the pipe dialect -*- tablegen -*-===//
//
// Closed sets of choices, as enum attributes: the verifier rejects a value
// outside the set, and codegen, the reference and the runtime switch on the
// C++ enum instead of comparing strings. The values are those of the C
// enums in core/PipeReduce.h and core/PipeStencil.h, which the kernels
// use (PipeDialect.cpp checks that they agree).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_ENUMS_TD
#define PIPE_ENUMS_TD

include "dialect/PipeDialect.td"
include "mlir/IR/EnumAttr.td"

def Pipe_ReductionKind : I32EnumAttr<"ReductionKind",
    "a reduction: sum mean prod min max any all", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
      I32EnumAttrCase<"prod", 2>, I32EnumAttrCase<"min", 3>,
      I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"any", 5>,
      I32EnumAttrCase<"all", 6>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_Border : I32EnumAttr<"Border",
    "what lies beyond a tensor's edge: reflect101 clamp constant wrap", [
      I32EnumAttrCase<"reflect101", 0>, I32EnumAttrCase<"clamp", 1>,
      I32EnumAttrCase<"constant", 2>, I32EnumAttrCase<"wrap", 3>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_OutOfBounds : I32EnumAttr<"OutOfBounds",
    "what a crop does where its window leaves the input: error pad clamp", [
      I32EnumAttrCase<"error", 0>, I32EnumAttrCase<"pad", 1>,
      I32EnumAttrCase<"clamp", 2>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_RandomDistribution : I32EnumAttr<"RandomDistribution",
    "what a random op draws: uniform normal coin_flip randint resized_crop", [
      I32EnumAttrCase<"uniform", 0>, I32EnumAttrCase<"normal", 1>,
      I32EnumAttrCase<"coin_flip", 2>, I32EnumAttrCase<"randint", 3>,
      I32EnumAttrCase<"resized_crop", 4>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_ResampleTransform : I32EnumAttr<"ResampleTransform",
    "how a resample maps output pixels to input ones: affine rotate resize", [
      I32EnumAttrCase<"affine", 0>, I32EnumAttrCase<"rotate", 1>,
      I32EnumAttrCase<"resize", 2>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_WindowKind : I32EnumAttr<"WindowKind",
    "what a window op computes over its taps: box min max median correlate", [
      I32EnumAttrCase<"box", 0>, I32EnumAttrCase<"min", 1>,
      I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"median", 3>,
      I32EnumAttrCase<"correlate", 4>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_Interp : I32EnumAttr<"Interp",
    "how a resample reads between pixels: nearest linear cubic lanczos", [
      I32EnumAttrCase<"nearest", 0>, I32EnumAttrCase<"linear", 1>,
      I32EnumAttrCase<"cubic", 2>, I32EnumAttrCase<"lanczos", 3>]> {
  let cppNamespace = "::mlir::pipe";
}

def Pipe_MemorySpace : I32EnumAttr<"MemorySpace",
    "where a value lives: host or device", [
      I32EnumAttrCase<"host", 1>, I32EnumAttrCase<"device", 2>]> {
  let cppNamespace = "::mlir::pipe";
  let genSpecializedAttr = 0;
}

// As a pipeline's argument or result attribute (`pipe.memory`), where the
// source pins the caller's memory with @host or @device:
// `{pipe.memory = #pipe.memory<host>}`. An op that takes one (pipe.copy)
// prints it as a bare keyword.
def Pipe_MemorySpaceAttr : EnumAttr<Pipe_Dialect, Pipe_MemorySpace, "memory"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // PIPE_ENUMS_TD
