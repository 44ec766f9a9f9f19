// RUN: pipe-opt %s | pipe-opt | FileCheck %s
// The layout ops print and parse back: dim expressions in types and in
// starts, bounds and checks; per-sample anchors, flags and fills as
// operands; enum keywords for out_of_bounds and borders.

// CHECK: %{{[0-9]+}} = slice %x starts ["0", "1", "0", "0"] steps [1, 1, 2, 1] dropped [false, false, false, false] checks ["H - 2"] : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H - 2", "ceil(W / 2)"]>
// CHECK: %{{[0-9]+}} = slice %a starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
// CHECK: %{{[0-9]+}} = slice %a starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
// CHECK: %{{[0-9]+}} = crop %x anchors(%{{[0-9]+}}, %{{[0-9]+}} : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) axes [1, 2] out_of_bounds error fill 0 : ui8 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x5x4x3xui8, ["N"]>
// CHECK: %{{[0-9]+}} = flip %x when %m : tensor<?xi1, ["N"]> axes [2] : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
// CHECK: %{{[0-9]+}} = pad %x axes [1] before ["1"] after ["2"] border reflect101 fill 0 : ui8 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H + 3", "W"]>
// CHECK: %{{[0-9]+}} = take %x, %perm axis 0 : tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?xsi32, ["N"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
// CHECK: %{{[0-9]+}} = concat %x, %x axis 3 : tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x6xui8, ["N", "H", "W"]>
// CHECK: %{{[0-9]+}} = coordinate axis 1 : tensor<?x?xsi32, ["N", "H"]>
// CHECK: %{{[0-9]+}} = slice %a starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
// CHECK: %{{[0-9]+}} = slice %a starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
// CHECK: %{{[0-9]+}} = erase %{{[0-9]+}} anchors(%{{[0-9]+}}, %{{[0-9]+}} : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) shapes(%{{[0-9]+}}, %{{[0-9]+}} : tensor<si64>, tensor<si64>) fill %f : tensor<?xf32, ["N"]> axes [1, 2] regions 1 : tensor<?x?x?x3xf32, ["N", "H", "W"]> to tensor<?x?x?x3xf32, ["N", "H", "W"]>
// CHECK: %{{[0-9]+}} = dim "W" : tensor<si64>
// CHECK: %{{[0-9]+}} = check_bounds %a lo ["0", "0"] hi ["H - 5", "W - 4"] messages ["anchor {value} at {at}", "anchor {value} at {at}"] : tensor<?x2xsi32, ["N"]>
pipe.pipeline @p(%x: tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "x"}, %a: tensor<?x2xsi32, ["N"]> {pipe.name = "a"}, %m: tensor<?xi1, ["N"]> {pipe.name = "m"}, %f: tensor<?xf32, ["N"]> {pipe.name = "f"}, %perm: tensor<?xsi32, ["N"]> {pipe.name = "perm"}) -> (tensor<?x?x?x3xui8, ["N", "H - 2", "ceil(W / 2)"]> {pipe.name = "s"}, tensor<?x5x4x3xui8, ["N"]> {pipe.name = "c"}, tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "fl"}, tensor<?x?x?x3xui8, ["N", "H + 3", "W"]> {pipe.name = "pd"}, tensor<?x?x?x3xui8, ["N", "H", "W"]> {pipe.name = "t"}, tensor<?x?x?x6xui8, ["N", "H", "W"]> {pipe.name = "k"}, tensor<?x?xsi32, ["N", "H"]> {pipe.name = "i"}, tensor<?x?x?x3xf32, ["N", "H", "W"]> {pipe.name = "e"}, tensor<?xsi64, ["N"]> {pipe.name = "d"}) {
  %0 = slice %x starts ["0", "1", "0", "0"] steps [1, 1, 2, 1] dropped [false, false, false, false] checks ["H - 2"] : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H - 2", "ceil(W / 2)"]>
  %1 = slice %a starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  %2 = slice %a starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  %3 = crop %x anchors(%1, %2 : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) axes [1, 2] out_of_bounds error fill 0 : ui8 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x5x4x3xui8, ["N"]>
  %4 = flip %x when %m : tensor<?xi1, ["N"]> axes [2] : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  %5 = pad %x axes [1] before ["1"] after ["2"] border reflect101 fill 0 : ui8 : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xui8, ["N", "H + 3", "W"]>
  %6 = take %x, %perm axis 0 : tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?xsi32, ["N"]> to tensor<?x?x?x3xui8, ["N", "H", "W"]>
  %7 = concat %x, %x axis 3 : tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x6xui8, ["N", "H", "W"]>
  %8 = coordinate axis 1 : tensor<?x?xsi32, ["N", "H"]>
  %9 = cast %x : tensor<?x?x?x3xui8, ["N", "H", "W"]> to tensor<?x?x?x3xf32, ["N", "H", "W"]>
  %10 = slice %a starts ["0", "0"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  %11 = slice %a starts ["0", "1"] steps [1, 1] dropped [false, true] : tensor<?x2xsi32, ["N"]> to tensor<?xsi32, ["N"]>
  %12 = constant 2 : si64
  %13 = constant 2 : si64
  %14 = erase %9 anchors(%10, %11 : tensor<?xsi32, ["N"]>, tensor<?xsi32, ["N"]>) shapes(%12, %13 : tensor<si64>, tensor<si64>) fill %f : tensor<?xf32, ["N"]> axes [1, 2] regions 1 : tensor<?x?x?x3xf32, ["N", "H", "W"]> to tensor<?x?x?x3xf32, ["N", "H", "W"]>
  %15 = dim "W" : tensor<si64>
  %16 = constant 1 : si64
  %17 = sub %15, %16 : tensor<si64>, tensor<si64> -> tensor<si64>
  %18 = broadcast %17 [] : tensor<si64> to tensor<?xsi64, ["N"]>
  %19 = check_bounds %a lo ["0", "0"] hi ["H - 5", "W - 4"] messages ["anchor {value} at {at}", "anchor {value} at {at}"] : tensor<?x2xsi32, ["N"]>
  return %0, %3, %4, %5, %6, %7, %8, %14, %18 : tensor<?x?x?x3xui8, ["N", "H - 2", "ceil(W / 2)"]>, tensor<?x5x4x3xui8, ["N"]>, tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?x?x?x3xui8, ["N", "H + 3", "W"]>, tensor<?x?x?x3xui8, ["N", "H", "W"]>, tensor<?x?x?x6xui8, ["N", "H", "W"]>, tensor<?x?xsi32, ["N", "H"]>, tensor<?x?x?x3xf32, ["N", "H", "W"]>, tensor<?xsi64, ["N"]>
}
