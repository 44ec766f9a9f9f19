//===- LayoutReference.h - The layout ops on the CPU, one by one -*- C++ -*-===//

#ifndef PIPE_REFERENCE_LAYOUTREFERENCE_H
#define PIPE_REFERENCE_LAYOUTREFERENCE_H

#include "dialect/PipeDialect.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <map>
#include <string>

namespace pipec {

/// Computes layout op `op` (slice, crop, flip, pad, take, concat,
/// coordinate, erase, dim) into `out`, allocated with the result's shape;
/// `valueOf` gives each operand's tensor, `sizes` the dims. A run-time
/// error (a crop's anchor out of bounds, a take's index out of range)
/// comes back as a Status naming the sample.
pipert::Status runLayoutReference(
    mlir::Operation *op,
    llvm::function_ref<const pipert::HostTensor &(mlir::Value)> valueOf,
    const std::map<std::string, int64_t> &sizes, pipert::HostTensor &out);

} // namespace pipec

#endif // PIPE_REFERENCE_LAYOUTREFERENCE_H
