// RUN: pipe-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{argument 'x' is not a pipe tensor: 'tensor<?xf32>'}}
pipe.pipeline @unnamed_dim(%x: tensor<?xf32> {pipe.name = "x"}) -> (tensor<f32> {pipe.name = "y"}) {
  %c = pipe.constant 1.0 : f32
  pipe.return %c : tensor<f32>
}

// -----

// expected-error @+1 {{argument #0 has no 'pipe.name' string attribute}}
pipe.pipeline @no_name(%x: tensor<?xf32, ["N"]>) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  pipe.return %x : tensor<?xf32, ["N"]>
}

// -----

// expected-error @+1 {{the name 'x' is used twice}}
pipe.pipeline @twice(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf32, ["N"]> {pipe.name = "x"}) {
  pipe.return %x : tensor<?xf32, ["N"]>
}

// -----

// expected-error @+1 {{argument 'x' is not a pipe tensor: 'tensor<?xi32, ["N"]>'}}
pipe.pipeline @signless(%x: tensor<?xi32, ["N"]> {pipe.name = "x"}) -> (tensor<?xi32, ["N"]> {pipe.name = "y"}) {
  pipe.return %x : tensor<?xi32, ["N"]>
}

// -----

pipe.pipeline @dtype_mismatch(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %y: tensor<?xf64, ["N"]> {pipe.name = "y"}) -> (tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.add' op operands have different dtypes: 'f32' and 'f64'}}
  %0 = pipe.add %x, %y : tensor<?xf32, ["N"]>, tensor<?xf64, ["N"]> -> tensor<?xf32, ["N"]>
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @shape_mismatch(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %y: tensor<?xf32, ["M"]> {pipe.name = "y"}) -> (tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.mul' op operand shape 'tensor<?xf32, ["M"]>' is neither rank 0 nor the result's shape 'tensor<?xf32, ["N"]>'}}
  %0 = pipe.mul %x, %y : tensor<?xf32, ["N"]>, tensor<?xf32, ["M"]> -> tensor<?xf32, ["N"]>
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @int_div(%x: tensor<?xsi32, ["N"]> {pipe.name = "x"}) -> (tensor<?xsi32, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.div' op needs a float dtype, not 'si32'}}
  %0 = pipe.div %x, %x : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]> -> tensor<?xsi32, ["N"]>
  pipe.return %0 : tensor<?xsi32, ["N"]>
}

// -----

pipe.pipeline @cast_shape(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xui8, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.cast' op changes the shape}}
  %0 = pipe.cast %x : tensor<?xf32, ["N"]> to tensor<?xui8, ["M"]>
  pipe.return %x : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @bad_return(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf64, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.return' op result #0 has type 'tensor<?xf32, ["N"]>' but the pipeline declares 'tensor<?xf64, ["N"]>'}}
  pipe.return %x : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @kernel_domain(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %y: tensor<?xf32, ["M"]> {pipe.name = "y"}) -> (tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.kernel' op input of type 'tensor<?xf32, ["M"]>' is neither rank 0 nor the domain's shape}}
  %0 = pipe.kernel "k" (%x, %y : tensor<?xf32, ["N"]>, tensor<?xf32, ["M"]>) -> tensor<?xf32, ["N"]> {
  ^bb0(%a: tensor<?xf32, ["N"]>, %b: tensor<?xf32, ["M"]>):
    pipe.yield %a : tensor<?xf32, ["N"]>
  }
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @kernel_yield(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  // expected-error @+1 {{'pipe.kernel' op yields types that differ from its results}}
  %0 = pipe.kernel "k" (%x : tensor<?xf32, ["N"]>) -> tensor<?xf32, ["N"]> {
  ^bb0(%a: tensor<?xf32, ["N"]>):
    %c = pipe.constant 1.0 : f32
    pipe.yield %c : tensor<f32>
  }
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @kernel_body(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  %0 = pipe.kernel "outer" (%x : tensor<?xf32, ["N"]>) -> tensor<?xf32, ["N"]> {
  ^bb0(%a: tensor<?xf32, ["N"]>):
    // expected-error @+1 {{'pipe.kernel' op is not elementwise and cannot be in a 'pipe.kernel'}}
    %1 = pipe.kernel "inner" (%a : tensor<?xf32, ["N"]>) -> tensor<?xf32, ["N"]> {
    ^bb0(%b: tensor<?xf32, ["N"]>):
      pipe.yield %b : tensor<?xf32, ["N"]>
    }
    pipe.yield %1 : tensor<?xf32, ["N"]>
  }
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @reduce_kind(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<f32> {pipe.name = "y"}) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, mean, prod, min, max, any, all]}}
  %0 = pipe.reduce median %x [0] : tensor<?xf32, ["N"]> to tensor<f32>
  pipe.return %0 : tensor<f32>
}

// -----

pipe.pipeline @reduce_dtype(%x: tensor<?xui8, ["N"]> {pipe.name = "x"}) -> (tensor<ui8> {pipe.name = "y"}) {
  // expected-error @+1 {{'sum' of 'ui8' gives 'ui64', not 'ui8'}}
  %0 = pipe.reduce sum %x [0] : tensor<?xui8, ["N"]> to tensor<ui8>
  pipe.return %0 : tensor<ui8>
}

// -----

pipe.pipeline @reduce_shape(%x: tensor<?x3xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{result 'tensor<?xf32, ["N"]>' is not the reduced shape of 'tensor<?x3xf32, ["N"]>'}}
  %0 = pipe.reduce max %x [0] : tensor<?x3xf32, ["N"]> to tensor<?xf32, ["N"]>
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

pipe.pipeline @reduce_axes(%x: tensor<?x3xf32, ["N"]> {pipe.name = "x"}) -> (tensor<f32> {pipe.name = "y"}) {
  // expected-error @+1 {{axes must be increasing dims of the input}}
  %0 = pipe.reduce max %x [1, 0] : tensor<?x3xf32, ["N"]> to tensor<f32>
  pipe.return %0 : tensor<f32>
}

// -----

pipe.pipeline @blur_border(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}, %w: tensor<si32> {pipe.name = "w"}) -> (tensor<?x?xui8, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'border' [reflect101, clamp, constant, wrap]}}
  %0 = pipe.gaussian_blur %x window %w : tensor<si32> axes [1] border mirror fill 0.0 : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["N", "W"]>
  pipe.return %0 : tensor<?x?xui8, ["N", "W"]>
}

// -----

pipe.pipeline @blur_per_sample(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}, %w: tensor<?xsi32, ["W"]> {pipe.name = "w"}) -> (tensor<?x?xui8, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{a per-sample parameter must have the input's leading dims}}
  %0 = pipe.gaussian_blur %x window %w : tensor<?xsi32, ["W"]> axes [1] border clamp fill 0.0 : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["N", "W"]>
  pipe.return %0 : tensor<?x?xui8, ["N", "W"]>
}

// -----

pipe.pipeline @blur_nothing(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xui8, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{needs a window or a sigma}}
  %0 = pipe.gaussian_blur %x axes [1] border clamp fill 0.0 : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["N", "W"]>
  pipe.return %0 : tensor<?x?xui8, ["N", "W"]>
}

// -----

pipe.pipeline @choose_per_element(%c: tensor<?xi1, ["N"]> {pipe.name = "c"}, %a: tensor<?xf32, ["N"]> {pipe.name = "a"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{condition must be a rank-0 bool, not 'tensor<?xi1, ["N"]>'}}
  %y = pipe.choose %c, %a, %a : tensor<?xi1, ["N"]>, tensor<?xf32, ["N"]>
  pipe.return %y : tensor<?xf32, ["N"]>
}

// -----

// A body without its yield is an error, not an assertion (the fuzzer's
// crash-9ff2756b: Block::getTerminator asserts on such a block, and the
// verifiers ran before MLIR's own check of the terminator).
pipe.pipeline @no_yield(%x: tensor<?x3xsi32, ["N"]> {pipe.name = "x"}) -> (tensor<?x3xsi32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.kernel' op body must end with pipe.yield}}
  %0 = pipe.kernel "k0" (%x : tensor<?x3xsi32, ["N"]>) -> tensor<?x3xsi32, ["N"]> {
  ^bb0(%a: tensor<?x3xsi32, ["N"]>):
    %1 = pipe.mul %a, %a : tensor<?x3xsi32, ["N"]>, tensor<?x3xsi32, ["N"]> -> tensor<?x3xsi32, ["N"]>
  }
  pipe.return %0 : tensor<?x3xsi32, ["N"]>
}

// -----

pipe.pipeline @no_prologue_yield(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window_kernel' op prologue must end with pipe.yield}}
  %0 = pipe.window_kernel (%x : tensor<?x?xf32, ["N", "W"]>) box axes [1] window [3] border clamp fill 0.0 epilogue() -> tensor<?x?xf32, ["N", "W"]> prologue {
  ^bb0(%a: tensor<?x?xf32, ["N", "W"]>):
    %1 = pipe.neg %a : tensor<?x?xf32, ["N", "W"]> -> tensor<?x?xf32, ["N", "W"]>
  } epilogue {
  ^bb0(%v: tensor<?x?xf32, ["N", "W"]>):
    pipe.yield %v : tensor<?x?xf32, ["N", "W"]>
  }
  pipe.return %0 : tensor<?x?xf32, ["N", "W"]>
}
