#!/usr/bin/env bash
# Packaging test: build the .deb, inspect it, unpack it into a temporary root, validate the
# desktop files, check the MIME type, run the installed binary.
#   test_deb.sh BUILD_DIR FIXTUREGEN
set -euo pipefail
build=$1
fixturegen=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== 1. build the package"
(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log") || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/pkg/shoehorn_*.deb)
echo "$deb ($(du -h "$deb" | cut -f1))"
vkdeb=$(ls "$work"/pkg/shoehorn-backend-vulkan_*.deb 2>/dev/null || true)
[ -n "$vkdeb" ] && echo "$vkdeb ($(du -h "$vkdeb" | cut -f1))"
cudeb=$(ls "$work"/pkg/shoehorn-backend-cuda_*.deb 2>/dev/null || true)
[ -n "$cudeb" ] && echo "$cudeb ($(du -h "$cudeb" | cut -f1))"

echo "== 2. inspect it"
dpkg-deb -c "$deb" | awk '{print $6}' > "$work/contents"
for f in ./usr/bin/shoehorn ./usr/bin/shoehorn-cli \
         ./usr/share/applications/io.github.shoehorn.Shoehorn.desktop \
         ./usr/share/mime/packages/io.github.shoehorn.Shoehorn.xml \
         ./usr/share/metainfo/io.github.shoehorn.Shoehorn.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/io.github.shoehorn.Shoehorn.svg \
         ./usr/share/icons/hicolor/48x48/apps/io.github.shoehorn.Shoehorn.png \
         ./usr/share/icons/hicolor/256x256/apps/io.github.shoehorn.Shoehorn.png \
         ./usr/share/doc/shoehorn/copyright ./usr/lib/systemd/system/shoehorn-serve.service ./usr/lib/systemd/system/shoehorn-rpc-worker.service \
         ./etc/default/shoehorn-serve ./etc/default/shoehorn-rpc-worker; do
    grep -qx "$f" "$work/contents" || fail "missing $f"
done
# ggml and llama as libraries, the CPU backend in every x86-64 variant and RPC as modules, in
# lib/shoehorn (where the programs' RUNPATH and the engine's module search look); GPU modules are
# packages of their own.
variants=$(sed -n 's/^SHOEHORN_CPU_VARIANTS:STRING=//p' "$build/CMakeCache.txt")
echo "CPU variants configured: $variants"
if [ "$variants" = all ]; then
    variants="x64;sse42;sandybridge;haswell;skylakex;cannonlake;cascadelake;icelake;alderlake;zen4;sapphirerapids"
fi
[[ ";$variants;" == *";x64;"* ]] || fail "no x64 variant: the package would not run on every x86-64 CPU"
for f in libggml-base.so libggml-base.so.0 libggml.so.0 libllama.so.0 libmtmd.so.0 libggml-rpc.so \
         $(tr ';' '\n' <<< "$variants" | sed 's/.*/libggml-cpu-&.so/'); do
    grep -qx "./usr/lib/shoehorn/$f" "$work/contents" || fail "missing /usr/lib/shoehorn/$f"
done
if grep -E '\.so(\.|$)' "$work/contents" | grep -v '^\./usr/lib/shoehorn/'; then fail "libraries outside lib/shoehorn"; fi
grep -q 'libggml-vulkan' "$work/contents" && fail "the Vulkan module is in the main package"
grep -Eq '^./usr/include/|\.a$|cmake/' "$work/contents" && fail "llama.cpp's development files are packaged"
depends=$(dpkg-deb -f "$deb" Depends)
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "Depends: $depends"
echo "Recommends: $recommends"
for p in libqt6core6 libqt6gui6 libqt6widgets6 libqt6network6 libqt6sql6 libqt6sql6-sqlite libqt6charts6 qt6-qpa-plugins libqt6svg6; do
    [[ $depends == *"$p"* ]] || fail "Depends lacks $p"
done
[[ $recommends == *libkf5syntaxhighlighting-tools* ]] || fail "Recommends lacks libkf5syntaxhighlighting-tools"
[[ $recommends == *xdg-utils* ]] || fail "Recommends lacks xdg-utils (links in answers open through xdg-open)"
# Every Depends entry must be a real Debian 12 package.
for p in $(echo "$depends" | tr ',' '\n' | sed 's/(.*)//; s/ //g'); do
    apt-cache show "$p" > /dev/null 2>&1 || dpkg -s "$p" > /dev/null 2>&1 || fail "unknown package $p"
done

echo "== 3. install into a temporary root"
root="$work/root"
dpkg -x "$deb" "$root"
test -x "$root/usr/bin/shoehorn" || fail "no executable"

echo "== 3a. nothing outside the CPU variants is built for a newer CPU than x86-64 (no AVX, no AVX-512)"
for f in "$root"/usr/bin/shoehorn "$root"/usr/bin/shoehorn-cli "$root"/usr/lib/shoehorn/*.so.0 \
         "$root"/usr/lib/shoehorn/libggml-rpc.so "$root"/usr/lib/shoehorn/libggml-cpu-x64.so \
         $(ls "$root"/usr/lib/shoehorn/libggml-cpu-sse42.so 2>/dev/null); do
    n=$(objdump -d --no-show-raw-insn "$f" | grep -cE '%[yz]mm[0-9]' || true)
    [ "$n" -eq 0 ] || fail "$(basename "$f") has $n AVX/AVX-512 instructions: built for the build machine's CPU?"
done
echo "no AVX or AVX-512 instruction outside the CPU variants that need them"

echo "== 3b. every library the programs link comes with Depends"
here=$(dirname "$0")
export SHOEHORN_PACKAGE_ROOT="$root"
"$here/check_runtime_deps.sh" "$depends" "$root/usr/bin/shoehorn" "$root/usr/bin/shoehorn-cli" \
    $(find "$root/usr/lib/shoehorn" -type f -name '*.so*') \
    || fail "the .deb's Depends miss a library that the programs load"
# The guard itself must catch a missing entry: drop one that the programs need.
without=$(echo "$depends" | tr ',' '\n' | grep -v libqt6charts6 | paste -sd, -)
if out=$("$here/check_runtime_deps.sh" "$without" "$root/usr/bin/shoehorn" 2>&1); then
    fail "the run-time guard passed without libqt6charts6 in Depends"
fi
grep -q 'MISSING: package libqt6charts6' <<< "$out" || { echo "$out"; fail "the guard did not name libqt6charts6"; }

echo "== 3c. the installed CLI loads its modules from lib/shoehorn and picks the CPU kernels of the CPU it runs on"
"$fixturegen" tiny-api "$work/tiny.gguf" > /dev/null
devices=$("$root/usr/bin/shoehorn-cli" devices)
echo "$devices"
grep -q "^CPU: .* kernels (modules in $root/usr/lib/shoehorn)$" <<< "$devices" || fail "modules not from the package"
grep -q "^Vulkan: not installed" <<< "$devices" || fail "the main package alone does not say that Vulkan is not installed"
ask() { "$@" chat "$work/tiny.gguf" -p "Name three colours." --temp 0 -n 12 -c 256 --no-check 2> "$work/ask.err"; }
native=$(ask "$root/usr/bin/shoehorn-cli") || { cat "$work/ask.err"; fail "the installed CLI does not chat"; }
grep '^backends:' "$work/ask.err"
# An older CPU, emulated: Nehalem has SSE4.2 and no AVX (qemu-user's TCG); Haswell has AVX2 but no
# AVX-512, like most desktop CPUs. Neither may meet an instruction it lacks (SIGILL, exit 132).
for model in 'Nehalem:(x64|sse42)' 'Haswell:haswell'; do
    cpu=${model%%:*}
    old=$(ask qemu-x86_64 -cpu "$cpu" "$root/usr/bin/shoehorn-cli") \
        || { cat "$work/ask.err"; fail "the installed CLI fails as a $cpu CPU (exit $?)"; }
    grep '^backends:' "$work/ask.err"
    grep -Eq "^backends: CPU \(${model#*:} kernels\)" "$work/ask.err" || fail "$cpu: not the ${model#*:} kernels"
    [ "$old" = "$native" ] || fail "$cpu answers differently: '$old' / '$native'"
done
echo "the same answer on this CPU and as Nehalem and Haswell: $native"
if [ -n "$vkdeb" ]; then
    echo "== 3d. shoehorn-backend-vulkan: its module in lib/shoehorn, only \$ORIGIN in its RUNPATH, loaded from there"
    vkdepends=$(dpkg-deb -f "$vkdeb" Depends)
    echo "Depends: $vkdepends"
    [[ $vkdepends == *"shoehorn (= $(dpkg-deb -f "$deb" Version))"* && $vkdepends == *libvulkan1* ]] \
        || fail "shoehorn-backend-vulkan does not depend on this shoehorn and libvulkan1"
    dpkg-deb -c "$vkdeb" | awk '{print $6}' | grep -qx ./usr/lib/shoehorn/libggml-vulkan.so || fail "no module in the package"
    dpkg -x "$vkdeb" "$root"
    runpath=$(readelf -d "$root/usr/lib/shoehorn/libggml-vulkan.so" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')
    [ "$runpath" = '$ORIGIN' ] || fail "the module's RUNPATH is '$runpath'"
    devices=$(GGML_VK_VISIBLE_DEVICES=0 "$root/usr/bin/shoehorn-cli" devices)
    echo "$devices"
    grep -q '^Vulkan0 · ' <<< "$devices" || fail "the installed Vulkan module gives no device on lavapipe"
    # Every layer on Vulkan0 from the installed module: the CPU's answer, the weights allocated there.
    vk=$(GGML_VK_VISIBLE_DEVICES=0 "$root/usr/bin/shoehorn-cli" chat "$work/tiny.gguf" -p "Name three colours." --temp 0 \
         -n 12 -c 256 --no-check -ngl 99 --memory-report 2> "$work/vk.err") || { cat "$work/vk.err"; fail "no chat on Vulkan0"; }
    grep -E '^backends:|^memory: part=Vulkan0/' "$work/vk.err"
    grep -qE '^memory: part=Vulkan0/buffers/after-load .* actual=[1-9]' "$work/vk.err" || fail "nothing allocated on Vulkan0"
    # The plan of Vulkan0 against what the installed program allocated there: weights and KV to
    # the byte, compute within 1 MiB (a tiny model's buffers, where alignment dominates).
    part() { sed -n "s/^memory: part=Vulkan0\/$1\/after-load planned=\([0-9]*\) actual=\([0-9]*\) .*/\1 \2/p" "$work/vk.err"; }
    for kind in weights kv; do
        read -r planned actual <<< "$(part $kind)"
        [ -n "$planned" ] && [ "$planned" = "$actual" ] || fail "Vulkan0 $kind: planned '$planned', allocated '$actual'"
    done
    read -r planned actual <<< "$(part compute)"
    [ -n "$planned" ] && [ $(( planned > actual ? planned - actual : actual - planned )) -le 1048576 ] \
        || fail "Vulkan0 compute: planned '$planned', allocated '$actual'"
    [ "$vk" = "$native" ] || fail "Vulkan0 answers differently: '$vk' / '$native'"
    echo "the installed package on Vulkan0 answers as the CPU: $vk"
    "$here/check_runtime_deps.sh" "$depends, $vkdepends, mesa-vulkan-drivers" "$root/usr/lib/shoehorn/libggml-vulkan.so" \
        || fail "the Vulkan module loads a library its package does not depend on"
fi

if [ -n "$cudeb" ]; then
    echo "== 3e. shoehorn-backend-cuda: the module and the CUDA 13 runtime in lib/shoehorn; without NVIDIA's driver it says so"
    cudepends=$(dpkg-deb -f "$cudeb" Depends)
    echo "Depends: $cudepends"
    [ "$cudepends" = "shoehorn (= $(dpkg-deb -f "$deb" Version))" ] || fail "shoehorn-backend-cuda depends on '$cudepends'"
    dpkg -x "$cudeb" "$root"
    for f in libggml-cuda.so libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
        [ -f "$root/usr/lib/shoehorn/$f" ] && [ ! -L "$root/usr/lib/shoehorn/$f" ] || fail "$f is not a file in the package"
    done
    runpath=$(readelf -d "$root/usr/lib/shoehorn/libggml-cuda.so" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')
    [ "$runpath" = '$ORIGIN' ] || fail "the CUDA module's RUNPATH is '$runpath'"
    # Everything it links is in the package or the system, except the driver's own library.
    missing=$(ldd "$root/usr/lib/shoehorn/libggml-cuda.so" | awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')
    [ "$missing" = "libcuda.so.1 " ] || fail "the CUDA module misses '$missing' (only libcuda.so.1, the driver's, may be missing)"
    ldd "$root/usr/lib/shoehorn/libggml-cuda.so" | grep -E 'libcu(dart|blas)' | grep -q "$root/usr/lib/shoehorn/" \
        || fail "the CUDA runtime is not taken from the package"
    devices=$(GGML_VK_VISIBLE_DEVICES=0 "$root/usr/bin/shoehorn-cli" devices)
    echo "$devices"
    grep -qx 'CUDA: no NVIDIA driver (libcuda.so.1 is not installed); NVIDIA cards can run on Vulkan' <<< "$devices" \
        || fail "no sentence about the missing NVIDIA driver"
    if [ -n "$vkdeb" ]; then grep -q '^Vulkan0 · ' <<< "$devices" || fail "Vulkan0 is gone with the CUDA package"; fi
    cu=$("$root/usr/bin/shoehorn-cli" chat "$work/tiny.gguf" -p "Name three colours." --temp 0 -n 12 -c 256 --no-check \
         2> "$work/cu.err") || { cat "$work/cu.err"; fail "no chat with the CUDA package installed"; }
    [ "$cu" = "$native" ] || fail "with the CUDA package the answer differs: '$cu' / '$native'"
    echo "with the CUDA package and no NVIDIA driver, the same answer: $cu"
else
    echo "== 3e. no shoehorn-backend-cuda: this build found no CUDA 13 runtime (SHOEHORN_CUDA_RUNTIME_DIR)"
fi

echo "== 4. validate"
desktop-file-validate "$root/usr/share/applications/io.github.shoehorn.Shoehorn.desktop"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.shoehorn.Shoehorn.metainfo.xml"

echo "== 5. MIME type"
xdg="$work/xdg"
mkdir -p "$xdg/mime/packages"
cp "$root/usr/share/mime/packages/io.github.shoehorn.Shoehorn.xml" "$xdg/mime/packages/"
update-mime-database "$xdg/mime"
"$fixturegen" tiny-llama "$work/some.gguf"
printf 'GGUF\x03\x00\x00\x00' > "$work/renamed.bin" # the magic alone, no .gguf name
for f in some.gguf renamed.bin; do
    type=$(XDG_DATA_HOME="$xdg" XDG_DATA_DIRS="$xdg:/usr/share" XDG_CURRENT_DESKTOP= DE=generic \
           xdg-mime query filetype "$work/$f")
    echo "$f: $type"
    [ "$type" = application/x-gguf ] || fail "$f is $type"
done

echo "== 6. run the installed binary"
version=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/shoehorn" --version)
echo "$version"
[[ $version == "Shoehorn 0."* ]] || fail "unexpected --version output"
QT_QPA_PLATFORM=offscreen "$root/usr/bin/shoehorn" --help | grep -q "model.gguf" || fail "--help"
"$root/usr/bin/shoehorn-cli" info "$work/some.gguf" | grep -q "llama" || fail "shoehorn-cli"
echo "== 7. a second launch hands its model to the running window"
"$fixturegen" tiny-qwen3moe "$work/other.gguf"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" SHOEHORN_INSTANCE_NAME="shoehorn-pkgtest-$$" QT_QPA_PLATFORM=offscreen
conf="$XDG_CONFIG_HOME/Shoehorn/Shoehorn.conf"
"$root/usr/bin/shoehorn" "$work/some.gguf" > "$work/first.log" 2>&1 &
first=$!
trap 'kill $first 2>/dev/null || true; rm -rf "$work" "${TMPDIR:-/tmp}/$SHOEHORN_INSTANCE_NAME"' EXIT
recent_first() { sed -n 's/^recent=//p' "$conf" 2>/dev/null | cut -d, -f1; }
for _ in $(seq 100); do [ "$(recent_first)" = "$work/some.gguf" ] && break; sleep 0.1; done
[ "$(recent_first)" = "$work/some.gguf" ] || { cat "$work/first.log"; fail "first instance did not load some.gguf"; }
start=$(date +%s%N)
timeout 10 "$root/usr/bin/shoehorn" "$work/other.gguf" || fail "second launch failed"
echo "second launch returned after $(( ($(date +%s%N) - start) / 1000000 )) ms"
for _ in $(seq 100); do [ "$(recent_first)" = "$work/other.gguf" ] && break; sleep 0.1; done
[ "$(recent_first)" = "$work/other.gguf" ] || fail "the running window did not load other.gguf"
kill -0 $first || fail "the first instance died"
echo "the running instance loaded other.gguf"
# What the running app has loaded, plugins included (dlopen: platform, SQLite driver, SVG).
awk '$6 ~ /\.so(\.[0-9]+)*$/ {print $6}' "/proc/$first/maps" | sort -u > "$work/loaded"
grep -q qsqlite "$work/loaded" || fail "the running app has not loaded the SQLite driver"
# With shoehorn-backend-vulkan unpacked too (3d), the Vulkan loader opens the drivers it recommends.
"$here/check_runtime_deps.sh" "$depends${vkdeb:+, $vkdepends, mesa-vulkan-drivers}" "$work/loaded" \
    || fail "the .deb's Depends miss a library the app loads"
kill $first

echo "== 8. the systemd unit runs shoehorn-cli serve from its environment file"
unit="$root/usr/lib/systemd/system/shoehorn-serve.service"
env_file="$root/etc/default/shoehorn-serve"
test -f "$unit" || fail "no shoehorn-serve.service"
test -f "$env_file" || fail "no /etc/default/shoehorn-serve"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/default/shoehorn-serve || fail "/etc/default/shoehorn-serve is not a conffile"
systemd-analyze verify "$unit" > "$work/verify.log" 2>&1 || true
cat "$work/verify.log"
if grep -v "is not executable" "$work/verify.log" | grep -q .; then fail "systemd-analyze verify complains"; fi
# The hardening README.md records: exposure 1.9 ("OK") on systemd 252; fail above 2.0.
systemd-analyze security --offline=true --threshold=20 "$unit" > "$work/security.log" 2>&1 \
    || { grep -E "✗|Overall" "$work/security.log"; fail "systemd-analyze security: exposure above 2.0"; }
grep "Overall exposure" "$work/security.log"
grep -qx "RestartPreventExitStatus=2" "$unit" || fail "a configuration error (exit 2) would restart forever"
grep -qx "CacheDirectory=shoehorn" "$unit" || fail "the file check's cache has no CacheDirectory"
# ExecStart as systemd expands it: ${VAR} one word, $VAR split at spaces, %d the credentials.
creds="$work/creds" && mkdir -p "$creds" && echo "sk-unit-test" > "$creds/api-key" && chmod 600 "$creds/api-key"
sed -e "s#^SHOEHORN_MODEL=.*#SHOEHORN_MODEL=$work/some.gguf#" -e 's#^SHOEHORN_PORT=.*#SHOEHORN_PORT=0#' \
    "$env_file" > "$work/serve.env"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
cmdline=$(CREDS="$creds"; set -a; . "$work/serve.env"; set +a; eval "echo $exec_start" | sed "s#%d#$creds#")
cmdline=${cmdline/\/usr\/bin\/shoehorn-cli/$root/usr/bin/shoehorn-cli}
echo "$cmdline"
$cmdline > "$work/serve.log" 2>&1 &
serve=$!
for _ in $(seq 100); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
url=$(sed -n 's#.*listening on \(http://[^ ]*\)/v1.*#\1#p' "$work/serve.log")
[ -n "$url" ] || { cat "$work/serve.log"; fail "the unit's command did not serve"; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/v1/models")" = 401 ] || fail "no key: not 401"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer sk-unit-test' "$url/v1/models")" = 200 ] \
    || fail "the key from the credential file is not accepted"
kill -TERM $serve
wait $serve || fail "shoehorn-cli serve did not exit 0 on SIGTERM"
echo "the unit's command served $url with the key from its credential and stopped on SIGTERM"
echo "== 9. the RPC worker's unit: not enabled, hardened, and its ExecStart serves from its environment file"
unit="$root/usr/lib/systemd/system/shoehorn-rpc-worker.service"
env_file="$root/etc/default/shoehorn-rpc-worker"
test -f "$unit" || fail "no shoehorn-rpc-worker.service"
test -f "$env_file" || fail "no /etc/default/shoehorn-rpc-worker"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/default/shoehorn-rpc-worker || fail "/etc/default/shoehorn-rpc-worker is not a conffile"
! dpkg-deb -c "$deb" | grep -q "wants/shoehorn-rpc-worker" || fail "the worker is enabled by the package"
grep -qx "SHOEHORN_RPC_HOST=127.0.0.1" "$env_file" || fail "the worker does not listen on loopback by default"
systemd-analyze verify "$unit" > "$work/verify-rpc.log" 2>&1 || true
if grep -v "is not executable" "$work/verify-rpc.log" | grep -q .; then cat "$work/verify-rpc.log"; fail "systemd-analyze verify complains"; fi
systemd-analyze security --offline=true --threshold=20 "$unit" > "$work/security-rpc.log" 2>&1 \
    || { grep -E "✗|Overall" "$work/security-rpc.log"; fail "systemd-analyze security: exposure above 2.0"; }
grep "Overall exposure" "$work/security-rpc.log"
rpc_port=$((20000 + RANDOM % 30000))
sed -e "s#^SHOEHORN_RPC_PORT=.*#SHOEHORN_RPC_PORT=$rpc_port#" "$env_file" > "$work/rpc.env"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
cmdline=$(set -a; . "$work/rpc.env"; set +a; eval "echo $exec_start")
cmdline=${cmdline/\/usr\/bin\/shoehorn-cli/$root/usr/bin/shoehorn-cli}
echo "$cmdline"
$cmdline > "$work/rpc.log" 2>&1 &
rpc=$!
for _ in $(seq 100); do grep -q "serving on" "$work/rpc.log" && break; sleep 0.1; done
grep -q "rpc-worker: serving on 127.0.0.1:$rpc_port" "$work/rpc.log" || { cat "$work/rpc.log"; fail "the worker's unit command did not serve"; }
kill -TERM $rpc
wait $rpc || fail "shoehorn-cli rpc-worker did not exit 0 on SIGTERM"
echo "the worker's unit command served 127.0.0.1:$rpc_port and stopped on SIGTERM"
echo "packaging: all checks passed"
