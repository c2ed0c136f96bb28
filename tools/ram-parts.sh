#!/usr/bin/env bash
# RAM in two parts, plan vs actual, on this machine: loads the Qwen3-30B-A3B shape fixture
# (a sparse 18 GB file: its pages read as zeros, fast) with -ngl 0 and a short context, answers
# one token, and compares the growth of the process's anonymous and file-backed resident memory
# (/proc/self/smaps_rollup) with the plan's anonymous part and file pages.
# "Actual" is the growth from just before the load to just after the answer (see
# tools/cli/memreport.cpp for what that holds).
# Usage: tools/ram-parts.sh [BUILD_DIR] [FIXTURE] [MODES...]   (modes: mmap no-mmap mlock)
set -euo pipefail
build=${1:-build}
fixture=${2:-/tmp/shoehorn-q30.gguf}
shift $(( $# < 2 ? $# : 2 ))
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(mmap no-mmap)

[ -f "$fixture" ] || "$build/bin/shoehorn-fixturegen" qwen3-30b-a3b "$fixture" >/dev/null

echo "| load | part | planned MiB | actual MiB | error |"
echo "|---|---|--:|--:|--:|"
for mode in "${modes[@]}"; do
    flag=()
    [ "$mode" = mmap ] || flag=("--$mode")
    log=$(mktemp)
    "$build/bin/shoehorn-cli" chat "$fixture" -p hi -n 1 -c 4096 -ngl 0 "${flag[@]}" --memory-report \
        >/dev/null 2>"$log" || echo "($mode: shoehorn-cli exited with $?; the parts it printed follow)" >&2
    grep '^memory: ' "$log" >&2
    grep '^memory: part=' "$log" | while read -r _ part planned actual err _; do
        mib() { awk -v b="${1#*=}" 'BEGIN { printf "%.0f", b / 1048576 }'; }
        echo "| $mode | ${part#part=} | $(mib "$planned") | $(mib "$actual") | ${err#error_pct=} % |"
    done
    rm -f "$log"
done
