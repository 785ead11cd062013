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
        [ "$hu" = 1000 ] && [ "$hg" = 2000 ]
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
