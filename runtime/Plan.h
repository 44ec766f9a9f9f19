//===- Plan.h - What the compiler hands the runtime -------------*- C++ -*-===//
//
// An executable plan: the pipeline's buffers (parameters, results and
// intermediates) with their dtypes and symbolic dims, and the kernels that
// compute them, in order. The compiler builds one for a JIT user; an
// ahead-of-time artifact holds one as static data. Plain data, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_PLAN_H
#define PIPE_RUNTIME_PLAN_H

#include "core/DType.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pipert {

/// A literal size, or a symbol bound from the parameters at run time.
struct PlanDim {
  int64_t size = -1;  ///< -1 when symbolic.
  std::string symbol; ///< Empty when literal.
};

/// "[N, 3]".
std::string describeDims(const std::vector<PlanDim> &dims);

/// Where a parameter or result must be: the caller's choice, or pinned by
/// `@host` / `@device` in the source.
enum class PlanMemory : uint8_t { Any, Host, Device };

struct PlanBuffer {
  std::string name; ///< Source name for parameters and results.
  DType dtype = DType::F32;
  std::vector<PlanDim> dims;
  /// A view (a reshape) of buffer `aliasOf`'s memory, or -1.
  int aliasOf = -1;
  /// For a constant (a list literal): its bytes, uploaded once at load.
  std::string constantData;
  /// For a parameter: where the caller's tensor must be.
  PlanMemory memory = PlanMemory::Any;
  /// For a value the host picks at run time: its PlanChoice, or -1. Such a
  /// buffer has no memory of its own; it is the chosen buffer.
  int choice = -1;
  /// For an intermediate, where the source computes it ("file:line:col"),
  /// when known: messages name it by that (describeBuffer).
  std::string location;
};

/// A branch or loop iteration the host decides (pipe.choose): buffer
/// `result` is buffer `ifTrue` or buffer `ifFalse` as the rank-0 bool
/// buffer `condition` says. The runtime computes the condition itself when
/// it comes from scalars in host memory (PlanKernel::hostSteps), else reads
/// it once the kernel computing it is queued (with every other condition
/// ready by then, in one copy), and launches only the kernels the chosen
/// values need.
struct PlanChoice {
  int condition = -1;
  int ifTrue = -1;
  int ifFalse = -1;
  int result = -1;
  /// Where the branch or loop is in the source ("file:line:col").
  std::string location;
};

/// One step of a scalar kernel's computation on the host (see
/// PlanKernel::hostSteps): `op` is an elementwise op's mnemonic ("add",
/// "lt", "select", "cast") or "constant"; it reads the registers `args`
/// (the kernel's inputs are registers 0 .. inputs.size()-1, then each step
/// writes the next) as `dtype` (for "cast", the source dtype; for "select",
/// the values') and gives `resultDType`. A constant's bytes are `constant`;
/// "dim" gives the value of the dim or dim expression `constant` (text) in
/// the run, as an i64.
struct PlanScalarStep {
  std::string op;
  DType dtype = DType::F32;
  DType resultDType = DType::F32;
  std::vector<int> args;
  std::string constant;
};

/// One kernel of the plan: CUDA source with entries that its family's
/// launcher runs (families/<family>/, runtime/KernelLauncher.h). The runtime
/// knows a kernel only through these fields: which buffers it reads and
/// writes, which symbolic dims it needs, and its family's parameters, which
/// only the family reads.
/// Images are optional: the runtime loads a cubin built for the device's
/// architecture, else the PTX, else compiles `source` with NVRTC.
struct PlanKernel {
  /// The family that compiled it and launches it: "elementwise",
  /// "reduction", "blur", "check".
  std::string family;
  /// The kernel's name, which its entries start with.
  std::string name;
  /// The entries of `source`, in the order the family defines ("" for a
  /// variant this kernel does not have).
  std::vector<std::string> entries;
  /// The family's parameters (runtime/KernelParams.h), written by its
  /// compiler half and read by its launcher.
  std::string params;
  /// The shape the family's work is laid out over (for a reduction, its
  /// input's; for a blur, the blurred tensor's; for elementwise kernels,
  /// the outputs').
  std::vector<PlanDim> domain;
  /// The symbolic dims passed to the entries, in order.
  std::vector<std::string> dimArgs;
  /// Where the op is in the source ("file:line:col"), for run-time errors.
  std::string location;
  std::string source;
  /// Whether the entries take the run's guard word and number after their
  /// other arguments, and write nothing once a check of the run failed
  /// (kernels that follow a check kernel).
  bool guarded = false;
  /// Whether the kernel can find bad input on the GPU, and then raises the
  /// run's guard word (taken after its other arguments) before writing
  /// nothing: a check, a blur of per-sample windows. The kernels after it
  /// are guarded.
  bool raisesGuard = false;
  std::vector<int> inputs;  ///< Buffer ids, in the order the entries take them.
  std::vector<int> outputs; ///< Buffer ids.
  /// For an elementwise kernel over rank-0 values only (a few scalar
  /// operations, typically branch conditions): the same computation for the
  /// host, which the runtime runs instead of reading the results back when
  /// its inputs are in host memory. `hostResults` are the registers of the
  /// outputs. Empty when some op has no host form.
  std::vector<PlanScalarStep> hostSteps;
  std::vector<int> hostResults;
  int cubinArch = 0;        ///< e.g. 90 for sm_90; 0 when there is no cubin.
  std::string cubin;        ///< Bytes.
  std::string ptx;
};

/// A condition on the dims that the pipeline needs and the compiler cannot
/// prove (a slice's bounds when the dim is only known at run time):
/// `expression` (core/DimExpr.h) must not be negative, or the run fails with
/// `message`.
struct PlanDimCheck {
  std::string expression;
  std::string message;
};

/// A reduction over the batch dim, in a sharded run (runtime/Sharded.h):
/// each shard computes `buffer` over its own samples, and the runtime
/// combines the shards' values as `kind` says before anything reads it.
enum class PlanCombineKind : uint8_t { Sum, Mean, Prod, Min, Max, Any, All };
/// "sum", "mean", ...: the reduction's name in the language.
const char *getCombineKindName(PlanCombineKind kind);
struct PlanCombine {
  int buffer = -1;
  PlanCombineKind kind = PlanCombineKind::Sum;
  /// Where the reduction is in the source ("file:line:col").
  std::string location;
};

struct Plan {
  std::string name;
  /// Buffers [0, numParams) are the parameters, in order.
  std::vector<PlanBuffer> buffers;
  int numParams = 0;
  /// The buffer each result is read from, in result order. A parameter may
  /// be a result, and one buffer may be several results.
  std::vector<int> results;
  std::vector<std::string> resultNames;
  /// Where each result's output tensor must be, in result order.
  std::vector<PlanMemory> resultMemory;
  std::vector<PlanKernel> kernels;
  std::vector<PlanChoice> choices;
  std::vector<PlanDimCheck> dimChecks;
  /// The dim a sharded run splits the batch along: the leading dim of the
  /// parameters and results that have it (pipe-shard-batch). Empty when
  /// the pipeline cannot be split; `shardError` then says why.
  std::string batchDim;
  std::string shardError;
  std::vector<PlanCombine> combines;
  /// Kernels compiled with FMA contraction and approximate division (see
  /// compileCuda); results then differ from the CPU reference's in the last
  /// bits.
  bool fastMath = false;
};

/// Whether `buffer`'s leading dim is `plan`'s batch dim: a parameter or
/// result a sharded run splits between its shards.
inline bool hasBatchDim(const Plan &plan, const PlanBuffer &buffer) {
  return !plan.batchDim.empty() && !buffer.dims.empty() &&
         buffer.dims[0].symbol == plan.batchDim;
}

/// What a generated `pipe_aot_NAME()` (codegen/AotEmitter.cpp) hands the C
/// API's pipe_load_aot: a stamp of the Plan layout the generated source
/// was written for, which pipe_load_aot checks, and the plan.
struct AotPlanHandle {
  unsigned magic;
  unsigned layout;
  const Plan *plan;
};
inline constexpr unsigned kAotPlanMagic = 0x45504950u; // "PIPE"
/// Bumped whenever Plan, PlanKernel or PlanBuffer change their members,
/// or the meaning of their entries (3: PlanBuffer::location, and the
/// elementwise kernels' seventh entry, the staged span).
inline constexpr unsigned kPlanLayoutVersion = 3;

/// How much the results need a buffer, given the choices decided so far.
enum : uint8_t {
  kNotNeeded = 0,
  /// Needed if an undecided choice picks the side it is on.
  kMaybeNeeded = 1,
  kNeeded = 2,
};

/// For each buffer of `plan`, how much the results need it, when choice c
/// is decided true (1), false (0) or not yet (-1) as `decided[c]` says.
/// A kernel runs only if some output is kNeeded; never if all are
/// kNotNeeded (the runtime skips it; the transfer report calls such
/// kernels conditional).
std::vector<uint8_t> computeDemand(const Plan &plan,
                                   const std::vector<int8_t> &decided);

/// The most any output of kernel `kernel` is needed.
uint8_t kernelDemand(const Plan &plan, const std::vector<uint8_t> &need,
                     size_t kernel);

/// The buffer whose memory `buffer` is, through views and the choices
/// `decided` has decided; -1 while a choice on the way is undecided.
int resolveBuffer(const Plan &plan, const std::vector<int8_t> &decided,
                  int buffer);

/// The buffers computed by kernels that a choice's condition may be
/// (directly, or through views and other choices): the runtime keeps them
/// side by side, to read those ready at one time in one copy.
std::vector<int> getConditionBuffers(const Plan &plan);

/// Whether kernel `kernel` is elementwise over rank-0 outputs only (a few
/// scalar operations): the runtime computes such a kernel's conditions
/// before it knows that they will be needed, to save a wait.
bool isScalarKernel(const Plan &plan, size_t kernel);

} // namespace pipert

#endif // PIPE_RUNTIME_PLAN_H
