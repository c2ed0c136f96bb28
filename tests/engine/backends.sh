#!/usr/bin/env bash
# ggml's backends as modules (#28), through shoehorn-cli as a user runs it:
#  1. `devices` names the CPU kernels ggml picked for this CPU;
#  2. without a Vulkan device the chat runs on the CPU; with lavapipe (Mesa's Vulkan driver on the
#     CPU, named by GGML_VK_VISIBLE_DEVICES) a tiny model with every layer on Vulkan0 answers the
#     same tokens at temperature 0, and its weights are on Vulkan0 (--memory-report);
#  3. a module directory without the Vulkan module, or with a module that does not load: the
#     sentence names what is missing and the chat still runs on the CPU.
#  4. a module in the current directory is never loaded (ggml's default search includes it).
#   backends.sh SHOEHORN_CLI FIXTUREGEN HIJACK_MODULE FOREIGN_MODULE
# (FOREIGN_MODULE: a module of another ggml, whose backend API version is not ours.)
set -euo pipefail
cli=$1
fixturegen=$2
hijack=$3
foreign=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
bin=$(dirname "$cli")

echo "== 1. devices"
"$cli" devices | tee "$work/devices"
variant=$(sed -n 's/^CPU: \(.*\) kernels (modules in .*)$/\1/p' "$work/devices")
[ -n "$variant" ] || fail "devices names no CPU module"
[ -f "$bin/libggml-cpu-$variant.so" ] || fail "no libggml-cpu-$variant.so beside $cli"

chat() { # model, then extra flags; prints the answer, keeps stderr in $work/err
    "$cli" chat "$@" -p "Count the planets of the solar system." --temp 0 -n 24 -c 512 --no-check \
        --memory-report 2> "$work/err" || { cat "$work/err" >&2; return 1; }
}

for preset in tiny-qwen3moe tiny-api; do
    "$fixturegen" "$preset" "$work/$preset.gguf" > /dev/null
    echo "== 2. $preset: the CPU, then every layer on Vulkan0 (lavapipe)"
    cpu=$(GGML_VK_VISIBLE_DEVICES= chat "$work/$preset.gguf" -ngl 99) || fail "chat on the CPU"
    grep '^backends:' "$work/err"
    grep -q "Vulkan0" "$work/err" && fail "a Vulkan device without GGML_VK_VISIBLE_DEVICES"
    vk=$(GGML_VK_VISIBLE_DEVICES=0 chat "$work/$preset.gguf" -ngl 99) || fail "chat on Vulkan0"
    grep '^backends:' "$work/err"
    grep -q '^backends: .*Vulkan0 · ' "$work/err" || fail "no Vulkan0 device on lavapipe"
    # What llama.cpp allocated on the device (the planner's figure for it is #28's next step).
    grep -E '^memory: part=Vulkan0/buffers/after-load .* actual=[1-9]' "$work/err" \
        || { cat "$work/err"; fail "llama.cpp allocated nothing on Vulkan0"; }
    echo "CPU:     $cpu"
    echo "Vulkan0: $vk"
    [ -n "$cpu" ] || fail "empty answer"
    [ "$cpu" = "$vk" ] || fail "$preset answers differently on Vulkan0"
done

echo "== 2b. the devices chosen (llama.cpp's --device, Shoehorn's --backend)"
none=$(GGML_VK_VISIBLE_DEVICES=0 chat "$work/tiny-api.gguf" -ngl 99 --device none) || fail "chat with --device none"
grep -q 'part=Vulkan0/' "$work/err" && { cat "$work/err"; fail "--device none allocated on Vulkan0"; }
[ "$none" = "$vk" ] || fail "--device none answers differently"
picked=$(GGML_VK_VISIBLE_DEVICES=0 chat "$work/tiny-api.gguf" -ngl 99 --device Vulkan0 --backend Vulkan) \
    || fail "chat with --device Vulkan0"
grep -qE '^memory: part=Vulkan0/buffers/after-load .* actual=[1-9]' "$work/err" || fail "--device Vulkan0 put nothing there"
[ "$picked" = "$vk" ] || fail "--device Vulkan0 answers differently"
set +e
GGML_VK_VISIBLE_DEVICES=0 "$cli" chat "$work/tiny-api.gguf" --device Vulkan7 -p hi 2> "$work/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q -- '--device Vulkan7: no such device here (devices: Vulkan0)' "$work/err" \
    || { cat "$work/err"; fail "an unknown --device is not named (exit $rc)"; }
echo "--device none: the CPU's answer; Vulkan0 as chosen; Vulkan7 named"

echo "== 3. no module, a module that does not load"
mods="$work/modules"
mkdir "$mods"
cp -P "$bin"/libggml-cpu-*.so "$bin"/libggml-rpc.so "$mods/"
SHOEHORN_BACKEND_DIR="$mods" "$cli" devices | tee "$work/none"
grep -q "^Vulkan: not installed ($mods/libggml-vulkan.so is missing; the package shoehorn-backend-vulkan)" "$work/none" \
    || fail "no sentence for the missing Vulkan module"
printf 'not an ELF file' > "$mods/libggml-vulkan.so"
SHOEHORN_BACKEND_DIR="$mods" "$cli" devices | tee "$work/broken"
grep -q "^Vulkan: the module did not load: .*libggml-vulkan.so" "$work/broken" || fail "no sentence for the broken module"
answer=$(SHOEHORN_BACKEND_DIR="$mods" chat "$work/tiny-api.gguf") || fail "chat without a GPU module"
[ "$answer" = "$vk" ] || fail "the CPU-only chat answers differently"
# A Vulkan module of another llama.cpp: refused with the reason, no crash, the chat on the CPU.
cp "$foreign" "$mods/libggml-vulkan.so"
SHOEHORN_BACKEND_DIR="$mods" "$cli" devices | tee "$work/foreign" || fail "devices crashed on a foreign module"
grep -q "^Vulkan: the module did not load: it was built for another ggml (backend API -1, this one [0-9]*)" "$work/foreign" \
    || fail "no sentence for a module of another ggml"
answer=$(SHOEHORN_BACKEND_DIR="$mods" chat "$work/tiny-api.gguf") || fail "chat beside a foreign module"
[ "$answer" = "$vk" ] || fail "the chat beside a foreign module answers differently"
echo "== 4. a CPU module in the current directory that would score highest"
mkdir "$work/cwd"
cp "$hijack" "$work/cwd/libggml-cpu-zzz.so"
(cd "$work/cwd" && "$cli" devices > /dev/null && "$cli" serve --list-devices > list.txt 2>&1 || true)
cat "$work/cwd/list.txt"
[ ! -e "$work/cwd/hijacked" ] || fail "a module in the current directory was loaded"
grep -q "Available devices" "$work/cwd/list.txt" || fail "serve --list-devices did not run"
echo "PASS: CPU kernels $variant; Vulkan0 answers as the CPU; missing and broken modules named; none from the current directory"
if [ -e "$bin/libggml-cuda.so" ]; then
    echo "== 5. the CUDA module (shoehorn-backend-cuda) on a machine without NVIDIA's driver"
    GGML_VK_VISIBLE_DEVICES=0 "$cli" devices | tee "$work/cuda"
    grep -qx 'CUDA: no NVIDIA driver (libcuda.so.1 is not installed); NVIDIA cards can run on Vulkan' "$work/cuda" \
        || fail "no sentence for the missing NVIDIA driver"
    grep -q '^Vulkan0 · ' "$work/cuda" || fail "Vulkan0 is gone beside the CUDA module"
    # The module alone in a folder (no Vulkan beside it): still the driver's sentence, the CPU chat.
    rm -f "$mods/libggml-vulkan.so"
    cp "$bin/libggml-cuda.so" "$mods/"
    cp -L "$bin/libggml-base.so" "$mods/" # the name GPU modules link (ours is libggml-base.so.0)
    for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do cp -P "$bin/$lib" "$mods/"; done
    SHOEHORN_BACKEND_DIR="$mods" "$cli" devices | tee "$work/cuda-alone"
    grep -qx 'CUDA: no NVIDIA driver (libcuda.so.1 is not installed); NVIDIA cards can run on Vulkan' "$work/cuda-alone" \
        || fail "no sentence for the missing NVIDIA driver"
    grep -q '^no GPU: models run on the CPU' "$work/cuda-alone" || fail "a GPU without a driver"
    answer=$(SHOEHORN_BACKEND_DIR="$mods" chat "$work/tiny-api.gguf") || fail "chat beside a CUDA module that does not load"
    [ "$answer" = "$vk" ] || fail "the chat beside the CUDA module answers differently"
else
    echo "== 5. no CUDA module in this build (no CUDA 13 runtime at configure time)"
fi
