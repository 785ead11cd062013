#!/bin/bash
# Load: N bundles back to back, then N in parallel (P at a time), each a full
# `revrun run` lifecycle (create, start, wait, destroy) of a command that
# touches the checkout. Prints throughput for both, then what the load left
# behind: mounts, processes, cgroups and state directories, all of which
# must be zero. A benchmark, not a test: it prints figures and always exits 0
# unless it cannot run at all.
#
#   sudo bench/load.sh [N (default 50)] [P (default 8)] [time budget s (default 300)]
set -u
cd "$(dirname "$0")/.."
N=${1:-50}
P=${2:-8}
BUDGET=${3:-300}
REVRUN=$PWD/revrun
[ -x "$REVRUN" ] || { echo "build revrun first (make)"; exit 1; }

work=$(mktemp -d /tmp/revrun-load.XXXXXX)
root=$work/state
mkdir -p "$work/checkout"
for i in $(seq 100); do echo "file $i" >"$work/checkout/f$i.txt"; done
trap 'rm -rf "$work"' EXIT

mounts_before=$(wc -l </proc/self/mountinfo)
cg_before=$(find /sys/fs/cgroup -type d -path '*revrun*' 2>/dev/null | wc -l)
deadline=$((SECONDS + BUDGET))

one() {
    "$REVRUN" --root "$root" run --id "load-$1" --lower "$work/checkout" -- \
        sh -c 'echo x >> f1.txt; rm f2.txt; ls >/dev/null' >/dev/null 2>&1
}

start=$(date +%s.%N)
done_seq=0
for i in $(seq "$N"); do
    [ $SECONDS -lt $deadline ] || break
    one "s$i" && done_seq=$((done_seq + 1))
done
mid=$(date +%s.%N)

done_par=0
running=0
for i in $(seq "$N"); do
    [ $SECONDS -lt $deadline ] || break
    one "p$i" &
    running=$((running + 1))
    if [ "$running" -ge "$P" ]; then
        wait -n && done_par=$((done_par + 1))
        running=$((running - 1))
    fi
done
while [ "$running" -gt 0 ]; do
    wait -n && done_par=$((done_par + 1))
    running=$((running - 1))
done
end=$(date +%s.%N)

awk -v n="$done_seq" -v a="$start" -v b="$mid" 'BEGIN {
    s = b - a; printf "back to back: %d runs in %.2f s  -> %.1f runs/s (%.1f ms each)\n", n, s, n / s, 1000 * s / n }'
awk -v n="$done_par" -v p="$P" -v a="$mid" -v b="$end" 'BEGIN {
    s = b - a; printf "parallel x%d: %d runs in %.2f s  -> %.1f runs/s\n", p, n, s, n / s }'

sleep 0.5
leaked_mounts=$(( $(wc -l </proc/self/mountinfo) - mounts_before ))
leaked_procs=$(pgrep -f "revrun --root $root" | wc -l)
leaked_cg=$(( $(find /sys/fs/cgroup -type d -path '*revrun*' 2>/dev/null | wc -l) - cg_before ))
leaked_state=$(find "$root" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
echo "leaked afterwards: mounts $leaked_mounts, processes $leaked_procs, cgroups $leaked_cg, state directories $leaked_state"
