#!/usr/bin/env bash
# Long fuzz runs of what Shoehorn reads from untrusted files in its own process (tests/fuzz):
# libFuzzer with ASan and UBSan, built with clang in a build directory of its own.
#   tools/fuzz.sh [SECONDS] [BUILD_DIR]     (default: 600 s, build-fuzz)
# Crashes are written to BUILD_DIR/fuzz-crashes; add them to tests/fuzz/corpus once fixed, with
# small inputs that reach new code (the corpus grows in BUILD_DIR/fuzz-work). The test
# command runs a short version (fuzz_gguf_short: the corpus and 20000 mutations, no libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
build=${2:-build-fuzz}
command -v clang++ >/dev/null || { echo "tools/fuzz.sh needs clang (apt-get install clang)"; exit 2; }
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DSHOEHORN_FUZZ=ON -DSHOEHORN_SANITIZE=ON -DSHOEHORN_BUILD_GUI=OFF -DSHOEHORN_NATIVE=OFF
cmake --build "$build" --target fuzz_gguf shoehorn-fixturegen
tests/fuzz/corpus.sh "$build/bin/shoehorn-fixturegen" "$build/fuzz-corpus"
mkdir -p "$build/fuzz-crashes" "$build/fuzz-work"
cp -n "$build"/fuzz-corpus/* "$build/fuzz-work/" 2>/dev/null || true
"$build/bin/fuzz_gguf" -max_total_time="$seconds" -artifact_prefix="$build/fuzz-crashes/" \
    -max_len=1048576 -print_final_stats=1 "$build/fuzz-work"
