#!/usr/bin/env bats
# revrun inside real containers (Debian's podman), the shapes CI jobs use:
# the engine's default, the minimal working flag set, --privileged, and a
# user-namespaced container. In every shape `revrun check` must say what
# `revrun review` then does (both succeed, or both fail), the flags check
# prints must be the ones that then work, and a kill of the outer container
# in the middle of a review must leave nothing behind on the host.
#
# The image is built offline from the host's own files: a root directory of
# usr-merged symlinks, the host's /usr bound read-only, revrun and its probes
# bound at /opt/revrun (`podman run --rootfs DIR`: no registry).

load helpers

# `! cmd` does not fail a bats test (set -e ignores it): these do.
refute_grep() {
    if grep "$@"; then
        echo "unexpected match: grep $*" >&2
        return 1
    fi
}
refute() {
    if "$@"; then
        echo "unexpectedly succeeded: $*" >&2
        return 1
    fi
}

# Where podman is absent: skipped, except in CI (.ci/run installs it).
need_podman() {
    if ! command -v podman >/dev/null 2>&1; then
        if [ "${CI:-}" = true ]; then
            echo "podman is missing in CI: .ci/run installs it" >&2
            return 1
        fi
        skip "podman is not installed (apt-get install podman): the in-container shapes are not tested"
    fi
}

setup() {
    need_podman
    rr_setup_tmp
    NAME=revrun-ic-$$-$RANDOM
    TAG=revrun-ic-tag-$$-$RANDOM
    make_rootfs "$RR_TMP/rootfs"
    # the scripts the container runs, bound read-only with revrun
    mkdir -p "$RR_TMP/opt"
    cp "$RR_BIN/revrun" "$RR_TMP/opt/revrun"
    write_scripts "$RR_TMP/opt"
    chmod -R a+rX "$RR_TMP/opt"
    fresh_out
    base_flags
}

teardown() {
    if [ -n "${NAME:-}" ] && command -v podman >/dev/null 2>&1; then
        podman rm -f "$NAME" >/dev/null 2>&1 || true
    fi
    [ -n "${TAG:-}" ] && pkill -9 -f "$TAG" 2>/dev/null || true
    [ -d "${RR_TMP:-}/xdg" ] && kill_rootless_pause
    if [ -n "${DOCKER_IMAGE:-}" ]; then
        docker rmi "$DOCKER_IMAGE" >/dev/null 2>&1 || true
    fi
    rr_teardown_tmp
}

# A root of the host's files: /usr from the host (bound at run time), the
# usr-merged links, a passwd and group, empty mountpoints.
make_rootfs() {
    local r=$1 d
    mkdir -p "$r"
    for d in usr etc proc sys dev tmp run root var/tmp opt/revrun out; do
        mkdir -p "$r/$d"
    done
    for d in bin sbin lib lib64; do
        [ -e "/$d" ] && ln -s "usr/$d" "$r/$d"
    done
    cp /etc/passwd /etc/group "$r/etc/"
    # the engine binds these: made here, where a user-namespaced root could not
    touch "$r/etc/resolv.conf" "$r/etc/hosts" "$r/etc/hostname"
    chmod -R a+rX "$r"
}

# ic.sh: check, then review, inside; the verdicts on stdout for the host.
write_scripts() {
    cat >"$1/ic.sh" <<'EOF'
#!/bin/sh
# ic.sh [BUNDLE]: revrun check and revrun review of a one-file checkout
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mkdir -p /tmp/co && echo hello >/tmp/co/a.txt
if [ -n "$1" ]; then b="--bundle $1"; else b=; fi
/opt/revrun/revrun check $b >/out/check.txt 2>&1
echo "check=$?"
/opt/revrun/revrun review $b --lower /tmp/co --out /out/review -- \
    sh -c 'echo changed >a.txt; echo agent-was-here' >/out/review.txt 2>&1
echo "review=$?"
EOF
    # a bundle that takes the limits as best effort (a user-namespaced
    # container cannot write the host's cgroups)
    cat >"$1/mkbundle.sh" <<'EOF'
#!/bin/sh
mkdir -p /tmp/co /tmp/b/rootfs
/opt/revrun/revrun spec --lower /tmp/co | python3 -c '
import json, sys
c = json.load(sys.stdin)
c["revrun"]["bestEffort"] = ["memory", "pids", "cpu", "landlock"]
json.dump(c, open("/tmp/b/config.json", "w"))'
exec /opt/revrun/ic.sh /tmp/b
EOF
    # a review whose agent sleeps until the outer container is killed
    cat >"$1/long.sh" <<'EOF'
#!/bin/sh
mkdir -p /tmp/co && echo hello >/tmp/co/a.txt
b=
if [ -n "$2" ]; then
    # limits best effort (a cgroup v2 host, see the suite)
    mkdir -p /tmp/b/rootfs
    /opt/revrun/revrun spec --lower /tmp/co | python3 -c '
import json, sys
c = json.load(sys.stdin)
c["revrun"]["bestEffort"] = ["memory", "pids", "cpu", "landlock"]
json.dump(c, open("/tmp/b/config.json", "w"))'
    b="--bundle /tmp/b"
fi
exec /opt/revrun/revrun review $b --id "$1" --lower /tmp/co --out /out/long -- \
    sh -c "echo x >a.txt; exec sleep 300 # $1"
EOF
    chmod 0755 "$1"/*.sh
}

# The flags every shape shares, found once: a runtime that works on this
# host (crun, or runc on a cgroup v1 host), limits within what this process
# may set, the root read-only with tmpfs where revrun writes.
base_flags() {
    local f cache=$BATS_FILE_TMPDIR/base_flags
    if [ -s "$cache" ]; then
        BASE=$(cat "$cache")
        return 0
    fi
    for f in "" "--runtime runc" \
        "--ulimit nofile=$(ulimit -Hn):$(ulimit -Hn) --ulimit nproc=4096:4096" \
        "--runtime runc --ulimit nofile=$(ulimit -Hn):$(ulimit -Hn) --ulimit nproc=4096:4096"; do
        # shellcheck disable=SC2086
        if podman run --rm $f --network none --read-only -v /usr:/usr:ro --rootfs "$RR_TMP/rootfs" \
            /usr/bin/true >/dev/null 2>&1; then
            BASE="$f"
            echo "$BASE" >"$cache"
            return 0
        fi
    done
    podman run --rm --network none --read-only -v /usr:/usr:ro --rootfs "$RR_TMP/rootfs" \
        /usr/bin/true >&2
    echo "no podman run works on this host" >&2
    return 1
}

# in_shape FLAGS... -- CMD ARGS: run CMD in a container of that shape.
in_shape() {
    local flags=()
    while [ "$1" != -- ]; do
        flags+=("$1")
        shift
    done
    shift
    # shellcheck disable=SC2086
    podman run --rm --name "$NAME" $BASE --network none --read-only --tmpfs /tmp --tmpfs /run \
        -v /usr:/usr:ro -v "$RR_TMP/opt:/opt/revrun:ro" -v "$RR_TMP/out:/out" \
        "${flags[@]}" --rootfs "$RR_TMP/rootfs" "$@"
}

# verdicts: "check=N review=M" from ic.sh's output
verdicts() {
    check_rc=$(sed -n 's/^check=//p' <<<"$output")
    review_rc=$(sed -n 's/^review=//p' <<<"$output")
    echo "shape [$*]: check=$check_rc review=$review_rc" >&3
    [ -n "$check_rc" ] && [ -n "$review_rc" ] || { echo "$output"; false; }
}

# check and review agree: both succeed, or check fails and review reports a
# setup failure (exit 3).
assert_agree() {
    if [ "$check_rc" = 0 ]; then
        [ "$review_rc" = 0 ] || { cat "$RR_TMP/out/check.txt" "$RR_TMP/out/review.txt"; false; }
    else
        [ "$review_rc" = 3 ] || { cat "$RR_TMP/out/check.txt" "$RR_TMP/out/review.txt"; false; }
    fi
}

# cgroup v2 here: a privileged container's processes sit in the root of its
# cgroup namespace, where controllers cannot be enabled for revrun's own
# cgroups (EBUSY): the limits are then taken as best effort.
cgroup_v2_host() {
    [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]
}

# The podman flags check's summary prints.
podman_remedy() {
    sed -n '/^to lift every blocker above at once/,$s/^ *podman run //p' "$RR_TMP/out/check.txt"
}

# world-writable: root of a user-namespaced container is not host root
fresh_out() {
    rm -rf "$RR_TMP/out"
    mkdir -p "$RR_TMP/out"
    chmod 0777 "$RR_TMP/out"
}

# The minimal working shape, flag by flag (a writable cgroupfs: the host's,
# bound with the host's cgroup namespace so that its paths are revrun's).
MIN_FLAGS=("--cap-add SYS_ADMIN" "--security-opt unmask=ALL"
    "-v /sys/fs/cgroup:/sys/fs/cgroup:rw --cgroupns=host")
read -r -a MINIMAL <<<"${MIN_FLAGS[*]}"

@test "in a container: the engine's default shape: check fails naming every blocker, review fails the same, and the flags check prints then work" {
    run in_shape -- /opt/revrun/ic.sh
    verdicts default
    assert_agree
    [ "$check_rc" != 0 ]
    # every blocker at once, each with the layer that refused it
    grep -q "^FAIL  cgroup limits" "$RR_TMP/out/check.txt"
    grep -q "cause: a read-only or not writable cgroup hierarchy" "$RR_TMP/out/check.txt"
    grep -q "^FAIL  mount namespace" "$RR_TMP/out/check.txt"
    grep -q "cause: the outer container's capabilities" "$RR_TMP/out/check.txt"
    grep -q "^FAIL  fresh /proc" "$RR_TMP/out/check.txt"
    grep -q "cause: a masked /proc" "$RR_TMP/out/check.txt"
    # no advice for an LSM this host does not have
    if [ ! -e /sys/kernel/security/apparmor ] && [ ! -e /sys/module/apparmor ]; then
        refute_grep -qi "apparmor" "$RR_TMP/out/check.txt"
    fi
    grep -q "create fails here" "$RR_TMP/out/check.txt"
    # nothing the agent said, nothing of revrun's in the agent's stream
    [ ! -s "$RR_TMP/out/review/agent.log" ]
    # the remedies name flags that then work: run again with exactly them
    read -r -a flags <<<"$(podman_remedy)"
    [ "${#flags[@]}" -gt 0 ]
    echo "remedy: ${flags[*]}" >&3
    fresh_out
    run in_shape "${flags[@]}" -- /opt/revrun/ic.sh
    verdicts "${flags[@]}"
    [ "$check_rc" = 0 ]
    [ "$review_rc" = 0 ]
}

@test "in a container: the minimal shape (SYS_ADMIN, unmasked /proc, writable cgroupfs) runs a review; check agrees" {
    run in_shape "${MINIMAL[@]}" -- /opt/revrun/ic.sh
    verdicts "${MINIMAL[@]}"
    assert_agree
    [ "$check_rc" = 0 ]
    grep -q "^ok    scratch container" "$RR_TMP/out/check.txt"
    [ "$(python3 -c "import json; print(json.load(open('$RR_TMP/out/review/result.json'))['verdict'])")" = accept ]
    # the agent's stream holds the agent's words only
    grep -q agent-was-here "$RR_TMP/out/review/agent.log"
    refute_grep -q "revrun" "$RR_TMP/out/review/agent.log"
    # each flag is needed: without one, both check and review fail
    local i j drop
    for i in 0 1 2; do
        drop=()
        for j in 0 1 2; do
            [ "$j" = "$i" ] || read -r -a drop -d '' <<<"${drop[*]} ${MIN_FLAGS[$j]}" || true
        done
        fresh_out
        run in_shape "${drop[@]}" -- /opt/revrun/ic.sh
        verdicts "${drop[@]}"
        assert_agree
        [ "$check_rc" != 0 ]
    done
}

@test "in a container: --privileged runs a review; check agrees" {
    run in_shape --privileged -- /opt/revrun/ic.sh
    verdicts --privileged
    assert_agree
    if cgroup_v2_host; then
        # the default spec may meet EBUSY (see cgroup_v2_host); best effort runs
        [ "$check_rc" = 0 ] || grep -q "cause: a read-only or not writable cgroup" \
            "$RR_TMP/out/check.txt"
        fresh_out
        run in_shape --privileged -- /opt/revrun/mkbundle.sh
        verdicts --privileged bestEffort
        assert_agree
    fi
    [ "$check_rc" = 0 ]
}

@test "in a container: user-namespaced (--uidmap): revrun takes ids that are mapped there and says so; limits best effort land in result.json, not in the agent's stream" {
    local userns=(--uidmap 0:100000:65536 --gidmap 0:100000:65536)
    # the default spec: the host's cgroups are not this namespace's to write
    run in_shape "${userns[@]}" "${MINIMAL[@]}" -- /opt/revrun/ic.sh
    verdicts userns default spec
    assert_agree
    [ "$check_rc" != 0 ]
    grep -q "cause: a read-only or not writable cgroup hierarchy" "$RR_TMP/out/check.txt"
    refute_grep -q "exec fifo owner" "$RR_TMP/out/review.txt"
    # the limits as best effort: both pass
    fresh_out
    run in_shape "${userns[@]}" "${MINIMAL[@]}" -- /opt/revrun/mkbundle.sh
    verdicts userns bestEffort
    assert_agree
    [ "$check_rc" = 0 ]
    grep -q "uid_map: 0-65535 (outside 100000-165535)" "$RR_TMP/out/check.txt"
    grep -q "does not map its dedicated host id range 2000000000-2000065535: the container user is 65535:65535" \
        "$RR_TMP/out/review.txt"
    python3 - "$RR_TMP/out/review/result.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exitCode"] == 0, r
assert r["limitsSkipped"] == ["memory", "pids", "cpu"], r
assert any("limits not enforced (best effort)" in w for w in r["warnings"]), r
assert any("dedicated host id" in w for w in r["warnings"]), r
EOF
    refute_grep -q "revrun" "$RR_TMP/out/review/agent.log"
    grep -q agent-was-here "$RR_TMP/out/review/agent.log"
}

@test "in a container: the outer container killed in the middle of a review leaves nothing on the host" {
    local mounts_before cid
    mounts_before=$(mount_points)
    podman run -d --name "$NAME" $BASE --network none --read-only --tmpfs /tmp --tmpfs /run \
        -v /usr:/usr:ro -v "$RR_TMP/opt:/opt/revrun:ro" -v "$RR_TMP/out:/out" \
        --privileged --rootfs "$RR_TMP/rootfs" /opt/revrun/long.sh "$TAG" \
        "$(cgroup_v2_host && echo best-effort)" >/dev/null
    cid=$(podman inspect --format '{{.Id}}' "$NAME")
    # the agent runs (seen from the host: the container's processes are ours)
    for _ in $(seq 100); do
        pgrep -f "sleep 300 # $TAG" >/dev/null && break
        sleep 0.1
    done
    pgrep -f "sleep 300 # $TAG" >/dev/null
    # its cgroup exists, below the outer container's (so the check after the
    # kill can see one left behind; on cgroup v2 the limits are best effort)
    cgroup_v2_host || [ -n "$(find /sys/fs/cgroup -path "*$cid*" -name "$TAG" 2>/dev/null)" ]
    podman kill --signal KILL "$NAME" >/dev/null
    podman wait "$NAME" >/dev/null 2>&1 || true
    podman rm -f "$NAME" >/dev/null
    # no process, no mount, no cgroup of revrun's left on the host
    for _ in $(seq 50); do
        pgrep -f "$TAG" >/dev/null || break
        sleep 0.1
    done
    refute pgrep -f "$TAG"
    [ "$(mount_points)" = "$mounts_before" ]
    # the review's cgroup is named by its id; the outer container's by its own
    [ -z "$(find /sys/fs/cgroup -name "$TAG" 2>/dev/null)" ]
    [ -z "$(find /sys/fs/cgroup -name "*$cid*" 2>/dev/null)" ]
    # and the results directory holds no half-written verdict
    [ ! -e "$RR_TMP/out/long/result.json" ]
}

# ---- docker (where a daemon answers: the engine suites install docker.io) ----

need_docker() {
    if ! command -v docker >/dev/null 2>&1 || ! timeout 20 docker info >/dev/null 2>&1; then
        skip "no docker daemon answers here: the docker shape is not tested"
    fi
}

@test "in a container: docker's default shape: check names every blocker with docker's flags, and with exactly those both check and review pass" {
    need_docker
    local image=revrun-ic-$$-$RANDOM:skel
    tar -C "$RR_TMP/rootfs" -c . | docker import - "$image" >/dev/null
    DOCKER_IMAGE=$image
    in_docker() {
        timeout 300 docker run --rm --network none --read-only --tmpfs /tmp --tmpfs /run \
            -v /usr:/usr:ro -v "$RR_TMP/opt:/opt/revrun:ro" -v "$RR_TMP/out:/out" "$@" \
            "$DOCKER_IMAGE" /opt/revrun/ic.sh
    }
    run in_docker
    verdicts docker default
    assert_agree
    [ "$check_rc" != 0 ]
    grep -q "cause: the outer container's seccomp filter" "$RR_TMP/out/check.txt"
    grep -q "cause: a masked /proc" "$RR_TMP/out/check.txt"
    read -r -a flags <<<"$(sed -n '/^to lift every blocker above at once/,$s/^ *docker run //p' \
        "$RR_TMP/out/check.txt")"
    [ "${#flags[@]}" -gt 0 ]
    echo "docker remedy: ${flags[*]}" >&3
    fresh_out
    run in_docker "${flags[@]}"
    verdicts docker "${flags[@]}"
    docker rmi "$image" >/dev/null 2>&1 || true
    [ "$check_rc" = 0 ]
    [ "$review_rc" = 0 ]
}

# ---- rootless podman, as the unprivileged test user ----

# Rootless podman leaves a pause process holding its user namespace: ours
# is the one whose XDG_RUNTIME_DIR is this test's.
kill_rootless_pause() {
    local p
    for p in $(pgrep -u "$REVRUN_TEST_UID" -x catatonit 2>/dev/null); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "XDG_RUNTIME_DIR=$RR_TMP/xdg"; then
            kill -9 "$p" 2>/dev/null || true
        fi
    done
}

@test "in a container: rootless podman (root inside maps to the test user): the ids picked are mapped, limits best effort, check agrees with review" {
    id -u "$REVRUN_TEST_UID" >/dev/null 2>&1 || skip "no unprivileged test user"
    grep -q "^$(id -un "$REVRUN_TEST_UID"):" /etc/subuid 2>/dev/null ||
        skip "no subordinate ids for the test user"
    mkdir -p "$RR_TMP/xdg"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/xdg"
    chmod 0700 "$RR_TMP/xdg"
    [ -L "$RR_TMP/rootfs/etc/mtab" ] || ln -s ../proc/self/mounts "$RR_TMP/rootfs/etc/mtab"
    as_rootless() {
        # shellcheck disable=SC2086
        (cd / && setpriv --reuid "$REVRUN_TEST_UID" --regid "$REVRUN_TEST_GID" --clear-groups \
            env HOME="$RR_TMP/xdg" XDG_RUNTIME_DIR="$RR_TMP/xdg" \
            podman run --rm $BASE --network none --read-only --tmpfs /tmp --tmpfs /run \
            -v /usr:/usr:ro -v "$RR_TMP/opt:/opt/revrun:ro" -v "$RR_TMP/out:/out" \
            --cap-add SYS_ADMIN --security-opt unmask=ALL --rootfs "$RR_TMP/rootfs" "$@")
    }
    run as_rootless /opt/revrun/mkbundle.sh
    kill_rootless_pause
    verdicts rootless podman bestEffort
    assert_agree
    [ "$check_rc" = 0 ]
    grep -q "user namespace     revrun runs inside one" "$RR_TMP/out/check.txt"
    grep -q "does not map its dedicated host id" "$RR_TMP/out/review.txt"
    refute_grep -q "exec fifo owner" "$RR_TMP/out/review.txt"
    refute_grep -q "revrun" "$RR_TMP/out/review/agent.log"
}
