#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried (see
# device-bundle.sh): runs the lit suites and the GoogleTest suites against
# the carried binaries. Logs go to $OUT when set.
#   scripts/device-test.sh [unit|lit|python]   (all three by default)
# Together they take about 450 s on an H100 (lit's random-gpu.test alone
# about 280 s): near the device tool's 600 s a call, so run them apart there.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.device
log=${OUT:-/tmp}
mkdir -p "$dev/build/test"
cat > "$dev/build/test/lit.site.cfg.py" <<CFG
config.pipe_source_dir = "$root"
config.pipe_binary_dir = "$dev/build"
config.llvm_tools_dir = "$dev/llvm-bin"
lit_config.load_config(config, "$root/test/lit.cfg.py")
CFG
# Libraries carried compressed (device-bundle.sh), unpacked once.
"$root/scripts/device-unpack.sh"
export LD_LIBRARY_PATH=$dev/llvm-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0
what=${1:-all}
if [ "$what" = all ] || [ "$what" = unit ]; then
  "$dev/build/test/unit/pipe_unit_tests" 2>&1 | tee "$log/unit.log" | tail -15
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = all ] || [ "$what" = lit ]; then
  python3 "$dev/lit/run-lit.py" -sv "$dev/build/test" 2>&1 | tee "$log/lit.log" | tail -15
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" = all ] || [ "$what" = python ]; then
  # The Python module against torch, CuPy and JAX (lit runs it too).
  : > "$log/python.log"
  for tests in "$root"/python/tests/test_*.py; do
    PIPEGPU_LIBRARY=$dev/build/capi/libpipe_c.so python3 "$tests" \
      2>&1 | tee -a "$log/python.log" | grep -v '^PASS'
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
exit $status
