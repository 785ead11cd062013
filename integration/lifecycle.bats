#!/usr/bin/env bats
# The lifecycle, judged from the host: state JSON, exit statuses, signals,
# the checkout's bytes, the mount table and the process table.

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/sub"
    echo "hello" >"$RR_TMP/checkout/a.txt"
    echo "delete me" >"$RR_TMP/checkout/b.txt"
    echo "nested" >"$RR_TMP/checkout/sub/c.txt"
    chmod -R a+rX "$RR_TMP/checkout"
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    # Whatever a failed test left: its containers, then the scratch dir.
    rr_destroy_all
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
}

# Replace process.args in the bundle's config with the given command.
set_args() {
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'EOF'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["args"] = sys.argv[2:]
json.dump(c, open(p, "w"), indent=2)
EOF
}

state_field() {
    rr state "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$2"
}

@test "spec prints a parsable hardened config with the checkout as lower and cwd" {
    run rr spec --lower "$RR_TMP/checkout"
    assert_success
    echo "$output" | python3 -c '
import json, sys
c = json.load(sys.stdin)
assert c["ociVersion"].startswith("1.")
assert c["root"] == {"path": "rootfs", "readonly": True}
assert c["process"]["cwd"] == c["revrun"]["checkoutPath"]
assert c["process"]["noNewPrivileges"] is True
assert all(v == [] for v in c["process"]["capabilities"].values())
ns = {n["type"] for n in c["linux"]["namespaces"]}
assert ns == {"user", "mount", "pid", "network", "ipc", "uts", "cgroup"}, ns
assert c["revrun"]["lower"].endswith("/checkout")
'
}

@test "create, start, state and the exit code through every transition" {
    make_bundle
    set_args sh -c 'read line; exit 7'
    cd "$RR_TMP/bundle"
    # the process holds create's stdio: give it a stdin that stays open
    mkfifo "$RR_TMP/in"
    exec 5<>"$RR_TMP/in"
    rr create --pid-file "$RR_TMP/pid" c1 <&5
    [ "$(state_field c1 '["status"]')" = created ]
    pid=$(state_field c1 '["pid"]')
    [ "$pid" -gt 0 ]
    [ "$(cat "$RR_TMP/pid")" = "$pid" ]
    kill -0 "$pid"
    rr start c1
    [ "$(state_field c1 '["status"]')" = running ]
    run rr start c1
    assert_failure
    echo go >&5
    for _ in $(seq 50); do
        [ "$(state_field c1 '["status"]')" = stopped ] && break
        sleep 0.1
    done
    [ "$(state_field c1 '["status"]')" = stopped ]
    [ "$(state_field c1 '["revrun"]["exit"]["code"]')" = 7 ]
    [ "$(state_field c1 '["pid"]')" = 0 ]
    exec 5>&-
    rr destroy c1
    [ ! -e "$RR_ROOT/c1" ]
}

@test "run exits with the process's status, and 128+N when signal N ends it" {
    run rr run --lower "$RR_TMP/checkout" -- sh -c 'exit 3'
    [ "$status" -eq 3 ]
    run rr run --lower "$RR_TMP/checkout" -- sh -c 'kill -TERM $$'
    [ "$status" -eq 143 ]
    run rr run --lower "$RR_TMP/checkout" -- /no/such/program
    [ "$status" -eq 1 ]
    assert_output_contains "/no/such/program"
}

# Started at a real-time priority, revrun either runs (cgroup v2, or a v1
# cpu group with a real-time budget) or says why the cgroup refused it
# (the v1 cpu controller takes no real-time task into a group without a
# real-time budget), and leaves nothing behind.
@test "run at a real-time priority runs or says the priority is why the cgroup refused" {
    run chrt -f 1 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- true
    if [ "$status" -ne 0 ]; then
        assert_output_contains "revrun runs at a real-time priority"
        assert_output_contains "run it at a normal one"
    fi
    [ -z "$(ls "$RR_ROOT" 2>/dev/null)" ]
}

# pid 1 of a pid namespace gets no signal from outside that it has no
# handler for (the kernel drops it); revrun's pid 1 inherits the monitor's
# mask, which would hold it pending until start. It handles them until
# start instead.
@test "a created container sent SIGTERM ends, as runc's does; nothing is left" {
    make_bundle
    set_args sleep 1000
    cd "$RR_TMP/bundle"
    rr create t1 </dev/null
    [ "$(state_field t1 '["status"]')" = created ]
    rr kill t1 TERM
    for _ in $(seq 50); do
        [ "$(state_field t1 '["status"]')" = stopped ] && break
        sleep 0.1
    done
    [ "$(state_field t1 '["status"]')" = stopped ]
    rr destroy t1
    [ -z "$(ls "$RR_ROOT")" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "the agent starts with no signal ignored or blocked: yes | head ends yes by SIGPIPE, silently" {
    local ign
    run "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- sh -c \
        'yes | head -c 1 >/dev/null; grep -E "^Sig(Ign|Blk):" /proc/self/status'
    echo "$output"
    assert_success
    [[ "$output" != *"Broken pipe"* ]]
    # the standard signals (glibc keeps 32 and 33 for itself)
    ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' <<<"$output")
    [ $((0x$ign & 0x7fffffff)) -eq 0 ]
    [[ "$output" == *"SigBlk:"*0000000000000000* ]]
}

@test "kill takes names with and without SIG, and numbers" {
    make_bundle
    set_args sleep 1000
    cd "$RR_TMP/bundle"
    for sig in TERM SIGKILL 2; do
        rr create k1 </dev/null
        rr start k1
        rr kill k1 "$sig"
        for _ in $(seq 50); do
            [ "$(state_field k1 '["status"]')" = stopped ] && break
            sleep 0.1
        done
        [ "$(state_field k1 '["status"]')" = stopped ]
        rr destroy k1
    done
    rr create k1 </dev/null
    run rr kill k1 NOTASIGNAL
    assert_failure
    rr destroy k1
}

@test "a SIGTERM to revrun run reaches the process" {
    "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- \
        sh -c 'trap "exit 42" TERM; echo ready; while :; do sleep 0.1; done' \
        >"$RR_TMP/run.out" &
    runner=$!
    # the trap is set (a SIGTERM before it, or during create, ends 143)
    for _ in $(seq 300); do grep -q ready "$RR_TMP/run.out" && break; sleep 0.1; done
    kill -TERM "$runner"
    wait "$runner" || status=$?
    [ "$status" -eq 42 ]
}

@test "the checkout is never modified, and the changes stay in the upper" {
    before=$(cd "$RR_TMP/checkout" && find . -type f -exec sha256sum {} + | sort)
    run rr run --lower "$RR_TMP/checkout" -- sh -c '
        echo changed >> a.txt && rm b.txt && echo new > new.txt && mkdir d && rm -r sub &&
        cat a.txt && ls'
    assert_success
    assert_output_contains "changed"
    after=$(cd "$RR_TMP/checkout" && find . -type f -exec sha256sum {} + | sort)
    [ "$before" = "$after" ]
}

@test "destroy leaves nothing: no process, no mount, no state" {
    make_bundle
    set_args sleep 1000
    cd "$RR_TMP/bundle"
    rr create d1 </dev/null
    rr start d1
    pid=$(state_field d1 '["pid"]')
    monitor=$(python3 -c "import json;print(json.load(open('$RR_ROOT/d1/state.json'))['monitorPid'])")
    run rr destroy d1
    assert_failure
    assert_output_contains "running"
    rr destroy --force d1
    assert_dead "$pid"
    assert_dead "$monitor"
    [ ! -e "$RR_ROOT/d1" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
    # destroy is idempotent; delete answers as runc does (the shim and
    # conmon match the words), unless --force
    rr destroy d1
    run rr delete d1
    [ "$status" -eq 1 ]
    assert_output_contains "container does not exist"
    rr delete --force d1
}

@test "a checkout path with , : = spaces and a newline works" {
    weird="$RR_TMP/we,ird:na=me with
newline"
    mkdir -p "$weird"
    echo content >"$weird/f"
    chmod -R a+rX "$weird"
    run rr run --lower "$weird" -- cat f
    assert_success
    [ "$output" = content ]
}

@test "container IDs outside [A-Za-z0-9][A-Za-z0-9_.-]{0,63} are refused" {
    make_bundle
    cd "$RR_TMP/bundle"
    for bad in "" "-x" ".x" "a/b" "a b" "$(printf 'a%.0s' $(seq 65))" "é" ".." "a
b"; do
        run rr create "$bad" </dev/null
        assert_failure
    done
    # (not under `run`: the created process holds stdout until it exits)
    rr create "A1_.-$(printf 'a%.0s' $(seq 59))" </dev/null >/dev/null
    rr destroy --force "A1_.-$(printf 'a%.0s' $(seq 59))"
}

@test "a second create of a live ID fails clearly and leaves the first intact" {
    make_bundle
    set_args sleep 1000
    cd "$RR_TMP/bundle"
    rr create dup </dev/null
    run rr create dup </dev/null
    assert_failure
    assert_output_contains "already exists"
    [ "$(state_field dup '["status"]')" = created ]
    rr destroy --force dup
}

@test "a setup step that fails names the step and the errno, and nothing runs" {
    make_bundle
    python3 - "$RR_TMP/bundle/config.json" "$RR_TMP/marker" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["mounts"].append({"destination": "/x", "type": "bind", "source": "/does/not/exist",
                    "options": ["rbind", "ro"]})
c["process"]["args"] = ["sh", "-c", "touch /out/marker"]
json.dump(c, open(sys.argv[1], "w"))
EOF
    cd "$RR_TMP/bundle"
    run rr create bad </dev/null
    assert_failure
    assert_output_contains "bind /does/not/exist"
    assert_output_contains "No such file or directory"
    [ ! -e "$RR_ROOT/bad" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "create's output goes where the caller redirected it" {
    make_bundle
    set_args sh -c 'echo to-stdout; echo to-stderr >&2'
    cd "$RR_TMP/bundle"
    rr create io </dev/null >"$RR_TMP/out" 2>"$RR_TMP/err"
    rr start io
    for _ in $(seq 50); do
        [ "$(state_field io '["status"]')" = stopped ] && break
        sleep 0.1
    done
    [ "$(cat "$RR_TMP/out")" = to-stdout ]
    [ "$(cat "$RR_TMP/err")" = to-stderr ]
    rr destroy io
}

@test "list shows each container with its status" {
    make_bundle
    set_args sleep 1000
    cd "$RR_TMP/bundle"
    rr create l1 </dev/null
    run rr list
    assert_success
    assert_output_contains "l1"
    assert_output_contains "created"
    rr destroy --force l1
}

@test "rootless: run, exit status, checkout unchanged, nothing left" {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
    before=$(cd "$RR_TMP/checkout" && find . -type f -exec sha256sum {} + | sort)
    run as_user "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- sh -c \
        'id -u; echo x >> a.txt; rm b.txt; cat /proc/self/status | grep CapEff; exit 5'
    [ "$status" -eq 5 ]
    assert_output_contains "1000"
    assert_output_contains "CapEff:	0000000000000000"
    after=$(cd "$RR_TMP/checkout" && find . -type f -exec sha256sum {} + | sort)
    [ "$before" = "$after" ]
    [ -z "$(ls -A "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun" 2>/dev/null)" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "rootless: create, start, state, destroy" {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
    mkdir -p "$RR_TMP/ub/rootfs"
    as_user "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" >"$RR_TMP/ub/config.json"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/ub"
    cd "$RR_TMP/ub"
    as_user "$RR_BIN/revrun" create u1 </dev/null
    run as_user "$RR_BIN/revrun" state u1
    assert_output_contains '"status": "created"'
    as_user "$RR_BIN/revrun" start u1
    for _ in $(seq 100); do
        as_user "$RR_BIN/revrun" state u1 | grep -q '"status": "stopped"' && break
        sleep 0.1
    done
    run as_user "$RR_BIN/revrun" state u1
    assert_output_contains '"status": "stopped"'
    as_user "$RR_BIN/revrun" destroy u1
    [ ! -e "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun/u1" ]
}

# A fresh node: containerd's shim passes --root /run/containerd/runc/NAMESPACE
# before anything made its parents (statedir.c make_root).
@test "a missing state root and its missing parents are made 0700 and the caller's" {
    run "$RR_BIN/revrun" --root "$RR_TMP/new/a/b/state" run --lower "$RR_TMP/checkout" -- true
    assert_success
    for d in new new/a new/a/b new/a/b/state; do
        [ "$(stat -c '%a %u' "$RR_TMP/$d")" = "700 0" ]
    done
}

@test "rootless: a missing state root and its parents are made 0700 and the user's" {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
    mkdir "$RR_TMP/u"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/u"
    run as_user "$RR_BIN/revrun" --root "$RR_TMP/u/x/y/state" run --lower "$RR_TMP/checkout" -- true
    assert_success
    for d in u/x u/x/y u/x/y/state; do
        [ "$(stat -c '%a %u' "$RR_TMP/$d")" = "700 $REVRUN_TEST_UID" ]
    done
}

# Whoever can write a parent could otherwise steer the root (and the
# state revrun acts on) into a directory of their choosing.
@test "a symlink on the way to a missing state root is refused and nothing is made through it" {
    mkdir "$RR_TMP/elsewhere"
    ln -s "$RR_TMP/elsewhere" "$RR_TMP/link"
    run "$RR_BIN/revrun" --root "$RR_TMP/link/a/state" run --lower "$RR_TMP/checkout" -- true
    assert_failure
    assert_output_contains "link on the way is a symlink or not a directory"
    [ -z "$(ls -A "$RR_TMP/elsewhere")" ]
}
