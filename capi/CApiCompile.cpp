//===- CApiCompile.cpp - Pipe's C API over the JIT compiler ---------------===//
//
// pipe_compile and pipe_compile_file: a pipe_pipeline over a JitPipeline,
// which runs on the GPU and on the CPU reference executor. The rest of the
// C API (CApiRun.cpp) sees it through CApiPipeline.h's interface alone.
//
//===----------------------------------------------------------------------===//

#include "capi/CApiPipeline.h"

#include "compiler/JitPipeline.h"

#include "llvm/Support/MemoryBuffer.h"

#include <memory>

using namespace pipecapi;

namespace {

class JitBackedPipeline final : public pipe_pipeline {
public:
  explicit JitBackedPipeline(std::unique_ptr<pipec::JitPipeline> jit)
      : jit_(std::move(jit)) {}

  const pipert::Plan &plan() const override { return jit_->plan(); }
  pipert::Status run(const std::vector<pipert::TensorRef> &inputs,
                     const std::vector<pipert::TensorRef> &outputs,
                     CUstream stream) override {
    return jit_->run(inputs, outputs, stream, /*wait=*/true);
  }
  bool hasReference() const override { return true; }
  pipert::Result<std::vector<pipert::HostTensor>>
  runReference(const std::vector<pipert::HostTensor> &inputs,
               pipert::RandomState random) const override {
    return jit_->runReference(inputs, random);
  }
  pipert::RandomState randomState() const override {
    return jit_->randomState();
  }
  void setRandomState(pipert::RandomState state) override {
    jit_->setRandomState(state);
  }

private:
  std::unique_ptr<pipec::JitPipeline> jit_;
};

pipe_status finishCompile(
    pipert::Result<std::unique_ptr<pipec::JitPipeline>> jit,
    pipe_pipeline **out) {
  if (!jit)
    return fail(PIPE_ERROR_COMPILE, jit.status());
  auto p = std::make_unique<JitBackedPipeline>(jit.take());
  p->describe();
  *out = p.release();
  return PIPE_OK;
}

} // namespace

extern "C" {

pipe_status pipe_compile(const char *source, const char *source_name,
                         const char *pipeline_name, pipe_pipeline **out) {
  return guarded("pipe_compile", [&] {
    if (!source || !out)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_compile: source and out are required");
    return finishCompile(pipec::JitPipeline::compile(
                             source, source_name ? source_name : "<string>",
                             pipeline_name ? pipeline_name : ""),
                         out);
  });
}

pipe_status pipe_compile_file(const char *path, const char *pipeline_name,
                              pipe_pipeline **out) {
  return guarded("pipe_compile_file", [&] {
    if (!path || !out)
      return fail(PIPE_ERROR_ARGUMENT,
                  "pipe_compile_file: path and out are required");
    // Read here, not by JitPipeline::compileFile: a file that cannot be
    // read is PIPE_ERROR_FILE, not the source's error.
    auto source = pipec::JitPipeline::readSourceFile(path);
    if (!source)
      return fail(PIPE_ERROR_FILE, source.status());
    return finishCompile(pipec::JitPipeline::compile(
                             *source, path, pipeline_name ? pipeline_name : ""),
                         out);
  });
}

} // extern "C"
