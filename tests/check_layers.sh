#!/usr/bin/env bash
# Layering checks on the built objects (Ninja builds):
#   check_layers.sh BUILD_DIR symbols   ui/ calls no engine function: no undefined symbol of
#                                       libshoehorn_ui.a is defined by libshoehorn_engine.a
#   check_layers.sh BUILD_DIR headers   no ui/ or app/ source includes a llama.cpp, ggml, libmtmd
#                                       or llama.cpp server header, directly or through another
#                                       header (ninja -t deps), and no ui/ source AppCore's header:
#                                       the window is handed its objects (WindowParts), not the root
#   check_layers.sh BUILD_DIR names     no ui/ or app/ object refers to a llama.cpp, ggml, libmtmd
#                                       or server symbol (llama_*, ggml_*, gguf_*, mtmd_*,
#                                       server_*, common_*)
# SHOEHORN_LAYERS_INPUT: a file to check instead of what the build gives (ninja's deps for
# `headers`, nm's undefined symbols per object for `names`): the guard's own test.
set -euo pipefail
build=$1
mode=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case "$mode" in
symbols)
    engine=$(find "$build" -name libshoehorn_engine.a | head -1)
    ui=$(find "$build" -name libshoehorn_ui.a | head -1)
    [ -n "$engine" ] && [ -n "$ui" ] || { echo "FAIL: libraries not built"; exit 1; }
    nm -C --defined-only "$engine" | awk '$2 ~ /^[TWVRDB]$/ { $1 = ""; $2 = ""; print substr($0, 3) }' |
        sort -u > "$work/engine"
    echo "engine defines $(wc -l < "$work/engine") symbols"
    # Per member of the ui archive, the engine symbols it needs.
    nm -C --undefined-only "$ui" | awk '
        /:$/ { member = substr($0, 1, length($0) - 1); next }
        NF >= 2 { $1 = ""; print member "\t" substr($0, 2) }' | sort -u > "$work/ui"
    awk -F'\t' 'NR == FNR { e[$0] = 1; next } ($2 in e) { print "FAIL: " $1 " calls the engine: " $2 }' \
        "$work/engine" "$work/ui" > "$work/bad"
    if [ -s "$work/bad" ]; then
        cat "$work/bad"
        echo "ui/ must ask the app core (OffloadController, ChatController, HardwareMonitor, ...), not the engine"
        exit 1
    fi
    echo "ui: $(cut -f1 "$work/ui" | sort -u | wc -l) objects, none calls an engine function"
    ;;
headers)
    if [ -n "${SHOEHORN_LAYERS_INPUT:-}" ]; then cp "$SHOEHORN_LAYERS_INPUT" "$work/deps"; else ninja -C "$build" -t deps > "$work/deps"; fi
    # "target: #deps N, ..." then one indented header per line.
    awk '
        /^[^ \t].*: #deps/ { obj = $1; sub(/:$/, "", obj); next }
        /^[ \t]+[^ \t]/ && obj ~ /shoehorn_(ui|app)\.dir/ && ($1 ~ /\/(llama|llama-cpp|ggml|ggml-backend|gguf|mtmd|mtmd-helper|server-[a-z]+)\.h$/) {
            print "FAIL: " obj " includes " $1
        }
        /^[ \t]+[^ \t]/ && obj ~ /shoehorn_ui\.dir/ && $1 ~ /\/appcore\.h$/ {
            print "FAIL: " obj " includes " $1 " (the composition root)"
        }' "$work/deps" | sort -u > "$work/bad"
    objects=$(grep -cE '^[^ \t].*shoehorn_(ui|app)\.dir.*: #deps' "$work/deps" || true)
    [ "$objects" -gt 0 ] || { echo "FAIL: no ui/app objects in ninja's dependency log"; exit 1; }
    if [ -s "$work/bad" ]; then
        head -40 "$work/bad"
        echo "$(wc -l < "$work/bad") includes across the layers from ui/ and app/"
        exit 1
    fi
    echo "ui and app: $objects objects, none includes a llama.cpp, ggml, mtmd or server header; ui/ not appcore.h"
    ;;
names)
    if [ -n "${SHOEHORN_LAYERS_INPUT:-}" ]; then
        cp "$SHOEHORN_LAYERS_INPUT" "$work/undefined"
    else
        : > "$work/undefined"
        for lib in libshoehorn_app.a libshoehorn_ui.a; do
            archive=$(find "$build" -name "$lib" | head -1)
            [ -n "$archive" ] || { echo "FAIL: $lib not built"; exit 1; }
            nm -C --undefined-only "$archive" | awk -v lib="$lib" '
                /:$/ { member = substr($0, 1, length($0) - 1); next }
                NF >= 2 { $1 = ""; print lib "(" member ")\t" substr($0, 2) }' >> "$work/undefined"
        done
    fi
    grep -E $'\t(.*[^A-Za-z0-9_])?(llama|ggml|gguf|mtmd|server|common)_[A-Za-z0-9_]+' "$work/undefined" |
        awk -F'\t' '{ print "FAIL: " $1 " refers to " $2 }' | sort -u > "$work/bad" || true
    [ -s "$work/undefined" ] || { echo "FAIL: no symbols to check"; exit 1; }
    if [ -s "$work/bad" ]; then
        head -40 "$work/bad"
        echo "$(wc -l < "$work/bad") references to llama.cpp, ggml, mtmd or server names from app/ and ui/"
        exit 1
    fi
    echo "app and ui: $(cut -f1 "$work/undefined" | sort -u | wc -l) objects, none names llama.cpp, ggml, mtmd or server symbols"
    ;;
*)
    echo "usage: $0 BUILD_DIR symbols|headers|names" >&2
    exit 2
    ;;
esac
