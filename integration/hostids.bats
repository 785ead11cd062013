#!/usr/bin/env bats
# As root, each container is a host user of its own, taken from the policy's
# hostIds range (/etc/revrun/policy.json) and owning its user namespace, so
# per-user kernel limits are the container's own. Judged from the host: the
# Uid line of each container's processes, the records in /run/revrun-ids,
# what a probe gets of a per-user limit (fs.inotify.max_user_instances).
# THREAT_MODEL.md's row "Containers are different host users" names these.

load helpers

IDS=/run/revrun-ids

setup() {
    [ "$(id -u)" = 0 ] || skip "root mode: the host ids of revrun's range"
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/.probes" "$RR_TMP/etc"
    echo hello >"$RR_TMP/checkout/a.txt"
    cp "$RR_BIN/inotify_hog" "$RR_TMP/checkout/.probes/"
    chmod -R a+rX "$RR_TMP/checkout"
    TAG="revrun-hostids-$$-$RANDOM"
    # A range of this test's own, outside the default one (2000000000+65536)
    # and the engine's (2100000000+), so parallel runs never meet in it.
    BASE=$((2001000000 + RANDOM * 64))
    MADE_ETC=
    if [ ! -d /etc/revrun ]; then
        mkdir /etc/revrun
        MADE_ETC=1
    fi
    KILL_PIDS=()
    # Container IDs name cgroups host-wide: unique ones keep parallel runs apart.
    X="hi$RANDOM"
}

teardown() {
    local pid
    for pid in "${KILL_PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    pkill -9 -f "$TAG" 2>/dev/null || true
    rr_destroy_all
    [ -z "$MADE_ETC" ] || rmdir /etc/revrun 2>/dev/null || true
    rr_teardown_tmp
}

# The host policy this test sets: hostIds from $BASE, $1 ids.
policy() {
    printf '{"hostIds": {"first": %s, "count": %s}}\n' "$BASE" "$1" >"$RR_TMP/etc/policy.json"
}

# revrun as root under that policy: /etc/revrun bound over in a mount
# namespace of this command's own (the host's /etc/revrun is never touched).
rr() {
    unshare --mount --propagation private -- \
        sh -c 'mount --bind "$0" /etc/revrun && exec "$@"' "$RR_TMP/etc" \
        "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["args"] = sys.argv[2:]
json.dump(c, open(p, "w"), indent=2)
PY
}

# A create expected to be refused: its output to a file, not a pipe (a
# create that wrongly succeeds would leave a monitor holding bats' pipe).
try_create() {
    rr create "$1" </dev/null >"$RR_TMP/create.out" 2>&1 && status=0 || status=$?
    output=$(cat "$RR_TMP/create.out")
    echo "$output"
}

state_field() {
    python3 -c "import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
        "$RR_ROOT/$1/state.json" "$2"
}

# Uid line of a process, the four ids.
uids_of() {
    awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$1/status"
}

# The records of ids held for container $1 of this state root.
records_of() {
    grep -lx "container $1" "$IDS"/* 2>/dev/null | xargs -r grep -lx "root $RR_ROOT" || true
}

# Wait for a probe's line in $1 (bounded: the probe prints at once).
wait_line() {
    for _ in $(seq 300); do
        grep -q '^inotify=' "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    cat "$1"
    return 1
}

@test "as root: two containers at once are two host users; one taking every inotify instance it may leaves the other's, and root's" {
    policy 2
    rr run --lower "$RR_TMP/checkout" -- .probes/inotify_hog hold "$TAG-a" \
        >"$RR_TMP/a.out" 2>&1 </dev/null &
    KILL_PIDS+=($!)
    wait_line "$RR_TMP/a.out"
    rr run --lower "$RR_TMP/checkout" -- .probes/inotify_hog hold "$TAG-b" \
        >"$RR_TMP/b.out" 2>&1 </dev/null &
    KILL_PIDS+=($!)
    wait_line "$RR_TMP/b.out"
    a=$(pgrep -f "^\.probes/inotify_hog hold $TAG-a$")
    b=$(pgrep -f "^\.probes/inotify_hog hold $TAG-b$")
    # seen from the host: two different users, each an id of the range
    ua=$(uids_of "$a")
    ub=$(uids_of "$b")
    echo "a: $ua / b: $ub"
    [ "$ua" != "$ub" ]
    for u in ${ua%% *} ${ub%% *}; do
        [ "$u" -ge "$BASE" ] && [ "$u" -le $((BASE + 1)) ] || false
    done
    [ "$ua" = "${ua%% *} ${ua%% *} ${ua%% *} ${ua%% *}" ]
    [ "$(awk '/^Gid:/ {print $2}' "/proc/$a/status")" = "${ua%% *}" ]
    # the first took all it could and was refused (EMFILE: the per-user
    # limit, far below the agent's RLIMIT_NOFILE); the second, running at
    # the same time, got as many of its own
    cat "$RR_TMP/a.out" "$RR_TMP/b.out"
    na=$(sed -n 's/^inotify=\([0-9]*\) errno=EMFILE$/\1/p' "$RR_TMP/a.out")
    nb=$(sed -n 's/^inotify=\([0-9]*\) errno=EMFILE$/\1/p' "$RR_TMP/b.out")
    [ -n "$na" ] && [ "$na" -gt 0 ] || false
    [ "$nb" = "$na" ]
    [ "$na" -le "$(cat /proc/sys/fs/inotify/max_user_instances)" ]
    # root's own budget is not the containers' to spend
    run "$RR_BIN/inotify_hog"
    [[ "$output" =~ ^inotify=([0-9]+) ]]
    [ "${BASH_REMATCH[1]}" -gt 0 ]
    # both ids are on record while the containers live
    [ -e "$IDS/${ua%% *}" ] && [ -e "$IDS/${ub%% *}" ] || false
    kill -9 "$a" "$b"
    wait
    KILL_PIDS=()
    # the runs are over: their ids are free again
    [ ! -e "$IDS/${ua%% *}" ] && [ ! -e "$IDS/${ub%% *}" ] || false
    [ -z "$(ls -A "$RR_ROOT")" ]
}

@test "as root: eight creates at once over a range of five: five containers with five different ids, three clear refusals that leave nothing" {
    policy 5
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    local pids=() i
    for i in 1 2 3 4 5 6 7 8; do
        rr create "${X}c$i" </dev/null >"$RR_TMP/c$i.out" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || true; done
    made=() refused=0
    for i in 1 2 3 4 5 6 7 8; do
        if [ -e "$RR_ROOT/${X}c$i/state.json" ]; then
            made+=("$(uids_of "$(state_field "${X}c$i" pid)")")
        else
            grep -q "no free host id: all 5 ids of the hostIds range $BASE-$((BASE + 4))" "$RR_TMP/c$i.out"
            [ ! -e "$RR_ROOT/${X}c$i" ]
            refused=$((refused + 1))
        fi
    done
    printf '%s\n' "${made[@]}"
    [ "${#made[@]}" = 5 ] && [ "$refused" = 3 ] || false
    # five different users, each of the range, uid = gid = every id
    [ "$(printf '%s\n' "${made[@]}" | sort -u | wc -l)" = 5 ]
    for u in "${made[@]}"; do
        set -- $u
        [ "$1" -ge "$BASE" ] && [ "$1" -le $((BASE + 4)) ] && [ "$u" = "$1 $1 $1 $1" ] || false
    done
    [ "$(ls "$IDS" | awk -v b="$BASE" '$1 >= b && $1 <= b + 4' | wc -l)" = 5 ]
}

@test "as root: a range of one id holds one container; the next create is refused clearly and leaves nothing, and gets the id once the first is destroyed" {
    policy 1
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    rr create ${X}h1 </dev/null
    [ "$(uids_of "$(state_field ${X}h1 pid)")" = "$BASE $BASE $BASE $BASE" ]
    [ "$(records_of ${X}h1)" = "$IDS/$BASE" ]
    # check says so before a create does
    run rr check
    assert_failure
    assert_output_contains "all 1 ids of the range $BASE-$BASE are held: the next create is refused"
    try_create ${X}h2
    assert_failure
    assert_output_contains "no free host id: all 1 ids of the hostIds range $BASE-$BASE are held by containers"
    assert_output_contains "revrun sweep"
    # nothing of the second: no state, no record, no cgroup
    [ ! -e "$RR_ROOT/${X}h2" ]
    [ -z "$(records_of ${X}h2)" ]
    [ -z "$(find /sys/fs/cgroup -type d -name ${X}h2 -path '*revrun*' 2>/dev/null)" ]
    rr destroy --force ${X}h1
    [ -z "$(records_of ${X}h1)" ]
    [ ! -e "$IDS/$BASE" ]
    rr create ${X}h2 </dev/null
    [ "$(uids_of "$(state_field ${X}h2 pid)")" = "$BASE $BASE $BASE $BASE" ]
    rr destroy --force ${X}h2
    [ ! -e "$IDS/$BASE" ]
}

@test "as root: kill -9 of the monitor keeps the id until sweep, which reclaims it; so does sweep once a crashed destroy's state root is gone" {
    policy 1
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    rr create ${X}k1 </dev/null
    init=$(state_field ${X}k1 pid)
    monitor=$(state_field ${X}k1 monitorPid)
    kill -9 "$monitor"
    for _ in $(seq 50); do kill -0 "$init" 2>/dev/null || break; sleep 0.1; done
    assert_dead "$init"
    # the state is still there: the id is still the dead container's
    try_create ${X}k2
    assert_failure
    assert_output_contains "no free host id"
    run rr sweep
    assert_success
    assert_output_contains "swept ${X}k1: its monitor is gone"
    [ ! -e "$IDS/$BASE" ]
    rr create ${X}k2 </dev/null
    [ "$(uids_of "$(state_field ${X}k2 pid)")" = "$BASE $BASE $BASE $BASE" ]
    # a destroy killed after the processes and the cgroup went, then its
    # state root removed by hand: sweep, from any state root, gives the id
    # back
    REVRUN_CRASH_AT=destroy:cgroup rr destroy --force ${X}k2 || true
    [ -e "$IDS/$BASE" ]
    rm -rf "$RR_ROOT"
    run "$RR_BIN/revrun" --root "$RR_TMP/other" sweep
    assert_success
    assert_output_contains "released host id $BASE of ${X}k2 (state root $RR_ROOT): its state is gone"
    [ ! -e "$IDS/$BASE" ]
    [ -z "$(find /sys/fs/cgroup -type d -name "$X*" -path '*revrun*' 2>/dev/null)" ]
}

@test "as root: a mapping into the range claims exactly that id, refused while another container holds it" {
    policy 4
    make_bundle sleep 1000
    python3 - "$RR_TMP/bundle/config.json" "$((BASE + 2))" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
for k in ("uidMappings", "gidMappings"):
    c["linux"][k] = [{"containerID": 1000, "hostID": int(sys.argv[2]), "size": 1}]
json.dump(c, open(p, "w"), indent=2)
PY
    cd "$RR_TMP/bundle"
    rr create ${X}e1 </dev/null
    [ "$(uids_of "$(state_field ${X}e1 pid)")" = "$((BASE + 2)) $((BASE + 2)) $((BASE + 2)) $((BASE + 2))" ]
    try_create ${X}e2
    assert_failure
    assert_output_contains "host id $((BASE + 2)) (linux.uidMappings/gidMappings) is held by container ${X}e1 of state root $RR_ROOT"
    [ ! -e "$RR_ROOT/${X}e2" ]
    rr destroy --force ${X}e1
    [ ! -e "$IDS/$((BASE + 2))" ]
}
