#!/usr/bin/env bats
# The runc verbs engines call to reach a running container (exec, ps,
# kill --all), driven directly against the CLI and judged from the host:
# namespaces and cgroups in /proc, the process table, and what the process
# inside reports through the probes. Where Debian's runc is installed, the
# same step on a busybox bundle gives the reference wording and exit
# status. pause/resume, update, state, delete, list: runc_verbs_state.bats.

load runc_verbs_helpers

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

@test "exec: the process starts with the standard signals at their defaults, whatever its caller ignored" {
    local ign
    make_bundle
    up e9-$X
    run bash -c "trap '' PIPE HUP; '$RR_BIN/revrun' --root '$RR_ROOT' exec e9-$X sh -c 'yes | head -c 1 >/dev/null; grep ^SigIgn: /proc/self/status'"
    echo "$output"
    assert_success
    [[ "$output" != *"Broken pipe"* ]]
    ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' <<<"$output")
    [ $((0x$ign & 0x7fffffff)) -eq 0 ]
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
    # (revrun itself, not rr's subshell, which dies of a SIGTERM on its own)
    "$RR_BIN/revrun" --root "$RR_ROOT" exec e4-$X sleep 300 &
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

# answered PID: the process PID ended within 5 s
answered() {
    for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    ! kill -0 "$1" 2>/dev/null
}

# A container that stops every process it may signal, over and over: the
# exec'd one before its exec (seen in most runs) or after. The container's
# lock was held through the first, so that state, kill and delete hung;
# and a stopped process ignores the SIGTERM revrun exec passes on.
stopped_exec() {
    local sh ex st sp
    make_bundle "c['process']['args'] = ['sh', '-c', 'while :; do kill -STOP -1 2>/dev/null; done']"
    up "$1"
    rrx exec "$1" sleep 100 2>"$RR_TMP/exec.err" &
    sh=$!
    sleep 1
    # revrun exec itself, not its children (the subshell that runs rrx is
    # bash); polled: the container keeps a CPU busy stopping its processes
    ex=$(root_match "revrun .*exec $1 sleep 100")
    KILL_PIDS+=("$ex")
    rrx state "$1" >/dev/null &
    sp=$!
    answered "$sp"
    wait "$sp"
    kill -TERM "$ex"
    if answered "$ex"; then
        # it was before the exec: ended, saying so
        wait "$sh" || st=$?
        echo "status ${st:-0}"
        cat "$RR_TMP/exec.err"
        [ "$st" -eq 255 ]
        grep -q "Terminated before the process's exec: the process was killed" "$RR_TMP/exec.err"
    fi
    rrx delete --force "$1" &
    sp=$!
    answered "$sp"
    wait "$sp"
    answered "$ex"
    ! pgrep -f "kill -STOP -1 2>" || false
}

@test "exec: a container that stops the exec'd process holds no verb: state and delete answer, the exec ends; SIGTERM before its exec ends it" {
    stopped_exec e10-$X
}

@test "exec (rootless): a container that stops the exec'd process holds no verb; SIGTERM before its exec ends it" {
    ROOTLESS=1
    stopped_exec e11-$X
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
