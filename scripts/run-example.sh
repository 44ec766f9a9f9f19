#!/usr/bin/env bash
# The main job: the seeds' pipeline, examples/dynamic_blur.pipe, on random
# masks with pipec run (a mean per mask on the GPU picks each mask's blur
# window), then the transfers it makes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_BUILD_DIR:-$root/build}
work=${1:-$build/example-run}
mkdir -p "$work"
"$build/tools/pipe-npy/pipe-npy" random "$work/masks.npy" u8 4,256,333 --seed 1 --range 0,2
"$build/tools/pipec/pipec" run "$root/examples/dynamic_blur.pipe" \
  --input masks="$work/masks.npy" --output "$work/out"
"$build/tools/pipe-npy/pipe-npy" show "$work/out/blurred.npy" | cut -c1-100
"$build/tools/pipec/pipec" "$root/examples/dynamic_blur.pipe" \
  --report=transfers --dims N=4,H=256,W=333
