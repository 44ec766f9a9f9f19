//===- FuseWindowPrologues.cpp - Window ops with their producers ----------===//
//
// Implements `pipe-fuse-window-prologues` (see Passes.td): a `pipe.window`
// whose input a `pipe.kernel` computes, or whose value one reads, becomes
// a `pipe.window_kernel` whose prologue is that kernel's slice for the
// input and whose epilogue is the consumer's body, so that
// `box_filter(f32(x) * 0.5)`, `erode(masks > 128)`, `median(x[:, a:b])`
// and `u8(abs(conv2d(x, ...)))` are one kernel each and store neither the
// input nor the value in between.
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

/// The window's operands and attributes, for a pipe.window_kernel.
struct WindowParts {
  Location loc;
  Value weights;
  WindowKindAttr kind;
  DenseI64ArrayAttr axes, window;
  BorderAttr border;
  FloatAttr fill;
  RankedTensorType type;
};

WindowParts partsOf(WindowOp op) {
  return {op.getLoc(),      op.getWeights(),    op.getKindAttr(),
          op.getAxesAttr(), op.getWindowAttr(), op.getBorderAttr(),
          op.getFillAttr(), op.getType()};
}

WindowParts partsOf(WindowKernelOp op) {
  return {op.getLoc(),      op.getWeights(),    op.getKindAttr(),
          op.getAxesAttr(), op.getWindowAttr(), op.getBorderAttr(),
          op.getFillAttr(), op.getWindowType()};
}

WindowKernelOp createWindowKernel(OpBuilder &builder, Location loc,
                                  const WindowParts &parts,
                                  TypeRange resultTypes,
                                  ValueRange prologueInputs,
                                  ValueRange epilogueInputs) {
  return WindowKernelOp::create(
      builder, loc, resultTypes, prologueInputs, parts.weights, parts.kind,
      parts.axes, parts.window, parts.border, parts.fill, epilogueInputs);
}

/// An epilogue that passes the window's value on.
void addTrivialEpilogue(WindowKernelOp fused, const WindowParts &parts) {
  Block *epilogue = new Block();
  fused.getEpilogue().push_back(epilogue);
  BlockArgument value = epilogue->addArgument(parts.type, parts.loc);
  OpBuilder inner = OpBuilder::atBlockEnd(epilogue);
  YieldOp::create(inner, parts.loc, ValueRange{value});
}

/// Gives `window` the slice of the kernel that computes its input as a
/// prologue, where that slice can run at each tap (and, the input having
/// other readers, reads fewer bytes than it); returns the fused op, or
/// null.
WindowKernelOp fusePrologue(WindowOp window) {
  Value input = window.getInput();
  auto producer = input.getDefiningOp<KernelOp>();
  if (!producer)
    return {};
  unsigned producerResult = cast<OpResult>(input).getResultNumber();
  Block &body = producer.getBody().front();
  Value yielded = body.getTerminator()->getOperand(producerResult);
  llvm::SetVector<Operation *> slice = sliceOf(producer, yielded);
  if (!canRunAtTaps(slice) ||
      (!input.hasOneUse() &&
       inputBytes(slice) > getElementBytes(input.getType())))
    return {};
  // The producer's inputs that the slice reads, in its order (a value the
  // producer passes through unchanged is read directly).
  llvm::SetVector<Value> prologueInputs;
  for (auto [arg, operand] :
       llvm::zip(body.getArguments(), producer.getInputs()))
    if (arg == yielded || llvm::any_of(arg.getUsers(), [&](Operation *u) {
          return slice.contains(u);
        }))
      prologueInputs.insert(operand);

  WindowParts parts = partsOf(window);
  OpBuilder builder(window);
  WindowKernelOp fused = createWindowKernel(
      builder, builder.getFusedLoc({window.getLoc(), producer.getLoc()}), parts,
      window.getType(), prologueInputs.getArrayRef(), {});
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
  addTrivialEpilogue(fused, parts);

  window.getResult().replaceAllUsesWith(fused.getResult(0));
  window.erase();
  if (input.use_empty())
    dropKernelResult(producer, producerResult);
  return fused;
}

/// Gives the window `op` (a pipe.window, or a pipe.window_kernel whose
/// epilogue passes its value on) the kernel that reads its value directly
/// as an epilogue: it runs once a value, so any elementwise work goes but
/// random draws (whose counters the window's kernels do not pass).
void fuseEpilogue(Operation *op) {
  Value value = op->getResult(0);
  KernelOp consumer = findDirectConsumer(value);
  if (!consumer || consumer.getBody()
                       .walk([](RandomOp) { return WalkResult::interrupt(); })
                       .wasInterrupted())
    return;
  auto window = dyn_cast<WindowOp>(op);
  auto previous = dyn_cast<WindowKernelOp>(op);
  WindowParts parts = window ? partsOf(window) : partsOf(previous);
  SmallVector<Value> prologueInputs;
  if (window)
    prologueInputs.push_back(window.getInput());
  else
    llvm::append_range(prologueInputs, previous.getPrologueInputs());
  SmallVector<Value> epilogueInputs;
  for (Value operand : consumer.getInputs())
    if (operand != value)
      epilogueInputs.push_back(operand);
  // Results: the consumer's, then the window's value where something else
  // reads it.
  SmallVector<Type> resultTypes(consumer.getResultTypes());
  bool keepValue = llvm::any_of(value.getUsers(), [&](Operation *user) {
    return user != consumer.getOperation();
  });
  if (keepValue)
    resultTypes.push_back(parts.type);

  // At the consumer, whose other inputs may come after the window.
  OpBuilder builder(consumer);
  WindowKernelOp fused = createWindowKernel(
      builder, builder.getFusedLoc({op->getLoc(), consumer.getLoc()}), parts,
      resultTypes, prologueInputs, epilogueInputs);
  if (previous) {
    fused.getPrologue().takeBody(previous.getPrologue());
  } else {
    Block *prologue = new Block();
    fused.getPrologue().push_back(prologue);
    Value input = window.getInput();
    BlockArgument arg = prologue->addArgument(input.getType(), input.getLoc());
    OpBuilder inner = OpBuilder::atBlockEnd(prologue);
    YieldOp::create(inner, parts.loc, ValueRange{arg});
  }
  Block *epilogue = new Block();
  fused.getEpilogue().push_back(epilogue);
  BlockArgument windowValue = epilogue->addArgument(parts.type, parts.loc);
  OpBuilder inner = OpBuilder::atBlockEnd(epilogue);
  Block &body = consumer.getBody().front();
  IRMapping mapping;
  for (auto [operand, arg] :
       llvm::zip(consumer.getInputs(), body.getArguments()))
    mapping.map(arg, operand == value
                         ? Value(windowValue)
                         : Value(epilogue->addArgument(operand.getType(),
                                                       operand.getLoc())));
  for (Operation &inside : body.without_terminator())
    inner.clone(inside, mapping);
  SmallVector<Value> results;
  for (Value result : body.getTerminator()->getOperands())
    results.push_back(mapping.lookup(result));
  if (keepValue)
    results.push_back(windowValue);
  YieldOp::create(inner, parts.loc, results);

  unsigned next = 0;
  for (Value result : consumer.getResults())
    result.replaceAllUsesWith(fused.getResult(next++));
  consumer.erase();
  if (keepValue)
    value.replaceAllUsesWith(fused.getResult(next));
  op->erase();
}

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
  // Every prologue first: an epilogue takes its consumer's whole body,
  // and so the kernel that may also make another window's input (ops over
  // one domain share a kernel).
  SmallVector<Operation *> fusedWindows;
  for (WindowOp window : windows) {
    if (WindowKernelOp fused = fusePrologue(window))
      fusedWindows.push_back(fused);
    else
      fusedWindows.push_back(window);
  }
  for (Operation *op : fusedWindows)
    fuseEpilogue(op);
  bool sorted = sortBlockByDependencies(block);
  assert(sorted && "window fusion created a cycle");
  (void)sorted;
}
