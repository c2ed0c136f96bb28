#!/usr/bin/env bash
# Guard for the .deb: every shared library that the installed programs load belongs to a
# package in the .deb's Depends or their dependencies (or to every Debian system).
#   check_runtime_deps.sh "DEPENDS FIELD" FILE...
# A FILE that is an ELF program is read with ldd; any other FILE is a list of loaded libraries
# (e.g. from /proc/PID/maps of the running app, which also has the plugins Qt dlopen()s).
set -euo pipefail
depends=$1
shift
. "$(dirname "$0")/deplib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "libc6 (>= 2.34), a | b" -> the first alternative of each entry, without versions.
seeds=$(echo "$depends" | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/:.*//; s/ //g' | grep . | tr '\n' ' ')
closure $seeds > "$work/closure"

for f in "$@"; do
    if file -b "$f" | grep -q ELF; then
        ldd "$f" | awk '/=> \// {print $3} /^\t\/[^ ]+ \(/ {print $1}' \
            | sed "s|\$|\tloaded by $(basename "$f")|"
    else
        grep -E '\.so(\.[0-9]+)*$' "$f" | sed "s|\$|\tloaded at run time|"
    fi
done | sort -u -t$'\t' -k1,1 > "$work/all-uses"
# The package's own libraries (ggml, llama and the backend modules in lib/shoehorn of the
# unpacked root) are no other package's: SHOEHORN_PACKAGE_ROOT names that root.
if [ -n "${SHOEHORN_PACKAGE_ROOT:-}" ]; then
    grep -v "^$SHOEHORN_PACKAGE_ROOT/" "$work/all-uses" > "$work/uses" || true
else
    cp "$work/all-uses" "$work/uses"
fi
echo "libraries loaded: $(wc -l < "$work/uses")"

status=0
check_owned "the .deb's Depends" "$work/closure" "$work/uses" > "$work/report" || status=1
cat "$work/report"
if grep -q '^note:' "$work/report"; then
    echo "FAIL: libraries that no Debian package provides are loaded"
    status=1
fi
[ $status -eq 0 ] && echo "run-time dependencies: every library loaded comes with the .deb's Depends"
exit $status
