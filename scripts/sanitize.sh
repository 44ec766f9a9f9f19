#!/usr/bin/env bash
# The checking build: Pipe's host code with AddressSanitizer and
# UndefinedBehaviorSanitizer, assertions on (no NDEBUG), built by clang-22
# into build-sanitize/. It runs the GoogleTest and lit suites on the
# sanitized binaries, then each libFuzzer target of test/fuzz over its
# corpus (the repository's examples, tests and .npy seeds) for a bounded
# time. Any sanitizer report, crash, hang or internal error fails it.
#
#   scripts/sanitize.sh [--fuzz-only | --no-fuzz]
#
# PIPE_FUZZ_SECONDS (default 60) bounds each fuzz target's run;
# PIPE_FUZZ_RUNS, if set, bounds it by executions instead. Findings are
# kept in build-sanitize/fuzz-findings/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PIPE_SANITIZE_BUILD_DIR:-$root/build-sanitize}
mode=${1:-all}

"$root/scripts/install-deps.sh"
if ! command -v clang++-22 >/dev/null || \
   ! ls /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "Installing clang-22 and libclang-rt-22-dev (sanitizers, libFuzzer)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang-22 libclang-rt-22-dev
fi
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
    -DPIPE_SANITIZE="address;undefined" -DPIPE_BUILD_FUZZERS=ON \
    -DPIPE_CUDA_ROOT="${PIPE_CUDA_ROOT:-/usr/local/cuda}"
fi
cmake --build "$build"

# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons the memory it has
# not handed out when its header is compiled with ASan (Pipe's code), but
# Debian's MLIR libraries, built without, hand it out unpoisoned; ASan then
# reports their own writes. Pipe's allocations are checked as usual.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ "$mode" != --fuzz-only ]; then
  echo "== unit tests (ASan + UBSan, assertions on)"
  "$build/test/unit/pipe_unit_tests"
  echo "== lit tests (ASan + UBSan, assertions on)"
  /usr/lib/llvm-22/bin/lit -sv "$build/test"
fi
[ "$mode" = --no-fuzz ] && exit 0

# Each target gets a fresh corpus directory seeded from the repository, so
# that a new example or test is a new seed without an edit here.
findings="$build/fuzz-findings"
mkdir -p "$findings"
run_fuzzer() {
  local target=$1 seeds=$2
  shift 2
  local corpus
  corpus=$(mktemp -d)
  cp $seeds "$corpus"/ 2>/dev/null || true
  local bound=(-max_total_time="${PIPE_FUZZ_SECONDS:-60}")
  [ -n "${PIPE_FUZZ_RUNS:-}" ] && bound=(-runs="$PIPE_FUZZ_RUNS")
  echo "== $target: $(ls "$corpus" | wc -l) seeds, ${bound[*]}"
  (cd "$findings" && "$build/test/fuzz/$target" "${bound[@]}" -timeout=2 \
     -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 "$@" "$corpus" \
     2>&1 | grep -v '^#[0-9]*\s*\(NEW\|REDUCE\|pulse\)' | tail -25)
  rm -rf "$corpus"
}
cd "$root"
dict="$build/fuzz-findings/pipe.dict"
{ cat test/fuzz/pipe.dict
  "$build/tools/pipec/pipec" --list-functions | awk '{printf "\"%s\"\n", $2}'
} > "$dict"
# Every program in the tree seeds it, except those that take seconds by
# design (the largest unrolled loops), which the 2-second limit would
# report as hangs: they say "not a fuzz seed".
run_fuzzer pipe-fuzz-frontend \
  "$(find examples test -name '*.pipe' -print0 |
     xargs -0 grep -L 'not a fuzz seed' | tr '\n' ' ')" \
  -dict="$dict"
# The .mlir tests hold many inputs apart by `// -----`: one seed each.
mlir_seeds=$(mktemp -d)
for f in $(find test/dialect test/passes -name '*.mlir'); do
  awk -v out="$mlir_seeds/$(basename "$f" .mlir)" \
    '/^\/\/ -----/ { n++; next } { print > (out "-" n+0 ".mlir") }' "$f"
done
run_fuzzer pipe-fuzz-mlir "$mlir_seeds/*"
rm -rf "$mlir_seeds"
run_fuzzer pipe-fuzz-npy "$root/test/fuzz/corpus/npy/*"
