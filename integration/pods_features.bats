#!/usr/bin/env bats
# The pod features a kubelet uses (issue 27 item 4), each run under the
# `runc` handler (the control) and the `revrun` handler of the CRI node in
# integration/cri/: the pod's loopback, the user and groups a container
# runs as, a read-only root, the memory limit and OOMKilled, CPU shares and
# quota, RuntimeDefault seccomp, the pod's net.* sysctls, interactive exec,
# logs, stats, a container restarted in a live pod, and the systemd cgroup
# driver. Each is judged from the CRI's answers, from inside the pod and
# from the host (the container's cgroup files, its host ids; no process,
# mount, cgroup or id record left after).
# Outside CI a missing containerd or grpc skips; under CI it fails.

load helpers
source "$BATS_TEST_DIRNAME/cri/node.bash"

need_node() {
    local why=
    command -v containerd >/dev/null || why="containerd is not installed"
    [ -x /usr/lib/cni/bridge ] || why="containernetworking-plugins is not installed"
    /usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null ||
        why="python3-grpcio / python3-grpc-tools are not installed"
    [ -z "$why" ] && return 0
    [ "${CI:-}" = true ] && {
        echo "$why (under CI)" >&2
        return 1
    }
    echo "$why" >"$BATS_FILE_TMPDIR/skip"
    return 0
}

setup_file() {
    need_node || return 1
    [ -e "$BATS_FILE_TMPDIR/skip" ] && return 0
    node_up "$(mktemp -u /tmp/revrun-podfeat.XXXXXX)" || {
        node_down
        return 1
    }
}

teardown_file() {
    node_down
}

setup() {
    [ -e "$BATS_FILE_TMPDIR/skip" ] && skip "$(cat "$BATS_FILE_TMPDIR/skip")"
    : >"$NODE_DIR/pods.list"
}

teardown() {
    local p
    [ -n "${NODE_DIR:-}" ] && [ -f "$NODE_DIR/pods.list" ] || return 0
    while read -r p; do
        cri stopp "$p" >/dev/null 2>&1
        cri rmp "$p" >/dev/null 2>&1
    done <"$NODE_DIR/pods.list"
    if [ -n "${SYSTEMD_NODE:-}" ]; then
        node_down
        NODE_DIR=$MAIN_NODE_DIR NODE_TAG=$MAIN_NODE_TAG NODE_NETNS=$MAIN_NODE_NETNS
        NODE_SOCK=$MAIN_NODE_SOCK NODE_RR_ROOT=$MAIN_NODE_RR_ROOT NODE_PID=$MAIN_NODE_PID
        NODE_RUNC_ROOT=$MAIN_NODE_RUNC_ROOT
    fi
    return 0
}

# up NAME HANDLER [PATH=JSON...]: a pod, remembered for teardown; sets POD.
up() {
    POD=$(pod_run "$@") || return 1
    echo "$POD" >>"$NODE_DIR/pods.list"
}

# A field of a CRI answer: dotted path into its JSON.
field() {
    python3 -c 'import json,sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d.get(k, "") if isinstance(d, dict) else ""
print(d)' "$1"
}

# The host pid of a container (c) or a pod's sandbox (p).
pid_of() {
    local verb=inspect
    [ "$1" = p ] && verb=inspectp
    cri "$verb" "$2" | python3 -c 'import json,sys
print(json.loads(json.load(sys.stdin)["info"]["info"])["pid"])'
}

# The pod and everything of it gone, nothing of it left on the host.
down_clean() {
    cri stopp "$1" && cri rmp "$1"
    run node_leftovers
    echo "leftovers: $output"
    [ -z "$output" ]
}

# A container's cgroup directory in the v1 hierarchy CTL (from its pid).
cg_of() {
    local ctl=$1 pid=$2 path
    path=$(awk -F: -v c="$ctl" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' \
        "/proc/$pid/cgroup")
    echo "/sys/fs/cgroup/$ctl$path"
}

# The state a handler keeps of a container id.
state_of() {
    if [ "$1" = runc ]; then echo "$NODE_RUNC_ROOT/k8s.io/$2"; else echo "$NODE_RR_ROOT/k8s.io/$2"; fi
}

# ---- two containers talking over the pod's loopback ----

loopback() {
    local h=$1 srv cli sb
    up "lo$h" "$h"
    srv=$(ctr_run "$POD" "lo$h" srv -- sh -c \
        'mkdir -p /tmp/w && echo hello-over-lo >/tmp/w/index.html && exec httpd -f -p 127.0.0.1:8080 -h /tmp/w')
    cli=$(ctr_run "$POD" "lo$h" cli -- sleep 1000)
    run cri exec-sync "$cli" -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do wget -qO- http://127.0.0.1:8080/ && exit 0; sleep 0.2; done; exit 1'
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = hello-over-lo ]
    # host side: the listener is in the pod's network namespace, not the node's
    sb=$(pid_of p "$POD")
    nsenter --net="/proc/$sb/ns/net" -- ss -ltnH | grep -q '127.0.0.1:8080'
    run nsenter --net="/run/netns/$NODE_NETNS" -- ss -ltnH
    [[ "$output" != *"127.0.0.1:8080"* ]]
    down_clean "$POD"
}

@test "runc: two containers of a pod talk over its loopback" {
    loopback runc
}

@test "revrun: two containers of a pod talk over its loopback" {
    loopback revrun
}

# ---- runAsUser / runAsGroup / supplementalGroups ----

run_as() {
    local h=$1 c pid hu hg
    up "ids$h" "$h"
    c=$(ctr_run "$POD" "ids$h" app 'linux.security_context.run_as_user={"value": 1000}' \
        'linux.security_context.run_as_group={"value": 2000}' \
        'linux.security_context.supplemental_groups=[3000, 4000]' -- sleep 1000)
    for out in "$(cri exec-sync "$c" -- id)" "$(cri exec-sync "$c" -- sh -c 'grep -E "^(Uid|Gid|Groups):" /proc/1/status')"; do
        echo "$out"
    done
    run cri exec-sync "$c" -- id -u
    [ "$output" = 1000 ]
    run cri exec-sync "$c" -- id -g
    [ "$output" = 2000 ]
    run cri exec-sync "$c" -- id -G
    echo "groups $output"
    [[ " $output " == *" 2000 "* && " $output " == *" 3000 "* && " $output " == *" 4000 "* ]]
    [[ " $output " != *" 0 "* ]]
    # not root inside: root's files are not its own
    run cri exec-sync "$c" -- sh -c 'echo x >/etc/rr-not-mine'
    [ "$status" != 0 ]
    # host side: pid 1's ids, through the container's id map
    pid=$(pid_of c "$c")
    read -r _ hu _ _ < <(grep '^Uid:' "/proc/$pid/status")
    read -r _ hg _ _ < <(grep '^Gid:' "/proc/$pid/status")
    echo "host uid $hu gid $hg; uid_map: $(cat "/proc/$pid/uid_map")"
    if [ "$h" = runc ]; then
        [ "$hu" = 1000 ] && [ "$hg" = 2000 ] || false
    else
        # the pod's block: container 1000 is block base + 1000, never a host user's
        local base
        read -r _ base _ <"/proc/$pid/uid_map"
        [ "$base" -ge 100000 ]
        [ "$hu" = $((base + 1000)) ]
        read -r _ base _ <"/proc/$pid/gid_map"
        [ "$hg" = $((base + 2000)) ]
    fi
    down_clean "$POD"
}

@test "runc: runAsUser/runAsGroup/supplementalGroups are the container's ids" {
    run_as runc
}

@test "revrun: runAsUser/runAsGroup/supplementalGroups are the container's ids, the pod's block's on the host" {
    run_as revrun
}

# ---- readOnlyRootFilesystem ----

ro_root() {
    local h=$1 c pid
    up "ro$h" "$h"
    c=$(ctr_run "$POD" "ro$h" app 'linux.security_context.readonly_rootfs=true' -- sleep 1000)
    run cri exec-sync "$c" -- touch /rr-written
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"Read-only file system"* ]]
    run cri exec-sync "$c" -- sh -c 'echo x >/bin/rr-written'
    [ "$status" != 0 ]
    # the image's files still read
    [ "$(cri exec-sync "$c" -- sh -c 'echo ok')" = ok ]
    # host side: nothing landed in the container's root
    pid=$(pid_of c "$c")
    [ ! -e "/proc/$pid/root/rr-written" ]
    [ ! -e "/proc/$pid/root/bin/rr-written" ]
    # its root is mounted read-only in its mount namespace
    run awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo"
    echo "root mount options: $output"
    [[ "$output" == ro,* || "$output" == ro ]]
    down_clean "$POD"
}

@test "runc: readOnlyRootFilesystem: the container's root takes no write" {
    ro_root runc
}

@test "revrun: readOnlyRootFilesystem: the container's root takes no write" {
    ro_root revrun
}

# ---- the memory limit enforced; an OOM reported as OOMKilled ----

oom() {
    local h=$1 c pid mcg
    up "oom$h" "$h"
    c=$(ctr_run "$POD" "oom$h" hog 'linux.resources.memory_limit_in_bytes=33554432' -- sh -c \
        'while [ ! -e /tmp/go ]; do sleep 0.1; done; head -c 200m /dev/zero | tail >/dev/null')
    pid=$(pid_of c "$c")
    mcg=$(cg_of memory "$pid")
    echo "memory cgroup $mcg"
    [[ "$mcg" == */$c ]]
    [ "$(cat "$mcg/memory.limit_in_bytes")" = 33554432 ]
    cri exec-sync "$c" -- touch /tmp/go
    cri wait "$c" exited 60
    cri inspect "$c" | python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; print(s.get("reason"), s.get("exit_code"))'
    [ "$(cri inspect "$c" | field status.reason)" = OOMKilled ]
    [ "$(cri inspect "$c" | field status.exit_code)" = 137 ]
    # host side: the container's cgroup gone with it
    cri rm "$c"
    [ ! -d "$mcg" ]
    down_clean "$POD"
}

@test "runc: a memory limit holds in the container's cgroup; its OOM is OOMKilled, exit 137" {
    oom runc
}

@test "revrun: a memory limit holds in the container's cgroup; its OOM is OOMKilled, exit 137" {
    oom revrun
}

# ---- CPU shares and quota; stats from the container's cgroup ----

cpu() {
    local h=$1 c pid ccg acg u1 u2 s1 used
    up "cpu$h" "$h"
    c=$(ctr_run "$POD" "cpu$h" spin 'linux.resources.cpu_shares=512' \
        'linux.resources.cpu_quota=20000' 'linux.resources.cpu_period=100000' \
        -- sh -c 'while :; do :; done')
    pid=$(pid_of c "$c")
    ccg=$(cg_of cpu "$pid")
    acg=$(cg_of cpuacct "$pid")
    [[ "$ccg" == */$c && "$acg" == */$c ]]
    [ "$(cat "$ccg/cpu.shares")" = 512 ]
    [ "$(cat "$ccg/cpu.cfs_quota_us")" = 20000 ]
    [ "$(cat "$ccg/cpu.cfs_period_us")" = 100000 ]
    # the quota holds: a busy loop gets a fifth of a CPU, not all of one
    sleep 0.5
    u1=$(cat "$acg/cpuacct.usage")
    sleep 2
    u2=$(cat "$acg/cpuacct.usage")
    used=$(((u2 - u1) / 1000000))
    echo "busy loop: ${used} ms of CPU in 2000 ms"
    [ "$used" -ge 200 ] && [ "$used" -le 600 ] || false
    [ "$(cat "$ccg/cpu.stat" | awk '$1 == "nr_throttled" { print $2 }')" -gt 0 ]
    # stats: the container's own cgroup's numbers
    u1=$(cat "$acg/cpuacct.usage")
    s1=$(cri stats "$c" | field stats.cpu.usage_core_nano_seconds.value)
    u2=$(cat "$acg/cpuacct.usage")
    echo "cpuacct $u1 .. $u2, stats $s1"
    [ "$s1" -ge "$u1" ] && [ "$s1" -le "$u2" ] || false
    # an update reaches the same cgroup
    echo '{"cpu_period": 100000, "cpu_quota": 50000, "cpu_shares": 256}' >"$NODE_DIR/specs/cpu$h.res.json"
    cri update "$c" "$NODE_DIR/specs/cpu$h.res.json"
    [ "$(cat "$ccg/cpu.shares")" = 256 ]
    [ "$(cat "$ccg/cpu.cfs_quota_us")" = 50000 ]
    if [ "$h" = revrun ]; then
        # the shim's `update --resources -` reads a pipe, capped at 1 MiB
        run sh -c "{ printf '{\"cpu\": {\"shares\": 300, \"x\": \"'; head -c 1100000 /dev/zero | tr '\\0' a; printf '\"}}'; } |
            '$NODE_DIR/bin/revrun' --root '$NODE_RR_ROOT/k8s.io' update --resources - '$c'"
        echo "$output"
        [ "$status" != 0 ]
        [[ "$output" == *"stdin: larger than 1048576 bytes"* ]]
        [ "$(cat "$ccg/cpu.shares")" = 256 ]
        echo '{"cpu": {"shares": 300}}' | "$NODE_DIR/bin/revrun" --root "$NODE_RR_ROOT/k8s.io" update --resources - "$c"
        [ "$(cat "$ccg/cpu.shares")" = 300 ]
    fi
    down_clean "$POD"
}

@test "runc: CPU shares and quota in the container's cgroup hold; stats and updates are that cgroup's" {
    cpu runc
}

@test "revrun: CPU shares and quota in the container's cgroup hold; stats and updates are that cgroup's" {
    cpu revrun
}

# ---- RuntimeDefault seccomp (stacked on revrun's floor) ----

# The calls the sys probe finds denied (EPERM or ENOSYS from a filter) in a
# new container of pod POD with seccomp profile $2, one name a line.
denied_in() {
    local pod=$1 pname=$2 name=$3 prof=$4 c
    c=$(ctr_run "$pod" "$pname" "$name" "linux.security_context.seccomp={\"profile_type\": \"$prof\"}" \
        "mounts=[{\"container_path\": \"/probes\", \"host_path\": \"$REVRUN_PROBES\", \"readonly\": true}]" \
        -- sleep 1000) || return 1
    cri exec-sync "$c" -- sh -c '/probes/sys; /probes/sys families' >"$NODE_DIR/$pname.$name.sys" || return 1
    grep -E '=(EPERM|ENOSYS)$' "$NODE_DIR/$pname.$name.sys" | cut -d= -f1 | sort
}

# The id of the container NAME of pod POD.
ctr_id() {
    cri ps "$1" | python3 -c 'import json,sys
print([x["id"] for x in json.load(sys.stdin)["containers"] if x["metadata"]["name"] == sys.argv[1]][0])' "$2"
}

# How many seccomp filters the container NAME of pod POD has, from the host.
filters_of() {
    awk '$1 == "Seccomp_filters:" { print $2 }' "/proc/$(pid_of c "$(ctr_id "$1" "$2")")/status"
}

@test "runc: RuntimeDefault seccomp denies more than Unconfined" {
    local rd un
    up secrunc runc
    rd=$(denied_in "$POD" secrunc rd RuntimeDefault)
    un=$(denied_in "$POD" secrunc un Unconfined)
    echo "RuntimeDefault: $(echo $rd)"
    echo "Unconfined: $(echo $un)"
    [ -n "$rd" ]
    [ -z "$(comm -13 <(echo "$rd") <(echo "$un"))" ]
    [ "$rd" != "$un" ]
    [ "$(filters_of "$POD" rd)" = 1 ]
    [ "$(filters_of "$POD" un)" = 0 ]
    down_clean "$POD"
}

# revrun under RuntimeDefault denies what runc's RuntimeDefault denies and
# what revrun's floor denies (revrun under Unconfined), both at once.
@test "revrun: RuntimeDefault seccomp is stacked on revrun's floor: both deny lists hold" {
    local ref rd un miss
    up secref runc
    ref=$(denied_in "$POD" secref rd RuntimeDefault)
    up secrr revrun
    rd=$(denied_in "$POD" secrr rd RuntimeDefault)
    un=$(denied_in "$POD" secrr un Unconfined)
    echo "runc RuntimeDefault: $(echo $ref)"
    echo "revrun RuntimeDefault: $(echo $rd)"
    echo "revrun Unconfined (its floor): $(echo $un)"
    [ -n "$un" ] && [ -n "$ref" ] || false
    miss=$(comm -13 <(echo "$rd") <(sort -u <(echo "$ref") <(echo "$un")))
    echo "denied by one of them, not under revrun's RuntimeDefault: $miss"
    [ -z "$miss" ]
    # host side: two filters under RuntimeDefault (the floor, the profile
    # on it), the floor alone under Unconfined, with no_new_privs
    [ "$(filters_of "$POD" rd)" = 2 ]
    [ "$(filters_of "$POD" un)" = 1 ]
    c=$(ctr_id "$POD" un)
    run cri exec-sync "$c" -- sh -c 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status'
    echo "$output"
    [[ "$output" == *"NoNewPrivs:"*1* ]]
    [[ "$output" == *"Seccomp:"*2* ]]
    cri stopp "$(head -1 "$NODE_DIR/pods.list")"
    cri rmp "$(head -1 "$NODE_DIR/pods.list")"
    down_clean "$POD"
}

# ---- the pod's net.* sysctls ----

sysctls() {
    local h=$1 c before
    before=$(ip netns exec "$NODE_NETNS" cat /proc/sys/net/ipv4/ip_unprivileged_port_start)
    up "sys$h" "$h" 'linux.sysctls={"net.ipv4.ip_unprivileged_port_start": "81", "net.ipv4.ping_group_range": "0 2147483647"}'
    c=$(ctr_run "$POD" "sys$h" app 'linux.security_context.run_as_user={"value": 1000}' -- sleep 1000)
    [ "$(cri exec-sync "$c" -- cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" = 81 ]
    # the ping range: as asked under runc; under revrun tightened to the
    # groups the pod's user namespace maps (0..size-1 as the pod sees them)
    run cri exec-sync "$c" -- cat /proc/sys/net/ipv4/ping_group_range
    echo "ping_group_range: $output"
    if [ "$h" = runc ]; then
        [ "$(echo $output)" = "0 2147483647" ]
    else
        local size
        read -r _ _ size <"/proc/$(pid_of c "$c")/gid_map"
        [ "$(echo $output)" = "0 $((size - 1))" ]
    fi
    # it acts: a user binds port 81 in the pod
    run cri exec-sync "$c" -- sh -c 'nc -l -p 81 </dev/null >/dev/null 2>&1 & n=$!
        for i in $(seq 100); do
            netstat -ltn | grep -q ":81 " && { kill $n; exit 0; }
            kill -0 $n || exit 1
            sleep 0.1
        done
        kill $n; exit 1'
    echo "$output"
    [ "$status" = 0 ]
    # host side: the node's namespace unchanged
    [ "$(ip netns exec "$NODE_NETNS" cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" = "$before" ]
    down_clean "$POD"
    # a sysctl of no namespace of the pod's is refused, the host's unchanged
    before=$(cat /proc/sys/kernel/panic_on_oops)
    run pod_run "sysk$h" "$h" 'linux.sysctls={"kernel.panic_on_oops": "0"}'
    echo "$output"
    [ "$status" != 0 ]
    [ "$(cat /proc/sys/kernel/panic_on_oops)" = "$before" ]
    run node_leftovers
    [ -z "$output" ]
}

@test "runc: the pod's net.* sysctls are set in its namespace only; a host sysctl is refused" {
    sysctls runc
}

@test "revrun: the pod's net.* sysctls are set in its namespace only; a host sysctl is refused" {
    sysctls revrun
}

# ---- ExecSync with a timeout, interactive exec ----

exec_it() {
    local h=$1 c ccg
    up "ex$h" "$h"
    c=$(ctr_run "$POD" "ex$h" app -- sleep 1000)
    run cri exec "$c" --tty --stdin $'tty; echo in-$((40+2)); exit 3\n' -- sh
    echo "$output"
    [ "$status" = 3 ]
    [[ "$output" == *"/dev/pts/"* ]]
    [[ "$output" == *"in-42"* ]]
    run cri exec "$c" --stdin $'read x; echo got-$x\n' -- sh -c 'read x; echo got-$x; exit 4'
    echo "$output"
    [ "$status" = 4 ]
    [[ "$output" == *"got-read"* ]]
    run cri exec-sync "$c" -- sh -c 'echo out; echo err >&2; exit 5'
    [ "$status" = 5 ]
    [[ "$output" == *out*err* ]]
    # a timed-out ExecSync leaves no process in the container
    run cri exec-sync "$c" --timeout 1 -- sleep 77
    echo "$output"
    [ "$status" != 0 ]
    sleep 0.5
    ccg=$(cg_of pids "$(pid_of c "$c")")
    run sh -c "for p in \$(cat $ccg/cgroup.procs); do tr '\0' ' ' </proc/\$p/cmdline; echo; done"
    echo "left: $output"
    [[ "$output" != *"sleep 77"* ]]
    down_clean "$POD"
}

@test "runc: exec -it with a terminal and exec -i: output and exit codes; a timed-out ExecSync leaves nothing" {
    exec_it runc
}

@test "revrun: exec -it with a terminal and exec -i: output and exit codes; a timed-out ExecSync leaves nothing" {
    exec_it revrun
}

# ---- logs ----

logs() {
    local h=$1 c f
    up "log$h" "$h"
    c=$(ctr_run "$POD" "log$h" app -- sh -c \
        'echo out-line; echo err-line >&2; head -c 20000 /dev/zero | tr "\0" a; echo; exec sleep 1000')
    f=$NODE_DIR/logs/log$h/app/0.log
    for i in $(seq 50); do [ "$(wc -l <"$f")" -ge 4 ] && break; sleep 0.1; done
    cut -c1-80 "$f"
    grep -Eq '^[0-9T:.+Z-]+ stdout F out-line$' "$f"
    grep -Eq '^[0-9T:.+Z-]+ stderr F err-line$' "$f"
    # a 20000-byte line: partial (P) then full (F), 20000 bytes in all
    [ "$(grep -E ' stdout [PF] a+$' "$f" | cut -d' ' -f4 | tr -d '\n' | wc -c)" = 20000 ]
    grep -Eq ' stdout P a+$' "$f"
    cri stop "$c" 0
    cri rm "$c"
    down_clean "$POD"
}

@test "runc: logs: stdout and stderr lines in the CRI format, a long line split" {
    logs runc
}

@test "revrun: logs: stdout and stderr lines in the CRI format, a long line split" {
    logs revrun
}

# ---- a container restarted inside a live pod ----

restart() {
    local h=$1 c0 c1 sb pid0 cg0
    up "rs$h" "$h"
    sb=$(pid_of p "$POD")
    # the first attempt ends by itself, but only once its cgroup is read:
    # a timed exit raced the read (seen under CI's load)
    c0=$(ctr_run "$POD" "rs$h" app -- sh -c \
        'echo run-0; while [ ! -e /tmp/go ]; do sleep 0.05; done; exit 3')
    pid0=$(pid_of c "$c0")
    cg0=$(cg_of memory "$pid0")
    cri exec-sync "$c0" -- touch /tmp/go
    cri wait "$c0" exited 30
    [ "$(cri inspect "$c0" | field status.exit_code)" = 3 ]
    cri rm "$c0"
    # the first attempt's state, cgroup and id record gone; the pod lives on
    [ ! -e "$(state_of "$h" "$c0")" ]
    [ ! -d "$cg0" ]
    [ -z "$(node_cgroups | grep -F -- "/$c0")" ]
    # its claim on the pod's block is a file named ID.CID
    [ -z "$(ls /run/revrun-ids 2>/dev/null | grep -F -- ".$c0")" ]
    [ -z "$(grep -ls -- "$c0" /run/revrun-ids/* 2>/dev/null)" ]
    kill -0 "$sb"
    c1=$(ctr_run "$POD" "rs$h" app 'metadata.attempt=1' 'log_path="app/1.log"' -- sh -c 'echo run-1; exec sleep 1000')
    [ "$c1" != "$c0" ]
    [ "$(cri exec-sync "$c1" -- echo alive)" = alive ]
    [ "$(cri inspect "$c1" | field status.metadata.attempt)" = 1 ]
    [ "$(pid_of p "$POD")" = "$sb" ]
    grep -q 'stdout F run-0' "$NODE_DIR/logs/rs$h/app/0.log"
    for i in $(seq 30); do grep -q 'stdout F run-1' "$NODE_DIR/logs/rs$h/app/1.log" && break; sleep 0.1; done
    grep -q 'stdout F run-1' "$NODE_DIR/logs/rs$h/app/1.log"
    down_clean "$POD"
}

@test "runc: a container removed and created again (attempt 1) in a live pod; nothing of the first left" {
    restart runc
}

@test "revrun: a container removed and created again (attempt 1) in a live pod; nothing of the first left" {
    restart revrun
}

# ---- the kubelet's systemd cgroup driver ----

# A node whose handlers have SystemdCgroup = true, as on a kubelet with
# cgroupDriver: systemd: the kubelet names the pod's slice as its parent,
# containerd asks for "SLICE:cri-containerd:ID". This machine has no
# systemd as pid 1 (no D-Bus to ask for a scope): revrun places the
# container where systemd would have (the slice path nested as systemd
# nests it, the scope cri-containerd-ID.scope) and says so in one log line.
systemd_node() {
    MAIN_NODE_DIR=$NODE_DIR MAIN_NODE_TAG=$NODE_TAG MAIN_NODE_NETNS=$NODE_NETNS
    MAIN_NODE_SOCK=$NODE_SOCK MAIN_NODE_RR_ROOT=$NODE_RR_ROOT MAIN_NODE_PID=$NODE_PID
    MAIN_NODE_RUNC_ROOT=$NODE_RUNC_ROOT
    SYSTEMD_NODE=1
    node_up "$(mktemp -u /tmp/revrun-podsd.XXXXXX)" systemd
    : >"$NODE_DIR/pods.list"
    # the kubelet escapes a uid's dashes in a slice name
    SLICE="kubepods-burstable-pod${1}_$NODE_TAG.slice"
}

@test "revrun: systemd cgroup driver: slice:cri-containerd:id placed as systemd would, limits there, nothing left" {
    local c pid want n=0 ctl path scope
    systemd_node sd
    up sd revrun "linux.cgroup_parent=\"$SLICE\""
    c=$(ctr_run "$POD" sd app 'linux.resources.memory_limit_in_bytes=67108864' -- sleep 1000)
    pid=$(pid_of c "$c")
    want=/kubepods.slice/kubepods-burstable.slice/$SLICE/cri-containerd-$c.scope
    while IFS=: read -r _ ctl path; do
        echo "${ctl:-unified} $path"
        [ "$path" = "$want" ]
        n=$((n + 1))
    done <"/proc/$pid/cgroup"
    [ "$n" -gt 0 ]
    [ "$(cat "/sys/fs/cgroup/memory$want/memory.limit_in_bytes")" = 67108864 ]
    # the pod's sandbox beside it, in the same slice
    path=$(awk -F: '$2 == "memory" { print $3 }' "/proc/$(pid_of p "$POD")/cgroup")
    [ "$path" = "/kubepods.slice/kubepods-burstable.slice/$SLICE/cri-containerd-$POD.scope" ]
    [ "$(cri exec-sync "$c" -- echo ok)" = ok ]
    [ "$(cri stats "$c" | field stats.memory.working_set_bytes.value)" -gt 0 ]
    # the log line saying where it went
    grep -rqs "(systemd) is cgroup $want" "$NODE_DIR/state" "$NODE_DIR/containerd.log" || {
        echo "no log line naming $want"
        false
    }
    cri stop "$c" 0
    cri rm "$c"
    down_clean "$POD"
    scope=$(find /sys/fs/cgroup -path "*$SLICE/cri-containerd-*" 2>/dev/null)
    echo "scopes left: $scope"
    [ -z "$scope" ]
}

# runc asks systemd over D-Bus for the scope: on this machine (no systemd)
# the pod does not run; on a systemd node it would. The control says what
# a kubelet with the systemd driver gets from runc here.
@test "runc: systemd cgroup driver without systemd as pid 1: the pod is refused, nothing left" {
    [ "$(cat /proc/1/comm)" != systemd ] || skip "systemd is pid 1 here"
    systemd_node sdr
    run pod_run sdr runc "linux.cgroup_parent=\"$SLICE\""
    echo "$output"
    [ "$status" != 0 ]
    run node_leftovers
    [ -z "$output" ]
}
