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
