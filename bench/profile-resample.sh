#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried: Nsight
# Compute on the resample kernels of pipe_bench --color --quick, one launch
# each of ImageNet training augmentation's fused resample
# (imagenet_train_s0_fits: random_resized_crop, flip, normalize, CHW) and of the
# antialiased 1024² -> 512² resize (resize_s0_fits). Writes each one's details
# page and its SASS with per-instruction counts and stalls to $OUT (or
# /tmp), named by the optional label (PIPE_TUNE_...=x
# bench/profile-resample.sh x, to compare knobs).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.device/build
"$root/scripts/device-unpack.sh"
out=${OUT:-/tmp}
ncu=${NCU:-/usr/local/cuda/bin/ncu}
for kernel in imagenet_train_s0 resize_s0; do
  name=$kernel${1:+-$1}
  "$ncu" --clock-control none -k "regex:^$kernel" --launch-count 1 --set full \
    --import-source no -f -o "$out/$name" "$bin/bench/pipe_bench" --color --quick \
    > "$out/$name-run.log" 2>&1
  "$ncu" --import "$out/$name.ncu-rep" --page details > "$out/$name-details.txt" 2>&1
  "$ncu" --import "$out/$name.ncu-rep" --page source --print-source sass --csv \
    > "$out/$name-sass.csv" 2>&1
  rm -f "$out/$name.ncu-rep"
  grep -E "^  $kernel|Duration|Executed Ipc A|Issue Slots Busy|Registers Per|Achieved Occ|Local Memory|Dynamic Shared|Static Shared|DRAM Throughput|Compute \(SM\)" \
    "$out/$name-details.txt"
done
