#!/bin/bash
# Writes the fuzz corpus: small valid files of each kind the inspectors read, and the inputs
# libFuzzer found that reach new code (tests/fuzz/corpus, kept in the repository).
#   corpus.sh FIXTUREGEN OUT_DIR
set -euo pipefail
gen=$1 out=$2
mkdir -p "$out"
"$gen" tiny-llama "$out/tiny-llama.gguf" --layers 1 >/dev/null
"$gen" tiny-qwen3moe "$out/tiny-moe.gguf" --layers 1 >/dev/null
"$gen" tiny-llama "$out/tiny-llama-aligned.gguf" --layers 1 --alignment-key 1 >/dev/null # general.alignment to mutate
"$gen" tiny-vision "$out/tiny-vision.gguf" --layers 2 >/dev/null
"$gen" mmproj-tiny "$out/mmproj-tiny.gguf" >/dev/null
printf 'BM\x36\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x18\x00' > "$out/pixel.bmp"
printf '\x00\x00\xff\x00' >> "$out/pixel.bmp"
cp "$(dirname "$0")"/corpus/* "$out/"
