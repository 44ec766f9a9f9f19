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

} // namespace pipe
} // namespace mlir

#endif // PIPE_DIALECT_DIMCHECKS_H
