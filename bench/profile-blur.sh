#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried: Nsight
# Compute on the dynamic blur's two passes at 16 samples (pipe_bench
# --blur-only --quick; the 1- and 4-sample runs come first, 14 runs of each,
# two passes per run). Writes the details page and the SASS with executed
# instruction counts per line to $OUT (or /tmp), named by the optional
# label (to profile tuning knobs side by side: PIPE_TUNE_BLUR_...=x
# bench/profile-blur.sh x).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.device/build
out=${OUT:-/tmp}
name=blur${1:+-$1}
ncu=${NCU:-/usr/local/cuda/bin/ncu}
"$ncu" --clock-control none -k 'regex:dynamic_blur_b0_axis[12]' \
  --launch-skip 56 --launch-count 2 --set full --import-source no \
  -f -o "$out/$name" "$bin/bench/pipe_bench" --blur-only --quick > "$out/$name-run.log" 2>&1
"$ncu" --import "$out/$name.ncu-rep" --page details > "$out/$name-details.txt" 2>&1
"$ncu" --import "$out/$name.ncu-rep" --page source --print-source sass --csv \
  > "$out/$name-sass.csv" 2>&1
tail -3 "$out/$name-run.log"
grep -E "dynamic_blur_b0_axis|Duration|Executed Ipc A|Issue Slots Busy|Registers Per|Achieved Occ" "$out/$name-details.txt"
