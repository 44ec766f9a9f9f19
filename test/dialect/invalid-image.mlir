// RUN: pipe-opt %s -split-input-file -verify-diagnostics
// The resampling and random ops' verifiers: what the resample family and
// the random draws rely on.

pipe.pipeline @rotate_without_angle(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op takes a parameter unless it is a resize}}
  %y = pipe.resample %x rotate linear constant fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @rotate_antialias(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %a: tensor<?xf32, ["N"]> {pipe.name = "a"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op antialiases resizes only}}
  %y = pipe.resample %x, %a : tensor<?xf32, ["N"]> rotate linear constant fill 0.0 antialias : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @rotate_cubic(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %a: tensor<?xf32, ["N"]> {pipe.name = "a"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op interpolates cubic in resizes only}}
  %y = pipe.resample %x, %a : tensor<?xf32, ["N"]> rotate cubic constant fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @resize_region_of_three(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %r: tensor<?x3xf32, ["N"]> {pipe.name = "r"}) -> (tensor<?x4x4x3xui8, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op parameter must be f32 [samples..., 4]}}
  %y = pipe.resample %x, %r : tensor<?x3xf32, ["N"]> resize linear clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x4x4x3xui8, ["N"]>
  pipe.return %y : tensor<?x4x4x3xui8, ["N"]>
}

// -----

pipe.pipeline @resize_region_of_other_samples(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %r: tensor<?x4xf32, ["M"]> {pipe.name = "r"}) -> (tensor<?x4x4x3xui8, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op parameter must be f32 [samples..., 4]}}
  %y = pipe.resample %x, %r : tensor<?x4xf32, ["M"]> resize linear clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x4x4x3xui8, ["N"]>
  pipe.return %y : tensor<?x4x4x3xui8, ["N"]>
}

// -----

pipe.pipeline @affine_matrix_shape(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %m: tensor<3x2xf32> {pipe.name = "m"}) -> (tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op parameter must be f32 [samples..., 2, 3]}}
  %y = pipe.resample %x, %m : tensor<3x2xf32> affine linear constant fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?x3xui8, ["N", "H", "W"]>
}

// -----

pipe.pipeline @resize_channels(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x4x4x4xui8, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample' op keeps the sample dims and the channels}}
  %y = pipe.resample %x resize linear clamp fill 0.0 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x4x4x4xui8, ["N"]>
  pipe.return %y : tensor<?x4x4x4xui8, ["N"]>
}

// -----

pipe.pipeline @windows_of_three(%i: tensor<?x3xsi64, ["N"]> {pipe.name = "i"}, %p: tensor<f64> {pipe.name = "p"}) -> (tensor<?x3xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.random' op draws windows [..., 4]}}
  %y = pipe.random resized_crop stream 0 (%i, %p, %p, %p, %p, %p, %p : tensor<?x3xsi64, ["N"]>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) : tensor<?x3xf32, ["N"]>
  pipe.return %y : tensor<?x3xf32, ["N"]>
}

// -----

pipe.pipeline @windows_params(%i: tensor<?x4xsi64, ["N"]> {pipe.name = "i"}, %p: tensor<f64> {pipe.name = "p"}) -> (tensor<?x4xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.random' op 'resized_crop' takes 6 parameters}}
  %y = pipe.random resized_crop stream 0 (%i, %p, %p : tensor<?x4xsi64, ["N"]>, tensor<f64>, tensor<f64>) : tensor<?x4xf32, ["N"]>
  pipe.return %y : tensor<?x4xf32, ["N"]>
}

// -----

pipe.pipeline @windows_integers(%i: tensor<?x4xsi64, ["N"]> {pipe.name = "i"}, %p: tensor<f64> {pipe.name = "p"}) -> (tensor<?x4xsi32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.random' op draws floats}}
  %y = pipe.random resized_crop stream 0 (%i, %p, %p, %p, %p, %p, %p : tensor<?x4xsi64, ["N"]>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) : tensor<?x4xsi32, ["N"]>
  pipe.return %y : tensor<?x4xsi32, ["N"]>
}

// -----

pipe.pipeline @random_stream(%i: tensor<?xsi64, ["N"]> {pipe.name = "i"}, %p: tensor<f64> {pipe.name = "p"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.random' op stream must be in [0, 65536)}}
  %y = pipe.random uniform stream 65536 (%i, %p, %p : tensor<?xsi64, ["N"]>, tensor<f64>, tensor<f64>) : tensor<?xf32, ["N"]>
  pipe.return %y : tensor<?xf32, ["N"]>
}

// -----

// randint's bounds are si64, ui64 for a ui64 draw (whose bounds pass the
// si64s).
pipe.pipeline @randint_u64_bounds(%i: tensor<?xsi64, ["N"]> {pipe.name = "i"}, %b: tensor<si64> {pipe.name = "b"}) -> (tensor<?xui64, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.random' op parameters must be ui64}}
  %y = pipe.random randint stream 0 (%i, %b, %b : tensor<?xsi64, ["N"]>, tensor<si64>, tensor<si64>) : tensor<?xui64, ["N"]>
  pipe.return %y : tensor<?xui64, ["N"]>
}

// -----

pipe.pipeline @randint_i32_bounds(%i: tensor<?xsi64, ["N"]> {pipe.name = "i"}, %b: tensor<ui64> {pipe.name = "b"}) -> (tensor<?xsi32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.random' op parameters must be si64}}
  %y = pipe.random randint stream 0 (%i, %b, %b : tensor<?xsi64, ["N"]>, tensor<ui64>, tensor<ui64>) : tensor<?xsi32, ["N"]>
  pipe.return %y : tensor<?xsi32, ["N"]>
}

// -----

// A fused resample checks its resample as pipe.resample does, and its
// epilogue as a fused region.
pipe.pipeline @fused_rotate_without_angle(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x?x?x3xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample_kernel' op takes a parameter unless it is a resize}}
  %y = pipe.resample_kernel %x rotate linear constant fill 0.0 epilogue() : tensor<?x?x?x3xui8, ["N", "H", "W"]> -> tensor<?x?x?x3xf32, ["N", "H", "W"]> epilogue {
  ^bb0(%v: tensor<?x?x?x3xui8, ["N", "H", "W"]>):
    %f = pipe.cast %v : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xf32, ["N", "H", "W"]>
    pipe.yield %f : tensor<?x?x?x3xf32, ["N", "H", "W"]>
  }
  pipe.return %y : tensor<?x?x?x3xf32, ["N", "H", "W"]>
}

// -----

pipe.pipeline @fused_epilogue_yields_other_types(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x8x8x3xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample_kernel' op epilogue yields types that differ from its results}}
  %y = pipe.resample_kernel %x resize linear clamp fill 0.0 epilogue() : tensor<?x?x?x3xui8, ["N", "H", "W"]> -> tensor<?x8x8x3xf32, ["N"]> epilogue {
  ^bb0(%v: tensor<?x8x8x3xui8, ["N"]>):
    pipe.yield %v : tensor<?x8x8x3xui8, ["N"]>
  }
  pipe.return %y : tensor<?x8x8x3xf32, ["N"]>
}

// -----

pipe.pipeline @fused_epilogue_arguments(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %m: tensor<3xf32> {pipe.name = "m"}) -> (tensor<?x8x8x3xf32, ["N"]> {pipe.name = "y"}) {
  // expected-error @+1 {{'pipe.resample_kernel' op epilogue has 1 arguments for 1 inputs}}
  %y = pipe.resample_kernel %x resize linear clamp fill 0.0 epilogue(%m : tensor<3xf32>) : tensor<?x?x?x3xui8, ["N", "H", "W"]> -> tensor<?x8x8x3xf32, ["N"]> epilogue {
  ^bb0(%v: tensor<?x8x8x3xui8, ["N"]>):
    %f = pipe.cast %v : tensor<?x8x8x3xui8, ["N"]> to tensor<?x8x8x3xf32, ["N"]>
    pipe.yield %f : tensor<?x8x8x3xf32, ["N"]>
  }
  pipe.return %y : tensor<?x8x8x3xf32, ["N"]>
}
