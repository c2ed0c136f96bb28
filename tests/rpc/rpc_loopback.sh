#!/bin/bash
# llama.cpp's RPC devices on loopback: `shoehorn-cli rpc-worker` lends this machine's RAM as a
# real non-host ggml device, and --rpc makes it a device of plan and chat (layers in its own
# buffers, computed there). Also: a worker that is not there, a port that never answers, a port
# in use, the loud non-loopback warning, SIGTERM, and a worker killed or frozen mid-answer. rpc_loopback.sh SHOEHORN_CLI FIXTUREGEN
set -euo pipefail
cli=$1 gen=$2
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$gen" tiny-qwen3moe "$work/moe.gguf" > /dev/null

# A worker on a free port (the worker itself refuses one in use, with exit 2).
start_worker() { # log-name extra-flags... -> sets $port, $worker
    local name=$1
    shift
    for _ in $(seq 20); do
        port=$((20000 + RANDOM % 30000))
        "$cli" rpc-worker --port "$port" "$@" > "$work/$name.log" 2>&1 &
        worker=$!
        pids+=("$worker")
        for _ in $(seq 50); do
            grep -q "serving on" "$work/$name.log" && kill -0 "$worker" 2>/dev/null && return 0
            kill -0 "$worker" 2>/dev/null || break
            sleep 0.1
        done
        grep -q "in use" "$work/$name.log" || { cat "$work/$name.log"; fail "the worker did not start"; }
    done
    fail "no free port for the worker"
}

echo "== 1. the worker says what it serves and where"
start_worker worker
cat "$work/worker.log"
grep -q "rpc-worker: serving on 127.0.0.1:$port (use --rpc 127.0.0.1:$port on the other machine)" "$work/worker.log" \
    || fail "no address line"
grep -Eq "^  CPU: .*free of" "$work/worker.log" || fail "the CPU device (a CPU build lends its RAM) is not listed"
! grep -q WARNING "$work/worker.log" || fail "a loopback worker warned"

echo "== 2. plan --rpc: the remote device is a device of the plan, with its own memory"
"$cli" plan "$work/moe.gguf" --rpc "127.0.0.1:$port" -ngl 99 -c 512 > "$work/plan.out" 2> "$work/plan.err"
cat "$work/plan.err" "$work/plan.out"
grep -Eq "^remote: 127\.0\.0\.1:$port \([0-9.]+ ms there and back\): RPC0 .* free of " "$work/plan.err" \
    || fail "the attached machine is not named"
grep -Eq "^RPC0 +127\.0\.0\.1:$port +weights +[0-9.]+ [KM]iB" "$work/plan.out" || fail "RPC0 is not a device of the plan"
# A worker lending its RAM offers what the kernel says is available, not all of it (ggml's CPU
# device calls all of RAM free): the worker's own line and what the client hears.
for said in "$(grep -Eo "^  CPU: .*free of .*" "$work/worker.log")" "$(grep -Eo "RPC0 .* free of .*" "$work/plan.err")"; do
    free=$(echo "$said" | sed -E 's/.* ([0-9.]+ [KMG]iB) free of ([0-9.]+ [KMG]iB).*/\1/')
    total=$(echo "$said" | sed -E 's/.* ([0-9.]+ [KMG]iB) free of ([0-9.]+ [KMG]iB).*/\2/')
    [ "$free" != "$total" ] || fail "all of RAM offered as free: $said"
done

echo "== 3. chat at temperature 0: the same tokens with every layer on the RPC device as on the CPU alone"
chat() { "$cli" chat "$work/moe.gguf" -p "Tell me about the sea" -n 24 --temp 0 -c 512 --no-check "$@" 2> "$work/chat.err"; }
chat -ngl 0 > "$work/cpu.txt"
before=$(grep -c "Accepted client connection" "$work/worker.log" || true)
chat -ngl 99 --rpc "127.0.0.1:$port" > "$work/rpc.txt"
cat "$work/chat.err"
after=$(grep -c "Accepted client connection" "$work/worker.log" || true)
[ "$after" -gt "$before" ] || fail "the chat did not use the worker"
[ -s "$work/cpu.txt" ] || fail "no answer on the CPU"
diff "$work/cpu.txt" "$work/rpc.txt" || fail "the answers differ"
echo "same answer: $(head -c 80 "$work/rpc.txt" | tr '\n' ' ')"

echo "== 4. a worker that is not there: named, and the plan goes on without it"
"$cli" plan "$work/moe.gguf" --rpc 127.0.0.1:1 -c 512 > "$work/gone.out" 2> "$work/gone.err" || fail "plan failed without the worker"
cat "$work/gone.err"
grep -q "warning: --rpc 127.0.0.1:1: cannot connect (is shoehorn-cli rpc-worker running there, on that port?); planning without it" \
    "$work/gone.err" || fail "the missing worker is not named"
! grep -q "^RPC" "$work/gone.out" || fail "a missing worker is in the plan"

echo "== 5. a port that accepts and never answers: a time limit, not a hang"
node -e "require('net').createServer(() => {}).listen(0, '127.0.0.1', function () { console.log(this.address().port); })" \
    > "$work/silent.port" &
pids+=($!)
disown $! # killed at the end without a job-control notice
for _ in $(seq 50); do [ -s "$work/silent.port" ] && break; sleep 0.1; done
silent=$(cat "$work/silent.port")
start=$(date +%s)
"$cli" plan "$work/moe.gguf" --rpc "127.0.0.1:$silent" -c 512 > /dev/null 2> "$work/silent.err"
took=$(( $(date +%s) - start ))
cat "$work/silent.err"
grep -q "warning: --rpc 127.0.0.1:$silent: no answer within 5 s" "$work/silent.err" || fail "the silent port is not named"
[ "$took" -le 10 ] || fail "the silent port took $took s"

echo "== 6. a bad --rpc value, a port in use"
if "$cli" plan "$work/moe.gguf" --rpc localhost > /dev/null 2> "$work/bad.err"; then fail "--rpc localhost was taken"; fi
grep -q "takes host:port" "$work/bad.err" || fail "no message for a bad --rpc"
set +e
"$cli" rpc-worker --port "$port" > "$work/inuse.log" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "port $port on 127.0.0.1 is in use" "$work/inuse.log" || { cat "$work/inuse.log"; fail "port in use: exit $rc"; }
# ggml-rpc binds IPv4 only: ::1 said "serving" and then failed; localhost is 127.0.0.1.
set +e
"$cli" rpc-worker --host ::1 --port "$port" > "$work/ipv6.log" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "listens on an IPv4 address only" "$work/ipv6.log" || { cat "$work/ipv6.log"; fail "--host ::1: exit $rc"; }
"$cli" rpc-worker --host localhost --port "$port" > "$work/localhost.log" 2>&1 || true
grep -q "port $port on 127.0.0.1 is in use" "$work/localhost.log" || { cat "$work/localhost.log"; fail "--host localhost"; }

echo "== 7. SIGTERM stops the worker with exit 0"
kill -TERM "$worker"
set +e
wait "$worker"
rc=$?
set -e
[ $rc -eq 0 ] || fail "the worker exited $rc on SIGTERM"
grep -q "SIGTERM: stopping" "$work/worker.log" || fail "no stop line"

echo "== 8. --host 0.0.0.0 says loudly what it opens"
start_worker open --host 0.0.0.0
grep -q "WARNING: --host 0.0.0.0: every machine that reaches this port can use this machine's devices" "$work/open.log" \
    || { cat "$work/open.log"; fail "no warning"; }
kill -TERM "$worker"
# A worker gone mid-answer: the answer ends with the error naming it, what was written is kept,
# and the program ends normally (llama.cpp's client alone would abort it). killed: SIGKILL;
# frozen: SIGSTOP, found by the read time limit (3 s here, 120 s by default).
mid_answer() { # name signal
    local name=$1 sig=$2
    start_worker "$name"
    local w=$worker
    disown "$w" # killed here on purpose: no job-control notice
    set +e
    SHOEHORN_RPC_TIMEOUT_S=3 "$cli" chat "$work/moe.gguf" -p "Tell me about the sea" -n 400 --temp 0 -c 512 -ngl 99 \
        --rpc "127.0.0.1:$port" --no-check > "$work/$name.out" 2> "$work/$name.err" &
    local chat=$!
    for _ in $(seq 100); do [ -s "$work/$name.out" ] && break; sleep 0.1; done
    [ -s "$work/$name.out" ] || { cat "$work/$name.err"; fail "$name: no answer began"; }
    kill "-$sig" "$w"
    wait "$chat"
    local rc=$?
    set -e
    kill -9 "$w" 2>/dev/null || true
    tail -2 "$work/$name.err"
    [ $rc -eq 1 ] || fail "$name: the chat exited $rc (a crash or a hang ends otherwise)"
    grep -q "error (remote-failed): the remote machine 127.0.0.1:$port (--rpc) stopped answering: the answer ends here and keeps what was written" \
        "$work/$name.err" || fail "$name: the error does not name the worker"
    [ -s "$work/$name.out" ] || fail "$name: what was written is lost"
    echo "$name: kept $(wc -c < "$work/$name.out") bytes of the answer"
}
echo "== 9. a worker killed mid-answer"
mid_answer killed KILL
echo "== 10. a worker that stops answering mid-answer (frozen)"
mid_answer frozen STOP

echo "== 11. two workers and -ts: each device holds the layers the plan gives it (llama.cpp's dry run agrees)"
start_worker wa
pa=$port
start_worker wb
pb=$port
two="127.0.0.1:$pa,127.0.0.1:$pb"
weights() { # plan.json device-index -> weight bytes on that device
    node -e "const u = JSON.parse(require('fs').readFileSync('$1')).gpus[$2].use; console.log(u.weights_dense + u.weights_experts)"
}
for ts in 1,3 3,1; do
    "$cli" plan "$work/moe.gguf" --rpc "$two" -ngl 99 -c 512 -ts "$ts" --json > "$work/ts-$ts.json" 2> /dev/null
    "$cli" plan "$work/moe.gguf" --rpc "$two" -ngl 99 -c 512 -ts "$ts" --exact --json > "$work/ts-$ts-exact.json" 2> /dev/null
    for d in 0 1; do
        planned=$(weights "$work/ts-$ts.json" $d)
        dry=$(weights "$work/ts-$ts-exact.json" $d)
        echo "-ts $ts: RPC$d planned $planned bytes of weights, llama.cpp's dry run $dry"
        [ "$planned" -gt 0 ] && [ "$planned" = "$dry" ] || fail "-ts $ts: RPC$d's weights differ from llama.cpp's"
    done
done
[ "$(weights "$work/ts-1,3.json" 0)" -lt "$(weights "$work/ts-3,1.json" 0)" ] || fail "-ts did not move layers"
if "$cli" plan "$work/moe.gguf" -ts 1,x > /dev/null 2> "$work/ts-bad.err"; then fail "-ts 1,x was taken"; fi
grep -q -- "-ts takes proportions per device" "$work/ts-bad.err" || fail "no message for a bad -ts"

echo "== 12. fit with a limit on one device: the split keeps it, and the chat loads within it"
# A long context, so that the KV cache makes the tiny model's buffers some MiB.
"$cli" plan "$work/moe.gguf" --rpc "$two" -ngl 99 -c 32768 -ts 1,0 --json > "$work/all0.json" 2> /dev/null
# The limit: RPC0 can hold its compute buffer and half the layers' KV cache, not all of it.
limit=$(node -e "const u = JSON.parse(require('fs').readFileSync('$work/all0.json')).gpus[0].use;
                 console.log(Math.floor((u.total - u.kv_full / 2) / 1048576))")
"$cli" fit "$work/moe.gguf" --rpc "$two" -c 32768 --lock-ctx --lock-kv --vram-budget "$limit,0" --margin 0 \
    > "$work/fit.out" 2> "$work/fit.err" || { cat "$work/fit.out" "$work/fit.err"; fail "fit found nothing within $limit MiB"; }
cat "$work/fit.out"
settings=$(sed -n 's/^settings: //p' "$work/fit.out")
echo "$settings" | grep -q -- " -ts " || fail "fit gave no split for two devices"
SHOEHORN_RPC_TIMEOUT_S=30 "$cli" chat "$work/moe.gguf" -p hi -n 4 --temp 0 --no-check --rpc "$two" --memory-report $settings \
    > /dev/null 2> "$work/fit-chat.err" || { cat "$work/fit-chat.err"; fail "the fitted settings did not load"; }
line=$(grep "part=RPC0/buffers/after-load" "$work/fit-chat.err") || fail "no RPC0 in the memory report"
echo "$line"
actual=$(echo "$line" | sed -n 's/.* actual=\([0-9]*\) .*/\1/p')
[ "$actual" -le $(( limit * 1048576 )) ] || fail "RPC0 holds $actual bytes, over its limit of $limit MiB"
[ "$actual" -gt $(( limit * 1048576 / 2 )) ] || fail "RPC0 is left nearly empty ($actual bytes of $limit MiB)"
grep "part=RPC1/buffers/after-load" "$work/fit-chat.err" | grep -qv " actual=0 " || fail "the other device is not used"

echo "rpc loopback: all checks passed"
