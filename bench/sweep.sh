#!/usr/bin/env bash
# On the GPU machine: Pipe's large workloads under each code-generation
# tuning (see tuning() in codegen/CudaEmitter.cpp and the blocks-per-SM knob
# in runtime/Executable.cpp), to choose the defaults from measurements.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/.device/build/bench/pipe_bench
for groups in 2 4 8; do
  for blocks in 0 16 32; do
    for unroll in 2 4 8; do
      [ "$groups" = 4 ] || [ "$unroll" = 4 ] || continue
      out=$(PIPE_TUNE_VECTOR_GROUPS=$groups PIPE_TUNE_BLOCKS_PER_SM=$blocks \
            PIPE_TUNE_ROW_UNROLL=$unroll "$bench" --quick 2>&1 |
            grep -E '"(ew_chain|normalize)"' | python3 -c '
import json, sys
print("  ".join(f"{r[\"case\"]} {r[\"ms\"]:.4f} ms {r.get(\"GBps\", 0):.0f} GB/s" for r in map(json.loads, sys.stdin)))')
      echo "groups=$groups blocks/SM=${blocks/#0/default} unroll=$unroll: $out"
    done
  done
done
