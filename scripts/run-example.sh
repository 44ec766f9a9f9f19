#!/usr/bin/env bash
# The main job: examples/scale.pipe on random u8 images, with pipec run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_BUILD_DIR:-$root/build}
work=${1:-$build/example-run}
mkdir -p "$work"
"$build/tools/pipe-npy/pipe-npy" random "$work/images.npy" u8 8,480,641 --seed 1
"$build/tools/pipe-npy/pipe-npy" random "$work/gain.npy" f32 "" --range 0.8,1.2 --seed 2
"$build/tools/pipec/pipec" run "$root/examples/scale.pipe" \
  --input images="$work/images.npy" --input gain="$work/gain.npy" \
  --output "$work/out"
"$build/tools/pipe-npy/pipe-npy" show "$work/out/out.npy" | cut -c1-100
