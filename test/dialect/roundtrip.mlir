// RUN: pipe-opt %s | pipe-opt | FileCheck %s

// CHECK-LABEL: pipe.pipeline @ops(
// CHECK-SAME: %x: tensor<?x?xui8, ["N", "H"]> {pipe.name = "x"}
pipe.pipeline @ops(%x: tensor<?x?xui8, ["N", "H"]> {pipe.name = "x"},
                   %s: tensor<f32> {pipe.name = "s"})
    -> (tensor<?x?xf32, ["N", "H"]> {pipe.name = "y"}) {
  // CHECK: %[[C:.*]] = constant 2.500000e+00 : f32
  %c = pipe.constant 2.5 : f32
  // CHECK: %[[F:.*]] = cast %x : tensor<?x?xui8, ["N", "H"]> to tensor<?x?xf32, ["N", "H"]>
  %0 = pipe.cast %x : tensor<?x?xui8, ["N", "H"]> to tensor<?x?xf32, ["N", "H"]>
  // CHECK: add %[[F]], %[[C]] : tensor<?x?xf32, ["N", "H"]>, tensor<f32> -> tensor<?x?xf32, ["N", "H"]>
  %1 = pipe.add %0, %c : tensor<?x?xf32, ["N", "H"]>, tensor<f32> -> tensor<?x?xf32, ["N", "H"]>
  %2 = pipe.sub %1, %s : tensor<?x?xf32, ["N", "H"]>, tensor<f32> -> tensor<?x?xf32, ["N", "H"]>
  %3 = pipe.mul %2, %2 : tensor<?x?xf32, ["N", "H"]>, tensor<?x?xf32, ["N", "H"]> -> tensor<?x?xf32, ["N", "H"]>
  %4 = pipe.div %3, %c : tensor<?x?xf32, ["N", "H"]>, tensor<f32> -> tensor<?x?xf32, ["N", "H"]>
  // CHECK: return %{{.*}} : tensor<?x?xf32, ["N", "H"]>
  pipe.return %4 : tensor<?x?xf32, ["N", "H"]>
}

// CHECK-LABEL: pipe.pipeline @kernel(
pipe.pipeline @kernel(%x: tensor<?x3xsi32, ["N"]> {pipe.name = "x"})
    -> (tensor<?x3xsi32, ["N"]> {pipe.name = "y"}, tensor<?x3xf64, ["N"]> {pipe.name = "z"}) {
  // CHECK: %[[K:.*]]:2 = kernel "k0"(%x : tensor<?x3xsi32, ["N"]>) -> tensor<?x3xsi32, ["N"]>, tensor<?x3xf64, ["N"]> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<?x3xsi32, ["N"]>):
  // CHECK: pipe.yield
  %0:2 = pipe.kernel "k0" (%x : tensor<?x3xsi32, ["N"]>) -> tensor<?x3xsi32, ["N"]>, tensor<?x3xf64, ["N"]> {
  ^bb0(%a: tensor<?x3xsi32, ["N"]>):
    %1 = pipe.mul %a, %a : tensor<?x3xsi32, ["N"]>, tensor<?x3xsi32, ["N"]> -> tensor<?x3xsi32, ["N"]>
    %2 = pipe.cast %1 : tensor<?x3xsi32, ["N"]> to tensor<?x3xf64, ["N"]>
    pipe.yield %1, %2 : tensor<?x3xsi32, ["N"]>, tensor<?x3xf64, ["N"]>
  }
  // CHECK: return %[[K]]#0, %[[K]]#1
  pipe.return %0#0, %0#1 : tensor<?x3xsi32, ["N"]>, tensor<?x3xf64, ["N"]>
}

// CHECK-LABEL: pipe.pipeline @reductions_and_blur
// CHECK: = reduce mean %{{.*}} [1, 2] : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?xf32, ["N"]>
// CHECK: = reduce max %{{.*}} [1] keepdims : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x1x?xf32, ["N", "W"]>
// CHECK: = gaussian_blur %{{.*}} window %{{.*}} : tensor<?xsi32, ["N"]> sigma %{{.*}} : tensor<f32> axes [1, 2] border wrap fill 0.000000e+00
pipe.pipeline @reductions_and_blur(%x: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "x"}, %w: tensor<?xsi32, ["N"]> {pipe.name = "w"}, %s: tensor<f32> {pipe.name = "s"}) -> (tensor<?xf32, ["N"]> {pipe.name = "m"}, tensor<?x1x?xf32, ["N", "W"]> {pipe.name = "k"}, tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "b"}) {
  %m = pipe.reduce mean %x [1, 2] : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?xf32, ["N"]>
  %k = pipe.reduce max %x [1] keepdims : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x1x?xf32, ["N", "W"]>
  %b = pipe.gaussian_blur %x window %w : tensor<?xsi32, ["N"]> sigma %s : tensor<f32> axes [1, 2] border wrap fill 0.0 : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
  pipe.return %m, %k, %b : tensor<?xf32, ["N"]>, tensor<?x1x?xf32, ["N", "W"]>, tensor<?x?x?xf32, ["N", "H", "W"]>
}

// CHECK-LABEL: pipe.pipeline @choose
// CHECK: = choose %c, %a, %b : tensor<i1>, tensor<?xf32, ["N"]>
pipe.pipeline @choose(%c: tensor<i1> {pipe.name = "c"}, %a: tensor<?xf32, ["N"]> {pipe.name = "a"}, %b: tensor<?xf32, ["N"]> {pipe.name = "b"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  %y = pipe.choose %c, %a, %b : tensor<i1>, tensor<?xf32, ["N"]>
  pipe.return %y : tensor<?xf32, ["N"]>
}

// CHECK-LABEL: pipe.pipeline @resample_kernel
// CHECK: = resample_kernel %x, %r : tensor<?x4xf32, ["N"]> resize linear clamp fill 0.000000e+00 antialias epilogue(%m : tensor<3xf32>) : tensor<?x?x?x3xui8, ["N", "H", "W"]> -> tensor<?x3x8x8xf32, ["N"]> epilogue {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<?x8x8x3xui8, ["N"]>, %{{.*}}: tensor<3xf32>):
pipe.pipeline @resample_kernel(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %r: tensor<?x4xf32, ["N"]> {pipe.name = "r"}, %m: tensor<3xf32> {pipe.name = "m"}) -> (tensor<?x3x8x8xf32, ["N"]> {pipe.name = "y"}) {
  %y = pipe.resample_kernel %x, %r : tensor<?x4xf32, ["N"]> resize linear clamp fill 0.0 antialias epilogue(%m : tensor<3xf32>) : tensor<?x?x?x3xui8, ["N", "H", "W"]> -> tensor<?x3x8x8xf32, ["N"]> epilogue {
  ^bb0(%v: tensor<?x8x8x3xui8, ["N"]>, %mean: tensor<3xf32>):
    %t = pipe.broadcast %v [0, 2, 3, 1] : tensor<?x8x8x3xui8, ["N"]> to tensor<?x3x8x8xui8, ["N"]>
    %f = pipe.cast %t : tensor<?x3x8x8xui8, ["N"]> to tensor<?x3x8x8xf32, ["N"]>
    %b = pipe.broadcast %mean [1] : tensor<3xf32> to tensor<?x3x8x8xf32, ["N"]>
    %s = pipe.sub %f, %b : tensor<?x3x8x8xf32, ["N"]>, tensor<?x3x8x8xf32, ["N"]> -> tensor<?x3x8x8xf32, ["N"]>
    pipe.yield %s : tensor<?x3x8x8xf32, ["N"]>
  }
  pipe.return %y : tensor<?x3x8x8xf32, ["N"]>
}
