#!/bin/bash
# revrun diff beside the tools a user would reach for instead, on the same tree:
# a synthetic checkout of FILES files (default 100,000: 1,000 directories of
# 100), changed through a real overlay mount in 10, 1,000 and 10,000 files.
#
#   revrun diff --lower L --upper U   reads the upper and the lower paths it touches
#   git status --porcelain            stats the whole merged checkout against its index
#   diff -rq L MERGED                 walks and compares both whole trees
#
# The checkout is a git repository with ignore rules, so revrun's git-aware
# classification (each change judged against the merged view's .gitignore
# files and .git/info/exclude, libgit2) is in the timed path.
#
# Prints the median of RUNS runs of each, and how many times faster revrun
# is. The target: with 10 changes, at least 100x faster than git status.
#
# Measured on a 2-core shared host (ext4, root), 10 changes: ~4.4 ms (the
# median of fork+exec+wait from a C loop at load 0.1; /bin/true takes 1.1 ms
# there) against git status ~600 ms, ~135x; before the issue-17 speed-ups
# 4.6 ms (5.6 ms under load, 45-113x). Under load both vary 2-5x: compare
# builds with REVRUN_BEFORE. callgrind on the timed command: 3.27M
# instructions before, 1.69M after (valgrind hides the CPU's SHA extensions,
# so its SHA-256 rounds are the portable ones: ~0.33M more than a real run),
# 537 syscalls before, 496 after. Where the rest goes: exec, dynamic loading
# and exit (~1 ms); the embedded-repository rule listing each checkout
# directory that holds a change, here the top (1,000 names) and ten of 100
# names, ~1.3 ms of ext4 htree readdir that no equivalent rule can skip (a
# name git takes for HEAD has unboundedly many spellings, so only a listing
# proves none is there); ~35 syscalls per changed file and directory.
# Needs root (or runs itself in a user namespace with a userxattr mount).
#
# REVRUN_BEFORE=path/to/another/revrun adds that build's revrun diff and
# its ratio to git status, measured in the same rounds (before/after a
# change, under the same load).
#
#   bench/diffstage.sh [FILES] [RUNS]        REVRUN=path/to/revrun to pick a build
#   CHANGES="10" bench/diffstage.sh          only these change counts (default 10 1000 10000)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
REVRUN=${REVRUN:-$here/../revrun}
FILES=${1:-100000}
RUNS=${2:-5}
DIRS=$(((FILES + 99) / 100))

if [ "${BENCH_IN_NS:-}" != 1 ]; then
    export BENCH_IN_NS=1 REVRUN REVRUN_BEFORE CHANGES
    if [ "$(id -u)" = 0 ]; then
        exec unshare -m --propagation private -- "$0" "$@"
    fi
    exec unshare -Urm --propagation private -- "$0" "$@"
fi
if [ "$(awk '{print $3}' /proc/self/uid_map)" != 4294967295 ]; then # in a user namespace
    FORMAT=overlay-userxattr
    OPTS=userxattr,redirect_dir=nofollow,metacopy=off,index=off,volatile
else
    FORMAT=overlay
    OPTS=redirect_dir=nofollow,metacopy=off,index=off,volatile
fi

work=$(mktemp -d /tmp/revrun-bench.XXXXXX)
cleanup() {
    umount "$work/merged" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "making a checkout of $FILES files in $DIRS directories..." >&2
python3 - "$work/lower" "$FILES" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "pkg%04d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "file%03d.c" % (i % 100)), "w") as f:
        f.write("/* file %d */\nint f%d(void)\n{\n    return %d;\n}\n" % (i, i, i))
PY
printf '*.o\nbuild/\nnode_modules/\n__pycache__/\n' >"$work/lower/.gitignore"
printf '*.tmp\n' >"$work/lower/pkg0000/.gitignore"
git -C "$work/lower" init -q
printf '.cache/\n' >>"$work/lower/.git/info/exclude"
git -C "$work/lower" add -A
git -C "$work/lower" -c user.name=bench -c user.email=bench@localhost commit -qm base
sync # the 100,000 new files are written back now, not under the timings

# Median wall time of a command, in milliseconds.
median_ms() {
    local t=() s e
    for _ in $(seq "$RUNS"); do
        s=$EPOCHREALTIME
        "$@" >/dev/null 2>&1 || true
        e=$EPOCHREALTIME
        t+=("$(echo "($e - $s) * 1000" | bc -l)")
    done
    printf '%s\n' "${t[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.1f", (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

# The medians of two commands timed in alternation (A B A B ...), so that
# both see the same load and cache state: "A_ms B_ms".
median2_ms() {
    local a=() b=() s e
    for _ in $(seq "$RUNS"); do
        s=$EPOCHREALTIME; $1 >/dev/null 2>&1 || true; e=$EPOCHREALTIME
        a+=("$(echo "($e - $s) * 1000" | bc -l)")
        s=$EPOCHREALTIME; $2 >/dev/null 2>&1 || true; e=$EPOCHREALTIME
        b+=("$(echo "($e - $s) * 1000" | bc -l)")
    done
    med() { sort -g | awk '{a[NR]=$1} END {printf "%.1f", (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
    echo "$(printf '%s\n' "${a[@]}" | med) $(printf '%s\n' "${b[@]}" | med)"
}

ratio() {
    echo "$1 / $2" | bc -l | awk '{printf "%.0fx", $1}'
}

printf '%-8s %14s %14s %14s %12s %12s' changed "revrun diff" "git status" "diff -rq" \
    "vs git" "vs diff -rq"
[ -z "${REVRUN_BEFORE:-}" ] || printf ' %14s %12s' "diff, before" "before vs git"
printf '\n'
for n in ${CHANGES:-10 1000 10000}; do
    [ "$n" -le "$FILES" ] || continue
    rm -rf "$work/upper" "$work/work" "$work/merged"
    mkdir -p "$work/upper" "$work/work" "$work/merged"
    mount -t overlay overlay -o "lowerdir=$work/lower,upperdir=$work/upper,workdir=$work/work,$OPTS" \
        "$work/merged"
    # n changes spread over the tree, as a review touches files here and there
    python3 - "$work/merged" "$FILES" "$n" <<'PY'
import os, sys
root, total, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
step = max(1, total // n)
for k in range(n):
    i = (k * step) % total
    with open(os.path.join(root, "pkg%04d" % (i // 100), "file%03d.c" % (i % 100)), "a") as f:
        f.write("/* reviewed */\n")
PY
    sync
    if ! "$REVRUN" diff --lower "$work/lower" --upper "$work/upper" --format "$FORMAT" \
        | tail -2 | grep -q "verdict: accept"; then
        echo "revrun diff did not accept the benchmark's changes" >&2
        exit 1
    fi
    args="diff --lower $work/lower --upper $work/upper --format $FORMAT"
    if [ -n "${REVRUN_BEFORE:-}" ]; then
        read -r r b <<<"$(median2_ms "$REVRUN $args" "$REVRUN_BEFORE $args")"
    else
        r=$(median_ms "$REVRUN" diff --lower "$work/lower" --upper "$work/upper" --format "$FORMAT")
    fi
    # git status after revrun: refreshing its index writes .git/index into the
    # upper, which is the benchmark's doing, not the agent's.
    git -C "$work/merged" status --porcelain >/dev/null 2>&1 || true # warm: git at its best
    g=$(median_ms git -C "$work/merged" status --porcelain)
    d=$(median_ms diff -rq "$work/lower" "$work/merged")
    printf '%-8s %12sms %12sms %12sms %12s %12s' "$n" "$r" "$g" "$d" "$(ratio "$g" "$r")" \
        "$(ratio "$d" "$r")"
    if [ -n "${REVRUN_BEFORE:-}" ]; then
        printf ' %12sms %12s' "$b" "$(ratio "$g" "$b")"
    fi
    printf '\n'
    umount "$work/merged"
done
