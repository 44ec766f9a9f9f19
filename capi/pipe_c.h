/*===- pipe_c.h - Pipe's C API ---------------------------------*- C -*-===*
 *
 * A stable C ABI over the JIT compiler and the runtime, for other languages
 * (the Python module, python/pipegpu, is its first user): compile a
 * pipeline from text or a file, or load one that `pipec --emit=aot`
 * compiled ahead of time, ask for its parameters and results, and run it
 * on DLPack tensors (DLTensor views, the core of both DLManagedTensor and
 * DLPack 1.x's DLManagedTensorVersioned) in host or device memory, on the
 * caller's CUDA stream, or on the CPU reference executor; read and write
 * PNG and JPEG images as DLPack tensors.
 *
 * Two libraries: libpipe_c.so has it all (MLIR and LLVM linked in);
 * libpipe_c_runtime.a has all but pipe_compile and pipe_compile_file, and
 * links against the runtime alone, for programs that run AOT plans.
 *
 * Every function that can fail returns a pipe_status; pipe_last_error()
 * then gives the message, per thread. No C++ exception crosses the API.
 * Handles are not thread-safe to destroy while in use; one pipeline may be
 * run from several threads (the runtime serializes the runs,
 * docs/runtime.md, "Threads").
 *
 *===--------------------------------------------------------------------===*/

#ifndef PIPE_C_H
#define PIPE_C_H

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#else
/* DLPack 1.1 declares the struct without a typedef (C11 allows repeating
 * one, should a later dlpack.h add it). */
typedef struct DLManagedTensorVersioned DLManagedTensorVersioned;
#endif

#if defined(__GNUC__)
#define PIPE_C_EXPORT __attribute__((visibility("default")))
#else
#define PIPE_C_EXPORT
#endif

/** Bumped when a function or struct changes incompatibly. */
#define PIPE_C_API_VERSION 1

typedef enum pipe_status {
  PIPE_OK = 0,
  /** The source has an error: "file:line:col: error: ..." with a caret. */
  PIPE_ERROR_COMPILE = 1,
  /** A bad argument: a tensor's count, dtype, shape, device or layout. */
  PIPE_ERROR_ARGUMENT = 2,
  /** The run failed: bad values found while running (a blur's window, a
   * crop's anchor), no GPU, out of memory, a failed NVRTC compile. The
   * outputs are as they were, unless the message says otherwise. */
  PIPE_ERROR_RUN = 3,
  /** A failure inside Pipe: the message says where; please report it. */
  PIPE_ERROR_INTERNAL = 4,
  /** A file that cannot be read, decoded or written (an image): the
   * message names it. Nothing was written. */
  PIPE_ERROR_FILE = 5,
} pipe_status;

typedef enum pipe_backend {
  PIPE_BACKEND_GPU = 0,       /** the generated CUDA kernels */
  PIPE_BACKEND_REFERENCE = 1, /** the CPU reference executor (no GPU) */
} pipe_backend;

/** Where a parameter or result must live (`@host`, `@device`), or any. */
typedef enum pipe_memory {
  PIPE_MEMORY_ANY = 0,
  PIPE_MEMORY_HOST = 1,
  PIPE_MEMORY_DEVICE = 2,
} pipe_memory;

typedef struct pipe_pipeline pipe_pipeline;

/** A plan compiled ahead of time: `pipec --emit=aot` writes, for each
 * pipeline NAME, `const struct pipe_aot_plan *pipe_aot_NAME(void)` (C
 * linkage) into its header and source. */
struct pipe_aot_plan;

/** A parameter or result, valid as long as its pipeline. */
typedef struct pipe_tensor_info {
  const char *name;
  DLDataType dtype;          /** bool is {kDLBool, 8, 1} */
  int32_t ndim;
  const int64_t *sizes;      /** ndim sizes; -1 where the dim is symbolic */
  const char *const *dims;   /** ndim dims as written: "N", "H - 2", "3" */
  pipe_memory memory;
} pipe_tensor_info;

/** The message of this thread's last failed call ("" if none). */
PIPE_C_EXPORT const char *pipe_last_error(void);

/** "0.1.0": Pipe's version. */
PIPE_C_EXPORT const char *pipe_version(void);

/** PIPE_OK when there is a GPU to run on; else PIPE_ERROR_RUN, and
 * pipe_last_error() says why (no driver, no device). */
PIPE_C_EXPORT pipe_status pipe_gpu_available(void);

/** Compiles pipeline `pipeline_name` (or the only one; NULL) of `source`,
 * naming it `source_name` in diagnostics (NULL: "<string>"). */
PIPE_C_EXPORT pipe_status pipe_compile(const char *source,
                                       const char *source_name,
                                       const char *pipeline_name,
                                       pipe_pipeline **out);
PIPE_C_EXPORT pipe_status pipe_compile_file(const char *path,
                                            const char *pipeline_name,
                                            pipe_pipeline **out);
/** A pipeline over plan `plan` from `pipe_aot_NAME()`: it runs on the GPU
 * only (its kernels are in the plan; the CPU reference needs the source),
 * loading them on the first run. Each such pipeline has its own random
 * state, apart from the C++ entry point's. Its source must come from the
 * pipec of the Pipe whose runtime the program links. */
PIPE_C_EXPORT pipe_status pipe_load_aot(const struct pipe_aot_plan *plan,
                                        pipe_pipeline **out);
PIPE_C_EXPORT void pipe_release(pipe_pipeline *pipeline);

PIPE_C_EXPORT const char *pipe_pipeline_name(const pipe_pipeline *pipeline);
PIPE_C_EXPORT int32_t pipe_num_params(const pipe_pipeline *pipeline);
PIPE_C_EXPORT int32_t pipe_num_results(const pipe_pipeline *pipeline);
PIPE_C_EXPORT pipe_status pipe_param_info(const pipe_pipeline *pipeline,
                                          int32_t index,
                                          pipe_tensor_info *info);
PIPE_C_EXPORT pipe_status pipe_result_info(const pipe_pipeline *pipeline,
                                           int32_t index,
                                           pipe_tensor_info *info);

/** Result `result`'s shape (its ndim sizes into `shape`) for `inputs`,
 * whose dims bind the symbolic ones. */
PIPE_C_EXPORT pipe_status pipe_result_shape(const pipe_pipeline *pipeline,
                                            const DLTensor *inputs,
                                            int32_t num_inputs, int32_t result,
                                            int64_t *shape);

/** The seed of the pipeline's random ops (0 until set) and the random run
 * number its next run draws with (0 at first; each run, on either
 * backend, advances it by one). Setting both replays a run bit for bit
 * (core/PipeRandom.h). Either pointer may be NULL. */
PIPE_C_EXPORT pipe_status pipe_get_random(const pipe_pipeline *pipeline,
                                          uint64_t *seed,
                                          uint64_t *random_run);
PIPE_C_EXPORT pipe_status pipe_set_random(pipe_pipeline *pipeline,
                                          uint64_t seed, uint64_t random_run);

/** Runs on `inputs` into the caller's `outputs` (one per result, of its
 * dtype and shape). Tensors are row-major and compact (strides NULL, or
 * those of a compact layout); host memory is kDLCPU or kDLCUDAHost,
 * device memory kDLCUDA or kDLCUDAManaged of device 0. On the GPU the run
 * is queued on `stream` (a CUstream; NULL: the legacy default stream) and
 * waited for on that stream only; the reference backend takes host
 * tensors only. */
PIPE_C_EXPORT pipe_status pipe_run(pipe_pipeline *pipeline,
                                   const DLTensor *inputs, int32_t num_inputs,
                                   const DLTensor *outputs,
                                   int32_t num_outputs, pipe_backend backend,
                                   void *stream);

/** As pipe_run, into results Pipe allocates: device memory on the GPU
 * (host memory for a result pinned `@host`), host memory on the reference.
 * Each of `results` (num_results of them) is then the caller's, to hand to
 * any DLPack consumer or to free with its deleter. On the legacy default
 * stream (`stream` NULL or CU_STREAM_LEGACY) device results come from the
 * stream-ordered pool and are freed in that stream's order (work queued
 * on a non-blocking stream must be done before the last owner deletes
 * them); on another stream, with cuMemFree, which waits for the device. */
PIPE_C_EXPORT pipe_status pipe_run_alloc(pipe_pipeline *pipeline,
                                         const DLTensor *inputs,
                                         int32_t num_inputs,
                                         DLManagedTensorVersioned **results,
                                         int32_t num_results,
                                         pipe_backend backend, void *stream);

/** Another owner of `tensor`'s memory (a result of pipe_run_alloc, or of
 * these two functions; NULL for any other tensor), for a consumer that
 * takes the pre-1.0 DLManagedTensor: the memory lives until both are
 * deleted. */
PIPE_C_EXPORT DLManagedTensor *
pipe_dlpack_unversioned(const DLManagedTensorVersioned *tensor);

/** Another owner of `tensor`'s memory, as a DLManagedTensorVersioned (the
 * same tensors as pipe_dlpack_unversioned). */
PIPE_C_EXPORT DLManagedTensorVersioned *
pipe_dlpack_share(const DLManagedTensorVersioned *tensor);

/** Reads the PNG or JPEG file `path` as u8[H, W, C] (C: 1 gray, 2 gray and
 * alpha, 3 RGB, 4 RGBA; a JPEG is gray or RGB), or the images of folder
 * `path` (.png, .jpg, .jpeg, by name) as one u8[N, H, W, C] batch, into
 * host memory that `*image` owns (the caller's: delete it with its
 * deleter). A file that is not a whole image of its kind, or a folder of
 * differing images, is PIPE_ERROR_FILE, naming the file. */
PIPE_C_EXPORT pipe_status pipe_image_read(const char *path,
                                          DLManagedTensorVersioned **image);

/** Writes `image`, u8 (or bool, as 0 and 255) of shape [H, W] or [H, W, C]
 * with C from 1 to 4, compact, as a PNG file at `path`: whole, or (on an
 * error) not at all, leaving a file already there as it was. Device memory
 * is copied with cuMemcpyDtoH, after the work on the legacy default
 * stream: wait for other streams first. */
PIPE_C_EXPORT pipe_status pipe_image_write(const char *path,
                                           const DLTensor *image);

/** For Python producers: the DLPack capsule names, as static strings (a
 * capsule keeps its name's pointer), and the capsule destructor the
 * protocol asks for (it deletes the tensor of a capsule no consumer took,
 * keeping any exception set). It finds the Python C API in the calling
 * process, so the library links against no Python. */
PIPE_C_EXPORT const char *pipe_dlpack_capsule_name(int32_t versioned);
PIPE_C_EXPORT void pipe_dlpack_capsule_destructor(void *capsule);

#ifdef __cplusplus
}
#endif

#endif /* PIPE_C_H */
