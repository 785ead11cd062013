# Helpers of the backend suites (integration/fuse.bats, integration/hosts.bats):
# bundles with an explicit revrun.overlay, the fuse-overlayfs daemon of a
# container found by pid, a /dev/fuse the rootless uid may open, and a
# checkout where kernel overlayfs refuses to mount.
#
# Load after helpers: `load helpers; load fuse_helpers`. Loading it gives
# the suite its setup and teardown (below).

# Run as root or as the test identity.
# rr_as MODE ARGS...: MODE is root or user.
rr_as() {
    local mode=$1
    shift
    if [ "$mode" = user ]; then
        as_user "$RR_BIN/revrun" "$@"
    else
        "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
    fi
}

# Where MODE keeps its containers' state.
rr_state_root() {
    if [ "$1" = user ]; then echo "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"; else echo "$RR_ROOT"; fi
}

# A checkout owned by whoever runs MODE's containers.
make_checkout() {
    local mode=$1 dir=$2
    mkdir -p "$dir/sub/deep" "$dir/gone"
    echo hello >"$dir/a.txt"
    echo "delete me" >"$dir/b.txt"
    echo nested >"$dir/sub/c.txt"
    echo deeper >"$dir/sub/deep/d.txt"
    echo x >"$dir/gone/x"
    chmod -R a+rX "$dir"
    if [ "$mode" = user ]; then chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$dir"; fi
}

# make_bundle MODE BACKEND LOWER DIR CMD...: a default spec for MODE with
# revrun.overlay BACKEND and the given command.
make_bundle() {
    local mode=$1 backend=$2 lower=$3 dir=$4
    shift 4
    mkdir -p "$dir/rootfs"
    if [ "$mode" = user ]; then
        as_user "$RR_BIN/revrun" spec --rootless --lower "$lower" >"$dir/config.json"
    else
        "$RR_BIN/revrun" spec --lower "$lower" >"$dir/config.json"
    fi
    python3 - "$dir/config.json" "$backend" "$@" <<'EOF'
import json, sys
p, backend, args = sys.argv[1], sys.argv[2], sys.argv[3:]
c = json.load(open(p))
c["revrun"]["overlay"] = backend
c["process"]["args"] = args
json.dump(c, open(p, "w"), indent=2)
EOF
    if [ "$mode" = user ]; then chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$dir"; fi
}

# set_config DIR PYTHON-STATEMENT: edit the bundle's config (c is the dict).
set_config() {
    python3 - "$1/config.json" "$2" <<'EOF'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
exec(sys.argv[2])
json.dump(c, open(p, "w"), indent=2)
EOF
}

# state_of MODE ID FIELD-EXPRESSION (python on d, the state JSON)
state_of() {
    rr_as "$1" state "$2" | python3 -c "import json,sys; d=json.load(sys.stdin); print($3)"
}

# wait_stopped MODE ID
wait_stopped() {
    for _ in $(seq 100); do
        [ "$(state_of "$1" "$2" 'd["status"]')" = stopped ] && return 0
        sleep 0.1
    done
    return 1
}

# The monitor of container ID (from its state file).
monitor_of() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['monitorPid'])" \
        "$(rr_state_root "$1")/$2/state.json"
}

# The fuse-overlayfs daemon of container ID: the monitor's child.
daemon_of() {
    pgrep -P "$(monitor_of "$1" "$2")" -x fuse-overlayfs
}

# True while pid is a live process (zombies count as gone).
alive() {
    local s
    s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [[ "$s" != Z* ]]
}

# wait_gone PID: at most 5 s.
wait_gone() {
    for _ in $(seq 50); do
        alive "$1" || return 0
        sleep 0.1
    done
    return 1
}

# A /dev/fuse the test identity may open, in this suite's private mount
# namespace only (integration/run.sh made it): a 0666 node on a tmpfs bound
# over the host's (here 0600, where most distributions ship 0666).
fuse_dev_open_up() {
    FUSE_DEV_DIR=$(mktemp -d /tmp/revrun-fusedev.XXXXXX)
    mount -t tmpfs -o mode=0755,size=4k revrun-fusedev "$FUSE_DEV_DIR"
    mknod -m 0666 "$FUSE_DEV_DIR/fuse" c 10 229
    mount --bind "$FUSE_DEV_DIR/fuse" /dev/fuse
    export FUSE_DEV_DIR
}

fuse_dev_close() {
    [ -n "${FUSE_DEV_DIR:-}" ] || return 0
    umount /dev/fuse 2>/dev/null || true
    umount "$FUSE_DEV_DIR" 2>/dev/null || true
    rmdir "$FUSE_DEV_DIR" 2>/dev/null || true
}

# as_user with the host's own /dev/fuse (0600 here), in a throwaway mount
# namespace where the suite's 0666 node is unmounted again.
as_user_host_fuse() {
    RR_TMP=$RR_TMP REVRUN_TEST_UID=$REVRUN_TEST_UID REVRUN_TEST_GID=$REVRUN_TEST_GID \
        unshare --mount --propagation private -- bash -c '
        umount /dev/fuse 2>/dev/null
        source "$0/helpers.bash"
        as_user "$@"' "$BATS_TEST_DIRNAME" "$@"
}

# A checkout where kernel overlayfs refuses to mount: it lives on an overlay
# whose lower is itself an overlay (FILESYSTEM_MAX_STACK_DEPTH is 2; and as
# root, overlayfs cannot be idmapped at all). fuse-overlayfs has no such
# limit. Mounted below $RR_TMP: rr_teardown_tmp unmounts it.
stacked_checkout() {
    local mode=$1 d="$RR_TMP/stack"
    mkdir -p "$d"/{l1,u1,w1,m1,u2,w2,m2}
    make_checkout "$mode" "$d/l1"
    if [ "$mode" = user ]; then chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$d"; fi
    mount -t overlay revrun-test-o1 -o "lowerdir=$d/l1,upperdir=$d/u1,workdir=$d/w1" "$d/m1"
    mount -t overlay revrun-test-o2 -o "lowerdir=$d/m1,upperdir=$d/u2,workdir=$d/w2" "$d/m2"
    echo "$d/m2"
}

# Every container of both modes, then the scratch directory.
backend_teardown() {
    local root d
    for mode in root user; do
        root=$(rr_state_root "$mode")
        [ -d "$root" ] || continue
        for d in "$root"/*/; do
            [ -d "$d" ] && rr_as "$mode" destroy --force "$(basename "$d")"
        done
    done
    rr_teardown_tmp
}

# The whole tree of a directory as text: type, mode, size, link target,
# xattrs (the upper's markers), content hash.
tree_listing() {
    (
        cd "$1" || exit 1
        find . -mindepth 1 -printf '%y %m %s %p -> %l\n' | LC_ALL=C sort
        getfattr -R -h -d -m - --absolute-names . 2>/dev/null
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
    )
}

# ---- the suites' fixtures ----

setup_file() {
    fuse_dev_open_up
}

teardown_file() {
    fuse_dev_close
}

setup() {
    rr_setup_tmp
    # Unique on the host: a root container's cgroup path is /revrun/ID.
    ID="$(basename "$BATS_TEST_FILENAME" .bats)$BATS_TEST_NUMBER-$$"
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    backend_teardown
}
