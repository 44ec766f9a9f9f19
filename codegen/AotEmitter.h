//===- AotEmitter.h - Plans as C++ for ahead-of-time builds -----*- C++ -*-===//
//
// Writes a plan as a header with a typed entry point and a C++ source that
// embeds the plan (kernel sources, cubins, PTX) as static data. The pair
// compiles against runtime/ alone: no MLIR, no LLVM at link or run time.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CODEGEN_AOTEMITTER_H
#define PIPE_CODEGEN_AOTEMITTER_H

#include "runtime/Plan.h"

#include <string>

namespace pipec {

struct AotSources {
  std::string header;
  std::string source;
};

/// `headerName` is how the source includes the header ("scale.h");
/// `cppNamespace` holds the entry points.
AotSources emitAot(const std::vector<pipert::Plan> &plans,
                   const std::string &headerName,
                   const std::string &cppNamespace,
                   const std::string &origin);

} // namespace pipec

#endif // PIPE_CODEGEN_AOTEMITTER_H
