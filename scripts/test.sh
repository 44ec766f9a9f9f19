#!/usr/bin/env bash
# The second README command (and CI's): build everything and run every test,
# the GoogleTest suites and the lit suites, through CTest. GPU tests report
# themselves skipped, with the reason, on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -V
