//===- JitPipeline.h - Compile .pipe text from C++ and run it ---*- C++ -*-===//
//
// The JIT way in: compile a pipeline from a string or a file at run time,
// then run it on host or device tensors on the GPU, or on the CPU reference
// executor. Errors, compile errors included (as file:line:col: error: ...
// with the source line and a caret), come back as pipert::Status values.
// This header includes no MLIR or LLVM header.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_COMPILER_JITPIPELINE_H
#define PIPE_COMPILER_JITPIPELINE_H

#include "runtime/Runtime.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pipec {

class JitPipeline {
public:
  /// Compiles the pipeline `pipeline` (or the only one) in `source`;
  /// `bufferName` names the source in diagnostics.
  /// `fastMath` compiles the kernels with FMA contraction and approximate
  /// division (pipert::compileCuda).
  static pipert::Result<std::unique_ptr<JitPipeline>>
  compile(const std::string &source, const std::string &bufferName = "<jit>",
          const std::string &pipeline = "", bool fastMath = false);
  static pipert::Result<std::unique_ptr<JitPipeline>>
  compileFile(const std::string &path, const std::string &pipeline = "");
  /// The text of the source file at `path`: a regular file only (reading
  /// a FIFO nothing writes to would wait forever), as pipegpu.compile_file
  /// takes.
  static pipert::Result<std::string> readSourceFile(const std::string &path);
  ~JitPipeline();

  /// The plan the GPU runs: buffers, kernels and their CUDA source.
  const pipert::Plan &plan() const;

  /// The shape of each result for `inputs` (their dims bind the pipeline's
  /// symbolic dims); an error names an input and dim that do not fit.
  pipert::Result<std::vector<std::vector<int64_t>>>
  resultShapes(const std::vector<pipert::TensorRef> &inputs) const {
    return pipert::resultShapes(plan(), inputs);
  }

  /// Runs on the GPU; the kernels are loaded on the first call. `wait` as
  /// for pipert::Executable::run.
  pipert::Status run(const std::vector<pipert::TensorRef> &inputs,
                     const std::vector<pipert::TensorRef> &outputs,
                     CUstream stream = nullptr, bool wait = true);
  pipert::Result<std::vector<pipert::HostTensor>>
  run(const std::vector<pipert::HostTensor> &inputs);

  /// What the last GPU run launched, skipped and read back to decide its
  /// branches (all zero before the first run).
  pipert::Executable::RunStats lastRunStats() const;

  /// Runs on the CPU reference executor: no GPU needed. Its random ops
  /// draw what the next GPU run will draw (randomState()); it does not
  /// advance the random run number. The second form draws with `random`.
  pipert::Result<std::vector<pipert::HostTensor>>
  runReference(const std::vector<pipert::HostTensor> &inputs) const;
  pipert::Result<std::vector<pipert::HostTensor>>
  runReference(const std::vector<pipert::HostTensor> &inputs,
               pipert::RandomState random) const;

  /// The seed and the random run number of the next GPU run (see
  /// pipert::Executable::randomState); each GPU run advances the number.
  pipert::RandomState randomState() const;
  void setRandomState(pipert::RandomState state);

private:
  struct Impl;
  explicit JitPipeline(std::unique_ptr<Impl> impl);
  /// Loads the kernels unless they are; `beforeLoad`, run only then, may
  /// refuse first.
  pipert::Status
  ensureLoaded(const std::function<pipert::Status()> &beforeLoad = nullptr);
  std::unique_ptr<Impl> impl;
};

} // namespace pipec

#endif // PIPE_COMPILER_JITPIPELINE_H
