// RUN: pipe-opt %s -split-input-file -verify-diagnostics
// The window op's verifier: what the window family relies on.

pipe.pipeline @three_axes(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op takes one or two axes}}
  %y = pipe.window %x box axes [1, 2, 3] window [3, 3, 3] border clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @sizes_per_axis(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op needs one window size per axis}}
  %y = pipe.window %x box axes [1, 2] window [3] border clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @too_many_taps(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op a window has at most 1024 taps}}
  %y = pipe.window %x min axes [1, 2] window [33, 32] border clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @median_even(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op a median takes an odd number of taps, at most 49}}
  %y = pipe.window %x median axes [1, 2] window [3, 2] border clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @min_changes_dtype(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op min, max and median keep the input's dtype}}
  %y = pipe.window %x min axes [1, 2] window [3, 3] border clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xf32, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xf32, ["N", "H", "W"]>
}

// -----

pipe.pipeline @box_of_bool(%x: tensor<?x?x?xi1, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?xi1, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op box and correlate take and give numbers}}
  %y = pipe.window %x box axes [1, 2] window [3, 3] border clamp fill 0.0 : tensor<?x?x?xi1, ["N", "H", "W"]> to tensor<?x?x?xi1, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?xi1, ["N", "H", "W"]>
}

// -----

pipe.pipeline @correlate_without_weights(%x: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op has weights if and only if it correlates}}
  %y = pipe.window %x correlate axes [1, 2] window [3, 3] border clamp fill 0.0 : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?xf32, ["N", "H", "W"]>
}

// -----

pipe.pipeline @weights_of_other_size(%x: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "x"}, %k: tensor<?x3x5xf32, ["N"]> {pipe.name = "k"}) -> (tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op weights must be f32 [samples..., window...], the samples the input's dims before the first axis}}
  %y = pipe.window %x, %k : tensor<?x3x5xf32, ["N"]> correlate axes [1, 2] window [3, 3] border clamp fill 0.0 : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?xf32, ["N", "H", "W"]>
}

// -----

pipe.pipeline @weights_of_other_samples(%x: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "x"}, %k: tensor<?x3x3xf32, ["M"]> {pipe.name = "k"}) -> (tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.window' op weights must be f32 [samples..., window...], the samples the input's dims before the first axis}}
  %y = pipe.window %x, %k : tensor<?x3x3xf32, ["M"]> correlate axes [1, 2] window [3, 3] border clamp fill 0.0 : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?xf32, ["N", "H", "W"]>
}
