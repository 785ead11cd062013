#!/usr/bin/env bats
# The runc verbs that change or report a container's state (pause/resume,
# update, state's fields, create --preserve-fds, delete of a missing
# container, the log, list -q, features, --version, help), driven directly
# against the CLI and judged from the host: the cgroup files, the process
# table, what the process inside reports. Where Debian's runc is
# installed, the same step gives the reference wording and exit status.

load runc_verbs_helpers

# ---- pause, resume ----

@test "pause/resume: the processes freeze (state paused) and thaw; runc's words for the wrong state" {
    make_bundle
    up f1-$X
    rr exec -d --pid-file "$RR_TMP/x.pid" f1-$X sleep 304
    x=$(cat "$RR_TMP/x.pid")
    KILL_PIDS+=("$x")
    rr pause f1-$X
    [ "$(state_field f1-$X '["status"]')" = paused ]
    # frozen: a signal does not end it until it thaws
    kill -TERM "$x"
    sleep 0.3
    kill -0 "$x"
    run rr pause f1-$X
    [ "$status" -eq 1 ]
    assert_output_contains "container already paused"
    run rr delete f1-$X
    [ "$status" -eq 1 ]
    assert_output_contains "not stopped: paused"
    rr resume f1-$X
    [ "$(state_field f1-$X '["status"]')" = running ]
    # thawed: the pending SIGTERM is delivered
    for _ in $(seq 50); do kill -0 "$x" 2>/dev/null || break; sleep 0.1; done
    assert_dead "$x"
    run rr resume f1-$X
    [ "$status" -eq 1 ]
    assert_output_contains "not paused"
}

# revrun as root with only the cgroup v2 hierarchy mounted (in a mount
# namespace of this command's own), as on a pure v2 host: on a hybrid host
# (v1 controllers, v2 holding none) this is how the v2 freezer is reached.
rr_v2() {
    unshare --mount --propagation private -- sh -c \
        'umount -R /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && exec "$@"' \
        sh "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

@test "pause/resume (cgroup v2): cgroup.freeze freezes every process (the kernel says frozen, a signal waits) and thaws; v1's freezer untouched" {
    hostv2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    [ -n "$hostv2" ] || skip "no cgroup v2 hierarchy on this host"
    # the limits as best effort: a hybrid host's v2 has no controller, and
    # cgroup.freeze is in every non-root v2 cgroup regardless
    make_bundle 'c["revrun"]["bestEffort"] = ["landlock", "memory", "pids", "cpu"]'
    (cd "$RR_TMP/bundle" && rr_v2 create f3-$X </dev/null >/dev/null 2>&1)
    rr_v2 start f3-$X
    cg=$(python3 -c "import json;print(json.load(open('$RR_ROOT/f3-$X/state.json'))['cgroup'])")
    agent=$(agent_pid f3-$X)
    # seen from the host: the container's processes are in that v2 cgroup
    grep -qx "$agent" "$hostv2$cg/cgroup.procs"
    grep -qx "frozen 0" "$hostv2$cg/cgroup.events"
    rr_v2 pause f3-$X
    [ "$(state_field f3-$X '["status"]')" = paused ]
    # the kernel's word: every task of the cgroup is frozen
    grep -qx "frozen 1" "$hostv2$cg/cgroup.events"
    # no v1 freezer cgroup was made for it
    ! find /sys/fs/cgroup/freezer -name "f3-$X" 2>/dev/null | grep -q . || false
    # a SIGTERM stays pending while frozen (SigPnd/ShdPnd bit 15): the task
    # wakes for it and goes back to the freezer's trap without taking it
    # (cgroup.events may read frozen 0 for that moment)
    kill -TERM "$agent"
    for _ in $(seq 100); do grep -qx "frozen 1" "$hostv2$cg/cgroup.events" && break; sleep 0.05; done
    grep -qx "frozen 1" "$hostv2$cg/cgroup.events"
    kill -0 "$agent"
    read -r shd sig <<<"$(awk '/^(ShdPnd|SigPnd):/ {printf "%s ", $2}' /proc/"$agent"/status)"
    [ $(( (0x$shd | 0x$sig) & 0x4000 )) != 0 ]
    run rr_v2 pause f3-$X
    [ "$status" -eq 1 ]
    assert_output_contains "container already paused"
    rr_v2 resume f3-$X
    [ "$(state_field f3-$X '["status"]')" = running ] || [ "$(state_field f3-$X '["status"]')" = stopped ]
    # thawed: the pending SIGTERM is delivered
    for _ in $(seq 50); do kill -0 "$agent" 2>/dev/null || break; sleep 0.1; done
    assert_dead "$agent"
    rr_v2 delete --force f3-$X
    [ ! -e "$hostv2$cg" ]
}

@test "pause: a paused container is destroyed whole (delete --force thaws, kills, removes every cgroup)" {
    make_bundle
    up f2-$X
    agent=$(agent_pid f2-$X)
    cg=$(python3 -c "import json;print(json.load(open('$RR_ROOT/f2-$X/state.json'))['cgroup'])")
    rr pause f2-$X
    rr delete --force f2-$X
    assert_dead "$agent"
    ! find /sys/fs/cgroup -name "f2-$X" 2>/dev/null | grep -q . || false
    # nor the freezer's scope pause made for this state root
    [ ! -e "/sys/fs/cgroup/freezer$(dirname "$cg")" ]
}

# ---- update ----

@test "update: flags and -r resources.json change the live cgroup; lifting a limit is refused" {
    make_bundle
    up u1-$X
    agent=$(agent_pid u1-$X)
    rr update --memory 1G --pids-limit 77 u1-$X
    cat >"$RR_TMP/res.json" <<'EOF'
{"cpu": {"quota": 50000, "period": 100000}, "pids": {"limit": 66}, "blockIO": {"weight": 10}}
EOF
    run rr update -r "$RR_TMP/res.json" u1-$X
    assert_success
    assert_output_contains "not applied"
    assert_output_contains "blockIO"
    # judged in the cgroup the process is in
    if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/$agent/cgroup)
        [ "$(cat $cg/pids.max)" = 66 ]
        [ "$(cat $cg/memory.max)" = 1073741824 ]
        [ "$(cat $cg/cpu.max)" = "50000 100000" ]
    else
        [ "$(cat /sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids://p' /proc/$agent/cgroup)/pids.max)" = 66 ]
        [ "$(cat /sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/$agent/cgroup)/memory.limit_in_bytes)" = 1073741824 ]
        [ "$(cat /sys/fs/cgroup/cpu$(sed -n 's/^[0-9]*:cpu\(,cpuacct\)\{0,1\}://p' /proc/$agent/cgroup)/cpu.cfs_quota_us)" = 50000 ]
    fi
    run rr update --pids-limit -1 u1-$X
    [ "$status" -eq 1 ]
    assert_output_contains "never be lifted"
}

# ---- state, delete, list, errors in the log ----

@test "state: rootfs, annotations and owner as a string, as runc gives them" {
    make_bundle 'c["annotations"] = {"io.example/team": "review", "k": "v\"q"}'
    (cd "$RR_TMP/bundle" && rr create s1-$X </dev/null >/dev/null)
    rr state s1-$X | python3 -c "
import json, sys
s = json.load(sys.stdin)
assert s['rootfs'] == '$RR_TMP/bundle/rootfs', s['rootfs']
assert s['annotations'] == {'io.example/team': 'review', 'k': 'v\"q'}, s['annotations']
assert isinstance(s['owner'], str) and s['owner'] == 'root', s['owner']
assert s['status'] == 'created'
"
    if command -v runc >/dev/null; then
        runc_bundle
        (cd "$RR_TMP/rb" && runc_ create rs1-$X </dev/null >/dev/null 2>&1)
        RUNC_IDS+=(rs1-$X)
        runc_ state rs1-$X | python3 -c "
import json, sys
s = json.load(sys.stdin)
assert isinstance(s['owner'], str) and s['rootfs'].endswith('/rootfs')"
    fi
}

# A kubelet stopping a container that was created and never started sends
# SIGTERM first: runc's ends at once; without a handler the kernel drops a
# signal from outside to pid 1 and the stop waited out the grace period.
@test "a created container (an engine's bundle) sent SIGTERM stops, as runc's; once started, pid 1 without a handler keeps running, as runc's" {
    local rt id
    runc_bundle
    RUNC_IDS+=(rt1-$X rt2-$X)
    for rt in rr runc_; do
        id=${rt%_}t1-$X
        [ "$rt" = runc_ ] && id=rt1-$X
        (cd "$RR_TMP/rb" && "$rt" create "$id" </dev/null >/dev/null 2>&1)
        "$rt" kill "$id" TERM
        for _ in $(seq 50); do
            "$rt" state "$id" | grep -q '"status": *"stopped"' && break
            sleep 0.1
        done
        echo "$rt created: $("$rt" state "$id")"
        "$rt" state "$id" | grep -q '"status": *"stopped"'
        "$rt" delete -f "$id"
        id=${id/t1/t2}
        (cd "$RR_TMP/rb" && "$rt" create "$id" </dev/null >/dev/null 2>&1)
        "$rt" start "$id"
        "$rt" kill "$id" TERM
        sleep 1
        echo "$rt started: $("$rt" state "$id")"
        "$rt" state "$id" | grep -q '"status": *"running"'
        "$rt" delete -f "$id"
    done
}

# create --preserve-fds N (podman's): the runc busybox bundle, the ids probe
# as the process; $1: revrun or runc_, $2: the id, $3: N; fd 3 is a file
# for writing, fd 4 a file for reading.
preserve_run() {
    (cd "$RR_TMP/rb" && exec 3>"$RR_TMP/fd3.$2" 4</etc/hostname &&
        "$1" create --preserve-fds "$3" "$2" </dev/null >"$RR_TMP/out.$2" 2>&1) || return 1
    "$1" start "$2"
    for _ in $(seq 100); do grep -q via-three "$RR_TMP/fd3.$2" && break; sleep 0.1; done
    cat "$RR_TMP/out.$2"
}

@test "create --preserve-fds N: fds 3..3+N-1 reach the process at their numbers, as runc passes them; a directory, an O_PATH fd or a gap is refused" {
    runc_bundle
    cp "$RR_BIN/ids" "$RR_TMP/rb/rootfs/ids"
    python3 - "$RR_TMP/rb/config.json" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["sh", "-c", "/ids; echo via-three >&3; cat <&4 >&3"]
json.dump(c, open(sys.argv[1], "w"))
EOF2
    run preserve_run rr pf1-$X 2
    echo "$output"
    assert_success
    [ "$(kv fds)" = 0,1,2,3,4 ]
    grep -q via-three "$RR_TMP/fd3.pf1-$X"
    grep -qx "$(cat /etc/hostname)" "$RR_TMP/fd3.pf1-$X"
    # without the flag, only 0-2
    run preserve_run rr pf2-$X 0
    assert_success
    [ "$(kv fds)" = 0,1,2 ]
    RUNC_IDS+=(rpf1-$X rpf2-$X)
    run preserve_run runc_ rpf1-$X 2
    echo "$output"
    assert_success
    [ "$(kv fds)" = 0,1,2,3,4 ]
    grep -q via-three "$RR_TMP/fd3.rpf1-$X"
    # what would reach past the container's root is refused (runc hands
    # it in), and nothing is left of the container (create's output goes to
    # a file: a container created by mistake would hold a pipe open)
    run bash -c "cd '$RR_TMP/rb' && exec 3</tmp && '$RR_BIN/revrun' --root '$RR_ROOT' create --preserve-fds 1 pf3-$X </dev/null >'$RR_TMP/pf.out' 2>&1; rc=\$?; cat '$RR_TMP/pf.out'; exit \$rc"
    echo "$output"
    assert_failure
    assert_output_contains "fd 3 is a directory"
    [ ! -e "$RR_ROOT/pf3-$X" ]
    python3 -c '
import os, sys
fd = os.open("/etc/hostname", os.O_PATH)
os.dup2(fd, 3)
os.chdir(sys.argv[1])
os.execv(sys.argv[2], [sys.argv[2], "--root", sys.argv[3], "create", "--preserve-fds", "1", sys.argv[4]])
' "$RR_TMP/rb" "$RR_BIN/revrun" "$RR_ROOT" pf4-$X </dev/null >"$RR_TMP/pf.out" 2>&1 && return 1
    run cat "$RR_TMP/pf.out"
    echo "$output"
    assert_output_contains "fd 3 is an O_PATH handle"
    [ ! -e "$RR_ROOT/pf4-$X" ]
    # a gap in the caller's fds is not filled with one of revrun's
    run bash -c "cd '$RR_TMP/rb' && exec 3</etc/hostname 4<&- && '$RR_BIN/revrun' --root '$RR_ROOT' --log '$RR_TMP/log' create --preserve-fds 2 pf5-$X </dev/null >'$RR_TMP/pf.out' 2>&1; rc=\$?; cat '$RR_TMP/pf.out'; exit \$rc"
    assert_failure
    assert_output_contains "fd 4 is not one the caller passed"
    # exec holds the same line
    make_bundle
    up pf6-$X
    run bash -c "exec 3</tmp; '$RR_BIN/revrun' --root '$RR_ROOT' exec --preserve-fds 1 pf6-$X $P/ids"
    [ "$status" -eq 255 ]
    assert_output_contains "fd 3 is a directory"
    # revrun's own bundles: the process gets 0-2 alone, said so
    run bash -c "cd '$RR_TMP/bundle' && exec 3</etc/hostname && '$RR_BIN/revrun' --root '$RR_ROOT' create --preserve-fds 1 pf7-$X </dev/null >'$RR_TMP/pf.out' 2>&1; rc=\$?; cat '$RR_TMP/pf.out'; exit \$rc"
    assert_failure
    assert_output_contains "only an engine's bundle"
}

@test "delete: a missing container says 'container does not exist' and exits 1 (0 with --force), as runc" {
    run rr delete nothere-$X
    [ "$status" -eq 1 ]
    assert_output_contains "container does not exist"
    run rr delete --force nothere-$X
    assert_success
    run rr state nothere-$X
    [ "$status" -eq 1 ]
    assert_output_contains "container does not exist"
    if command -v runc >/dev/null; then
        run runc_ delete nothere-$X
        [ "$status" -eq 1 ]
        assert_output_contains "container does not exist"
    fi
}

@test "log: usage errors and errors reach --log as runc's JSON lines, with one revrun: prefix on stderr" {
    run rr --log "$RR_TMP/log.json" --log-format json kill
    [ "$status" -eq 2 ]
    run rr --log "$RR_TMP/log.json" --log-format json delete nothere-$X
    [ "$status" -eq 1 ]
    [[ "$output" != *"revrun: revrun:"* ]]
    run rr --log "$RR_TMP/log.json" --log-format json frobnicate
    [[ "$output" != *"revrun: revrun:"* ]]
    run rr --log "$RR_TMP/log.json" --log-format json create --no-such-flag x
    python3 - "$RR_TMP/log.json" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 4, lines
for l in lines:
    assert set(l) == {"level", "msg", "time"}, l
    assert l["level"] == "error"
assert "kill" in lines[0]["msg"]
assert "container does not exist" in lines[1]["msg"]
assert "frobnicate" in lines[2]["msg"]
assert "--no-such-flag" in lines[3]["msg"]
EOF
}

@test "list -q and --format json; --version and features describe this build" {
    make_bundle
    (cd "$RR_TMP/bundle" && rr create l1-$X </dev/null >/dev/null)
    run rr list -q
    assert_success
    [ "$output" = l1-$X ]
    rr list --format json | python3 -c "
import json, sys
l = json.load(sys.stdin)
assert [c['id'] for c in l] == ['l1-$X'] and l[0]['status'] == 'created'"
    run rr --version
    assert_success
    [[ "${lines[0]}" == "revrun version "* ]]
    assert_output_contains "spec: 1."
    assert_output_contains "+SECCOMP"
    assert_output_contains "+LANDLOCK"
    rr features | python3 -c "
import json, sys
f = json.load(sys.stdin)
assert f['ociVersionMin'].startswith('1.')
assert 'user' in f['linux']['namespaces']
assert f['linux']['seccomp']['enabled'] is True
assert 'SCMP_ACT_ERRNO' in f['linux']['seccomp']['actions']
assert f['linux']['apparmor']['enabled'] is False"
}

@test "help: every command answers --help; the man page is roff of the same table" {
    for c in spec create start state kill delete destroy run exec ps pause resume update \
        features list check diff export apply writeback review sweep broker; do
        run rr "$c" --help
        assert_success
        [[ "${lines[0]}" == "usage: revrun $c"* ]] || {
            echo "$c: ${lines[0]}" >&2
            return 1
        }
    done
    run rr --man
    assert_success
    [[ "${lines[0]}" == .TH\ REVRUN\ 1* ]]
    assert_output_contains '.SS exec'
    assert_output_contains '\-\-preserve\-fds'
    if command -v man >/dev/null; then
        rr --man >"$RR_TMP/revrun.1"
        run man -l "$RR_TMP/revrun.1"
        assert_success
        assert_output_contains "EXIT STATUS"
        assert_output_contains "--preserve-fds"
    fi
}
