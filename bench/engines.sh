#!/bin/bash
# bench/engines.sh: what revrun costs an engine, beside runc on the same
# engine: the wall time of one `run --rm` of a busybox `true` (create,
# start, exit seen, delete), for ctr (containerd 1.6's runc shim v2), podman
# and docker, each where it is installed and running; and for Kubernetes,
# a pod's start to running through the CRI (RunPodSandbox, CreateContainer,
# StartContainer, as a kubelet issues them) of a pod with two volumes and
# limits, on the CRI node of integration/cri/ (bench/podstart.py).
#
#   bench/engines.sh [N [ENGINE...]]   N runs per runtime and engine
#                                      (default 20); ENGINE: ctr, podman,
#                                      docker, pods (default: all)
#
# Needs root and the engines of integration/engines.bats (docker: a
# revrun-test runtime in /etc/docker/daemon.json); pods: containerd,
# containernetworking-plugins, python3-grpcio and python3-grpc-tools. The
# image is built offline (integration/engines/mkimage.sh) and removed
# afterwards.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
[ $# -gt 0 ] && shift
engines=" ${*:-ctr podman docker pods} "
want() { case $engines in *" $1 "*) return 0 ;; esac; return 1; }
[ -x "$here/revrun" ] || make -C "$here" revrun >/dev/null
tmp=$(mktemp -d /tmp/revrun-bench.XXXXXX)
cp "$here/revrun" "$tmp/revrun"
chmod 0755 "$tmp" "$tmp/revrun"
ns=rrbench # not revrun*: the suites judge cgroups by that name
docker=/usr/bin/docker
cleanup() {
    ctr -n $ns image rm docker.io/library/rrbusybox:test >/dev/null 2>&1 || true
    find /sys/fs/cgroup -depth -type d -name $ns -exec rmdir {} + 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
"$here/integration/engines/mkimage.sh" "$tmp/img" >/dev/null

# mean and median of N runs of "$@", in milliseconds
measure() {
    local times=() i t0 t1
    for i in $(seq "$n"); do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
        t1=$(date +%s%N)
        times+=($(((t1 - t0) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1; s+=$1} END {printf "mean %4d ms  median %4d ms", s/NR, a[int((NR+1)/2)]}'
}

row() {
    local engine=$1
    shift
    printf '%-8s runc   %s\n' "$engine" "$(measure "$@" runc)"
    printf '%-8s revrun %s\n' "$engine" "$(measure "$@" revrun)"
}

ctr_run() {
    local bin=/usr/sbin/runc
    [ "$1" = revrun ] && bin=$tmp/revrun
    ctr -n $ns run --runc-binary "$bin" --rm docker.io/library/rrbusybox:test "b$RANDOM" true
}
podman_run() {
    local bin=/usr/sbin/runc
    [ "$1" = revrun ] && bin=$tmp/revrun
    podman --runtime "$bin" --cgroup-manager cgroupfs run --rm --network none \
        --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 localhost/rrbusybox:bench true
}
docker_run() {
    local rt=runc
    [ "$1" = revrun ] && rt=revrun-test
    "$docker" run --runtime "$rt" --rm --network none rrbusybox:bench true
}

echo "run --rm of \`true\`, $n runs each"
if want ctr && ctr version >/dev/null 2>&1; then
    ctr -n $ns image import "$tmp/img/image.tar" >/dev/null
    row ctr ctr_run
fi
if want podman && command -v podman >/dev/null 2>&1; then
    podman import "$tmp/img/rootfs.tar" localhost/rrbusybox:bench >/dev/null 2>&1
    row podman podman_run
fi
if want docker && "$docker" info >/dev/null 2>&1; then
    path=$(python3 -c 'import json; print(json.load(open("/etc/docker/daemon.json"))["runtimes"]["revrun-test"]["path"])' 2>/dev/null || true)
    if [ -n "$path" ]; then
        cp "$here/revrun" "$path"
        "$docker" import "$tmp/img/rootfs.tar" rrbusybox:bench >/dev/null 2>&1
        row docker docker_run
    fi
fi
# Kubernetes: a CRI node of its own (integration/cri/node.bash), removed
# again whatever happens
if want pods && command -v containerd >/dev/null 2>&1 && [ -x /usr/lib/cni/bridge ] &&
    /usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null; then
    [ -x "$here/build/probes/pause" ] || make -C "$here" >/dev/null
    (
        export REVRUN=$tmp/revrun REVRUN_PROBES=$here/build/probes
        # shellcheck source=../integration/cri/node.bash
        source "$here/integration/cri/node.bash"
        trap 'set +e; node_down' EXIT
        node_up "$tmp/node" >/dev/null
        /usr/bin/python3 "$here/bench/podstart.py" "$NODE_SOCK" "$NODE_DIR/gen" "$NODE_DIR" \
            "$NODE_TAG" "$NODE_IMAGE" "$n"
    )
fi
