#!/usr/bin/env bats
# The runc verbs engines call (exec, ps, kill --all, pause/resume, update,
# features, --version, list -q, state's fields, delete of a missing
# container), driven directly against the CLI and judged from the host:
# namespaces and cgroups in /proc, the process table, the cgroup files, and
# what the process inside reports through the probes. Where Debian's runc
# is installed, the same step on a busybox bundle gives the reference
# wording and exit status.

load helpers

P=/workspace/.probes

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/.probes"
    echo hello >"$RR_TMP/checkout/a.txt"
    cp "$RR_BIN"/{ids,sys,try} "$RR_TMP/checkout/.probes/"
    chmod -R a+rX "$RR_TMP/checkout"
    # IDs name cgroups host-wide: unique ones keep parallel runs apart
    X="v$RANDOM$BATS_TEST_NUMBER"
    KILL_PIDS=()
    RUNC_IDS=()
    ROOTLESS=
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    local pid id d
    for pid in "${KILL_PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    rr_destroy_all
    for d in "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"/*/; do
        [ -d "$d" ] && as_user "$RR_BIN/revrun" delete --force "$(basename "$d")"
    done
    for id in "${RUNC_IDS[@]}"; do
        runc --root "$RR_TMP/runc" delete --force "$id" >/dev/null 2>&1 || true
    done
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# The default spec around the checkout, edited by the Python statements
# given (c is the config); process: sleep, so the container stays up.
make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    if [ -n "$ROOTLESS" ]; then
        chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
        as_user "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    else
        rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    fi
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'EOF'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["args"] = ["sleep", "1000"]
for stmt in sys.argv[2:]:
    exec(stmt)
json.dump(c, open(p, "w"), indent=2)
EOF
    [ -z "$ROOTLESS" ] || chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/bundle"
}

# create + start, as root or (ROOTLESS=1) as the test user
up() {
    if [ -n "$ROOTLESS" ]; then
        (cd "$RR_TMP/bundle" && as_user "$RR_BIN/revrun" create "$1" </dev/null >/dev/null)
        as_user "$RR_BIN/revrun" start "$1"
    else
        (cd "$RR_TMP/bundle" && rr create "$1" </dev/null >/dev/null)
        rr start "$1"
    fi
}

rrx() {
    if [ -n "$ROOTLESS" ]; then
        as_user "$RR_BIN/revrun" "$@"
    else
        rr "$@"
    fi
}

kv() {
    sed -n "s/^$1=//p" <<<"$output" | head -1
}

state_field() {
    rrx state "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$2"
}

# The pid of the container's own process (the child of its init that is
# not one of revrun's helpers inside, which keep the name revrun-init).
agent_pid() {
    local init p
    init=$(state_field "$1" '["pid"]')
    for p in $(pgrep -P "$init"); do
        [ "$(cat /proc/$p/comm)" != revrun-init ] && { echo "$p"; return 0; }
    done
    return 1
}

wait_status() {
    for _ in $(seq 100); do
        [ "$(state_field "$1" '["status"]')" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# A process file as the shim writes it: the container's process, these args.
process_json() {
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
p = c["process"]
p["args"] = sys.argv[2:]
print(json.dumps(p))
EOF
}

# A busybox bundle for runc, the reference.
runc_bundle() {
    command -v runc >/dev/null || skip "runc is not installed"
    [ -x /bin/busybox ] || skip "busybox is not installed"
    mkdir -p "$RR_TMP/rb/rootfs/bin"
    cp /bin/busybox "$RR_TMP/rb/rootfs/bin/"
    for a in sh sleep true; do ln -sf busybox "$RR_TMP/rb/rootfs/bin/$a"; done
    (cd "$RR_TMP/rb" && runc spec)
    python3 - "$RR_TMP/rb/config.json" <<'EOF'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["terminal"] = False
c["process"]["args"] = ["sleep", "1000"]
json.dump(c, open(p, "w"))
EOF
}

runc_() {
    runc --root "$RR_TMP/runc" "$@"
}

# ---- exec ----

@test "exec: the process joins every namespace and the cgroup of the container" {
    make_bundle
    up e1-$X
    agent=$(agent_pid e1-$X)
    process_json sleep 300 >"$RR_TMP/p.json"
    rr exec --detach --pid-file "$RR_TMP/exec.pid" --process "$RR_TMP/p.json" e1-$X
    pid=$(cat "$RR_TMP/exec.pid")
    KILL_PIDS+=("$pid")
    [ "$(cat /proc/$pid/comm)" = sleep ]
    for ns in user mnt pid net ipc uts cgroup; do
        [ "$(readlink /proc/$pid/ns/$ns)" = "$(readlink /proc/$agent/ns/$ns)" ] || {
            echo "$ns differs: $(readlink /proc/$pid/ns/$ns) vs $(readlink /proc/$agent/ns/$ns)" >&2
            return 1
        }
    done
    [ "$(cat /proc/$pid/cgroup | sort)" = "$(cat /proc/$agent/cgroup | sort)" ]
    # the host's namespaces are not its
    [ "$(readlink /proc/$pid/ns/pid)" != "$(readlink /proc/self/ns/pid)" ]
    # the same host identity as the container's own process
    [ "$(awk '/^Uid:/{print $2}' /proc/$pid/status)" = "$(awk '/^Uid:/{print $2}' /proc/$agent/status)" ]
}

@test "exec: no capability, no_new_privs, the seccomp floor, the container's rlimits, only fds 0-2" {
    make_bundle
    up e2-$X
    run bash -c "exec 7</etc/hostname 8>'$RR_TMP/leak'; '$RR_BIN/revrun' --root '$RR_ROOT' exec e2-$X $P/ids"
    assert_success
    [ "$(kv uid)" = 1000 ]
    for set in CapInh CapPrm CapEff CapBnd CapAmb; do
        [ "$(kv $set)" = 0000000000000000 ]
    done
    [ "$(kv NoNewPrivs)" = 1 ]
    [ "$(kv Seccomp)" = 2 ]
    [ "$(kv fds)" = 0,1,2 ]
    [ "$(kv rlimit.NOFILE)" = 4096:4096 ]
    [ "$(kv rlimit.NPROC)" = 1024:1024 ]
    # the same filters as the container's own process (the floor, nothing less)
    agent=$(agent_pid e2-$X)
    [ "$(awk '/^Seccomp_filters:/{print $2}' /proc/$agent/status)" -ge 1 ]
    run rr exec e2-$X $P/sys
    assert_success
    n=0
    while read -r line; do
        case "$line" in
        clone3=ENOSYS | *=EPERM) n=$((n + 1)) ;;
        *) echo "not denied in exec: $line" >&2; return 1 ;;
        esac
    done <<<"$output"
    [ "$n" -ge 50 ]
}

@test "exec: Landlock holds where the container has it (writes outside the writable set fail though the mount allows them)" {
    rr check | grep -q 'landlock *ABI' || skip "this kernel has no Landlock"
    # the root left writable by the mounts: only Landlock stands in the way
    make_bundle 'c["root"]["readonly"] = False' 'c["revrun"]["bestEffort"] = []'
    up e3-$X
    run rr exec e3-$X $P/try write /etc/landlock-probe
    [ "$output" = EACCES ]
    run rr exec e3-$X $P/try write /workspace/w
    [ "$output" = ok ]
    [ ! -e "$RR_TMP/checkout/w" ]
}

@test "exec: the exit status comes back; a missing program exits 255 with runc's words; signals reach the process" {
    make_bundle
    up e4-$X
    run rr exec e4-$X sh -c 'exit 7'
    [ "$status" -eq 7 ]
    run rr exec e4-$X no-such-program
    [ "$status" -eq 255 ]
    assert_output_contains 'executable file not found in $PATH'
    run rr exec --cwd /tmp --env FOO=bar e4-$X sh -c 'echo "$PWD:$FOO"'
    assert_success
    [ "$output" = /tmp:bar ]
    # SIGTERM to revrun exec reaches the process: it dies of it (128+15)
    rr exec e4-$X sleep 300 &
    ex=$!
    for _ in $(seq 50); do pgrep -f "^sleep 300" >/dev/null && break; sleep 0.1; done
    kill -TERM "$ex"
    wait "$ex" || st=$?
    [ "$st" -eq 143 ]
    if command -v runc >/dev/null; then
        runc_bundle
        (cd "$RR_TMP/rb" && runc_ create rc4-$X </dev/null >/dev/null 2>&1)
        RUNC_IDS+=(rc4-$X)
        runc_ start rc4-$X
        run runc_ exec rc4-$X no-such-program
        [ "$status" -eq 255 ]
        assert_output_contains 'executable file not found in $PATH'
        run runc_ exec rc4-$X sh -c 'exit 7'
        [ "$status" -eq 7 ]
    fi
}

@test "exec: refused in a paused and in a stopped container, with runc's words" {
    make_bundle
    up e5-$X
    rr pause e5-$X
    run rr exec e5-$X true
    [ "$status" -eq 255 ]
    assert_output_contains "cannot exec in a paused container"
    rr resume e5-$X
    rr kill e5-$X KILL
    wait_status e5-$X stopped
    run rr exec e5-$X true
    [ "$status" -eq 255 ]
    assert_output_contains "cannot exec in a stopped container"
}

@test "exec: a user other than the container's is refused; --preserve-fds passes exactly the fds asked" {
    make_bundle
    up e6-$X
    python3 -c "
import json,sys
p=json.loads(sys.argv[1]); p['user']={'uid':0,'gid':0}; print(json.dumps(p))" \
        "$(process_json id)" >"$RR_TMP/root.json"
    run rr exec --process "$RR_TMP/root.json" e6-$X
    [ "$status" -eq 255 ]
    assert_output_contains "process.user"
    run bash -c "exec 3</etc/hostname 4</etc/hostname; '$RR_BIN/revrun' --root '$RR_ROOT' exec --preserve-fds 1 e6-$X $P/ids"
    assert_success
    [ "$(kv fds)" = 0,1,2,3 ]
    # a gap in the caller's fds is not filled with one of revrun's
    run bash -c "exec 3</etc/hostname 4<&- 5<&-; '$RR_BIN/revrun' --root '$RR_ROOT' exec --preserve-fds 3 e6-$X $P/ids"
    [ "$status" -eq 255 ]
    assert_output_contains "fd 4"
}

@test "exec --tty: the process gets a pty of the container's own through the console socket" {
    # engines' bundles mount a devpts at /dev/pts: that is where the pty comes from
    make_bundle 'c["mounts"].append({"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]})'
    up e7-$X
    python3 - "$RR_TMP/sock" "$RR_BIN/revrun" "$RR_ROOT" e7-$X <<'EOF' >"$RR_TMP/tty.out"
import array, os, socket, subprocess, sys
path, rr, root, cid = sys.argv[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path); s.listen(1); s.settimeout(30)
p = subprocess.Popen([rr, "--root", root, "exec", "--tty", "--console-socket", path, cid,
                      "sh", "-c", "tty; echo done"])
c, _ = s.accept()
fds = array.array("i")
msg, anc, _, _ = c.recvmsg(1, socket.CMSG_LEN(4))
fds.frombytes(anc[0][2][:4])
out = b""
while b"done" not in out:
    try:
        d = os.read(fds[0], 4096)
    except OSError:
        break
    if not d:
        break
    out += d
print(out.decode(errors="replace"))
print("rc=%d" % p.wait())
EOF
    output=$(cat "$RR_TMP/tty.out")
    assert_output_contains "/dev/pts/"
    assert_output_contains "rc=0"
    # without a devpts in the container there is no pty to give: refused
    make_bundle
    up e7b-$X
    run rr exec --tty --console-socket "$RR_TMP/none" e7b-$X true
    [ "$status" -eq 255 ]
    assert_output_contains "no devpts"
}

@test "exec (rootless): the process joins the container's namespaces and stays confined" {
    ROOTLESS=1
    make_bundle
    up e8-$X
    agent=$(agent_pid e8-$X)
    run as_user "$RR_BIN/revrun" exec e8-$X $P/ids
    assert_success
    [ "$(kv uid)" = 1000 ]
    [ "$(kv CapEff)" = 0000000000000000 ]
    [ "$(kv NoNewPrivs)" = 1 ]
    [ "$(kv Seccomp)" = 2 ]
    as_user "$RR_BIN/revrun" exec -d --pid-file "$RR_TMP/xdg-$REVRUN_TEST_UID/p" e8-$X sleep 300
    pid=$(cat "$RR_TMP/xdg-$REVRUN_TEST_UID/p")
    KILL_PIDS+=("$pid")
    for ns in user mnt pid net; do
        [ "$(readlink /proc/$pid/ns/$ns)" = "$(readlink /proc/$agent/ns/$ns)" ]
    done
    [ "$(awk '/^Uid:/{print $2}' /proc/$pid/status)" = "$REVRUN_TEST_UID" ]
}

# ---- ps, kill --all ----

@test "ps: json lists the container's processes (its init, its process, an exec'd one), table filters ps -ef" {
    make_bundle
    up p1-$X
    init=$(state_field p1-$X '["pid"]')
    agent=$(agent_pid p1-$X)
    rr exec -d --pid-file "$RR_TMP/x.pid" p1-$X sleep 301
    x=$(cat "$RR_TMP/x.pid")
    KILL_PIDS+=("$x")
    # every process of the container: its init, the init's children (the
    # process and revrun's helpers inside), the exec'd one; nothing else
    want=$(printf '%s\n' "$init" $(pgrep -P "$init") "$x" | sort -n)
    grep -qx "$agent" <<<"$want"
    run rr ps --format json p1-$X
    assert_success
    [ "$output" = "[$(tr '\n' ',' <<<"$want" | sed 's/,$//')]" ]
    run rr ps p1-$X
    assert_success
    [ "$(head -1 <<<"$output" | awk '{print $2}')" = PID ]
    [ "$(tail -n +2 <<<"$output" | awk '{print $2}' | sort -n)" = "$want" ]
    # a host process is never listed
    ! grep -qw "$$" <<<"$(tail -n +2 <<<"$output" | awk '{print $2}')" || false
    if command -v runc >/dev/null; then
        runc_bundle
        (cd "$RR_TMP/rb" && runc_ create rp1-$X </dev/null >/dev/null 2>&1)
        RUNC_IDS+=(rp1-$X)
        run runc_ ps --format json rp1-$X
        [[ "$output" =~ ^\[[0-9]+\]$ ]]
    fi
}

@test "kill --all: every process of the container gets the signal, the host's none" {
    make_bundle
    up k1-$X
    rr exec -d --pid-file "$RR_TMP/x.pid" k1-$X sleep 302
    x=$(cat "$RR_TMP/x.pid")
    KILL_PIDS+=("$x")
    agent=$(agent_pid k1-$X)
    sleep 303 &
    host=$!
    KILL_PIDS+=("$host")
    rr kill --all k1-$X KILL
    for _ in $(seq 50); do kill -0 "$x" 2>/dev/null || break; sleep 0.1; done
    assert_dead "$x"
    assert_dead "$agent"
    kill -0 "$host"
    wait_status k1-$X stopped
    run rr kill k1-$X KILL
    [ "$status" -eq 1 ]
    assert_output_contains "container not running"
    run rr kill --all k1-$X KILL
    [ "$status" -eq 1 ]
    assert_output_contains "container not running"
}

@test "ps, kill --all (rootless, no cgroup): the container's processes are found by its pid namespace, its init unreadable there" {
    ROOTLESS=1
    make_bundle 'c["linux"].pop("resources", None)'
    up n1-$X
    [ "$(python3 -c "import json,sys; print('cgroup' in json.load(open(sys.argv[1])))" \
        "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun/n1-$X/state.json")" = False ]
    init=$(state_field n1-$X '["pid"]')
    agent=$(agent_pid n1-$X)
    as_user "$RR_BIN/revrun" exec -d --pid-file "$RR_TMP/xdg-$REVRUN_TEST_UID/x" n1-$X sleep 304
    x=$(cat "$RR_TMP/xdg-$REVRUN_TEST_UID/x")
    KILL_PIDS+=("$x")
    # the caller cannot read the init's namespace (pid 1 is not dumpable)
    ! as_user stat -L "/proc/$init/ns/pid" >/dev/null 2>&1 || false
    # what root sees in that namespace: exactly what ps lists
    ns=$(readlink "/proc/$init/ns/pid")
    want=$(for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && basename "$p"
    done | sort -n)
    grep -qx "$agent" <<<"$want" && grep -qx "$x" <<<"$want" && grep -qx "$init" <<<"$want"
    run as_user "$RR_BIN/revrun" ps --format json n1-$X
    assert_success
    [ "$output" = "[$(tr '\n' ',' <<<"$want" | sed 's/,$//')]" ]
    sleep 305 &
    host=$!
    KILL_PIDS+=("$host")
    as_user "$RR_BIN/revrun" kill --all n1-$X KILL
    for _ in $(seq 50); do kill -0 "$agent" 2>/dev/null || break; sleep 0.1; done
    assert_dead "$agent"
    [ "$(awk '/^State:/ {print $2}' /proc/$x/status 2>/dev/null || echo gone)" != S ]
    kill -0 "$host"
    wait_status n1-$X stopped
}

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
