// RUN: pipe-opt %s --pass-pipeline="builtin.module(pipe.pipeline(pipe-host-control))" | FileCheck %s
// Each decision of pipe-host-control (see Passes.td). The input is what
// `pipec --emit=mlir` makes of the frontend's if and for.

module {
  pipe.pipeline @blur_loop(%x: tensor<?x?xui8, ["H", "W"]> {pipe.name = "x"}, %n: tensor<si32> {pipe.name = "n"}) -> (tensor<?x?xui8, ["H", "W"]> {pipe.name = "y"}) {
    %0 = constant 0 : si32
    %1 = constant 3 : si32
    %2 = gaussian_blur %x window %1 : tensor<si32> axes [1] border reflect101 fill 0.000000e+00 : tensor<?x?xui8, ["H", "W"]> to tensor<?x?xui8, ["H", "W"]>
    %3 = constant 0 : si32
    %4 = lt %3, %n : tensor<si32>, tensor<si32> -> tensor<i1>
    %5 = select %4, %2, %x {pipe.merge = "'y' updated by the for loop"} : tensor<i1>, tensor<?x?xui8, ["H", "W"]>, tensor<?x?xui8, ["H", "W"]> -> tensor<?x?xui8, ["H", "W"]>
    %6 = constant 1 : si32
    %7 = constant 3 : si32
    %8 = gaussian_blur %5 window %7 : tensor<si32> axes [1] border reflect101 fill 0.000000e+00 : tensor<?x?xui8, ["H", "W"]> to tensor<?x?xui8, ["H", "W"]>
    %9 = constant 1 : si32
    %10 = lt %9, %n : tensor<si32>, tensor<si32> -> tensor<i1>
    %11 = select %10, %8, %5 {pipe.merge = "'y' updated by the for loop"} : tensor<i1>, tensor<?x?xui8, ["H", "W"]>, tensor<?x?xui8, ["H", "W"]> -> tensor<?x?xui8, ["H", "W"]>
    return %11 : tensor<?x?xui8, ["H", "W"]>
  }
  pipe.pipeline @ew_if(%x: tensor<?x?xf32, ["H", "W"]> {pipe.name = "x"}, %t: tensor<f32> {pipe.name = "t"}) -> (tensor<?x?xf32, ["H", "W"]> {pipe.name = "y"}) {
    %0 = constant 5.000000e-01 : f32
    %1 = gt %t, %0 : tensor<f32>, tensor<f32> -> tensor<i1>
    %2 = constant 2.000000e+00 : f32
    %3 = mul %x, %2 : tensor<?x?xf32, ["H", "W"]>, tensor<f32> -> tensor<?x?xf32, ["H", "W"]>
    %4 = select %1, %3, %x {pipe.merge = "'y' after the if"} : tensor<i1>, tensor<?x?xf32, ["H", "W"]>, tensor<?x?xf32, ["H", "W"]> -> tensor<?x?xf32, ["H", "W"]>
    return %4 : tensor<?x?xf32, ["H", "W"]>
  }
  pipe.pipeline @per_sample(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xui8, ["N", "W"]> {pipe.name = "y"}) {
    %0 = constant 200 : ui8
    %1 = gt %x, %0 : tensor<?x?xui8, ["N", "W"]>, tensor<ui8> -> tensor<?x?xi1, ["N", "W"]>
    %2 = reduce any %1 [1] keepdims : tensor<?x?xi1, ["N", "W"]> to tensor<?x1xi1, ["N"]>
    %3 = constant 5 : si32
    %4 = gaussian_blur %x window %3 : tensor<si32> axes [1] border reflect101 fill 0.000000e+00 : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["N", "W"]>
    %5 = broadcast %2 [0, 1] : tensor<?x1xi1, ["N"]> to tensor<?x?xi1, ["N", "W"]>
    %6 = select %5, %4, %x {pipe.merge = "'y' after the if"} : tensor<?x?xi1, ["N", "W"]>, tensor<?x?xui8, ["N", "W"]>, tensor<?x?xui8, ["N", "W"]> -> tensor<?x?xui8, ["N", "W"]>
    return %6 : tensor<?x?xui8, ["N", "W"]>
  }
  pipe.pipeline @requested(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %t: tensor<f32> {pipe.name = "t"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
    %0 = copy %t to host : tensor<f32>
    %1 = constant 5.000000e-01 : f32
    %2 = gt %0, %1 : tensor<f32>, tensor<f32> -> tensor<i1>
    %3 = constant 1.000000e+00 : f32
    %4 = add %x, %3 : tensor<?x?xf32, ["N", "W"]>, tensor<f32> -> tensor<?x?xf32, ["N", "W"]>
    %5 = select %2, %4, %x {pipe.merge = "'y' after the if"} : tensor<i1>, tensor<?x?xf32, ["N", "W"]>, tensor<?x?xf32, ["N", "W"]> -> tensor<?x?xf32, ["N", "W"]>
    return %5 : tensor<?x?xf32, ["N", "W"]>
  }

  // `y = s` in a branch with a scalar `s`: the select broadcast it; the
  // choose, which returns one operand as it is, gets it broadcast.
  pipe.pipeline @requested_scalar(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %s: tensor<f32> {pipe.name = "s"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
    %0 = reduce sum %x [0] : tensor<?xf32, ["N"]> to tensor<f32>
    %1 = constant 0.000000e+00 : f32
    %2 = gt %0, %1 : tensor<f32>, tensor<f32> -> tensor<i1>
    %3 = copy %2 to host : tensor<i1>
    %4 = select %3, %s, %x {pipe.merge = "'y' after the if"} : tensor<i1>, tensor<f32>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
    return %4 : tensor<?xf32, ["N"]>
  }
}

// A loop whose body blurs: each iteration is decided on the host, and the
// choice reads the scalar condition itself.
// CHECK-LABEL: pipe.pipeline @blur_loop
// CHECK-SAME: pipe.control = ["{{.*}}host-control.mlir:{{[0-9]+}}:{{[0-9]+}}: 'y' updated by the for loop: decided on the host: the side not taken holds a gaussian_blur, which then does not run", "{{.*}}: 'y' updated by the for loop: decided on the host{{.*}}"]
// CHECK:      %[[B0:.*]] = gaussian_blur %x
// CHECK:      %[[C0:.*]] = lt
// CHECK-NEXT: %[[Y1:.*]] = choose %[[C0]], %[[B0]], %x : tensor<i1>, tensor<?x?xui8, ["H", "W"]>
// CHECK:      %[[B1:.*]] = gaussian_blur %[[Y1]]
// CHECK:      %[[C1:.*]] = lt
// CHECK-NEXT: %[[Y2:.*]] = choose %[[C1]], %[[B1]], %[[Y1]]
// CHECK-NEXT: return %[[Y2]]

// Elementwise work is cheaper predicated: the select stays, its mark goes.
// CHECK-LABEL: pipe.pipeline @ew_if
// CHECK-SAME: pipe.control = ["{{.*}}: 'y' after the if: predicated on the GPU: the work it would skip is elementwise and fuses into the kernels around it"]
// CHECK:      select %{{.*}}, %{{.*}}, %x :
// CHECK-NOT:  pipe.merge
// CHECK-NOT:  choose

// A condition per sample cannot be decided once: predicated, blur and all.
// CHECK-LABEL: pipe.pipeline @per_sample
// CHECK-SAME: pipe.control = ["{{.*}}: 'y' after the if: predicated on the GPU: its condition differs between elements"]
// CHECK:      select
// CHECK-NOT:  choose

// .cpu() on (what computes) the condition asks for the host's decision.
// CHECK-LABEL: pipe.pipeline @requested
// CHECK-SAME: pipe.control = ["{{.*}}: 'y' after the if: decided on the host, as the source asks (.cpu() on the condition)"]
// CHECK:      %[[T:.*]] = copy %t to host
// CHECK:      %[[C:.*]] = gt %[[T]]
// CHECK:      choose %[[C]], %{{.*}}, %x

// CHECK-LABEL: pipe.pipeline @requested_scalar
// CHECK:      %[[C:.*]] = copy %{{.*}} to host : tensor<i1>
// CHECK:      %[[S:.*]] = broadcast %s [] : tensor<f32> to tensor<?xf32, ["N"]>
// CHECK-NEXT: choose %[[C]], %[[S]], %x : tensor<i1>, tensor<?xf32, ["N"]>
