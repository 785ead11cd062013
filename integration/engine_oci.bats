#!/usr/bin/env bats
# Engine mode against the runtime spec, without an engine: revrun create,
# start, state and delete on an engine's bundle (containerd's config with a
# busybox image as root), the way runc's callers and the OCI runtime-tools
# validation suite drive a runtime. Judged from inside the container (the
# probes' view of /proc/self/status, the mount table, the files it sees)
# and from the host (what create refused, and why).
#
# The host policy (/etc/revrun/policy.json) is given to one command at a
# time through an overlay over /etc in a mount namespace of its own: the
# host's /etc is never written.

load helpers
load engine_bundle

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-engoci.XXXXXX)
    eng_image "$ENG_DIR"
    # a setuid-root copy of ids: what a setuid binary would give the caller
    cp "$REVRUN_PROBES/ids" "$ENG_DIR/img/rootfs/bin/ids-suid"
    chown 0:0 "$ENG_DIR/img/rootfs/bin/ids-suid"
    chmod 4755 "$ENG_DIR/img/rootfs/bin/ids-suid"
}

teardown_file() {
    rm -rf "$ENG_DIR"
}

setup() {
    RT=$ENG_DIR/revrun
    HOLDER=
    B=$(mktemp -d /tmp/revrun-engoci-b.XXXXXX)
    chmod 0755 "$B"
}

teardown() {
    # a namespace holder: its pid 1 ignores all but SIGKILL
    [ -n "${HOLDER:-}" ] && pkill -9 -P "$HOLDER" 2>/dev/null
    [ -n "${HOLDER:-}" ] && kill -9 "$HOLDER" 2>/dev/null
    "$RT" --root "$B/state" delete --force c1 >/dev/null 2>&1 || true
    "$RT" --root "$B/state2" delete --force c2 >/dev/null 2>&1 || true
    grep -F " $B" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$B"
}

# create, start, wait for the process to end, delete: its output in $output,
# create's log (what revrun tightened) in $B/log. POLICY (JSON), when set,
# is the host policy create sees.
run_bundle() {
    local create=("$RT" --root "$B/state" --log "$B/log" create --bundle "$B" c1) i
    rm -f "$B/log"
    if [ -n "${POLICY:-}" ]; then
        with_policy "$POLICY" "${create[@]}" </dev/null >"$B/out" 2>&1 || {
            cat "$B/out"
            return 1
        }
    else
        "${create[@]}" </dev/null >"$B/out" 2>&1 || {
            cat "$B/out"
            return 1
        }
    fi
    "$RT" --root "$B/state" start c1
    for i in $(seq 300); do
        "$RT" --root "$B/state" state c1 | grep -q '"status": *"stopped"' && break
        sleep 0.1
    done
    "$RT" --root "$B/state" delete c1 || {
        "$RT" --root "$B/state" state c1
        cat "$B/out"
        return 1
    }
    cat "$B/out"
}

kv() { sed -n "s/^$1=//p" <<<"$output" | head -1; }

CONFIG_NNP='{"engine": {"noNewPrivileges": "config"}}'

@test "noNewPrivileges false: forced on by default; the host policy's \"config\" honours it, the seccomp floor and the capability bound still hold" {
    bundle 'c["process"]["args"] = ["/bin/ids"]' 'c["process"]["noNewPrivileges"] = False'
    run run_bundle
    echo "$output"
    assert_success
    [ "$(kv NoNewPrivs)" = 1 ]
    grep -q "noNewPrivileges: false tightened to true" "$B/log"
    # a policy file without the switch forces it too
    POLICY='{"engine": {}}' run run_bundle
    echo "$output"
    assert_success
    [ "$(kv NoNewPrivs)" = 1 ]
    POLICY=$CONFIG_NNP run run_bundle
    echo "$output"
    assert_success
    [ "$(kv NoNewPrivs)" = 0 ]
    [ "$(kv Seccomp)" = 2 ]
    # the containerd set the config asks, within the default policy: no more
    [ "$(kv CapBnd)" = 00000000a80425fb ]
    [ "$(kv CapEff)" = 00000000a80425fb ]
    grep -q "noNewPrivileges: false honoured" "$B/log"
    # absent is false (the runtime spec's default); true stays true
    bundle 'c["process"]["args"] = ["/bin/ids"]' 'del c["process"]["noNewPrivileges"]'
    POLICY=$CONFIG_NNP run run_bundle
    echo "$output"
    assert_success
    [ "$(kv NoNewPrivs)" = 0 ]
    bundle 'c["process"]["args"] = ["/bin/ids"]'
    POLICY=$CONFIG_NNP run run_bundle
    echo "$output"
    assert_success
    [ "$(kv NoNewPrivs)" = 1 ]
    # a value that is neither is refused, naming the file's field
    bundle 'c["process"]["args"] = ["/bin/ids"]'
    POLICY='{"engine": {"noNewPrivileges": "off"}}' run run_bundle
    assert_failure
    [[ "$output" == *"engine.noNewPrivileges"* ]]
}

@test "noNewPrivileges false honoured: the seccomp floor denies what it always denies, and a setuid-root binary gives a container user nothing" {
    bundle 'c["process"]["args"] = ["/bin/sys"]' 'c["process"]["noNewPrivileges"] = False'
    POLICY=$CONFIG_NNP run run_bundle
    echo "$output"
    assert_success
    for call in mount keyctl unshare.user bpf; do
        [ "$(kv "$call")" = EPERM ] || {
            echo "$call: $(kv "$call")"
            return 1
        }
    done
    # uid 1000 runs a setuid-root binary: every mount is nosuid, so exec
    # keeps its ids and gains no capability
    bundle 'c["process"]["args"] = ["/bin/ids-suid"]' 'c["process"]["noNewPrivileges"] = False' \
        'c["process"]["user"] = {"uid": 1000, "gid": 1000}'
    POLICY=$CONFIG_NNP run run_bundle
    echo "$output"
    assert_success
    [ "$(kv NoNewPrivs)" = 0 ]
    [ "$(kv euid)" = 1000 ]
    [ "$(kv uid)" = 1000 ]
    [ "$(kv CapEff)" = 0000000000000000 ]
    [ "$(kv CapPrm)" = 0000000000000000 ]
}

@test "review profile: no_new_privs whatever the host policy says; noNewPrivileges false is refused" {
    mkdir -p "$B/co"
    echo x >"$B/co/a"
    chmod -R a+rX "$B/co"
    run with_policy "$CONFIG_NNP" "$RT" --root "$B/state" run --lower "$B/co" -- \
        sh -c 'grep ^NoNewPrivs: /proc/self/status'
    echo "$output"
    assert_success
    [[ "$output" == *"NoNewPrivs:"*1* ]]
    "$RT" spec --lower "$B/co" >"$B/config.json"
    python3 - "$B/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["noNewPrivileges"] = False
json.dump(c, open(sys.argv[1], "w"))
PY
    run with_policy "$CONFIG_NNP" "$RT" --root "$B/state" create --bundle "$B" c1
    echo "$output"
    assert_failure
    [[ "$output" == *"noNewPrivileges: revrun always sets it"* ]]
}

@test "the runtime spec's extensibility: an unknown top-level property is ignored and named; unknown keys inside what confines, and an unknown capability name, fail create" {
    bundle 'c["process"]["args"] = ["/bin/ids"]' 'c["unknown"] = {"capabilities": ["CAP_SYS_ADMIN"]}'
    run run_bundle
    echo "$output"
    assert_success
    [ "$(kv CapBnd)" = 00000000a80425fb ]
    grep -q "unknown top-level properties ignored.*: unknown" "$B/log"
    bundle 'c["process"]["args"] = ["/bin/ids"]' 'c["process"]["unknown"] = 1'
    run run_bundle
    assert_failure
    [[ "$output" == *"process.unknown: unknown or unsupported key"* ]]
    bundle 'c["process"]["args"] = ["/bin/ids"]' 'c["linux"]["unknown"] = 1'
    run run_bundle
    assert_failure
    [[ "$output" == *"linux.unknown: unknown or unsupported key"* ]]
    # CAP_TEST: no kernel number; the runtime spec says it MUST be an error
    bundle 'c["process"]["args"] = ["/bin/ids"]' 'c["process"]["capabilities"]["bounding"].append("CAP_TEST")'
    run run_bundle
    assert_failure
    [[ "$output" == *"process.capabilities.bounding[14]: unknown capability"* ]]
    [ ! -e "$B/state/c1" ]
}

@test "mounts: propagation as the config asks, among the container's own mounts only; a bind's data options ignored; mountinfo in the config's order" {
    # a shared mount on this side: the container's bind of it must not be
    # its peer
    mkdir -p "$B/src"
    mount -t tmpfs tmpfs "$B/src"
    mount --make-shared "$B/src"
    local host_group
    host_group=$(grep -F " $B/src " /proc/self/mountinfo | grep -o 'shared:[0-9]*')
    [ -n "$host_group" ]
    bundle 'c["process"]["args"] = ["cat", "/proc/self/mountinfo"]' \
        'c["linux"]["rootfsPropagation"] = "shared"' \
        'c["mounts"] += [{"destination": "/tmp/a", "type": "tmpfs", "source": "tmpfs", "options": ["shared"]},
                         {"destination": "/mnt/e", "source": "'"$B/src"'", "options": ["rbind", "rshared", "mode=755", "size=1k"]},
                         {"destination": "/tmp/b", "type": "tmpfs", "source": "tmpfs", "options": ["slave"]}]'
    run run_bundle
    echo "$output"
    assert_success
    local a e b root
    a=$(grep -n ' /tmp/a ' <<<"$output")
    e=$(grep -n ' /mnt/e ' <<<"$output")
    b=$(grep -n ' /tmp/b ' <<<"$output")
    root=$(awk '$5 == "/"' <<<"$output")
    # in the config's order
    [ "${a%%:*}" -lt "${e%%:*}" ]
    [ "${e%%:*}" -lt "${b%%:*}" ]
    # shared where asked, in peer groups of the container's own
    [[ "$a" == *shared:* ]]
    [[ "$e" == *shared:* ]]
    [[ "$root" == *shared:* ]]
    [[ "$e" != *"$host_group "* ]]
    # slave of nothing: private
    [[ "$b" != *shared:* ]]
    [[ "$b" != *master:* ]]
    grep -q "mounts\[8\].options: filesystem data options of a bind mount ignored" "$B/log"
}

@test "rlimits: as the config gives them; one the kernel refuses (NOFILE above fs.nr_open) or an unknown type fails create, naming it" {
    bundle 'c["process"]["args"] = ["/bin/ids"]' \
        'c["process"]["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": 4000, "soft": 3000}, {"type": "RLIMIT_CORE", "hard": 4294967296, "soft": 3221225472}, {"type": "RLIMIT_FSIZE", "hard": 8589934592, "soft": 7516192768}]'
    run run_bundle
    echo "$output"
    assert_success
    [ "$(kv rlimit.NOFILE)" = 3000:4000 ]
    [ "$(kv rlimit.CORE)" = 3221225472:4294967296 ]
    [ "$(kv rlimit.FSIZE)" = 7516192768:8589934592 ]
    local nr_open
    nr_open=$(cat /proc/sys/fs/nr_open)
    bundle 'c["process"]["args"] = ["/bin/ids"]' \
        'c["process"]["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": '$((nr_open + 1))', "soft": 1024}]'
    run run_bundle
    echo "$output"
    assert_failure
    [[ "$output" == *"process.rlimits[0]"* ]]
    [ ! -e "$B/state/c1" ]
    bundle 'c["process"]["args"] = ["/bin/ids"]' \
        'c["process"]["rlimits"].append({"type": "RLIMIT_TEST", "hard": 1024, "soft": 1024})'
    run run_bundle
    assert_failure
    [[ "$output" == *"process.rlimits[1].type: unknown rlimit"* ]]
}

# c2's create in $B/state2, to a file (a process it left would hold a pipe
# open): refused, saying $1
refused_c2() {
    local rc=0
    timeout 60 "$RT" --root "$B/state2" create --bundle "$B" c2 </dev/null >"$B/c2.out" 2>&1 || rc=$?
    cat "$B/c2.out"
    [ "$rc" != 0 ]
    grep -qF "$1" "$B/c2.out"
}

# review2 F3: a cgroup is the container's only once its create made it. A
# second create with the same linux.cgroupsPath is refused at the first
# hierarchy it meets the first container's cgroup in (an engine container is
# in every hierarchy, memory first; the devices cgroup when nothing else);
# it must leave the first container running in its cgroups, with or without
# limits of its own.
@test "a create refused on another container's cgroup kills and removes nothing of it" {
    [ -d /sys/fs/cgroup/devices ] || skip "no v1 devices hierarchy"
    local cgp=/rrf3-$$ pid h
    bundle 'c["process"]["args"] = ["sleep", "1000"]' \
        "c['linux']['cgroupsPath'] = '$cgp'" \
        'c["linux"]["resources"] = {"devices": [{"allow": False, "access": "rwm"}]}'
    # the process keeps create's stdio: not bats' own
    timeout 60 "$RT" --root "$B/state" create --bundle "$B" c1 </dev/null >"$B/c1.out" 2>&1
    timeout 60 "$RT" --root "$B/state" start c1
    pid=$(timeout 60 "$RT" --root "$B/state" state c1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    grep -qx "$pid" "/sys/fs/cgroup/devices$cgp/cgroup.procs"
    refused_c2 "$cgp already exists"
    # the same with a memory limit
    bundle 'c["process"]["args"] = ["sleep", "1000"]' \
        "c['linux']['cgroupsPath'] = '$cgp'" \
        'c["linux"]["resources"] = {"devices": [{"allow": False, "access": "rwm"}], "memory": {"limit": 67108864}}'
    refused_c2 "$cgp already exists"
    # c1: still running, still in its cgroups, its limits untouched
    timeout 60 "$RT" --root "$B/state" state c1 | grep -q '"status": *"running"'
    kill -0 "$pid"
    for h in devices memory pids cpu cpuacct blkio freezer; do
        [ -d "/sys/fs/cgroup/$h" ] || continue
        grep -qx "$pid" "/sys/fs/cgroup/$h$cgp/cgroup.procs"
    done
    [ "$(cat "/sys/fs/cgroup/memory$cgp/memory.limit_in_bytes")" != 67108864 ]
    timeout 60 "$RT" --root "$B/state" delete --force c1
    for h in devices memory pids cpu cpuacct blkio freezer; do
        [ ! -e "/sys/fs/cgroup/$h$cgp" ]
    done
}

# linux.resources.cpu.cpus / mems: the container's tasks run on the CPUs
# and allocate from the memory nodes it names, as runc places them (cgroup
# v1 here: the cpuset hierarchy; v2: the cpuset controller enabled down to
# the container's cgroup). Judged inside (the kernel's Cpus_allowed_list)
# and from the host (the cgroup's cpuset.cpus, gone after delete); a list
# the parent does not allow is refused naming both, leaving no cgroup.
@test "linux.resources.cpu.cpus and mems: the container runs on the CPUs named (Cpus_allowed_list 0 inside, cpuset.cpus on the host); a list outside the parent's is refused; a real-time budget is tightened to none" {
    local cs cgp=/rrengines-oci/cpuset-$$ pid
    cs=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuset(,|$)/ {print $2; exit}' /proc/self/mounts)
    if [ -z "$cs" ] && ! grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        skip "no cpuset controller on this host"
    fi
    [ -n "$cs" ] || cs=/sys/fs/cgroup # v2
    bundle "c['linux']['cgroupsPath'] = '$cgp'" \
        'c["process"]["args"] = ["sh", "-c", "grep -E \"^(Cpus|Mems)_allowed_list\" /proc/self/status; exec sleep 1000"]' \
        'c["linux"]["resources"] = {"cpu": {"cpus": "0", "mems": "0", "realtimeRuntime": 950000, "realtimePeriod": 1000000}}'
    timeout 60 "$RT" --root "$B/state" --log "$B/log" create --bundle "$B" c1 </dev/null >"$B/c1.out" 2>&1 || {
        cat "$B/c1.out"
        false
    }
    timeout 60 "$RT" --root "$B/state" start c1
    pid=$(timeout 60 "$RT" --root "$B/state" state c1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    for _ in $(seq 100); do grep -q Mems "$B/c1.out" && break; sleep 0.1; done
    cat "$B/c1.out"
    grep -qP '^Cpus_allowed_list:\t0$' "$B/c1.out"
    grep -qP '^Mems_allowed_list:\t0$' "$B/c1.out"
    [ "$(cat "$cs$cgp/cpuset.cpus")" = 0 ]
    grep -qx "$pid" "$cs$cgp/cgroup.procs"
    # the real-time budget asked: none given, said in the log
    grep -q "realtimeRuntime/realtimePeriod: not applied" "$B/log"
    if [ -e "/sys/fs/cgroup/cpu$cgp/cpu.rt_runtime_us" ]; then
        [ "$(cat "/sys/fs/cgroup/cpu$cgp/cpu.rt_runtime_us")" = 0 ]
    fi
    timeout 60 "$RT" --root "$B/state" delete --force c1
    [ ! -e "$cs$cgp" ]
    # CPUs the parent cgroup does not have: refused, naming the lists
    bundle "c['linux']['cgroupsPath'] = '$cgp'" 'c["process"]["args"] = ["true"]' \
        'c["linux"]["resources"] = {"cpu": {"cpus": "0-4095"}}'
    run timeout 60 "$RT" --root "$B/state" create --bundle "$B" c1 </dev/null
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *'linux.resources.cpu.cpus "0-4095": refused by the kernel (the parent cgroup allows "'* ]]
    [ ! -e "$cs$cgp" ]
    [ ! -e "$B/state/c1" ]
}

# An IPC and a pid namespace joined by path that the host's user namespace
# owns (made here by `unshare`, as the runtime-tools suite makes them): the
# container's own user namespace cannot mount their mqueue and proc, so
# create makes them on the host side, in those namespaces. Judged inside
# (the queue made in the joined IPC namespace, the joined namespace's pid 1
# in ps) and from the host (the same namespaces; the log says why).
@test "an IPC and a pid namespace of the host's joined by path: mqueue and proc are theirs, made on the host side" {
    local pid1
    # not bats' fd 3: the suite would wait for the holder
    unshare --ipc --pid --fork sleep 1000 3>&- &
    HOLDER=$!
    for _ in $(seq 50); do pid1=$(pgrep -P "$HOLDER" sleep) && break; sleep 0.1; done
    [ -n "$pid1" ]
    # a queue made in the joined IPC namespace
    nsenter --ipc="/proc/$pid1/ns/ipc" -- unshare --mount --propagation private -- \
        sh -c 'mount -t mqueue mqueue /mnt && touch /mnt/rrq-host'
    bundle 'c["process"]["args"] = ["sh", "-c", "ls /dev/mqueue; ps -o pid,args; grep -E \" /proc | /dev/mqueue \" /proc/self/mounts | cut -d\" \" -f2,3,4"]' \
        "c['linux']['namespaces'] = [n for n in c['linux']['namespaces'] if n['type'] not in ('ipc', 'pid')] + [{'type': 'ipc', 'path': '/proc/$pid1/ns/ipc'}, {'type': 'pid', 'path': '/proc/$pid1/ns/pid'}]"
    run run_bundle
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *rrq-host* ]]
    # the joined namespace's pid 1 is the holder's sleep
    [[ "$output" == *"    1 sleep 1000"* ]]
    [[ "$output" == *"/proc proc rw,nosuid,nodev,noexec"* ]]
    [[ "$output" == *"/dev/mqueue mqueue rw,nosuid,nodev,noexec"* ]]
    grep -q "mounts\[[0-9]*\]: proc made by revrun on the host side, in the joined pid namespace" "$B/log"
    grep -q "mounts\[[0-9]*\]: mqueue made by revrun on the host side, in the joined IPC namespace" "$B/log"
}
