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

rr_teardown_tmp() {
    [ -n "${RR_TMP:-}" ] || return 0
    # Anything a failed test left mounted below the scratch dir goes first.
    grep -F " $RR_TMP" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    chmod -R u+rwX "$RR_TMP" 2>/dev/null || true
    rm -rf "$RR_TMP"
}

# Run a command as the unprivileged test identity, with its own runtime dir.
as_user() {
    local rt="$RR_TMP/xdg-$REVRUN_TEST_UID"
    mkdir -p "$rt"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$rt"
    chmod 0700 "$rt"
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        --inh-caps=-all --reset-env -- \
        env HOME="$rt" XDG_RUNTIME_DIR="$rt" PATH=/usr/local/bin:/usr/bin:/bin "$@"
}

# The mount table as a sorted list of mount points, to compare before/after.
mount_points() {
    awk '{print $5}' /proc/self/mountinfo | sort
}

# Fail with the command's output shown (bats prints it on failure only).
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
