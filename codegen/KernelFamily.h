//===- KernelFamily.h - The compiler half of a kernel family ----*- C++ -*-===//
//
// A kernel family (elementwise, reduction, blur, ...) compiles one kind of
// fused op into CUDA source and a plan kernel, which its launcher (the
// runtime half, runtime/KernelLauncher.h) runs. PlanBuilder, `pipec
// --emit=cuda|plan`, the AOT emitter and the reports iterate over the
// families; none of them names one. Each family keeps its pieces in
// families/<name>/: emitter, plan building, launcher, shared parameters.
// codegen/KernelFamily.cpp lists the families.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CODEGEN_KERNELFAMILY_H
#define PIPE_CODEGEN_KERNELFAMILY_H

#include "dialect/PipeDialect.h"
#include "runtime/Plan.h"

#include <string>

namespace pipec {

/// How a kernel is emitted.
struct KernelOptions {
  /// Start the source with the prelude (pipec --emit=cuda prints it once).
  bool withPrelude = true;
  /// The kernel runs after a check of the run (pipe.check_bounds): it takes
  /// the run's guard word and number after its other arguments and writes
  /// nothing when a check of this run failed (PlanKernel::guarded).
  bool guarded = false;
  /// The kernel can find bad input on the GPU (KernelFamily::raisesGuard):
  /// it takes the run's guard word, writable, and raises it when it does.
  bool raisesGuard = false;
};

class KernelFamily {
public:
  virtual ~KernelFamily();

  /// The name plans carry (PlanKernel::family).
  virtual llvm::StringRef getName() const = 0;

  /// Whether this family compiles `op`, an op of a fused pipeline's body.
  virtual bool matches(mlir::Operation *op) const = 0;

  /// The name of `op`'s kernel: its own (pipe.kernel, pipe.reduce_kernel),
  /// or one made from the pipeline's name and `index`, the number of this
  /// family's kernels before it.
  virtual std::string getKernelName(mlir::Operation *op,
                                    llvm::StringRef pipeline,
                                    unsigned index) const = 0;

  /// `op`'s CUDA source and the plan kernel's family fields: entries,
  /// params, domain, dimArgs, location. The caller fills in the buffers:
  /// the op's operands, in order, are the kernel's inputs, its results its
  /// outputs. Fails with a diagnostic at the op (an internal error: fusion
  /// made an op it cannot compile).
  virtual mlir::FailureOr<pipert::PlanKernel>
  build(mlir::Operation *op, const std::string &name,
        const KernelOptions &options) const = 0;

  /// Whether its kernels can take the run's guard (KernelOptions::guarded).
  virtual bool canBeGuarded() const { return false; }

  /// Whether `op`'s kernel can find bad input on the GPU (a check; a blur
  /// of per-sample windows): it then raises the run's guard word, and the
  /// kernels after it are guarded, so that none reads what it left
  /// unwritten (PlanKernel::raisesGuard).
  virtual bool raisesGuard(mlir::Operation *op) const { return false; }

  /// The input whose memory its (one) output is, when it computes no
  /// values of its own (a check passes its input on), or -1.
  virtual int getAliasedInput() const { return -1; }

  /// Whether its source needs the stencil prelude (core/PipeReduce.h,
  /// core/PipeStencil.h, the blur templates) after the scalar one.
  virtual bool needsStencilPrelude() const { return false; }

  /// How `pipec --emit=plan` names a kernel of this family: "kernel p_k0",
  /// "reduction p_r0 [N, H] axes [1]".
  virtual std::string describe(const pipert::PlanKernel &kernel) const = 0;

  /// The device buffers its launcher allocates per run besides the plan's
  /// (what they hold, and their dtype and dims), for the memory report;
  /// small per-sample or per-row ones left out.
  virtual std::vector<std::pair<std::string, pipert::PlanBuffer>>
  describeScratch(const pipert::PlanKernel &) const {
    return {};
  }

  /// For the transfer report: what a kernel of this family writes to the
  /// host only on bad input (a blur's verdict), or "".
  virtual std::string describeBadInputCopy(const pipert::PlanKernel &) const {
    return "";
  }
};

/// Every family, in the order `findKernelFamily` tries them.
llvm::ArrayRef<const KernelFamily *> getKernelFamilies();

/// The family that compiles `op`, or null.
const KernelFamily *findKernelFamily(mlir::Operation *op);

/// The family named `name` (PlanKernel::family), or null.
const KernelFamily *findKernelFamily(llvm::StringRef name);

/// What every kernel starts with: the scalar semantics (core/PipeScalar.h)
/// and the device helpers (codegen/PipeKernel.cuh); with `withStencils`
/// also core/PipeReduce.h, core/PipeStencil.h and the blur templates.
std::string getCudaPrelude(bool withStencils = false);

/// "[a, b, c]".
std::string formatList(llvm::ArrayRef<int64_t> values);

/// The end of a one-entry kernel's parameter list and the start of its
/// body: the guard's two parameters when `options.guarded`, the wait for
/// the previous kernel, and the return when a check of the run failed.
std::string getGuardedKernelOpening(const KernelOptions &options);

} // namespace pipec

#endif // PIPE_CODEGEN_KERNELFAMILY_H
