#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .device/ carried (see
# scripts/device-bundle.sh): Pipe's benchmarks, the peers' in the same run,
# pipec's start-up times, and the table. Full logs go to $OUT when set.
#   bench/run.sh [--quick]            everything
#   bench/run.sh dynamic [--quick]    reductions and the dynamic blur only
#   bench/run.sh elementwise [--quick]  the elementwise workloads only
#   bench/run.sh layout [--quick]     crop, erase, concat, pad only
#   bench/run.sh color [--quick]      color jitter and noise only
#   bench/run.sh window [--quick]     box_filter, erode, median, conv2d only
#   bench/run.sh python               pipegpu's call overhead only
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.device/build
"$root/scripts/device-unpack.sh"
log=${OUT:-/tmp}/bench.jsonl
: > "$log"
only=""
case "${1:-}" in dynamic|elementwise|layout|color|window|python) only=$1; shift ;; esac
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$log.txt"
if [ -z "$only" ] || [ "$only" = elementwise ]; then
  "$bin/bench/pipe_bench" "$@" | tee -a "$log"
  "$bin/bench/pipe_bench" --host-io-only | tee -a "$log"
  PIPE_PINNED_STAGING=1 "$bin/bench/pipe_bench" --host-io-only | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_elementwise.py" "$@" 2>&1 | grep -v Warning | tee -a "$log"
  python3 "$root/bench/startup.py" "$bin/tools/pipec/pipec" "$bin/tools/pipe-npy/pipe-npy" | tee -a "$log"
fi
if [ -z "$only" ] || [ "$only" = layout ]; then
  "$bin/bench/pipe_bench" --layout "$@" | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_layout.py" "$@" 2>&1 | grep -v Warning | tee -a "$log"
fi
if [ -z "$only" ] || [ "$only" = color ]; then
  "$bin/bench/pipe_bench" --color "$@" | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_color.py" "$@" 2>&1 | grep -v Warning | tee -a "$log"
fi
if [ -z "$only" ] || [ "$only" = window ]; then
  "$bin/bench/pipe_bench" --window "$@" | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_window.py" "$@" 2>&1 | grep -v Warning | tee -a "$log"
fi
if [ -z "$only" ] || [ "$only" = python ]; then
  # A call's time is mostly the host's, whose speed differs from one
  # process to the next (where it lands, what else runs): the C++ call and
  # pipegpu's, three processes each, alternating (report.py gives the best
  # and the spread); then once more with torch's calls for comparison.
  for round in 1 2 3; do
    "$bin/bench/pipe_bench" --call-latency | tee -a "$log"
    PIPEGPU_LIBRARY=$bin/capi/libpipe_c.so PYTHONUNBUFFERED=1 \
      python3 "$root/bench/python_overhead.py" --pipegpu-only 2>&1 | grep -v Warning | tee -a "$log"
  done
  PIPEGPU_LIBRARY=$bin/capi/libpipe_c.so PYTHONUNBUFFERED=1 \
    python3 "$root/bench/python_overhead.py" 2>&1 | grep -v Warning | tee -a "$log"
fi
if [ -z "$only" ] || [ "$only" = dynamic ]; then
  "$bin/bench/pipe_bench" --dynamic "$@" | tee -a "$log"
  PYTHONUNBUFFERED=1 python3 "$root/bench/peers_dynamic.py" "$bin/tools/pipec/pipec" "$@" 2>&1 | grep -v Warning | tee -a "$log"
fi
python3 "$root/bench/report.py" "$log" | tee "${OUT:-/tmp}/report.txt"
