#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried: the
# dynamic blur (pipe_bench --blur-only) under each set of environment
# variables given (tuning knobs such as PIPE_TUNE_BLUR_BATCH of
# codegen/BlurEmitter.cpp, or PIPE_DISABLE_PDL=1), to choose defaults from
# measurements. Each line: the knobs, then ms and x of the FMA floor per
# case.
#   bench/sweep-blur.sh [--quick]        (--quick: 1, 4 and 16 samples)
# Knob sets come from stdin, one per line ("VAR=value ..." or "defaults").
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/.device/build/bench/pipe_bench
while read -r knobs; do
  [ -z "$knobs" ] && continue
  settings=()
  [ "$knobs" != defaults ] && read -r -a settings <<< "$knobs"
  out=$(env "${settings[@]}" "$bench" --blur-only "$@" 2>&1 | python3 -c '
import json, sys
parts = []
for line in sys.stdin:
    if not line.startswith("{"):
        print(line.strip()); continue
    r = json.loads(line)
    if r["case"].startswith("dyn_blur"):
        parts.append("%s/%d: %.4f ms %.2fx" % (r["case"], r["samples"], r["ms"],
                                              r["ms"] / r["fma_floor_ms"]))
print("  ".join(parts))')
  echo "$knobs: $out"
done
