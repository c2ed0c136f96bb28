#!/usr/bin/env bash
# GPU benchmark for docs/benchmarks.md, run on a machine with an NVIDIA GPU (CUDA toolkit at
# /usr/local/cuda). It:
#   1. builds the headless tools with CUDA for this GPU's architecture (no Qt needed);
#   2. writes a Qwen3-30B-A3B-shaped Q4_K_M model with random weights (shoehorn-fixturegen);
#   3. measures all layers on the GPU (shoehorn-cli bench and llama-bench);
#   4. for VRAM budgets of 6 GB and 12 GB: llama.cpp's own fit (llama-fit-params' choice, run
#      by llama-bench) against Shoehorn's auto-tune (shoehorn-cli tune, its best settings also
#      run by llama-bench), and prints the ratios;
#   5. plan against actual per GPU and for both RAM parts (shoehorn-cli chat --memory-report:
#      llama.cpp's buffers on each GPU and the free memory the load took there), all layers on
#      the GPU and experts partly on the CPU with a q8_0 KV cache;
#   6. a GPU and an RPC worker together: `shoehorn-cli rpc-worker --device CPU` lends this
#      machine's RAM as an RPC device, and parity and plan-against-actual run with --rpc
#      (llama.cpp splits the layers between CUDA0 and RPC0);
#   7. the packaged CUDA module (shoehorn-backend-cuda: the npm module and the CUDA 13 runtime,
#      not compiled here): the module build's `devices`, the same chat as the compiled build, its
#      parity against llama-bench of the same build, and plan against actual on CUDA0 with it;
#   8. speculative decoding (#29): MTP on bench-qwen35moe-mtp with llama.cpp's synthetic acceptance
#      at mean lengths 1.5, 2, 3 and 4, serve beside llama-server of the same build
#      (tools/spec-bench.sh), and the draft context's plan against actual on the GPU;
#   9. appends the tables, with the command, to docs/benchmarks.md.
# Usage: tools/gpu-bench.sh [work-dir]   (about 20 GB of disk for the model)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/shoehorn-gpu-bench}
mkdir -p "$work"
build=build-cuda
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu (sm_$arch)"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHOEHORN_BUILD_GUI=OFF -DSHOEHORN_BUILD_TESTS=OFF \
    -DSHOEHORN_CUDA=ON -DSHOEHORN_BACKEND_MODULES=OFF -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_COMPILER="$nvcc" -DGGML_CUDA_FA_ALL_QUANTS=OFF
cmake --build "$build" --target shoehorn-cli shoehorn-fixturegen llama-bench llama-fit-params llama-server \
    --parallel "$(nproc)"
bin="$build/bin"

model="$work/qwen3-30b-a3b-random.gguf"
[ -f "$model" ] || "$bin/shoehorn-fixturegen" qwen3-30b-a3b-random "$model"

P=512 N=128 R=3
tg_of() { # llama-bench JSON on stdin -> tg t/s
    python3 -c 'import json,sys; print(next(t["avg_ts"] for t in json.load(sys.stdin) if t["n_gen"] > 0))'
}
row=()

echo "== all layers on the GPU"
ours_all=$("$bin/shoehorn-cli" bench "$model" -ngl 99 -fa on -p $P -n $N -r $R -o json |
    python3 -c 'import json,sys; print(next(t["avg_ts"] for t in json.load(sys.stdin) if t["test"].startswith("tg")))')
ref_all=$("$bin/llama-bench" -m "$model" -ngl 99 -fa 1 -p 0 -n $N -r $R -o json 2>/dev/null | tg_of)
row+=("| all on the GPU | -ngl 99 | $ref_all | -ngl 99 | $ours_all | $(python3 -c "print(f'{$ours_all/$ref_all:.3f}')") |")

for budget in 6144 12288; do
    echo "== VRAM budget $budget MiB"
    free=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
    margin=$((free - budget))
    # llama.cpp's fit: the memory to leave free is everything above the budget.
    fit=$("$bin/llama-fit-params" -m "$model" -c 32768 -fa on -fitt "$margin" 2>/dev/null | head -1)
    fit_args=$(echo "$fit" | sed 's/-c [0-9]* //')
    ref=$(eval "\"$bin/llama-bench\" -m \"$model\" $fit_args -fa 1 -p 0 -n $N -r $R -o json" 2>/dev/null | tg_of)
    # Shoehorn: auto-tune within the same budget, then the same llama-bench on its best settings.
    best=$("$bin/shoehorn-cli" tune "$model" --vram-budget "$budget" -c 32768 2>/dev/null |
        awk -F'|' '/ best /{print $2; exit}')
    ngl=$(echo "$best" | sed -n 's/.*-ngl \([0-9]*\).*/\1/p')
    ncmoe=$(echo "$best" | sed -n 's/.*--n-cpu-moe \([0-9]*\).*/\1/p')
    threads=$(echo "$best" | sed -n 's/.* -t \([0-9]*\).*/\1/p')
    ub=$(echo "$best" | sed -n 's/.*-ub \([0-9]*\).*/\1/p')
    fa=$(echo "$best" | sed -n 's/.*-fa \([a-z]*\).*/\1/p')
    ctk=$(echo "$best" | sed -n 's/.*-ctk \([a-z0-9_]*\).*/\1/p')
    ctv=$(echo "$best" | sed -n 's/.*-ctv \([a-z0-9_]*\).*/\1/p')
    ours=$("$bin/llama-bench" -m "$model" -ngl "$ngl" -ncmoe "$ncmoe" -t "$threads" -ub "$ub" \
        -fa "$([ "$fa" = off ] && echo 0 || echo 1)" -ctk "$ctk" -ctv "$ctv" -p 0 -n $N -r $R -o json 2>/dev/null | tg_of)
    row+=("| $((budget / 1024)) GB budget | $fit_args | $ref | $best | $ours | $(python3 -c "print(f'{$ours/$ref:.3f}')") |")
done

echo "== plan and actual per GPU"
mib() { awk -v b="${1#*=}" 'BEGIN { printf "%.0f", b / 1048576 }'; }
mem=()
for flags in "-ngl 99 -fa on -c 8192" "-ngl 99 --n-cpu-moe 30 -fa on -c 8192 -ctk q8_0 -ctv q8_0"; do
    # shellcheck disable=SC2086 # flags are words
    parts=$("$bin/shoehorn-cli" chat "$model" -p hi -n 1 $flags --no-check --memory-report 2>&1 >/dev/null |
        grep '^memory: part=' || true)
    while read -r _ part planned actual err _; do
        if [ -n "$part" ]; then
            mem+=("| \`$flags\` | ${part#part=} | $(mib "$planned") | $(mib "$actual") | ${err#error_pct=} % |")
        fi
    done <<<"$parts"
    [ -n "$parts" ] || echo "warning: shoehorn-cli chat $flags --memory-report printed no parts (did it fail?)" >&2
done

echo "== a GPU and an RPC worker together"
rpc_port=50152
"$bin/shoehorn-cli" rpc-worker --port $rpc_port --device CPU > "$work/rpc-worker.log" 2>&1 &
worker=$!
trap 'kill $worker 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q "serving on" "$work/rpc-worker.log" && break; sleep 0.1; done
rpc_parity=$("$bin/shoehorn-cli" parity "$model" --rpc 127.0.0.1:$rpc_port -ngl 99 -fa on -p $P -n $N -r $R --rounds 3 2>&1 |
    grep '^| ' || true)
rpc_mem=$("$bin/shoehorn-cli" chat "$model" -p hi -n 1 -ngl 99 -fa on -c 8192 --rpc 127.0.0.1:$rpc_port --no-check \
    --memory-report 2>&1 >/dev/null | grep '^memory: part=' || true)
kill $worker || true

echo "== speculation: MTP with synthetic acceptance, serve beside llama-server"
spec_model="$work/bench-qwen35moe-mtp.gguf"
[ -f "$spec_model" ] || "$bin/shoehorn-fixturegen" bench-qwen35moe-mtp "$spec_model"
spec_rates=$(SYNTH="1.5 2 3 4" tools/spec-bench.sh "$build" "$spec_model" 3 -- --spec-type draft-mtp -ngl 99 2>&1 |
    grep -E '^(llama-server|serve|[0-9.]+:)' || true)
spec_mem=$("$bin/shoehorn-cli" chat "$spec_model" -p hi -n 8 -ngl 99 --spec-type draft-mtp --no-check \
    --memory-report 2>&1 >/dev/null | grep '^memory: part=' || true)

echo "== the packaged CUDA module (the module build, as the .deb installs it)"
mbuild="build-modules"
cmake -S . -B "$mbuild" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHOEHORN_BUILD_GUI=OFF -DSHOEHORN_BUILD_TESTS=OFF \
    -DSHOEHORN_CPU_VARIANTS="x64;haswell" -DSHOEHORN_CUDA_PACKAGE=ON -DSHOEHORN_CUDA_RUNTIME_DIR=/usr/local/cuda/lib64
cmake --build "$mbuild" --target shoehorn-cli llama-bench shoehorn_cuda_module --parallel "$(nproc)"
mbin="$mbuild/bin"
module_devices=$("$mbin/shoehorn-cli" devices 2>&1)
echo "$module_devices"
compiled=$("$bin/shoehorn-cli" chat "$model" -p "Name three colours." --temp 0 -n 16 -ngl 99 --no-check 2>/dev/null)
packaged=$("$mbin/shoehorn-cli" chat "$model" -p "Name three colours." --temp 0 -n 16 -ngl 99 --no-check 2> "$work/module.err")
grep '^backends:' "$work/module.err" || true
same_answer=$([ "$compiled" = "$packaged" ] && echo "the same answer" || echo "DIFFERENT answers: '$compiled' / '$packaged'")
module_parity=$("$mbin/shoehorn-cli" parity "$model" -ngl 99 -fa on -p $P -n $N -r $R --rounds 3 \
    --llama-bench "$mbin/llama-bench" 2>&1 | grep '^| ' || true)
module_mem=$("$mbin/shoehorn-cli" chat "$model" -p hi -n 1 -ngl 99 --n-cpu-moe 30 -fa on -c 8192 -ctk q8_0 -ctv q8_0 \
    --no-check --memory-report 2>&1 >/dev/null | grep '^memory: part=' || true)
# The card through its other backend (where the NVIDIA driver's Vulkan part is there too): the same
# answer, and generation speed side by side (--backend Vulkan against the default, CUDA).
twin="no Vulkan device of this card (no NVIDIA Vulkan driver here)"
if grep -q 'also seen as Vulkan' <<< "$module_devices"; then
    through_vk=$("$mbin/shoehorn-cli" chat "$model" -p "Name three colours." --temp 0 -n 16 -ngl 99 --backend Vulkan \
        --no-check 2>/dev/null || true)
    tg() { "$mbin/shoehorn-cli" bench "$model" -ngl 99 --n-cpu-moe 30 -fa on -p 64 -n $N -r $R -o csv "$@" 2>/dev/null \
        | awk -F, 'NR == 3 { print $2 }'; }
    twin="--backend Vulkan: $([ "$through_vk" = "$packaged" ] && echo "the same answer" || echo "DIFFERENT answer '$through_vk'");"
    twin="$twin tg$N CUDA $(tg) t/s, Vulkan $(tg --backend Vulkan) t/s (--n-cpu-moe 30)"
fi

{
    echo
    echo "## GPU: $gpu, $(date -u +%Y-%m-%d)"
    echo
    echo "Command: \`tools/gpu-bench.sh\` (model: shoehorn-fixturegen qwen3-30b-a3b-random; tg$N, $R repetitions)."
    echo
    echo "| case | llama.cpp settings | llama.cpp tg t/s | Shoehorn settings | Shoehorn tg t/s | ratio |"
    echo "| --- | --- | ---: | --- | ---: | ---: |"
    printf '%s\n' "${row[@]}"
    echo
    echo "Plan against actual (\`shoehorn-cli chat MODEL -p hi -n 1 FLAGS --memory-report\`; target: within 3 %"
    echo "per part; \`CUDA0/buffers\` is llama.cpp's breakdown, \`CUDA0/device\` the free memory the load took):"
    echo
    echo "| flags | part | planned MiB | actual MiB | error |"
    echo "| --- | --- | ---: | ---: | ---: |"
    printf '%s\n' "${mem[@]}"
} | tee -a docs/benchmarks.md
{
    echo
    echo "GPU and an RPC worker (this machine's RAM) together: \`shoehorn-cli parity MODEL --rpc 127.0.0.1:$rpc_port"
    echo "-ngl 99 -fa on\` against \`llama-bench --rpc\` (target ≥ 0.97 ×), and plan against actual per device:"
    echo
    printf '%s\n' "$rpc_parity"
    echo
    echo '```'
    printf '%s\n' "$rpc_mem"
    echo '```'
    echo
    echo "Speculation (\`SYNTH=\"1.5 2 3 4\" tools/spec-bench.sh $build bench-qwen35moe-mtp 3 -- --spec-type draft-mtp"
    echo "-ngl 99\`: synthetic acceptance, target serve ≥ 0.97 × llama-server with speculation), and the MTP"
    echo "context's plan against actual (\`*/draft_*\` parts):"
    echo
    echo '```'
    printf '%s\n' "$spec_rates"
    printf '%s\n' "$spec_mem"
    echo '```'
    echo
    echo "The packaged CUDA module (\`$mbuild\`: @node-llama-cpp/linux-x64-cuda@3.21.1 with the CUDA 13 runtime, as"
    echo "shoehorn-backend-cuda installs it); \`shoehorn-cli devices\`, then against the compiled build: $same_answer."
    echo
    echo '```'
    printf '%s\n' "$module_devices"
    echo '```'
    echo
    printf '%s\n' "$module_parity"
    echo
    echo '```'
    printf '%s\n' "$module_mem"
    echo '```'
    echo
    echo "The card through Vulkan instead of CUDA: $twin."
} | tee -a docs/benchmarks.md
