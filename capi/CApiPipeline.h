//===- CApiPipeline.h - What a pipe_pipeline handle is ----------*- C++ -*-===//
//
// Internal to the C API. A pipe_pipeline is a plan and the ways to run it:
// on the GPU always, and on the CPU reference executor when it was
// compiled from source (pipe_compile, CApiCompile.cpp); a plan compiled
// ahead of time (pipe_load_aot) has no reference. The functions of
// CApiRun.cpp see this interface alone, so that they link against the
// runtime alone (libpipe_c_runtime.a, for AOT programs in C).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_CAPI_CAPIPIPELINE_H
#define PIPE_CAPI_CAPIPIPELINE_H

#include "capi/pipe_c.h"

#include "runtime/Runtime.h"

#include <exception>
#include <new>
#include <mutex>
#include <string>
#include <vector>

struct pipe_pipeline {
  virtual ~pipe_pipeline() = default;

  virtual const pipert::Plan &plan() const = 0;
  /// Runs on the GPU on `stream` and waits for it there; the tensors are
  /// checked against the plan.
  virtual pipert::Status run(const std::vector<pipert::TensorRef> &inputs,
                             const std::vector<pipert::TensorRef> &outputs,
                             CUstream stream) = 0;
  /// Whether runReference can run: false for an AOT plan.
  virtual bool hasReference() const = 0;
  /// The CPU reference's results for `inputs`, drawn with `random`.
  virtual pipert::Result<std::vector<pipert::HostTensor>>
  runReference(const std::vector<pipert::HostTensor> &inputs,
               pipert::RandomState random) const = 0;
  virtual pipert::RandomState randomState() const = 0;
  virtual void setRandomState(pipert::RandomState state) = 0;

  /// Held by a reference run from reading the random state to advancing
  /// it: runs from several threads draw each run number once (as the
  /// GPU's serialized runs do) and none is lost.
  std::mutex referenceRun;

  /// What pipe_param_info and pipe_result_info point into.
  struct Info {
    std::string name;
    std::vector<int64_t> sizes;
    std::vector<std::string> dims;
    std::vector<const char *> dimTexts;
    pipe_tensor_info info;
  };
  std::vector<Info> params, results;

  /// Fills params and results from plan(); called once, by the function
  /// that makes the handle.
  void describe();
};

namespace pipecapi {

/// Sets this thread's last error and returns `status`.
pipe_status fail(pipe_status status, std::string message);
/// A failure of the runtime or the compiler: an internal error when its
/// message says so.
pipe_status fail(pipe_status status, const pipert::Status &s);

/// Runs `body` (which returns a pipe_status), turning anything it throws
/// (std::bad_alloc, above all) into an error: nothing crosses the C ABI.
template <typename Body> pipe_status guarded(const char *function, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(PIPE_ERROR_RUN, std::string(function) + ": out of host memory");
  } catch (const std::exception &e) {
    return fail(PIPE_ERROR_INTERNAL, std::string("internal error in ") +
                                         function + ": " + e.what());
  } catch (...) {
    return fail(PIPE_ERROR_INTERNAL,
                std::string("internal error in ") + function);
  }
}

/// Pipe's dtype as DLPack's (bool is {kDLBool, 8, 1}).
DLDataType toDLPack(pipert::DType dtype);

/// `tensor` as a DLManagedTensorVersioned in host memory that owns its
/// bytes (no copy), the caller's to delete with its deleter.
DLManagedTensorVersioned *adoptHostTensor(pipert::HostTensor tensor);

/// A DLPack dtype as NumPy names it: "uint8", "float32", "bool8",
/// "float32x4".
std::string describeDLPack(DLDataType t);

/// `tensor` as a TensorRef of `dtype`, or why not: `kind` and `name` name
/// it in the message ("input 'x' is ..."). Checks what the runtime assumes:
/// the dtype, a compact row-major layout, memory it can reach. With
/// `hostOnlyWhy`, device memory is refused with that reason.
pipert::Result<pipert::TensorRef> toTensorRef(const DLTensor &tensor,
                                              pipert::DType dtype,
                                              const char *kind,
                                              const std::string &name,
                                              const char *hostOnlyWhy);

} // namespace pipecapi

#endif // PIPE_CAPI_CAPIPIPELINE_H
