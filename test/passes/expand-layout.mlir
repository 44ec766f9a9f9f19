// RUN: pipe-opt %s --pass-pipeline='builtin.module(pipe.pipeline(pipe-expand-layout))' | FileCheck %s
// pipe-expand-layout: layout ops that are no total index map become maps,
// coordinates and selects, each read clamped into its input; unclamped
// maps get the checks they need.

// A crop that pads: the clamped crop, selected where the window is inside.
// CHECK-LABEL: pipe.pipeline @croppad
// CHECK:       %[[FILL:.*]] = constant 9 : ui8
// CHECK:       %[[CROP:.*]] = crop %x anchors(%a : tensor<?xsi32, ["N"]>) axes [1] out_of_bounds clamp
// CHECK:       %[[C:.*]] = coordinate axis 1 : tensor<?x4xsi64, ["N"]>
// CHECK:       %[[POS:.*]] = add %[[C]], %{{.*}} : tensor<?x4xsi64, ["N"]>
// CHECK:       %[[W:.*]] = dim "W" : tensor<si64>
// CHECK:       lt %[[POS]], %[[W]]
// CHECK:       %[[IN:.*]] = and
// CHECK:       select %[[IN]], %[[CROP]], %[[FILL]]

// A constant pad: the clamped pad, selected inside [before, before + W).
// CHECK-LABEL: pipe.pipeline @padc
// CHECK:       %[[FILL:.*]] = constant 5 : ui8
// CHECK:       %[[PAD:.*]] = pad %x axes [1] before ["1"] after ["2"] border clamp
// CHECK:       dim "W + 1" : tensor<si64>
// CHECK:       select %{{.*}}, %[[PAD]], %[[FILL]]

// A concat: each input placed by a clamped pad, selected by the coordinate.
// CHECK-LABEL: pipe.pipeline @cat
// CHECK:       %[[PA:.*]] = pad %a axes [1] before ["0"] after ["3"] border clamp
// CHECK:       %[[PB:.*]] = pad %b axes [1] before ["2"] after ["0"] border clamp
// CHECK:       %[[C:.*]] = coordinate axis 1 : tensor<?x5xsi64, ["N"]>
// CHECK:       %[[LT:.*]] = lt %[[C]], %{{.*}}
// CHECK:       select %[[LT]], %[[PA]], %[[PB]]

// An erase: the fill where the coordinate is inside [anchor, anchor + size).
// CHECK-LABEL: pipe.pipeline @er
// CHECK:       %[[IN:.*]] = and
// CHECK:       %[[F:.*]] = broadcast %f [0]
// CHECK:       select %[[IN]], %[[F]], %x

// A crop's anchors given as one tensor [N, 2], with out_of_bounds = error:
// one check of the tensor, bounds per column; the crop reads its columns.
// CHECK-LABEL: pipe.pipeline @cropchk
// CHECK:       %[[CHK:.*]] = check_bounds %a lo ["0", "0"] hi ["H - 4", "W - 4"] messages ["crop at {{.*}}: the anchor along dim 1 of sample {at} is {value}, outside [{lo}, {hi}]", "crop at {{.*}}: the anchor along dim 2 of sample {at} is {value}, outside [{lo}, {hi}]"]
// CHECK:       %[[Y:.*]] = slice %[[CHK]] starts ["0", "0"]
// CHECK:       %[[X:.*]] = slice %[[CHK]] starts ["0", "1"]
// CHECK:       crop %x anchors(%[[Y]], %[[X]] : {{.*}}) axes [1, 2] out_of_bounds error fill 0 : ui8 {pipe.checked}

// Anchors known from the dims (H - 5, 2): conditions on the dims, checked
// when the run binds them, and no check on the GPU.
// CHECK-LABEL: pipe.pipeline @cropdims
// CHECK-NOT:   check_bounds
// CHECK:       crop %x {{.*}} {dim_check_reasons = ["the anchor along dim 1 (H - 5) is negative", "the anchor along dim 2 (2) puts the window of 4 past the end of the dim (W)"], dim_checks = ["H - 5", "W - 6"], pipe.checked}

// A take's indices lie in [-size, size).
// CHECK-LABEL: pipe.pipeline @tk
// CHECK:       %[[CHK:.*]] = check_bounds %p lo ["-N"] hi ["N - 1"] messages ["take at {{.*}}: index {value} at {at} of the indices is outside [{lo}, {hi}]"]
// CHECK:       take %x, %[[CHK]] axis 0

// An erase's anchors stack([a, b], axis = 1): its columns are a and b
// (slices of a stack fold before the stack is expanded).
// CHECK-LABEL: pipe.pipeline @stk
// CHECK-NOT:   concat
// CHECK-NOT:   slice
// CHECK:       broadcast %a [0]
// CHECK:       broadcast %b [0]
// CHECK:       select
// A concat's part empty in its type is left out; with one part left, the
// concat is that part.
// CHECK-LABEL: pipe.pipeline @catempty
// CHECK-NOT:   pad %a
// CHECK:       %[[PB:.*]] = pad %b axes [1] before ["0"] after ["2"] border clamp
// CHECK:       %[[PC:.*]] = pad %c axes [1] before ["3"] after ["0"] border clamp
// CHECK:       select %{{.*}}, %[[PB]], %[[PC]]
// CHECK-LABEL: pipe.pipeline @catone
// CHECK-NEXT:  return %b

// A part only the run may find empty: a dim check in the concat's name (it
// passes when the result is empty: nothing is read).
// CHECK-LABEL: pipe.pipeline @catdyn
// CHECK:       pad %a {{.*}} {dim_check_op = "concat", dim_check_reasons = ["its input 0 is empty along dim 1 in this run; only a part empty in its type (a literal 0) may be"], dim_checks = ["max(-min(A + 3, N), A - 1)"]}

// A constant pad of a dim empty in its type is all fill: nothing is read.
// CHECK-LABEL: pipe.pipeline @padempty
// CHECK:       %[[F:.*]] = constant 5 : ui8
// CHECK-NEXT:  %[[B:.*]] = broadcast %[[F]] [] : tensor<ui8> to tensor<?x3xui8, ["N"]>
// CHECK-NEXT:  return %[[B]]
module {
  pipe.pipeline @croppad(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<?x4xui8, ["N"]> {pipe.name = "y"}) {
    %0 = crop %x anchors(%a : tensor<?xsi32, ["N"]>) axes [1] out_of_bounds pad fill 9 : ui8 : tensor<?x?xui8, ["N", "W"]> to tensor<?x4xui8, ["N"]>
    return %0 : tensor<?x4xui8, ["N"]>
  }
  pipe.pipeline @padc(%x: tensor<?x?xui8, ["N", "W"]> {pipe.name = "x"}) -> (tensor<?x?xui8, ["N", "W + 3"]> {pipe.name = "y"}) {
    %0 = pad %x axes [1] before ["1"] after ["2"] border constant fill 5 : ui8 : tensor<?x?xui8, ["N", "W"]> to tensor<?x?xui8, ["N", "W + 3"]>
    return %0 : tensor<?x?xui8, ["N", "W + 3"]>
  }
  pipe.pipeline @cat(%a: tensor<?x2xui8, ["N"]> {pipe.name = "a"}, %b: tensor<?x3xui8, ["N"]> {pipe.name = "b"}) -> (tensor<?x5xui8, ["N"]> {pipe.name = "y"}) {
    %0 = concat %a, %b axis 1 : tensor<?x2xui8, ["N"]>, tensor<?x3xui8, ["N"]> to tensor<?x5xui8, ["N"]>
    return %0 : tensor<?x5xui8, ["N"]>
  }
  pipe.pipeline @er(%x: tensor<?x?xf32, ["N", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}, %f: tensor<?xf32, ["N"]> {pipe.name = "f"}) -> (tensor<?x?xf32, ["N", "W"]> {pipe.name = "y"}) {
    %0 = constant 3 : si64
    %1 = erase %x anchors(%a : tensor<?xsi32, ["N"]>) shapes(%0 : tensor<si64>) fill %f : tensor<?xf32, ["N"]> axes [1] regions 1 : tensor<?x?xf32, ["N", "W"]> to tensor<?x?xf32, ["N", "W"]>
    return %1 : tensor<?x?xf32, ["N", "W"]>
  }
  pipe.pipeline @cropchk(%x: tensor<?x?x?xui8, ["N", "H", "W"]> {pipe.name = "x"}, %a: tensor<?x2xsi32, ["N"]> {pipe.name = "a"}) -> (tensor<?x4x4xui8, ["N"]> {pipe.name = "y"}) {
    %0 = slice %a starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
    %1 = slice %a starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
    %2 = crop %x anchors(%0, %1 : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) axes [1, 2] out_of_bounds error fill 0 : ui8 : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x4x4xui8, ["N"]>
    return %2 : tensor<?x4x4xui8, ["N"]>
  }
  pipe.pipeline @cropdims(%x: tensor<?x?x?xui8, ["N", "H", "W"]> {pipe.name = "x"}) -> (tensor<?x4x4xui8, ["N"]> {pipe.name = "y"}) {
    %0 = dim "H" : tensor<si64>
    %1 = constant 5 : si64
    %2 = sub %0, %1 : tensor<si64>, tensor<si64> -> tensor<si64>
    %3 = constant 2 : si64
    %4 = crop %x anchors(%2, %3 : tensor<si64>, tensor<si64>) axes [1, 2] out_of_bounds error fill 0 : ui8 : tensor<?x?x?xui8, ["N", "H", "W"]> to tensor<?x4x4xui8, ["N"]>
    return %4 : tensor<?x4x4xui8, ["N"]>
  }
  pipe.pipeline @tk(%x: tensor<?x?xf32, ["N", "C"]> {pipe.name = "x"}, %p: tensor<?xsi32, ["K"]> {pipe.name = "p"}) -> (tensor<?x?xf32, ["K", "C"]> {pipe.name = "y"}) {
    %0 = take %x, %p axis 0 : tensor<?x?xf32, ["N", "C"]>, tensor<?xsi32, ["K"]> to tensor<?x?xf32, ["K", "C"]>
    return %0 : tensor<?x?xf32, ["K", "C"]>
  }
  pipe.pipeline @stk(%x: tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "x"}, %a: tensor<?xsi32, ["N"]> {pipe.name = "a"}, %b: tensor<?xsi32, ["N"]> {pipe.name = "b"}) -> (tensor<?x?x?xf32, ["N", "H", "W"]> {pipe.name = "y"}) {
    %0 = broadcast %a [0] : tensor<?xsi32, ["N"]> to tensor<?x1xsi32, ["N"]>
    %1 = broadcast %b [0] : tensor<?xsi32, ["N"]> to tensor<?x1xsi32, ["N"]>
    %2 = concat %0, %1 axis 1 : tensor<?x1xsi32, ["N"]>, tensor<?x1xsi32, ["N"]> to tensor<?x2xsi32, ["N"]>
    %3 = slice %2 starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
    %4 = slice %2 starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
    %5 = constant 2 : si64
    %6 = constant 2 : si64
    %7 = constant 0.000000e+00 : f32
    %8 = erase %x anchors(%3, %4 : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) shapes(%5, %6 : tensor<si64>, tensor<si64>) fill %7 : tensor<f32> axes [1, 2] regions 1 : tensor<?x?x?xf32, ["N", "H", "W"]> to tensor<?x?x?xf32, ["N", "H", "W"]>
    return %8 : tensor<?x?x?xf32, ["N", "H", "W"]>
  }
  pipe.pipeline @catempty(%a: tensor<?x0xui8, ["N"]> {pipe.name = "a"}, %b: tensor<?x3xui8, ["N"]> {pipe.name = "b"}, %c: tensor<?x2xui8, ["N"]> {pipe.name = "c"}) -> (tensor<?x5xui8, ["N"]> {pipe.name = "y"}) {
    %0 = concat %a, %b, %c axis 1 : tensor<?x0xui8, ["N"]>, tensor<?x3xui8, ["N"]>, tensor<?x2xui8, ["N"]> to tensor<?x5xui8, ["N"]>
    return %0 : tensor<?x5xui8, ["N"]>
  }
  pipe.pipeline @catone(%a: tensor<?x0xui8, ["N"]> {pipe.name = "a"}, %b: tensor<?x3xui8, ["N"]> {pipe.name = "b"}) -> (tensor<?x3xui8, ["N"]> {pipe.name = "y"}) {
    %0 = concat %a, %b axis 1 : tensor<?x0xui8, ["N"]>, tensor<?x3xui8, ["N"]> to tensor<?x3xui8, ["N"]>
    return %0 : tensor<?x3xui8, ["N"]>
  }
  pipe.pipeline @catdyn(%a: tensor<?x?xui8, ["N", "A"]> {pipe.name = "a"}, %b: tensor<?x3xui8, ["N"]> {pipe.name = "b"}) -> (tensor<?x?xui8, ["N", "A + 3"]> {pipe.name = "y"}) {
    %0 = concat %a, %b axis 1 : tensor<?x?xui8, ["N", "A"]>, tensor<?x3xui8, ["N"]> to tensor<?x?xui8, ["N", "A + 3"]>
    return %0 : tensor<?x?xui8, ["N", "A + 3"]>
  }
  pipe.pipeline @padempty(%x: tensor<?x0xui8, ["N"]> {pipe.name = "x"}) -> (tensor<?x3xui8, ["N"]> {pipe.name = "y"}) {
    %0 = pad %x axes [1] before ["1"] after ["2"] border constant fill 5 : ui8 : tensor<?x0xui8, ["N"]> to tensor<?x3xui8, ["N"]>
    return %0 : tensor<?x3xui8, ["N"]>
  }
}
