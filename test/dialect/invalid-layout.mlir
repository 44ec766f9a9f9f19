// RUN: pipe-opt %s -split-input-file -verify-diagnostics
// The layout ops' verifiers: what fusion and codegen rely on.

pipe.pipeline @slice_step(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.slice' op a step cannot be 0}}
  %y = pipe.slice %x starts ["0", "0"] steps [1, 0] dropped [false, false] : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W"]>
}

// -----

pipe.pipeline @slice_start(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.slice' op start "W +" is not a dim expression}}
  %y = pipe.slice %x starts ["0", "W +"] steps [1, 1] dropped [false, false] : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W"]>
}

// -----

pipe.pipeline @slice_rank(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.slice' op result must have one dim per dim not dropped}}
  %y = pipe.slice %x starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W"]>
}

// -----

pipe.pipeline @crop_anchors(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<?x4xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.crop' op needs one anchor per axis}}
  %y = pipe.crop %x anchors(%a, %a : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) axes [1] out_of_bounds error fill 0.0 : f32 : tensor<?x?xf32, ["N", "W"]> to tensor<?x4xf32, ["N"]>
  pipe.return %y : tensor<?x4xf32, ["N"]>
}

// -----

pipe.pipeline @crop_other_dim(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<3x4xf32> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.crop' op changes dim 0, which is no axis}}
  %y = pipe.crop %x anchors(%a : tensor<?xsi32, ["N"]>) axes [1] out_of_bounds clamp fill 0.0 : f32 : tensor<?x?xf32, ["N", "W"]> to tensor<3x4xf32>
  pipe.return %y : tensor<3x4xf32>
}

// -----

pipe.pipeline @crop_mode(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<?x4xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'out_of_bounds' [error, pad, clamp]}}
  %y = pipe.crop %x anchors(%a : tensor<?xsi32, ["N"]>) axes [1] out_of_bounds wrap fill 0.0 : f32 : tensor<?x?xf32, ["N", "W"]> to tensor<?x4xf32, ["N"]>
  pipe.return %y : tensor<?x4xf32, ["N"]>
}

// -----

pipe.pipeline @flip_no_axes(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.flip' op needs at least one axis}}
  %y = pipe.flip %x axes [] : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W"]>
}

// -----

pipe.pipeline @pad_dims(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.pad' op result dim 1 must be W + 3}}
  %y = pipe.pad %x axes [1] before ["1"] after ["2"] border constant fill 0.0 : f32 : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W"]>
}

// -----

pipe.pipeline @pad_fill_dtype(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xui8, ["N", "W + 3"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.pad' op fill must be of the input's dtype}}
  %y = pipe.pad %x axes [1] before ["1"] after ["2"] border constant fill 5.0 : f32 : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["N", "W + 3"]>
  pipe.return %y : tensor<?x?xui8, ["N", "W + 3"]>
}

// -----

pipe.pipeline @crop_fill_dtype(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<?x4xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.crop' op fill must be of the input's dtype}}
  %y = pipe.crop %x anchors(%a : tensor<?xsi32, ["N"]>) axes [1] out_of_bounds pad fill 0 : si32 : tensor<?x?xf32, ["N", "W"]> to tensor<?x4xf32, ["N"]>
  pipe.return %y : tensor<?x4xf32, ["N"]>
}

// -----

pipe.pipeline @take_float(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %i: tensor<?xf32, ["N"]> {pipe.name = "i"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.take' op indices must be integers}}
  %y = pipe.take %x, %i axis 0 : tensor<?x?xf32, ["N", "W"]>, tensor<?xf32, ["N"]> to tensor<?x?xf32, ["N", "W"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W"]>
}

// -----

pipe.pipeline @concat_dims(%a: tensor<?x3xf32, ["N"]> {pipe.name = "a"}, %b: tensor<?x4xf32, ["N"]> {pipe.name = "b"}) -> (tensor<?x7xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.concat' op inputs differ in dim 1}}
  %y = pipe.concat %a, %b axis 0 : tensor<?x3xf32, ["N"]>, tensor<?x4xf32, ["N"]> to tensor<?x7xf32, ["N"]>
  pipe.return %y : tensor<?x7xf32, ["N"]>
}

// -----

pipe.pipeline @coordinate_bool() -> (tensor<4xi1> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.coordinate' op coordinates are numbers, not bool}}
  %y = pipe.coordinate axis 0 : tensor<4xi1>
  pipe.return %y : tensor<4xi1>
}

// -----

pipe.pipeline @check_columns(%a: tensor<?x3xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<?x3xsi32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.check_bounds' op has 2 columns of bounds but its last dim is not of that static size}}
  %y = pipe.check_bounds %a lo ["0", "0"] hi ["H", "W"] messages ["m", "m"] : tensor<?x3xsi32, ["N"]>
  pipe.return %y : tensor<?x3xsi32, ["N"]>
}

// -----

pipe.pipeline @check_bool(%a: tensor<?xi1, ["N"]> {pipe.name = "a"}) -> (tensor<?xi1, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.check_bounds' op checks integers or floats, not 'i1'}}
  %y = pipe.check_bounds %a lo ["0"] hi ["9"] messages ["m"] : tensor<?xi1, ["N"]>
  pipe.return %y : tensor<?xi1, ["N"]>
}

// -----

// Any op's dim checks (dialect/DimChecks.h) are verified where the pipeline
// is: the plan builder reads them as strings (an integer there crashed it).
pipe.pipeline @dim_checks_not_strings(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W + 3"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.pad' op dim_checks must be an array of strings}}
  %y = pipe.pad %x axes [1] before ["1"] after ["2"] border constant fill 0.0 : f32 {dim_checks = [5]} : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W + 3"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W + 3"]>
}

// -----

pipe.pipeline @dim_check_unparsed(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W + 3"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.pad' op dim check "W +" is not a dim expression}}
  %y = pipe.pad %x axes [1] before ["1"] after ["2"] border constant fill 0.0 : f32 {dim_checks = ["W +"]} : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W + 3"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W + 3"]>
}

// -----

pipe.pipeline @dim_check_reasons(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W + 3"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.pad' op dim_check_reasons must be an array of strings}}
  %y = pipe.pad %x axes [1] before ["1"] after ["2"] border constant fill 0.0 : f32 {dim_checks = ["W - 1"], dim_check_reasons = [1]} : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W + 3"]>
  pipe.return %y : tensor<?x?xf32, ["N", "W + 3"]>
}
