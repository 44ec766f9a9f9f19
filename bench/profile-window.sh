#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried: Nsight
# Compute on the window benchmark's five kernels (box5, erode3, median3,
# median5, sobel; pipe_bench --window's cases) over u8[16, 512, 512, 3],
# one `pipec run` of a pipeline computing all five. Prints each kernel's
# time, issue and memory figures and its stall reasons; the report goes to
# $OUT (or /tmp), named by the optional label.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.device/build
out=${OUT:-/tmp}
name=window${1:+-$1}
ncu=${NCU:-/usr/local/cuda/bin/ncu}
work=$(mktemp -d)
cat > "$work/window.pipe" <<'PIPE'
pipeline window(images: u8[N, H, W, 3]) -> (box5: u8[N, H, W, 3],
    erode3: u8[N, H, W, 3], median3: u8[N, H, W, 3], median5: u8[N, H, W, 3],
    sobel: f32[N, H, W, 3]) {
  box5 = box_filter(images, window = 5)
  erode3 = erode(images, window = 3)
  median3 = median(images, window = 3)
  median5 = median(images, window = 5)
  sobel = conv2d(images, kernel = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype = f32)
}
PIPE
python3 -c "import numpy as np; np.save('$work/images.npy', np.random.default_rng(1).integers(0, 256, (16, 512, 512, 3), dtype=np.uint8))"
"$ncu" --clock-control none -k 'regex:window_w[0-9]$' \
  --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis \
  --section LaunchStats --section ComputeWorkloadAnalysis \
  -f -o "$out/$name" "$bin/tools/pipec/pipec" run "$work/window.pipe" \
  --backend=gpu --input images="$work/images.npy" --output "$work/out" \
  > "$out/$name-run.log" 2>&1
"$ncu" --import "$out/$name.ncu-rep" --page details > "$out/$name-details.txt" 2>&1
tail -3 "$out/$name-run.log"
grep -E "^  window_w|Duration|Executed Ipc A|Issue Slots Busy|Registers Per|Achieved Occ|Memory Throughput|L1/TEX Hit|Stall|Grid Size|Waves Per SM|No Eligible" "$out/$name-details.txt"
rm -rf "$work"
