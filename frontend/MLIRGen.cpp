//===- MLIRGen.cpp - .pipe AST to the pipe dialect ------------------------===//

#include "frontend/MLIRGen.h"

#include "dialect/PipeDialect.h"
#include "frontend/Sema.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

using namespace pipec;
using namespace mlir;

Type pipec::getElementType(MLIRContext *context, llvm::StringRef dtype) {
  if (dtype == "f32")
    return Float32Type::get(context);
  if (dtype == "f64")
    return Float64Type::get(context);
  return IntegerType::get(context, getDTypeBits(dtype),
                          isUnsignedDType(dtype) ? IntegerType::Unsigned
                                                 : IntegerType::Signed);
}

namespace {

class Generator {
public:
  Generator(MLIRContext &context, llvm::SourceMgr &sourceMgr)
      : builder(&context), sourceMgr(sourceMgr) {}

  OwningOpRef<ModuleOp> emit(const ModuleAST &module) {
    auto moduleOp = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(moduleOp.getBody());
    for (const PipelineAST &pipeline : module.pipelines)
      emitPipeline(pipeline);
    return moduleOp;
  }

private:
  Location loc(llvm::SMLoc smLoc) {
    unsigned bufferId = sourceMgr.FindBufferContainingLoc(smLoc);
    if (!bufferId)
      return builder.getUnknownLoc();
    auto [line, column] = sourceMgr.getLineAndColumn(smLoc, bufferId);
    return FileLineColLoc::get(
        builder.getStringAttr(
            sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier()),
        line, column);
  }

  RankedTensorType tensorType(llvm::StringRef dtype,
                              const std::vector<DimAST> &dims) {
    SmallVector<int64_t> shape;
    SmallVector<StringRef> names;
    for (const DimAST &dim : dims) {
      shape.push_back(dim.isSymbolic() ? ShapedType::kDynamic : dim.size);
      if (dim.isSymbolic())
        names.push_back(dim.symbol);
    }
    return pipe::getPipeTensorType(
        shape, names, getElementType(builder.getContext(), dtype));
  }

  Value constant(const NumberExprAST &number, llvm::StringRef dtype) {
    Type type = getElementType(builder.getContext(), dtype);
    TypedAttr value;
    if (isFloatDType(dtype))
      value = builder.getFloatAttr(
          type, number.isFloat || number.exceedsInt64 ? number.floatValue
                                                      : double(number.intValue));
    else
      value = builder.getIntegerAttr(type, number.intValue);
    return pipe::ConstantOp::create(builder, loc(number.getLoc()), value);
  }

  /// Converts `value` to `dtype` if it has another.
  Value castTo(Value value, llvm::StringRef dtype, Location where) {
    auto type = cast<RankedTensorType>(value.getType());
    Type element = getElementType(builder.getContext(), dtype);
    if (type.getElementType() == element)
      return value;
    return pipe::CastOp::create(builder, where,
                                pipe::withElementType(type, element), value);
  }

  /// Emits `expr`; a weak literal becomes a constant of `literalDType`.
  Value emitExpr(const ExprAST &expr, llvm::StringRef literalDType) {
    switch (expr.getKind()) {
    case ExprAST::Kind::Number:
      return constant(llvm::cast<NumberExprAST>(expr), literalDType);
    case ExprAST::Kind::Name:
      return symbols.lookup(llvm::cast<NameExprAST>(expr).name);
    case ExprAST::Kind::Unary: {
      auto &unary = llvm::cast<UnaryExprAST>(expr);
      Value operand = emitExpr(*unary.operand, literalDType);
      auto type = cast<RankedTensorType>(operand.getType());
      Value zero = pipe::ConstantOp::create(
          builder, loc(expr.getLoc()),
          cast<TypedAttr>(builder.getZeroAttr(type.getElementType())));
      return pipe::SubOp::create(builder, loc(expr.getLoc()), type, zero,
                                 operand);
    }
    case ExprAST::Kind::Binary: {
      auto &binary = llvm::cast<BinaryExprAST>(expr);
      Location where = loc(expr.getLoc());
      Value lhs = castTo(emitExpr(*binary.lhs, binary.operandDType),
                         binary.operandDType, where);
      Value rhs = castTo(emitExpr(*binary.rhs, binary.operandDType),
                         binary.operandDType, where);
      RankedTensorType type = tensorType(expr.type.dtype, expr.type.dims);
      switch (binary.op) {
      case '+': return pipe::AddOp::create(builder, where, type, lhs, rhs);
      case '-': return pipe::SubOp::create(builder, where, type, lhs, rhs);
      case '*': return pipe::MulOp::create(builder, where, type, lhs, rhs);
      default: return pipe::DivOp::create(builder, where, type, lhs, rhs);
      }
    }
    case ExprAST::Kind::Call: {
      auto &call = llvm::cast<CallExprAST>(expr);
      const ExprAST &arg = *call.args[0];
      // A cast of a literal converts the literal at its own precision, so
      // that `u8(300.7)` saturates like a cast of a tensor would.
      Value input = emitExpr(
          arg, arg.type.isWeakLiteral()
                   ? (llvm::cast<NumberExprAST>(arg).isFloat ? "f64" : "i64")
                   : llvm::StringRef(arg.type.dtype));
      return castTo(input, call.callee, loc(expr.getLoc()));
    }
    }
    llvm_unreachable("unknown expression kind");
  }

  void emitPipeline(const PipelineAST &pipeline) {
    SmallVector<Type> argTypes, resultTypes;
    SmallVector<StringRef> argNames, resultNames;
    for (const ValueDeclAST &param : pipeline.params) {
      argTypes.push_back(tensorType(param.type.dtype, param.type.dims));
      argNames.push_back(param.name);
    }
    for (const ValueDeclAST &result : pipeline.results) {
      resultTypes.push_back(tensorType(result.type.dtype, result.type.dims));
      resultNames.push_back(result.name);
    }
    auto op = pipe::PipelineOp::create(
        builder, loc(pipeline.loc), pipeline.name,
        builder.getFunctionType(argTypes, resultTypes), argNames, resultNames);
    Block &entry = op.getBody().front();
    for (auto [arg, param] : llvm::zip(entry.getArguments(), pipeline.params))
      arg.setLoc(loc(param.loc));

    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&entry);
    symbols.clear();
    for (auto [arg, param] : llvm::zip(entry.getArguments(), pipeline.params))
      symbols[param.name] = arg;
    for (const BindingAST &binding : pipeline.body)
      symbols[binding.name] =
          emitExpr(*binding.value, binding.value->type.dtype);
    SmallVector<Value> results;
    for (const ValueDeclAST &result : pipeline.results)
      results.push_back(symbols.lookup(result.name));
    pipe::ReturnOp::create(builder, loc(pipeline.loc), results);
  }

  OpBuilder builder;
  llvm::SourceMgr &sourceMgr;
  llvm::StringMap<Value> symbols;
};

} // namespace

OwningOpRef<ModuleOp> pipec::emitModule(MLIRContext &context,
                                        const ModuleAST &module,
                                        llvm::SourceMgr &sourceMgr) {
  context.getOrLoadDialect<pipe::PipeDialect>();
  return Generator(context, sourceMgr).emit(module);
}
