//===- IndexCodegen.cpp - Index maps in generated kernels -----------------===//

#include "codegen/IndexCodegen.h"

#include "core/DimExpr.h"

using namespace mlir;
using namespace mlir::pipe;
using namespace pipec;

bool pipec::isGatheredValue(Operation *op) {
  if (!isa<IndexMapOpInterface, CoordinateOp>(op))
    return false;
  return llvm::any_of(op->getUsers(), [](Operation *user) {
    return !isa<IndexMapOpInterface>(user);
  });
}

bool pipec::isReadDirectly(BlockArgument arg) {
  return llvm::any_of(arg.getUsers(), [](Operation *user) {
    return !isa<IndexMapOpInterface>(user);
  });
}

/// The stride of `type`'s dim `s` without names: the product of the sizes
/// after it.
static std::string inlineStride(RankedTensorType type, int64_t s,
                                const IndexStyle &style) {
  std::string stride = "(" + style.offsetType + ")1";
  for (int64_t t = type.getRank() - 1; t > s; --t)
    stride += " * (" + style.offsetType + ")" +
              (type.isDynamicDim(t)
                   ? style.dim(getDimNames(type)[t])
                   : std::to_string(type.getDimSize(t)));
  return stride;
}

std::string pipec::printIndex(const IndexExpr &expr, const IndexStyle &style) {
  const std::string &J = style.signedType;
  auto operand = [&](unsigned i) {
    return printIndex(expr.getOperands()[i], style);
  };
  auto call = [&](const char *function) {
    return std::string(function) + "<" + J + ">(" + operand(0) + ", " +
           operand(1) + ")";
  };
  switch (expr.getKind()) {
  case IndexExpr::Kind::Constant:
    return "(" + J + ")" + std::to_string(expr.getConstant());
  case IndexExpr::Kind::Coordinate:
    return "(" + J + ")" + style.coordinate(expr.getIndex());
  case IndexExpr::Kind::Dim:
    return "(" + J + ")" + style.dim(expr.getName());
  case IndexExpr::Kind::Scalar:
    return "pipe_index_as<" + J + ">(" + style.scalar(expr.getValue()) + ")";
  case IndexExpr::Kind::Read: {
    IndexRead read = resolveIndexMaps(
        expr.getValue(), IndexCoordinates(expr.getOperands().begin(),
                                          expr.getOperands().end()));
    if (read.scalar)
      return "pipe_index_as<" + J + ">(" + style.scalar(read.scalar) + ")";
    if (read.index)
      return printIndex(read.index, style);
    assert(read.arg && "a parameter read through maps that reach no input");
    RankedTensorType source = read.source;
    std::string offset = printOffset(read, style, [&](int64_t s) {
      return inlineStride(source, s, style);
    });
    return "pipe_index_as<" + J + ">(" + style.load(read.arg, offset) + ")";
  }
  case IndexExpr::Kind::Add:
    return "(" + operand(0) + " + " + operand(1) + ")";
  case IndexExpr::Kind::Mul:
    return "(" + operand(0) + " * " + operand(1) + ")";
  case IndexExpr::Kind::FloorDiv:
    return call("pipe_index_floordiv");
  case IndexExpr::Kind::Mod:
    return call("pipe_index_mod");
  case IndexExpr::Kind::Min:
    return call("pipe_index_min");
  case IndexExpr::Kind::Max:
    return call("pipe_index_max");
  case IndexExpr::Kind::Abs:
    return "pipe_index_abs<" + J + ">(" + operand(0) + ")";
  case IndexExpr::Kind::Select:
    return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
  case IndexExpr::Kind::Lt:
    return "(" + J + ")(" + operand(0) + " < " + operand(1) + ")";
  case IndexExpr::Kind::Eq:
    return "(" + J + ")(" + operand(0) + " == " + operand(1) + ")";
  }
  llvm_unreachable("unknown index expression");
}

/// One dim's term of an offset: its coordinate times `stride`.
static std::string printTerm(const IndexExpr &coordinate,
                             const std::string &stride,
                             const IndexStyle &style) {
  // A bare coordinate prints as itself, in the offset type, as the
  // kernels always printed a broadcast's offsets.
  if (coordinate.getKind() == IndexExpr::Kind::Coordinate)
    return style.coordinate(coordinate.getIndex()) + " * " + stride;
  if (coordinate.isConstant(1))
    return stride;
  return "(" + style.offsetType + ")" + printIndex(coordinate, style) + " * " +
         stride;
}

std::string pipec::printOffset(const IndexRead &read, const IndexStyle &style,
                               const StrideNames &strides,
                               std::function<bool(int64_t)> only) {
  std::string offset;
  for (auto [s, coordinate] : llvm::enumerate(read.coordinates)) {
    if (coordinate.isConstant(0) || (only && !only(int64_t(s))))
      continue;
    offset += (offset.empty() ? "" : " + ") +
              printTerm(coordinate, strides(int64_t(s)), style);
  }
  return offset.empty() ? "0" : offset;
}

std::optional<std::string> pipec::printStep(const IndexRead &read, int64_t d,
                                            const IndexStyle &style,
                                            const StrideNames &strides) {
  std::string step;
  for (auto [s, coordinate] : llvm::enumerate(read.coordinates)) {
    auto linear = coordinate.linearIn(d);
    if (!linear)
      return std::nullopt;
    if (linear->second.isConstant(0))
      continue;
    std::string stride = strides(int64_t(s));
    step += (step.empty() ? "" : " + ") +
            (linear->second.isConstant(1)
                 ? stride
                 : "(" + style.offsetType + ")" +
                       printIndex(linear->second, style) + " * " + stride);
  }
  return step;
}

IndexRead pipec::substitute(const IndexRead &read, int64_t d, IndexExpr by) {
  IndexRead result = read;
  for (IndexExpr &coordinate : result.coordinates)
    coordinate = coordinate.substitute(
        [&](int64_t c) { return c == d ? by : IndexExpr(); });
  return result;
}

/// The dims `expr` needs, reads of parameters included.
static void collectExprDims(const IndexExpr &expr, std::set<std::string> &dims) {
  // Its own dim; its operands' below (collectDims here, over the whole
  // subtree at every level, made a chain of maps quadratic).
  if (expr.getKind() == IndexExpr::Kind::Dim)
    if (auto dim = pipert::DimExpr::parseCached(expr.getName().str()))
      dim->collectSymbols(dims);
  if (expr.getKind() == IndexExpr::Kind::Read) {
    IndexRead read = pipec::resolveIndexMaps(
        expr.getValue(), IndexCoordinates(expr.getOperands().begin(),
                                          expr.getOperands().end()));
    if (read.arg)
      collectDimSymbols(read.source, dims);
    for (const IndexExpr &coordinate : read.coordinates)
      collectExprDims(coordinate, dims);
    if (read.index)
      collectExprDims(read.index, dims);
  }
  for (const IndexExpr &operand : expr.getOperands())
    collectExprDims(operand, dims);
}

void pipec::collectIndexDims(Block &block, std::set<std::string> &dims) {
  for (Operation &op : block.without_terminator()) {
    if (!isGatheredValue(&op))
      continue;
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    IndexRead read = resolveIndexMaps(op.getResult(0),
                                      getDomainCoordinates(type.getRank()));
    if (read.arg)
      collectDimSymbols(read.source, dims);
    for (const IndexExpr &coordinate : read.coordinates)
      collectExprDims(coordinate, dims);
    if (read.index)
      collectExprDims(read.index, dims);
  }
  collectDimValueSymbols(block, dims);
}

void pipec::collectDimValueSymbols(Block &block, std::set<std::string> &dims) {
  for (Operation &op : block.without_terminator()) {
    if (auto dim = dyn_cast<DimOp>(op))
      if (auto expr = pipert::DimExpr::parse(dim.getDim()))
        expr->collectSymbols(dims);
    // Random ops read the run's seed and random run number, passed as dims.
    if (isa<RandomOp>(op)) {
      dims.insert(pipert::kSeedDim);
      dims.insert(pipert::kRandomRunDim);
    }
  }
}

std::string pipec::printDimSize(RankedTensorType type, int64_t i) {
  if (type.isDynamicDim(i))
    return getDimCExpression(getDimNames(type)[i]);
  return "(long long)" + std::to_string(type.getDimSize(i));
}

static std::string cppTypeOf(Value value) {
  return getCppScalarType(
      cast<RankedTensorType>(value.getType()).getElementType());
}

SmallVector<std::string> pipec::emitFusedBlock(
    llvm::raw_ostream &os, Block &block, const std::string &indent,
    unsigned skip, llvm::function_ref<std::string(unsigned)> load,
    llvm::function_ref<std::string(Operation *,
                                   const llvm::DenseMap<Value, std::string> &)>
        gather) {
  llvm::DenseMap<Value, std::string> names;
  unsigned next = 0;
  auto fresh = [&]() { return "v" + std::to_string(next++); };
  for (auto [k, arg] : llvm::enumerate(block.getArguments().drop_front(skip))) {
    if (!isReadDirectly(arg))
      continue;
    names[arg] = fresh();
    os << indent << "const " << cppTypeOf(arg) << " " << names[arg] << " = "
       << load(k) << ";\n";
  }
  for (unsigned k = 0; k < skip; ++k)
    names[block.getArgument(k)] = "lead" + std::to_string(k);
  for (Operation &inner : block.without_terminator()) {
    Value result = inner.getResult(0);
    std::string expression;
    if (isa<IndexMapOpInterface, CoordinateOp>(inner)) {
      if (!isGatheredValue(&inner))
        continue; // part of another map's chain
      expression = gather(&inner, names);
    } else {
      SmallVector<std::string> operands;
      for (Value operand : inner.getOperands())
        operands.push_back(names.lookup(operand));
      expression =
          cast<ElementwiseOpInterface>(inner).getScalarExpression(operands);
    }
    names[result] = fresh();
    os << indent << "const " << cppTypeOf(result) << " " << names[result]
       << " = " << expression << ";\n";
  }
  SmallVector<std::string> yielded;
  for (Value value : block.getTerminator()->getOperands())
    yielded.push_back(names.lookup(value));
  return yielded;
}

std::string
pipec::printGatherAt(Operation *map, const std::string &prefix,
                     const llvm::DenseMap<Value, std::string> &names,
                     unsigned skip) {
  IndexStyle style;
  style.signedType = style.offsetType = "long long";
  style.coordinate = [](int64_t d) { return "c" + std::to_string(d); };
  style.dim = [](StringRef name) { return getDimCExpression(name); };
  style.scalar = [&](Value value) { return names.lookup(value); };
  style.load = [&](BlockArgument arg, const std::string &offset) {
    return prefix + std::to_string(arg.getArgNumber() - skip) + "[" + offset +
           "]";
  };
  return printGatherWith(map, style);
}

std::string pipec::printGatherWith(Operation *map, const IndexStyle &style) {
  auto type = cast<RankedTensorType>(map->getResult(0).getType());
  IndexRead read =
      resolveIndexMaps(map->getResult(0), getDomainCoordinates(type.getRank()));
  if (read.scalar)
    return style.scalar(read.scalar);
  if (read.index)
    return "pipe_cast<" + cppTypeOf(map->getResult(0)) + ">((pipe_i64)" +
           printIndex(read.index, style) + ")";
  assert(read.arg && "an index map that reads no input of the block");
  RankedTensorType source = read.source;
  // Strides as products of the sizes after each dim, in the offset type.
  const std::string &offsetType = style.offsetType;
  auto size = [&](int64_t t) {
    if (source.isDynamicDim(t))
      return style.dim(getDimNames(source)[t]);
    return "(" + offsetType + ")" + std::to_string(source.getDimSize(t));
  };
  return style.load(read.arg, printOffset(read, style, [&](int64_t s) {
                      std::string stride =
                          offsetType == "long long" ? "1LL" : "(" + offsetType + ")1";
                      for (int64_t t = source.getRank() - 1; t > s; --t)
                        stride += " * " + size(t);
                      return "(" + stride + ")";
                    }));
}
