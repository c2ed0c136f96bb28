#!/usr/bin/env bash
# llama.cpp's own server test suite (tools/server/tests of the pinned llama.cpp), run against
# `shoehorn-cli serve` with llama-server's flags unchanged: tools/server-suite/llama-server maps the
# models the tests download to Shoehorn's fixtures and starts serve. Not part of the test command
# (several minutes on 2 cores); its result is recorded in docs/benchmarks.md's neighbour,
# docs/server-suite.md.
#   tools/server-suite.sh [BUILD_DIR] [pytest args...]     e.g. tools/server-suite.sh build -k slots
# Needs Debian's python3-pytest python3-aiohttp python3-filelock python3-numpy
# python3-prometheus-client python3-requests python3-wget (installed when missing).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-build}" && pwd)
shift || true

PACKAGES=(python3-pytest python3-aiohttp python3-filelock python3-numpy python3-prometheus-client
          python3-requests python3-wget)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "Installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

LLAMA=$(sed -n 's/^llama.cpp_SOURCE_DIR:STATIC=//p' "$BUILD/CMakeCache.txt")
[ -d "$LLAMA/tools/server/tests/unit" ] || { echo "no llama.cpp tree with tools/server/tests (looked in '$LLAMA')" >&2; exit 1; }

WORK="$BUILD/server-suite"
MODELS="$WORK/models"
mkdir -p "$MODELS"
for m in tiny-api tiny-qwen3moe tiny-vision mmproj-tiny; do
    [ -s "$MODELS/$m.gguf" ] || "$BUILD/bin/shoehorn-fixturegen" "$m" "$MODELS/$m.gguf" >/dev/null
done
# A copy of the suite, so its tmp/ and caches stay out of the llama.cpp tree, at the same depth:
# its tests read ../../../models/templates and ../../../tools/mtmd, linked here.
TREE="$WORK/llama.cpp"
rm -rf "$TREE"
mkdir -p "$TREE/tools/server"
cp -r "$LLAMA/tools/server/tests" "$TREE/tools/server/tests"
mkdir -p "$TREE/tools/server/tests/tmp"
ln -s "$LLAMA/models" "$TREE/models"
ln -s "$LLAMA/tools/mtmd" "$TREE/tools/mtmd"

export SHOEHORN_SUITE_MODELS="$MODELS"
export SHOEHORN_CLI="$BUILD/bin/shoehorn-cli"
export LLAMA_SERVER_BIN_PATH="$ROOT/tools/server-suite/llama-server"
export PYTHONPATH="$ROOT/tools/server-suite${PYTHONPATH:+:$PYTHONPATH}"
cd "$TREE/tools/server/tests"
# One worker per core (each test starts its own server); -rfEs lists failures, errors and skips.
# Debian's Python: the packages above are installed for it (another python3 may come first on PATH).
run_suite() { # NAME [pytest args]: junit XML in $WORK/NAME.xml, the log in $WORK/NAME.log
    local name=$1; shift
    echo "== llama.cpp's server suite against $name (log: $WORK/$name.log)"
    /usr/bin/python3 -m pytest -p shoehorn_suite -n "${PYTEST_WORKERS:-2}" -q -rfEs \
        --junitxml="$WORK/$name.xml" unit "$@" >"$WORK/$name.log" 2>&1 || true
    tail -n 1 "$WORK/$name.log"
}
run_suite serve "$@"
# The baseline: the same tests, fixtures and mapping against llama-server of this build. A test
# that fails there too is bound to the fixtures (the suite checks stories260K's own words and token
# counts); one that fails only against serve is a difference of Shoehorn's.
if [ "${SHOEHORN_SUITE_BASELINE:-1}" = 1 ] && [ -x "$BUILD/bin/llama-server" ]; then
    SHOEHORN_SUITE_SERVER="$BUILD/bin/llama-server" run_suite llama-server "$@"
    /usr/bin/python3 "$ROOT/tools/server-suite/compare.py" "$WORK/serve.xml" "$WORK/llama-server.xml"
fi
