//===- BlockOrder.cpp - Ops of a block in dependency order ----------------===//

#include "passes/BlockOrder.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <queue>
#include <vector>

using namespace mlir;

bool mlir::pipe::sortBlockByDependencies(Block &block) {
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : block.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  // For each op, how many of the block's ops it waits for, and who waits
  // for it.
  std::vector<unsigned> waiting(ops.size(), 0);
  std::vector<SmallVector<unsigned, 2>> waiters(ops.size());
  for (unsigned i = 0; i < ops.size(); ++i) {
    DenseSet<unsigned> producers;
    ops[i]->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        Operation *producer = def ? block.findAncestorOpInBlock(*def) : nullptr;
        if (!producer || producer == ops[i])
          continue;
        auto it = position.find(producer);
        if (it == position.end() || !producers.insert(it->second).second)
          continue;
        waiters[it->second].push_back(i);
        ++waiting[i];
      }
    });
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>> ready;
  for (unsigned i = 0; i < ops.size(); ++i)
    if (!waiting[i])
      ready.push(i);
  SmallVector<Operation *> order;
  while (!ready.empty()) {
    unsigned next = ready.top();
    ready.pop();
    order.push_back(ops[next]);
    for (unsigned waiter : waiters[next])
      if (!--waiting[waiter])
        ready.push(waiter);
  }
  if (order.size() != ops.size())
    return false;
  Block::iterator end = block.without_terminator().end();
  for (Operation *op : order)
    op->moveBefore(&block, end);
  return true;
}
