#!/usr/bin/env bash
# The desktop chat and one API stream at the same time, on one loaded model, against each alone
# and against llama.cpp's own tools on the same build, side by side in one run: llama-bench tg
# (one sequence, no client), llama-batched-bench (1 and 2 sequences in one batch) and llama.cpp's
# own llama-server with two streams from the same client. The client runs at normal priority on
# the same cores. Appends nothing: paste the printed table into docs/benchmarks.md.
#   tools/concurrency-bench.sh [build-dir] [tokens] [reps] [fixture]
# MODEL=FILE.gguf: that file instead of generating the fixture (bench-qwen3moe-api takes minutes).
# SPEC_TYPE=T: speculative decoding (--spec-type T) in both of ours and in llama-server, e.g.
#   SPEC_TYPE=draft-mtp MODEL=build/bench-qwen35moe-mtp.gguf tools/concurrency-bench.sh build 128 3
# SMOKE=1: the test command's bounded run (our side only; llama.cpp's tools are not built).
set -euo pipefail
build=$(realpath "${1:-build}")
n=${2:-128}
reps=${3:-3}
fixture=${4:-bench-qwen3moe-api}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
threads=$(nproc)
targets=(shoehorn-concurrency-bench shoehorn-concurrency-window shoehorn-fixturegen)
[ "${SMOKE:-0}" = 1 ] || targets+=(llama-bench llama-batched-bench llama-server)
cmake --build "$build" --target "${targets[@]}" > /dev/null
"$here/tests/api/install.sh" "$here/tests/api" "$build/api-client" > /dev/null
model=$(realpath -m "${MODEL:-$tmp/model.gguf}") # the client runs in another directory
[ -n "${MODEL:-}" ] || "$build/bin/shoehorn-fixturegen" "$fixture" "$model" > /dev/null

lb=0 bb1=0 bb2=0 reference=
if [ "${SMOKE:-0}" != 1 ]; then
    echo "== llama-bench tg$n, llama-batched-bench 1 and 2 sequences"
    "$build/bin/llama-bench" -m "$model" -p 0 -n "$n" -r "$reps" -t "$threads" -o json > "$tmp/lb.json"
    lb=$(node -p "JSON.parse(require('fs').readFileSync('$tmp/lb.json')).find(r => r.n_gen > 0).avg_ts")
    "$build/bin/llama-batched-bench" -m "$model" -c 4096 -b 2048 -ub 512 -npp 16 -ntg "$n" -npl 1,2 -t "$threads" \
        2>/dev/null | grep -E '^\|' > "$tmp/bb.txt"
    bb1=$(awk -F'|' '$4+0 == 1 {gsub(/ /, "", $9); print $9}' "$tmp/bb.txt")
    bb2=$(awk -F'|' '$4+0 == 2 {gsub(/ /, "", $9); print $9}' "$tmp/bb.txt")
    # llama.cpp's own server waits idle beside ours; the client takes turns between the two.
    echo "== llama-server (llama.cpp's own program) --parallel 2, the same client, interleaved with ours"
    port=$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
    "$build/bin/llama-server" -m "$model" --host 127.0.0.1 --port "$port" -np 2 -c 8192 -t "$threads" \
        --cache-ram 0 --no-warmup ${SPEC_TYPE:+--spec-type "$SPEC_TYPE"} > "$tmp/llama-server.log" 2>&1 &
    for _ in $(seq 600); do grep -q "listening on http" "$tmp/llama-server.log" && break; sleep 0.1; done
    grep -q "listening on http" "$tmp/llama-server.log" || { tail -20 "$tmp/llama-server.log"; exit 1; }
    reference="http://127.0.0.1:$port"
fi
echo "== Shoehorn: the desktop chat and the API on one server loop ($(basename "$model" .gguf), -t $threads, $n tokens, $reps runs${SPEC_TYPE:+, --spec-type $SPEC_TYPE})"
(cd "$build/api-client" && node concurrency.mjs "$build/bin/shoehorn-concurrency-bench" "$model" "$n" "$reps" "$threads" $reference) \
    > "$tmp/ours.json"
# The same through the real window (offscreen): the chat typed into the message box and sent,
# its text arriving on the GUI thread, the offload panel and the status bar live.
echo "== Shoehorn's window: the same, the chat typed in MainWindow (offscreen)"
(cd "$build/api-client" && node concurrency.mjs "$build/bin/shoehorn-concurrency-window" "$model" "$n" "$reps" "$threads" $reference) \
    > "$tmp/window.json"
[ -z "$reference" ] || kill %1
for side in ours window; do
[ "$side" = ours ] && echo "headless (shoehorn-concurrency-bench):" || echo "through the window (shoehorn-concurrency-window):"
node -e "
const fs = require('fs');
const f = (x) => x.toFixed(2);
const o = JSON.parse(fs.readFileSync('$tmp/$side.json'));
const r = { single_client_tps: o.ref_single_tps, pair_total_tps: o.ref_pair_tps };
const lb = $lb, bb1 = $bb1, bb2 = $bb2;
const one = Math.max(o.api_alone_tps, o.chat_alone_tps);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log('| measure | tok/s | ratio |');
console.log('|---|--:|--:|');
console.log('| API stream alone | ' + f(o.api_alone_tps) + ' | |');
console.log('| desktop chat alone | ' + f(o.chat_alone_tps) + ' | |');
console.log('| together, total | ' + f(o.together_total_tps) + ' | ' + f(o.together_total_tps / one) + ' x one stream alone |');
console.log('| together: API stream | ' + f(o.together_api_tps) + ' | ' + f(o.together_api_tps / o.api_alone_tps) + ' x alone |');
console.log('| together: desktop chat | ' + f(o.together_chat_tps) + ' | ' + f(o.together_chat_tps / o.chat_alone_tps) + ' x alone |');
if (lb > 0) {
    console.log('| llama-bench tg$n | ' + f(lb) + ' | desktop chat alone: ' + f(o.chat_alone_tps / lb) + ' x |');
    console.log('| llama-batched-bench, 2 sequences against 1 (S_TG) | ' + f(bb2) + ' / ' + f(bb1) + ' | ' + f(bb2 / bb1) + ' x |');
    console.log('| llama-server, one stream | ' + f(r.single_client_tps) + ' | API stream alone: ' + f(o.api_alone_tps / r.single_client_tps) + ' x |');
    const rounds = o.runs.api.map((x, i) => x / o.runs.ref_single[i]);
    console.log('| each round: API stream alone / llama-server one stream | | ' + rounds.map(f).join(', ') + ' (median ' + f(median(rounds)) + ') |');
    console.log('| llama-server, two streams, total | ' + f(r.pair_total_tps) + ' | ' + f(r.pair_total_tps / r.single_client_tps) + ' x its one stream; Shoehorn together: ' + f(o.together_total_tps / r.pair_total_tps) + ' x |');
}
"
done
