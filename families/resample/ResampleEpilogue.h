//===- ResampleEpilogue.h - A fused resample's epilogue in CUDA -*- C++ -*-===//
//
// Internal to families/resample: the struct through which a
// pipe.resample_kernel's kernels hand each resampled value to its
// epilogue (the `Epi` of pipe_resize_tiles and pipe_resize_strips).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_FAMILIES_RESAMPLE_RESAMPLEEPILOGUE_H
#define PIPE_FAMILIES_RESAMPLE_RESAMPLEEPILOGUE_H

#include "dialect/PipeDialect.h"

#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>

namespace pipec::resample {

/// The epilogue struct `type` of `op`: members ep<k> (the epilogue inputs),
/// out<k> (the results) and d_<name> for each of `dims`, which it adds the
/// symbolic dims it needs to, in the order the struct lists them;
/// store(sample, oy, ox, ch, value) runs the epilogue on resampled value
/// (sample, oy, ox, ch), sample the flat index over the images' leading
/// dims, and stores the results where the epilogue's index maps put it
/// (nowhere, for a value outside a crop). Fails, as an internal error at
/// `op`, when the epilogue does not read the value once through maps that
/// read each value at most once (fusion makes no other).
mlir::LogicalResult emitEpilogueStruct(mlir::pipe::ResampleKernelOp op,
                                       const std::string &type,
                                       std::set<std::string> &dims,
                                       llvm::raw_ostream &os);

} // namespace pipec::resample

#endif // PIPE_FAMILIES_RESAMPLE_RESAMPLEEPILOGUE_H
