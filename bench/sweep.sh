#!/usr/bin/env bash
# On the GPU machine: Pipe's large workloads under each code-generation
# tuning (see tuning() in codegen/CudaEmitter.cpp and the blocks-per-SM knob
# in runtime/Executable.cpp), to choose the defaults from measurements.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/.device/build/bench/pipe_bench
while read -r groups blocks unroll; do
  out=$(PIPE_TUNE_VECTOR_GROUPS=$groups PIPE_TUNE_BLOCKS_PER_SM=$blocks \
        PIPE_TUNE_ROW_UNROLL=$unroll "$bench" 2>&1 |
        python3 "$root/bench/sweep_format.py")
  echo "groups=$groups blocks/SM=$blocks unroll=$unroll: $out"
done <<'CONFIGS'
4 0 4
2 0 4
8 0 4
4 32 4
4 0 2
4 0 8
CONFIGS
