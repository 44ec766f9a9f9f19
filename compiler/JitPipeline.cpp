//===- JitPipeline.cpp - Compile .pipe text from C++ and run it -----------===//

#include "compiler/JitPipeline.h"

#include "codegen/PlanBuilder.h"
#include "compiler/Compiler.h"
#include "dialect/PipeDialect.h"
#include "frontend/Diagnostics.h"
#include "reference/ReferenceExecutor.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>

using namespace pipec;

struct JitPipeline::Impl {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::pipe::PipelineOp pipeline;
  pipert::Plan plan;
  std::mutex loadMutex;
  std::unique_ptr<pipert::Executable> executable;
  /// The random state until the executable is loaded, which then keeps it.
  pipert::RandomState random;
};

JitPipeline::JitPipeline(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
JitPipeline::~JitPipeline() = default;

pipert::Result<std::unique_ptr<JitPipeline>>
JitPipeline::compile(const std::string &source, const std::string &bufferName,
                     const std::string &pipeline, bool fastMath) {
  auto impl = std::make_unique<Impl>();
  // Collect every diagnostic, the frontend's and MLIR's, into one message.
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sourceMgr;
  pipec::printDiagnosticsTo(sourceMgr, os);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &impl->context, os);
  auto fail = [&]() -> pipert::Status {
    std::string message = diagnostics;
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    return pipert::Status::error(message.empty() ? "compilation failed"
                                                 : message);
  };

  impl->module = loadModule(impl->context, sourceMgr);
  if (!impl->module || failed(runDefaultPipeline(*impl->module)))
    return fail();
  std::string why;
  auto found = llvm::dyn_cast_or_null<mlir::pipe::PipelineOp>(
      findPipeline(*impl->module, pipeline, why));
  if (!found)
    return pipert::Status::error(
        bufferName + " " + why +
        (pipeline.empty() && why.find("pipelines") != std::string::npos
             ? "; name one (the pipeline argument)"
             : ""));
  impl->pipeline = found;
  mlir::FailureOr<pipert::Plan> plan = buildPlan(found);
  if (failed(plan))
    return fail();
  impl->plan = std::move(*plan);
  impl->plan.fastMath = fastMath;
  return std::unique_ptr<JitPipeline>(new JitPipeline(std::move(impl)));
}

pipert::Result<std::unique_ptr<JitPipeline>>
JitPipeline::compileFile(const std::string &path, const std::string &pipeline) {
  auto source = readSourceFile(path);
  if (!source)
    return source.status();
  return compile(*source, path, pipeline);
}

pipert::Result<std::string> JitPipeline::readSourceFile(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      llvm::sys::fs::exists(status) &&
      !llvm::sys::fs::is_regular_file(status))
    return pipert::Status::error(
        "cannot read '" + path + "': " +
        (llvm::sys::fs::is_directory(status) ? "it is a directory"
                                             : "it is not a regular file"));
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return pipert::Status::error("cannot read '" + path +
                                 "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

const pipert::Plan &JitPipeline::plan() const { return impl->plan; }

pipert::Status
JitPipeline::ensureLoaded(const std::function<pipert::Status()> &beforeLoad) {
  std::lock_guard<std::mutex> lock(impl->loadMutex);
  if (impl->executable)
    return pipert::Status();
  if (beforeLoad)
    if (pipert::Status s = beforeLoad(); !s.ok())
      return s;
  auto loaded = pipert::Executable::load(impl->plan);
  if (!loaded)
    return loaded.status();
  impl->executable = loaded.take();
  impl->executable->setRandomState(impl->random);
  return pipert::Status();
}

pipert::RandomState JitPipeline::randomState() const {
  std::lock_guard<std::mutex> lock(impl->loadMutex);
  return impl->executable ? impl->executable->randomState() : impl->random;
}

void JitPipeline::setRandomState(pipert::RandomState state) {
  std::lock_guard<std::mutex> lock(impl->loadMutex);
  if (impl->executable)
    impl->executable->setRandomState(state);
  else
    impl->random = state;
}

pipert::Status JitPipeline::run(const std::vector<pipert::TensorRef> &inputs,
                                const std::vector<pipert::TensorRef> &outputs,
                                CUstream stream, bool wait) {
  // The tensors first, so that a bad one is named before a missing GPU or
  // a failed load is; once loaded, the run checks them itself.
  if (pipert::Status s = ensureLoaded([&] {
        return pipert::checkRunArguments(impl->plan, inputs, outputs);
      });
      !s.ok())
    return s;
  return impl->executable->run(inputs, outputs, stream, wait);
}

pipert::Result<std::vector<pipert::HostTensor>>
JitPipeline::run(const std::vector<pipert::HostTensor> &inputs) {
  // As above: a bad input is named before a missing GPU is.
  if (pipert::Status s = ensureLoaded([&] {
        std::vector<pipert::TensorRef> refs;
        for (const pipert::HostTensor &input : inputs)
          refs.push_back(input.ref());
        auto shapes = pipert::resultShapes(impl->plan, refs);
        return shapes ? pipert::Status() : shapes.status();
      });
      !s.ok())
    return s;
  return impl->executable->run(inputs);
}

pipert::Result<std::vector<pipert::HostTensor>>
JitPipeline::runReference(const std::vector<pipert::HostTensor> &inputs) const {
  return pipec::runReference(impl->pipeline, inputs, randomState());
}

pipert::Result<std::vector<pipert::HostTensor>>
JitPipeline::runReference(const std::vector<pipert::HostTensor> &inputs,
                          pipert::RandomState random) const {
  return pipec::runReference(impl->pipeline, inputs, random);
}

pipert::Executable::RunStats JitPipeline::lastRunStats() const {
  return impl->executable ? impl->executable->lastRunStats()
                          : pipert::Executable::RunStats();
}
