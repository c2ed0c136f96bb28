#!/bin/bash
# cmake/WebUi.cmake where the web UI cannot be built: Node too old, npm missing, the registry out
# of reach. Each says so in one line, the build goes on with an empty asset table (no
# LLAMA_UI_HAS_ASSETS), and ui-status.h carries the reason that `/` shows; a failed attempt is not
# repeated by the next build. check_webui_fallback.sh SOURCE_DIR LLAMA_UI_SOURCE EMBED
set -euo pipefail
src=$1 ui=$2 embed=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A node that says its version, and an npm that cannot reach the registry.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho v18.19.0\n' > "$work/bin/node18"
printf '#!/bin/sh\necho v20.20.2\n' > "$work/bin/node20"
printf '#!/bin/sh\necho "npm error code ENOTFOUND" >&2\necho "npm error network request to https://registry.npmjs.org/vite failed" >&2\nexit 1\n' > "$work/bin/npm-offline"
chmod +x "$work/bin/"*

run() { # name node npm -> output in $work/name.log, table in $work/name/
    local name=$1 node=$2 npm=$3
    mkdir -p "$work/$name"
    cmake -DUI_SOURCE_DIR="$ui" -DCACHE_DIR="$work/cache-$name" -DOUT_DIR="$work/$name" -DEMBED="$embed" \
        -DNODE="$node" -DNPM="$npm" -DENABLED=ON -P "$src/cmake/WebUi.cmake" > "$work/$name.log" 2>&1 \
        || { cat "$work/$name.log"; fail "$name: the build stopped"; }
}
expect() { # name reason-regex
    local name=$1 want=$2
    cat "$work/$name.log"
    # One line says it; the only other line allowed is the one announcing the npm build it tried.
    [ "$(grep -vc "^-- Web UI: npm ci and npm run build in " "$work/$name.log")" = 1 ] || fail "$name: not one line"
    grep -Eq "^-- Web UI: not built in: $want; the build goes on" "$work/$name.log" || fail "$name: the line does not say why"
    grep -Eq "SHOEHORN_UI_MISSING_REASON \"$want\"" "$work/$name/ui-status.h" || fail "$name: ui-status.h has no reason"
    ! grep -q LLAMA_UI_HAS_ASSETS "$work/$name/ui.h" || fail "$name: the table claims assets"
    grep -q "llama_ui_get_assets" "$work/$name/ui.cpp" || fail "$name: no asset table"
}

run old "$work/bin/node18" "$work/bin/npm-offline"
expect old "Node.js v18.19.0 is too old; its build needs 20.19 or newer"
run nonpm "$work/bin/node20" ""
expect nonpm "npm is not installed"
run offline "$work/bin/node20" "$work/bin/npm-offline"
expect offline "npm ci failed \(is the npm registry reachable\?\): network request to https://registry.npmjs.org/vite failed"
# An npm that fails without a word: still one line, still a build.
printf '#!/bin/sh\nexit 1\n' > "$work/bin/npm-silent" && chmod +x "$work/bin/npm-silent"
run silent "$work/bin/node20" "$work/bin/npm-silent"
expect silent "npm ci failed \(is the npm registry reachable\?\): no message"
# The next build does not try npm again (it would cost minutes offline) and still says why.
printf '#!/bin/sh\necho called >> "%s/npm-called"\nexit 1\n' "$work" > "$work/bin/npm-spy" && chmod +x "$work/bin/npm-spy"
run offline "$work/bin/node20" "$work/bin/npm-spy"
[ ! -e "$work/npm-called" ] || fail "the failed npm build was tried again on the next build"
expect offline "npm ci failed \(is the npm registry reachable\?\): network request to https://registry.npmjs.org/vite failed"
echo "web UI fallback: one line each, an empty table, the reason for /"
