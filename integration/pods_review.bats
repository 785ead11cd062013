#!/usr/bin/env bats
# A review as a Kubernetes pod: containerd's CRI plugin (integration/cri/,
# the node pods.bats uses) with `pod_annotations = ["io.revrun.*"]` on its
# revrun handler, driven by cri/cri.py as a kubelet would. The pod's
# annotations name the checkout's mount and an export name; its container
# edits the checkout. Judged from the host: the checkout's bytes, names and
# modes unchanged, the vetted change set under the export root once the
# container has exited, nothing else of the pod left. runc has no review to
# compare with: these are revrun's alone.
# Outside CI a missing containerd or grpc skips; under CI it fails.

load helpers
source "$BATS_TEST_DIRNAME/cri/node.bash"

EXPORTS=/var/lib/revrun/exports # the default policy's exportRoot

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
    node_up "$(mktemp -u /tmp/revrun-podrev.XXXXXX)" || {
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
    CO= EXP=
}

teardown() {
    local p
    if [ -n "${NODE_DIR:-}" ] && [ -f "$NODE_DIR/pods.list" ]; then
        while read -r p; do
            cri stopp "$p" >/dev/null 2>&1
            cri rmp "$p" >/dev/null 2>&1
        done <"$NODE_DIR/pods.list"
    fi
    [ -n "$CO" ] && rm -rf "$CO" "$CO.sums" "$CO.copy"
    [ -n "$EXP" ] && rm -rf "$EXP"
    return 0
}

# A checkout of three files owned by a user (a checkout is never root's),
# its bytes, names and modes as lines to compare after.
make_checkout() {
    CO=$(mktemp -d /tmp/revrun-podrev-co.XXXXXX)
    chmod 0755 "$CO"
    echo original >"$CO/a.txt"
    mkdir "$CO/sub"
    echo keep >"$CO/sub/b.txt"
    echo same >"$CO/c.txt"
    chown -R 4242:4242 "$CO"
    checkout_sums >"$CO.sums"
}

checkout_sums() {
    (cd "$CO" && find . -print0 | sort -z | xargs -0 stat -c '%n %a %u %g %s %Y' &&
        find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# The agent's edits: one file modified, one added, one deleted, one left;
# and a write outside the checkout (the container's root, /tmp) that must not
# survive the pod.
EDITS='echo changed >/work/a.txt && echo new >/work/new.txt && rm /work/sub/b.txt &&
echo stray >/tmp/rr-stray-$$ && cat /work/a.txt /work/c.txt'

# review_pod NAME EXPORT [PATH=JSON...]: a revrun pod whose annotations
# name /work as the checkout and EXPORT as the export; sets POD.
review_pod() {
    local name=$1 export=$2
    shift 2
    POD=$(pod_run "$name" revrun "annotations={\"io.revrun.checkout\": \"/work\", \
\"io.revrun.export\": \"$export\"}" "$@") || return 1
    echo "$POD" >>"$NODE_DIR/pods.list"
}

# agent POD_NAME NAME [PATH=JSON...] -- CMD: a container of $POD with the
# checkout as a hostPath volume at /work; created, not started: prints its id.
agent() {
    local pname=$1 name=$2
    shift 2
    python3 "$CRI_HERE/spec.py" ctr "$name" "$NODE_IMAGE" \
        "mounts=[{\"container_path\": \"/work\", \"host_path\": \"$CO\"}]" "$@" \
        >"$NODE_DIR/specs/$pname.$name.json" &&
        cri create "$POD" "$NODE_DIR/specs/$pname.$name.json" "$NODE_DIR/specs/$pname.pod.json"
}

field() {
    python3 -c 'import json,sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d.get(k, "") if isinstance(d, dict) else ""
print(d)' "$1"
}

# The export appears when the shim deletes the exited container (bounded).
wait_export() {
    local i
    for i in $(seq 300); do
        [ -f "$EXP/manifest.json" ] || [ -f "$EXP/refused.txt" ] && return 0
        sleep 0.1
    done
    echo "no export at $EXP" >&2
    return 1
}

@test "revrun: a review as a pod: the container's edits come back as the vetted change set under the export root, the checkout untouched, nothing else of the pod left" {
    local c name digest st
    make_checkout
    name=podrev-$$-$RANDOM
    EXP=$EXPORTS/$name
    review_pod rev "$name"
    # the pod's sandbox (no volume) runs, saying why nothing of it is exported
    st=$("$NODE_DIR/bin/revrun" --root "$NODE_RR_ROOT/k8s.io" state "$POD")
    echo "$st"
    [[ "$st" == *"the pod's sandbox has no mount there"* ]]
    c=$(agent rev agent -- sh -c "$EDITS")
    cri start "$c"
    cri wait "$c" exited 120
    # exit 0 (proto3 leaves a zero exit_code out; containerd says Completed)
    [ "$(cri inspect "$c" | field status.reason)" = Completed ]
    grep -q "stdout F changed" "$NODE_DIR/logs/rev/agent/0.log"
    wait_export
    # the host's checkout: not a byte, name or mode changed
    diff <(checkout_sums) "$CO.sums"
    # the vetted change set: the three changes, their two blobs, whose
    python3 - "$EXP/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted((c["path"], c["kind"]) for c in m["changes"])
assert got == [("a.txt", "modify"), ("new.txt", "add"), ("sub/b.txt", "delete")], got
PY
    # the two new contents and the two bases (an export keeps what a patch is read against)
    [ "$(find "$EXP/blobs" -type f | wc -l)" = 4 ]
    grep -qx "container $c" "$EXP/origin"
    [ ! -e "$EXP/.claim" ]
    ! grep -rq stray "$EXP" || false
    # what an operator does next: approve the digest, apply onto a copy
    digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' \
        "$EXP/manifest.json")
    cp -a "$CO" "$CO.copy"
    "$REVRUN" apply "$EXP" --to "$CO.copy" --approve "$digest"
    [ "$(cat "$CO.copy/a.txt")" = changed ]
    [ "$(cat "$CO.copy/new.txt")" = new ]
    [ ! -e "$CO.copy/sub/b.txt" ]
    # the pod goes: nothing of its writes, mounts, cgroups or ids is left
    cri rm "$c"
    cri stopp "$POD"
    cri rmp "$POD"
    run node_leftovers
    echo "leftovers: $output"
    [ -z "$output" ]
    [ -z "$(find "$NODE_DIR" -name 'rr-stray-*' 2>/dev/null)" ]
    diff <(checkout_sums) "$CO.sums"
}

# The pod's annotations reach each of its containers: one without a mount
# at the checkout's destination is refused (only the sandbox, which no
# volume is given, is spared), and an export name is one container's: a
# second container of the pod (a sidecar, a restart) naming it is refused,
# naming the holder. Nothing of either refusal is left.
@test "revrun: a review pod's container without the checkout's mount, and a second container claiming its export, are refused with the reason" {
    local c0 c1 c2 name
    make_checkout
    name=podrev-$$-$RANDOM
    EXP=$EXPORTS/$name
    review_pod two "$name"
    # (containerd creates the task, so revrun's create, at StartContainer)
    python3 "$CRI_HERE/spec.py" ctr nomount "$NODE_IMAGE" -- true >"$NODE_DIR/specs/two.nomount.json"
    c0=$(cri create "$POD" "$NODE_DIR/specs/two.nomount.json" "$NODE_DIR/specs/two.pod.json")
    run cri start "$c0"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"io.revrun.checkout /work: no mount of the config has it as destination"* ]]
    c1=$(agent two one -- sh -c 'echo one >/work/a.txt; exec sleep 1000')
    cri start "$c1"
    c2=$(agent two second -- sh -c 'echo second >/work/a.txt')
    run cri start "$c2"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"io.revrun.export: $EXP is held by container $c1"* ]]
    cri stop "$c1" 0
    wait_export
    grep -qx "container $c1" "$EXP/origin"
    grep -rqx one "$EXP/blobs"
    ! grep -rq second "$EXP" || false
    diff <(checkout_sums) "$CO.sums"
    cri rm "$c0"
    cri rm "$c1"
    cri rm "$c2"
    cri stopp "$POD"
    cri rmp "$POD"
    run node_leftovers
    echo "leftovers: $output"
    [ -z "$output" ]
}

# The upper is vetted once everything that could write it has stopped,
# which only a pid namespace of the container's own says: a review pod
# with shareProcessNamespace is refused at its container's create.
@test "revrun: a review pod with shareProcessNamespace is refused (a joined pid namespace could outlive the container)" {
    local c name
    make_checkout
    name=podrev-$$-$RANDOM
    EXP=$EXPORTS/$name
    review_pod spn "$name" 'linux.security_context.namespace_options.pid="POD"'
    c=$(agent spn agent 'linux.security_context.namespace_options.pid="POD"' -- true)
    run cri start "$c"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"io.revrun.checkout: refused with a joined pid namespace"* ]]
    [ ! -e "$EXP" ]
    diff <(checkout_sums) "$CO.sums"
}

# fuse-overlayfs serves the checkout when the pod asks for it (or the
# kernel's overlayfs cannot mount over the checkout): its daemon runs in
# the container's mount namespace, confined as a review's, and ends with it.
@test "revrun: a review pod with io.revrun.overlay=fuse: the view is fuse-overlayfs', the change set is exported, the daemon ends with the container" {
    local c name
    make_checkout
    name=podrev-$$-$RANDOM
    EXP=$EXPORTS/$name
    POD=$(pod_run fuse revrun "annotations={\"io.revrun.checkout\": \"/work\", \
\"io.revrun.export\": \"$name\", \"io.revrun.overlay\": \"fuse\"}")
    echo "$POD" >>"$NODE_DIR/pods.list"
    c=$(agent fuse agent -- sh -c "$EDITS; grep -c ' /work fuse' /proc/self/mounts")
    cri start "$c"
    cri wait "$c" exited 120
    [ "$(cri inspect "$c" | field status.reason)" = Completed ]
    grep -q "stdout F 1" "$NODE_DIR/logs/fuse/agent/0.log"
    wait_export
    diff <(checkout_sums) "$CO.sums"
    python3 - "$EXP/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted((c["path"], c["kind"]) for c in m["changes"])
assert got == [("a.txt", "modify"), ("new.txt", "add"), ("sub/b.txt", "delete")], got
PY
    ! pgrep -f "fuse-overlayfs.*$CO" || false
    cri rm "$c"
    cri stopp "$POD"
    cri rmp "$POD"
    run node_leftovers
    [ -z "$output" ]
}

# ---- what a pod author sees by design, beside runc ----

# kubelet's defaults as a pod author gets them when asking for the least:
# allowPrivilegeEscalation left true (no_new_privs false in the CRI),
# seccompProfile Unconfined (no filter in the spec). runc gives exactly
# that; revrun keeps no_new_privs and its seccomp floor whatever the pod
# says (its default host policy), and on cgroup v1 the container's
# /sys/fs/cgroup is an empty read-only tmpfs (v1 hierarchies cannot be
# mounted from the container's user namespace).
by_design() {
    local h=$1 c
    POD=$(pod_run "d$h" "$h" 'linux.security_context.seccomp={"profile_type": "Unconfined"}')
    echo "$POD" >>"$NODE_DIR/pods.list"
    python3 "$CRI_HERE/spec.py" ctr app "$NODE_IMAGE" \
        'linux.security_context.seccomp={"profile_type": "Unconfined"}' \
        'linux.security_context.no_new_privs=false' -- sleep 1000 >"$NODE_DIR/specs/d$h.app.json"
    c=$(cri create "$POD" "$NODE_DIR/specs/d$h.app.json" "$NODE_DIR/specs/d$h.pod.json")
    cri start "$c"
    run cri exec-sync "$c" -- sh -c 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status;
        grep " /sys/fs/cgroup " /proc/self/mounts | cut -d" " -f3,4 | cut -d, -f1;
        echo "entries $(ls /sys/fs/cgroup | wc -l)"'
    echo "$output"
    [ "$status" = 0 ]
    cri stop "$c" 0
    cri rm "$c"
}

@test "runc: allowPrivilegeEscalation and seccomp Unconfined as the pod asks; /sys/fs/cgroup the node's hierarchies" {
    by_design runc
    [[ "$output" == *"NoNewPrivs:	0"* ]]
    [[ "$output" == *"Seccomp:	0"* ]]
    [[ "$output" != *"entries 0"* ]]
}

@test "revrun: allowPrivilegeEscalation ignored (no_new_privs kept), seccomp Unconfined keeps revrun's floor, /sys/fs/cgroup on cgroup v1 an empty read-only tmpfs" {
    by_design revrun
    [[ "$output" == *"NoNewPrivs:	1"* ]]
    [[ "$output" == *"Seccomp:	2"* ]]
    if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
        [[ "$output" == *"tmpfs ro"* ]]
        [[ "$output" == *"entries 0"* ]]
    fi
}
