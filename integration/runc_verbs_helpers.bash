# Shared by runc_verbs.bats and runc_verbs_state.bats: a bundle revrun
# creates from the test's checkout, the state's fields, and the same step
# under Debian's runc on a busybox bundle for the reference wording.

load helpers

P=/workspace/.probes

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/.probes"
    echo hello >"$RR_TMP/checkout/a.txt"
    cp "$RR_BIN"/{ids,sys,try} "$RR_TMP/checkout/.probes/"
    chmod -R a+rX "$RR_TMP/checkout"
    # IDs name cgroups host-wide: unique ones keep parallel runs apart
    X="v$RANDOM$BATS_TEST_NUMBER"
    KILL_PIDS=()
    RUNC_IDS=()
    ROOTLESS=
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    local pid id d
    for pid in "${KILL_PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    rr_destroy_all
    for d in "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"/*/; do
        [ -d "$d" ] && as_user "$RR_BIN/revrun" delete --force "$(basename "$d")"
    done
    for id in "${RUNC_IDS[@]}"; do
        runc --root "$RR_TMP/runc" delete --force "$id" >/dev/null 2>&1 || true
    done
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# The default spec around the checkout, edited by the Python statements
# given (c is the config); process: sleep, so the container stays up.
make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    if [ -n "$ROOTLESS" ]; then
        chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
        as_user "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    else
        rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    fi
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'EOF'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["args"] = ["sleep", "1000"]
for stmt in sys.argv[2:]:
    exec(stmt)
json.dump(c, open(p, "w"), indent=2)
EOF
    [ -z "$ROOTLESS" ] || chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/bundle"
}

# create + start, as root or (ROOTLESS=1) as the test user
up() {
    if [ -n "$ROOTLESS" ]; then
        (cd "$RR_TMP/bundle" && as_user "$RR_BIN/revrun" create "$1" </dev/null >/dev/null)
        as_user "$RR_BIN/revrun" start "$1"
    else
        (cd "$RR_TMP/bundle" && rr create "$1" </dev/null >/dev/null)
        rr start "$1"
    fi
}

rrx() {
    if [ -n "$ROOTLESS" ]; then
        as_user "$RR_BIN/revrun" "$@"
    else
        rr "$@"
    fi
}

kv() {
    sed -n "s/^$1=//p" <<<"$output" | head -1
}

state_field() {
    rrx state "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$2"
}

# The pid of the container's own process: the child of its init that is
# not one of revrun's helpers inside (the resolver, the warmers), which are
# forked from init and never exec: they keep its command line, revrun-init
# (their comm is the monitor's or revrun-warm, so the name cannot tell).
agent_pid() {
    local init p
    init=$(state_field "$1" '["pid"]')
    for _ in $(seq 100); do
        for p in $(pgrep -P "$init"); do
            [ "$(ps -o args= -p "$p")" != revrun-init ] && { echo "$p"; return 0; }
        done
        sleep 0.1
    done
    return 1
}

wait_status() {
    for _ in $(seq 100); do
        [ "$(state_field "$1" '["status"]')" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# A process file as the shim writes it: the container's process, these args.
process_json() {
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
p = c["process"]
p["args"] = sys.argv[2:]
print(json.dumps(p))
EOF
}

# A busybox bundle for runc, the reference.
runc_bundle() {
    command -v runc >/dev/null || skip "runc is not installed"
    [ -x /bin/busybox ] || skip "busybox is not installed"
    mkdir -p "$RR_TMP/rb/rootfs/bin"
    cp /bin/busybox "$RR_TMP/rb/rootfs/bin/"
    for a in sh sleep true; do ln -sf busybox "$RR_TMP/rb/rootfs/bin/$a"; done
    (cd "$RR_TMP/rb" && runc spec)
    python3 - "$RR_TMP/rb/config.json" <<'EOF'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["terminal"] = False
c["process"]["args"] = ["sleep", "1000"]
json.dump(c, open(p, "w"))
EOF
}

runc_() {
    runc --root "$RR_TMP/runc" "$@"
}
