# Shared by engines.bats and engines_annotations.bats: the offline
# busybox-static image (engines/mkimage.sh) imported into containerd,
# podman and docker once per suite, the revrun under test where docker's
# revrun-test runtime entry names it, and running one step under runc and
# under revrun to compare them. An engine that is not installed or not
# running is skipped outside CI; under CI (CI=true) it fails.

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

# No mount of the container's is left in the host's table, and revrun has
# no state for it.
nothing_left() {
    local id=$1 root=$2
    ! grep -F "$id" /proc/1/mountinfo || false
    [ ! -e "$root/$id" ]
}

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
