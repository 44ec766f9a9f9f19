//===- ResampleEpilogue.cpp - A fused resample's epilogue in CUDA ---------===//
//
// A pipe.resample_kernel's epilogue reads each resampled value at most
// once, through index maps (pipe-fuse-resample-epilogues), so the
// resample's kernels can run it producer-side: for the value at source
// coordinates p (sample, oy, ox, ch), the element of the epilogue's domain
// that reads it is c = inverse(p) (IndexExpr's invertInjectiveRead; none
// when c falls outside the domain, outside a crop), and the epilogue's
// body runs there, its other inputs read at c as a pipe.kernel's would
// be.
//
//===----------------------------------------------------------------------===//

#include "families/resample/ResampleEpilogue.h"

#include "codegen/IndexCodegen.h"
#include "dialect/IndexExpr.h"

using namespace mlir;
using namespace mlir::pipe;

namespace {

std::string cppTypeOf(Value value) {
  return getCppScalarType(
      cast<RankedTensorType>(value.getType()).getElementType());
}

/// The one index map chain (or direct read) through which `epilogue` reads
/// its argument 0, as the coordinates it reads at; nothing if there is not
/// exactly one.
std::optional<IndexCoordinates> findValueRead(Block &epilogue,
                                              RankedTensorType domain) {
  BlockArgument value = epilogue.getArgument(0);
  std::optional<IndexCoordinates> found;
  int reads = 0;
  if (pipec::isReadDirectly(value)) {
    found = getDomainCoordinates(domain.getRank());
    ++reads;
  }
  for (Operation &op : epilogue.without_terminator()) {
    if (!pipec::isGatheredValue(&op))
      continue;
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    pipec::IndexRead read = pipec::resolveIndexMaps(
        op.getResult(0), getDomainCoordinates(type.getRank()));
    if (read.arg != value)
      continue;
    found = read.coordinates;
    ++reads;
  }
  if (reads != 1)
    return std::nullopt;
  return found;
}

} // namespace

LogicalResult pipec::resample::emitEpilogueStruct(ResampleKernelOp op,
                                                  const std::string &type,
                                                  std::set<std::string> &dims,
                                                  llvm::raw_ostream &os) {
  Block &epilogue = op.getEpilogue().front();
  RankedTensorType images = op.getResampledType(), domain = op.getDomainType();
  std::optional<IndexCoordinates> read = findValueRead(epilogue, domain);
  std::optional<InjectiveInverse> inverse =
      read ? invertInjectiveRead(*read, images, domain) : std::nullopt;
  if (!inverse)
    return op.emitOpError()
           << "internal error: its epilogue does not read each resampled "
              "value at most once";
  for (Operation &inner : epilogue.without_terminator())
    if (!isa<ElementwiseOpInterface, IndexMapOpInterface, CoordinateOp>(inner))
      return inner.emitOpError() << "internal error: has no CUDA lowering";
  collectDimSymbols(images, dims);
  collectDimSymbols(domain, dims);
  // (Clamped parameter reads need their tensors' sizes.)
  for (Value input : op.getEpilogueInputs())
    collectDimSymbols(cast<RankedTensorType>(input.getType()), dims);
  pipec::collectIndexDims(epilogue, dims);

  os << "struct " << type << " {\n"
     << "  static const bool enabled = true;\n";
  for (auto [k, input] : llvm::enumerate(op.getEpilogueInputs()))
    os << "  const " << cppTypeOf(input) << " *__restrict__ ep" << k << ";\n";
  for (auto [k, result] : llvm::enumerate(op.getResults()))
    os << "  " << cppTypeOf(result) << " *__restrict__ out" << k << ";\n";
  for (const std::string &dim : dims)
    os << "  long long d_" << dim << ";\n";
  int64_t rank = images.getRank();
  os << "  __device__ __forceinline__ void store(long long sample, long long "
        "oy, long long ox, int ch, "
     << getCppScalarType(images.getElementType()) << " lead0) const {\n"
     << "    const long long p" << rank - 3 << " = oy, p" << rank - 2
     << " = ox, p" << rank - 1 << " = ch;\n"
     << "    long long rest = sample;\n";
  for (int64_t k = rank - 4; k >= 1; --k)
    os << "    const long long p" << k << " = rest % "
       << pipec::printDimSize(images, k) << "; rest /= "
       << pipec::printDimSize(images, k) << ";\n";
  if (rank > 3)
    os << "    const long long p0 = rest;\n";
  os << "    (void)rest;\n";
  // The domain's element that reads the value.
  pipec::IndexStyle style;
  style.signedType = style.offsetType = "long long";
  style.coordinate = [](int64_t k) { return "p" + std::to_string(k); };
  style.dim = [](StringRef name) { return getDimCExpression(name); };
  style.scalar = [](Value value) -> std::string {
    // The maps read only the kernel's inputs (a flip's flags, a crop's
    // anchors) and integer literals (pipe-fuse-resample-epilogues).
    if (auto arg = dyn_cast<BlockArgument>(value))
      return "ep" + std::to_string(arg.getArgNumber() - 1) + "[0]";
    return "(long long)" + std::to_string(*getIntegerLiteral(value));
  };
  // Where some values are dropped (outside a crop), the coordinates of
  // their elements are found for nothing, and the parameters read on the
  // way (a per-row flag at a row the crop left out) may be read past
  // their ends: such reads are clamped into their tensors. For a value
  // that is kept every read is one its element makes, in range, so the
  // clamp changes nothing there.
  auto elements = [](RankedTensorType type) {
    std::string count = "1LL";
    for (int64_t d = 0; d < type.getRank(); ++d)
      count += " * " + pipec::printDimSize(type, d);
    return count;
  };
  style.load = [&](BlockArgument arg, const std::string &offset) {
    std::string name = "ep" + std::to_string(arg.getArgNumber() - 1);
    if (!inverse->partial)
      return name + "[" + offset + "]";
    return name + "[pipe_index_min<long long>(pipe_index_max<long long>(" +
           offset + ", 0LL), " +
           elements(cast<RankedTensorType>(arg.getType())) + " - 1LL)]";
  };
  // (Nothing is kept of images cropped to nothing: no parameter is read.)
  if (inverse->partial)
    os << "    if (" << elements(domain) << " == 0LL)\n      return;\n";
  std::string at = "0LL", outside;
  for (int64_t d = 0; d < domain.getRank(); ++d) {
    std::string c = "c" + std::to_string(d);
    os << "    const long long " << c << " = "
       << pipec::printIndex(inverse->coordinates[d], style) << ";\n";
    at = "(" + at + ") * " + pipec::printDimSize(domain, d) + " + " + c;
    outside += (outside.empty() ? "" : " || ") + c + " < 0 || " + c +
               " >= " + pipec::printDimSize(domain, d);
  }
  // A value no element reads (outside a crop) is dropped.
  if (inverse->partial)
    os << "    if (" << outside << ")\n      return;\n";
  os << "    const long long at = " << at << ";\n";
  SmallVector<std::string> yielded = pipec::emitFusedBlock(
      os, epilogue, "    ", 1,
      [&](unsigned k) {
        return "ep" + std::to_string(k) +
               (cast<RankedTensorType>(epilogue.getArgument(k + 1).getType())
                            .getRank() == 0
                    ? "[0]"
                    : "[at]");
      },
      [&](Operation *map, const llvm::DenseMap<Value, std::string> &names) {
        auto mapType = cast<RankedTensorType>(map->getResult(0).getType());
        pipec::IndexRead value = pipec::resolveIndexMaps(
            map->getResult(0), getDomainCoordinates(mapType.getRank()));
        if (value.arg == epilogue.getArgument(0))
          return std::string("lead0");
        return pipec::printGatherAt(map, "ep", names, /*skip=*/1);
      });
  for (auto [k, value] : llvm::enumerate(yielded))
    os << "    out" << k << "[at] = " << value << ";\n";
  os << "  }\n};\n\n";
  return success();
}
