#!/usr/bin/env bats
# Ephemeral by construction: whatever happens (a kill -9 at any phase, a full
# disk, two jobs at once), nothing is leaked and nothing is lost. Judged from
# the host: the process table, the mount table, the cgroup hierarchies and
# the state root are back to what they were.

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout"
    echo "hello" >"$RR_TMP/checkout/a.txt"
    chmod -R a+rX "$RR_TMP/checkout"
    MOUNTS_BEFORE=$(mount_points)
    CGROUPS_BEFORE=$(cgroup_dirs)
}

teardown() {
    rr_destroy_all
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# Every cgroup directory revrun could have made, in every hierarchy.
cgroup_dirs() {
    find /sys/fs/cgroup -type d -path '*revrun*' 2>/dev/null | sort
}

make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
if len(sys.argv) > 2:
    c["process"]["args"] = sys.argv[2:]
json.dump(c, open(p, "w"), indent=2)
PY
}

# The host is as it was: no revrun process, no mount, no cgroup, no state.
assert_clean() {
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ] || { ls -la "$RR_ROOT"; return 1; }
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ] || { echo "mounts differ"; return 1; }
    [ "$(cgroup_dirs)" = "$CGROUPS_BEFORE" ] || { echo "cgroups differ"; cgroup_dirs; return 1; }
    ! pgrep -f "revrun --root $RR_ROOT" >/dev/null || { pgrep -af "revrun --root $RR_ROOT"; return 1; } || false
    # no monitor, nor a pid 1 (it keeps the monitor's name: it never execs)
    [ -z "$(live_procs revrun-monitor)" ] || { echo "monitors left: $(live_procs revrun-monitor)"; return 1; }
    # no host id still held for a container of this state root (hostids.bats)
    ! grep -lsx "root $RR_ROOT" /run/revrun-ids/* || { echo "host ids held"; return 1; } || false
}

@test "kill -9 at each phase of create, start, diff, export and destroy, then sweep: nothing left" {
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    for phase in create:state-dir create:host-id create:cgroup create:monitor create:ready \
        create:recorded; do
        REVRUN_CRASH_AT=$phase rr create c1 </dev/null >/dev/null 2>&1 || true
        # whatever the creator left, sweep (a healthy c1 after
        # create:recorded is destroyed instead: it is not stale)
        rr sweep
        rr destroy --force c1
        assert_clean
    done
    rr create c2 </dev/null >/dev/null 2>&1
    REVRUN_CRASH_AT=start:fifo rr start c2 || true
    rr destroy --force c2
    assert_clean
    rr run --keep --id c4 --lower "$RR_TMP/checkout" -- sh -c 'echo x > new.txt'
    REVRUN_CRASH_AT=diff:opened rr diff c4 || true
    REVRUN_CRASH_AT=export:blobs rr export c4 "$RR_TMP/export" || true
    rr destroy c4
    rm -rf "$RR_TMP/export"
    assert_clean
    for phase in destroy:stopped destroy:cgroup; do
        rr create c3 </dev/null >/dev/null 2>&1
        REVRUN_CRASH_AT=$phase rr destroy --force c3 || true
        run rr sweep
        assert_success
        assert_clean
    done
}

@test "kill -9 of the monitor takes the container with it; sweep cleans the rest" {
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    rr create m1 </dev/null >/dev/null 2>&1
    rr start m1
    pid=$(python3 -c "import json;print(json.load(open('$RR_ROOT/m1/state.json'))['pid'])")
    monitor=$(python3 -c "import json;print(json.load(open('$RR_ROOT/m1/state.json'))['monitorPid'])")
    kill -9 "$monitor"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    assert_dead "$pid"
    run rr sweep
    assert_success
    assert_output_contains "swept m1: its monitor is gone"
    assert_clean
}

# revrun inside a container whose pid 1 does not reap (or a slow init): after
# kill -9 of a running review, its monitor is a zombie nobody has reaped yet.
# A zombie is gone: sweep, right away, cleans the container.
@test "sweep treats a zombie monitor as gone: kill -9 of a review under a non-reaping parent" {
    mkdir -p "$RR_TMP/rout"
    run python3 - "$RR_BIN/revrun" "$RR_ROOT" "$RR_TMP/checkout" "$RR_TMP/rout" <<'PY'
import ctypes, os, signal, subprocess, sys, time
rv, root, lower, out = sys.argv[1:]
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER; we reap nothing
p = subprocess.Popen([rv, "--root", root, "review", "--lower", lower, "--out", out, "--",
                      "sleep", "300"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(300):
    if os.path.isdir(root) and any(e.name.startswith("review") for e in os.scandir(root)) and \
            os.path.exists(os.path.join(root, next(e.name for e in os.scandir(root)), "state.json")):
        break
    time.sleep(0.1)
time.sleep(1)
os.kill(p.pid, signal.SIGKILL)
mon = None
for _ in range(100):
    z = [l.split() for l in os.popen("ps -eo pid,ppid,stat,comm").read().splitlines()[1:]]
    mon = [x for x in z if x[3] == "revrun-monitor" and x[1] == str(os.getpid()) and x[2].startswith("Z")]
    if mon:
        break
    time.sleep(0.05)
print("zombie-monitor=%s" % ("yes" if mon else "no"))
r = subprocess.run([rv, "--root", root, "sweep"], capture_output=True, text=True)
print("sweep=%d %s" % (r.returncode, (r.stdout + r.stderr).strip()))
print("left=%s" % " ".join(os.listdir(root)))
while True:  # now reap, so the test leaves no zombie behind
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        break
PY
    echo "$output" >&3
    assert_success
    grep -qx "zombie-monitor=yes" <<<"$output"
    assert_output_contains "its monitor is gone"
    grep -qx "left=" <<<"$output"
    # its cgroup and mounts went with it (judged by its ID: other runs may share the host)
    id=$(sed -n 's/^sweep=0 swept \([^:]*\):.*/\1/p' <<<"$output")
    [ -n "$id" ] && [ -z "$(find /sys/fs/cgroup -type d -name "$id" 2>/dev/null)" ] || false
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "sweep leaves healthy containers and young leftovers alone" {
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    rr create alive </dev/null >/dev/null 2>&1
    REVRUN_CRASH_AT=create:cgroup rr create young </dev/null >/dev/null 2>&1 || true
    run rr sweep --older-than 1h
    assert_success
    [ -d "$RR_ROOT/young" ]
    [ -d "$RR_ROOT/alive" ]
    run rr sweep
    [ ! -d "$RR_ROOT/young" ]
    [ -d "$RR_ROOT/alive" ]
    rr destroy --force alive
    assert_clean
}

@test "create refuses to reuse a stale ID until it is swept" {
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    REVRUN_CRASH_AT=create:cgroup rr create s1 </dev/null >/dev/null 2>&1 || true
    run rr create s1 </dev/null
    assert_failure
    assert_output_contains "sweep"
    rr sweep
    rr create s1 </dev/null >/dev/null 2>&1
    rr destroy --force s1
    assert_clean
}

@test "destroy is idempotent and works on a half-created container" {
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    REVRUN_CRASH_AT=create:monitor rr create h1 </dev/null >/dev/null 2>&1 || true
    rr destroy h1
    rr destroy h1
    rr destroy --force never-existed
    assert_clean
}

@test "create refuses when free space under the state root is below the floor" {
    make_bundle true
    python3 - "$RR_TMP/bundle/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["revrun"]["minFreeSpace"] = "1000T"
json.dump(c, open(sys.argv[1], "w"))
PY
    cd "$RR_TMP/bundle"
    run rr create f1 </dev/null
    assert_failure
    assert_output_contains "minFreeSpace"
    assert_clean
}

@test "20 lifecycles in parallel with distinct IDs do not interfere" {
    pids=()
    for i in $(seq 20); do
        rr run --id "par$i" --lower "$RR_TMP/checkout" -- sh -c "echo $i > /tmp/x; cat /tmp/x; exit $((i % 7))" \
            >"$RR_TMP/out.$i" 2>&1 &
        pids+=($!)
    done
    for i in $(seq 20); do
        rc=0
        wait "${pids[$((i - 1))]}" || rc=$?
        [ "$rc" -eq $((i % 7)) ] || { echo "par$i: $rc"; cat "$RR_TMP/out.$i"; return 1; }
        [ "$(cat "$RR_TMP/out.$i")" = "$i" ]
    done
    assert_clean
}

@test "two creates of the same ID race: exactly one wins, the other fails cleanly" {
    make_bundle sleep 1000
    cd "$RR_TMP/bundle"
    for round in 1 2 3; do
        rr create race </dev/null >/dev/null 2>"$RR_TMP/e1" &
        a=$!
        rr create race </dev/null >/dev/null 2>"$RR_TMP/e2" &
        b=$!
        ra=0; rb=0
        wait $a || ra=$?
        wait $b || rb=$?
        [ $((ra == 0)) -ne $((rb == 0)) ] || { cat "$RR_TMP/e1" "$RR_TMP/e2"; return 1; }
        grep -q "already exists" "$RR_TMP/e1" "$RR_TMP/e2"
        [ "$(rr state race | python3 -c 'import json,sys;print(json.load(sys.stdin)["status"])')" = created ]
        rr destroy --force race
    done
    assert_clean
}

@test "destroy during start is safe" {
    make_bundle sh -c 'sleep 1000'
    cd "$RR_TMP/bundle"
    for round in 1 2 3 4 5; do
        rr create ds </dev/null >/dev/null 2>&1
        rr start ds &
        s=$!
        rr destroy --force ds
        wait $s || true
        [ ! -e "$RR_ROOT/ds" ]
    done
    assert_clean
}

@test "names an attacker controls are escaped in revrun's log and terminal" {
    weird="$RR_TMP/$(printf 'evil\033]0;pwned\007\nname')"
    run rr --log "$RR_TMP/log.json" --log-format json run --lower "$weird" -- true
    assert_failure
    # the terminal got the escape spelled out, never the raw bytes
    [[ "$output" == *'\x1b]0;pwned\x07\x0aname'* ]]
    ! printf '%s' "$output" | grep -q "$(printf '\033')" || false
    ! grep -q "$(printf '\033')" "$RR_TMP/log.json" || false
    python3 -c "
import json, sys
for line in open('$RR_TMP/log.json'):
    rec = json.loads(line)
    assert rec['level'] == 'error' and 'x1b' in rec['msg'], rec
"
}

@test "sweep --exports drops change sets past their retention, and nothing else" {
    mkdir -p "$RR_TMP/exports"
    rr run --keep --id x1 --lower "$RR_TMP/checkout" -- sh -c 'echo x > new.txt'
    rr export x1 "$RR_TMP/exports/old"
    rr export x1 "$RR_TMP/exports/young"
    rr destroy x1
    mkdir "$RR_TMP/exports/not-a-changeset"
    touch -d '10 days ago' "$RR_TMP/exports/old/manifest.json" "$RR_TMP/exports/not-a-changeset"
    run rr sweep --older-than 7d --exports "$RR_TMP/exports"
    assert_success
    assert_output_contains "old"
    [ ! -e "$RR_TMP/exports/old" ]
    [ -f "$RR_TMP/exports/young/manifest.json" ]
    [ -d "$RR_TMP/exports/not-a-changeset" ]
    run rr sweep --exports "$RR_TMP/exports"
    assert_failure
    assert_clean
}

@test "state reports the exit, the timeout and an OOM kill" {
    make_bundle python3 -c 'x = bytearray(3 * 1024**3)'
    cd "$RR_TMP/bundle"
    rr run --keep oom >/dev/null 2>&1 || true
    run rr state oom
    assert_output_contains '"oomKilled": true'
    assert_output_contains '"signal": 9'
    rr destroy oom
    assert_clean
}
