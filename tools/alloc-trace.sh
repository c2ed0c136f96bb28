#!/usr/bin/env bash
# Where a device's compute buffer peaks, as ggml's graph allocator placed it: for work on the
# analytic planner's compute estimate (engine/internal/computeestimate.cpp) where it misses
# llama.cpp's dry run (tests/engine/tst_plannervulkan.cpp's expected failures).
#
# Builds a copy of the pinned ggml-alloc.c that logs every allocation and free of the graph
# allocator (buffer, tensor, op, size, offset, the buffer's high-water mark), preloads it into
# `shoehorn-cli plan --exact` (llama.cpp's dry run: no weights read), and prints the tensors live
# in DEVICE's buffer when its high-water mark was last raised, by offset: what the peak is made
# of, and the holes between them that the allocator could not use.
#
# Usage: tools/alloc-trace.sh [BUILD_DIR] DEVICE MODEL.gguf [plan flags...]
#   e.g. GGML_VK_VISIBLE_DEVICES=0 tools/alloc-trace.sh build Vulkan0 q3.gguf -ngl 20 -c 4096 -fa on
# Needs gcc and python3; writes only under a temporary folder.
set -euo pipefail
build=build
if [ $# -ge 1 ] && [ -f "$1/CMakeCache.txt" ]; then
    build=$1
    shift
fi
[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
device=$1
shift

src=$(sed -n 's/^ggml_SOURCE_DIR:STATIC=//p' "$build/CMakeCache.txt")
[ -f "$src/src/ggml-alloc.c" ] || { echo "no ggml source under '$src' (configure $build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$src/src/ggml-alloc.c" "$work/ggml-alloc.c" <<'EOF'
import sys
s = open(sys.argv[1]).read()
def patch(old, new):
    global s
    if s.count(old) != 1:
        sys.exit("tools/alloc-trace.sh: ggml-alloc.c moved (anchor not found once):\n" + old)
    s = s.replace(old, new)
patch('#include "ggml-alloc.h"', '#include "ggml-alloc.h"\n#include <stdio.h>')
# A line per graph the allocator lays out, so that one graph's tensors are never mixed with another's.
patch('''static void ggml_gallocr_alloc_graph_impl(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
''', '''static void ggml_gallocr_alloc_graph_impl(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    fprintf(stderr, "TRACE G %p\\n", (void *) galloc);
''')
patch('''        hn->buffer_id = buffer_id;
        hn->addr = ggml_dyn_tallocr_alloc(alloc, size, node);
''', '''        hn->buffer_id = buffer_id;
        hn->addr = ggml_dyn_tallocr_alloc(alloc, size, node);
        size_t high = 0;
        for (int c = 0; c < alloc->n_chunks; c++) high += alloc->chunks[c]->max_size;
        fprintf(stderr, "TRACE A %p %s %s %s %zu %d %zu %zu\\n", (void *) galloc, ggml_backend_buft_name(buft),
                node->name, ggml_op_desc(node), size, hn->addr.chunk, hn->addr.offset, high);
''')
patch('''    ggml_dyn_tallocr_free_bytes(alloc, hn->addr, size);
    hn->allocated = false;''', '''    ggml_dyn_tallocr_free_bytes(alloc, hn->addr, size);
    fprintf(stderr, "TRACE F %p %s %s - %zu %d %zu 0\\n", (void *) galloc, ggml_backend_buft_name(buft), node->name,
            size, hn->addr.chunk, hn->addr.offset);
    hn->allocated = false;''')
open(sys.argv[2], "w").write(s)
EOF
gcc -O1 -fPIC -shared -I"$src/include" -I"$src/src" "$work/ggml-alloc.c" -o "$work/libtrace.so" \
    -L"$build/bin" -lggml-base

# The plan goes to stderr beside the table; so do shoehorn-cli's own errors, and its exit status
# is this script's.
rc=0
LD_PRELOAD="$work/libtrace.so" "$build/bin/shoehorn-cli" plan "$@" --exact 2>"$work/trace.log" >&2 || rc=$?
grep -v '^TRACE ' "$work/trace.log" >&2 || true
[ "$rc" = 0 ] || exit "$rc"
# Tensor names hold spaces ("cache_k_l5 (permuted)"): the fields are read from the right.
python3 - "$work/trace.log" "$device" <<'EOF'
import sys
graphs, cur = [], None  # one per graph laid out: (allocator, rows of DEVICE's buffer)
for line in open(sys.argv[1], errors="replace"):
    if not line.startswith("TRACE "):
        continue
    f = line.rstrip("\n").split(" ")
    if f[1] == "G":
        cur = (f[2], [])
        graphs.append(cur)
        continue
    if cur is None or f[2] != cur[0] or f[3] != sys.argv[2]:
        continue
    size, chunk, off, high = int(f[-4]), int(f[-3]), int(f[-2]), int(f[-1])
    op, name = f[-5], " ".join(f[4:-5])
    cur[1].append((f[1], name, op, size, (chunk, off), high))
graphs = [g[1] for g in graphs if any(r[0] == "A" for r in g[1])]
if not graphs:
    sys.exit("no allocation in a buffer named '%s' (the names are ggml's buffer types, e.g. Vulkan0, CPU)" % sys.argv[2])
mib = lambda b: b / 1048576
best = max(graphs, key=lambda g: max(r[5] for r in g))
peak = max(r[5] for r in best)
live = {}
for r in best:
    kind, name, op, size, at, high = r
    if kind == "F":
        live.pop(at, None)
        continue
    live[at] = (size, op, name)
    if high == peak:
        break
# (In-place reuse of a parent and the freed tail of a reused parent are not logged: a tensor
# that took its parent's place shows under the parent's name.)
print("%s: peak %.2f MiB (the largest of %d graph(s) laid out), set by %s" % (sys.argv[2], mib(peak), len(graphs), name))
print("| offset MiB | size MiB | op | tensor |\n|--:|--:|---|---|")
end, used, chunk = 0, 0, None
for at in sorted(live):
    size, op, name = live[at]
    if at[0] != chunk:
        chunk, end = at[0], 0
        if len({a[0] for a in live}) > 1:
            print("| chunk %d | | | |" % chunk)
    off = at[1]
    if off > end:
        print("| %.2f | %.2f | (hole) | |" % (mib(end), mib(off - end)))
    print("| %.2f | %.2f | %s | %s |" % (mib(off), mib(size), op, name))
    end, used = max(end, off + size), used + size
print("live %.2f MiB, holes %.2f MiB" % (mib(used), mib(peak - used)))
EOF
