# Shared bats helpers. Every suite: `load helpers` in its first lines.
#
# REVRUN       the binary under test (default: the build in this checkout)
# REVRUN_PROBES  directory of the static probe binaries
# REVRUN_TEST_UID / REVRUN_TEST_GID  the unprivileged identity for rootless
#              tests (default: the revrun-ci user that .ci/run creates)

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${REVRUN:=$REPO_ROOT/revrun}"
: "${REVRUN_PROBES:=$REPO_ROOT/build/probes}"

if [ -z "${REVRUN_TEST_UID:-}" ]; then
    REVRUN_TEST_UID=$(id -u revrun-ci 2>/dev/null || echo 1500)
    REVRUN_TEST_GID=$(id -g revrun-ci 2>/dev/null || echo 1500)
fi

# A private scratch directory per test, world-traversable so the rootless
# identity can reach what a test hands it; removed in teardown.
rr_setup_tmp() {
    RR_TMP=$(mktemp -d /tmp/revrun-test.XXXXXX)
    chmod 0755 "$RR_TMP"
    # The binary and the probes are copied where the rootless uid can run them
    # even when the checkout lives under a private home directory.
    mkdir -p "$RR_TMP/bin"
    cp "$REVRUN" "$RR_TMP/bin/revrun"
    if [ -d "$REVRUN_PROBES" ]; then
        cp -r "$REVRUN_PROBES/." "$RR_TMP/bin/"
    fi
    chmod -R a+rX "$RR_TMP/bin"
    RR_BIN="$RR_TMP/bin"
    RR_ROOT="$RR_TMP/state"
}

# Destroy what a failed test left under state root $1 (default $RR_ROOT).
rr_destroy_all() {
    local root=${1:-$RR_ROOT} d
    [ -d "$root" ] || return 0
    for d in "$root"/*/; do
        [ -d "$d" ] && "$RR_BIN/revrun" --root "$root" destroy --force "$(basename "$d")"
    done
    return 0
}

rr_teardown_tmp() {
    [ -n "${RR_TMP:-}" ] || return 0
    rr_undelegate_cgroups
    # Anything a failed test left mounted below the scratch dir goes first.
    grep -F " $RR_TMP" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    chmod -R u+rwX "$RR_TMP" 2>/dev/null || true
    rm -rf "$RR_TMP"
}

# Delegate cgroups to the test identity the way an administrator (v1) or
# systemd (v2) would, so rootless runs can enforce their limits:
#   v1: /sys/fs/cgroup/{memory,pids,cpu}/revrun-UID owned by UID;
#   v2: /sys/fs/cgroup/revrun-test-UID owned by UID with the controllers
#       enabled, and a leaf "shell" the rootless command starts in.
# Removed again by rr_teardown_tmp.
CG_V2_BASE=/sys/fs/cgroup/revrun-test-$REVRUN_TEST_UID

cgroup_is_v2() {
    [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers
}

rr_delegate_cgroups() {
    if cgroup_is_v2; then
        mkdir -p "$CG_V2_BASE/shell"
        echo "+memory +pids +cpu" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
        echo "+memory +pids +cpu" >"$CG_V2_BASE/cgroup.subtree_control"
        chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CG_V2_BASE"
        return 0
    fi
    local c
    for c in memory pids cpu; do
        [ -d "/sys/fs/cgroup/$c" ] || continue
        mkdir -p "/sys/fs/cgroup/$c/revrun-$REVRUN_TEST_UID"
        chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "/sys/fs/cgroup/$c/revrun-$REVRUN_TEST_UID"
    done
}

rr_undelegate_cgroups() {
    local d
    for d in "$CG_V2_BASE" /sys/fs/cgroup/{memory,pids,cpu}/revrun-"$REVRUN_TEST_UID"; do
        [ -d "$d" ] || continue
        # leaves first; a populated one means a test leaked processes
        find "$d" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
        rmdir "$d" 2>/dev/null || true
    done
}

# Run a command as the unprivileged test identity, with its own runtime dir.
as_user() {
    local rt="$RR_TMP/xdg-$REVRUN_TEST_UID"
    mkdir -p "$rt"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$rt"
    chmod 0700 "$rt"
    rr_delegate_cgroups
    (
        if cgroup_is_v2; then
            echo "$BASHPID" >"$CG_V2_BASE/shell/cgroup.procs"
        fi
        exec setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
            --inh-caps=-all --reset-env -- \
            env HOME="$rt" XDG_RUNTIME_DIR="$rt" PATH=/usr/local/bin:/usr/bin:/bin "$@"
    )
}

# The mount table as a sorted list of mount points, to compare before/after.
mount_points() {
    awk '{print $5}' /proc/self/mountinfo | sort
}

# The pids of live processes named NAME (comm): a dead one the machine's
# pid 1 has not reaped yet (a zombie, which pgrep counts) is gone already.
live_procs() {
    ps -eo pid=,stat=,comm= | awk -v name="$1" '$3 == name && $2 !~ /^Z/ { print $1 }'
}

# The one process whose command line matches PATTERN (pgrep -f) and whose
# parent's does not, polled (up to 10 s) until there is exactly one: what
# it forks carries its command line until it execs, and "the oldest"
# cannot tell them apart (start times are clock ticks; pids wrap).
root_match() {
    local m p r
    for _ in $(seq 100); do
        r=
        m=" $(pgrep -d' ' -f "$1") "
        for p in $m; do
            [[ "$m" == *" $(ps -o ppid= -p "$p" | tr -d ' ') "* ]] || r="$r $p"
        done
        [[ "$r" =~ ^\ [0-9]+$ ]] && { echo "${r# }"; return 0; }
        sleep 0.1
    done
    return 1
}

# As many live processes named NAME as COUNT, polled (up to 10 s: a
# process that has written its last file still has to exit).
await_live_count() {
    for _ in $(seq 100); do
        [ "$(live_procs "$1" | wc -l)" = "$2" ] && return 0
        sleep 0.1
    done
    echo "$(live_procs "$1" | wc -l) processes named $1 live, not $2: $(live_procs "$1")"
    return 1
}

# Fail with the command's output shown (bats prints it on failure only).
# The process PID is dead: gone, or a zombie its reaper has not collected yet.
# A SIGKILLed process dies asynchronously, so this waits (up to 10 s, a
# guard, not a speed bound) for a still-running one to end.
assert_dead() {
    local st
    for _ in $(seq 100); do
        st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
        [ "$st" = Z ] && return 0
        sleep 0.1
    done
    echo "process $1 still alive (state $st)"
    return 1
}

assert_success() {
    if [ "$status" -ne 0 ]; then
        echo "expected success, got status $status; output:" >&2
        echo "$output" >&2
        return 1
    fi
}

assert_failure() {
    if [ "$status" -eq 0 ]; then
        echo "expected failure, got success; output:" >&2
        echo "$output" >&2
        return 1
    fi
}

assert_output_contains() {
    if [[ "$output" != *"$1"* ]]; then
        echo "expected output to contain: $1" >&2
        echo "got: $output" >&2
        return 1
    fi
}

# act_query FILE EXPR: a Python expression over r, the records of an
# activity record FILE (each line must be JSON; execs, exits by seq, reqs,
# ran(*argv) at hand); prints its value. act_assert FILE EXPR: it is True.
act_query() {
    python3 - "$1" "$2" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
execs = [x for x in r if x["type"] == "exec"]
exits = {x["seq"]: x for x in r if x["type"] == "exit"}
reqs = [x for x in r if x["type"] == "request"]
def ran(*argv):
    return [x for x in execs if x["argv"][:len(argv)] == list(argv)]
print(eval(sys.argv[2]))
PY
}

act_assert() {
    local got
    got=$(act_query "$1" "$2")
    if [ "$got" != True ]; then
        echo "not true: $2 (got $got)" >&2
        cut -c1-300 "$1" >&2
        return 1
    fi
}
