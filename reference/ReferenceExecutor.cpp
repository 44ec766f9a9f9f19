//===- ReferenceExecutor.cpp - Runs pipe IR on the CPU --------------------===//

#include "reference/ReferenceExecutor.h"

#include "core/ElementwiseOps.h"
#include "codegen/PlanBuilder.h"
#include "reference/LayoutReference.h"
#include "core/StorageTypes.h"
#include "core/PipeReduce.h"
#include "core/PipeStencil.h"
#include "core/PipeWindow.h"
#include "core/PipeRandom.h"
#include "core/PipeResample.h"
#include "core/DimExpr.h"
#include "families/blur/BlurParams.h"
#include "runtime/Executable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>
#include <map>
#include <memory>

using namespace mlir;
using namespace mlir::pipe;
using pipert::DType;
using pipert::HostTensor;

namespace {

using pipert::visitStorageType;

using namespace pipescalar;

using TensorPtr = std::shared_ptr<HostTensor>;

/// Element `i` of `t`, or element 0 when `t` is a broadcast scalar.
template <typename T> const T &at(const HostTensor &t, int64_t i) {
  return t.as<T>()[t.shape().empty() ? 0 : i];
}

class Interpreter {
public:
  explicit Interpreter(std::map<std::string, int64_t> sizes)
      : sizes(std::move(sizes)) {}

  /// Runs the ops of `block` up to its terminator, whose operands it returns.
  std::vector<TensorPtr> runBlock(Block &block) {
    for (Operation &op : block.without_terminator()) {
      runOp(op);
      if (!error.empty())
        return {};
    }
    std::vector<TensorPtr> results;
    for (Value operand : block.getTerminator()->getOperands())
      results.push_back(values.lookup(operand));
    return results;
  }

  /// The pipeline's body, as runBlock but for what a failing op does: it
  /// only poisons its results (keeping its message). A choice the host
  /// decides (pipe.choose) that takes the other side never reads them, as
  /// on the GPU, where the side not taken does not run; anything else that
  /// reads a poisoned value, or a poisoned result, fails the run with the
  /// message of the op that failed.
  std::vector<TensorPtr> runBody(Block &block) {
    llvm::DenseMap<Value, std::string> poisoned;
    auto poisonOf = [&](Value value) -> const std::string * {
      auto it = poisoned.find(value);
      return it == poisoned.end() ? nullptr : &it->second;
    };
    for (Operation &op : block.without_terminator()) {
      if (auto choose = dyn_cast<ChooseOp>(op)) {
        if (const std::string *why = poisonOf(choose.getCondition())) {
          error = *why;
          return {};
        }
        bool taken =
            values.lookup(choose.getCondition())->as<pipe_bool>()->v != 0;
        if (const std::string *why = poisonOf(
                taken ? choose.getTrueValue() : choose.getFalseValue())) {
          poisoned[choose.getResult()] = *why;
          continue;
        }
        runOp(op);
        continue;
      }
      const std::string *why = nullptr;
      for (Value operand : op.getOperands())
        if ((why = poisonOf(operand)))
          break;
      if (why) {
        std::string message = *why;
        for (Value result : op.getResults())
          poisoned[result] = message;
        continue;
      }
      runOp(op);
      if (error.empty())
        continue;
      // The failure stands when there is nothing to poison, when it is the
      // compiler's (internal), and for a check of values (pipe.check_bounds:
      // the GPU checks those in host memory before anything runs, whichever
      // way a branch goes).
      if (op.getNumResults() == 0 || isa<CheckBoundsOp>(op) ||
          llvm::StringRef(error).starts_with("internal error"))
        return {};
      for (Value result : op.getResults())
        poisoned[result] = error;
      error.clear();
    }
    std::vector<TensorPtr> results;
    for (Value operand : block.getTerminator()->getOperands()) {
      if (const std::string *why = poisonOf(operand)) {
        error = *why;
        return {};
      }
      results.push_back(values.lookup(operand));
    }
    return results;
  }

  llvm::DenseMap<Value, TensorPtr> values;
  /// A run-time error (a bad blur window): the run stops and reports it.
  std::string error;

private:
  TensorPtr allocate(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    pipert::PlanBuffer buffer = pipec::getPlanBuffer(type, "");
    return std::make_shared<HostTensor>(buffer.dtype,
                                        pipert::shapeOf(buffer, sizes));
  }

  /// out[i] = fn(in0[i], ...) over the result's elements, for the operand
  /// dtype T (the result's storage type is what fn returns).
  template <template <typename> class Allowed, unsigned Arity, typename Fn>
  void elementwise(Operation &op, Fn fn) {
    TensorPtr out = allocate(op.getResult(0));
    std::vector<const HostTensor *> ins;
    for (Value operand : op.getOperands())
      ins.push_back(values.lookup(operand).get());
    visitStorageType(ins.back()->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (Allowed<T>::value) {
        int64_t n = out->numElements();
        if constexpr (Arity == 1) {
          using R = decltype(fn(T{}));
          R *po = out->as<R>();
          for (int64_t i = 0; i < n; ++i)
            po[i] = fn(at<T>(*ins[0], i));
        } else {
          using R = decltype(fn(T{}, T{}));
          R *po = out->as<R>();
          for (int64_t i = 0; i < n; ++i)
            po[i] = fn(at<T>(*ins[0], i), at<T>(*ins[1], i));
        }
      } else {
        llvm::report_fatal_error("reference executor: op on a dtype its "
                                 "verifier forbids");
      }
    });
    values[op.getResult(0)] = out;
  }

  void runOp(Operation &op) {
    llvm::TypeSwitch<Operation *>(&op)
#define PIPE_BINARY_CASE(Name, mnemonic, fn, allowed)                          \
  .Case<Name##Op>([&](Name##Op) {                                              \
    elementwise<Allowed_##allowed, 2>(                                         \
        op, [](auto a, auto b) { return fn(a, b); });                          \
  })
#define PIPE_UNARY_CASE(Name, mnemonic, fn, allowed)                           \
  .Case<Name##Op>([&](Name##Op) {                                              \
    elementwise<Allowed_##allowed, 1>(op, [](auto a) { return fn(a); });       \
  })
        PIPE_BINARY_OPS(PIPE_BINARY_CASE) PIPE_UNARY_OPS(PIPE_UNARY_CASE)
#undef PIPE_BINARY_CASE
#undef PIPE_UNARY_CASE
        .Case<ConstantOp>([&](ConstantOp constant) { runConstant(constant); })
        .Case<BroadcastOp>([&](BroadcastOp broadcast) {
          gather(broadcast.getInput(), broadcast.getResult(),
                 broadcast.getDimensions());
        })
        .Case<TransposeOp>([&](TransposeOp transpose) {
          ArrayRef<int64_t> perm = transpose.getPermutation();
          SmallVector<int64_t> inverse(perm.size());
          for (auto [d, p] : llvm::enumerate(perm))
            inverse[p] = d;
          gather(transpose.getInput(), transpose.getResult(), inverse);
        })
        .Case<ReshapeOp>([&](ReshapeOp reshape) {
          TensorPtr out = allocate(reshape.getResult());
          const HostTensor &in = *values.lookup(reshape.getInput());
          // (An empty tensor has no data pointer: memcpy must not see it.)
          if (in.numBytes() > 0)
            std::memcpy(out->data(), in.data(), in.numBytes());
          values[reshape.getResult()] = out;
        })
        .Case<SelectOp>([&](SelectOp select) { runSelect(select); })
        .Case<RandomOp>([&](RandomOp random) { runRandom(random); })
        .Case<ChannelMixOp>([&](ChannelMixOp mix) { runChannelMix(mix); })
        .Case<ResampleOp>(
            [&](ResampleOp op) { runResample(op, op.getResult()); })
        .Case<ResampleKernelOp>([&](ResampleKernelOp kernel) {
          // The resampled images, then the epilogue over them.
          Block &epilogue = kernel.getEpilogue().front();
          runResample(kernel, epilogue.getArgument(0));
          runEpilogue(epilogue, kernel.getEpilogueInputs(),
                      kernel.getResults());
        })
        .Case<WindowOp>([&](WindowOp op) {
          runWindow(op, op.getInput(), op.getResult());
        })
        .Case<WindowKernelOp>([&](WindowKernelOp kernel) {
          // The window's input over its whole domain, the window, then the
          // epilogue over its values.
          Block &prologue = kernel.getPrologue().front();
          for (auto [arg, input] :
               llvm::zip(prologue.getArguments(), kernel.getPrologueInputs()))
            values[arg] = values.lookup(input);
          values[kernel.getWindowInput()] = runBlock(prologue).front();
          runWindow(kernel, kernel.getWindowInput(), kernel.getWindowValue());
          runEpilogue(kernel.getEpilogue().front(), kernel.getEpilogueInputs(),
                      kernel.getResults());
        })
        .Case<ChooseOp>([&](ChooseOp choose) {
          // Both sides were computed (the reference runs every op, and
          // runBody lets the side not taken fail); the result is the
          // chosen one's tensor, as on the GPU.
          const HostTensor &c = *values.lookup(choose.getCondition());
          values[choose.getResult()] = values.lookup(
              c.as<pipe_bool>()->v != 0 ? choose.getTrueValue()
                                 : choose.getFalseValue());
        })
        .Case<CastOp>([&](CastOp cast) { runCast(cast); })
        .Case<KernelOp>([&](KernelOp kernel) {
          Block &body = kernel.getBody().front();
          for (auto [arg, input] :
               llvm::zip(body.getArguments(), kernel.getInputs()))
            values[arg] = values.lookup(input);
          std::vector<TensorPtr> results = runBlock(body);
          for (auto [result, tensor] : llvm::zip(kernel.getResults(), results))
            values[result] = tensor;
        })
        .Case<ReduceOp>([&](ReduceOp reduce) {
          runReduce(reduce.getInput(), reduce.getKind(), reduce.getAxes(),
                    reduce.getResult());
        })
        .Case<ReduceKernelOp>([&](ReduceKernelOp kernel) {
          Block &prologue = kernel.getPrologue().front();
          for (auto [arg, input] :
               llvm::zip(prologue.getArguments(), kernel.getPrologueInputs()))
            values[arg] = values.lookup(input);
          TensorPtr reduced = runBlock(prologue).front();
          Block &epilogue = kernel.getEpilogue().front();
          values[kernel.getReducedValue()] = reduced;
          runReduce(kernel.getReducedValue(), kernel.getKind(),
                    kernel.getAxes(), epilogue.getArgument(0));
          runEpilogue(epilogue, kernel.getEpilogueInputs(),
                      kernel.getResults());
        })
        .Case<GaussianBlurOp>([&](GaussianBlurOp blur) { runBlur(blur); })
        .Case<SliceOp, CropOp, FlipOp, PadOp, TakeOp, ConcatOp, CoordinateOp,
              EraseOp, DimOp, CheckBoundsOp>([&](Operation *layout) {
          TensorPtr out = allocate(layout->getResult(0));
          pipert::Status status = pipec::runLayoutReference(
              layout,
              [&](Value value) -> const HostTensor & {
                return *values.lookup(value);
              },
              sizes, *out);
          if (!status.ok())
            error = status.message();
          values[layout->getResult(0)] = out;
        })
        .Default([&](Operation *other) {
          llvm::report_fatal_error("reference executor: unhandled op " +
                                   other->getName().getStringRef());
        });
  }

  /// A fused op's epilogue, its first argument already computed: its
  /// other arguments are `inputs`, its yielded values `results`.
  void runEpilogue(Block &epilogue, ValueRange inputs, ResultRange results) {
    for (auto [arg, input] :
         llvm::zip(epilogue.getArguments().drop_front(), inputs))
      values[arg] = values.lookup(input);
    for (auto [result, tensor] : llvm::zip(results, runBlock(epilogue)))
      values[result] = tensor;
  }

  /// out[c] = in[c'] where operand dim s of c' is c[dims[s]], or 0 where
  /// the operand dim has size 1: a broadcast, and with a permutation for
  /// `dims`, a transpose.
  void gather(Value input, Value result, ArrayRef<int64_t> dims) {
    TensorPtr out = allocate(result);
    const HostTensor &in = *values.lookup(input);
    const std::vector<int64_t> &inShape = in.shape();
    const std::vector<int64_t> &outShape = out->shape();
    std::vector<int64_t> inStrides(inShape.size(), 1);
    for (int64_t s = int64_t(inShape.size()) - 2; s >= 0; --s)
      inStrides[s] = inStrides[s + 1] * inShape[s + 1];
    size_t size = pipert::dtypeSize(in.dtype());
    const auto *src = static_cast<const unsigned char *>(in.data());
    auto *dst = static_cast<unsigned char *>(out->data());
    std::vector<int64_t> coords(outShape.size());
    for (int64_t i = 0, n = out->numElements(); i < n; ++i) {
      int64_t rest = i;
      for (int64_t d = int64_t(outShape.size()) - 1; d >= 0; --d) {
        coords[d] = rest % outShape[d];
        rest /= outShape[d];
      }
      int64_t offset = 0;
      for (size_t s = 0; s < inShape.size(); ++s)
        if (inShape[s] != 1)
          offset += coords[dims[s]] * inStrides[s];
      std::memcpy(dst + i * size, src + offset * size, size);
    }
    values[result] = out;
  }

  /// Combines the elements of `input` along `axes` into `result`, one element
  /// at a time in order, with the accumulators the kernels use.
  void runReduce(Value input, ReductionKind kind, ArrayRef<int64_t> axes,
                 Value result) {
    TensorPtr out = allocate(result);
    const HostTensor &in = *values.lookup(input);
    const std::vector<int64_t> &shape = in.shape();
    int64_t count = 1;
    for (int64_t axis : axes)
      count *= shape[axis];
    // The output index of each input element: its coordinates along the
    // kept dims, row-major.
    std::vector<int64_t> keptStride(shape.size(), 0);
    for (int64_t d = int64_t(shape.size()) - 1, stride = 1; d >= 0; --d)
      if (!llvm::is_contained(axes, d)) {
        keptStride[d] = stride;
        stride *= shape[d];
      }
    int kindId = int(kind);
    visitStorageType(in.dtype(), [&](auto inTag) {
      using T = decltype(inTag);
      visitStorageType(out->dtype(), [&](auto outTag) {
        using R = decltype(outTag);
        auto run = [&](auto kindTag) {
          constexpr int K = decltype(kindTag)::value;
          constexpr bool isBool = isBoolT<T>;
          if constexpr (isBool && (K == PIPE_MIN || K == PIPE_MAX ||
                                   K == PIPE_PROD)) {
            llvm::report_fatal_error("reference executor: reduction of bool "
                                     "the verifier forbids");
          } else {
            using RD = pipe_reducer<K, T>;
            std::vector<typename RD::acc> acc(out->numElements(),
                                              RD::identity());
            const T *x = in.as<T>();
            std::vector<int64_t> coords(shape.size(), 0);
            for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
              int64_t o = 0;
              for (size_t d = 0; d < shape.size(); ++d)
                o += coords[d] * keptStride[d];
              acc[o] = RD::combine(
                  acc[o], RD::widen(RD::add_local(RD::local_identity(),
                                                  RD::value(x[i]))));
              for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
                if (++coords[d] < shape[d])
                  break;
                coords[d] = 0;
              }
            }
            R *po = out->as<R>();
            for (size_t o = 0; o < acc.size(); ++o)
              po[o] = RD::template finish<R>(acc[o], count);
          }
        };
        switch (kindId) {
        case PIPE_SUM: run(std::integral_constant<int, PIPE_SUM>()); break;
        case PIPE_MEAN: run(std::integral_constant<int, PIPE_MEAN>()); break;
        case PIPE_PROD: run(std::integral_constant<int, PIPE_PROD>()); break;
        case PIPE_MIN: run(std::integral_constant<int, PIPE_MIN>()); break;
        case PIPE_MAX: run(std::integral_constant<int, PIPE_MAX>()); break;
        case PIPE_ANY: run(std::integral_constant<int, PIPE_ANY>()); break;
        default: run(std::integral_constant<int, PIPE_ALL>()); break;
        }
      });
    });
    values[result] = out;
  }

  /// gaussian_blur as PipeStencil.h defines it: one axis at a time, the
  /// last first, in f32.
  void runBlur(GaussianBlurOp blur) {
    TensorPtr out = allocate(blur.getResult());
    const HostTensor &in = *values.lookup(blur.getInput());
    const std::vector<int64_t> &shape = in.shape();
    const HostTensor *window =
        blur.getWindow() ? values.lookup(blur.getWindow()).get() : nullptr;
    const HostTensor *sigma =
        blur.getSigma() ? values.lookup(blur.getSigma()).get() : nullptr;
    size_t sampleRank = std::max(window ? window->shape().size() : 0,
                                 sigma ? sigma->shape().size() : 0);
    int64_t samples = 1;
    for (size_t d = 0; d < sampleRank; ++d)
      samples *= shape[d];
    // Element of a per-sample parameter (rank `rank`) for sample s.
    auto paramIndex = [&](const HostTensor &param, int64_t s) {
      int64_t per = 1;
      for (size_t d = param.shape().size(); d < sampleRank; ++d)
        per *= shape[d];
      return param.shape().empty() ? 0 : s / per;
    };
    std::vector<pipe_blur_params> params;
    for (int64_t s = 0; s < samples; ++s) {
      long long w = window ? window->as<pipe_i32>()[paramIndex(*window, s)] : 0;
      double sg = sigma ? sigma->as<float>()[paramIndex(*sigma, s)] : 0.0;
      params.push_back(pipe_blur_resolve(window, w, sigma, sg));
      if (params.back().error == PIPE_BLUR_OK)
        params.back().norm = 1.0 / pipe_blur_sum(params.back(), nullptr);
      if (params.back().error != PIPE_BLUR_OK) {
        error = pipert::describeBlurError(
            mlir::pipe::describeLocation(blur.getLoc()), s, params.back().error, w,
            sg);
        return;
      }
    }
    int64_t n = in.numElements();
    std::vector<float> current(n);
    visitStorageType(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i)
        current[i] = pipe_cast<float>(in.as<T>()[i]);
    });
    int border = int(blur.getBorder());
    float fill = float(blur.getFill().convertToDouble());
    ArrayRef<int64_t> axes = blur.getAxes();
    std::vector<float> next(n);
    for (int64_t a = int64_t(axes.size()) - 1; a >= 0; --a) {
      int64_t axis = axes[a];
      int64_t outer = 1, inner = 1, length = shape[axis], perSample = 1;
      for (int64_t d = 0; d < axis; ++d)
        outer *= shape[d];
      for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
        inner *= shape[d];
      for (int64_t d = int64_t(sampleRank); d < axis; ++d)
        perSample *= shape[d];
      for (int64_t o = 0; o < outer; ++o) {
        const pipe_blur_params &p = params[o / perSample];
        std::vector<float> weights;
        for (int j = 0; j <= 2 * p.radius; ++j)
          weights.push_back(pipe_blur_weight(p, j));
        for (int64_t c = 0; c < inner; ++c)
          for (int64_t i = 0; i < length; ++i) {
            float acc = 0;
            for (int j = 0; j <= 2 * p.radius; ++j) {
              long long k = pipe_border_index(i - p.radius + j, length, border);
              float v = k < 0 ? fill : current[(o * length + k) * inner + c];
              acc = std::fmaf(weights[j], v, acc);
            }
            next[(o * length + i) * inner + c] = acc;
          }
      }
      std::swap(current, next);
    }
    visitStorageType(out->dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i)
        out->as<T>()[i] = pipe_cast<T>(current[i]);
    });
    values[blur.getResult()] = out;
  }

  void runConstant(ConstantOp constant) {
    TensorPtr out = allocate(constant.getResult());
    Attribute value = constant.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      std::string bytes = pipec::getConstantBytes(dense);
      if (!bytes.empty())
        std::memcpy(out->data(), bytes.data(), bytes.size());
      values[constant.getResult()] = out;
      return;
    }
    // The constant as a double or a 64-bit integer, then cast exactly as a
    // kernel casts it.
    visitStorageType(out->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (auto f = dyn_cast<FloatAttr>(value)) {
        *out->as<T>() = pipe_cast<T>(f.getValueAsDouble());
      } else {
        const APInt &bits = cast<IntegerAttr>(value).getValue();
        if (bits.getBitWidth() == 1)
          *out->as<T>() = pipe_cast<T>(pipe_make_bool(bits.getBoolValue()));
        else if (cast<IntegerType>(cast<TypedAttr>(value).getType())
                     .isUnsigned())
          *out->as<T>() = pipe_cast<T>(pipe_u64(bits.getZExtValue()));
        else
          *out->as<T>() = pipe_cast<T>(pipe_i64(bits.getSExtValue()));
      }
    });
    values[constant.getResult()] = out;
  }

  /// pipe.random through core/PipeRandom.h, with the run's seed and random
  /// run number (bound beside the dims, as kernels get them).
  void runRandom(RandomOp random) {
    TensorPtr out = allocate(random.getResult());
    const HostTensor &index = *values.lookup(random.getIndex());
    std::vector<const HostTensor *> params;
    for (Value param : random.getParams())
      params.push_back(values.lookup(param).get());
    auto word = [&](const char *name) {
      auto it = sizes.find(name);
      return it == sizes.end() ? uint64_t(0) : uint64_t(it->second);
    };
    uint64_t seed = random.getSeed() ? uint64_t(*random.getSeed())
                                     : word(pipert::kSeedDim);
    uint64_t run = word(pipert::kRandomRunDim);
    uint64_t stream = random.getStream();
    RandomDistribution kind = random.getDistribution();
    visitStorageType(out->dtype(), [&](auto tag) {
      using T = decltype(tag);
      T *po = out->as<T>();
      int64_t n = out->numElements();
      for (int64_t i = 0; i < n; ++i) {
        pipe_i64 at_i = at<pipe_i64>(index, i);
        switch (kind) {
        case RandomDistribution::uniform:
          po[i] = pipe_random_uniform<T>(seed, run, stream, at_i,
                                         at<double>(*params[0], i),
                                         at<double>(*params[1], i));
          break;
        case RandomDistribution::normal:
          po[i] = pipe_random_normal<T>(seed, run, stream, at_i,
                                        at<double>(*params[0], i),
                                        at<double>(*params[1], i));
          break;
        case RandomDistribution::coin_flip:
          po[i] = pipe_random_coin_flip<T>(seed, run, stream, at_i,
                                           at<double>(*params[0], i));
          break;
        case RandomDistribution::randint:
          po[i] = pipe_random_randint<T>(seed, run, stream, at_i,
                                         at<pipe_i64>(*params[0], i),
                                         at<pipe_i64>(*params[1], i));
          break;
        case RandomDistribution::resized_crop:
          po[i] = pipe_random_resized_crop<T>(
              seed, run, stream, at_i, at<double>(*params[0], i),
              at<double>(*params[1], i), at<double>(*params[2], i),
              at<double>(*params[3], i), at<double>(*params[4], i),
              at<double>(*params[5], i));
          break;
        }
      }
    });
    values[random.getResult()] = out;
  }

  /// channel_mix by its definition (pipe-expand-layout rewrites it before
  /// fused IR; the tensor-level IR has it): per pixel, acc = offset[c],
  /// then acc + m[c][k] * x[k] for each k, in the matrix's float type.
  void runChannelMix(ChannelMixOp mix) {
    TensorPtr out = allocate(mix.getResult());
    const HostTensor &in = *values.lookup(mix.getInput());
    const HostTensor &m = *values.lookup(mix.getMatrix());
    const HostTensor &o = *values.lookup(mix.getOffset());
    int64_t k = in.shape().back(), c = out->shape().back();
    int64_t pixels = k ? in.numElements() / k : 0;
    // Pixel p's matrix and offset are those of sample p / divisor over
    // their sample dims (all pixels share them when they have none).
    auto divisorOf = [&](const HostTensor &t, int64_t trailing) -> int64_t {
      int64_t samples = int64_t(t.shape().size()) - trailing;
      if (samples <= 0)
        return 0;
      int64_t inner = 1;
      for (size_t d = size_t(samples); d + 1 < in.shape().size(); ++d)
        inner *= in.shape()[d];
      return inner;
    };
    int64_t mDivisor = divisorOf(m, 2), oDivisor = divisorOf(o, 1);
    // Constant coefficients: each output's nonzero terms only, then its
    // offset if not 0 (pipe.channel_mix; pipe-expand-layout's order).
    DenseElementsAttr constantMatrix, constantOffset;
    bool onlyTerms =
        mix.getConstantCoefficients(constantMatrix, constantOffset);
    auto run = [&](auto floatTag) {
      using F = decltype(floatTag);
      visitStorageType(in.dtype(), [&](auto inTag) {
        using In = decltype(inTag);
        visitStorageType(out->dtype(), [&](auto outTag) {
          using Out = decltype(outTag);
          const In *x = in.as<In>();
          const F *pm = m.as<F>(), *po = o.as<F>();
          Out *y = out->as<Out>();
          for (int64_t p = 0; p < pixels; ++p) {
            int64_t ms = mDivisor ? p / mDivisor : 0;
            int64_t os = oDivisor ? p / oDivisor : 0;
            for (int64_t j = 0; j < c; ++j) {
              F offset = o.shape().empty() ? po[0] : po[os * c + j];
              F acc = onlyTerms ? F(0) : offset;
              bool started = !onlyTerms;
              for (int64_t i = 0; i < k; ++i) {
                F coefficient = pm[(ms * c + j) * k + i];
                if (onlyTerms && coefficient == 0)
                  continue;
                F term = coefficient * pipe_cast<F>(x[p * k + i]);
                acc = started ? acc + term : term;
                started = true;
              }
              if (onlyTerms && offset != 0)
                acc = acc + offset;
              y[p * c + j] = pipe_cast<Out>(acc);
            }
          }
        });
      });
    };
    if (m.dtype() == DType::F64)
      run(double{});
    else
      run(float{});
    values[mix.getResult()] = out;
  }

  /// warp_affine, rotate, resize through core/PipeResample.h, as the
  /// resample family's kernels compute them.
  /// `op` is a pipe.resample or a pipe.resample_kernel; `result` the value
  /// its resampled images are (the latter's epilogue argument).
  template <typename ResampleLike>
  void runResample(ResampleLike op, Value result) {
    TensorPtr out = allocate(result);
    const HostTensor &in = *values.lookup(op.getInput());
    const HostTensor *param =
        op.getParam() ? values.lookup(op.getParam()).get() : nullptr;
    const std::vector<int64_t> &is = in.shape(), &os = out->shape();
    size_t rank = is.size();
    int64_t h = is[rank - 3], w = is[rank - 2], c = is[rank - 1];
    int64_t oh = os[rank - 3], ow = os[rank - 2];
    int64_t samples = 1;
    for (size_t d = 0; d + 3 < rank; ++d)
      samples *= is[d];
    int transform = int(op.getTransform());
    long long divisor =
        param ? pipe_resample_param_divisor(
                    is.data(), int(rank),
                    int(param->shape().size()) -
                        pipe_resample_param_rank(transform))
              : 0;
    float fill = float(op.getFill().convertToDouble());
    visitStorageType(in.dtype(), [&](auto inTag) {
      using In = decltype(inTag);
      visitStorageType(out->dtype(), [&](auto outTag) {
        using Out = decltype(outTag);
        for (int64_t s = 0; s < samples; ++s) {
          const float *p =
              pipe_resample_param(param ? param->as<float>() : nullptr,
                                  transform, s, divisor);
          pipe_affine a = pipe_resample_matrix(transform, p, h, w, oh, ow);
          pipe_box box = pipe_resample_region(transform, p, h, w);
          const In *image = in.as<In>() + s * h * w * c;
          Out *y = out->as<Out>() + s * oh * ow * c;
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox)
              pipe_resample_pixel(image, h, w, c, a, box, oh, ow, oy, ox,
                                  int(op.getInterp()), int(op.getBorder()),
                                  fill, op.getAntialias(),
                                  y + (oy * ow + ox) * c);
        }
      });
    });
    values[result] = out;
  }

  /// box_filter, erode, dilate, median, conv2d through core/PipeWindow.h,
  /// as the window family's kernels compute them.
  /// `op` is a pipe.window or a pipe.window_kernel; `input` the value it
  /// filters (a window kernel's prologue's, computed) and `result` the
  /// value it makes (a window kernel's epilogue's argument).
  template <typename WindowLike>
  void runWindow(WindowLike op, Value input, Value result) {
    TensorPtr out = allocate(result);
    const HostTensor &in = *values.lookup(input);
    const HostTensor *weights =
        op.getWeights() ? values.lookup(op.getWeights()).get() : nullptr;
    const std::vector<int64_t> &shape = in.shape();
    ArrayRef<int64_t> axes = op.getAxes(), sizes = op.getWindow();
    pipe_window_geometry<long long> g = {1, 1, 1, 1, 1, 0, 1, 0};
    long long *n[2] = {&g.n0, &g.n1}, *stride[2] = {&g.stride0, &g.stride1};
    int *size[2] = {&g.size0, &g.size1}, *anchor[2] = {&g.anchor0, &g.anchor1};
    for (size_t i = 0; i < axes.size(); ++i) {
      *n[i] = shape[size_t(axes[i])];
      for (size_t d = size_t(axes[i]) + 1; d < shape.size(); ++d)
        *stride[i] *= shape[d];
      *size[i] = int(sizes[i]);
      *anchor[i] = int(sizes[i] / 2);
    }
    long long taps = 1, weightStride = 0;
    for (int64_t size : sizes)
      taps *= size;
    if (weights) {
      std::vector<long long> dims(shape.begin(), shape.end());
      weightStride = pipe_window_weight_stride(
          dims.data(), int(dims.size()), int(weights->shape().size()),
          int(axes.size()));
    }
    short pairs[2 * PIPE_WINDOW_MAX_EXCHANGES];
    int exchanges = op.getKind() == WindowKind::median
                        ? pipe_window_median_network(int(taps), pairs)
                        : 0;
    int border = int(op.getBorder());
    double fill = op.getFill().convertToDouble();
    WindowKind kind = op.getKind();
    long long total = in.numElements();
    visitStorageType(in.dtype(), [&](auto inTag) {
      using In = decltype(inTag);
      const In *x = in.as<In>();
      if (kind == WindowKind::min || kind == WindowKind::max ||
          kind == WindowKind::median) {
        In *y = out->as<In>();
        In f = pipe_cast<In>(fill);
        for (long long e = 0; e < total; ++e)
          y[e] = kind == WindowKind::median
                     ? pipe_window_median<long long>(
                           x, pipe_window_locate(e, g), g, border, f, pairs,
                           exchanges)
                     : pipe_window_extreme<long long>(
                           x, pipe_window_locate(e, g), g, border, f,
                           kind == WindowKind::max);
        return;
      }
      if constexpr (!std::is_same_v<In, pipe_bool>) {
        visitStorageType(out->dtype(), [&](auto outTag) {
          using Out = decltype(outTag);
          Out *y = out->as<Out>();
          auto run = [&](auto accTag) {
            using Acc = decltype(accTag);
            for (long long e = 0; e < total; ++e) {
              const float *w = nullptr;
              if (weights)
                w = weights->as<float>() +
                    (weightStride ? e / weightStride * taps : 0);
              y[e] = pipe_window_sum<Acc, Out, long long>(
                  x, pipe_window_locate(e, g), g, border, Acc(fill), w);
            }
          };
          if (in.dtype() == DType::F64 || out->dtype() == DType::F64)
            run(double{});
          else
            run(float{});
        });
      }
    });
    values[result] = out;
  }

  void runSelect(SelectOp select) {
    TensorPtr out = allocate(select.getResult());
    const HostTensor &c = *values.lookup(select.getCondition());
    const HostTensor &a = *values.lookup(select.getTrueValue());
    const HostTensor &b = *values.lookup(select.getFalseValue());
    visitStorageType(out->dtype(), [&](auto tag) {
      using T = decltype(tag);
      T *po = out->as<T>();
      for (int64_t i = 0, n = out->numElements(); i < n; ++i)
        po[i] = pipe_select(at<pipe_bool>(c, i), at<T>(a, i), at<T>(b, i));
    });
    values[select.getResult()] = out;
  }

  void runCast(CastOp cast) {
    TensorPtr out = allocate(cast.getResult());
    const HostTensor &in = *values.lookup(cast.getInput());
    visitStorageType(out->dtype(), [&](auto toTag) {
      using To = decltype(toTag);
      visitStorageType(in.dtype(), [&](auto fromTag) {
        using From = decltype(fromTag);
        const From *src = in.as<From>();
        To *dst = out->as<To>();
        for (int64_t i = 0, n = out->numElements(); i < n; ++i)
          dst[i] = pipe_cast<To, From>(src[i]);
      });
    });
    values[cast.getResult()] = out;
  }

  std::map<std::string, int64_t> sizes;
};

} // namespace

pipert::Result<std::vector<HostTensor>>
pipec::runReference(PipelineOp pipeline, const std::vector<HostTensor> &inputs,
                    pipert::RandomState random) {
  Block &body = pipeline.getBody().front();
  std::vector<pipert::PlanBuffer> params;
  for (BlockArgument arg : body.getArguments())
    params.push_back(getPlanBuffer(cast<RankedTensorType>(arg.getType()),
                                   pipeline.getArgName(arg.getArgNumber())));
  std::vector<pipert::TensorRef> refs;
  for (const HostTensor &input : inputs)
    refs.push_back(input.ref());
  // (The inputs' count, dtypes and shapes: the caller's mistake, as a GPU
  // run says it.)
  auto sizes = pipert::bindDims(pipeline.getSymName().str(), params, refs);
  if (!sizes)
    return pipert::Status::badArgument(sizes.status().message());
  // The dims' conditions, and every dim expression's size (a negative one
  // is an error), as the runtime checks them.
  pipert::Plan dims;
  dims.name = pipeline.getSymName().str();
  dims.dimChecks = collectDimChecks(pipeline);
  pipeline.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type)) {
        dims.buffers.push_back(getPlanBuffer(tensor, ""));
        dims.buffers.back().location =
            mlir::pipe::describeLocation(op->getLoc());
      }
  });
  if (pipert::Status s = pipert::evaluatePlanDims(dims, *sizes); !s.ok())
    return s;

  (*sizes)[pipert::kSeedDim] = int64_t(random.seed);
  (*sizes)[pipert::kRandomRunDim] = int64_t(random.run);
  (*sizes)[pipert::kBatchOffsetDim] = random.batchOffset;
  // The values the interpreter allocates may not fit in host memory: that
  // is the run's failure, not the caller's crash.
  try {
    Interpreter interpreter(*sizes);
    for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
      interpreter.values[arg] = std::make_shared<HostTensor>(input);
    std::vector<TensorPtr> results = interpreter.runBody(body);
    if (!interpreter.error.empty())
      return pipert::Status::error(interpreter.error);
    std::vector<HostTensor> out;
    for (const TensorPtr &result : results)
      out.push_back(*result);
    return out;
  } catch (const std::bad_alloc &) {
  } catch (const std::length_error &) {
  }
  return pipert::Status::error("out of host memory running pipeline '" +
                               pipeline.getSymName().str() +
                               "' on the CPU reference");
}
