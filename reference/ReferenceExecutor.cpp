//===- ReferenceExecutor.cpp - Runs pipe IR on the CPU --------------------===//

#include "reference/ReferenceExecutor.h"

#include "codegen/PipeScalar.h"
#include "codegen/PlanBuilder.h"
#include "runtime/Executable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <memory>

using namespace mlir;
using namespace mlir::pipe;
using pipert::DType;
using pipert::HostTensor;

namespace {

/// Calls fn(T{}) with the PipeScalar.h type of `dtype` (pipe_i64 is long
/// long, which int64_t is not on every platform).
template <typename Fn> void visitScalarType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::U8: fn(pipe_u8{}); return;
  case DType::I8: fn(pipe_i8{}); return;
  case DType::U16: fn(pipe_u16{}); return;
  case DType::I16: fn(pipe_i16{}); return;
  case DType::U32: fn(pipe_u32{}); return;
  case DType::I32: fn(pipe_i32{}); return;
  case DType::U64: fn(pipe_u64{}); return;
  case DType::I64: fn(pipe_i64{}); return;
  case DType::F32: fn(float{}); return;
  case DType::F64: fn(double{}); return;
  }
}

using TensorPtr = std::shared_ptr<HostTensor>;

class Interpreter {
public:
  explicit Interpreter(std::map<std::string, int64_t> sizes)
      : sizes(std::move(sizes)) {}

  /// Runs the ops of `block` up to its terminator, whose operands it returns.
  std::vector<TensorPtr> runBlock(Block &block) {
    for (Operation &op : block.without_terminator())
      runOp(op);
    std::vector<TensorPtr> results;
    for (Value operand : block.getTerminator()->getOperands())
      results.push_back(values.lookup(operand));
    return results;
  }

  llvm::DenseMap<Value, TensorPtr> values;

private:
  TensorPtr allocate(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    pipert::PlanBuffer buffer = pipec::getPlanBuffer(type, "");
    return std::make_shared<HostTensor>(buffer.dtype,
                                        pipert::shapeOf(buffer, sizes));
  }

  /// out[i] = fn(a[i or 0], b[i or 0]) over the result's elements.
  template <typename T, typename Fn>
  static void binary(const HostTensor &a, const HostTensor &b, HostTensor &out,
                     Fn fn) {
    const T *pa = a.as<T>(), *pb = b.as<T>();
    T *po = out.as<T>();
    bool sa = a.shape().empty(), sb = b.shape().empty();
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      po[i] = fn(pa[sa ? 0 : i], pb[sb ? 0 : i]);
  }

  void runOp(Operation &op) {
    llvm::TypeSwitch<Operation *>(&op)
        .Case<ConstantOp>([&](ConstantOp constant) {
          TensorPtr out = allocate(constant.getResult());
          Attribute value = constant.getValue();
          visitScalarType(out->dtype(), [&](auto tag) {
            using T = decltype(tag);
            if (auto f = dyn_cast<FloatAttr>(value))
              *out->as<T>() = T(f.getValueAsDouble());
            else if (pipe_limits<T>::is_signed)
              *out->as<T>() = T(cast<IntegerAttr>(value).getValue().getSExtValue());
            else
              *out->as<T>() = T(cast<IntegerAttr>(value).getValue().getZExtValue());
          });
          values[constant.getResult()] = out;
        })
        .Case<AddOp, SubOp, MulOp, DivOp>([&](auto binaryOp) {
          TensorPtr out = allocate(binaryOp.getResult());
          const HostTensor &a = *values.lookup(binaryOp.getLhs());
          const HostTensor &b = *values.lookup(binaryOp.getRhs());
          using OpTy = decltype(binaryOp);
          visitScalarType(out->dtype(), [&](auto tag) {
            using T = decltype(tag);
            if constexpr (std::is_same_v<OpTy, AddOp>)
              binary<T>(a, b, *out, pipe_add<T>);
            else if constexpr (std::is_same_v<OpTy, SubOp>)
              binary<T>(a, b, *out, pipe_sub<T>);
            else if constexpr (std::is_same_v<OpTy, MulOp>)
              binary<T>(a, b, *out, pipe_mul<T>);
            else if constexpr (pipe_limits<T>::is_float)
              binary<T>(a, b, *out, pipe_div<T>);
          });
          values[binaryOp.getResult()] = out;
        })
        .Case<CastOp>([&](CastOp cast) {
          TensorPtr out = allocate(cast.getResult());
          const HostTensor &in = *values.lookup(cast.getInput());
          visitScalarType(out->dtype(), [&](auto toTag) {
            using To = decltype(toTag);
            visitScalarType(in.dtype(), [&](auto fromTag) {
              using From = decltype(fromTag);
              const From *src = in.as<From>();
              To *dst = out->as<To>();
              for (int64_t i = 0, n = out->numElements(); i < n; ++i)
                dst[i] = pipe_cast<To, From>(src[i]);
            });
          });
          values[cast.getResult()] = out;
        })
        .Case<KernelOp>([&](KernelOp kernel) {
          Block &body = kernel.getBody().front();
          for (auto [arg, input] :
               llvm::zip(body.getArguments(), kernel.getInputs()))
            values[arg] = values.lookup(input);
          std::vector<TensorPtr> results = runBlock(body);
          for (auto [result, tensor] : llvm::zip(kernel.getResults(), results))
            values[result] = tensor;
        })
        .Default([&](Operation *other) {
          llvm::report_fatal_error("reference executor: unhandled op " +
                                   other->getName().getStringRef());
        });
  }

  std::map<std::string, int64_t> sizes;
};

} // namespace

pipert::Result<std::vector<HostTensor>>
pipec::runReference(PipelineOp pipeline, const std::vector<HostTensor> &inputs) {
  Block &body = pipeline.getBody().front();
  std::vector<pipert::PlanBuffer> params;
  for (BlockArgument arg : body.getArguments())
    params.push_back(getPlanBuffer(cast<RankedTensorType>(arg.getType()),
                                   pipeline.getArgName(arg.getArgNumber())));
  std::vector<pipert::TensorRef> refs;
  for (const HostTensor &input : inputs)
    refs.push_back(input.ref());
  auto sizes = pipert::bindDims(pipeline.getSymName().str(), params, refs);
  if (!sizes)
    return sizes.status();

  Interpreter interpreter(*sizes);
  for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
    interpreter.values[arg] = std::make_shared<HostTensor>(input);
  std::vector<TensorPtr> results = interpreter.runBlock(body);
  std::vector<HostTensor> out;
  for (const TensorPtr &result : results)
    out.push_back(*result);
  return out;
}
