// RUN: pipe-opt %s --pipe-fuse-elementwise -split-input-file | FileCheck %s

// A chain over one domain becomes one kernel; the constant is cloned in.
// CHECK-LABEL: pipe.pipeline @chain
// CHECK: %[[K:.*]] = kernel "chain_k0"(%x : tensor<?xui8, ["N"]>) -> tensor<?xui8, ["N"]> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<?xui8, ["N"]>):
// CHECK-NEXT:   %[[C:.*]] = pipe.constant 1.500000e+00 : f32
// CHECK-NEXT:   %[[F:.*]] = pipe.cast %[[A]]
// CHECK-NEXT:   %[[M:.*]] = pipe.mul %[[F]], %[[C]]
// CHECK-NEXT:   %[[U:.*]] = pipe.cast %[[M]]
// CHECK-NEXT:   pipe.yield %[[U]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
pipe.pipeline @chain(%x: tensor<?xui8, ["N"]> {pipe.name = "x"}) -> (tensor<?xui8, ["N"]> {pipe.name = "y"}) {
  %c = pipe.constant 1.5 : f32
  %0 = pipe.cast %x : tensor<?xui8, ["N"]> to tensor<?xf32, ["N"]>
  %1 = pipe.mul %0, %c : tensor<?xf32, ["N"]>, tensor<f32> -> tensor<?xf32, ["N"]>
  %2 = pipe.cast %1 : tensor<?xf32, ["N"]> to tensor<?xui8, ["N"]>
  pipe.return %2 : tensor<?xui8, ["N"]>
}

// -----

// A value both returned and used further is a kernel result; both results
// come from the one kernel.
// CHECK-LABEL: pipe.pipeline @two_outputs
// CHECK: %[[K:.*]]:2 = kernel "two_outputs_k0"(%x : tensor<?x3xf32, ["N"]>) -> tensor<?x3xf32, ["N"]>, tensor<?x3xf32, ["N"]>
// CHECK: pipe.yield %{{.*}}, %{{.*}} : tensor<?x3xf32, ["N"]>, tensor<?x3xf32, ["N"]>
// CHECK-NOT: kernel
// CHECK: return %[[K]]#0, %[[K]]#1
pipe.pipeline @two_outputs(%x: tensor<?x3xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?x3xf32, ["N"]> {pipe.name = "a"}, tensor<?x3xf32, ["N"]> {pipe.name = "b"}) {
  %0 = pipe.add %x, %x : tensor<?x3xf32, ["N"]>, tensor<?x3xf32, ["N"]> -> tensor<?x3xf32, ["N"]>
  %1 = pipe.mul %0, %x : tensor<?x3xf32, ["N"]>, tensor<?x3xf32, ["N"]> -> tensor<?x3xf32, ["N"]>
  pipe.return %0, %1 : tensor<?x3xf32, ["N"]>, tensor<?x3xf32, ["N"]>
}

// -----

// Different domains make different kernels.
// CHECK-LABEL: pipe.pipeline @domains
// CHECK: kernel "domains_k0"(%x : tensor<?xf32, ["N"]>)
// CHECK: kernel "domains_k1"(%y : tensor<?xf32, ["M"]>)
pipe.pipeline @domains(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %y: tensor<?xf32, ["M"]> {pipe.name = "y"}) -> (tensor<?xf32, ["N"]> {pipe.name = "a"}, tensor<?xf32, ["M"]> {pipe.name = "b"}) {
  %0 = pipe.add %x, %x : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
  %1 = pipe.add %y, %y : tensor<?xf32, ["M"]>, tensor<?xf32, ["M"]> -> tensor<?xf32, ["M"]>
  pipe.return %0, %1 : tensor<?xf32, ["N"]>, tensor<?xf32, ["M"]>
}

// -----

// Scalar arithmetic is cloned into the kernel that uses it, where codegen
// computes it once per thread; its rank-0 input comes in.
// CHECK-LABEL: pipe.pipeline @scalars
// CHECK: %[[K0:.*]] = kernel "scalars_k0"(%x, %g : tensor<?xf32, ["N"]>, tensor<f32>) -> tensor<?xf32, ["N"]>
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<?xf32, ["N"]>, %[[G:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[TWO:.*]] = pipe.constant 2.000000e+00 : f32
// CHECK-NEXT:   %[[S:.*]] = pipe.mul %[[G]], %[[TWO]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT:   pipe.mul %[[X]], %[[S]]
// CHECK-NOT: kernel
// CHECK-NOT: pipe.constant
// CHECK: return %[[K0]]
pipe.pipeline @scalars(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %g: tensor<f32> {pipe.name = "g"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  %c = pipe.constant 2.0 : f32
  %s = pipe.mul %g, %c : tensor<f32>, tensor<f32> -> tensor<f32>
  %0 = pipe.mul %x, %s : tensor<?xf32, ["N"]>, tensor<f32> -> tensor<?xf32, ["N"]>
  pipe.return %0 : tensor<?xf32, ["N"]>
}

// -----

// A scalar the pipeline returns gets a kernel of its own, computed once;
// the kernel over N reads its result as a rank-0 input.
// CHECK-LABEL: pipe.pipeline @returned_scalar
// CHECK: %[[S:.*]] = kernel "returned_scalar_k0"(%g : tensor<f32>) -> tensor<f32>
// CHECK: %[[Y:.*]] = kernel "returned_scalar_k1"(%x, %[[S]] : tensor<?xf32, ["N"]>, tensor<f32>)
// CHECK: return %[[Y]], %[[S]]
pipe.pipeline @returned_scalar(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}, %g: tensor<f32> {pipe.name = "g"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}, tensor<f32> {pipe.name = "s"}) {
  %c = pipe.constant 2.0 : f32
  %s = pipe.mul %g, %c : tensor<f32>, tensor<f32> -> tensor<f32>
  %0 = pipe.mul %x, %s : tensor<?xf32, ["N"]>, tensor<f32> -> tensor<?xf32, ["N"]>
  pipe.return %0, %s : tensor<?xf32, ["N"]>, tensor<f32>
}

// -----

// %b reads %a (kernel k0) and %k, which an op outside k0 computed from %a:
// putting %b into k0 would need %k before k0 ends, a cycle. So %b starts a
// kernel of its own after %k.
// CHECK-LABEL: pipe.pipeline @no_cycle
// CHECK: %[[A:.*]] = kernel "no_cycle_k0"(%x
// CHECK: %[[K:.*]] = kernel "opaque"(%[[A]]
// CHECK: %[[B:.*]] = kernel "no_cycle_k1"(%[[A]], %[[K]]
// CHECK: return %[[B]]
pipe.pipeline @no_cycle(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  %a = pipe.add %x, %x : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
  %k = pipe.kernel "opaque" (%a : tensor<?xf32, ["N"]>) -> tensor<?xf32, ["N"]> {
  ^bb0(%v: tensor<?xf32, ["N"]>):
    pipe.yield %v : tensor<?xf32, ["N"]>
  }
  %b = pipe.mul %a, %k : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
  pipe.return %b : tensor<?xf32, ["N"]>
}

// -----

// A DAG over several parameters is one kernel, whichever operand its ops
// start from.
// CHECK-LABEL: pipe.pipeline @dag
// CHECK: %[[K:.*]] = kernel "dag_k0"(%a, %b : tensor<?xui8, ["N"]>, tensor<?xsi32, ["N"]>)
// CHECK-NOT: kernel
// CHECK: return %[[K]]
pipe.pipeline @dag(%a: tensor<?xui8, ["N"]> {pipe.name = "a"}, %b: tensor<?xsi32, ["N"]> {pipe.name = "b"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}) {
  %0 = pipe.cast %a : tensor<?xui8, ["N"]> to tensor<?xf32, ["N"]>
  %1 = pipe.cast %b : tensor<?xsi32, ["N"]> to tensor<?xf32, ["N"]>
  %2 = pipe.add %0, %1 : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
  pipe.return %2 : tensor<?xf32, ["N"]>
}

// -----

// %c joins %a's kernel, which is placed after %c; "opaque" reads %a, so it
// moves after the kernel.
// CHECK-LABEL: pipe.pipeline @reorder
// CHECK: %[[K:.*]]:2 = kernel "reorder_k0"(%x
// CHECK: %[[O:.*]] = kernel "opaque"(%[[K]]#0
// CHECK: return %[[O]], %[[K]]#1
pipe.pipeline @reorder(%x: tensor<?xf32, ["N"]> {pipe.name = "x"}) -> (tensor<?xf32, ["N"]> {pipe.name = "y"}, tensor<?xf32, ["N"]> {pipe.name = "z"}) {
  %a = pipe.add %x, %x : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
  %k = pipe.kernel "opaque" (%a : tensor<?xf32, ["N"]>) -> tensor<?xf32, ["N"]> {
  ^bb0(%v: tensor<?xf32, ["N"]>):
    pipe.yield %v : tensor<?xf32, ["N"]>
  }
  %c = pipe.mul %x, %x : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]> -> tensor<?xf32, ["N"]>
  pipe.return %k, %c : tensor<?xf32, ["N"]>, tensor<?xf32, ["N"]>
}

// -----

// A broadcast of a value computed in the same kernel cannot be index
// arithmetic on an input: it starts a kernel that reads the first's result.
// CHECK-LABEL: pipe.pipeline @broadcast_of_kernel_value
// CHECK: %[[A:.*]] = kernel "broadcast_of_kernel_value_k0"(%x : tensor<?x?xf32, ["N", "N"]>) -> tensor<?x?xf32, ["N", "N"]>
// CHECK: kernel "broadcast_of_kernel_value_k1"(%[[A]] : tensor<?x?xf32, ["N", "N"]>)
// CHECK: pipe.broadcast %{{.*}} [1, 0]
pipe.pipeline @broadcast_of_kernel_value(%x: tensor<?x?xf32, ["N", "N"]> {pipe.name = "x"}) -> (tensor<?x?xf32, ["N", "N"]> {pipe.name = "y"}) {
  %a = pipe.add %x, %x : tensor<?x?xf32, ["N", "N"]>, tensor<?x?xf32, ["N", "N"]> -> tensor<?x?xf32, ["N", "N"]>
  %t = pipe.broadcast %a [1, 0] : tensor<?x?xf32, ["N", "N"]> to tensor<?x?xf32, ["N", "N"]>
  %b = pipe.mul %t, %a : tensor<?x?xf32, ["N", "N"]>, tensor<?x?xf32, ["N", "N"]> -> tensor<?x?xf32, ["N", "N"]>
  pipe.return %b : tensor<?x?xf32, ["N", "N"]>
}

// -----

// A kernel runs after the inputs of all its ops. The scalar %w feeds a blur
// whose cast shares a kernel with the cast that the reduction reads; the
// condition %c, computed from that reduction, depends on %w's kernel
// through that other kernel and cannot join it (it did: a cycle, "operand
// does not dominate this use"; issue 15).
// CHECK-LABEL: pipe.pipeline @cycle_through_sibling
// CHECK: %[[W:.*]] = kernel "cycle_through_sibling_k0"(%n : tensor<si32>) -> tensor<si32>
// CHECK: %[[B:.*]] = gaussian_blur %x window %[[W]]
// CHECK: %[[K:.*]]:3 = kernel "cycle_through_sibling_k1"(%[[B]], %x
// CHECK: %[[S:.*]] = reduce sum %[[K]]#1
// CHECK: %[[C:.*]] = kernel "cycle_through_sibling_k2"(%[[S]] : tensor<f32>) -> tensor<i1>
// CHECK: choose %[[C]], %[[K]]#2, %[[K]]#0
pipe.pipeline @cycle_through_sibling(%x: tensor<?x?x?xui8, ["N", "H", "W"]> {pipe.name = "x"}, %n: tensor<si32> {pipe.name = "n"}) -> (tensor<?x?x?xi1, ["N", "H", "W"]> {pipe.name = "y"}) {
  %three = pipe.constant 3.000000e+00 : f32
  %one = pipe.constant 1 : si32
  %w = pipe.or %n, %one : tensor<si32>, tensor<si32> -> tensor<si32>
  %b = pipe.gaussian_blur %x window %w : tensor<si32> axes [1, 2] border reflect101 fill 0.000000e+00 : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x?x?xui8, ["N", "H", "W"]>
  %bb = pipe.cast %b : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x?x?xi1, ["N", "H", "W"]>
  %xf = pipe.cast %x : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
  %s = pipe.reduce sum %xf [0, 1, 2] : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<f32>
  %c = pipe.gt %s, %three : tensor<f32>, tensor<f32> -> tensor<i1>
  %xb = pipe.cast %x : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x?x?xi1, ["N", "H", "W"]>
  %y = pipe.choose %c, %xb, %bb : tensor<i1>, tensor<?x?x?xi1, ["N", "H", "W"]>
  pipe.return %y : tensor<?x?x?xi1, ["N", "H", "W"]>
}

// -----

// %t begins kernel k0 and %r joins it later; %r reads %s1, a reduction of
// %cc (kernel k1). %gt, over %cc's domain, reads %s2, a reduction of %t: it
// cannot join k1, which would then run after k0 (through %s2) and before
// it (through %s1). The walk that looks for such a path stopped at ops
// older than k1's first (%t) and missed %r behind it (a cycle, "operand
// does not dominate this use", found by random_oracle.py).
// CHECK-LABEL: pipe.pipeline @cycle_through_earlier_kernel
// CHECK:       %[[CC:.*]] = kernel "cycle_through_earlier_kernel_k1"(%c
// CHECK:       %[[S1:.*]] = reduce sum %[[CC]]
// CHECK:       %[[K0:.*]]:2 = kernel "cycle_through_earlier_kernel_k0"(%a, %[[S1]]
// CHECK:       %[[S2:.*]] = reduce sum %[[K0]]#0
// CHECK:       %[[GT:.*]] = kernel "cycle_through_earlier_kernel_k2"(%[[S2]], %c
// CHECK:       return %[[K0]]#1, %[[GT]]
pipe.pipeline @cycle_through_earlier_kernel(%a: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "a"}, %c: tensor<1x?x?xf32, ["H", "W"]> {pipe.name = "c"}) -> (tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "r0"}, tensor<1x?x?xi1, ["H", "W"]> {pipe.name = "r2"}) {
  %t = pipe.add %a, %a : tensor<?x?x?xf32, ["N", "H", "W"]>, tensor<?x?x?xf32, ["N", "H", "W"]> -> tensor<?x?x?xf32, ["N", "H", "W"]>
  %cc = pipe.mul %c, %c : tensor<1x?x?xf32, ["H", "W"]>, tensor<1x?x?xf32, ["H", "W"]> -> tensor<1x?x?xf32, ["H", "W"]>
  %s1 = pipe.reduce sum %cc [0, 2] keepdims : tensor<1x?x?xf32, ["H", "W"]> to tensor<1x?x1xf32, ["H"]>
  %b1 = pipe.broadcast %s1 [0, 1, 2] : tensor<1x?x1xf32, ["H"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
  %r = pipe.add %b1, %t : tensor<?x?x?xf32, ["N", "H", "W"]>, tensor<?x?x?xf32, ["N", "H", "W"]> -> tensor<?x?x?xf32, ["N", "H", "W"]>
  %s2 = pipe.reduce sum %t [0] keepdims : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<1x?x?xf32, ["H", "W"]>
  %gt = pipe.gt %s2, %c : tensor<1x?x?xf32, ["H", "W"]>, tensor<1x?x?xf32, ["H", "W"]> -> tensor<1x?x?xi1, ["H", "W"]>
  pipe.return %r, %gt : tensor<?x?x?xf32, ["N", "H", "W"]>, tensor<1x?x?xi1, ["H", "W"]>
}

// -----

// The same through an older op: %t2 (kernel k0) is reduced to %s1 before
// %s3 begins kernel k1, whose reduction %u the later %r of k0 reads. %y
// reads %s1 and cannot join k1. A walk cut at k1's first op (%s3) stopped
// at %s1; it now covers the ops since the oldest kernel still growing
// when k1 began (k0).
// CHECK-LABEL: pipe.pipeline @cycle_through_older_op
// CHECK:       %[[S3:.*]] = kernel "cycle_through_older_op_k1"(%s
// CHECK:       %[[U:.*]] = reduce sum %[[S3]]
// CHECK:       %[[K0:.*]]:2 = kernel "cycle_through_older_op_k0"(%a, %[[U]]
// CHECK:       %[[S1:.*]] = reduce sum %[[K0]]#0
// CHECK:       %[[Y:.*]] = kernel "cycle_through_older_op_k2"(%[[S1]]
// CHECK:       return %[[K0]]#1, %[[Y]]
pipe.pipeline @cycle_through_older_op(%a: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "a"}, %s: tensor<1x1x1xf32> {pipe.name = "s"}) -> (tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "r"}, tensor<1x1x1xf32> {pipe.name = "y"}) {
  %t2 = pipe.add %a, %a : tensor<?x?x?xf32, ["N", "H", "W"]>, tensor<?x?x?xf32, ["N", "H", "W"]> -> tensor<?x?x?xf32, ["N", "H", "W"]>
  %s1 = pipe.reduce sum %t2 [0, 1, 2] keepdims : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<1x1x1xf32>
  %s3 = pipe.mul %s, %s : tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<1x1x1xf32>
  %u = pipe.reduce sum %s3 [0] keepdims : tensor<1x1x1xf32> to tensor<1x1x1xf32>
  %ub = pipe.broadcast %u [0, 1, 2] : tensor<1x1x1xf32> to tensor<?x?x?xf32, ["N", "H", "W"]>
  %r = pipe.add %t2, %ub : tensor<?x?x?xf32, ["N", "H", "W"]>, tensor<?x?x?xf32, ["N", "H", "W"]> -> tensor<?x?x?xf32, ["N", "H", "W"]>
  %y = pipe.mul %s1, %s1 : tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<1x1x1xf32>
  pipe.return %r, %y : tensor<?x?x?xf32, ["N", "H", "W"]>, tensor<1x1x1xf32>
}
