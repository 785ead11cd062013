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
    if [ -f "$NODE_DIR/kill.list" ]; then
        while read -r p; do pkill -9 -P "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done <"$NODE_DIR/kill.list"
        rm -f "$NODE_DIR/kill.list"
    fi
    [ -n "${NODE_DIR:-}" ] && [ -f "$NODE_DIR/pods.list" ] || return 0
    while read -r p; do
        cri stopp "$p" >/dev/null 2>&1
        cri rmp "$p" >/dev/null 2>&1
    done <"$NODE_DIR/pods.list"
    # the kubelet's directories a test made (kubelet_volumes)
    [ -f "$NODE_DIR/kubelet.mounts" ] && while read -r p; do umount -l "$p"; done <"$NODE_DIR/kubelet.mounts"
    [ -f "$NODE_DIR/kubelet.pods" ] && while read -r p; do rm -rf "$p"; done <"$NODE_DIR/kubelet.pods"
    if [ -f "$NODE_DIR/kubelet.made" ]; then
        rmdir /var/lib/kubelet/pods /var/lib/kubelet 2>/dev/null
    fi
    rm -f "$NODE_DIR/kubelet.mounts" "$NODE_DIR/kubelet.pods" "$NODE_DIR/kubelet.made"
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
    local h=$1 c ip mac
    up "b$h" "$h"
    c=$(ctr_run "$POD" "b$h" app -- sh -c 'echo hello from app; exec sleep 1000')
    ip=$(cri inspectp "$POD" | field status.network.ip)
    echo "pod ip $ip"
    [[ "$ip" == 10.89.0.* ]]
    run cri exec-sync "$c" -- ip -4 addr show eth0
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"inet $ip/24"* ]]
    # sysfs of the pod's network namespace, read-only, as kubelet asks for
    run cri exec-sync "$c" -- sh -c 'grep " /sys " /proc/mounts | cut -d" " -f2-4; ls /sys/class/net; cat /sys/class/net/eth0/address; echo 1400 >/sys/class/net/eth0/mtu && echo wrote'
    echo "$output"
    [[ "$output" == *"/sys sysfs ro,"* ]]
    [[ "$output" == *eth0* ]]
    # the pod's eth0, not the host's nor the node's
    mac=$(nsenter --net="/proc/$(pid_of c "$c")/ns/net" -- ip -o link show eth0 |
        sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p')
    [ -n "$mac" ]
    [[ "$output" == *"$mac"* ]]
    [[ "$output" != *wrote* ]]
    if [ "$h" = revrun ]; then # the tightening is said
        grep -rqsF "sysfs at /sys made by revrun on the host side" "$NODE_DIR/state" \
            "$NODE_DIR/containerd.log"
    fi
    grep -q "stdout F hello from app" "$NODE_DIR/logs/b$h/app/0.log"
    cri stop "$c" 0
    [ "$(cri inspect "$c" | field status.state)" = CONTAINER_EXITED ]
    [ "$(cri inspect "$c" | field status.exit_code)" = 137 ]
    cri rm "$c"
    down_clean "$POD"
}

@test "runc: a pod with a container: pod IP on eth0, the pod's sysfs read-only, logs, ExecSync, stop 137, nothing left" {
    pod_basics runc
}

@test "revrun: a pod with a container: pod IP on eth0, the pod's sysfs read-only, logs, ExecSync, stop 137, nothing left" {
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

# The host pid of a container (c) or a pod's sandbox (p), from the CRI's
# verbose info.
pid_of() {
    local verb=inspect
    [ "$1" = p ] && verb=inspectp
    cri "$verb" "$2" | python3 -c 'import json,sys
print(json.loads(json.load(sys.stdin)["info"]["info"])["pid"])'
}

# ---- one user namespace per pod ----

# kubelet's default: the pod's network, ipc and uts namespaces, a pid
# namespace of the container's own. mqueue needs the ipc namespace's owner,
# proc the pid namespace's: the pod's user namespace, joined.
@test "revrun: a pod's containers share its user namespace and ids; mqueue and proc mount in them" {
    local c1 c2 sb a1 a2
    up userns revrun
    c1=$(ctr_run "$POD" userns one -- sleep 1000)
    c2=$(ctr_run "$POD" userns two -- sleep 1000)
    sb=$(pid_of p "$POD")
    a1=$(pid_of c "$c1")
    a2=$(pid_of c "$c2")
    for p in "$a1" "$a2"; do
        [ "$(readlink "/proc/$p/ns/user")" = "$(readlink "/proc/$sb/ns/user")" ]
        [ "$(cat "/proc/$p/uid_map")" = "$(cat "/proc/$sb/uid_map")" ]
        [ "$(readlink "/proc/$p/ns/ipc")" = "$(readlink "/proc/$sb/ns/ipc")" ]
        [ "$(readlink "/proc/$p/ns/pid")" != "$(readlink "/proc/$sb/ns/pid")" ]
    done
    # the pod's block: not root's, one of revrun's engine ids
    read -r _ host _ <"/proc/$sb/uid_map"
    [ "$host" -ge 100000 ]
    run cri exec-sync "$c1" -- sh -c 'grep -E " /dev/mqueue | /proc " /proc/mounts | cut -d" " -f2,3'
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"/proc proc"* ]]
    [[ "$output" == *"/dev/mqueue mqueue"* ]]
    # ipc shared: a queue made in one is seen in the other
    cri exec-sync "$c1" -- touch /dev/mqueue/rrq
    [ "$(cri exec-sync "$c2" -- ls /dev/mqueue)" = rrq ]
    down_clean "$POD"
}

shared_pid() {
    local h=$1 c1 c2
    up "spn$h" "$h" 'linux.security_context.namespace_options.pid="POD"'
    c1=$(ctr_run "$POD" "spn$h" one 'linux.security_context.namespace_options.pid="POD"' \
        -- sleep 1001)
    c2=$(ctr_run "$POD" "spn$h" two 'linux.security_context.namespace_options.pid="POD"' \
        -- sleep 1002)
    run cri exec-sync "$c2" -- ps -o pid,args
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"1 /pause"* ]]
    [[ "$output" == *"sleep 1001"* ]]
    [[ "$output" == *"sleep 1002"* ]]
    # the pause process reaps what the pod's containers leave
    cri exec-sync "$c1" -- sh -c 'sleep 0.1 & exit 0'
    cri stop "$c1" 0
    run cri exec-sync "$c2" -- ps -o stat,args
    [[ "$output" != *"sleep 1001"* ]]
    down_clean "$POD"
}

@test "runc: shareProcessNamespace: each container sees the others' processes" {
    shared_pid runc
}

@test "revrun: shareProcessNamespace: each container sees the others' processes, proc mounted in the pod's pid namespace" {
    shared_pid revrun
}

# A bundle as containerd's shim sends it, the busybox image as its root,
# its namespaces given as NS=PATH (network=..., ipc=..., pid=...); created
# by revrun on the revrun handler's state root, as the shim would.
rr_create() {
    local id=$1 b=$NODE_DIR/bundles/$1
    shift
    mkdir -p "$b"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$b" \
        "$NODE_DIR/img/busybox/rootfs" "$NODE_TAG" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = sys.argv[3]
c["linux"]["cgroupsPath"] = "/kubepods/pod%s/%s" % (sys.argv[4], sys.argv[2].split("/")[-1])
c["process"]["args"] = ["sleep", "1000"]
ns = {n["type"]: n for n in c["linux"]["namespaces"]}
for kv in sys.argv[5:]:
    k, v = kv.split("=", 1)
    ns[k] = {"type": k, "path": v}
c["linux"]["namespaces"] = list(ns.values())
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$NODE_DIR/bin/revrun" --root "$NODE_RR_ROOT/k8s.io" create --bundle "$b" "$id" </dev/null
}

# Nothing of a refused create: no state, no id record, no cgroup.
refused_clean() {
    [ ! -e "$NODE_RR_ROOT/k8s.io/$1" ]
    [ -z "$(grep -ls -- "container $1\$" /run/revrun-ids/* 2>/dev/null)" ]
    [ -z "$(ls /run/revrun-ids 2>/dev/null | grep -F -- ".$1")" ] # a claim: ID.CID
    [ -z "$(node_cgroups | grep -F -- "/$1")" ]
}

# The sleep that PID (an unshare, or the sleep it became) runs once it is in
# a NS namespace of its own (unshare --fork makes it a child; without --fork
# unshare execs it), polled: until then it is still the host's.
ns_made() {
    local p
    for _ in $(seq 100); do
        p=$(pgrep -x -P "$1" sleep || { [ "$(ps -o comm= -p "$1")" = sleep ] && echo "$1"; })
        [ -n "$p" ] && [ "$(readlink "/proc/$p/ns/$2")" != "$(readlink "/proc/self/ns/$2")" ] &&
            { echo "$p"; return 0; }
        sleep 0.1
    done
    return 1
}

@test "revrun: namespaces of a process that is no revrun container are refused, naming why" {
    local sb other
    up refuse revrun
    ctr_run "$POD" refuse app -- sleep 1000 >/dev/null
    sb=$(pid_of p "$POD")
    # a user namespace of someone else's, with an ipc namespace of its own
    unshare --user --map-root-user --ipc --fork sleep 1000 &
    other=$!
    echo "$other" >>"$NODE_DIR/kill.list"
    other=$(ns_made "$other" ipc)
    run rr_create x1 "ipc=/proc/$other/ns/ipc"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"belongs to a user namespace that no live revrun container of this state root has"* ]]
    refused_clean x1
    # the pod's user namespace, but an ipc namespace none of its containers has
    nsenter --user="/proc/$sb/ns/user" -- unshare --ipc sleep 1000 &
    other=$!
    echo "$other" >>"$NODE_DIR/kill.list"
    other=$(ns_made "$other" ipc)
    run rr_create x2 "ipc=/proc/$other/ns/ipc" "network=/proc/$sb/ns/net"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"is not a namespace of a revrun container of the pod"*"a namespace a process of the pod made is never joined"* ]]
    refused_clean x2
    # the host's network namespace with the pod's ipc
    run rr_create x3 "ipc=/proc/$sb/ns/ipc" "network=/proc/$$/ns/net"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"/proc/$$/ns/net is not a namespace of a revrun container of the pod"*"the host's namespaces are joined with a pod's only when the pod has them"* ]]
    refused_clean x3
    # the pod's own namespaces, named the same way, are taken
    rr_create x4 "ipc=/proc/$sb/ns/ipc" "network=/proc/$sb/ns/net" "uts=/proc/$sb/ns/uts"
    [ "$(readlink "/proc/$(cat "$NODE_RR_ROOT/k8s.io/x4/state.json" | field pid)/ns/user")" = \
        "$(readlink "/proc/$sb/ns/user")" ]
    "$NODE_DIR/bin/revrun" --root "$NODE_RR_ROOT/k8s.io" delete --force x4
    down_clean "$POD"
}

# ---- pods as cgroups ----

# A container without limits of its own in every hierarchy under its pod's
# cgroup, so the pod's (and the node's) ceilings hold for it and the
# engine's stats read its own cgroup.
pod_cgroups() {
    local h=$1 c pid pod_cg n=0 ctl path usage
    up "cg$h" "$h"
    pod_cg=/kubepods/burstable/podcg$h-$NODE_TAG
    c=$(ctr_run "$POD" "cg$h" app -- sleep 1000)
    pid=$(pid_of c "$c")
    while IFS=: read -r _ ctl path; do
        echo "${ctl:-unified} $path"
        [ "$path" = "$pod_cg/$c" ]
        n=$((n + 1))
    done <"/proc/$pid/cgroup"
    [ "$n" = "$(wc -l </proc/self/cgroup)" ]
    # an exec'd process too: where the container's pid 1 is
    run cri exec-sync "$c" -- sh -c 'cat /proc/self/cgroup | cmp - /proc/1/cgroup'
    [ "$status" = 0 ]
    # stats: its own cgroup's (a sleep), not its parent's
    usage=$(cri stats "$c" | field stats.memory.working_set_bytes.value)
    echo "working set $usage"
    [ "$usage" -gt 0 ] && [ "$usage" -lt $((16 << 20)) ] || false
    # the pod's ceilings hold for it
    # (room for the exec itself: runc's init is a Go program whose threads
    # count against pids.max until it execs the shell; 30 sleeps are not)
    echo 16 >"/sys/fs/cgroup/pids$pod_cg/pids.max"
    run cri exec-sync "$c" -- sh -c 'i=0; while [ $i -lt 30 ]; do sleep 100 & i=$((i + 1)); done; wait'
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"can't fork"* ]]
    echo max >"/sys/fs/cgroup/pids$pod_cg/pids.max"
    echo $((48 << 20)) >"/sys/fs/cgroup/memory$pod_cg/memory.limit_in_bytes"
    run cri exec-sync "$c" -- sh -c 'head -c 100m /dev/zero | tail >/dev/null'
    echo "status $status"
    [ "$status" = 137 ]
    cri stop "$c" 0
    cri rm "$c"
    down_clean "$POD"
}

@test "runc: a container without limits is in every cgroup hierarchy under its pod's; the pod's ceilings and stats hold" {
    pod_cgroups runc
}

@test "revrun: a container without limits is in every cgroup hierarchy under its pod's; the pod's ceilings and stats hold" {
    pod_cgroups revrun
}

# ---- the kubelet's volumes ----

# The kubelet's pods directory as a kubelet makes it (root's, 0750), and a
# pod's volumes below it: an emptyDir (0777) and a directory of root's
# (0755, a file of root's 0600 in it) as a hostPath there would be.
kubelet_volumes() {
    local v=/var/lib/kubelet/pods/$1/volumes
    [ -d /var/lib/kubelet/pods ] || echo created >"$NODE_DIR/kubelet.made"
    mkdir -p /var/lib/kubelet/pods
    chown root:root /var/lib/kubelet/pods
    chmod 0750 /var/lib/kubelet/pods
    mkdir -p "$v/kubernetes.io~empty-dir/shared" "$v/hostdir"
    chmod 0777 "$v/kubernetes.io~empty-dir/shared"
    chmod 0755 "$v/hostdir"
    echo "root's secret" >"$v/hostdir/root-only"
    chmod 0600 "$v/hostdir/root-only"
    echo "/var/lib/kubelet/pods/$1" >>"$NODE_DIR/kubelet.pods"
    # a secret (defaultMode 0400) and a memory-backed emptyDir: each a tmpfs
    # of the kubelet's own, mounted where the kubelet mounts them
    mkdir -p "$v/kubernetes.io~secret/token" "$v/kubernetes.io~empty-dir/mem"
    mount -t tmpfs -o size=1m,mode=0755 tmpfs "$v/kubernetes.io~secret/token"
    echo "$v/kubernetes.io~secret/token" >>"$NODE_DIR/kubelet.mounts"
    echo "root's token" >"$v/kubernetes.io~secret/token/token"
    chmod 0400 "$v/kubernetes.io~secret/token/token"
    mount -t tmpfs -o size=1m,mode=0777 tmpfs "$v/kubernetes.io~empty-dir/mem"
    echo "$v/kubernetes.io~empty-dir/mem" >>"$NODE_DIR/kubelet.mounts"
    VOLS=$v
}

volumes() {
    local h=$1 uid=vol$1-$NODE_TAG c1 c2 out=$NODE_DIR/outside-$1
    kubelet_volumes "$uid"
    mkdir -m 0755 "$out"
    up "vol$h" "$h"
    m="mounts=[{\"container_path\": \"/shared\", \"host_path\": \"$VOLS/kubernetes.io~empty-dir/shared\"}, {\"container_path\": \"/host\", \"host_path\": \"$VOLS/hostdir\"}, {\"container_path\": \"/outside\", \"host_path\": \"$out\"}, {\"container_path\": \"/secret\", \"host_path\": \"$VOLS/kubernetes.io~secret/token\", \"readonly\": true}, {\"container_path\": \"/mem\", \"host_path\": \"$VOLS/kubernetes.io~empty-dir/mem\"}]"
    c1=$(ctr_run "$POD" "vol$h" one "$m" -- sleep 1000)
    c2=$(ctr_run "$POD" "vol$h" two "$m" -- sleep 1000)
    # container root: root in the kubelet's volumes, as under runc
    run cri exec-sync "$c1" -- sh -c 'cat /host/root-only && echo made >/host/new && umask 077 && echo mine >/shared/f'
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == "root's secret" ]]
    [ "$(stat -c %u "$VOLS/hostdir/new")" = 0 ]
    [ "$(stat -c '%u %a' "$VOLS/kubernetes.io~empty-dir/shared/f")" = "0 600" ]
    # the kubelet's tmpfs volumes too: a root-only secret read, a
    # memory-backed emptyDir written as root
    run cri exec-sync "$c1" -- sh -c 'cat /secret/token && echo m >/mem/f'
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = "root's token" ]
    [ "$(stat -c %u "$VOLS/kubernetes.io~empty-dir/mem/f")" = 0 ]
    # the pod's other container: the same root, in a shared volume
    run cri exec-sync "$c2" -- sh -c 'cat /shared/f && echo more >>/shared/f'
    [ "$status" = 0 ]
    [ "$output" = mine ]
    # a bind of anything else keeps its host owners under revrun
    run cri exec-sync "$c1" -- sh -c 'echo x >/outside/f'
    echo "$output"
    if [ "$h" = runc ]; then
        [ "$status" = 0 ]
    else
        [ "$status" != 0 ]
        [ ! -e "$out/f" ]
        # said in the container's log, once for that bind
        grep -rqsF "bind $out: not one of the kubelet's volumes" "$NODE_DIR/state" \
            "$NODE_DIR/containerd.log"
    fi
    down_clean "$POD"
}

@test "runc: the kubelet's volumes: container root reads root's file and a root-only secret, writes as root, shares an emptyDir with the pod" {
    volumes runc
}

@test "revrun: the kubelet's volumes idmapped, its tmpfs ones too: container root reads root's file and a root-only secret, writes as root, shares an emptyDir; another bind keeps its host owners" {
    volumes revrun
}

# What the kubelet's pods directory holds but is not its own: a tree bound
# there from elsewhere (a hostPath's subPath is such a bind) keeps its host
# owners; so does everything when the pods directory is open to others.
@test "revrun: a bind mounted into the pods directory, a tmpfs that is not the kubelet's, or a pods directory others may enter, is not idmapped" {
    local uid=volx-$NODE_TAG elsewhere=$NODE_DIR/elsewhere c
    kubelet_volumes "$uid"
    mkdir -m 0755 "$elsewhere" "$VOLS/subpath"
    echo "root's" >"$elsewhere/root-only"
    chmod 0600 "$elsewhere/root-only"
    mount --bind "$elsewhere" "$VOLS/subpath"
    echo "$VOLS/subpath" >>"$NODE_DIR/kubelet.mounts"
    up volx revrun
    c=$(ctr_run "$POD" volx one "mounts=[{\"container_path\": \"/sub\", \"host_path\": \"$VOLS/subpath\"}, {\"container_path\": \"/host\", \"host_path\": \"$VOLS/hostdir\"}]" -- sleep 1000)
    run cri exec-sync "$c" -- cat /sub/root-only
    [ "$status" != 0 ]
    run cri exec-sync "$c" -- sh -c 'echo x >/sub/new'
    [ "$status" != 0 ]
    [ ! -e "$elsewhere/new" ]
    # a tmpfs where the kubelet mounts a secret, but one the host also has
    # mounted elsewhere; and the kubelet's kind of tmpfs one level too deep
    mkdir -m 0755 "$BATS_TEST_TMPDIR/tmpfs-elsewhere" "$VOLS/kubernetes.io~secret/bound" \
        "$VOLS/kubernetes.io~secret/deep" "$VOLS/kubernetes.io~secret/deep/er"
    mount -t tmpfs -o size=1m,mode=0755 tmpfs "$BATS_TEST_TMPDIR/tmpfs-elsewhere"
    echo "$BATS_TEST_TMPDIR/tmpfs-elsewhere" >>"$NODE_DIR/kubelet.mounts"
    echo "root's" >"$BATS_TEST_TMPDIR/tmpfs-elsewhere/root-only"
    chmod 0400 "$BATS_TEST_TMPDIR/tmpfs-elsewhere/root-only"
    mount --bind "$BATS_TEST_TMPDIR/tmpfs-elsewhere" "$VOLS/kubernetes.io~secret/bound"
    echo "$VOLS/kubernetes.io~secret/bound" >>"$NODE_DIR/kubelet.mounts"
    mount -t tmpfs -o size=1m,mode=0755 tmpfs "$VOLS/kubernetes.io~secret/deep/er"
    echo "$VOLS/kubernetes.io~secret/deep/er" >>"$NODE_DIR/kubelet.mounts"
    echo "root's" >"$VOLS/kubernetes.io~secret/deep/er/root-only"
    chmod 0400 "$VOLS/kubernetes.io~secret/deep/er/root-only"
    c=$(ctr_run "$POD" volx tmp "mounts=[{\"container_path\": \"/bound\", \"host_path\": \"$VOLS/kubernetes.io~secret/bound\"}, {\"container_path\": \"/deep\", \"host_path\": \"$VOLS/kubernetes.io~secret/deep/er\"}, {\"container_path\": \"/secret\", \"host_path\": \"$VOLS/kubernetes.io~secret/token\"}]" -- sleep 1000)
    run cri exec-sync "$c" -- cat /bound/root-only
    [ "$status" != 0 ]
    run cri exec-sync "$c" -- cat /deep/root-only
    [ "$status" != 0 ]
    # the kubelet's own beside them is (the same pods directory, mode, owner)
    run cri exec-sync "$c" -- cat /secret/token
    [ "$status" = 0 ]
    # another pod's secret is that pod's; and a volume's own mount is what
    # is idmapped, not a mount below it that a recursive bind brings along
    local mine=$VOLS
    kubelet_volumes "other-$NODE_TAG"
    c=$(ctr_run "$POD" volx nest "mounts=[{\"container_path\": \"/theirs\", \"host_path\": \"$VOLS/kubernetes.io~secret/token\"}, {\"container_path\": \"/vols\", \"host_path\": \"$mine\"}]" -- sleep 1000)
    run cri exec-sync "$c" -- cat /theirs/token
    [ "$status" != 0 ]
    run cri exec-sync "$c" -- cat /vols/hostdir/root-only
    [ "$status" = 0 ]
    run cri exec-sync "$c" -- cat /vols/kubernetes.io~secret/token/token
    [ "$status" != 0 ]
    # the same pods directory open to others: nothing idmapped
    chmod 0755 /var/lib/kubelet/pods
    c=$(ctr_run "$POD" volx two "mounts=[{\"container_path\": \"/host\", \"host_path\": \"$VOLS/hostdir\"}]" -- sleep 1000)
    chmod 0750 /var/lib/kubelet/pods
    run cri exec-sync "$c" -- cat /host/root-only
    [ "$status" != 0 ]
    down_clean "$POD"
}

# ---- the activity record, as the host policy asks ----

# policy JSON: the node's engine (containerd, its shims, revrun) sees
# /etc/revrun/policy.json holding JSON, through an overlay over /etc in the
# suites' own mount namespace (the host's /etc is never written); gone at
# teardown.
policy() {
    local d=$NODE_DIR/policy
    mkdir -p "$d/u/revrun" "$d/w"
    printf '%s' "$1" >"$d/u/revrun/policy.json"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$d/u,workdir=$d/w" /etc
    echo /etc >>"$NODE_DIR/kubelet.mounts"
}

# The policy's kubeletPodsDir is where volumes are idmapped from: a node's
# own directory works as the default does; a host system directory never
# idmaps anything.
@test "revrun: the policy's kubeletPodsDir decides which volumes are the kubelet's; a host system directory never is" {
    local kp=$NODE_DIR/kpods uid=kpd-$NODE_TAG c m rk
    mkdir -p "$kp/$uid/volumes/kubernetes.io~empty-dir/v"
    chmod 0750 "$kp"
    echo "root's" >"$kp/$uid/volumes/kubernetes.io~empty-dir/v/root-only"
    chmod 0600 "$kp/$uid/volumes/kubernetes.io~empty-dir/v/root-only"
    kubelet_volumes "$uid"
    policy "{\"engine\": {\"kubeletPodsDir\": \"$kp\"}}"
    up kpd revrun
    m="mounts=[{\"container_path\": \"/mine\", \"host_path\": \"$kp/$uid/volumes/kubernetes.io~empty-dir/v\"}, {\"container_path\": \"/default\", \"host_path\": \"$VOLS/hostdir\"}]"
    c=$(ctr_run "$POD" kpd one "$m" -- sleep 1000)
    run cri exec-sync "$c" -- cat /mine/root-only
    [ "$status" = 0 ]
    [ "$output" = "root's" ]
    # the default directory is no longer the kubelet's: its files keep
    # their host owners
    run cri exec-sync "$c" -- cat /default/root-only
    [ "$status" != 0 ]
    # a host system directory as kubeletPodsDir, root's and closed to
    # others as a pods directory is (/root): nothing below it idmapped
    rk=$(mktemp -d /root/revrun-kpd.XXXXXX)
    echo "$rk" >>"$NODE_DIR/kubelet.pods"
    mkdir -m 0755 "$rk/v"
    echo "root's" >"$rk/v/root-only"
    chmod 0600 "$rk/v/root-only"
    printf '%s' '{"engine": {"kubeletPodsDir": "/root"}}' >/etc/revrun/policy.json
    c=$(ctr_run "$POD" kpd two "mounts=[{\"container_path\": \"/r\", \"host_path\": \"$rk/v\"}]" -- sleep 1000)
    run cri exec-sync "$c" -- cat /r/root-only
    [ "$status" != 0 ]
    down_clean "$POD"
}

@test "revrun: the host policy's activity \"record\": what a pod's container runs is in revrun activity while it runs and kept in activityRoot once it ended, an ExecSync's too; no recorder outlives the pod" {
    local recorders c f=$NODE_DIR/activity.jsonl kept=$NODE_DIR/activity-kept
    recorders=$(live_procs revrun-recorder | wc -l)
    policy "{\"engine\": {\"activity\": \"record\", \"activityRoot\": \"$kept\"}}"
    up act revrun
    c=$(ctr_run "$POD" act app -- sh -c '/bin/true from-the-pod; exec sleep 1000')
    run cri exec-sync "$c" -- /bin/echo from-exec
    [ "$output" = from-exec ]
    # while it runs: in its state directory (written within 100 ms)
    for _ in $(seq 50); do
        "$NODE_DIR/bin/revrun" --root "$NODE_RR_ROOT/k8s.io" activity "$c" >"$f"
        grep -q '"argv":\["sleep","1000"\]' "$f" && break
        sleep 0.1
    done
    cat "$f"
    grep -q '"argv":\["sleep","1000"\]' "$f"
    # the engine deletes the container once it ended: the record stays in activityRoot
    cri stop "$c" 0
    for _ in $(seq 100); do
        [ -s "$kept/$c.jsonl" ] && break
        sleep 0.1
    done
    cat "$kept/$c.jsonl"
    [ "$(stat -c %a "$kept")" = 700 ]
    [ "$(stat -c '%u %a' "$kept/$c.jsonl")" = "0 600" ]
    python3 - "$kept/$c.jsonl" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
execs = [x["argv"] for x in r if x["type"] == "exec"]
assert r[-1]["type"] == "end", r[-1]
assert execs == [["sh", "-c", "/bin/true from-the-pod; exec sleep 1000"],
                 ["/bin/true", "from-the-pod"], ["sleep", "1000"],
                 ["/bin/echo", "from-exec"]], execs
sleep = [x for x in r if x["type"] == "exec" and x["argv"][0] == "sleep"][0]
assert [x["signal"] for x in r if x["type"] == "exit" and x["seq"] == sleep["seq"]] == [9], r
PY
    cri rm "$c"
    down_clean "$POD"
    # the pause container's record is kept too; both recorders ended with the pod
    [ "$(ls "$kept" | wc -l)" = 2 ]
    await_live_count revrun-recorder "$recorders"
}
