#!/usr/bin/env bash
# The build dependency guard must fail, naming the package, when one that the build needs is
# taken out of tools/dev.sh's list. One row per package: CMake config, program, app command,
# a command only a test runs.
#   check_build_deps_fails.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1
build=$2
here=$(dirname "$0")
status=0
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for pkg in libqt6opengl6-dev qt6-charts-dev ninja-build ccache libkf5syntaxhighlighting-tools libfile-mimeinfo-perl; do
    list=$("$src/tools/dev.sh" packages | grep -vx "$pkg" | tr '\n' ' ')
    if out=$(SHOEHORN_DEPS_CACHE="$cache" SHOEHORN_DEPS_PACKAGES="$list" "$here/check_build_deps.sh" "$src" "$build" 2>&1); then
        echo "FAIL: without $pkg the guard passed"
        status=1
    elif grep -q "^MISSING: package $pkg " <<< "$out"; then
        echo "ok: without $pkg: $(grep -m1 "^MISSING: package $pkg " <<< "$out")"
    else
        echo "FAIL: without $pkg the guard failed but did not name it:"
        echo "$out"
        status=1
    fi
done
exit $status
