// RUN: pipe-opt %s --canonicalize -split-input-file | FileCheck %s

// A transpose becomes a broadcast with the inverse permutation.
// CHECK-LABEL: pipe.pipeline @transpose
// CHECK: %[[B:.*]] = broadcast %x [0, 2, 3, 1] : tensor<?x?x?x3xf32, ["N", "H", "W"]> to tensor<?x3x?x?xf32, ["N", "H", "W"]>
// CHECK-NEXT: return %[[B]]
pipe.pipeline @transpose(%x: tensor<?x?x?x3xf32, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x3x?x?xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
  %0 = pipe.transpose %x [0, 3, 1, 2] : tensor<?x?x?x3xf32, ["N", "H", "W"]> to tensor<?x3x?x?xf32, ["N", "H", "W"]>
  pipe.return %0 : tensor<?x3x?x?xf32, ["N", "H", "W"]>
}

// -----

// Two broadcasts compose into one (operand dim 0 -> dim 1 -> dim 0); an
// identity broadcast folds away.
// CHECK-LABEL: pipe.pipeline @compose
// CHECK: %[[B:.*]] = broadcast %x [0] : tensor<3xf32> to tensor<3x?xf32, ["N"]>
// CHECK-NEXT: return %[[B]], %x
pipe.pipeline @compose(%x: tensor<3xf32> {pipe.name = "x"}) -> (tensor<3x?xf32, ["N"]> {pipe.name = "y"}, tensor<3xf32> {pipe.name = "z"}) {
  %0 = pipe.broadcast %x [1] : tensor<3xf32> to tensor<?x3xf32, ["N"]>
  %1 = pipe.broadcast %0 [1, 0] : tensor<?x3xf32, ["N"]> to tensor<3x?xf32, ["N"]>
  %2 = pipe.broadcast %x [0] : tensor<3xf32> to tensor<3xf32>
  pipe.return %1, %2 : tensor<3x?xf32, ["N"]>, tensor<3xf32>
}

// -----

// A broadcast moves through an elementwise op to its operands (a scalar
// operand stays a scalar); the elementwise op then computes in the
// broadcast's shape.
// CHECK-LABEL: pipe.pipeline @sink
// CHECK: %[[BX:.*]] = broadcast %x [1, 0] : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["W", "N"]>
// CHECK: %[[C:.*]] = cast %[[BX]] : tensor<?x?xui8, ["W", "N"]> to tensor<?x?xf32, ["W", "N"]>
// CHECK: %[[M:.*]] = mul %[[C]], %s : tensor<?x?xf32, ["W", "N"]>, tensor<f32> -> tensor<?x?xf32, ["W", "N"]>
// CHECK: return %[[M]]
pipe.pipeline @sink(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}, %s: tensor<f32> {pipe.name = "s"}) -> (tensor<?x?xf32, ["W", "N"]> {pipe.name = "y"}) {
  %0 = pipe.cast %x : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
  %1 = pipe.mul %0, %s : tensor<?x?xf32, ["N", "W"]>, tensor<f32> -> tensor<?x?xf32, ["N", "W"]>
  %2 = pipe.broadcast %1 [1, 0] : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["W", "N"]>
  pipe.return %2 : tensor<?x?xf32, ["W", "N"]>
}

// -----

// Constants stay where they are (they become buffers, not recomputation).
// CHECK-LABEL: pipe.pipeline @constant
// CHECK: %[[C:.*]] = constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: broadcast %[[C]] [1]
pipe.pipeline @constant() -> (tensor<3x2xf32> {pipe.name = "y"}) {
  %c = pipe.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = pipe.broadcast %c [1] : tensor<2xf32> to tensor<3x2xf32>
  pipe.return %0 : tensor<3x2xf32>
}

// -----

// A choice with a known condition, or between one value, is that value.
// CHECK-LABEL: pipe.pipeline @choose_folds
// CHECK-NOT: choose
// CHECK: return %b, %a
pipe.pipeline @choose_folds(%c: tensor<i1> {pipe.name = "c"}, %a: tensor<?xf32, ["N"]> {pipe.name = "a"}, %b: tensor<?xf32, ["N"]> {pipe.name = "b"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}, tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  %f = pipe.constant false
  %0 = pipe.choose %f, %a, %b : tensor<i1>, tensor<?xf32, ["N"]>
  %1 = pipe.choose %c, %a, %a : tensor<i1>, tensor<?xf32, ["N"]>
  pipe.return %0, %1 : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]>
}

// -----

// Scalar elementwise ops of constants fold, computed as the kernels compute
// them (wrapping integers, saturating casts rounding half to even, f32
// arithmetic); exp and the like, whose CUDA forms may differ from the
// host's in the last bits, are left to the kernel.
// CHECK-LABEL: pipe.pipeline @fold_scalars
// CHECK-DAG: %[[A:.*]] = constant 4 : ui8
// CHECK-DAG: %[[B:.*]] = constant true
// CHECK-DAG: %[[C:.*]] = constant 2 : ui8
// CHECK-DAG: %[[D:.*]] = constant 0.333333343 : f32
// CHECK-DAG: %[[E:.*]] = constant -4 : si32
// CHECK-DAG: %[[T:.*]] = constant 1.000000e+00 : f32
// CHECK:     %[[X:.*]] = exp %[[T]]
// CHECK:     return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[X]]
pipe.pipeline @fold_scalars() -> (tensor<ui8> {pipe.name = "a"}, tensor<i1> {pipe.name = "b"}, tensor<ui8> {pipe.name = "c"}, tensor<f32> {pipe.name = "d"}, tensor<si32> {pipe.name = "e"}, tensor<f32> {pipe.name = "x"}) {
  %u250 = pipe.constant 250 : ui8
  %u10 = pipe.constant 10 : ui8
  %a = pipe.add %u250, %u10 : tensor<ui8>, tensor<ui8> -> tensor<ui8>
  %i0 = pipe.constant 0 : si32
  %i1 = pipe.constant 1 : si32
  %b = pipe.lt %i0, %i1 : tensor<si32>, tensor<si32> -> tensor<i1>
  %f = pipe.constant 2.5 : f32
  %c = pipe.cast %f : tensor<f32> to tensor<ui8>
  %one = pipe.constant 1.0 : f32
  %three = pipe.constant 3.0 : f32
  %d = pipe.div %one, %three : tensor<f32>, tensor<f32> -> tensor<f32>
  %m7 = pipe.constant -7 : si32
  %two = pipe.constant 2 : si32
  %e = pipe.floordiv %m7, %two : tensor<si32>, tensor<si32> -> tensor<si32>
  %x = pipe.exp %one : tensor<f32> -> tensor<f32>
  pipe.return %a, %b, %c, %d, %e, %x : tensor<ui8>, tensor<i1>, tensor<ui8>, tensor<f32>, tensor<si32>, tensor<f32>
}

// -----

// A slice within one input of a concat is that slice of the input; a slice
// that only drops dims a broadcast inserted is the broadcast's input (a
// column of stack([y, x], axis = 1) is y).
// CHECK-LABEL: pipe.pipeline @slice_of_stack
// CHECK-NOT:   concat
// CHECK:       %[[S:.*]] = slice %z starts ["0", "1"] steps [1, 1] dropped [false, true]
// CHECK:       return %x, %y, %[[S]]
pipe.pipeline @slice_of_stack(%x: tensor<?xsi32, ["N"]> {pipe.name = "x"}, %y: tensor<?xsi32, ["N"]> {pipe.name = "y"}, %z: tensor<?x3xsi32, ["N"]> {pipe.name = "z"}) -> (tensor<?xsi32, ["N"]> {pipe.name = "a"}, tensor<?xsi32, ["N"]> {pipe.name = "b"}, tensor<?xsi32, ["N"]> {pipe.name = "c"}) {
  %bx = pipe.broadcast %x [0] : tensor<?xsi32, ["N"]> to tensor<?x1xsi32, ["N"]>
  %by = pipe.broadcast %y [0] : tensor<?xsi32, ["N"]> to tensor<?x1xsi32, ["N"]>
  %s = pipe.concat %bx, %by, %z axis 1 : tensor<?x1xsi32, ["N"]>, tensor<?x1xsi32, ["N"]>, tensor<?x3xsi32, ["N"]> to tensor<?x5xsi32, ["N"]>
  %a = pipe.slice %s starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x5xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  %b = pipe.slice %s starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x5xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  %c = pipe.slice %s starts ["0", "3"] steps [1, 1] dropped [false, true] : tensor<?x5xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  pipe.return %a, %b, %c : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>
}
