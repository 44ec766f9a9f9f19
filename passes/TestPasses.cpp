//===- TestPasses.cpp - Passes that exist for tests -----------------------===//
//
// `pipe-test-break-kernels` (see Passes.td): breaks the IR the way a
// compiler bug would, so that lit tests can check how pipec reports a pass
// that leaves invalid IR behind.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_TESTBREAKKERNELS
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {
struct TestBreakKernelsPass
    : public pipe::impl::TestBreakKernelsBase<TestBreakKernelsPass> {
  void runOnOperation() override {
    // The input: a list constant, which no kernel over a larger domain
    // may take without reading it through a broadcast.
    getOperation().walk([](KernelOp kernel) {
      OpBuilder builder(kernel);
      auto type = RankedTensorType::get({3}, builder.getF32Type());
      Value constant = ConstantOp::create(
          builder, kernel.getLoc(),
          DenseElementsAttr::get(type, ArrayRef<float>{1.f, 2.f, 3.f}));
      kernel.getInputsMutable().append(constant);
      kernel.getBody().front().addArgument(type, kernel.getLoc());
    });
  }
};
} // namespace
