#!/bin/bash
# Where a revrun command's start-up goes, beside /bin/true: the CPU time
# (perf stat task-clock, median of RUNS), the page faults, and the
# instructions executed in all and in the dynamic loader (callgrind: a
# count that stays the same however loaded the machine is), for
# `revrun --version` and for `revrun diff` of a 10-file change on a
# 1,000-file checkout (a git repository with ignore rules, so the
# git-aware classification runs).
#
# Each binary given is measured in turn, side by side (e.g. a build of main
# before the libraries went to dlopen, and this one):
#
#   bench/startup.sh [RUNS] [REVRUN...]      default: ../revrun
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RUNS=${1:-20}
shift || true
[ $# -gt 0 ] || set -- "$here/../revrun"

work=$(mktemp -d /tmp/revrun-bench-start.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work/lower" "$work/upper" <<'PY'
import os, sys
lower, upper = sys.argv[1], sys.argv[2]
for i in range(1000):
    d = "pkg%02d" % (i // 100)
    os.makedirs(os.path.join(lower, d), exist_ok=True)
    open(os.path.join(lower, d, "f%03d.c" % i), "w").write("int f%d;\n" % i)
    if i % 100 == 0:
        os.makedirs(os.path.join(upper, d), exist_ok=True)
        open(os.path.join(upper, d, "f%03d.c" % i), "w").write("int f%d; /* reviewed */\n" % i)
PY
printf '*.o\nbuild/\n' >"$work/lower/.gitignore"
git -C "$work/lower" init -q
git -C "$work/lower" add -A
git -C "$work/lower" -c user.name=bench -c user.email=bench@localhost commit -qm base

# perf stat's median task-clock (ms) and page faults of a command
cpu() {
    local t=() f=() out
    for _ in $(seq "$RUNS"); do
        out=$(perf stat -x, -e task-clock,page-faults "$@" 2>&1 >/dev/null | tail -2)
        t+=("$(echo "$out" | awk -F, '/task-clock/ {print $1}')")
        f+=("$(echo "$out" | awk -F, '/page-faults/ {print $1}')")
    done
    printf '%s %s' "$(printf '%s\n' "${t[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')" \
        "$(printf '%s\n' "${f[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
}

# callgrind's instructions in all, and in ld.so (relocation, loading)
instr() {
    local cg=$work/cg.out
    if ! command -v valgrind >/dev/null; then
        printf -- '- -'
        return
    fi
    valgrind --tool=callgrind --callgrind-out-file="$cg" "$@" >/dev/null 2>&1 || true
    callgrind_annotate "$cg" 2>/dev/null | awk '
        /PROGRAM TOTALS/ {gsub(",", "", $1); total=$1}
        /ld-linux/ {gsub(",", "", $1); ld+=$1}
        END {printf "%s %s", total, ld}'
    rm -f "$cg"
}

printf '%-44s %10s %8s %14s %14s\n' "command" "cpu ms" "faults" "instructions" "in ld.so"
row() {
    local label=$1
    shift
    read -r c f <<<"$(cpu "$@")"
    read -r i l <<<"$(instr "$@")"
    printf '%-44s %10s %8s %14s %14s\n' "$label" "$c" "$f" "$i" "$l"
}
row "/bin/true" /bin/true
for r in "$@"; do
    echo "$r: $(ldd "$r" | awk '{print $1}' | grep -v vdso | tr '\n' ' ')"
    row "  --version" "$r" --version
    row "  diff (10 changes, git rules)" "$r" diff --lower "$work/lower" --upper "$work/upper" \
        --format overlay
done
