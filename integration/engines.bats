#!/usr/bin/env bats
# Engine mode, driven through the real engines from Debian: containerd
# (ctr and its runc shim v2), podman (conmon) and docker (dockerd and the
# shim), each running revrun as its runtime on an image built offline from
# busybox-static (engines/mkimage.sh). Every step is compared with runc on
# the same engine; the confinement is judged from inside (CapEff, Seccomp,
# NoNewPrivs, the uid map) and from the host (the process gone after stop,
# no mount and no state left).
#
# An engine that is not installed or not running is skipped outside CI;
# under CI (CI=true, .ci/run installs and starts them) it fails.
# docker needs a runtime named revrun-test in /etc/docker/daemon.json; the
# suite copies the revrun under test to the path that entry names.

load helpers

IMG_CTR=docker.io/library/rrbusybox:test
IMG_LOCAL=localhost/rrbusybox:engines
NS=rrengines # not revrun*: other suites judge cgroups by that name
DOCKER=/usr/bin/docker # Debian's docker.io (a /usr/local/bin/docker may be another client)
# podman's default nofile (1048576) can exceed this host's hard limit.
PODMAN_ULIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
# The default capability set (containerd's, docker's): what the policy
# allows when /etc/revrun/policy.json does not exist.
CAPS_DEFAULT=00000000a80425fb

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-engines.XXXXXX)
    chmod 0755 "$ENG_DIR"
    cp "$REVRUN" "$ENG_DIR/revrun"
    chmod 0755 "$ENG_DIR/revrun"
    "$BATS_TEST_DIRNAME/engines/mkimage.sh" "$ENG_DIR/img" >/dev/null
    if ctr version >/dev/null 2>&1; then
        ctr -n "$NS" image import "$ENG_DIR/img/image.tar" >/dev/null
    fi
    if command -v podman >/dev/null 2>&1; then
        podman import "$ENG_DIR/img/rootfs.tar" "$IMG_LOCAL" >/dev/null 2>&1 || true
    fi
    if "$DOCKER" info >/dev/null 2>&1; then
        "$DOCKER" import "$ENG_DIR/img/rootfs.tar" rrbusybox:engines >/dev/null 2>&1 || true
        local path
        path=$(docker_runtime_path)
        if [ -n "$path" ]; then
            mkdir -p "$(dirname "$path")"
            cp "$REVRUN" "$path"
            chmod 0755 "$path"
        fi
    fi
}

teardown_file() {
    ctr -n "$NS" image rm "$IMG_CTR" >/dev/null 2>&1 || true
    podman rmi -f "$IMG_LOCAL" >/dev/null 2>&1 || true
    "$DOCKER" rmi rrbusybox:engines >/dev/null 2>&1 || true
    # runc (the reference) leaves its namespace's cgroup parents behind
    find /sys/fs/cgroup -depth -type d -name "$NS" -exec rmdir {} + 2>/dev/null || true
    rm -rf "$ENG_DIR"
}

setup() {
    RT=$ENG_DIR/revrun
    NAMES=()
}

teardown() {
    local n
    for n in "${NAMES[@]}"; do
        case $n in
        ctr:*)
            ctr -n "$NS" task kill -s 9 "${n#ctr:}" >/dev/null 2>&1 || true
            ctr -n "$NS" task delete -f "${n#ctr:}" >/dev/null 2>&1 || true
            ctr -n "$NS" container rm "${n#ctr:}" >/dev/null 2>&1 || true
            ;;
        podman:*) podman rm -f "${n#podman:}" >/dev/null 2>&1 || true ;;
        docker:*) "$DOCKER" rm -f "${n#docker:}" >/dev/null 2>&1 || true ;;
        esac
    done
    # an io.revrun.checkout test: its checkout and its export
    [ -n "${CO:-}" ] && rm -rf "$CO" "$CO.sums" "$CO.moved"
    [ -n "${EXP:-}" ] && rm -rf "$EXP"
    [ -n "${ROOTFS:-}" ] && rm -rf "$ROOTFS"
    # a hook test that failed half way: its container and bundle
    if [ -n "${B:-}" ] && [ -d "$B" ]; then
        "$RT" --root "$B/state" delete --force h1 >/dev/null 2>&1 || true
        rm -rf "$B"
    fi
}

docker_runtime_path() {
    python3 -c '
import json, sys
try:
    c = json.load(open("/etc/docker/daemon.json"))
    print(c["runtimes"]["revrun-test"]["path"])
except Exception:
    pass'
}

need() {
    local ok=0
    case $1 in
    ctr) ctr version >/dev/null 2>&1 && ok=1 ;;
    podman) command -v podman >/dev/null 2>&1 && podman image exists "$IMG_LOCAL" && ok=1 ;;
    docker) "$DOCKER" info >/dev/null 2>&1 && [ -n "$(docker_runtime_path)" ] && ok=1 ;;
    esac
    if [ "$ok" = 0 ]; then
        if [ "${CI:-}" = true ]; then
            echo "engine $1 is missing or not running under CI (.ci/run installs and starts it)" >&2
            return 1
        fi
        skip "engine $1 not installed or not running (docker also needs a revrun-test runtime in /etc/docker/daemon.json)"
    fi
}

# run_on ENGINE RUNTIME NAME [engine flags...] -- CMD...: one container,
# foreground, removed after; output and status in $output/$status.
run_on() {
    local engine=$1 runtime=$2 name=$3
    shift 3
    local flags=()
    while [ "$1" != -- ]; do
        flags+=("$1")
        shift
    done
    shift
    case $engine in
    ctr)
        NAMES+=("ctr:$name")
        local bin=$RT
        [ "$runtime" = runc ] && bin=/usr/sbin/runc
        run timeout 60 ctr -n "$NS" run --runc-binary "$bin" --rm "${flags[@]}" "$IMG_CTR" "$name" "$@"
        ;;
    podman)
        NAMES+=("podman:$name")
        # shellcheck disable=SC2086
        run timeout 60 podman --runtime "$(podman_rt "$runtime")" --cgroup-manager cgroupfs run \
            --rm --name "$name" $PODMAN_ULIMITS "${flags[@]}" "$IMG_LOCAL" "$@"
        ;;
    docker)
        NAMES+=("docker:$name")
        run timeout 60 "$DOCKER" run --runtime "$(docker_rt "$runtime")" --rm --name "$name" \
            "${flags[@]}" rrbusybox:engines "$@"
        ;;
    esac
}

podman_rt() { [ "$1" = runc ] && echo /usr/sbin/runc || echo "$RT"; }
docker_rt() { [ "$1" = runc ] && echo runc || echo revrun-test; }

# The same command under runc and revrun on one engine: same output, same
# exit status.
same_as_runc() {
    local engine=$1 want_status=$2
    shift 2
    run_on "$engine" runc "rc-$engine-$BATS_TEST_NUMBER" "$@"
    local runc_status=$status runc_output=$output
    run_on "$engine" revrun "rr-$engine-$BATS_TEST_NUMBER" "$@"
    echo "runc ($runc_status): $runc_output"
    echo "revrun ($status): $output"
    [ "$runc_status" = "$want_status" ]
    [ "$status" = "$want_status" ]
    [ "$output" = "$runc_output" ]
}

# ---- run --rm: output and exit status ----

@test "ctr: run --rm prints the output and exits 7, as with runc" {
    need ctr
    # stdout and stderr are two pipes whose interleaving is no runtime's to
    # decide: stderr goes into stdout inside.
    same_as_runc ctr 7 -- sh -c 'exec 2>&1; echo out; echo err >&2; exit 7'
    [ "$output" = "out
err" ]
}

@test "podman: run --rm prints the output and exits 7, as with runc" {
    need podman
    same_as_runc podman 7 --network none -- sh -c 'echo out; exit 7'
    [ "$output" = out ]
}

@test "docker: run --rm prints the output and exits 7, as with runc" {
    need docker
    same_as_runc docker 7 --network none -- sh -c 'echo out; exit 7'
    [ "$output" = out ]
}

# ---- a directory as the root (--rootfs) ----

# a copy of the image as a plain directory, for --rootfs; ROOTFS_SUM: its
# names, owners, modes, sizes and bytes
rootfs_copy() {
    ROOTFS=$(mktemp -d /tmp/revrun-engines-rootfs.XXXXXX)
    cp -a "$ENG_DIR/img/rootfs/." "$ROOTFS/"
    ROOTFS_SUM=$(rootfs_sum)
}

rootfs_sum() {
    (cd "$ROOTFS" && find . -printf '%p %y %U:%G %m %s\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum
}

# what a --rootfs container does: write the image's root-owned /etc, plant
# a setuid copy of busybox, read its write back
ROOTFS_SCRIPT='echo hi >/etc/written && cp /bin/busybox /tmp/r && chmod 4755 /tmp/r && cat /etc/written'

@test "ctr: run --rootfs DIR runs the container; its writes (a setuid plant among them) stay in its private upper, DIR is untouched" {
    need ctr
    rootfs_copy
    NAMES+=("ctr:rr-rootfs-$BATS_TEST_NUMBER")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --rootfs "$ROOTFS" \
        "rr-rootfs-$BATS_TEST_NUMBER" sh -c "$ROOTFS_SCRIPT"
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = hi ]
    [ "$(rootfs_sum)" = "$ROOTFS_SUM" ]
}

@test "podman: run --rootfs DIR runs the container; its writes (a setuid plant among them) stay in its private upper, not in DIR" {
    need podman
    rootfs_copy
    NAMES+=("podman:rr-rootfs-$BATS_TEST_NUMBER")
    # shellcheck disable=SC2086
    run timeout 60 podman --runtime "$RT" --cgroup-manager cgroupfs run --rm \
        --name "rr-rootfs-$BATS_TEST_NUMBER" $PODMAN_ULIMITS --rootfs "$ROOTFS" sh -c "$ROOTFS_SCRIPT"
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = hi ]
    # podman itself adds /etc/mtab; nothing of the container's is there
    [ ! -e "$ROOTFS/etc/written" ]
    [ ! -e "$ROOTFS/tmp/r" ]
    [ -z "$(find "$ROOTFS" -perm /6000)" ]
}

# ---- run -t ----

@test "ctr: run -t gives a terminal and the exit status, as with runc" {
    need ctr
    NAMES+=("ctr:rc-t" "ctr:rr-t")
    # ctr -t wants a terminal of its own: script gives it one (-e: its status).
    run timeout 60 script -qec "ctr -n $NS run --runc-binary /usr/sbin/runc -t --rm $IMG_CTR rc-t sh -c 'tty; exit 3'" /dev/null
    local runc_status=$status runc_output=${output//$'\r'/}
    run timeout 60 script -qec "ctr -n $NS run --runc-binary $RT -t --rm $IMG_CTR rr-t sh -c 'tty; exit 3'" /dev/null
    output=${output//$'\r'/}
    echo "runc ($runc_status): $runc_output / revrun ($status): $output"
    [ "$runc_status" = 3 ]
    [ "$status" = 3 ]
    [ "$output" = "$runc_output" ]
    [[ "$output" == *"/dev/pts/0"* ]]
}

@test "podman: run -t gives a terminal and the exit status, as with runc" {
    need podman
    same_as_runc podman 3 -t --network none -- sh -c 'tty >/dev/null && echo tty; exit 3'
}

@test "docker: run -t gives a terminal and the exit status, as with runc" {
    need docker
    same_as_runc docker 3 -t --network none -- sh -c 'tty >/dev/null && echo tty; exit 3'
}

# ---- --network none ----

@test "podman and docker: --network none leaves only loopback, as with runc" {
    local any=0
    if command -v podman >/dev/null 2>&1 && podman image exists "$IMG_LOCAL"; then
        same_as_runc podman 0 --network none -- sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d " "'
        [ "$output" = lo ]
        any=1
    fi
    if "$DOCKER" info >/dev/null 2>&1 && [ -n "$(docker_runtime_path)" ]; then
        same_as_runc docker 0 --network none -- sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d " "'
        [ "$output" = lo ]
        any=1
    fi
    [ "$any" = 1 ] || need podman
}

# ---- confinement, seen from inside ----

confined_inside() {
    echo "$output"
    # a user namespace with revrun's mapping, never the host's ids
    # (a block of its own of the engineIds range: 2100000000 + k*65536)
    [[ "$output" =~ uid_map\ 0\ (21[0-9]{8})\ 65536 ]]
    [ $(((BASH_REMATCH[1] - 2100000000) % 65536)) = 0 ]
    [[ "$output" == *"Seccomp: 2"* ]]
    [[ "$output" == *"NoNewPrivs: 1"* ]]
    local eff
    eff=$(echo "$output" | sed -n 's/.*CapEff: \([0-9a-f]*\).*/\1/p')
    # within the policy's (default) set
    [ -n "$eff" ]
    [ $((0x$eff & ~0x$CAPS_DEFAULT)) = 0 ]
}

PROBE='printf "uid_map %s %s %s\n" $(cat /proc/self/uid_map); grep -E "^(CapEff|Seccomp|NoNewPrivs):" /proc/self/status | tr -s "\t" " "'

@test "ctr: confined inside (revrun's uid map, CapEff within the policy, seccomp, no_new_privs)" {
    need ctr
    run_on ctr revrun "in-ctr" -- sh -c "$PROBE"
    [ "$status" = 0 ]
    confined_inside
}

@test "podman: confined inside" {
    need podman
    run_on podman revrun "in-podman" -- sh -c "$PROBE"
    [ "$status" = 0 ]
    confined_inside
}

@test "docker: confined inside" {
    need docker
    run_on docker revrun "in-docker" -- sh -c "$PROBE"
    [ "$status" = 0 ]
    confined_inside
}

@test "ctr: CAP_SYS_ADMIN asked for is not granted; the tightening is on record" {
    need ctr
    NAMES+=("ctr:caps")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --cap-add CAP_SYS_ADMIN \
        --cap-add CAP_NET_ADMIN "$IMG_CTR" caps sh -c 'grep CapEff /proc/self/status'
    echo "$output"
    [ "$status" = 0 ]
    local eff
    eff=$(echo "$output" | awk '{print $2}')
    [ $((0x$eff & (1 << 21))) = 0 ] # SYS_ADMIN
    [ $((0x$eff & (1 << 12))) = 0 ] # NET_ADMIN: not in the default policy
    [ $((0x$eff & 1)) = 1 ]         # CHOWN: granted
}

# ---- run -d, kill, stop, rm: seen from the host ----

# No mount of the container's is left in the host's table, and revrun has
# no state for it.
nothing_left() {
    local id=$1 root=$2
    ! grep -F "$id" /proc/1/mountinfo || false
    [ ! -e "$root/$id" ]
}

@test "ctr: run -d, kill, delete: the process is gone, nothing left" {
    need ctr
    NAMES+=("ctr:bg")
    run ctr -n "$NS" run --runc-binary "$RT" -d "$IMG_CTR" bg sleep 600
    [ "$status" = 0 ]
    local pid
    pid=$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $2}')
    [ -n "$pid" ] && kill -0 "$pid"
    [ "$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $3}')" = RUNNING ]
    # a running container's state, through revrun, from the shim's root
    run "$RT" --root "/run/containerd/runc/$NS" state bg
    [[ "$output" == *'"status": "running"'* ]]
    [[ "$output" == *'"tightened"'* ]]
    # no monitor is no sign of a crash: sweep leaves a live engine container
    run "$RT" --root "/run/containerd/runc/$NS" sweep
    [ "$status" = 0 ]
    [ -d "/run/containerd/runc/$NS/bg" ]
    kill -0 "$pid"
    ctr -n "$NS" task kill -s SIGKILL bg
    for _ in $(seq 50); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    [ "$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $3}')" = STOPPED ]
    assert_dead "$pid"
    # kill of a stopped container: the words the shim matches
    run "$RT" --root "/run/containerd/runc/$NS" kill bg 9
    [ "$status" != 0 ]
    [[ "$output" == *"container not running"* ]]
    ctr -n "$NS" task delete bg
    ctr -n "$NS" container rm bg
    nothing_left bg "/run/containerd/runc/$NS"
}

@test "podman: run -d, stop, rm: the process is gone, nothing left" {
    need podman
    NAMES+=("podman:pbg")
    # shellcheck disable=SC2086
    run podman --runtime "$RT" --cgroup-manager cgroupfs run -d --name pbg $PODMAN_ULIMITS \
        --network none "$IMG_LOCAL" sleep 600
    [ "$status" = 0 ]
    local id pid
    id=$(podman inspect -f '{{.Id}}' pbg)
    pid=$(podman inspect -f '{{.State.Pid}}' pbg)
    kill -0 "$pid"
    run podman stop -t 1 pbg
    [ "$status" = 0 ]
    assert_dead "$pid"
    [ "$(podman inspect -f '{{.State.Status}}' pbg)" = exited ]
    podman rm pbg
    nothing_left "$id" /run/revrun
}

@test "docker: run -d, stop, rm: the process is gone, nothing left" {
    need docker
    NAMES+=("docker:dbg")
    run "$DOCKER" run --runtime revrun-test -d --name dbg rrbusybox:engines sleep 600
    [ "$status" = 0 ]
    local id pid
    id=$("$DOCKER" inspect -f '{{.Id}}' dbg)
    pid=$("$DOCKER" inspect -f '{{.State.Pid}}' dbg)
    kill -0 "$pid"
    run "$DOCKER" stop -t 1 dbg
    [ "$status" = 0 ]
    assert_dead "$pid"
    [ "$("$DOCKER" inspect -f '{{.State.Running}}' dbg)" = false ]
    "$DOCKER" rm dbg
    nothing_left "$id" /run/docker/runtime-runc/moby
}

# ---- a second container in the first's network namespace, by path ----

@test "ctr: a second container joins the first's network namespace by path" {
    need ctr
    NAMES+=("ctr:net1" "ctr:net2")
    ctr -n "$NS" run --runc-binary "$RT" -d "$IMG_CTR" net1 sleep 600
    local pid
    pid=$(ctr -n "$NS" task ls | awk '$1 == "net1" {print $2}')
    local want
    want=$(readlink "/proc/$pid/ns/net")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --with-ns "network:/proc/$pid/ns/net" \
        "$IMG_CTR" net2 readlink /proc/self/ns/net
    echo "want $want, got $output"
    [ "$status" = 0 ]
    [ "$output" = "$want" ]
    # a path that is not a namespace file is refused, as runc refuses it
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --with-ns "network:/etc/hostname" \
        "$IMG_CTR" net3 true
    NAMES+=("ctr:net3")
    [ "$status" != 0 ]
    [[ "$output" == *"not a namespace file"* ]]
}

@test "podman: a second container joins the first's network namespace (by path)" {
    need podman
    NAMES+=("podman:pn1" "podman:pn2")
    # shellcheck disable=SC2086
    podman --runtime "$RT" --cgroup-manager cgroupfs run -d --name pn1 $PODMAN_ULIMITS \
        "$IMG_LOCAL" sleep 600
    local pid want
    pid=$(podman inspect -f '{{.State.Pid}}' pn1)
    want=$(readlink "/proc/$pid/ns/net")
    run_on podman revrun pn2 --network container:pn1 -- readlink /proc/self/ns/net
    echo "want $want, got $output"
    [ "$status" = 0 ]
    [ "$output" = "$want" ]
}

@test "docker: a second container joins the first's network namespace (by path)" {
    need docker
    NAMES+=("docker:dn1" "docker:dn2")
    "$DOCKER" run --runtime revrun-test -d --name dn1 rrbusybox:engines sleep 600
    local pid want
    pid=$("$DOCKER" inspect -f '{{.State.Pid}}' dn1)
    want=$(readlink "/proc/$pid/ns/net")
    run_on docker revrun dn2 --network container:dn1 -- readlink /proc/self/ns/net
    echo "want $want, got $output"
    [ "$status" = 0 ]
    [ "$output" = "$want" ]
}

# ---- without an engine: what revrun refuses itself ----

@test "an engine's sysctl in the host's network namespace (joined by path) is refused, as runc refuses it" {
    local b fwd
    b=$(mktemp -d /tmp/revrun-engine-bundle.XXXXXX)
    mkdir -p "$b/rootfs"
    fwd=$(cat /proc/sys/net/ipv4/ip_forward)
    # the host's own value: without the check the write changes nothing here
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$b" "$fwd" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[2] + "/rootfs"
ns = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]
ns.append({"type": "network", "path": "/proc/self/ns/net"})
c["linux"]["namespaces"] = ns
c["linux"]["sysctl"] = {"net.ipv4.ip_forward": sys.argv[3]}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
EOF
    run "$ENG_DIR/revrun" --root "$b/state" create --bundle "$b" hostnet1
    "$ENG_DIR/revrun" --root "$b/state" delete -f hostnet1 >/dev/null 2>&1 || true
    rm -rf "$b"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"net.ipv4.ip_forward: refused: the net namespace /proc/self/ns/net is the host's"* ]]
    [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$fwd" ]
}

@test "an engine's config without root is refused, naming why" {
    local b
    b=$(mktemp -d /tmp/revrun-engine-bundle.XXXXXX)
    chmod 0755 "$b"
    mkdir -p "$b/rootfs"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$b" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[2] + "/rootfs"
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
EOF
    chmod -R a+rX "$b"
    run setpriv --reuid "$REVRUN_TEST_UID" --regid "$REVRUN_TEST_GID" --clear-groups \
        "$ENG_DIR/revrun" --root "$b/state" create --bundle "$b" rootless1
    rm -rf "$b"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"needs revrun running as root"* ]]
}

# ---- hooks, without an engine: revrun create/start/delete on an engine's bundle ----

# A bundle from containerd's config with the test image as root and the
# hooks given as JSON ($1); the state root is $B/state.
hook_bundle() {
    B=$(mktemp -d /tmp/revrun-engine-hooks.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sh", "-c", "exit 0"]
c["hooks"] = json.loads(sys.argv[4])
c["annotations"] = {"org.example/k": "v"}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    cat >"$B/hook.sh" <<'SH'
#!/bin/sh
# $1: where to put the state; $2: how to end
cat >"$1"
case $2 in
fail) echo "hook says no" >&2; exit 3 ;;
hang) sleep 30 ;;
esac
exit 0
SH
    chmod 0755 "$B/hook.sh"
}

# create, with the container's stdio (create's) in a file: a created
# container holds it until it runs, as runc's does.
hook_create() {
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/create.out" 2>&1
    local rc=$?
    cat "$B/create.out"
    return $rc
}

hook_teardown() {
    "$RT" --root "$B/state" delete --force h1 >/dev/null 2>&1 || true
    rm -rf "$B"
}

@test "hooks: run on the host side with the state on stdin, at their moments" {
    hook_bundle '{"prestart": [{"path": "HOOK", "args": ["hook", "B/prestart.json"]}],
                  "createRuntime": [{"path": "HOOK", "args": ["hook", "B/createRuntime.json"]}],
                  "poststart": [{"path": "HOOK", "args": ["hook", "B/poststart.json"]}],
                  "poststop": [{"path": "HOOK", "args": ["hook", "B/poststop.json"]}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    run hook_create
    echo "$output"
    [ "$status" = 0 ]
    [ -s "$B/prestart.json" ] && [ -s "$B/createRuntime.json" ]
    [ ! -e "$B/poststart.json" ]
    local pid
    pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$B/prestart.json")
    # the state names the container's process, its id, bundle and annotations
    python3 - "$B/createRuntime.json" "$pid" "$B" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["id"] == "h1" and s["status"] == "created", s
assert s["pid"] == int(sys.argv[2]) and s["pid"] > 0, s
assert s["bundle"] == sys.argv[3], s
assert s["annotations"] == {"org.example/k": "v"}, s
PY
    kill -0 "$pid"
    "$RT" --root "$B/state" start h1
    [ -s "$B/poststart.json" ]
    grep -q '"status":"running"' "$B/poststart.json"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    "$RT" --root "$B/state" delete h1
    grep -q '"status":"stopped"' "$B/poststop.json"
    [ ! -e "$B/state/h1" ]
    hook_teardown
}

@test "hooks: a failing createRuntime hook fails create, with its output; nothing is left" {
    hook_bundle '{"createRuntime": [{"path": "HOOK", "args": ["hook", "B/cr.json", "fail"]}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    run hook_create
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"hooks.createRuntime[0]"*"exited 3"*"hook says no"* ]]
    [ ! -e "$B/state/h1" ]
    local pid
    pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$B/cr.json")
    assert_dead "$pid"
    hook_teardown
}

@test "hooks: a hook past its timeout is killed and fails create" {
    hook_bundle '{"prestart": [{"path": "HOOK", "args": ["hook", "B/p.json", "hang"], "timeout": 1}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    run hook_create
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"hooks.prestart[0]"*"killed after its timeout of 1s"* ]]
    [ ! -e "$B/state/h1" ]
    hook_teardown
}

@test "hooks: a failing poststop hook is a warning; the delete goes on" {
    hook_bundle '{"poststop": [{"path": "HOOK", "args": ["hook", "B/ps.json", "fail"]}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    hook_create
    run "$RT" --root "$B/state" delete --force h1
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"warning"*"hooks.poststop[0]"*"exited 3"* ]]
    [ ! -e "$B/state/h1" ]
    hook_teardown
}

# ---- io.revrun.* annotations: revrun's own settings through an engine ----

# A checkout of three files; its bytes as sha256 lines, to compare after.
make_checkout() {
    CO=$(mktemp -d /tmp/revrun-engine-co.XXXXXX)
    chmod 0755 "$CO"
    echo original >"$CO/a.txt"
    mkdir "$CO/sub"
    echo keep >"$CO/sub/b.txt"
    echo same >"$CO/c.txt"
    # a checkout is never root's or a system id's (profile/checkout.c checkout_owner_ok)
    chown -R 4242:4242 "$CO"
    checkout_sums >"$CO.sums"
}

checkout_sums() { (cd "$CO" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s | awk '{print $1, $6, $7}' && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# The agent's edits: one modified, one added, one deleted, one untouched.
EDITS='echo changed >/work/a.txt && echo new >/work/new.txt && rm /work/sub/b.txt && cat /work/a.txt /work/c.txt && ls /work'

# The export: the three changes, nothing else, and the host checkout as it was.
judge_checkout_export() {
    echo "$output"
    [ "$status" = 0 ]
    [ "$(echo "$output" | head -2)" = "changed
same" ]
    # the host's checkout: not a byte, name or mode changed
    diff <(checkout_sums) "$CO.sums"
    [ ! -e "$CO/new.txt" ]
    # the vetted change set, exported at delete
    [ -f "$EXP/manifest.json" ]
    python3 - "$EXP/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted((c["path"], c["kind"]) for c in m["changes"])
assert got == [("a.txt", "modify"), ("new.txt", "add"), ("sub/b.txt", "delete")], got
PY
    # the new contents (a.txt, new.txt) and the base's of a.txt and sub/b.txt
    [ "$(find "$EXP/blobs" -type f | wc -l)" = 4 ]
}

@test "ctr: io.revrun.checkout overlays the bind: writes land in the upper, the host checkout is untouched, delete exports the change set" {
    need ctr
    make_checkout
    local name=ctr-co-$$
    EXP=/var/lib/revrun/exports/$name
    NAMES+=("ctr:co1")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation "io.revrun.export=$name" \
        "$IMG_CTR" co1 sh -c "$EDITS"
    judge_checkout_export
    # the store (the upper's tmpfs) went with the delete
    nothing_left co1 "/run/containerd/runc/$NS"
}

@test "ctr: io.revrun.overlay=fuse: fuse-overlayfs serves the checkout past create; the host checkout is untouched, delete exports the change set" {
    need ctr
    make_checkout
    local name=ctr-fuse-$$
    EXP=/var/lib/revrun/exports/$name
    NAMES+=("ctr:cof")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation io.revrun.overlay=fuse \
        --annotation "io.revrun.export=$name" "$IMG_CTR" cof sh -c "$EDITS; grep ' /work ' /proc/self/mountinfo | grep -c ' - fuse'"
    judge_checkout_export
    [ "$(echo "$output" | tail -1)" = 1 ] # the view is fuse-overlayfs'
    nothing_left cof "/run/containerd/runc/$NS"
    ! pgrep -f "fuse-overlayfs.*$CO" # the daemon ended with the container
}

@test "podman: io.revrun.checkout overlays the bind: the host checkout is untouched, delete exports the change set" {
    need podman
    make_checkout
    local name=podman-co-$$
    EXP=/var/lib/revrun/exports/$name
    run_on podman revrun pco1 --network none -v "$CO:/work" --annotation io.revrun.checkout=/work \
        --annotation "io.revrun.export=$name" -- sh -c "$EDITS"
    judge_checkout_export
    ! grep -F "$CO" /proc/self/mountinfo || false
}

@test "ctr: io.revrun.checkout without an export: the upper is seen by revrun diff once stopped, and the size cap holds" {
    need ctr
    make_checkout
    NAMES+=("ctr:co2")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" -d \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation io.revrun.upperSize=1M \
        "$IMG_CTR" co2 sh -c 'echo changed >/work/a.txt; dd if=/dev/zero of=/work/big bs=64k count=64'
    [ "$status" = 0 ]
    for _ in $(seq 100); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "co2" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    # the shim's mount namespace holds the store: diff from there
    local shim
    shim=$(pgrep -f "containerd-shim-runc-v2 -namespace $NS -id co2" | head -1)
    [ -n "$shim" ]
    run nsenter -t "$shim" -m "$RT" --root "/run/containerd/runc/$NS" diff --json co2
    echo "$output"
    # a.txt changed; 4 MiB asked into a 1 MiB upper: big is cut short (ENOSPC)
    python3 -c '
import json, sys
doc = json.loads(sys.argv[1])
ch = {c["path"]: c for c in doc["changes"]}
assert ch["a.txt"]["kind"] == "modify", ch
assert ch["big"]["size"] < (1 << 20), ch["big"]
' "$output"
    diff <(checkout_sums) "$CO.sums"
    ctr -n "$NS" task delete co2
    ctr -n "$NS" container rm co2
    nothing_left co2 "/run/containerd/runc/$NS"
}

# review2 F1: the checkout's owner is idmapped to the container's user, so a
# root-owned source (a read-only bind of /etc, /, a volume root) would hand
# the container root's 0600 files. Refused at create; the same tree owned by
# a user id is taken, and root's file inside it stays unreadable.
@test "ctr: io.revrun.checkout of a root-owned bind is refused; root's 0600 file in a user's checkout stays unreadable" {
    need ctr
    CO=$(mktemp -d /tmp/revrun-engine-co.XXXXXX)
    chmod 0755 "$CO"
    echo TOPSECRET >"$CO/key"
    chmod 0600 "$CO/key"
    NAMES+=("ctr:corr")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/h,options=rbind:ro" \
        --annotation io.revrun.checkout=/h "$IMG_CTR" corr sh -c 'cat /h/key'
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" != *TOPSECRET* ]]
    [[ "$output" == *"owned by uid 0 gid 0"* ]]
    # the directory a user's, the file still root's: unmapped, unreadable
    chown 4242:4242 "$CO"
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/h,options=rbind:ro" \
        --annotation io.revrun.checkout=/h "$IMG_CTR" corr sh -c 'ls -ln /h/key; cat /h/key; echo rc=$?'
    echo "$output"
    [[ "$output" != *TOPSECRET* ]]
    [[ "$output" == *"rc=1"* ]]
    [[ "$output" == *" 65534 "* ]]
}

# review2 F7: an export name is claimed at create, so a second container
# naming it is refused there, naming the holder; the holder's change set is
# what lands under the name, with an origin file saying whose.
@test "ctr: io.revrun.export names are one container's: a second create with the name is refused, naming the first" {
    need ctr
    make_checkout
    local name=ctr-claim-$$
    EXP=/var/lib/revrun/exports/$name
    NAMES+=("ctr:cl1" "ctr:cl2")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" -d \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation "io.revrun.export=$name" \
        "$IMG_CTR" cl1 sh -c "$EDITS; sleep 1000"
    [ "$status" = 0 ]
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation "io.revrun.export=$name" \
        "$IMG_CTR" cl2 sh -c 'echo attacker >/work/a.txt'
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"is held by container cl1"* ]]
    ctr -n "$NS" task kill -s SIGKILL cl1
    for _ in $(seq 100); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "cl1" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    ctr -n "$NS" task delete cl1
    ctr -n "$NS" container rm cl1
    [ -f "$EXP/manifest.json" ]
    grep -qx "container cl1" "$EXP/origin"
    [ ! -e "$EXP/.claim" ]
    # the claim it swapped out went too
    [ ! -e "$(dirname "$EXP")/.export-cl1" ]
    ! grep -rq attacker "$EXP" || false
    grep -rqx changed "$EXP/blobs"
}

# review2 F8: diff, export and delete re-open the checkout by its host
# path; one swapped for another tree since create is refused, not judged.
@test "ctr: io.revrun.checkout whose host path leads to another tree after create: diff refuses it" {
    need ctr
    make_checkout
    NAMES+=("ctr:cosw")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" -d \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work "$IMG_CTR" cosw sh -c 'echo changed >/work/a.txt'
    [ "$status" = 0 ]
    for _ in $(seq 100); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "cosw" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    local shim
    shim=$(pgrep -f "containerd-shim-runc-v2 -namespace $NS -id cosw" | head -1)
    [ -n "$shim" ]
    run nsenter -t "$shim" -m "$RT" --root "/run/containerd/runc/$NS" diff --json cosw
    [ "$status" = 0 ]
    # the same path, another tree
    mv "$CO" "$CO.moved"
    mkdir "$CO"
    echo other >"$CO/a.txt"
    chown -R 4242:4242 "$CO"
    run nsenter -t "$shim" -m "$RT" --root "/run/containerd/runc/$NS" diff --json cosw
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"another tree than the one create overlaid"* ]]
    rm -rf "$CO"
    mv "$CO.moved" "$CO"
    ctr -n "$NS" task delete cosw
    ctr -n "$NS" container rm cosw
    nothing_left cosw "/run/containerd/runc/$NS"
}

@test "ctr: io.revrun.policy naming a policy the host does not define is refused" {
    need ctr
    NAMES+=("ctr:pol1")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --annotation io.revrun.policy=wide \
        "$IMG_CTR" pol1 true
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *'io.revrun.policy \"wide\": not a policy of this host'* ||
       "$output" == *'io.revrun.policy "wide": not a policy of this host'* ]]
}

@test "ctr: an unknown io.revrun annotation is refused; an unrelated one is carried" {
    need ctr
    NAMES+=("ctr:ann1" "ctr:ann2")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --annotation io.revrun.chekout=/work \
        "$IMG_CTR" ann1 true
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"io.revrun.chekout"*"unknown revrun annotation"* ]]
    # outside io.revrun.*: never refused (the runtime spec), and kept for `state`
    ctr -n "$NS" run --runc-binary "$RT" -d --annotation org.example.review/ticket=RR-1 \
        --annotation io.revrunner=x "$IMG_CTR" ann2 sleep 600
    run "$RT" --root "/run/containerd/runc/$NS" state ann2
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *'"org.example.review/ticket": "RR-1"'* ]]
    ctr -n "$NS" task kill -s SIGKILL ann2
}

# ---- linux.resources.devices, without an engine ----

@test "devices: a rule denying /dev/full by number makes opening it EPERM (v1 devices controller); the other default devices stay" {
    B=$(mktemp -d /tmp/revrun-engine-dev.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sh", "-c", "echo x >/dev/full; echo y >/dev/null && echo null-ok; head -c 1 /dev/zero | wc -c"]
c["linux"]["resources"]["devices"].append(
    {"allow": False, "type": "c", "major": 1, "minor": 7, "access": "rwm"})
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1
    local pid
    pid=$("$RT" --root "$B/state" state h1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    "$RT" --root "$B/state" start h1
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    cat "$B/out"
    if awk '$9 == "cgroup" && $NF ~ /(^|,)devices(,|$)/ {f=1} END {exit !f}' /proc/self/mountinfo; then
        # the cgroup's answer (EPERM), not nodev's (EACCES) or the device's (ENOSPC)
        grep -q "can't create /dev/full: Operation not permitted" "$B/out"
    else
        grep -q "not applied by a cgroup" "$B/out"
    fi
    grep -q null-ok "$B/out"
    grep -qx 1 "$B/out"
    "$RT" --root "$B/state" delete h1
    # the devices cgroup went with the delete
    ! find /sys/fs/cgroup -path "*revrun*" -name h1 | grep -q . || false
    rm -rf "$B"
}

@test "resources: disableOOMKiller leaves a process at its memory limit waiting, not killed; cpu.shares reaches the cpu controller (cgroup v1)" {
    awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ {f=1} END {exit !f}' /proc/self/mountinfo ||
        skip "no v1 memory controller here (cgroup v2: no OOM-killer switch, said in one line)"
    B=$(mktemp -d /tmp/revrun-engine-oom.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
# 64 MiB held in a 16 MiB container (no swap beyond it)
c["process"]["args"] = ["sh", "-c", "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo survived"]
c["linux"]["cgroupsPath"] = "/rrengines-oom/" + sys.argv[2].split("/")[-1]
c["linux"]["resources"]["memory"] = {"limit": 16777216, "swap": 16777216, "disableOOMKiller": True}
c["linux"]["resources"]["cpu"] = {"shares": 512}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1
    local pid mem cpu
    pid=$("$RT" --root "$B/state" state h1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    "$RT" --root "$B/state" start h1
    mem=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
    cpu=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ {print $5; exit}' /proc/self/mountinfo)
    for _ in $(seq 100); do
        grep -q "under_oom 1" "$mem/rrengines-oom/$(basename "$B")/memory.oom_control" && break
        sleep 0.1
    done
    cat "$mem/rrengines-oom/$(basename "$B")/memory.oom_control"
    # at its limit, waiting: alive, never OOM-killed
    grep -q "under_oom 1" "$mem/rrengines-oom/$(basename "$B")/memory.oom_control"
    grep -q "oom_kill 0" "$mem/rrengines-oom/$(basename "$B")/memory.oom_control"
    kill -0 "$pid"
    [ -z "$cpu" ] || [ "$(cat "$cpu/rrengines-oom/$(basename "$B")/cpu.shares")" = 512 ]
    "$RT" --root "$B/state" delete --force h1
    # dead: gone, or a zombie its reaper (not revrun under an engine) has not
    # collected yet; the cgroup's removal below says no live task was left
    local st
    st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo gone)
    [ "$st" = gone ] || [ "$st" = Z ]
    [ ! -e "$mem/rrengines-oom/$(basename "$B")" ]
    rmdir "$mem/rrengines-oom" "$cpu/rrengines-oom" 2>/dev/null || true
    rm -rf "$B"
}

@test "resources: a relative cgroupsPath under /revrun-engine leaves no empty parent after delete" {
    B=$(mktemp -d /tmp/revrun-engine-rel.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["true"]
c["linux"]["cgroupsPath"] = "rrengines-rel/" + sys.argv[2].split("/")[-1] + "/h1"
c["linux"]["resources"]["pids"] = {"limit": 64}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1
    local mnt
    mnt=$("$RT" --root "$B/state" state h1 >/dev/null && awk '($9 == "cgroup" && $NF ~ /(^|,)pids(,|$)/) || $9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    [ -d "$mnt/revrun-engine/rrengines-rel/$(basename "$B")/h1" ]
    "$RT" --root "$B/state" delete --force h1
    [ ! -e "$mnt/revrun-engine/rrengines-rel/$(basename "$B")" ]
    # /revrun-engine itself goes when nothing else is in it
    if [ -z "$(find "$mnt/revrun-engine" -mindepth 1 -type d 2>/dev/null)" ]; then
        [ ! -e "$mnt/revrun-engine" ]
    fi
    rm -rf "$B"
}

@test "sweep: an engine's container whose engine never deleted it: its checkout store is unmounted, its state removed" {
    make_checkout
    B=$(mktemp -d /tmp/revrun-engine-sweep.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$CO" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sleep", "600"]
c["mounts"].append({"destination": "/work", "type": "bind", "source": sys.argv[4],
                    "options": ["rbind", "rw"]})
c["annotations"] = {"io.revrun.checkout": "/work"}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1 || { cat "$B/out"; false; }
    grep -qF "$B/state/h1/store" /proc/self/mountinfo
    local pid
    pid=$("$RT" --root "$B/state" state h1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    kill -9 "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    run "$RT" --root "$B/state" sweep
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"swept h1"* ]]
    ! grep -qF "$B/state/h1" /proc/self/mountinfo || false
    [ ! -e "$B/state/h1" ]
    diff <(checkout_sums) "$CO.sums"
    rm -rf "$B"
}
