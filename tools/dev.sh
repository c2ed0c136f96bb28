#!/usr/bin/env bash
# Shoehorn's two entry points on Debian 12 (see README.md):
#   tools/dev.sh run [model.gguf]   build, then start the app
#   tools/dev.sh test               build, then run every test
# Both install missing Debian packages first (apt-get, via sudo when not root).
# Environment: BUILD_DIR (default: build), SHOEHORN_CMAKE_ARGS (extra CMake flags),
# SHOEHORN_CPU_VARIANTS (the CPU backend's variants, default x64;haswell; "all" for a package),
# SHOEHORN_LLAMA_SOURCE_DIR (use an existing llama.cpp checkout).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(
    build-essential cmake ninja-build ccache git pkg-config
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n
    qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libqt6sql6-sqlite libgl-dev libegl-dev libglu1-mesa-dev libxkbcommon-dev
    libkf5syntaxhighlighting-tools
    xvfb xauth imagemagick xdotool xclip fonts-noto-cjk
    desktop-file-utils appstream shared-mime-info xdg-utils libfile-mimeinfo-perl dpkg-dev file
    curl systemd chromium
    qemu-user libvulkan1 patchelf
)
# From bookworm-backports on Debian 12: the tests run the Vulkan backend on lavapipe (Mesa's Vulkan
# driver on the CPU), and Debian 12's Mesa 22.3 crashes in it on a 600 MiB model; 25.0 does not.
BACKPORTS=(mesa-vulkan-drivers)
BACKPORTS_MIN=25

# A minimal Debian has no sudo: say what to do instead of "sudo: command not found".
need_sudo() {
    [ $# -eq 0 ] || command -v sudo >/dev/null 2>&1 && return 0
    echo "tools/dev.sh needs to install Debian packages: run it as root, or install sudo and be allowed to use it" >&2
    exit 1
}

install_deps() {
    install_base
    install_backports
}

install_base() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    # npm fetches the pinned llama.cpp source; Node from elsewhere (nodesource) brings its own.
    command -v npm >/dev/null 2>&1 || missing+=(npm)
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing: ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    need_sudo "${sudo[@]}"
    "${sudo[@]}" apt-get update -qq
    # -q, not -qq: apt says how much it downloads ("Need to get ...") and shows its progress.
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

install_backports() {
    local need=()
    for p in "${BACKPORTS[@]}"; do
        v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
        dpkg --compare-versions "${v:-0}" ge "$BACKPORTS_MIN" || need+=("$p")
    done
    [ ${#need[@]} -eq 0 ] && return 0
    local sudo=() target=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    need_sudo "${sudo[@]}"
    if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
        if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            echo "Adding Debian's bookworm-backports to apt's sources (/etc/apt/sources.list.d/bookworm-backports.list):"
            echo "only ${need[*]} is taken from it, nothing else is upgraded from there."
            echo "deb http://deb.debian.org/debian bookworm-backports main" |
                "${sudo[@]}" tee /etc/apt/sources.list.d/bookworm-backports.list > /dev/null
        fi
        target=(-t bookworm-backports)
    fi
    echo "Installing ${need[*]} ${target[*]} (version $BACKPORTS_MIN or later)"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${target[@]}" "${need[@]}"
}

build() {
    local llama_args=()
    [ -n "${SHOEHORN_LLAMA_SOURCE_DIR:-}" ] && llama_args=(-DSHOEHORN_LLAMA_SOURCE_DIR="$SHOEHORN_LLAMA_SOURCE_DIR")
    # shellcheck disable=SC2086
    # Two of the CPU backend's 14 variants: x64 runs on any x86-64 CPU, haswell (AVX2) on most of
    # today's; each variant is a full compile of ggml-cpu. A package for users is built with all.
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHOEHORN_WERROR=ON \
        -DSHOEHORN_CPU_VARIANTS="${SHOEHORN_CPU_VARIANTS:-x64;haswell}" "${llama_args[@]}" ${SHOEHORN_CMAKE_ARGS:-}
    cmake --build "$BUILD_DIR" --parallel "$(nproc)"
}

case "${1:-}" in
run)
    shift
    install_deps
    build
    exec "$BUILD_DIR/bin/shoehorn" "$@"
    ;;
test)
    install_deps
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure --parallel "$(nproc)"
    ;;
deps)
    install_deps
    ;;
packages)
    # What a fresh Debian 12 machine gets (npm included); the dependency guard test reads it.
    printf '%s\n' "${PACKAGES[@]}" "${BACKPORTS[@]}" npm
    ;;
*)
    echo "usage: $0 run [model.gguf] | test | deps | packages" >&2
    exit 2
    ;;
esac
