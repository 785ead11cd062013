#!/bin/bash
# bench/overlayio.sh: what each overlay backend costs the agent's file I/O.
# The same synthetic checkout (a git repository of FILES small files in
# nested directories) is worked on three ways:
#   bare    the directory itself, on the host, no sandbox
#   native  inside a revrun bundle with revrun.overlay "native"
#   fuse    inside a revrun bundle with revrun.overlay "fuse" (fuse-overlayfs)
# Each round starts from a fresh copy / a fresh bundle, and times, inside:
#   find    a stat-heavy walk (find -printf of size and mode, every entry)
#   read    reading every file (find -exec cat)
#   status  git status (which also refreshes and rewrites .git/index)
#   write   writing 1,000 small files
# It prints the median of ROUNDS rounds per phase and the ratio to bare.
#
#   bench/overlayio.sh [FILES [ROUNDS]]    (defaults: 5000 files, 5 rounds)
#
# Run as root (or as a user whom revrun's rootless mode serves: limits are
# then best effort); needs git and fuse-overlayfs. Nothing is left behind.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-5000}
rounds=${2:-5}
revrun="$here/revrun"
[ -x "$revrun" ] || make -C "$here" revrun >/dev/null

tmp=$(mktemp -d /tmp/revrun-bench.XXXXXX)
chmod 0755 "$tmp"
cleanup() {
    "$revrun" --root "$tmp/state" list 2>/dev/null | awk 'NR > 1 {print $1}' |
        while read -r id; do "$revrun" --root "$tmp/state" destroy --force "$id"; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# The checkout: FILES files of 1-4 KiB, 20 per directory, two levels deep.
python3 - "$tmp/checkout" "$files" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
for i in range(n):
    d = os.path.join(root, "src", "m%02d" % (i // 400), "d%03d" % (i // 20))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.c" % i), "w") as f:
        f.write(("int v%d = %d;\n" % (i, i)) * random.randint(70, 280))
EOF
git -C "$tmp/checkout" init -q
git -C "$tmp/checkout" add -A
git -C "$tmp/checkout" -c user.name=bench -c user.email=bench@localhost commit -qm synthetic
chmod -R a+rX "$tmp/checkout"

# The workload, as the agent would run it; one "phase nanoseconds" per line.
workload='
t() { date +%s%N; }
a=$(t); find . -printf "%s %m\n" >/dev/null; b=$(t); echo "find $((b - a))"
a=$(t); find . -path ./.git -prune -o -type f -exec cat {} + >/dev/null; b=$(t); echo "read $((b - a))"
a=$(t); git -c safe.directory="*" status --porcelain >/dev/null; b=$(t); echo "status $((b - a))"
a=$(t); mkdir w; i=0; while [ $i -lt 1000 ]; do echo $i >w/f$i; i=$((i + 1)); done; b=$(t); echo "write $((b - a))"
'

spec_args=()
[ "$(id -u)" = 0 ] || spec_args=(--rootless)
bundle() {
    mkdir -p "$tmp/b-$1/rootfs"
    "$revrun" spec "${spec_args[@]}" --lower "$tmp/checkout" >"$tmp/b-$1/config.json"
    python3 - "$tmp/b-$1/config.json" "$1" "$workload" "${spec_args[*]}" <<'EOF'
import json, sys
p, backend, script, rootless = sys.argv[1:]
c = json.load(open(p))
c["revrun"]["overlay"] = backend
c["process"]["args"] = ["sh", "-c", script]
c["process"]["env"] = [e for e in c["process"]["env"] if not e.startswith("HOME=")] + ["HOME=/tmp"]
if rootless:
    c["revrun"]["bestEffort"] = ["memory", "pids", "cpu"]
json.dump(c, open(p, "w"))
EOF
}

one_round() {
    case "$1" in
    bare)
        rm -rf "$tmp/bare"
        cp -a "$tmp/checkout" "$tmp/bare"
        (cd "$tmp/bare" && sh -c "$workload")
        ;;
    *)
        (cd "$tmp/b-$1" && "$revrun" --root "$tmp/state" run "bench-$1" 2>/dev/null)
        ;;
    esac
}

sync
for b in bare native fuse; do
    [ "$b" = bare ] || bundle "$b"
    one_round "$b" >/dev/null # warm the page cache and the binaries
    for _ in $(seq "$rounds"); do one_round "$b"; done | sed "s/^/$b /" >>"$tmp/results"
done

python3 - "$tmp/results" "$files" "$rounds" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for b, phase, ns in rows:
    med.setdefault((b, phase), []).append(int(ns) / 1e6)
med = {k: statistics.median(v) for k, v in med.items()}
print(f"overlay I/O: {sys.argv[2]} files, median of {sys.argv[3]} rounds (ms; ratio to bare)")
print(f"{'phase':<8}{'bare':>10}{'native':>18}{'fuse':>18}")
for phase in ["find", "read", "status", "write"]:
    base = med[("bare", phase)]
    cells = [f"{base:10.1f}"]
    for b in ["native", "fuse"]:
        v = med[(b, phase)]
        cells.append(f"{v:10.1f} ({v / base:5.2f}x)")
    print(f"{phase:<8}" + "".join(cells))
print("fuse / native: " + ", ".join(
    f"{p} {med[('fuse', p)] / med[('native', p)]:.1f}x" for p in ["find", "read", "status", "write"]))
EOF
