#!/usr/bin/env bash
# The main job: the seeds' pipeline, examples/dynamic_blur.pipe, on random
# masks with pipec run (a mean per mask on the GPU picks each mask's blur
# window), then the transfers it makes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_BUILD_DIR:-$root/build}
work=${1:-$build/example-run}
mkdir -p "$work"
# Binary masks (0 or 255, about a third set), written as masks.npy and as
# PNGs (masks-0.png ...) for a person to look at.
"$build/tools/pipe-npy/pipe-npy" random "$work/noise.npy" u8 4,256,333 --seed 1 --range 0,2
echo 'pipeline make(noise: u8[N, H, W]) -> (masks: u8[N, H, W]) {
  masks = u8(select(noise == 2, 255, 0))
}' | "$build/tools/pipec/pipec" run - --input noise="$work/noise.npy" \
  --output "$work" 2>/dev/null
"$build/tools/pipec/pipec" run "$root/examples/dynamic_blur.pipe" \
  --input masks="$work/masks.npy" --output "$work/out"
echo "Open $work/masks-0.png and $work/out/blurred-0.png (and -1 to -3):"
echo "each mask, and the mask blurred with the window its own density chose."
"$build/tools/pipec/pipec" "$root/examples/dynamic_blur.pipe" \
  --report=transfers --dims N=4,H=256,W=333
