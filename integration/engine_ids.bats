#!/usr/bin/env bats
# Engine containers' host ids (review2 F5): each engine container gets a
# block of host ids of its own from the policy's engineIds, and its user
# namespace is owned by its root's host uid, not by host root, so a
# container that spends a per-user kernel budget (inotify instances,
# fs.inotify.max_user_instances) spends its own: not root's (systemd,
# containerd, kubelet) and not another container's. Judged from the host:
# the processes' host uids, what a host inotify_init gets, the id records.

load helpers

IDS=/run/revrun-ids

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-engids.XXXXXX)
    chmod 0755 "$ENG_DIR"
    cp "$REVRUN" "$ENG_DIR/revrun"
    chmod 0755 "$ENG_DIR/revrun"
    "$BATS_TEST_DIRNAME/engines/mkimage.sh" "$ENG_DIR/img" >/dev/null
    cp "$REVRUN_PROBES/inotify_hog" "$ENG_DIR/img/rootfs/bin/"
}

teardown_file() {
    rm -rf "$ENG_DIR"
}

setup() {
    [ "$(id -u)" = 0 ] || skip "engine mode runs as root"
    RT=$ENG_DIR/revrun
    B=$(mktemp -d /tmp/revrun-engids-b.XXXXXX)
    chmod 0755 "$B"
    ROOT=$B/state
}

teardown() {
    for c in c1 c2; do
        "$RT" --root "$ROOT" delete --force "$c" >/dev/null 2>&1 || true
    done
    # a container whose state root was in a mount namespace now gone
    if [ -n "${P_ELSEWHERE:-}" ]; then
        kill -9 "$P_ELSEWHERE" 2>/dev/null || true
        wait_gone "$P_ELSEWHERE" || true
        find /sys/fs/cgroup -depth -type d -name "rrengids-$$-c1" -exec rmdir {} \; 2>/dev/null || true
        "$RT" --root "$ROOT" sweep >/dev/null 2>&1 || true
    fi
    grep -F " $B" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$B"
}

# bundle DIR PYTHON...: containerd's config, the image as root
bundle() {
    local dir=$1
    shift
    mkdir -p "$dir"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$dir" \
        "$ENG_DIR/img/rootfs" "rrengids-$$-$(basename "$dir")" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["/bin/inotify_hog", "hold"]
c["linux"]["cgroupsPath"] = "/" + sys.argv[4]
for stmt in sys.argv[5:]:
    exec(stmt)
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
}

# start_hog NAME: create and start NAME (bundle $B/NAME), wait for its line
start_hog() {
    "$RT" --root "$ROOT" create --bundle "$B/$1" "$1" </dev/null >"$B/$1.out" 2>&1 || {
        cat "$B/$1.out"
        return 1
    }
    "$RT" --root "$ROOT" start "$1"
    for _ in $(seq 300); do
        grep -q '^inotify=' "$B/$1.out" && return 0
        sleep 0.1
    done
    cat "$B/$1.out"
    return 1
}

pid_of() { "$RT" --root "$ROOT" state "$1" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'; }
host_uid() { awk '/^Uid:/ {print $2}' "/proc/$1/status"; }
# the id records naming container $1 of this state root
records() {
    grep -lx "container $1" "$IDS"/* 2>/dev/null | xargs -r grep -lx "root $(realpath "$ROOT")" ||
        true
}

@test "engine mode: two containers at once have host root uids of their own; one taking every inotify instance leaves root's and the other's" {
    bundle "$B/c1"
    bundle "$B/c2"
    start_hog c1
    start_hog c2
    p1=$(pid_of c1)
    p2=$(pid_of c2)
    u1=$(host_uid "$p1")
    u2=$(host_uid "$p2")
    echo "c1: pid $p1 uid $u1 / c2: pid $p2 uid $u2"
    cat "$B/c1.out" "$B/c2.out"
    # two blocks of 65536 of the engine range (the default engineIds)
    [ "$u1" != "$u2" ]
    for u in $u1 $u2; do
        [ "$u" -ge 2100000000 ] && [ $(((u - 2100000000) % 65536)) = 0 ] || false
    done
    grep -q "^ *0 *$u1 *65536$" "/proc/$p1/uid_map"
    grep -q "^ *0 *$u2 *65536$" "/proc/$p2/uid_map"
    # each took all it could of its own budget (EMFILE), the same count
    n1=$(sed -n 's/^inotify=\([0-9]*\) errno=EMFILE$/\1/p' "$B/c1.out")
    n2=$(sed -n 's/^inotify=\([0-9]*\) errno=EMFILE$/\1/p' "$B/c2.out")
    [ -n "$n1" ] && [ "$n1" -gt 0 ] && [ "$n2" = "$n1" ] || false
    # and root's is still root's
    run "$REVRUN_PROBES/inotify_hog"
    echo "host root: $output"
    [[ "$output" =~ ^inotify=([0-9]+) ]]
    [ "${BASH_REMATCH[1]}" -gt 0 ]
    # each block on record while its container lives, released at delete
    [ -e "$IDS/$u1" ] && [ -e "$IDS/$u2" ] || false
    [ -n "$(records c1)" ] && [ -n "$(records c2)" ] || false
    "$RT" --root "$ROOT" delete --force c1
    "$RT" --root "$ROOT" delete --force c2
    [ -z "$(records c1)" ] && [ -z "$(records c2)" ] || false
}

@test "engine mode: a block whose container's state is gone comes back at sweep; a refused create leaves none" {
    bundle "$B/c1"
    start_hog c1
    u1=$(host_uid "$(pid_of c1)")
    [ -n "$(records c1)" ]
    # the container gone without a delete (its engine's state lost)
    kill -9 "$(pid_of c1)"
    for _ in $(seq 100); do [ -d "/proc/$(pid_of c1)" ] || break; sleep 0.1; done
    umount -l "$ROOT/c1/root-store" # the image's private upper, gone with its state
    rm -rf "$ROOT/c1"
    find /sys/fs/cgroup -depth -type d -name "rrengids-$$-c1" -exec rmdir {} \; 2>/dev/null || true
    "$RT" --root "$ROOT" sweep
    [ -z "$(records c1)" ]
    # a create refused after its block was taken gives it back
    bundle "$B/c2" 'c["process"]["args"] = ["/bin/nonexistent"]' 'c["root"]["path"] = "/nonexistent"'
    run "$RT" --root "$ROOT" create --bundle "$B/c2" c2 </dev/null
    [ "$status" -ne 0 ]
    [ -z "$(records c2)" ]
}

# policy_dir DIR: an overlay's upper holding revrun/policy.json = $POLICY
# (empty when POLICY is unset), and its workdir
policy_dir() {
    mkdir -p "$1/u/revrun" "$1/w"
    printf '%s' "${POLICY:-}" >"$1/u/revrun/policy.json"
}

# with_policy CMD...: CMD sees /etc/revrun/policy.json holding $POLICY (an
# overlay over /etc in a mount namespace of its own: the host's /etc is
# never written)
with_policy() {
    policy_dir "$B/pol"
    unshare --mount --propagation private -- sh -c \
        'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/u,workdir=$1/w" /etc || exit 99
         shift; exec "$@"' sh "$B/pol" "$@"
}

# create_elsewhere NAME: create and start NAME with its state root on a
# tmpfs that only a mount namespace of its own sees, gone once they ran;
# P_ELSEWHERE: its process (from the state it printed there).
create_elsewhere() {
    mkdir -p "$B/ns-$1"
    policy_dir "$B/pol-$1"
    unshare -m --propagation private sh -c '
        mount -t tmpfs -o mode=0700 rrengids "$1" &&
        { [ ! -s "$5/u/revrun/policy.json" ] ||
            mount -t overlay overlay -o "lowerdir=/etc,upperdir=$5/u,workdir=$5/w" /etc; } &&
        "$2" --root "$1/state" create --bundle "$3/$4" "$4" </dev/null >"$3/$4.out" 2>&1 &&
        "$2" --root "$1/state" start "$4" &&
        "$2" --root "$1/state" state "$4" >"$3/$4.state"' sh "$B/ns-$1" "$RT" "$B" "$1" \
        "$B/pol-$1" || {
        cat "$B/$1.out"
        return 1
    }
    P_ELSEWHERE=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$B/$1.state")
    for _ in $(seq 300); do
        grep -q '^inotify=' "$B/$1.out" && return 0
        sleep 0.1
    done
    cat "$B/$1.out"
    return 1
}

# wait_gone PID: until PID has exited (gone, or a zombie: its namespace's
# other processes are gone then too)
wait_gone() {
    for _ in $(seq 600); do
        [ -r "/proc/$1/stat" ] || return 0
        [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0
        sleep 0.1
    done
    return 1
}

# sweep_elsewhere: revrun sweep from a mount namespace of its own
sweep_elsewhere() {
    mkdir -p "$B/ns-sweep"
    run unshare -m --propagation private "$RT" --root "$B/ns-sweep/state" sweep
    echo "sweep: $output"
    [ "$status" -eq 0 ]
}

@test "engine mode: a live container's block is held wherever its state root is visible: a sweep from another mount namespace keeps it, the next container gets its own, and it is freed once its process is gone" {
    bundle "$B/c1"
    bundle "$B/c2"
    create_elsewhere c1
    u1=$(host_uid "$P_ELSEWHERE")
    echo "c1: pid $P_ELSEWHERE uid $u1"
    # its state is seen nowhere but in its own (gone) namespace
    [ -z "$(ls -A "$B/ns-c1")" ]
    [ -e "$IDS/$u1" ]
    sweep_elsewhere
    [[ "$output" != *"released host id $u1 "* ]]
    [ -e "$IDS/$u1" ]
    [ -n "$(grep -l "^init $P_ELSEWHERE " "$IDS/$u1")" ]
    # from another pid namespace too, where its pid names nothing: kept, said
    run unshare -m -p -f --mount-proc --propagation private "$RT" --root "$B/ns-sweep/state" sweep
    echo "sweep (pid namespace): $output"
    [ "$status" -eq 0 ]
    assert_output_contains "kept host id $u1 of c1"
    [ -e "$IDS/$u1" ]
    # a container of this namespace, after that sweep: a block of its own
    start_hog c2
    u2=$(host_uid "$(pid_of c2)")
    echo "c2: uid $u2"
    [ "$u1" != "$u2" ]
    [ "$(host_uid "$P_ELSEWHERE")" = "$u1" ]
    # c1's process gone, no delete (its engine crashed): the next sweep frees it
    kill -9 "$P_ELSEWHERE"
    wait_gone "$P_ELSEWHERE"
    sweep_elsewhere
    assert_output_contains "released host id $u1 of c1"
    [ ! -e "$IDS/$u1" ] || [ -z "$(grep -x "container c1" "$IDS/$u1")" ]
}

# create c2 under $POLICY (its output in a file: the container holds it)
create_c2() {
    local rc=0
    with_policy "$RT" --root "$ROOT" create --bundle "$B/c2" c2 </dev/null >"$B/c2.out" 2>&1 || rc=$?
    cat "$B/c2.out"
    return $rc
}

@test "engine mode: a create finding the range full never frees a live container's block, whatever namespace its state is in; once its process is gone it does" {
    # a range of one block, apart from every other test's
    POLICY='{"engineIds": {"first": 2200000000, "count": 65536}}'
    bundle "$B/c1"
    bundle "$B/c2"
    create_elsewhere c1
    [ "$(host_uid "$P_ELSEWHERE")" = 2200000000 ]
    run create_c2
    echo "c2: $status $output"
    [ "$status" -ne 0 ]
    assert_output_contains "no free host id block"
    [ "$(host_uid "$P_ELSEWHERE")" = 2200000000 ]
    grep -qx "container c1" "$IDS/2200000000"
    # c1's process gone (its engine crashed): the full range gives it back
    kill -9 "$P_ELSEWHERE"
    wait_gone "$P_ELSEWHERE"
    run create_c2
    echo "c2: $status $output"
    [ "$status" -eq 0 ]
    grep -qx "container c2" "$IDS/2200000000"
    "$RT" --root "$ROOT" delete --force c2
}
