//===- Reports.h - What a compiled pipeline moves, and its graph -*- C++ -*-===//
//
// The views a person tuning transfers reads: the transfer report (every
// host/device copy of one run, its size as a formula of the symbolic dims
// and for given sizes, the value it carries, where it comes from in the
// source, and why it exists) and the pipeline as a Graphviz graph.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CODEGEN_REPORTS_H
#define PIPE_CODEGEN_REPORTS_H

#include "dialect/PipeDialect.h"
#include "runtime/Plan.h"

#include <map>
#include <string>

namespace pipec {

/// The transfer report of `pipeline` (fused) and its plan. Byte counts are
/// also evaluated for the dims in `sizes` that bind every symbol they use.
std::string describeTransfers(mlir::pipe::PipelineOp pipeline,
                              const pipert::Plan &plan,
                              const std::map<std::string, int64_t> &sizes);

/// How a sharded run splits pipeline `plan` (runtime/Sharded.h): the batch
/// dim, which parameters and results are split, and the bytes each
/// reduction over the batch moves per shard; or why it cannot be split.
std::string describeShardedRuns(const pipert::Plan &plan,
                                const std::map<std::string, int64_t> &sizes);

/// The device memory a run of `plan` allocates: each temporary between
/// kernels and each family's scratch, with its bytes (a formula of the
/// symbolic dims, evaluated where `sizes` binds them), and their sum, which
/// is the peak (a run frees nothing before it ends).
std::string describeDeviceMemory(const pipert::Plan &plan,
                                 const std::map<std::string, int64_t> &sizes);

/// `pipeline` (fused) as a Graphviz digraph: fused kernels as clusters of
/// their ops, ops coloured by where they run, copies as dashed red edges.
std::string emitDot(mlir::pipe::PipelineOp pipeline, const pipert::Plan &plan);

} // namespace pipec

#endif // PIPE_CODEGEN_REPORTS_H
