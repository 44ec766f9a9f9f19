#!/usr/bin/env bash
# On the GPU machine, with .device/ carried (see device-bundle.sh): runs the
# GPU unit tests under compute-sanitizer's memcheck, racecheck, synccheck
# and initcheck. Usage: scripts/device-sanitize.sh [TOOL...] [-- GTEST_FILTER]
# (all four tools and every GPU test by default). The deliberate
# out-of-memory test is left out by name: it makes the allocation fail on
# purpose, which memcheck reports. Logs go to $OUT when set.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.device
log=${OUT:-/tmp}
tools=()
filter='Gpu*:GpuLayout*:Concurrency*'
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then filter=$2; shift 2; continue; fi
  tools+=("$1"); shift
done
[ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck synccheck initcheck)
filter="$filter:-*OutOfMemory*"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# One process for all runs' kernels: the disk cache keeps NVRTC out of it.
export PIPE_KERNEL_CACHE_DIR=${PIPE_KERNEL_CACHE_DIR:-${TMPDIR:-/tmp}/pipe-sanitize-cache}
status=0
for tool in "${tools[@]}"; do
  echo "== compute-sanitizer --tool $tool ($filter)"
  "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
    "$dev/build/test/unit/pipe_unit_tests" --gtest_filter="$filter" \
    > "$log/sanitize-$tool.log" 2>&1
  rc=$?
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$log/sanitize-$tool.log" | tail -4
  [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
done
exit $status
