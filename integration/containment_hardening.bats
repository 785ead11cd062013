#!/usr/bin/env bats
# Containment, judged from the host: revrun's own protection (pid 1's exe
# and command line, mount targets), /proc's masks, Landlock under the
# mounts, nested sandboxes only when asked, the hostname, and the
# ceilings (pids, memory with TCP buffers, rlimits, the disk, the wall
# clock), each pinned by what the host sees when the agent pushes past it.

load containment_helpers

# ---- self-protection ----

@test "self-protection: pid 1's exe (revrun) cannot be opened, /proc/self/exe not for writing" {
    sum=$(sha256sum <"$RR_BIN/revrun")
    run rr_run sh -c "
        echo exe1-write=\$($P/try write /proc/1/exe)
        echo exe1-read=\$($P/try read /proc/1/exe | cut -c1-6)
        echo root1=\$($P/try read /proc/1/root/etc/hostname)
        echo self-write=\$($P/try trunc /proc/self/exe)"
    assert_success
    [ "$(kv exe1-write)" = EACCES ]
    [ "$(kv exe1-read)" = EACCES ]
    [ "$(kv root1)" = EACCES ]
    [ "$(kv self-write)" = ETXTBSY ] || [ "$(kv self-write)" = EACCES ]
    [ "$(sha256sum <"$RR_BIN/revrun")" = "$sum" ]
}

@test "self-protection: pid 1's command line shows none of revrun's (no host paths)" {
    run rr_run sh -c 'tr "\0" " " </proc/1/cmdline; echo'
    assert_success
    assert_output_contains "revrun-init"
    [[ "$output" != *"$RR_TMP"* && "$output" != *"$RR_ROOT"* && "$output" != *--lower* ]]
}

@test "self-protection: a symlink in a bound tree cannot carry a mount destination out of the root" {
    mkdir -p "$RR_TMP/data" "$RR_TMP/victim"
    # the host would let anyone create there: only the resolution keeps it out
    chmod 0777 "$RR_TMP/victim"
    ln -s "$RR_TMP/victim" "$RR_TMP/data/abs"
    ln -s ../../../../../../../../../../../.."$RR_TMP/victim" "$RR_TMP/data/rel"
    make_bundle \
        'c["mounts"].append({"destination": "/data", "type": "bind", "source": "'"$RR_TMP/data"'", "options": ["rbind", "ro"]})' \
        'c["mounts"].append({"destination": "/data/abs/x", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]})' \
        'c["mounts"].append({"destination": "/data/rel/y", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]})' \
        "$(args '["sh", "-c", "echo hi > /data/abs/x/f && echo hi > /data/rel/y/f && echo inside"]')"
    run rr_bundle run l1-$X
    # resolved inside the new root, where the target does not exist: refused,
    # naming the destination; never created on the host
    assert_failure
    assert_output_contains "destination: open data/abs"
    [ -z "$(ls -A "$RR_TMP/victim")" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
    [ "$(readlink "$RR_TMP/data/abs")" = "$RR_TMP/victim" ]
}

# ---- /proc ----

@test "/proc: masked entries read empty, read-only ones are read-only mounts and refuse writes" {
    masked=()
    for f in /proc/interrupts /proc/keys /proc/timer_list /proc/kcore /proc/sched_debug /proc/latency_stats; do
        [ -e "$f" ] && masked+=("$f")
    done
    [ "${#masked[@]}" -gt 0 ]
    [ "$(wc -c </proc/interrupts)" -gt 0 ]
    run rr_run sh -c "
        for f in ${masked[*]}; do echo \"\$f \$($P/try read \$f)\"; done
        echo acpi=\$(ls -A /proc/acpi 2>&1 | wc -l)
        echo sys=\$($P/try write /proc/sys/kernel/hostname)
        echo sysrq=\$($P/try write /proc/sysrq-trigger)
        cat /proc/self/mountinfo"
    assert_success
    # a mask is an empty tmpfs or a nodev bind of /dev/null: empty or refused
    for f in "${masked[@]}"; do
        grep -qE "^$f (ok |EACCES)$" <<<"$output" || {
            echo "$f: $(grep "^$f " <<<"$output")" >&2
            return 1
        }
    done
    [ "$(kv acpi)" = 0 ]
    # refused twice over: by ownership (host root's files) and by the mount
    [[ "$(kv sys)" =~ ^(EROFS|EACCES)$ ]]
    [[ "$(kv sysrq)" =~ ^(EROFS|ENOENT|EACCES)$ ]]
    for f in /proc/sys /proc/bus /proc/fs /proc/irq /proc/sysrq-trigger; do
        [ -e "$f" ] || continue
        awk -v m="$f" '$5 == m && $6 ~ /^ro,/ {found = 1} END {exit !found}' <<<"$output" || {
            echo "$f is not a read-only mount inside" >&2
            return 1
        }
    done
}

# ---- Landlock ----

landlock_abi() {
    rr check | sed -n 's/.*landlock *ABI \([0-9]*\).*/\1/p'
}

@test "landlock: check reports the ABI; writes outside the writable set fail even where a mount allows them" {
    run rr check
    assert_output_contains "landlock"
    [ -n "$(landlock_abi)" ] || skip "this kernel has no Landlock"
    script landlock.sh <<EOF
#!/bin/sh
for f in root:/$TAG etc:/etc/$TAG dev:/dev/$TAG ws:/workspace/w out:/out/w tmp:/tmp/w \
         home:/home/agent/w shm:/dev/shm/w null:/dev/null; do
    echo "\${f%%:*}=\$($P/try write \${f#*:})"
done
echo "mkdir=\$($P/try mkdir /$TAG.d)"
echo "fifo=\$($P/try mknod-fifo /dev/$TAG.p)"
EOF
    # a mistake in the mount plan (the root left writable); Landlock required
    make_bundle 'c["root"]["readonly"] = False' 'c["revrun"]["bestEffort"] = []' \
        "$(args "[\"$P/landlock.sh\"]")"
    run rr_bundle run ll1-$X
    assert_success
    for k in root etc dev mkdir fifo; do
        [ "$(kv $k)" = EACCES ] || {
            echo "$k: $(kv $k)" >&2
            return 1
        }
    done
    for k in ws out tmp home shm null; do
        [ "$(kv $k)" = ok ]
    done
    [ "$(cat "$RR_TMP/out/w")" = x ]
}

@test "landlock (rootless): writes outside the writable set fail; the process's own stdout file stays writable, not readable" {
    [ -n "$(landlock_abi)" ] || skip "this kernel has no Landlock"
    script landlock.sh <<EOF
#!/bin/sh
echo "root=\$($P/try write /$TAG)"
echo "dev=\$($P/try write /dev/$TAG)"
echo "ws=\$($P/try write /workspace/w)"
# fd 3: the process's stdout, a file of the caller's; inside \$(), 1 is a pipe
exec 3>&1
echo "stdout_read=\$($P/try read /proc/self/fd/3)"
r=\$($P/try write /proc/self/fd/3)
echo
echo "stdout=\$r"
EOF
    rootless_checkout
    make_bundle 'c["root"]["readonly"] = False' "$(args "[\"$P/landlock.sh\"]")"
    touch "$RR_TMP/ll.out"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/ll.out"
    rr_bundle_rootless run ll2-$X >"$RR_TMP/ll.out"
    output=$(cat "$RR_TMP/ll.out")
    [ "$(kv root)" = EACCES ]
    [ "$(kv dev)" = EACCES ]
    [ "$(kv ws)" = ok ]
    # reopenable with the access it was given: written, not read
    [ "$(kv stdout)" = ok ]
    [ "$(kv stdout_read)" = EACCES ]
}

# ---- nested sandboxes ----

# What an agent's own tool sandbox does: a user and pid namespace with its
# own /proc, through util-linux unshare and through bubblewrap; the shell in
# it sees itself as the first process there (bwrap's own init is pid 1).
nested_script() {
    script nested.sh <<'EOF'
#!/bin/sh
unshare -Urpf --mount-proc sh -c 'test $$ = 1 && test "$(cut -d" " -f1 /proc/self/stat)" -lt 10'
echo "unshare=$?"
bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --unshare-pid --proc /proc --dev /dev sh -c 'test $$ = 2 && test "$(cut -d" " -f1 /proc/self/stat)" -lt 10'
echo "bwrap=$?"
# root of a nested user namespace, still no write to revrun's read-only mounts
unshare -Urm sh -c 'mount -o remount,bind,rw /usr || mount -o remount,bind,rw /; touch /usr/.w || touch /.w' 2>/dev/null
echo "nested_write=$?"
EOF
}

@test "nested sandboxes: off by default, so unshare and bwrap fail" {
    nested_script
    run rr_run $P/nested.sh
    assert_success
    [ "$(kv unshare)" != 0 ]
    [ "$(kv bwrap)" != 0 ]
}

@test "nested sandboxes: with revrun.nestedSandboxes, unshare -Urpf --mount-proc and bwrap --proc work" {
    nested_script
    make_bundle 'c["revrun"]["nestedSandboxes"] = True' \
        "$(args "[\"sh\", \"-c\", \"$P/nested.sh; $P/ids; $P/sys | grep -E '^(keyctl|setns)='\"]")"
    run rr_bundle run n1-$X
    assert_success
    [ "$(kv unshare)" = 0 ]
    [ "$(kv bwrap)" = 0 ]
    # the rest of the boundary stays
    [ "$(kv nested_write)" != 0 ]
    [ ! -e /usr/.w ]
    assert_identity
    [ "$(kv keyctl)" = EPERM ]
    [ "$(kv setns)" = EPERM ]
}

@test "nested sandboxes (rootless): with revrun.nestedSandboxes, unshare and bwrap work" {
    nested_script
    rootless_checkout
    make_bundle 'c["revrun"]["nestedSandboxes"] = True' "$(args "[\"$P/nested.sh\"]")"
    run rr_bundle_rootless run n2-$X
    assert_success
    [ "$(kv unshare)" = 0 ]
    [ "$(kv bwrap)" = 0 ]
}

# ---- hostname ----

@test "hostname: the container's own; sethostname fails and the host's is unchanged" {
    host=$(hostname)
    run rr_run sh -c "hostname; $P/try sethostname $TAG; true"
    assert_success
    [ "$(sed -n 1p <<<"$output")" = revrun ]
    [ "$(sed -n 2p <<<"$output")" = EPERM ]
    [ "$(hostname)" = "$host" ]
}

# ---- resource ceilings ----

@test "limits: a fork bomb stops at the pids limit" {
    make_bundle 'c["linux"]["resources"]["pids"]["limit"] = 64' "$(args "[\"$P/bomb\", \"fork\", \"500\"]")"
    run rr_bundle run p1-$X
    assert_success
    n=$(sed -n 's/^forked=\([0-9]*\).*/\1/p' <<<"$output")
    [ "$n" -lt 64 ]
    assert_output_contains "error=EAGAIN"
}

@test "limits (rootless): a fork bomb stops at the pids limit" {
    rootless_checkout
    make_bundle 'c["linux"]["resources"]["pids"]["limit"] = 64' "$(args "[\"$P/bomb\", \"fork\", \"500\"]")"
    run rr_bundle_rootless run p2-$X
    assert_success
    n=$(sed -n 's/^forked=\([0-9]*\).*/\1/p' <<<"$output")
    [ "$n" -lt 64 ]
}

@test "limits: a memory bomb is killed at the memory limit, and the exit record says so" {
    make_bundle 'c["linux"]["resources"]["memory"] = {"limit": 67108864, "swap": 67108864}' \
        "$(args "[\"$P/bomb\", \"mem\", \"1024\"]")"
    run rr_bundle run --keep m1-$X
    [ "$status" -eq 137 ]
    [[ "$output" != *survived* ]]
    last=$(sed -n 's/^mem=//p' <<<"$output" | tail -1)
    [ "${last:-0}" -le 64 ]
    [ "$(python3 -c "import json;print(json.load(open('$RR_ROOT/m1-$X/exit.json'))['oomKilled'])")" = True ]
    rr destroy m1-$X
}

# Unread TCP buffers are memory the agent holds: 100 loopback connections,
# each filled until the kernel says no, in a container of 64 MiB. cgroup v2
# charges them to memory.max; v1 counts them apart, bounded only by
# memory.kmem.tcp.limit_in_bytes (unbounded, 1.1 GB were held).
@test "limits: unread TCP socket buffers stay within the memory limit (v1: kmem.tcp)" {
    script hold-tcp <<'EOF'
#!/usr/bin/python3
import os, socket, sys, time
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(128)
port = srv.getsockname()[1]
conns, held, chunk = [], 0, b"x" * 65536
for i in range(100):
    try:
        c = socket.create_connection(("127.0.0.1", port)); a, _ = srv.accept()
    except OSError as e:
        print("connect", i, e.errno); break
    a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32 << 20)
    c.setblocking(False)
    conns.append((c, a))
    while True:
        try:
            held += c.send(chunk)
        except OSError:
            break
print("held=%d" % held, flush=True)
open("/out/ready", "w").close()
for _ in range(600):
    if os.path.exists("/out/go"):
        break
    time.sleep(0.1)
EOF
    make_bundle 'c["linux"]["resources"]["memory"] = {"limit": 64 << 20, "swap": 64 << 20}' \
        "$(args "[\"$P/hold-tcp\"]")"
    (cd "$RR_TMP/bundle" && rr run tcp-$X >"$RR_TMP/tcp.out" 2>&1) &
    KILL_PIDS+=($!)
    for _ in $(seq 600); do
        [ -e "$RR_TMP/out/ready" ] && break
        sleep 0.1
    done
    cg=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cgroup'])" "$RR_ROOT/tcp-$X/state.json")
    f=/sys/fs/cgroup/memory$cg/memory.kmem.tcp.max_usage_in_bytes
    [ -e "$f" ] && tcp_max=$(cat "$f")
    touch "$RR_TMP/out/go"
    wait "${KILL_PIDS[-1]}" || true
    output=$(cat "$RR_TMP/tcp.out")
    echo "held $(kv held) bytes${tcp_max:+, kmem.tcp max usage $tcp_max}" >&3
    [ -n "$(kv held)" ]
    [ "$(kv held)" -le $(((64 << 20) + (8 << 20))) ]
    [ -z "${tcp_max:-}" ] || [ "$tcp_max" -le $(((64 << 20) + (1 << 20))) ]
}

# A caller whose hard limits are below the config's (a CI runner, a service
# unit): the container could not raise them, so create says which limit and
# the remedy before anything exists; nothing is left either way.
@test "limits: a hard RLIMIT_NOFILE below the config's, or below what revrun needs, is refused with the remedy; nothing is left" {
    run prlimit --nofile=1024:1024 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- echo RAN
    assert_failure
    [ "$status" -ne 126 ]
    assert_output_contains "process.rlimits: RLIMIT_NOFILE hard 4096 is above this caller's hard limit (1024)"
    assert_output_contains "ulimit -Hn"
    [[ "$output" != *RAN* ]]
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    # so few files that a create would fail half way on EMFILE
    run prlimit --nofile=12:12 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" --id emfile-$X -- echo RAN
    assert_failure
    assert_output_contains "RLIMIT_NOFILE is 12 here; revrun needs at least 64"
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    [ -z "$(find /sys/fs/cgroup -type d -name "emfile-$X" 2>/dev/null)" ]
    # and with room enough, it runs
    run prlimit --nofile=4096:4096 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- echo RAN
    assert_success
    assert_output_contains RAN
}

@test "limits (rootless): a hard RLIMIT_NOFILE below the config's is refused with the remedy" {
    rootless_checkout
    run as_user prlimit --nofile=1024:1024 "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- echo RAN
    assert_failure
    assert_output_contains "RLIMIT_NOFILE hard 4096 is above this caller's hard limit (1024)"
    [ -z "$(ls -A "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun" 2>/dev/null)" ]
}

@test "limits: a disk fill stops at the upper's cap with ENOSPC; the host's disk is untouched" {
    make_bundle 'c["revrun"]["upperSize"] = "8M"' "$(args "[\"$P/bomb\", \"fill\", \"/workspace/big\", \"64\"]")"
    free_before=$(df -k --output=avail "$RR_TMP" | tail -1)
    run rr_bundle run --keep fill1-$X
    assert_success
    assert_output_contains "error=ENOSPC"
    bytes=$(sed -n 's/^bytes=\([0-9]*\).*/\1/p' <<<"$output")
    [ "$bytes" -le $((8 << 20)) ]
    [ ! -e "$RR_TMP/checkout/big" ]
    free_after=$(df -k --output=avail "$RR_TMP" | tail -1)
    [ $((free_before - free_after)) -lt 4096 ]
    rr destroy fill1-$X
}

@test "limits: rlimits NOFILE, NPROC, CORE=0 and FSIZE reach the process; FSIZE stops a big file" {
    run rr_run $P/ids
    assert_success
    [ "$(kv rlimit.NOFILE)" = 4096:4096 ]
    [ "$(kv rlimit.NPROC)" = 1024:1024 ]
    [ "$(kv rlimit.CORE)" = 0:0 ]
    [ "$(kv rlimit.FSIZE)" = 1073741824:1073741824 ]
    make_bundle 'c["process"]["rlimits"] = [{"type": "RLIMIT_FSIZE", "soft": 4194304, "hard": 4194304}]' \
        "$(args "[\"$P/bomb\", \"fill\", \"/tmp/big\", \"64\"]")"
    run rr_bundle run r1-$X
    assert_success
    assert_output_contains "bytes=4194304 error=EFBIG"
}

@test "limits: the wall-clock timeout kills the whole container, a detached grandchild included" {
    make_bundle 'c["revrun"]["timeout"] = 2' \
        "$(args "[\"sh\", \"-c\", \"(setsid sh -c 'sleep 300 # $TAG' </dev/null >/dev/null 2>&1 &); exec sleep 20\"]")"
    start=$(date +%s)
    run rr_bundle run to1-$X
    [ "$status" -eq 137 ]
    assert_output_contains "timeout"
    [ $(($(date +%s) - start)) -lt 15 ]
    assert_no_tagged_process
}

@test "limits: a limit the host cannot enforce is refused unless best-effort; no cgroup is left" {
    if cgroup_is_v2; then skip "this host delegates cgroup v2 to the user"; fi
    # rootless, with no delegated cgroup: the default limits cannot be enforced
    nodeleg_setup
    run undelegated "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- true
    assert_failure
    assert_output_contains "revrun.bestEffort"
    make_bundle 'c["revrun"]["bestEffort"] = ["memory", "pids", "cpu", "landlock"]' "$(args '["true"]')"
    chown -R "$NODELEG_UID:$NODELEG_GID" "$RR_TMP/bundle"
    run bash -c "cd '$RR_TMP/bundle' && $(declare -f undelegated) && RR_TMP='$RR_TMP' \
        NODELEG_UID=$NODELEG_UID NODELEG_GID=$NODELEG_GID undelegated '$RR_BIN/revrun' run be1-$X"
    assert_success
    assert_output_contains "best effort"
    # as root: the container's cgroups go with destroy
    ROOTLESS=
    SPEC_UID=$REVRUN_TEST_UID
    SPEC_GID=$REVRUN_TEST_GID
    make_bundle "$(args '["sleep", "300"]')"
    rr_bundle create cg1-$X </dev/null
    cg=$(python3 -c "import json;print(json.load(open('$RR_ROOT/cg1-$X/state.json'))['cgroup'])")
    [ -d "/sys/fs/cgroup/pids$cg" ] || [ -d "/sys/fs/cgroup$cg" ]
    rr destroy --force cg1-$X
    [ ! -e "/sys/fs/cgroup/pids$cg" ] && [ ! -e "/sys/fs/cgroup/memory$cg" ] &&
        [ ! -e "/sys/fs/cgroup/cpu$cg" ] && [ ! -e "/sys/fs/cgroup$cg" ] || false
}

@test "limits: a container's cgroup is its own; one that exists is never joined, and nothing of its owner is killed" {
    make_bundle "$(args '["sh", "-c", "sleep 300 # '"$TAG"'"]')"
    rr_bundle create dup-$X </dev/null
    rr start dup-$X
    wait_tagged_process
    # the same ID under another --root: a cgroup of its own; its destroy
    # leaves the first container alone
    (cd "$RR_TMP/bundle" &&
        "$RR_BIN/revrun" --root "$RR_TMP/other-root" create dup-$X </dev/null >"$RR_TMP/dup.out" 2>&1)
    "$RR_BIN/revrun" --root "$RR_TMP/other-root" destroy --force dup-$X
    pgrep -f "$TAG" >/dev/null
    [ "$(state_field dup-$X '["status"]')" = running ]
    rr destroy --force dup-$X
    # two configs naming the same linux.cgroupsPath: the second is refused
    make_bundle 'c["linux"]["cgroupsPath"] = "/revrun-test-'"$X"'"' \
        "$(args '["sh", "-c", "sleep 300 # '"$TAG"'"]')"
    rr_bundle create cp1-$X </dev/null
    rr start cp1-$X
    wait_tagged_process
    # (its output to a file: a create that worked would hold the pipe)
    run bash -c "cd '$RR_TMP/bundle' && '$RR_BIN/revrun' --root '$RR_TMP/other-root' create cp2-$X \
        </dev/null >'$RR_TMP/dup.out' 2>&1"
    assert_failure
    grep -q "already exists" "$RR_TMP/dup.out"
    pgrep -f "$TAG" >/dev/null
    [ "$(state_field cp1-$X '["status"]')" = running ]
    [ ! -e "$RR_TMP/other-root/cp2-$X" ]
    rr destroy --force cp1-$X
    assert_no_tagged_process
    [ ! -e "/sys/fs/cgroup/pids/revrun-test-$X" ] && [ ! -e "/sys/fs/cgroup/revrun-test-$X" ] || false
}

# ---- revrun check ----

@test "check: reports what the host enforces; a config it cannot enforce exits non-zero with the remedy" {
    run rr check
    assert_success
    for item in "user namespaces" "native overlay" seccomp cgroups landlock "fresh /proc"; do
        assert_output_contains "$item"
    done
    if cgroup_is_v2; then skip "this host delegates cgroup v2 to the user"; fi
    nodeleg_setup
    make_bundle
    chown -R "$NODELEG_UID:$NODELEG_GID" "$RR_TMP/bundle"
    run undelegated "$RR_BIN/revrun" check --bundle "$RR_TMP/bundle"
    assert_failure
    assert_output_contains "remedy:"
    assert_output_contains "cannot enforce"
}
