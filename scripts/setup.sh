#!/usr/bin/env bash
# The first README command: install what is missing, build, and run the main
# job on the example pipeline (on the GPU when there is one, otherwise on the
# CPU reference executor, which pipec says on stderr).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"$root/scripts/run-example.sh"
