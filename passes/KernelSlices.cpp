//===- KernelSlices.cpp - Taking one result's work out of a kernel --------===//
//
// See KernelSlices.h.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelSlices.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::pipe;

llvm::SetVector<Operation *> mlir::pipe::sliceOf(KernelOp kernel, Value value) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !slice.insert(def))
      continue;
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
  }
  llvm::SetVector<Operation *> ordered;
  for (Operation &op : kernel.getBody().front())
    if (slice.contains(&op))
      ordered.insert(&op);
  return ordered;
}

int64_t mlir::pipe::inputBytes(const llvm::SetVector<Operation *> &slice) {
  llvm::SetVector<Value> inputs;
  for (Operation *op : slice)
    for (Value operand : op->getOperands())
      if (isa<BlockArgument>(operand) &&
          cast<RankedTensorType>(operand.getType()).getRank() > 0)
        inputs.insert(operand);
  int64_t bytes = 0;
  for (Value input : inputs)
    bytes += getElementBytes(input.getType());
  return bytes;
}

void mlir::pipe::dropKernelResult(KernelOp kernel, unsigned index) {
  if (kernel.getNumResults() == 1) {
    kernel.erase();
    return;
  }
  OpBuilder builder(kernel);
  SmallVector<Type> types;
  for (auto [i, result] : llvm::enumerate(kernel.getResults()))
    if (i != index)
      types.push_back(result.getType());
  auto replacement =
      KernelOp::create(builder, kernel.getLoc(), types,
                       kernel.getKernelNameAttr(), kernel.getInputs());
  replacement.getBody().takeBody(kernel.getBody());
  auto yield = cast<YieldOp>(replacement.getBody().front().getTerminator());
  yield->eraseOperand(index);
  unsigned next = 0;
  for (auto [i, result] : llvm::enumerate(kernel.getResults()))
    if (i != index)
      result.replaceAllUsesWith(replacement.getResult(next++));
  kernel.erase();
  // Ops that only fed the dropped result are dead now, and so may be inputs
  // only they read (a kernel input nothing reads does not verify).
  Block &body = replacement.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (&op != body.getTerminator() && op.use_empty())
      op.erase();
  llvm::BitVector unused(body.getNumArguments());
  SmallVector<Value> inputs;
  for (auto [arg, input] :
       llvm::zip(body.getArguments(), replacement.getInputs())) {
    if (arg.use_empty())
      unused.set(arg.getArgNumber());
    else
      inputs.push_back(input);
  }
  if (unused.none())
    return;
  OpBuilder after(replacement);
  auto trimmed = KernelOp::create(after, replacement.getLoc(),
                                  replacement.getResultTypes(),
                                  replacement.getKernelNameAttr(), inputs);
  trimmed.getBody().takeBody(replacement.getBody());
  trimmed.getBody().front().eraseArguments(unused);
  replacement.replaceAllUsesWith(trimmed.getResults());
  replacement.erase();
}

/// Whether `value` is computed from `target` (through any ops).
static bool dependsOn(Value value, Value target) {
  SmallVector<Value> worklist{value};
  DenseSet<Operation *> visited;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == target)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

KernelOp mlir::pipe::findDirectConsumer(Value value) {
  for (Operation *user : value.getUsers()) {
    auto kernel = dyn_cast<KernelOp>(user);
    if (!kernel || !haveSameShape(kernel.getDomainType(),
                                  cast<RankedTensorType>(value.getType())))
      continue;
    if (llvm::any_of(kernel.getInputs(), [&](Value input) {
          return input != value && dependsOn(input, value);
        }))
      continue;
    Block &body = kernel.getBody().front();
    bool direct = true;
    for (auto [input, arg] : llvm::zip(kernel.getInputs(), body.getArguments()))
      if (input == value)
        direct &= llvm::none_of(arg.getUsers(), [](Operation *u) {
          return isa<IndexMapOpInterface>(u);
        });
    if (direct)
      return kernel;
  }
  return {};
}
