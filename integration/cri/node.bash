# A Kubernetes node for tests and benchmarks, without a kubelet: containerd
# with its CRI plugin, started here on a socket, root and state of its own,
# inside a network namespace made here, with a bridge CNI (Debian's
# containernetworking-plugins), two runtime handlers (`runc`, and `revrun`:
# the runc shim v2 with the revrun under test as BinaryName) and offline
# images (busybox-static, the static pause probe). cri.py is its kubelet.
#
#   source integration/cri/node.bash
#   node_up DIR [systemd]   start it in DIR (made here; DIR must not exist);
#                           `systemd` gives both handlers SystemdCgroup
#   cri ARGS...             cri.py against it (in its network namespace,
#                           where the exec streaming server listens)
#   node_down               stop and remove everything of it, by pid and by
#                           name: pods, shims, containerd, mounts under DIR,
#                           the pods' cgroups, the network namespace, DIR;
#                           safe to call twice and after a failed node_up
#   node_leftovers          what of the node's pods is still on the host
#                           (processes, mounts, cgroups, id records), one
#                           line each; nothing when clean
#
# Needs REVRUN (the binary under test) and REVRUN_PROBES (the built
# probes). Sets NODE_DIR, NODE_SOCK, NODE_NETNS, NODE_TAG, NODE_PAUSE,
# NODE_IMAGE, NODE_RR_ROOT (the revrun handler's --root, absent until its
# first container) and NODE_RUNC_ROOT. Pod cgroup parents must contain
# NODE_TAG (pod_json does so) for node_down to find them.

CRI_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NODE_PAUSE=docker.io/revrun/pause:test
NODE_IMAGE=docker.io/library/rrbusybox:test

cri() {
    nsenter --net="/run/netns/$NODE_NETNS" -- env CRI_GEN="$NODE_DIR/gen" \
        /usr/bin/python3 "$CRI_HERE/cri.py" --sock "$NODE_SOCK" "$@"
}

node_config() {
    local cg=false
    [ "${1:-}" = systemd ] && cg=true
    cat <<TOML
version = 2
root = "$NODE_DIR/root"
state = "$NODE_DIR/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
                    "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$NODE_SOCK"
[ttrpc]
  address = "$NODE_SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$NODE_DIR/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$NODE_PAUSE"
  restrict_oom_score_adj = true
  disable_apparmor = true
  netns_mounts_under_state_dir = true
  systemd_cgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$NODE_DIR/cni"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    snapshotter = "overlayfs"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$NODE_RUNC_ROOT"
        SystemdCgroup = $cg
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.revrun]
      runtime_type = "io.containerd.runc.v2"
      pod_annotations = ["io.revrun.*"]
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.revrun.options]
        BinaryName = "$NODE_DIR/bin/revrun"
        Root = "$NODE_RR_ROOT"
        SystemdCgroup = $cg
TOML
}

node_cni() {
    cat <<JSON
{"cniVersion": "1.0.0", "name": "rrpods", "plugins": [
  {"type": "bridge", "bridge": "rrpod0", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "dataDir": "$NODE_DIR/ipam",
            "ranges": [[{"subnet": "10.89.0.0/24"}]]}}]}
JSON
}

node_images() {
    local img=$NODE_DIR/img
    "$CRI_HERE/../engines/mkimage.sh" "$img/busybox" >/dev/null || return 1
    mkdir -p "$img/pause"
    cp "$REVRUN_PROBES/pause" "$img/pause/pause" || return 1
    "$CRI_HERE/../engines/archive.sh" "$img/pause" "$NODE_PAUSE" "$img/pause.tar" /pause ||
        return 1
    ctr -a "$NODE_SOCK" -n k8s.io images import "$img/busybox/image.tar" >/dev/null &&
        ctr -a "$NODE_SOCK" -n k8s.io images import "$img/pause.tar" >/dev/null
}

# Until the CRI answers with the runtime and its network ready (bounded).
node_ready() {
    local i
    for i in $(seq 300); do
        if cri status 2>/dev/null | grep -q '"NetworkReady", "status": true\|"status": true, "type": "NetworkReady"'; then
            return 0
        fi
        kill -0 "$NODE_PID" 2>/dev/null || break
        sleep 0.2
    done
    echo "node: containerd did not come up; its log:" >&2
    tail -20 "$NODE_DIR/containerd.log" >&2
    return 1
}

node_up() {
    NODE_DIR=$1
    mkdir -m 0755 "$NODE_DIR" || return 1
    NODE_DIR=$(cd "$NODE_DIR" && pwd)
    NODE_TAG=rrpods$$x$RANDOM
    NODE_NETNS=$NODE_TAG
    NODE_SOCK=$NODE_DIR/containerd.sock
    NODE_RR_ROOT=$NODE_DIR/fresh/revrun/state
    NODE_RUNC_ROOT=$NODE_DIR/runc
    echo "$NODE_NETNS" >"$NODE_DIR/netns"
    echo "$NODE_TAG" >"$NODE_DIR/tag"
    mkdir -p "$NODE_DIR/bin" "$NODE_DIR/cni" "$NODE_DIR/logs" || return 1
    cp "$REVRUN" "$NODE_DIR/bin/revrun" && chmod 0755 "$NODE_DIR/bin/revrun" || return 1
    node_config "${2:-}" >"$NODE_DIR/config.toml"
    node_cni >"$NODE_DIR/cni/10-rrpods.conflist"
    ip netns add "$NODE_NETNS" || return 1
    ip -n "$NODE_NETNS" link set lo up || return 1
    nsenter --net="/run/netns/$NODE_NETNS" -- \
        setsid containerd --config "$NODE_DIR/config.toml" >"$NODE_DIR/containerd.log" 2>&1 &
    NODE_PID=$!
    echo "$NODE_PID" >"$NODE_DIR/containerd.pid"
    export NODE_DIR NODE_TAG NODE_NETNS NODE_SOCK NODE_RR_ROOT NODE_RUNC_ROOT NODE_PID
    node_ready && node_images
}

# Processes of the node: containerd, its shims (their command line names
# the node's socket) and everything in the node's pod cgroups.
node_pids() {
    local p
    for p in /proc/[0-9]*; do
        { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF -- "$NODE_DIR/" && echo "${p#/proc/}"
    done
    node_cgroups | while read -r d; do cat "$d/cgroup.procs" 2>/dev/null; done
}

# The node's pod cgroups, deepest first, in every hierarchy.
node_cgroups() {
    [ -n "${NODE_TAG:-}" ] || return 0
    find /sys/fs/cgroup -mindepth 1 -type d \( -name "*$NODE_TAG*" -o -path "*$NODE_TAG*" \) \
        -print 2>/dev/null | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2-
}

node_mounts() {
    [ -n "${NODE_DIR:-}" ] || return 0
    awk -v d="$NODE_DIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo
}

node_down() {
    [ -n "${NODE_DIR:-}" ] && [ -d "$NODE_DIR" ] || return 0
    local id p m i
    if [ -n "${NODE_PID:-}" ] && kill -0 "$NODE_PID" 2>/dev/null; then
        for id in $(cri pods 2>/dev/null | python3 -c 'import json,sys
for p in json.load(sys.stdin).get("items", []): print(p["id"])' 2>/dev/null); do
            cri stopp "$id" >/dev/null 2>&1
            cri rmp "$id" >/dev/null 2>&1
        done
        kill "$NODE_PID" 2>/dev/null
        for i in $(seq 50); do kill -0 "$NODE_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$NODE_PID" 2>/dev/null
    fi
    for i in 1 2 3; do
        for p in $(node_pids); do kill -9 "$p" 2>/dev/null; done
        sleep 0.1
    done
    node_mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    node_cgroups | while read -r m; do rmdir "$m" 2>/dev/null; done
    [ -x "$NODE_DIR/bin/revrun" ] && [ -d "$NODE_RR_ROOT" ] &&
        "$NODE_DIR/bin/revrun" --root "$NODE_RR_ROOT/k8s.io" sweep >/dev/null 2>&1
    ip netns del "${NODE_NETNS:-$(cat "$NODE_DIR/netns" 2>/dev/null)}" 2>/dev/null
    rm -rf "$NODE_DIR"
    NODE_DIR=
}

# After the node's pods are removed: the pod cgroups themselves are the
# kubelet's to remove, what is below them is the runtime's.
node_leftovers() {
    local p
    for p in $(node_pids); do
        [ "$p" = "${NODE_PID:-}" ] && continue
        echo "process $p: $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"
    done
    node_mounts | sed 's/^/mount /'
    node_cgroups | grep -F -- "$NODE_TAG/" | sed 's/^/cgroup /'
    grep -lF -- "$NODE_DIR/" /run/revrun-ids/* 2>/dev/null | sed 's/^/id record /'
    # each handler's state: a container's directory outlives nothing
    for r in "${NODE_RR_ROOT:-}" "${NODE_RUNC_ROOT:-}"; do
        [ -n "$r" ] && [ -d "$r/k8s.io" ] && ls -A "$r/k8s.io" | sed "s|^|state $r/k8s.io/|"
    done
    return 0
}

# pod_json NAME [PATH=JSON...]: $NODE_DIR/specs/NAME.pod.json, the pod's
# uid NAME-NODE_TAG (so its cgroup parent names the node).
pod_json() {
    local name=$1
    shift
    mkdir -p "$NODE_DIR/specs" "$NODE_DIR/logs/$name"
    python3 "$CRI_HERE/spec.py" pod "$name" "$name-$NODE_TAG" "$NODE_DIR/logs/$name" "$@" \
        >"$NODE_DIR/specs/$name.pod.json"
}

# pod_run NAME HANDLER [PATH=JSON...]: runs it, prints the pod's id.
pod_run() {
    local name=$1 handler=$2
    shift 2
    pod_json "$name" "$@" && cri runp "$NODE_DIR/specs/$name.pod.json" "$handler"
}

# ctr_run POD_ID POD_NAME NAME [PATH=JSON...] -- CMD...: creates and starts
# a container of the busybox image in the pod, prints its id.
ctr_run() {
    local pod=$1 pname=$2 name=$3 id
    shift 3
    python3 "$CRI_HERE/spec.py" ctr "$name" "$NODE_IMAGE" "$@" >"$NODE_DIR/specs/$pname.$name.json" &&
        id=$(cri create "$pod" "$NODE_DIR/specs/$pname.$name.json" "$NODE_DIR/specs/$pname.pod.json") &&
        cri start "$id" && echo "$id"
}
