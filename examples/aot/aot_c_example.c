/*===- aot_c_example.c - A C program that runs an AOT plan ----------------===*
 *
 * The ahead-of-time way in, from C: CMake runs `pipec --emit=aot` on
 * examples/photo.pipe, and this program runs the plan through Pipe's C API
 * (capi/pipe_c.h, libpipe_c_runtime.a: the runtime, no MLIR or LLVM),
 * reading and writing the images with the API's helpers.
 *
 *   aot_c_example IN.png BRIGHTNESS CONTRAST OUT.png
 *
 * Exit 0: OUT.png written; 1: an error (the message says which); 77: no
 * GPU (after the image is read and the pipeline described).
 *
 *===----------------------------------------------------------------------===*/

#include "photo.h"

#include "capi/pipe_c.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what) {
  fprintf(stderr, "aot_c_example: %s: %s\n", what, pipe_last_error());
  return 1;
}

static const char *dtypeName(DLDataType t) {
  if (t.code == kDLBool)
    return "bool";
  if (t.code == kDLUInt)
    return t.bits == 8 ? "u8" : t.bits == 16 ? "u16" : "u32 or u64";
  if (t.code == kDLFloat)
    return t.bits == 32 ? "f32" : "f16 or f64";
  return "another dtype";
}

/* "image: u8[H, W, 3]" */
static void printTensor(const pipe_tensor_info *info) {
  printf("%s: %s", info->name, dtypeName(info->dtype));
  if (info->ndim > 0) {
    printf("[");
    for (int32_t d = 0; d < info->ndim; ++d)
      printf("%s%s", d ? ", " : "", info->dims[d]);
    printf("]");
  }
}

/* "photo(image: u8[H, W, 3], ...) -> (out: u8[H, W, 3])" */
static void describe(const pipe_pipeline *pipeline) {
  pipe_tensor_info info;
  printf("aot_c_example: %s(", pipe_pipeline_name(pipeline));
  for (int32_t i = 0; i < pipe_num_params(pipeline); ++i) {
    if (pipe_param_info(pipeline, i, &info) == PIPE_OK) {
      printf("%s", i ? ", " : "");
      printTensor(&info);
    }
  }
  printf(") -> (");
  for (int32_t r = 0; r < pipe_num_results(pipeline); ++r) {
    if (pipe_result_info(pipeline, r, &info) == PIPE_OK) {
      printf("%s", r ? ", " : "");
      printTensor(&info);
    }
  }
  printf(")\n");
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: aot_c_example IN.png BRIGHTNESS CONTRAST OUT.png\n");
    return 1;
  }
  pipe_pipeline *pipeline = NULL;
  if (pipe_load_aot(pipe_aot_photo(), &pipeline) != PIPE_OK)
    return fail("pipe_load_aot");
  describe(pipeline);

  DLManagedTensorVersioned *image = NULL;
  if (pipe_image_read(argv[1], &image) != PIPE_OK) {
    pipe_release(pipeline);
    return fail("reading the image");
  }
  /* Two f32 scalars in host memory: 0-d tensors. */
  float brightness = strtof(argv[2], NULL), contrast = strtof(argv[3], NULL);
  DLTensor inputs[3];
  inputs[0] = image->dl_tensor;
  for (int i = 1; i < 3; ++i) {
    DLTensor scalar = {0};
    scalar.data = i == 1 ? &brightness : &contrast;
    scalar.device.device_type = kDLCPU;
    scalar.dtype.code = kDLFloat;
    scalar.dtype.bits = 32;
    scalar.dtype.lanes = 1;
    inputs[i] = scalar;
  }

  int status = 0;
  DLManagedTensorVersioned *out = NULL;
  if (pipe_gpu_available() != PIPE_OK) {
    printf("aot_c_example: skipped: %s\n", pipe_last_error());
    status = 77;
  } else if (pipe_run_alloc(pipeline, inputs, 3, &out, 1, PIPE_BACKEND_GPU,
                            NULL) != PIPE_OK) {
    status = fail("running photo");
  } else if (pipe_image_write(argv[4], &out->dl_tensor) != PIPE_OK) {
    status = fail("writing the result");
  } else {
    printf("aot_c_example: wrote %s (u8[%lld, %lld, %lld]) on the GPU\n",
           argv[4], (long long)out->dl_tensor.shape[0],
           (long long)out->dl_tensor.shape[1],
           (long long)out->dl_tensor.shape[2]);
  }
  if (out)
    out->deleter(out);
  image->deleter(image);
  pipe_release(pipeline);
  return status;
}
