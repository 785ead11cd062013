#!/usr/bin/env bats
# Containment, judged from the host: what the agent can reach besides its
# files. The network (only loopback; listeners on the host's loopback and
# abstract sockets unreachable), /dev, the out-dir, socket families on every
# ABI (AF_VSOCK above all), the seccomp floor, the terminal and the file
# descriptors that reach the process. Checked from outside: a listener's
# log, the host's inodes, the bytes handed over, the probes' reports.

load containment_helpers

# ---- network ----

# A listener on the host's loopback (TCP) and an abstract unix socket; each
# connection it accepts is logged.
start_listeners() {
    python3 - "$RR_TMP/listen" "$TAG" <<'EOF' &
import os, select, socket, sys
base, tag = sys.argv[1], sys.argv[2]
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(socket.AF_UNIX); u.bind("\0" + tag); u.listen(8)
open(base + ".port.tmp", "w").write(str(t.getsockname()[1]))
os.rename(base + ".port.tmp", base + ".port")
while True:
    for s in select.select([t, u], [], [])[0]:
        c, _ = s.accept()
        open(base + ".log", "a").write("accepted\n")
        c.close()
EOF
    KILL_PIDS+=("$!")
    for _ in $(seq 50); do
        [ -e "$RR_TMP/listen.port" ] && break
        sleep 0.1
    done
    PORT=$(cat "$RR_TMP/listen.port")
}

@test "network: only loopback inside; listeners on the host's loopback and abstract sockets are unreachable" {
    start_listeners
    # the listener answers from the host
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT)).close()"
    rm -f "$RR_TMP/listen.log"
    run rr_run sh -c "$P/ids; echo tcp=\$($P/try connect-tcp 127.0.0.1 $PORT); echo abstract=\$($P/try connect-abstract $TAG)"
    assert_success
    [ "$(kv ifaces)" = lo ]
    [ "$(kv tcp)" = ECONNREFUSED ]
    [ "$(kv abstract)" = ECONNREFUSED ]
    [ ! -e "$RR_TMP/listen.log" ]
}

@test "network: revrun.network \"host\" is the explicit switch that shares the host network" {
    start_listeners
    make_bundle 'c["revrun"]["network"] = "host"' \
        'c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]' \
        "$(args "[\"sh\", \"-c\", \"echo tcp=\$($P/try connect-tcp 127.0.0.1 $PORT); echo abstract=\$($P/try connect-abstract $TAG)\"]")"
    run rr_bundle run h1-$X
    assert_success
    [ "$(kv tcp)" = ok ]
    [ "$(grep -c accepted "$RR_TMP/listen.log")" = 1 ]
    # the host's abstract sockets stay out of reach (Landlock scoping, ABI 6+)
    if [ "$(rr check | sed -n 's/.*landlock *ABI \([0-9]*\).*/\1/p')" -ge 6 ]; then
        [ "$(kv abstract)" = EPERM ]
    fi
}

# The /dev nodes are the host's own inodes, bound: the agent may read and
# write the devices, never change the inodes (utimensat moved the host's
# /dev/null mtime).
@test "devices: /dev nodes are read-only binds: writes to the devices work, the host inodes' times never change" {
    before=$(stat -c '%y %Z' /dev/null /dev/zero /dev/full /dev/urandom)
    run rr_run sh -c 'for d in null zero full urandom; do touch /dev/$d 2>/dev/null; echo touch.$d=$?; done
        echo x >/dev/null && echo null-write=ok; echo zero=$(head -c 3 /dev/zero | wc -c)'
    assert_success
    [ "$(kv null-write)" = ok ] && [ "$(kv zero)" = 3 ] || false
    [ "$(kv touch.null)" = 1 ] && [ "$(kv touch.urandom)" = 1 ] || false
    [ "$(stat -c '%y %Z' /dev/null /dev/zero /dev/full /dev/urandom)" = "$before" ]
}

# ---- the out-dir ----

# What the agent leaves in /out reaches the host directory only as regular
# files and directories: a symlink to a host secret (for an uploader or a
# root consumer to follow), a fifo (to hang it), a socket are not handed
# over, and each is reported.
out_dir_vetted() {
    run "$@" sh -c 'echo hi >/out/a; mkdir -p /out/d/e; echo x >/out/d/e/run; chmod 0755 /out/d/e/run;
        ln -s /etc/shadow /out/shadow; ln -s a /out/d/rel; mkfifo /out/fifo;
        python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"/out/d/sock\")"; echo done'
    assert_success
    assert_output_contains done
    [ "$(cat "$RR_TMP/out/a")" = hi ] && [ -x "$RR_TMP/out/d/e/run" ] || false
    [ "$(cd "$RR_TMP/out" && find . -mindepth 1 \( -type f -o -type d \) | sort | tr '\n' ' ')" = \
        "./a ./d ./d/e ./d/e/run " ]
    [ -z "$(find "$RR_TMP/out" -mindepth 1 ! -type f ! -type d)" ]
    assert_output_contains "/out/shadow is a symlink: not handed over"
    assert_output_contains "/out/d/rel is a symlink: not handed over"
    assert_output_contains "/out/fifo is a fifo: not handed over"
    assert_output_contains "/out/d/sock is a socket: not handed over"
    [ "$(stat -c %U "$RR_TMP/out/a")" = "$(stat -c %U "$RR_TMP/out")" ]
}

@test "out-dir: only regular files and directories are handed over; symlinks, fifos and sockets are reported" {
    out_dir_vetted rr_run
}

@test "out-dir (rootless): only regular files and directories are handed over" {
    rootless_checkout
    out_dir_vetted rr_run_rootless
}

# /out is capped like the upper (revrun.upperSize), whatever the host
# directory's filesystem would take.
@test "out-dir: /out is capped at revrun.upperSize; the host directory gets no more" {
    make_bundle 'c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/out"]' \
        'c["revrun"]["out"] = "'"$RR_TMP/out"'"' 'c["revrun"]["upperSize"] = "16M"' \
        "$(args '["sh", "-c", "for i in 1 2 3; do head -c 6M /dev/zero >/out/f$i || echo full=$i; done; echo done"]')"
    run rr_bundle run cap-$X
    assert_success
    assert_output_contains done
    [ "$(kv full)" = 3 ]
    total=$(find "$RR_TMP/out" -type f -printf '%s\n' | awk '{t += $1} END {print t}')
    echo "handed over $total bytes" >&3
    [ "$total" -le $((16 << 20)) ]
}

# A read-write bind of the host out-dir (or a tree holding it) would let the
# agent plant there what the vetting at exit removes: refused at create.
@test "out-dir: a read-write bind onto the host out-dir is refused; nothing runs" {
    make_bundle 'c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/out"]' \
        'c["mounts"].append({"destination": "/data", "type": "bind", "source": "'"$RR_TMP"'/out", "options": ["bind", "rw"]})' \
        'c["revrun"]["out"] = "'"$RR_TMP/out"'"' \
        "$(args '["sh", "-c", "ln -s /etc/shadow /data/planted"]')"
    run rr_bundle run outbind-$X
    [ "$status" -ne 0 ]
    assert_output_contains "would reach revrun.out"
    [ ! -L "$RR_TMP/out/planted" ]
}

# ---- socket families ----

# Only AF_UNIX, AF_INET, AF_INET6 and netlink's NETLINK_ROUTE open; every
# other family (AF_VSOCK above all: the VM's ports, not the netns's) fails
# with EAFNOSUPPORT on every ABI, socketpair too.
assert_families_confined() {
    local line
    while read -r line; do
        case "$line" in
        af.1=ok | af.2=ok | af.10=ok | af.16=ok | netlink.route=ok | socketpair.unix=ok | \
            i386.socket.unix=ok | *=EAFNOSUPPORT | *=unavailable) ;;
        *)
            echo "not confined: $line" >&2
            return 1
            ;;
        esac
    done <<<"$output"
    [ "$(kv af.40)" = EAFNOSUPPORT ] && [ "$(kv af.vsock.highbits)" = EAFNOSUPPORT ] || false
    [ "$(kv netlink.audit)" = EAFNOSUPPORT ] && [ "$(kv netlink.uevent)" = EAFNOSUPPORT ] || false
    [ "$(kv af.1)" = ok ] && [ "$(kv af.2)" = ok ] && [ "$(kv netlink.route)" = ok ] || false
}

@test "socket families: only unix, inet, inet6 and netlink route open; vsock and the rest fail on every ABI" {
    run rr_run $P/sys families
    assert_success
    assert_families_confined
}

@test "socket families (rootless): only unix, inet, inet6 and netlink route open" {
    rootless_checkout
    run rr_run_rootless $P/sys families
    assert_success
    assert_families_confined
}

# The agent tries to listen on a VM-wide vsock port; while it runs, the host
# binds that port itself.
@test "socket families: a vsock port the agent tries to hold stays free for the VM" {
    [ -e /dev/vsock ] || skip "no vsock on this host"
    local port=$((20000 + RANDOM % 20000))
    script vsock-hold <<EOF
#!/usr/bin/python3
import os, socket, time
try:
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    s.bind((socket.VMADDR_CID_ANY, $port))
    s.listen()
    print("held")
except OSError as e:
    print("refused", e.errno)
open("/out/ready", "w").close()
for _ in range(600):
    if os.path.exists("/out/go"):
        break
    time.sleep(0.1)
EOF
    make_bundle "$(args "[\"$P/vsock-hold\"]")"
    (cd "$RR_TMP/bundle" && rr run vs-$X >"$RR_TMP/hold.out") &
    KILL_PIDS+=($!)
    for _ in $(seq 600); do
        [ -e "$RR_TMP/out/ready" ] && break
        sleep 0.1
    done
    run python3 -c "import socket; s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); s.bind((socket.VMADDR_CID_ANY, $port)); print('host bound')"
    touch "$RR_TMP/out/go"
    wait "${KILL_PIDS[-1]}"
    assert_output_contains "host bound"
    grep -q "refused 97" "$RR_TMP/hold.out"
}

# ---- seccomp ----

assert_all_denied() {
    local line n=0
    while read -r line; do
        case "$line" in
        clone3=ENOSYS | *=EPERM) n=$((n + 1)) ;;
        *)
            echo "not denied: $line" >&2
            return 1
            ;;
        esac
    done <<<"$output"
    [ "$n" -ge 50 ]
    assert_output_contains "clone3=ENOSYS"
}

@test "seccomp: each denied syscall fails with EPERM, clone3 with ENOSYS" {
    run rr_run $P/sys
    assert_success
    assert_all_denied
}

@test "seccomp (rootless): each denied syscall fails with EPERM, clone3 with ENOSYS" {
    rootless_checkout
    run rr_run_rootless $P/sys
    assert_success
    assert_all_denied
}

@test "seccomp: the compat ABIs the kernel accepts (i386, x32) are filtered too" {
    run rr_run $P/sys compat
    assert_success
    local line
    while read -r line; do
        [[ "$line" == *=EPERM || "$line" == *=unavailable ]] || {
            echo "not denied: $line" >&2
            return 1
        }
    done <<<"$output"
}

@test "seccomp: an OCI linux.seccomp section is honoured on top of revrun's floor" {
    make_bundle 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]}' \
        "$(args "[\"sh\", \"-c\", \"echo mkdir=\$($P/try mkdir /tmp/d); $P/sys | grep -E ^keyctl=; $P/ids | grep ^Seccomp\"]")"
    run rr_bundle run sc1-$X
    assert_success
    [ "$(kv mkdir)" = EACCES ]
    [ "$(kv keyctl)" = EPERM ]
    # revrun's floor and the config's section, stacked
    [ "$(kv Seccomp_filters)" = 2 ]
}

# ---- terminal ----

# Run a command with a fresh pty as its controlling terminal and stdio, as
# an operator's shell would; print what it wrote, then "injected=" with
# whatever landed in the terminal's input queue.
PTY_RUN='
import os, pty, select, sys, termios, fcntl, tty
master, slave = pty.openpty()
tty.setraw(slave)  # no line buffering: injected bytes are readable at once
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.execvp(sys.argv[1], sys.argv[1:])
out, status = b"", None
while status is None:
    if select.select([master], [], [], 0.2)[0]:
        out += os.read(master, 65536)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
while select.select([master], [], [], 0.2)[0]:
    out += os.read(master, 65536)
os.set_blocking(slave, False)
try:
    injected = os.read(slave, 4096)
except BlockingIOError:
    injected = b""
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
print("injected=" + repr(injected))
sys.exit(os.waitstatus_to_exitcode(status))
'

@test "terminal: no controlling terminal by default; nothing reaches the operator's terminal through TIOCSTI" {
    run python3 -c "$PTY_RUN" "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- \
        sh -c "$P/ids; echo tiocsti=\$($P/try tiocsti 1); echo reopen=\$($P/try reopen-tiocsti 1)"
    assert_success
    [ "$(kv tty_nr)" = 0 ]
    [ "$(kv devtty)" = ENXIO ]
    [ "$(kv tiocsti)" = EPERM ]
    [[ "$(kv reopen)" == EPERM || "$(kv reopen)" == "reopen EACCES" ]]
    [ "$(kv injected)" = "b''" ]
    run rr_run $P/ids
    [ "$(kv session_leader)" = 1 ]
    [ "$(kv tty_nr)" = 0 ]
}

CONSOLE_RECV='
import os, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(1)
open(path + ".ready", "w").close()
c, _ = s.accept()
msg, fds, _, _ = socket.recv_fds(c, 64, 1)
with open(out, "wb") as f:
    while True:
        try:
            d = os.read(fds[0], 4096)
        except OSError:  # EIO: the last holder of the slave is gone
            break
        if not d:
            break
        f.write(d)
        f.flush()
'

# The operator types at the shell (a password) while a backgrounded run's
# agent has the shell's terminal as its stdio: what is typed stays in the
# terminal's input queue for the shell, the agent reads nothing of it.
PTY_TYPED=$(sed 's/^tty.setraw(slave).*/&\nos.write(master, b"hunter2-typed\\n")/' <<<"$PTY_RUN")

@test "terminal: without process.terminal, the caller's terminal is no input for the agent (stdin /dev/null, stdout write-only)" {
    script read-stdio <<'EOF'
#!/usr/bin/python3
import os
for fd in (0, 1, 2):
    try:
        os.set_blocking(fd, False)
        print("fd%d=%r" % (fd, os.read(fd, 100)))
    except OSError as e:
        print("fd%d=%s" % (fd, e.errno))
EOF
    run python3 -c "$PTY_TYPED" "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- $P/read-stdio
    assert_success
    [[ "$output" != *"fd0=b'hunter2"* && "$output" != *"fd1=b'hunter2"* && "$output" != *"fd2=b'hunter2"* ]]
    [ "$(kv fd0)" = "b''" ]
    [ "$(kv fd1)" = 9 ] && [ "$(kv fd2)" = 9 ] # EBADF: write-only
    [ "$(kv injected)" = "b'hunter2-typed\\n'" ]
    assert_output_contains "the agent gets /dev/null as stdin"
}

@test "terminal: process.terminal gives a fresh pty through --console-socket; TIOCSTI on it fails" {
    python3 -c "$CONSOLE_RECV" "$RR_TMP/console.sock" "$RR_TMP/console.out" &
    recv=$!
    KILL_PIDS+=("$recv")
    for _ in $(seq 50); do
        [ -e "$RR_TMP/console.sock.ready" ] && break
        sleep 0.1
    done
    make_bundle 'c["process"]["terminal"] = True' \
        "$(args "[\"sh\", \"-c\", \"$P/ids; echo tiocsti=\$($P/try tiocsti 0)\"]")"
    rr_bundle create --console-socket "$RR_TMP/console.sock" t1-$X </dev/null
    rr start t1-$X
    wait_stopped t1-$X
    for _ in $(seq 50); do kill -0 "$recv" 2>/dev/null || break; sleep 0.1; done
    output=$(tr -d '\r' <"$RR_TMP/console.out")
    [ "$(kv tty_nr)" != 0 ]
    [ "$(kv devtty)" = ok ]
    [ "$(kv fd.0)" = /dev/pts/0 ]
    [ "$(kv tiocsti)" = EPERM ]
    rr destroy t1-$X
    # a terminal needs a console socket, and a console socket a terminal
    run rr_bundle create t2-$X </dev/null
    assert_failure
    assert_output_contains "console-socket"
}

# ---- file descriptors ----

@test "fds: only 0, 1 and 2 reach the process, nothing of revrun's or of the caller's" {
    run bash -c "exec 7</etc/hostname 8>'$RR_TMP/leak' 9<'$RR_TMP/checkout'; \
        '$RR_BIN/revrun' --root '$RR_ROOT' run --lower '$RR_TMP/checkout' -- $P/ids"
    assert_success
    [ "$(kv fds)" = 0,1,2 ]
    [ "$(kv cwd)" = /workspace ]
    make_bundle "$(args "[\"$P/ids\"]")"
    (cd "$RR_TMP/bundle" && exec 7</etc/hostname && rr create f1-$X </dev/null >"$RR_TMP/f1.out" 2>&1)
    rr start f1-$X
    wait_stopped f1-$X
    output=$(cat "$RR_TMP/f1.out")
    [ "$(kv fds)" = 0,1,2 ]
    rr destroy f1-$X
}

@test "fds (rootless): only 0, 1 and 2 reach the process" {
    rootless_checkout
    run bash -c "exec 7</etc/hostname; $(declare -f as_user rr_delegate_cgroups cgroup_is_v2); \
        RR_TMP='$RR_TMP' REVRUN_TEST_UID=$REVRUN_TEST_UID REVRUN_TEST_GID=$REVRUN_TEST_GID \
        CG_V2_BASE='$CG_V2_BASE' as_user '$RR_BIN/revrun' run --lower '$RR_TMP/checkout' -- $P/ids"
    assert_success
    [ "$(kv fds)" = 0,1,2 ]
}
