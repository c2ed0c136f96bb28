#!/usr/bin/env bash
# The local API's speed against llama.cpp's own tools on the same build, side by side in one run:
# one streaming chat completion against llama-bench's tg, two at once against llama-batched-bench
# (1 and 2 sequences), each with the client at normal priority and at nice 19 (the client shares
# the machine's cores, llama.cpp's tools have none), and shoehorn-cli parity for the desktop chat
# path, and llama.cpp's own llama-server with the same client (what HTTP costs llama.cpp itself).
# Appends nothing: paste the printed table into docs/benchmarks.md.
#   tools/api-bench.sh [build-dir] [tokens] [reps]
set -euo pipefail
build=$(realpath "${1:-build}")
n=${2:-128}
reps=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
cmake --build "$build" --target shoehorn-cli shoehorn-fixturegen llama-bench llama-batched-bench llama-server > /dev/null
"$here/tests/api/install.sh" "$here/tests/api" "$build/api-client" > /dev/null
model="$tmp/bench-api.gguf"
"$build/bin/shoehorn-fixturegen" bench-qwen3moe-api "$model" > /dev/null
threads=$(nproc)

echo "== llama-bench tg$n (llama.cpp's own tool, same build, -t $threads)"
"$build/bin/llama-bench" -m "$model" -p 0 -n "$n" -r "$reps" -t "$threads" -o json > "$tmp/lb.json"
lb=$(node -p "JSON.parse(require('fs').readFileSync('$tmp/lb.json')).find(r => r.n_gen > 0).avg_ts")
echo "llama-bench tg$n: $lb tok/s"

echo "== llama-batched-bench: 1 and 2 sequences decoded together (-npp 16 -ntg $n)"
"$build/bin/llama-batched-bench" -m "$model" -c 4096 -b 2048 -ub 512 -npp 16 -ntg "$n" -npl 1,2 -t "$threads" \
    2>/dev/null | grep -E '^\|' | tee "$tmp/bb.txt"
bb1=$(awk -F'|' '$4+0 == 1 {gsub(/ /, "", $9); print $9}' "$tmp/bb.txt")
bb2=$(awk -F'|' '$4+0 == 2 {gsub(/ /, "", $9); print $9}' "$tmp/bb.txt")

echo "== shoehorn-cli serve --parallel 2, the official openai client"
"$build/bin/shoehorn-cli" serve "$model" --port 0 --parallel 2 -c 4096 -t "$threads" --fit off > "$tmp/serve.log" 2>&1 &
for _ in $(seq 300); do grep -q "listening on" "$tmp/serve.log" && break; sleep 0.1; done
url=$(sed -n 's#.*listening on \(http://[^ ]*\)/v1.*#\1#p' "$tmp/serve.log")
[ -n "$url" ] || { cat "$tmp/serve.log"; exit 1; }
(cd "$build/api-client" && node bench.mjs "$url" "$n" "$reps") > "$tmp/api.json" ||
    { tail -40 "$tmp/serve.log"; exit 1; }
(cd "$build/api-client" && nice -n 19 node bench.mjs "$url" "$n" "$reps") > "$tmp/api-nice.json" ||
    { tail -40 "$tmp/serve.log"; exit 1; }
kill %1
wait %1 2>/dev/null || true

# llama.cpp's own llama-server (same build, same library, same client): what serving over HTTP
# costs llama.cpp itself on these cores, so that the ratios below separate that from Shoehorn.
echo "== llama-server (llama.cpp's own program) --parallel 2, the same client"
port=$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
"$build/bin/llama-server" -m "$model" --host 127.0.0.1 --port "$port" -np 2 -c $((4096 * 2)) -t "$threads" \
    --cache-ram 0 --no-warmup > "$tmp/llama-server.log" 2>&1 &
ref_pid=$!
for _ in $(seq 600); do grep -q "listening on http" "$tmp/llama-server.log" && break; sleep 0.1; done
grep -q "listening on http" "$tmp/llama-server.log" || { tail -20 "$tmp/llama-server.log"; exit 1; }
(cd "$build/api-client" && node bench.mjs "http://127.0.0.1:$port" "$n" "$reps") > "$tmp/ref.json" ||
    { tail -40 "$tmp/llama-server.log"; exit 1; }
(cd "$build/api-client" && nice -n 19 node bench.mjs "http://127.0.0.1:$port" "$n" "$reps") > "$tmp/ref-nice.json" ||
    { tail -40 "$tmp/llama-server.log"; exit 1; }
kill "$ref_pid" 2>/dev/null || true
node -e "
const fs = require('fs');
const f = (x) => x.toFixed(2);
const lb = $lb, bb1 = $bb1, bb2 = $bb2;
console.log('| measure | tok/s | ratio |');
console.log('|---|--:|--:|');
console.log('| llama-bench tg$n | ' + f(lb) + ' | 1.00 |');
console.log('| llama-batched-bench, 2 sequences against 1 (S_TG) | ' + f(bb2) + ' / ' + f(bb1) + ' | ' + f(bb2 / bb1) + ' x |');
for (const [file, refFile, tag] of [['$tmp/api.json', '$tmp/ref.json', 'client at normal priority'],
                                     ['$tmp/api-nice.json', '$tmp/ref-nice.json', 'client at nice 19']]) {
    const a = JSON.parse(fs.readFileSync(file)), r = JSON.parse(fs.readFileSync(refFile));
    console.log('| llama-server one stream, ' + tag + ' (first to last chunk) | ' + f(r.single_client_tps) + ' | ' + f(r.single_client_tps / lb) + ' x llama-bench |');
    console.log('| llama-server two streams, ' + tag + ', total | ' + f(r.pair_total_tps) + ' | ' + f(r.pair_total_tps / r.single_client_tps) + ' x one stream |');
    console.log('| API against llama-server, ' + tag + ': one stream / two streams | | ' + f(a.single_client_tps / r.single_client_tps) + ' x / ' + f(a.pair_total_tps / r.pair_total_tps) + ' x |');
    console.log('| API one stream, ' + tag + ' (first to last chunk) | ' + f(a.single_client_tps) + ' | ' + f(a.single_client_tps / lb) + ' x llama-bench |');
    console.log('| API one stream, ' + tag + ' (server timings) | ' + f(a.single_server_tps) + ' | ' + f(a.single_server_tps / lb) + ' x llama-bench |');
    console.log('| API two streams, ' + tag + ', total | ' + f(a.pair_total_tps) + ' | ' + f(a.pair_total_tps / a.single_client_tps) + ' x one stream (llama.cpp: ' + f(bb2 / bb1) + ' x) |');
}
"

echo "== the desktop chat path: shoehorn-cli parity"
"$build/bin/shoehorn-cli" parity "$model" -p 512 -n "$n" -r "$reps" --rounds 1 -t "$threads" 2>&1 | tail -8
