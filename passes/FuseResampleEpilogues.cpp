//===- FuseResampleEpilogues.cpp - A resample with its consumer -----------===//
//
// Implements `pipe-fuse-resample-epilogues` (see Passes.td): a
// `pipe.resample` read once per element by the one `pipe.kernel` that uses
// it, through index maps that read each resampled value at most once,
// becomes a
// `pipe.resample_kernel` whose epilogue is that kernel's body. The
// resample's kernels then write what the consumer would (cropped,
// normalized, transposed to CHW, mirrored per sample) as they compute each
// value, instead of storing the images for a second kernel to read back.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/IndexExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace pipe {
#define GEN_PASS_DEF_FUSERESAMPLEEPILOGUES
#include "passes/Passes.h.inc"
} // namespace pipe
} // namespace mlir

using namespace mlir;
using namespace mlir::pipe;

namespace {

/// The most channels a fused resample keeps of a pixel (its kernels hold
/// them in registers: core/PipeResample.h, PIPE_RESAMPLE_MOST_FUSED_CHANNELS).
constexpr int64_t kMostChannels = 4;

/// Whether a resample's epilogue can compute `expr`, a coordinate of the
/// element that reads a resampled value, before it runs the kernel's body
/// (families/resample/ResampleEpilogue.cpp prints it): every value it
/// reads, through the index maps that compute it (a flip's flags, a crop's
/// anchors, and what their own maps read), is an input of the kernel other
/// than the images `images`, or an integer literal.
bool readsOnlyInputs(const IndexExpr &expr, ArrayRef<BlockArgument> images) {
  auto isInputOrLiteral = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return !llvm::is_contained(images, arg);
    return getIntegerLiteral(value).has_value();
  };
  auto operandsOnlyInputs = [&](ArrayRef<IndexExpr> operands) {
    return llvm::all_of(operands, [&](const IndexExpr &operand) {
      return readsOnlyInputs(operand, images);
    });
  };
  switch (expr.getKind()) {
  case IndexExpr::Kind::Scalar:
    return isInputOrLiteral(expr.getValue());
  case IndexExpr::Kind::Read: {
    IndexRead read = resolveIndexMaps(
        expr.getValue(), IndexCoordinates(expr.getOperands().begin(),
                                          expr.getOperands().end()));
    if (read.scalar)
      return isInputOrLiteral(read.scalar);
    if (read.index)
      return readsOnlyInputs(read.index, images);
    // The coordinates, mapped, hold what the maps on the way read.
    return read.arg && !llvm::is_contained(images, read.arg) &&
           operandsOnlyInputs(read.coordinates);
  }
  default:
    return operandsOnlyInputs(expr.getOperands());
  }
}

/// Whether `kernel` reads the images that its block arguments `args` bind
/// once per element of its domain, through index maps that read each of
/// their elements at most once, and through nothing else: then each
/// resampled value has at most one place in the kernel's results (none
/// outside a crop), and each place one value.
bool readsEachValueOnce(KernelOp kernel, ArrayRef<BlockArgument> args) {
  RankedTensorType domain = kernel.getDomainType();
  int reads = 0;
  SmallVector<Value> worklist(args.begin(), args.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    bool readHere = false;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      auto map = dyn_cast<IndexMapOpInterface>(user);
      if (!map) {
        if (isa<YieldOp>(user))
          return false; // the images themselves are a result
        readHere = true; // an elementwise op reads it per element
        continue;
      }
      // A parameter of a map (a flip's flags, a crop's anchors), or a
      // source read twice by one map: not a plain read.
      if (map.getSource() != value ||
          llvm::count(user->getOperands(), value) != 1)
        return false;
      worklist.push_back(user->getResult(0));
    }
    if (!readHere)
      continue;
    if (++reads > 1)
      return false; // two reads of the images per element
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getShape() != domain.getShape() ||
        getDimNames(type) != getDimNames(domain))
      return false;
    // Down the chain to the images: where each element reads them.
    IndexRead read = resolveIndexMaps(value, getDomainCoordinates(type.getRank()));
    if (!read.arg)
      return false;
    std::optional<InjectiveInverse> inverse =
        invertInjectiveRead(read.coordinates, read.source, domain);
    if (!inverse)
      return false;
    // The epilogue finds the element before it runs the body.
    for (const IndexExpr &coordinate : inverse->coordinates)
      if (!readsOnlyInputs(coordinate, args))
        return false;
  }
  return reads == 1;
}

/// The kernel `resample`'s epilogue can be, or null.
KernelOp findConsumer(ResampleOp resample) {
  Value images = resample.getResult();
  if (images.use_empty())
    return {};
  auto kernel = dyn_cast<KernelOp>(*images.user_begin());
  if (!kernel || llvm::any_of(images.getUsers(), [&](Operation *user) {
        return user != kernel.getOperation();
      }))
    return {};
  auto type = cast<RankedTensorType>(images.getType());
  int64_t channels = type.getShape().back();
  if (ShapedType::isDynamic(channels) || channels > kMostChannels)
    return {};
  SmallVector<BlockArgument> args;
  Block &body = kernel.getBody().front();
  for (auto [input, arg] : llvm::zip(kernel.getInputs(), body.getArguments()))
    if (input == images)
      args.push_back(arg);
  return readsEachValueOnce(kernel, args) ? kernel : KernelOp();
}

struct FuseResampleEpiloguesPass
    : pipe::impl::FuseResampleEpiloguesBase<FuseResampleEpiloguesPass> {
  void runOnOperation() override {
    SmallVector<ResampleOp> resamples;
    getOperation().walk([&](ResampleOp op) { resamples.push_back(op); });
    for (ResampleOp resample : resamples)
      if (KernelOp consumer = findConsumer(resample))
        fuse(resample, consumer);
  }

  /// Replaces `resample` and `consumer` by one pipe.resample_kernel where
  /// the consumer was (after everything either reads).
  void fuse(ResampleOp resample, KernelOp consumer) {
    Value images = resample.getResult();
    SmallVector<Value> inputs;
    for (Value input : consumer.getInputs())
      if (input != images)
        inputs.push_back(input);
    OpBuilder builder(consumer);
    auto fused = ResampleKernelOp::create(
        builder, builder.getFusedLoc({resample.getLoc(), consumer.getLoc()}),
        consumer.getResultTypes(), resample.getInput(), resample.getParam(),
        resample.getTransformAttr(), resample.getInterpAttr(),
        resample.getBorderAttr(), resample.getFillAttr(),
        resample.getAntialiasAttr(), inputs);
    // The resample's run-time checks (dim_checks and why) go with it.
    for (NamedAttribute attr : resample->getDiscardableAttrs())
      fused->setAttr(attr.getName(), attr.getValue());

    Block *epilogue = new Block();
    fused.getEpilogue().push_back(epilogue);
    BlockArgument resampled =
        epilogue->addArgument(images.getType(), resample.getLoc());
    Block &body = consumer.getBody().front();
    IRMapping mapping;
    for (auto [input, arg] : llvm::zip(consumer.getInputs(), body.getArguments()))
      mapping.map(arg, input == images
                           ? Value(resampled)
                           : Value(epilogue->addArgument(input.getType(),
                                                         input.getLoc())));
    OpBuilder inner = OpBuilder::atBlockEnd(epilogue);
    for (Operation &op : body)
      inner.clone(op, mapping);

    consumer.replaceAllUsesWith(fused.getResults());
    consumer.erase();
    resample.erase();
  }
};

} // namespace
