// RUN: pipe-opt %s --pass-pipeline="builtin.module(pipe.pipeline(pipe-fuse-elementwise,pipe-fuse-reductions))" | FileCheck %s
// Each decision of pipe-fuse-reductions (see Passes.td).

module {
  pipe.pipeline @single(%masks: tensor<?x?x?xui8, ["N", "H", "W"]> {pipe.name = "masks"}) -> (tensor<?xsi32, ["N"]> {pipe.name = "window"}) {
    %0 = constant 1 : si32
    %1 = constant 3.000000e+02 : f32
    %2 = constant 1.600000e+01 : f32
    %3 = constant 0 : ui8
    %4 = gt %masks, %3 : tensor<?x?x?xui8, ["N", "H", "W"]>, tensor<ui8> -> tensor<?x?x?xi1, ["N", "H", "W"]>
    %5 = cast %4 : tensor<?x?x?xi1, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
    %6 = reduce mean %5 [1, 2] : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?xf32, ["N"]>
    %7 = mul %6, %1 : tensor<?xf32, ["N"]>, tensor<f32> -> tensor<?xf32, ["N"]>
    %8 = add %2, %7 : tensor<f32>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
    %9 = cast %8 : tensor<?xf32, ["N"]> to tensor<?xsi32, ["N"]>
    %10 = or %9, %0 : tensor<?xsi32, ["N"]>, tensor<si32> -> tensor<?xsi32, ["N"]>
    return %10 : tensor<?xsi32, ["N"]>
  }
  pipe.pipeline @shared(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}, tensor<?xf32, ["N"]> {pipe.name = "s"}) {
    %0 = constant 2.000000e+00 : f32
    %1 = cast %x : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
    %2 = mul %1, %0 : tensor<?x?xf32, ["N", "W"]>, tensor<f32> -> tensor<?x?xf32, ["N", "W"]>
    %3 = reduce sum %2 [1] : tensor<?x?xf32, ["N", "W"]> to tensor<?xf32, ["N"]>
    return %2, %3 : tensor<?x?xf32, ["N", "W"]>, tensor<?xf32, ["N"]>
  }
  pipe.pipeline @wide(%a: tensor<?x?xf32, ["N", "W"]> {pipe.name = "a"}, %b: tensor<?x?xf32, ["N", "W"]> {pipe.name = "b"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}, tensor<?xf32, ["N"]> {pipe.name = "s"}) {
    %0 = mul %a, %b : tensor<?x?xf32, ["N", "W"]>, tensor<?x?xf32, ["N", "W"]> -> tensor<?x?xf32, ["N", "W"]>
    %1 = reduce sum %0 [1] : tensor<?x?xf32, ["N", "W"]> to tensor<?xf32, ["N"]>
    return %0, %1 : tensor<?x?xf32, ["N", "W"]>, tensor<?xf32, ["N"]>
  }
  pipe.pipeline @centered(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "c"}, tensor<?xf32, ["N"]> {pipe.name = "m"}) {
    %0 = reduce mean %x [1] : tensor<?x?xf32, ["N", "W"]> to tensor<?xf32, ["N"]>
    %1 = reshape %0 : tensor<?xf32, ["N"]> to tensor<?x1xf32, ["N"]>
    %2 = broadcast %1 [0, 1] : tensor<?x1xf32, ["N"]> to tensor<?x?xf32, ["N", "W"]>
    %3 = sub %x, %2 : tensor<?x?xf32, ["N", "W"]>, tensor<?x?xf32, ["N", "W"]> -> tensor<?x?xf32, ["N", "W"]>
    return %3, %0 : tensor<?x?xf32, ["N", "W"]>, tensor<?xf32, ["N"]>
  }
  pipe.pipeline @param(%x: tensor<?x?xsi16, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?xsi16, ["W"]> {pipe.name = "lo"}) {
    %0 = reduce min %x [0] : tensor<?x?xsi16, ["N", "W"]> to tensor<?xsi16, ["W"]>
    return %0 : tensor<?xsi16, ["W"]>
  }
}


// The producer has no other user: its slice becomes the prologue (the u8
// masks are read, not the f32 value) and the kernel over [N] consuming the
// mean becomes the epilogue; nothing else is left.
// CHECK-LABEL: pipe.pipeline @single
// CHECK-NOT: kernel "
// CHECK: reduce_kernel mean [1, 2] "single_r0"(%masks : tensor<?x?x?xui8, ["N", "H", "W"]>) epilogue() -> tensor<?xsi32, ["N"]> prologue {
// CHECK: pipe.gt
// CHECK: pipe.cast {{.*}} to tensor<?x?x?xf32
// CHECK: } epilogue {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<?xf32, ["N"]>):
// CHECK: pipe.or
// CHECK: return %0

// y is also a result, but recomputing it from u8 (1 byte) beats reading the
// stored f32 (4 bytes): the kernel stays for y, the reduction reads x.
// CHECK-LABEL: pipe.pipeline @shared
// CHECK: %[[Y:.*]] = kernel "shared_k0"(%x
// CHECK: %[[S:.*]] = reduce_kernel sum [1] "shared_r0"(%x : tensor<?x?xui8, ["N", "W"]>)
// CHECK: pipe.mul
// CHECK: return %[[Y]], %[[S]]

// a * b reads 8 bytes per element, more than the 4 of the stored product:
// the reduction reads the kernel's result.
// CHECK-LABEL: pipe.pipeline @wide
// CHECK: %[[Y:.*]] = kernel "wide_k0"(%a, %b
// CHECK: reduce_kernel sum [1] "wide_r0"(%[[Y]] : tensor<?x?xf32, ["N", "W"]>)
// CHECK-NEXT: ^bb0(%[[ARG:.*]]: tensor<?x?xf32, ["N", "W"]>):
// CHECK-NEXT: pipe.yield %[[ARG]]

// The consumer reads the mean through a broadcast (another domain): no
// epilogue; the mean is a result of the reduction and feeds the kernel.
// CHECK-LABEL: pipe.pipeline @centered
// CHECK: %[[M:.*]] = reduce_kernel mean [1] "centered_r0"(%x
// CHECK: } epilogue {
// CHECK-NEXT: ^bb0(%[[R:.*]]: tensor<?xf32, ["N"]>):
// CHECK-NEXT: pipe.yield %[[R]]
// CHECK: reshape %[[M]]
// CHECK: kernel "centered_k0"
// CHECK: return %{{.*}}, %[[M]]

// A reduction of a parameter: the prologue only reads it.
// CHECK-LABEL: pipe.pipeline @param
// CHECK: reduce_kernel min [0] "param_r0"(%x : tensor<?x?xsi16, ["N", "W"]>) epilogue() -> tensor<?xsi16, ["W"]>
