#!/usr/bin/env bats
# The runc verbs through real engines: containerd's runc shim v2 (ctr task
# exec, ps, kill -a) and podman/conmon (exec, pause, unpause), with revrun
# as the runtime, each compared with runc on the same engine. Judged from
# what the engine reports (exit codes, pid lists, status) and from the host
# (the exec'd process's namespaces and status, processes gone after kill).
# An engine that is not installed or running is skipped outside CI; under
# CI (.ci/run installs and starts them) it fails.

load helpers

IMG_CTR=docker.io/library/rrbusybox:test
IMG_LOCAL=localhost/rrbusybox:test
NS=revrun-verbs
PODMAN_ULIMITS="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-everbs.XXXXXX)
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
}

teardown_file() {
    ctr -n "$NS" image rm "$IMG_CTR" >/dev/null 2>&1 || true
    rm -rf "$ENG_DIR"
}

setup() {
    RT=$ENG_DIR/revrun
    NAMES=()
    KILL_PIDS=()
}

teardown() {
    local n pid
    for pid in "${KILL_PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    for n in "${NAMES[@]}"; do
        case "$n" in
        ctr:*)
            ctr -n "$NS" task kill -s 9 "${n#ctr:}" >/dev/null 2>&1 || true
            ctr -n "$NS" task delete -f "${n#ctr:}" >/dev/null 2>&1 || true
            ctr -n "$NS" container rm "${n#ctr:}" >/dev/null 2>&1 || true
            ;;
        podman:*)
            podman rm -f -t 0 "${n#podman:}" >/dev/null 2>&1 || true
            ;;
        esac
    done
}

need() {
    local ok=
    case "$1" in
    ctr) ctr version >/dev/null 2>&1 && ok=1 ;;
    podman) command -v podman >/dev/null 2>&1 && podman info >/dev/null 2>&1 && ok=1 ;;
    esac
    if [ -z "$ok" ]; then
        [ "${CI:-}" = true ] && {
            echo "$1 is not available under CI" >&2
            return 1
        }
        skip "$1 is not available"
    fi
}

# ctr run -d NAME with runtime binary $1
ctr_up() {
    NAMES+=("ctr:$2")
    timeout 60 ctr -n "$NS" run -d --runc-binary "$1" "$IMG_CTR" "$2" sleep 1000 >/dev/null
}

ctr_pid() {
    ctr -n "$NS" task ls | awk -v n="$1" '$1 == n {print $2}'
}

@test "ctr task exec: the status comes back, the process is confined and inside the container, as with runc" {
    need ctr
    for rt in /usr/sbin/runc "$RT"; do
        n=x$RANDOM
        ctr_up "$rt" "$n"
        run timeout 60 ctr -n "$NS" task exec --exec-id e1 "$n" sh -c 'exit 4'
        [ "$status" -eq 4 ] || {
            echo "$rt: exec status $status: $output" >&2
            return 1
        }
    done
    run timeout 60 ctr -n "$NS" task exec --exec-id e2 "$n" sh -c \
        'grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; cat /proc/self/uid_map'
    assert_success
    assert_output_contains "NoNewPrivs:	1"
    assert_output_contains "Seccomp:	2"
    # the container's capabilities (the engine's default set within the policy), no more
    init=$(ctr_pid "$n")
    [ "$(grep CapEff <<<"$output")" = "$(grep CapEff /proc/$init/status)" ]
    # root inside is not root outside: a user namespace mapping
    ! grep -qE '^ *0 +0 ' <<<"$(tail -1 <<<"$output")" || false
    # a detached exec: in the container's namespaces, reaped by the shim
    timeout 60 ctr -n "$NS" task exec -d --exec-id e3 "$n" sleep 301
    x=$(pgrep -f '^sleep 301$' | head -1)
    [ -n "$x" ]
    KILL_PIDS+=("$x")
    for ns in pid mnt net user; do
        [ "$(readlink /proc/$x/ns/$ns)" = "$(readlink /proc/$init/ns/$ns)" ]
    done
    [ "$(awk '/^PPid:/{print $2}' /proc/$x/status)" = "$(awk '/^PPid:/{print $2}' /proc/$init/status)" ]
}

@test "ctr task ps lists the exec'd process; task kill -a ends every process, as with runc" {
    need ctr
    for rt in /usr/sbin/runc "$RT"; do
        n=p$RANDOM
        ctr_up "$rt" "$n"
        init=$(ctr_pid "$n")
        timeout 60 ctr -n "$NS" task exec -d --exec-id e1 "$n" sleep 302
        for _ in $(seq 50); do x=$(pgrep -f '^sleep 302$' | head -1); [ -n "$x" ] && break; sleep 0.1; done
        KILL_PIDS+=("$x")
        run timeout 60 ctr -n "$NS" task ps "$n"
        assert_success
        pids=$(tail -n +2 <<<"$output" | awk '{print $1}' | sort -n | tr '\n' ' ')
        [ "$pids" = "$(printf '%s\n' "$init" "$x" | sort -n | tr '\n' ' ')" ] || {
            echo "$rt: ps gave $pids, want $init $x" >&2
            return 1
        }
        timeout 60 ctr -n "$NS" task kill -a -s 9 "$n"
        for _ in $(seq 50); do kill -0 "$x" 2>/dev/null || break; sleep 0.1; done
        assert_dead "$x"
        for _ in $(seq 50); do [ "$(ctr -n "$NS" task ls | awk -v n="$n" '$1 == n {print $3}')" = STOPPED ] && break; sleep 0.1; done
        [ "$(ctr -n "$NS" task ls | awk -v n="$n" '$1 == n {print $3}')" = STOPPED ]
    done
}

@test "podman exec, pause and unpause, as with runc" {
    need podman
    for rt in /usr/sbin/runc "$RT"; do
        n=pm$RANDOM
        NAMES+=("podman:$n")
        # shellcheck disable=SC2086
        timeout 120 podman --runtime "$rt" run -d $PODMAN_ULIMITS --name "$n" "$IMG_LOCAL" sleep 1000 >/dev/null
        run timeout 60 podman --runtime "$rt" exec "$n" sh -c 'grep NoNewPrivs /proc/self/status; exit 5'
        [ "$status" -eq 5 ] || {
            echo "$rt: exec status $status: $output" >&2
            return 1
        }
        timeout 60 podman --runtime "$rt" pause "$n"
        [ "$(podman --runtime "$rt" inspect -f '{{.State.Status}}' "$n")" = paused ]
        # frozen, seen from the host: the freezer of the process's own cgroup
        pid=$(podman --runtime "$rt" inspect -f '{{.State.Pid}}' "$n")
        if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
            [ "$(cat "/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/$pid/cgroup)/cgroup.freeze")" = 1 ]
        else
            [ "$(cat "/sys/fs/cgroup/freezer$(sed -n 's/^[0-9]*:freezer://p' /proc/$pid/cgroup)/freezer.state")" = FROZEN ]
        fi
        timeout 60 podman --runtime "$rt" unpause "$n"
        [ "$(podman --runtime "$rt" inspect -f '{{.State.Status}}' "$n")" = running ]
    done
    # revrun's exec always sets no_new_privs (the last run above)
    assert_output_contains "NoNewPrivs:	1"
}
