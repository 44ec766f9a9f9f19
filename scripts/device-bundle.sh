#!/usr/bin/env bash
# Gathers what the GPU machine needs to run the test suites and the
# benchmarks without building anything there: Pipe's binaries (static, see
# README), lit and the LLVM test tools (FileCheck, not, split-file; these are
# statically linked too). The result, .device/, is git-ignored; carry it with
# the device tool and run scripts/device-test.sh there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_BUILD_DIR:-$root/build}
out=$root/.device
rm -rf "$out"
for bin in tools/pipec/pipec tools/pipe-opt/pipe-opt tools/pipe-npy/pipe-npy \
           examples/jit/jit_example examples/aot/aot_example \
           examples/aot/aot_c_example \
           test/unit/pipe_unit_tests bench/pipe_bench capi/libpipe_c.so; do
  mkdir -p "$out/build/$(dirname "$bin")"
  cp "$build/$bin" "$out/build/$bin"
  strip "$out/build/$bin" 2>/dev/null || true
done
# libpipe_c.so loads libpng and TurboJPEG shared (their Debian archives are
# not position-independent); the GPU machine may lack them, so they travel
# beside it (its RUNPATH is $ORIGIN).
ldd "$build/capi/libpipe_c.so" | awk '$3 ~ /libpng16|libturbojpeg/ {print $3}' |
  xargs -r -I{} cp -L {} "$out/build/capi/"
mkdir -p "$out/llvm-bin" "$out/llvm-lib"
for tool in FileCheck not split-file; do
  cp "/usr/lib/llvm-22/bin/$tool" "$out/llvm-bin/"
  # libz3.so.4 is the one library these tools load that Ubuntu 24.04 lacks;
  # the others (zlib, zstd) are there, and newer, so they are not carried.
  ldd "/usr/lib/llvm-22/bin/$tool" | awk '$3 ~ /libz3/ {print $3}' |
    xargs -r -I{} cp -L {} "$out/llvm-lib/"
done
# The carried files may take 64 MiB in all, the sources included: libz3
# (23 MB) and the largest binaries travel xz-compressed, and
# scripts/device-unpack.sh (run by device-test.sh and bench/run.sh) unpacks
# them there.
find "$out/llvm-lib" "$out/build" -type f -size +4M | while read -r file; do
  python3 -c 'import lzma, sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[1] + ".xz", "wb").write(lzma.compress(d, preset=6))' "$file"
  rm "$file"
done
cp -r /usr/lib/llvm-22/utils/lit "$out/lit"
cat > "$out/lit/run-lit.py" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit.main import main
main()
PY
du -sh "$out"
