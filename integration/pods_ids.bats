#!/usr/bin/env bats
# One user namespace per pod, one id block per pod, held while any of its
# containers lives. A pod as containerd makes it, driven here by revrun's
# own create/start/delete: the first container gets a user namespace and a
# block of engineIds; a later one names the first's /proc/PID/ns/{ipc,uts,
# net} in linux.namespaces and joins its user namespace and block. The
# block must outlive the first container while a later one lives (else
# sweep, or a create finding the range full, hands the same host ids to a
# stranger), go with the last, and a join onto a block revrun no longer
# holds is refused. Judged from the host: the processes' host uids, the
# records in /run/revrun-ids.

load helpers

IDS=/run/revrun-ids

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-podids.XXXXXX)
    chmod 0755 "$ENG_DIR"
    cp "$REVRUN" "$ENG_DIR/revrun"
    chmod 0755 "$ENG_DIR/revrun"
    "$BATS_TEST_DIRNAME/engines/mkimage.sh" "$ENG_DIR/img" >/dev/null
}

teardown_file() {
    rm -rf "$ENG_DIR"
}

setup() {
    [ "$(id -u)" = 0 ] || skip "engine mode runs as root"
    RT=$ENG_DIR/revrun
    B=$(mktemp -d /tmp/revrun-podids-b.XXXXXX)
    chmod 0755 "$B"
    ROOT=$B/state
    PIDS=()
}

teardown() {
    local c p
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    for c in c1 c2 c3; do
        "$RT" --root "$ROOT" delete --force "$c" >/dev/null 2>&1 || true
    done
    "$RT" --root "$ROOT" sweep >/dev/null 2>&1 || true
    find /sys/fs/cgroup -depth -type d -name "rrpodids-$$-*" -exec rmdir {} \; 2>/dev/null || true
    grep -F " $B" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$B"
}

# pod NAME [NS=PATH...]: containerd's config, a sleep, the namespaces given
# by path as a pod's later container names its first's; created, started.
pod() {
    local id=$1 d=$B/$1
    shift
    mkdir -p "$d"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$d" \
        "$ENG_DIR/img/rootfs" "rrpodids-$$-$id" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sleep", "1000"]
c["linux"]["cgroupsPath"] = "/" + sys.argv[4]
ns = {n["type"]: n for n in c["linux"]["namespaces"]}
for kv in sys.argv[5:]:
    k, v = kv.split("=", 1)
    ns[k] = {"type": k, "path": v}
c["linux"]["namespaces"] = list(ns.values())
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$ROOT" create --bundle "$d" "$id" </dev/null || return 1
    "$RT" --root "$ROOT" start "$id"
    PIDS+=("$(pid_of "$id")")
}

# a later container of c1's pod
joiner() {
    local p1
    p1=$(pid_of c1)
    pod "$1" "ipc=/proc/$p1/ns/ipc" "uts=/proc/$p1/ns/uts" "network=/proc/$p1/ns/net"
}

pid_of() { "$RT" --root "$ROOT" state "$1" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'; }
host_uid() { awk '/^Uid:/ {print $2}' "/proc/$1/status"; }
gone() {
    for _ in $(seq 100); do
        [ -d "/proc/$1" ] || return 0
        sleep 0.05
    done
    return 1
}

@test "pod ids: the first container deleted while a later one lives keeps the pod's block at sweep; a new container gets other ids; the last delete frees it" {
    local u p1 p2 p3
    pod c1
    joiner c2
    p1=$(pid_of c1)
    p2=$(pid_of c2)
    u=$(host_uid "$p1")
    echo "c1 $p1 uid $u / c2 $p2 uid $(host_uid "$p2")"
    # one user namespace, one block
    [ "$(readlink "/proc/$p2/ns/user")" = "$(readlink "/proc/$p1/ns/user")" ]
    [ "$(host_uid "$p2")" = "$u" ]
    [ -e "$IDS/$u" ]
    # the first is deleted while c2 lives
    "$RT" --root "$ROOT" delete --force c1
    gone "$p1"
    [ -e "$IDS/$u" ]
    run "$RT" --root "$ROOT" sweep
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" != *"released host id $u "* ]]
    [ -e "$IDS/$u" ]
    # a new container: ids of its own, not the pod's
    pod c3
    p3=$(pid_of c3)
    echo "c3 $p3 uid $(host_uid "$p3")"
    [ "$(host_uid "$p3")" != "$u" ]
    [ "$(host_uid "$p2")" = "$u" ]
    # the last of the pod deleted: the block goes, no claim left
    "$RT" --root "$ROOT" delete --force c2
    [ ! -e "$IDS/$u" ]
    run ls "$IDS"
    echo "$output"
    [[ "$output" != *"$u."* ]]
}

@test "pod ids: after a crash (every process killed, state left) sweep keeps the block while a holder lives and frees it once none does" {
    local u p1 p2
    pod c1
    joiner c2
    p1=$(pid_of c1)
    p2=$(pid_of c2)
    u=$(host_uid "$p1")
    kill -9 "$p1"
    gone "$p1"
    run "$RT" --root "$ROOT" sweep
    echo "$output"
    [ -e "$IDS/$u" ]
    [ "$(host_uid "$p2")" = "$u" ]
    kill -9 "$p2"
    gone "$p2"
    [ -d "$ROOT/c2" ]
    run "$RT" --root "$ROOT" sweep
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"released host id $u "* ]]
    [ ! -e "$IDS/$u" ]
    run ls "$IDS"
    [[ "$output" != *"$u."* ]]
}

@test "pod ids: a later container joining a pod whose block has no record is refused, naming why, and leaves nothing" {
    local u p1
    pod c1
    p1=$(pid_of c1)
    u=$(host_uid "$p1")
    [ -e "$IDS/$u" ]
    rm "$IDS/$u"
    run joiner c2
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"the pod's host id block $u-$((u + 65535)) has no record"* ]]
    [ ! -e "$ROOT/c2" ]
    run ls "$IDS"
    [[ "$output" != *"$u.c2"* ]]
}
