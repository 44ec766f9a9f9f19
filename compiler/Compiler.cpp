//===- Compiler.cpp - The compiler's stages, end to end -------------------===//

#include "compiler/Compiler.h"

#include "dialect/PipeDialect.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace mlir;

void pipec::registerDialects(MLIRContext &context) {
  context.getOrLoadDialect<pipe::PipeDialect>();
}

namespace {
/// While it lives, the diagnostics `sourceMgr` prints are held back; then
/// they go to its handler in source order, each note after the error it
/// belongs to. The parser's rule errors (a loop's `max`) come as it reads
/// and Sema's after the whole parse: a file's errors read top to bottom.
class SourceOrderedDiagnostics {
public:
  explicit SourceOrderedDiagnostics(llvm::SourceMgr &sourceMgr)
      : sourceMgr(sourceMgr), handler(sourceMgr.getDiagHandler()),
        context(sourceMgr.getDiagContext()) {
    sourceMgr.setDiagHandler(
        [](const llvm::SMDiagnostic &diag, void *self) {
          auto &held = static_cast<SourceOrderedDiagnostics *>(self)->held;
          if (diag.getKind() == llvm::SourceMgr::DK_Note && !held.empty())
            held.back().push_back(diag);
          else
            held.push_back({diag});
        },
        this);
  }
  ~SourceOrderedDiagnostics() {
    sourceMgr.setDiagHandler(handler, context);
    // Those without a place (none in a file's checks) keep theirs, last.
    auto where = [](const std::vector<llvm::SMDiagnostic> &group) {
      const char *at = group.front().getLoc().getPointer();
      return at ? uintptr_t(at) : UINTPTR_MAX;
    };
    std::stable_sort(held.begin(), held.end(),
                     [&](const auto &a, const auto &b) {
                       return where(a) < where(b);
                     });
    for (const auto &group : held)
      for (const llvm::SMDiagnostic &diag : group) {
        if (handler)
          handler(diag, context);
        else
          diag.print(nullptr, llvm::errs());
      }
  }

private:
  llvm::SourceMgr &sourceMgr;
  llvm::SourceMgr::DiagHandlerTy handler;
  void *context;
  std::vector<std::vector<llvm::SMDiagnostic>> held;
};
} // namespace

std::optional<pipec::ModuleAST>
pipec::parseAndCheck(llvm::SourceMgr &sourceMgr) {
  SourceOrderedDiagnostics ordered(sourceMgr);
  Parser parser(sourceMgr);
  std::optional<ModuleAST> module = parser.parseModule();
  // After a broken binding rule the module is still checked, so that its
  // other errors are reported as well.
  if (!module || !checkModule(*module, sourceMgr) || parser.getRuleErrors())
    return std::nullopt;
  return module;
}

namespace {
/// The pass running on this thread, for the wording of internal errors.
thread_local std::string runningPass;
/// Whether this thread is rewording a diagnostic (which emits another).
thread_local bool rewording = false;

struct PassNamer : public PassInstrumentation {
  void runBeforePass(Pass *pass, Operation *) override {
    runningPass = pass->getArgument().str();
  }
};

/// While it lives, errors on `context` are the compiler's bugs (the program
/// has passed Sema), unless a pass marked them as the user's
/// (pipe::emitUserError): each is worded as an internal error naming the
/// stage (`stage()`, asked when the error comes; `hint` follows the plea
/// to report it), at the user's source
/// line, without the IR dumps that would read like a complaint about the
/// program.
class InternalErrorHandler : public ScopedDiagnosticHandler {
public:
  InternalErrorHandler(MLIRContext *context,
                       std::function<std::string()> stage, std::string hint)
      : ScopedDiagnosticHandler(context, [stage, hint](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error || rewording)
            return failure(); // as it is
          bool marked = llvm::any_of(diag.getNotes(), [](Diagnostic &note) {
            return note.str() == pipe::kUserErrorNote;
          });
          if (marked) {
            // The program's mistake, at its source line: without the IR
            // of the op that MLIR appends (the user wrote no IR).
            rewording = true;
            InFlightDiagnostic error = emitError(diag.getLocation())
                                       << diag.str();
            for (Diagnostic &note : diag.getNotes())
              if (note.str() != pipe::kUserErrorNote &&
                  !llvm::StringRef(note.str()).starts_with(
                      "see current operation"))
                error.attachNote(note.getLocation()) << note.str();
            error.report();
            rewording = false;
            return success();
          }
          std::string message = diag.str();
          if (llvm::StringRef(message).starts_with("internal error"))
            return failure();
          rewording = true;
          emitError(diag.getLocation())
              << "internal error in " << stage() << ": " << message
              << " (this is a bug in Pipe, not in the program: please report "
                 "it with the program"
              << hint << ")";
          rewording = false;
          return success();
        }) {}
};
} // namespace

OwningOpRef<ModuleOp> pipec::loadModule(MLIRContext &context,
                                        llvm::SourceMgr &sourceMgr) {
  registerDialects(context);
  llvm::StringRef name =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  if (name.ends_with(".mlir"))
    return parseSourceFile<ModuleOp>(sourceMgr, &context);
  std::optional<ModuleAST> ast = parseAndCheck(sourceMgr);
  if (!ast)
    return nullptr;
  OwningOpRef<ModuleOp> module = emitModule(context, *ast, sourceMgr);
  // MLIRGen on checked input always verifies; a failure here is a compiler
  // bug, reported as such (the verifier's words, reworded as the passes'
  // are) rather than as the user's error.
  LogicalResult verified = success();
  {
    InternalErrorHandler handler(&context, [] {
      return std::string("MLIRGen (the lowering of the checked program)");
    }, "; pipec --emit=ast shows what it lowered");
    verified = verify(*module);
  }
  if (failed(verified)) {
    emitError(module->getLoc()) << "internal error: MLIRGen produced invalid IR";
    return nullptr;
  }
  return module;
}

LogicalResult pipec::runDefaultPipeline(
    ModuleOp module, const std::function<void(PassManager &)> &configure,
    const std::string &testPass) {
  MLIRContext *context = module->getContext();
  // Sema has checked the program: an error from a pass (or IR a pass leaves
  // that does not verify) is the compiler's bug, unless the pass marked it
  // as the user's (pipe::emitUserError).
  InternalErrorHandler handler(context, [] {
    return runningPass.empty() ? std::string("the compiler's passes")
                               : "pass '" + runningPass + "'";
  }, "; pipec --mlir-print-ir-after-failure shows the IR");
  PassManager pm(context);
  if (configure)
    configure(pm);
  pm.addInstrumentation(std::make_unique<PassNamer>());
  pipe::buildDefaultPipeline(pm);
  if (!testPass.empty()) {
    static const bool registered = [] {
      pipe::registerPipePasses();
      return true;
    }();
    (void)registered;
  }
  if (!testPass.empty() &&
      failed(parsePassPipeline("pipe.pipeline(" + testPass + ")", pm))) {
    emitError(module.getLoc()) << "unknown test pass '" << testPass << "'";
    return failure();
  }
  return pm.run(module);
}

Operation *pipec::findPipeline(ModuleOp module, llvm::StringRef name,
                               std::string &why) {
  SmallVector<pipe::PipelineOp> pipelines(module.getOps<pipe::PipelineOp>());
  std::string names;
  for (pipe::PipelineOp pipeline : pipelines)
    names += (names.empty() ? "" : ", ") + pipeline.getSymName().str();
  if (!name.empty()) {
    for (pipe::PipelineOp pipeline : pipelines)
      if (pipeline.getSymName() == name)
        return pipeline;
    why = "has no pipeline named '" + name.str() + "'" +
          (names.empty() ? "" : " (it has " + names + ")");
    return nullptr;
  }
  if (pipelines.size() == 1)
    return pipelines.front();
  why = pipelines.empty() ? "defines no pipeline"
                          : "defines " + std::to_string(pipelines.size()) +
                                " pipelines: " + names;
  return nullptr;
}
