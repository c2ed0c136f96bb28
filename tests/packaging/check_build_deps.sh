#!/usr/bin/env bash
# Guard for the README's promise that `tools/dev.sh` installs everything on a fresh Debian 12:
# every Debian package that this configured build really uses must be in tools/dev.sh's list
# or pulled in by one of its packages (Depends/Pre-Depends), or be part of every Debian system.
#   check_build_deps.sh SOURCE_DIR BUILD_DIR
# What counts as used: the CMake package configs and programs found at configure time
# (CMakeCache.txt *_DIR and FILEPATH entries), the shared libraries every built program links
# (ldd), and the commands that the build, the tests and the app run.
# SHOEHORN_DEPS_PACKAGES (space separated) replaces the list, to prove that the guard fails.
set -euo pipefail
src=$1
build=$2
. "$(dirname "$0")/deplib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

packages=${SHOEHORN_DEPS_PACKAGES:-$("$src/tools/dev.sh" packages | tr '\n' ' ')}
[ -n "${packages// /}" ] || { echo "FAIL: tools/dev.sh packages printed no package"; exit 1; }
closure $packages > "$work/closure"
echo "tools/dev.sh installs $(wc -w <<< "$packages") packages; with their dependencies and the base system: $(wc -l < "$work/closure")"

# Collecting what the build uses (ldd of every program, dpkg -S of every file) is the slow part and
# does not depend on the list; SHOEHORN_DEPS_CACHE (a folder) keeps it for the guard's own test.
cache=${SHOEHORN_DEPS_CACHE:-}
if [ -n "$cache" ] && [ -f "$cache/owners" ]; then
    cp "$cache/uses.sorted" "$cache/owners" "$work/"
    [ -f "$cache/failed" ] && cp "$cache/failed" "$work/"
else
    uses="$work/uses"
    : > "$uses"
    # 1. CMake: package config directories and the programs and libraries it found.
    while IFS= read -r line; do
        name=${line%%:*}
        value=${line#*=}
        case "$line" in
        *_DIR:PATH=/*)
            [ -d "$value" ] || continue
            for f in "$value"/*[Cc]onfig.cmake; do
                [ -f "$f" ] && printf '%s\tCMake package %s\n' "$f" "${name%_DIR}" >> "$uses"
            done
            ;;
        *:FILEPATH=/*)
            [ -f "$value" ] && printf '%s\tCMake %s\n' "$value" "$name" >> "$uses"
            ;;
        esac
    done < "$build/CMakeCache.txt"

    # 2. Shared libraries of every program and backend module the build made (modules are not
    #    executable: libggml-vulkan.so links the Vulkan loader).
    for exe in "$build"/bin/*; do
        [ -f "$exe" ] || continue
        case "$exe" in *.so | *.so.*) ;; *) [ -x "$exe" ] || continue ;; esac
        file -b "$exe" | grep -q ELF || continue
        ldd "$exe" | awk '/=> \// {print $3} /^\t\/[^ ]+ \(/ {print $1}' | while read -r lib; do
            printf '%s\tlinked by %s\n' "$lib" "$(basename "$exe")"
        done >> "$uses"
    done

    # 3. Commands run by tools/dev.sh, the build (npm pack, git clone, cpack's dpkg-shlibdeps and
    #    file, gzip for the web UI), the tests (packaging, screenshots, the API through node's openai
    #    client, the web UI in chromium, the systemd unit, the GGUF MIME type through xdg-mime, which
    #    needs mimetype to read the type's magic) and the app (code highlighting).
    for cmd in npm node gzip chromium curl systemd-analyze git cmake ninja ccache c++ file dpkg-deb dpkg-shlibdeps apt-cache \
               desktop-file-validate appstreamcli update-mime-database xdg-mime mimetype \
               xvfb-run xauth Xvfb xdotool import kate-syntax-highlighter qemu-x86_64 patchelf objdump readelf; do
        path=$(command -v "$cmd" || true)
        if [ -z "$path" ]; then
            echo "MISSING: command $cmd is not installed"
            echo missing >> "$work/failed"
            continue
        fi
        printf '%s\tcommand %s\n' "$path" "$cmd" >> "$uses"
    done

    # 4. The Vulkan tests run on lavapipe (Mesa's Vulkan driver on the CPU) through the loader.
    for f in /usr/share/vulkan/icd.d/lvp_icd.json /usr/lib/x86_64-linux-gnu/libvulkan.so.1; do
        if [ -f "$f" ]; then printf '%s\tthe Vulkan tests (lavapipe)\n' "$f" >> "$uses"
        else echo "MISSING: $f (the Vulkan tests run on lavapipe)"; echo missing >> "$work/failed"; fi
    done

    # Files that the build itself makes or fetches are not packages (the llama.cpp source cache),
    # and the CUDA toolkit of a CUDA build is the user's own install (README).
    cache_dir=$(sed -n 's/^SHOEHORN_CACHE_DIR:PATH=//p' "$build/CMakeCache.txt")
    grep -v -e "^$build/" -e "^$(cd "$build" && pwd)/" -e "^$src/" ${cache_dir:+-e "^$cache_dir/"} -e '^/usr/local/cuda' "$uses" \
        | sort -u > "$work/uses.sorted" || true
    owners $(cut -f1 "$work/uses.sorted" | sort -u) > "$work/owners" || true # its status is its last test
    if [ -n "$cache" ]; then
        mkdir -p "$cache"
        cp "$work/uses.sorted" "$work/owners" "$cache/"
        [ -f "$work/failed" ] && cp "$work/failed" "$cache/"
    fi
fi
echo "files used: $(cut -f1 "$work/uses.sorted" | sort -u | wc -l)"

status=0
OWNERS_FILE="$work/owners" USED_PACKAGES_FILE="$work/used" check_owned "tools/dev.sh's list" "$work/closure" "$work/uses.sorted" \
    > "$work/report" || status=1
echo "packages used: $(tr ', ' '\n\n' < "$work/used" | grep . | sort -u | tr '\n' ' ')"
cat "$work/report"
[ -f "$work/failed" ] && status=1
if grep -q '^note:' "$work/report"; then
    echo "FAIL: files that no Debian package provides are used (a fresh machine will not have them)"
    status=1
fi
[ $status -eq 0 ] && echo "build dependencies: every package used is installed by tools/dev.sh"
exit $status
