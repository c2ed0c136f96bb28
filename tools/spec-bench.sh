#!/usr/bin/env bash
# Speculative decoding, serve beside llama-server of the same build (docs/benchmarks.md):
# the same model, flags and requests, each server started once per setting, N requests each.
#   tools/spec-bench.sh [BUILD] [MODEL.gguf] [N] [-- extra speculation flags]
#   SYNTH="1.5 2 3 4" tools/spec-bench.sh build build/bench-qwen35moe-mtp.gguf 3 -- --spec-type draft-mtp
# Default model: bench-qwen3moe-api (generated, ~850 MB); default speculation: n-gram with
# llama.cpp's synthetic acceptance (--spec-synth-len 3: drafts accepted at random, output not
# valid), so the run does not depend on what a random-weight model repeats.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
MODEL=${2:-}
N=${3:-3}
shift $(( $# < 3 ? $# : 3 )) || true
[ "${1:-}" = "--" ] && shift
SPEC=("$@")
[ ${#SPEC[@]} -gt 0 ] || SPEC=(--spec-type ngram-simple --spec-ngram-simple-size-n 2 --spec-synth-len 3)
if [ -z "$MODEL" ]; then
    MODEL="$BUILD/bench-qwen3moe-api.gguf"
    [ -s "$MODEL" ] || "$BUILD/bin/shoehorn-fixturegen" bench-qwen3moe-api "$MODEL" >/dev/null
fi
# PROMPT: the request's prompt (default: a short story request).
BODY=$(python3 -c 'import json, os; print(json.dumps({"prompt": os.environ.get("PROMPT", "Write a story about a cat."),
    "n_predict": 128, "temperature": 0, "ignore_eos": True}))')
PORT=18431
LOG=$(mktemp)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -f "$LOG"' EXIT

rates() { # SERVER... : prints N generation rates and the drafts, one request per line
    "$@" -m "$MODEL" --port $PORT -c 2048 -np 1 >"$LOG" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do curl -sf "127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
    for _ in $(seq "$N"); do
        curl -s "127.0.0.1:$PORT/completion" -d "$BODY" |
            python3 -c 'import json,sys; t=json.load(sys.stdin)["timings"]; print(round(t["predicted_per_second"],1), t.get("draft_n",0), t.get("draft_n_accepted",0))'
    done
    kill $pid; wait $pid 2>/dev/null || true
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# SYNTH="1.5 2 3 4": one speculative run per synthetic mean acceptance length (--spec-synth-len),
# the SPEC flags before it, beside one run without speculation per server.
read -r -a LENS <<< "${SYNTH:-}"
modes=(plain spec)
[ ${#LENS[@]} -gt 0 ] && modes=(plain "${LENS[@]}")
declare -A M
for who in llama-server serve; do
    server=("$BUILD/bin/llama-server")
    [ $who = serve ] && server=("$BUILD/bin/shoehorn-cli" serve)
    for mode in "${modes[@]}"; do
        extra=()
        [ "$mode" = spec ] && extra=("${SPEC[@]}")
        [ "$mode" != spec ] && [ "$mode" != plain ] && extra=("${SPEC[@]}" --spec-synth-len "$mode")
        out=$(rates "${server[@]}" "${extra[@]}")
        echo "$who $mode: $(echo "$out" | awk '{printf "%s tok/s (%s/%s)  ", $1, $2, $3}')"
        M[$who-$mode]=$(echo "$out" | awk '{print $1}' | median)
    done
done
for mode in "${modes[@]:1}"; do
python3 - "$mode" "${M[llama-server-plain]}" "${M[llama-server-$mode]}" "${M[serve-plain]}" "${M[serve-$mode]}" <<'PY'
import sys
mode = sys.argv[1]
lp, ls, sp, ss = map(float, sys.argv[2:])
print(f"{mode}: llama-server {lp} / {ls} with speculation ({ls/lp:.2f} x), serve {sp} / {ss} ({ss/sp:.2f} x); "
      f"serve with speculation against llama-server with speculation: {ss/ls:.2f} x")
PY
done
