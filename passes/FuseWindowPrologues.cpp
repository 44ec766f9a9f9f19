//===- FuseWindowPrologues.cpp - Window ops with their producers ----------===//
//
// Implements `pipe-fuse-window-prologues` (see Passes.td): a `pipe.window`
// whose input a `pipe.kernel` computes becomes a `pipe.window_kernel` whose
// prologue is that kernel's slice for the input, so that
// `box_filter(f32(x) / 255)`, `erode(masks > 128)` and `median(x[:, a:b])`
// are one kernel each and store no input for the window to read.
//
//===----------------------------------------------------------------------===//

#include "passes/BlockOrder.h"
#include "passes/KernelSlices.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <cstdlib>
#include <string>

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_FUSEWINDOWPROLOGUES
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// The most ops a prologue recomputes. The window's kernel runs it at
/// every tap it loads, several times an element (a 5x5 box about 7.5
/// times: each row of taps is loaded once for 8 outputs, and each column
/// by 5 threads), so only a few cheap ops gain on a stored input.
constexpr int64_t kMaxPrologueOps = 8;

/// Ops of a few instructions each. A division, a power or a
/// transcendental function costs more at every tap than storing its
/// result and reading it back (measured on an H200: the 5x5 box of
/// f32(x) / 255 over u8[64, 512, 512, 3] took 0.761 ms fused against
/// 0.448 ms as two kernels; erode of x > 128, 0.180 against 0.195).
bool isCheap(Operation *op) {
  return isa<ConstantOp, DimOp, CastOp, SelectOp, AddOp, SubOp, MulOp, MinOp,
             MaxOp, EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, AndOp, OrOp, XorOp,
             ShlOp, ShrOp, NotOp, NegOp, AbsOp, FloorOp, CeilOp, RoundOp>(op);
}

/// Whether the window's kernel can run `slice` at each tap: cheap
/// elementwise work, index maps and coordinates, few enough ops.
bool canRunAtTaps(const llvm::SetVector<Operation *> &slice) {
  int64_t ops = 0;
  for (Operation *op : slice) {
    if (isa<IndexMapOpInterface, CoordinateOp>(op))
      continue;
    if (!isCheap(op))
      return false;
    ++ops;
  }
  return ops <= kMaxPrologueOps;
}

struct FuseWindowProloguesPass
    : public pipe::impl::FuseWindowProloguesBase<FuseWindowProloguesPass> {
  void runOnOperation() override;
};

} // namespace

void FuseWindowProloguesPass::runOnOperation() {
  // PIPE_TUNE_FUSE_WINDOW_PROLOGUES=0 keeps the windows apart, for
  // measuring what fusing gains (bench/run.sh window); not a user setting.
  if (const char *tuned = std::getenv("PIPE_TUNE_FUSE_WINDOW_PROLOGUES");
      tuned && std::string(tuned) == "0")
    return;
  PipelineOp pipeline = getOperation();
  Block &block = pipeline.getBody().front();
  SmallVector<WindowOp> windows;
  for (Operation &op : block)
    if (auto window = dyn_cast<WindowOp>(op))
      windows.push_back(window);

  for (WindowOp window : windows) {
    Value input = window.getInput();
    auto producer = input.getDefiningOp<KernelOp>();
    if (!producer)
      continue;
    unsigned producerResult = cast<OpResult>(input).getResultNumber();
    Block &body = producer.getBody().front();
    Value yielded = body.getTerminator()->getOperand(producerResult);
    llvm::SetVector<Operation *> slice = sliceOf(producer, yielded);
    if (!canRunAtTaps(slice))
      continue;
    // With other readers the producer still stores the value: recompute it
    // only where that reads fewer bytes than the stored value would.
    if (!input.hasOneUse() &&
        inputBytes(slice) > getElementBytes(input.getType()))
      continue;

    // The producer's inputs that the slice reads, in its order (a value
    // the producer passes through unchanged is read directly).
    llvm::SetVector<Value> prologueInputs;
    for (auto [arg, operand] :
         llvm::zip(body.getArguments(), producer.getInputs()))
      if (arg == yielded || llvm::any_of(arg.getUsers(), [&](Operation *u) {
            return slice.contains(u);
          }))
        prologueInputs.insert(operand);

    OpBuilder builder(window);
    auto fused = WindowKernelOp::create(
        builder, builder.getFusedLoc({window.getLoc(), producer.getLoc()}),
        window.getType(), prologueInputs.getArrayRef(), window.getWeights(),
        window.getKindAttr(), window.getAxesAttr(), window.getWindowAttr(),
        window.getBorderAttr(), window.getFillAttr());
    Block *prologue = new Block();
    fused.getPrologue().push_back(prologue);
    IRMapping mapping;
    for (Value operand : prologueInputs) {
      BlockArgument arg =
          prologue->addArgument(operand.getType(), operand.getLoc());
      for (auto [i, candidate] : llvm::enumerate(producer.getInputs()))
        if (candidate == operand)
          mapping.map(body.getArgument(i), arg);
    }
    OpBuilder inner = OpBuilder::atBlockEnd(prologue);
    for (Operation *op : slice)
      inner.clone(*op, mapping);
    YieldOp::create(inner, window.getLoc(),
                    ValueRange{mapping.lookupOrDefault(yielded)});

    window.getResult().replaceAllUsesWith(fused.getResult());
    window.erase();
    if (input.use_empty())
      dropKernelResult(producer, producerResult);
  }
  bool sorted = sortBlockByDependencies(block);
  assert(sorted && "window prologue fusion created a cycle");
  (void)sorted;
}
