#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .device/ carried (see
# scripts/device-bundle.sh): Pipe's benchmarks, the peers' in the same run,
# pipec's start-up times, and the table. Full logs go to $OUT when set.
#   bench/run.sh [--quick]            everything
#   bench/run.sh dynamic [--quick]    reductions and the dynamic blur only
#   bench/run.sh elementwise [--quick]  the elementwise workloads only
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.device/build
log=${OUT:-/tmp}/bench.jsonl
: > "$log"
only=""
if [ "${1:-}" = dynamic ] || [ "${1:-}" = elementwise ]; then only=$1; shift; fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$log.txt"
if [ "$only" != dynamic ]; then
  "$bin/bench/pipe_bench" "$@" | tee -a "$log"
  "$bin/bench/pipe_bench" --host-io-only | tee -a "$log"
  PIPE_PINNED_STAGING=1 "$bin/bench/pipe_bench" --host-io-only | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_elementwise.py" "$@" 2>&1 | grep -v Warning | tee -a "$log"
  python3 "$root/bench/startup.py" "$bin/tools/pipec/pipec" "$bin/tools/pipe-npy/pipe-npy" | tee -a "$log"
fi
if [ "$only" != elementwise ]; then
  "$bin/bench/pipe_bench" --dynamic "$@" | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_dynamic.py" "$bin/tools/pipec/pipec" "$@" 2>&1 | grep -v Warning | tee -a "$log"
fi
python3 "$root/bench/report.py" "$log" | tee "${OUT:-/tmp}/report.txt"
