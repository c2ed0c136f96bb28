#!/bin/bash
# Runs one API test file with node's test runner against a fresh tiny-api fixture:
# run.sh CLIENT_DIR TEST.mjs FIXTUREGEN [NAME=VALUE...] (the pairs go to the environment).
set -euo pipefail
dir=$1 test=$2 fixturegen=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$fixturegen" tiny-api "$tmp/tiny-api.gguf" >/dev/null
export API_FIXTURE="$tmp/tiny-api.gguf"
# The same model with general.sampling.* in the file (temp 0.6, top-p 0.95, top-k 20, min-p 0).
"$fixturegen" tiny-api "$tmp/tiny-api-sampling.gguf" --sampling-defaults 1 >/dev/null
export SAMPLING_FIXTURE="$tmp/tiny-api-sampling.gguf"
# A model that sees images, with its projector beside it (the tiny Qwen3.5-style pair).
mkdir -p "$tmp/vision"
"$fixturegen" tiny-vision "$tmp/vision/tiny-vision.gguf" >/dev/null
"$fixturegen" mmproj-tiny "$tmp/vision/mmproj-tiny-vision-F16.gguf" >/dev/null
export VISION_FIXTURE="$tmp/vision/tiny-vision.gguf" VISION_MMPROJ="$tmp/vision/mmproj-tiny-vision-F16.gguf"
for kv in "$@"; do export "${kv?}"; done
cd "$dir"
exec node --test --test-reporter=spec "$test"
