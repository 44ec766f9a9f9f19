#!/usr/bin/env bash
# Configures (once) and builds Pipe into build/ with Ninja.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DPIPE_CUDA_ROOT="${PIPE_CUDA_ROOT:-/usr/local/cuda}"
fi
cmake --build "$build" "$@"
