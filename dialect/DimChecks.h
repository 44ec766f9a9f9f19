//===- DimChecks.h - Conditions on the dims that a read needs ---*- C++ -*-===//
//
// Some reads need an element to read even where their result then takes
// another value (a pad's or a concat's clamped read, a resize's taps): a
// dim check (the `dim_checks` attribute, evaluated when a run binds the
// dims, codegen/PlanBuilder.cpp) says that the input has one, or the
// run fails naming the op, instead of reading outside it.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_DIALECT_DIMCHECKS_H
#define PIPE_DIALECT_DIMCHECKS_H

#include "dialect/PipeDialect.h"

#include "core/DimExpr.h"

#include <optional>
#include <string>

namespace mlir {
namespace pipe {

/// Size `axis` of `type` as a dim expression.
inline pipert::DimExpr getDimSize(RankedTensorType type, int64_t axis) {
  return type.isDynamicDim(axis)
             ? *pipert::DimExpr::parse(getDimNames(type)[axis])
             : pipert::DimExpr::constant(type.getDimSize(axis));
}

/// The check (>= 0 passes) that an input dim `size` long has an element,
/// or that `result` has none (then nothing is read): max(size - 1,
/// -min(result's dims)). Nothing when every run passes it.
inline std::optional<pipert::DimExpr>
getReadableDimCheck(const pipert::DimExpr &size, RankedTensorType result) {
  using pipert::DimExpr;
  if (size.isConstant() && size.getConstant() >= 1)
    return std::nullopt;
  std::optional<DimExpr> smallest;
  for (int64_t d = 0; d < result.getRank(); ++d) {
    if (!result.isDynamicDim(d)) {
      if (result.getDimSize(d) == 0)
        return std::nullopt;
      continue;
    }
    DimExpr dim = getDimSize(result, d);
    smallest = smallest ? DimExpr::min(*smallest, dim) : dim;
  }
  DimExpr readable = size - DimExpr::constant(1);
  return smallest ? DimExpr::max(readable, DimExpr::constant(0) - *smallest)
                  : readable;
}

/// The op a dim check of `op` names: the one it replaced (`dim_check_op`,
/// e.g. the concat a pad stands for), else `op`'s own name ("crop").
inline std::string getDimCheckOpName(Operation *op) {
  auto named = op->getAttrOfType<StringAttr>("dim_check_op");
  return named ? named.str() : op->getName().stripDialect().str();
}

/// Why `op`'s dim check `i` must pass, when it says so of its own
/// (`dim_check_reasons`, in the checks' order); else "".
inline std::string getDimCheckReason(Operation *op, size_t i) {
  auto reasons = op->getAttrOfType<ArrayAttr>("dim_check_reasons");
  return reasons && i < reasons.size() ? cast<StringAttr>(reasons[i]).str()
                                       : std::string();
}

} // namespace pipe
} // namespace mlir

#endif // PIPE_DIALECT_DIMCHECKS_H
