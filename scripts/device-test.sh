#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried (see
# device-bundle.sh): runs the lit suites and the GoogleTest suites against
# the carried binaries. Logs go to $OUT when set.
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
export LD_LIBRARY_PATH=$dev/llvm-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0
"$dev/build/test/unit/pipe_unit_tests" 2>&1 | tee "$log/unit.log" | tail -15
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
python3 "$dev/lit/run-lit.py" -sv "$dev/build/test" 2>&1 | tee "$log/lit.log" | tail -15
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
