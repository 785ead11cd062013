#!/usr/bin/env bats
# Kubernetes pods under revrun, as a node runs them: containerd's CRI plugin
# (started here, on a socket, root and state of its own, in a network
# namespace of its own, with a bridge CNI) driven by cri/cri.py as the
# kubelet would drive it, with two RuntimeClass handlers: `runc` (the
# control) and `revrun` (the runc shim v2 with revrun as its binary). Each
# feature is judged for both, from the CRI's answers, from inside the pod
# and from the host (no process, mount, cgroup or id record left).
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
    node_up "$(mktemp -u /tmp/revrun-pods.XXXXXX)" || {
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
    [ -n "${FRESH_NODE:-}" ] && node_down
    [ -n "${NODE_DIR:-}" ] && [ -f "$NODE_DIR/pods.list" ] || return 0
    while read -r p; do
        cri stopp "$p" >/dev/null 2>&1
        cri rmp "$p" >/dev/null 2>&1
    done <"$NODE_DIR/pods.list"
    return 0
}

# up NAME HANDLER [PATH=JSON...]: a pod, remembered for teardown; sets POD.
up() {
    POD=$(pod_run "$@") || return 1
    echo "$POD" >>"$NODE_DIR/pods.list"
}

# A field of a CRI answer: jq-like dotted path into its JSON.
field() {
    python3 -c 'import json,sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d.get(k, "") if isinstance(d, dict) else ""
print(d)' "$1"
}

# The pod and everything of it gone, nothing of it left on the host.
down_clean() {
    cri stopp "$1" && cri rmp "$1"
    run node_leftovers
    echo "leftovers: $output"
    [ -z "$output" ]
}

# ---- a pod with a container, start to finish ----

pod_basics() {
    local h=$1 c ip
    up "b$h" "$h"
    c=$(ctr_run "$POD" "b$h" app -- sh -c 'echo hello from app; exec sleep 1000')
    ip=$(cri inspectp "$POD" | field status.network.ip)
    echo "pod ip $ip"
    [[ "$ip" == 10.89.0.* ]]
    run cri exec-sync "$c" -- ip -4 addr show eth0
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"inet $ip/24"* ]]
    grep -q "stdout F hello from app" "$NODE_DIR/logs/b$h/app/0.log"
    cri stop "$c" 0
    [ "$(cri inspect "$c" | field status.state)" = CONTAINER_EXITED ]
    [ "$(cri inspect "$c" | field status.exit_code)" = 137 ]
    cri rm "$c"
    down_clean "$POD"
}

@test "runc: a pod with a container: pod IP on eth0, logs, ExecSync, stop 137, nothing left" {
    pod_basics runc
}

@test "revrun: a pod with a container: pod IP on eth0, logs, ExecSync, stop 137, nothing left" {
    pod_basics revrun
}

# A fresh node: no state root for either handler yet (the shim passes
# --root ROOT/k8s.io, ROOT's parents missing too).
@test "revrun: on a fresh node the first pod runs, its state root made 0700 on the way" {
    local base
    base=$(mktemp -u /tmp/revrun-fresh.XXXXXX)
    FRESH_NODE=1
    node_up "$base"
    : >"$NODE_DIR/pods.list"
    [ ! -e "$NODE_DIR/fresh" ]
    up fresh revrun
    c=$(ctr_run "$POD" fresh app -- sleep 1000)
    [ "$(cri exec-sync "$c" -- echo ok)" = ok ]
    for d in fresh fresh/revrun fresh/revrun/state fresh/revrun/state/k8s.io; do
        [ "$(stat -c '%a %u' "$NODE_DIR/$d")" = "700 0" ]
    done
    cri stop "$c" 0
    cri rm "$c"
    down_clean "$POD"
}
