#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds examples/aot
# there as a user's own project would: find_package(Pipe CONFIG), pipec from
# the prefix, the generated AOT source against the installed headers and
# libpipe_runtime.a alone; examples/jit against the installed compiler
# (and runs it: without a GPU it says so and uses the CPU reference); then
# the AOT source through pkg-config. Run by
# CTest (test/CMakeLists.txt), so that the installed package stays usable.
#   scripts/check-outside-build.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap '[ -n "${PIPE_KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# Nothing from the source or build tree may be reachable: copy the example.
cp -r "$root/examples/aot" "$work/aot"
cp "$root/examples/scale.pipe" "$root/examples/photo.pipe" "$work/"
cmake -S "$work/aot" -B "$work/out" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/out" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
echo "built with find_package(Pipe): $(cd "$work/out" && ls aot_example aot_c_example)"
# The runtime alone: no MLIR or LLVM library in the programs.
for program in aot_example aot_c_example; do
  if ldd "$work/out/$program" | grep -Ei 'llvm|mlir'; then
    echo "$program links LLVM or MLIR"; exit 1
  fi
done
# The C program loads its plan through the C API and describes the
# pipeline before it reads its (here missing) image: that much needs
# neither a GPU nor the image. test/e2e/aot-c.test runs it whole.
rc=0
"$work/out/aot_c_example" /nonexistent.png 1 1 "$work/x.png" > "$work/c-run.log" 2>&1 || rc=$?
grep -q "photo(image: u8\[H, W, 3\]" "$work/c-run.log" || { cat "$work/c-run.log"; exit 1; }
# The JIT compiler through find_package(Pipe COMPONENTS compiler), with
# MLIR and LLVM linked statically (no libLLVM or libMLIR at run time).
cp -r "$root/examples/jit" "$work/jit"
cmake -S "$work/jit" -B "$work/jit-out" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/jit-configure.log" ||
  { cat "$work/jit-configure.log"; exit 1; }
cmake --build "$work/jit-out" > "$work/jit-build.log" ||
  { cat "$work/jit-build.log"; exit 1; }
if ldd "$work/jit-out/jit_example" | grep -Ei 'libllvm|libmlir'; then
  echo "jit_example needs a shared LLVM or MLIR"; exit 1
fi
# It exits 77 without a GPU, after compiling its pipeline and running it on
# the CPU reference.
rc=0
"$work/jit-out/jit_example" > "$work/jit-run.log" 2>&1 || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then cat "$work/jit-run.log"; exit 1; fi
echo "built and ran the JIT example with find_package(Pipe COMPONENTS compiler) (exit $rc)"
# The installed Python module finds the installed libpipe_c.so, and runs
# on the CPU reference.
py=/usr/bin/python3  # Debian's, with install-deps.sh's NumPy
[ -x "$py" ] || py=python3
if "$py" -c "import numpy" 2> /dev/null; then
  (cd "$work" && env -u PIPEGPU_LIBRARY PYTHONPATH="$work/prefix/lib/python" "$py" -c "
import numpy as np, pipegpu
assert pipegpu.__file__.startswith('$work/prefix/'), pipegpu.__file__
p = pipegpu.compile_file('scale.pipe')
x = np.arange(6, dtype=np.uint8).reshape(1, 2, 3)
unit, out = p(x, np.float32(2), backend='reference')
assert (out.numpy() == (x * 2)).all()
print('imported the installed pipegpu', pipegpu.version())")
else
  echo "NumPy missing: the installed Python module is not checked"
fi
# pkg-config, with the same generated source.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
if command -v pkg-config > /dev/null; then
  g++ -std=c++17 -o "$work/aot_pc" "$work/aot/aot_example.cpp" \
    "$work/out/generated/scale.cpp" -I"$work/out/generated" \
    $(pkg-config --cflags --libs --static pipe-runtime)
  echo "built with pkg-config: $(basename "$work/aot_pc")"
else
  echo "pkg-config not installed: that way is not checked"
fi
