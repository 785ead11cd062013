# Shared by containment.bats, containment_reach.bats and
# containment_hardening.bats: a checkout carrying the static probes of
# integration/probes/, reviews and bundles run as root and rootless (and as
# an identity nobody delegates a cgroup to), and what the probes report.

load helpers

P=/workspace/.probes
# An unprivileged identity nobody delegates a cgroup to (as_user delegates to
# REVRUN_TEST_UID, and suites running side by side share that one).
NODELEG_UID=$((REVRUN_TEST_UID + 17))
NODELEG_GID=$((REVRUN_TEST_GID + 17))

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/.probes" "$RR_TMP/out"
    echo hello >"$RR_TMP/checkout/a.txt"
    cp "$RR_BIN"/{ids,sys,try,bomb} "$RR_TMP/checkout/.probes/"
    chmod -R a+rX "$RR_TMP/checkout"
    chmod 0777 "$RR_TMP/out"
    TAG="revrun-canary-$$-$RANDOM"
    # Container IDs name cgroups host-wide: unique ones keep parallel runs apart.
    X="ct$RANDOM$BATS_TEST_NUMBER"
    ROOTLESS=
    SPEC_UID=$REVRUN_TEST_UID
    SPEC_GID=$REVRUN_TEST_GID
    KILL_PIDS=()
    CANARIES=()
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    local pid d
    for pid in "${KILL_PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    rr_destroy_all
    rr_destroy_all "$RR_TMP/other-root"
    for d in "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"/*/; do
        [ -d "$d" ] && as_user "$RR_BIN/revrun" destroy --force "$(basename "$d")"
    done
    rm -f "${CANARIES[@]}"
    # nothing of the container may outlive a test, whatever it did
    pkill -9 -f "$TAG" 2>/dev/null || true
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# The default spec around the test checkout, with /out bound read-write.
rr_run() {
    rr run --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- "$@"
}

rootless_checkout() {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout" "$RR_TMP/out"
    ROOTLESS=1
}

# Run as NODELEG_UID, its state under $RR_TMP/nodeleg; bundles made after
# nodeleg_setup are its own.
undelegated() {
    setpriv --reuid="$NODELEG_UID" --regid="$NODELEG_GID" --clear-groups --reset-env -- \
        env HOME="$RR_TMP/nodeleg" XDG_RUNTIME_DIR="$RR_TMP/nodeleg" PATH=/usr/bin:/bin "$@"
}

nodeleg_setup() {
    mkdir -p "$RR_TMP/nodeleg"
    chown "$NODELEG_UID:$NODELEG_GID" "$RR_TMP/nodeleg"
    chmod 0700 "$RR_TMP/nodeleg"
    ROOTLESS=1
    SPEC_UID=$NODELEG_UID
    SPEC_GID=$NODELEG_GID
}

# An executable script in the checkout, run inside as $P/NAME (stdin: its text).
script() {
    cat >"$RR_TMP/checkout/.probes/$1"
    chmod 0755 "$RR_TMP/checkout/.probes/$1"
}

rr_run_rootless() {
    as_user "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- "$@"
}

# A bundle from the default spec, /out bound, then edited by the Python
# statements given (c is the config), e.g. 'c["revrun"]["nestedSandboxes"] = True'.
make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    if [ -n "$ROOTLESS" ]; then
        setpriv --reuid="$SPEC_UID" --regid="$SPEC_GID" --clear-groups -- \
            env XDG_RUNTIME_DIR="$RR_TMP" "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" \
            >"$RR_TMP/bundle/config.json"
    else
        rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    fi
    python3 - "$RR_TMP/bundle/config.json" "$RR_TMP/out" "$@" <<'EOF'
import json, sys
p, out = sys.argv[1], sys.argv[2]
c = json.load(open(p))
c["mounts"].append({"destination": "/out", "type": "bind", "source": out,
                    "options": ["bind", "rw", "nosuid", "nodev"]})
for stmt in sys.argv[3:]:
    exec(stmt)
json.dump(c, open(p, "w"), indent=2)
EOF
}

# Process args for the bundle, as a JSON list in Python syntax.
args() {
    printf 'c["process"]["args"] = %s' "$1"
}

rr_bundle() {
    (cd "$RR_TMP/bundle" && rr "$@")
}

rr_bundle_rootless() {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/bundle"
    (cd "$RR_TMP/bundle" && as_user "$RR_BIN/revrun" "$@")
}

# The value of KEY= in $output.
kv() {
    sed -n "s/^$1=//p" <<<"$output" | head -1
}

state_field() {
    rr state "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$2"
}

wait_stopped() {
    for _ in $(seq 100); do
        [ "$(state_field "$1" '["status"]')" = stopped ] && return 0
        sleep 0.1
    done
    return 1
}

# No process on the host carries the test's tag any more.
assert_no_tagged_process() {
    if pgrep -f "$TAG" >/dev/null; then
        echo "still running:" >&2
        pgrep -af "$TAG" >&2
        return 1
    fi
}

wait_tagged_process() {
    for _ in $(seq 100); do
        pgrep -f "$TAG" >/dev/null && return 0
        sleep 0.1
    done
    return 1
}

assert_identity() {
    [ "$(kv uid)" = 1000 ] && [ "$(kv euid)" = 1000 ] || false
    local set
    for set in CapInh CapPrm CapEff CapBnd CapAmb; do
        [ "$(kv $set)" = 0000000000000000 ] || {
            echo "$set is $(kv $set)" >&2
            return 1
        }
    done
    [ "$(kv NoNewPrivs)" = 1 ]
    [ "$(kv Seccomp)" = 2 ]
}
