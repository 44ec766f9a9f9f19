# The CUDA toolkit is used for its headers only: the runtime opens the driver
# (libcuda.so.1) and NVRTC (libnvrtc.so) with dlopen, so that every binary
# starts on a machine without a GPU or a toolkit and says what is missing
# instead of failing to load.
if(NOT EXISTS "${PIPE_CUDA_ROOT}/include/cuda.h" OR
   NOT EXISTS "${PIPE_CUDA_ROOT}/include/nvrtc.h")
  message(FATAL_ERROR "cuda.h and nvrtc.h not found under ${PIPE_CUDA_ROOT}/include; "
                      "set -DPIPE_CUDA_ROOT=<toolkit>")
endif()
add_library(pipe_cuda_headers INTERFACE)
# (An installed Pipe::runtime names the same toolkit's headers.)
target_include_directories(pipe_cuda_headers SYSTEM INTERFACE "${PIPE_CUDA_ROOT}/include")
