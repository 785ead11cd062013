#!/usr/bin/env bats
# The host matrix: the main lifecycle on every host shape this machine can
# reproduce — root and rootless, native and fuse-overlayfs, cgroup v1
# controllers (this machine) and a cgroup v2 hierarchy (mounted alone in a
# private mount namespace), user namespaces allowed and refused. README.md
# "Backends and host shapes" is the table these tests stand behind.

load helpers
load fuse_helpers # the suite's setup and teardown too

# create, state, start, the agent's work, its exit status, the checkout
# untouched, destroy leaving no process, mount or state.
lifecycle() {
    local mode=$1 backend=$2 co="$RR_TMP/co"
    make_checkout "$mode" "$co"
    before=$(tree_listing "$co")
    make_bundle "$mode" "$backend" "$co" "$RR_TMP/b" sh -c \
        'read go; echo edited >> a.txt && rm b.txt && echo new > n.txt && grep -q edited a.txt && exit 7'
    cd "$RR_TMP/b"
    mkfifo "$RR_TMP/in"
    exec 5<>"$RR_TMP/in"
    rr_as "$mode" create "$ID" <&5 >"$RR_TMP/out" 2>&1 || { cat "$RR_TMP/out"; return 1; }
    [ "$(state_of "$mode" "$ID" 'd["status"]')" = created ]
    [ "$(state_of "$mode" "$ID" 'd["revrun"]["backend"]')" = "$backend" ]
    init=$(state_of "$mode" "$ID" 'd["pid"]')
    monitor=$(monitor_of "$mode" "$ID")
    daemon=$(pgrep -P "$monitor" -x fuse-overlayfs || true)
    if [ "$backend" = fuse ]; then [ -n "$daemon" ]; else [ -z "$daemon" ]; fi
    rr_as "$mode" start "$ID"
    [ "$(state_of "$mode" "$ID" 'd["status"]')" = running ]
    echo go >&5
    wait_stopped "$mode" "$ID"
    exec 5>&-
    [ "$(state_of "$mode" "$ID" 'd["revrun"]["exit"]["code"]')" = 7 ]
    [ "$(tree_listing "$co")" = "$before" ]
    rr_as "$mode" destroy "$ID"
    for p in $init $monitor $daemon; do wait_gone "$p"; done
    [ ! -e "$(rr_state_root "$mode")/$ID" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "host: root, native overlay, cgroup v1" {
    lifecycle root native
}

@test "host: root, fuse-overlayfs, cgroup v1" {
    lifecycle root fuse
}

@test "host: rootless, native overlay, cgroup v1 (delegated)" {
    lifecycle user native
}

@test "host: rootless, fuse-overlayfs, cgroup v1 (delegated)" {
    lifecycle user fuse
}

@test "host: auto picks native overlay where the kernel mounts it (root and rootless)" {
    for mode in root user; do
        make_checkout "$mode" "$RR_TMP/co-$mode"
        make_bundle "$mode" auto "$RR_TMP/co-$mode" "$RR_TMP/b-$mode" sleep 1000
        cd "$RR_TMP/b-$mode"
        log="$RR_TMP/log-$mode"
        [ "$mode" = root ] || log="$RR_TMP/xdg-$REVRUN_TEST_UID/log"
        rr_as "$mode" --log "$log" create "$ID" </dev/null
        [ "$(state_of "$mode" "$ID" 'd["revrun"]["backend"]')" = native ]
        grep -q 'overlay backend: native (revrun.overlay "auto")' "$log"
        rr_as "$mode" destroy --force "$ID"
    done
}

# Run a script in a private mount namespace with cgroup2 alone at
# /sys/fs/cgroup (no v1 hierarchy in sight).
in_cgroup_v2() {
    unshare --mount --propagation private -- bash -c '
        umount -R /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup || exit 99
        eval "$1"' in_cgroup_v2 "$1"
}

# On this hybrid host the memory, pids and cpu controllers stay with v1, so
# v2 offers none: limits are refused unless best effort, and the container
# (and its fuse-overlayfs daemon) still joins its own v2 cgroup, removed on
# destroy.
V2_RUN='
    cd "$RR_TMP/b-$BACKEND" || exit 1
    "$RR_BIN/revrun" --root "$RR_ROOT" create "$ID-$BACKEND" </dev/null >"$RR_TMP/out" 2>&1
    r=$?
    cat "$RR_TMP/out"
    [ $r = 0 ] || exit 1
    init=$(python3 -c "import json; print(json.load(open(\"$RR_ROOT/$ID-$BACKEND/state.json\"))[\"pid\"])")
    mon=$(python3 -c "import json; print(json.load(open(\"$RR_ROOT/$ID-$BACKEND/state.json\"))[\"monitorPid\"])")
    echo "init $(grep "^0::" /proc/$init/cgroup)"
    d=$(pgrep -P "$mon" -x fuse-overlayfs) && echo "daemon $(grep "^0::" /proc/$d/cgroup)"
    "$RR_BIN/revrun" --root "$RR_ROOT" destroy --force "$ID-$BACKEND"'

@test "host: cgroup v2 hierarchy without controllers: limits refused unless best effort; the container joins and leaves its v2 cgroup (native and fuse)" {
    unified=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
    [ -n "$unified" ] || skip "no cgroup2 hierarchy on this host"
    make_checkout root "$RR_TMP/co"
    for backend in strict native fuse; do
        make_bundle root "${backend/strict/native}" "$RR_TMP/co" "$RR_TMP/b-$backend" sleep 1000
        [ "$backend" = strict ] ||
            set_config "$RR_TMP/b-$backend" 'c["revrun"]["bestEffort"] = ["memory", "pids", "cpu"]'
    done
    export RR_BIN RR_ROOT RR_TMP ID
    export BACKEND=strict
    run in_cgroup_v2 "$V2_RUN"
    assert_failure
    assert_output_contains 'list "memory" in revrun.bestEffort'
    for backend in native fuse; do
        export BACKEND=$backend
        run in_cgroup_v2 "$V2_RUN"
        assert_success
        assert_output_contains "limits not enforced (best effort): memory"
        # /revrun/[state root's tag/]ID
        grep -Eq "^init 0::/revrun/(.*/)?$ID-$backend\$" <<<"$output"
        [ "$backend" = native ] || grep -Eq "^daemon 0::/revrun/(.*/)?$ID-$backend\$" <<<"$output"
        # seen from the host's own v2 mount: gone with destroy
        [ -z "$(find "$unified/revrun" -name "$ID-$backend" 2>/dev/null)" ]
    done
}

@test "host: rootless where user namespaces are refused: create fails saying what to do, and check names the remedy" {
    make_checkout user "$RR_TMP/co"
    run as_user "$RR_BIN/no_userns" "$RR_BIN/revrun" run --lower "$RR_TMP/co" -- true
    assert_failure
    assert_output_contains "a user namespace of our own (refused here: on Ubuntu 24.04 by AppArmor; \`revrun check\` gives the remedy)"
    [ -z "$(ls -A "$(rr_state_root user)" 2>/dev/null)" ]
    run as_user "$RR_BIN/no_userns" "$RR_BIN/revrun" check
    assert_failure
    assert_output_contains "FAIL  user namespaces"
    if [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null)" = 1 ]; then
        assert_output_contains "kernel.apparmor_restrict_unprivileged_userns=0"
    else
        # the refusal is no_userns's seccomp filter: named as such, and no
        # AppArmor advice on a host that has no such restriction
        assert_output_contains "cause: the outer container's seccomp filter"
        assert_output_contains "--security-opt seccomp=unconfined"
        if grep -q "apparmor_restrict_unprivileged_userns" <<<"$output"; then false; fi
    fi
}

@test "host: root where user namespaces are refused (an outer container's seccomp): create fails pointing at check" {
    make_checkout root "$RR_TMP/co"
    for backend in native fuse auto; do
        make_bundle root "$backend" "$RR_TMP/co" "$RR_TMP/b" true
        cd "$RR_TMP/b"
        run "$RR_BIN/no_userns" "$RR_BIN/revrun" --root "$RR_ROOT" run "$ID"
        assert_failure
        assert_output_contains "user namespaces are refused here: see \`revrun check\`"
    done
    [ -z "$(ls -A "$RR_ROOT")" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "host: check's verdict is create's: a bundle create refuses for a reason no step probe sees (minFreeSpace) makes check fail, naming it, and leaves nothing" {
    make_checkout root "$RR_TMP/co"
    make_bundle root native "$RR_TMP/co" "$RR_TMP/b" true
    run "$RR_BIN/revrun" --root "$RR_ROOT" check --bundle "$RR_TMP/b"
    assert_success
    assert_output_contains "ok    scratch container"
    # more free space than any disk has: only the scratch create finds out
    set_config "$RR_TMP/b" 'c["revrun"]["minFreeSpace"] = "1024T"'
    run "$RR_BIN/revrun" --root "$RR_ROOT" check --bundle "$RR_TMP/b"
    assert_failure
    assert_output_contains "FAIL  scratch container"
    assert_output_contains "below revrun.minFreeSpace"
    assert_output_contains "create fails here"
    # the scratch state root went with it, and nothing is mounted
    [ -z "$(ls -d "$RR_ROOT".check-* 2>/dev/null)" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "host: check gives kernel advice only to a kernel that is too old: a filtered pidfd_open on a recent kernel is pinned on the filter" {
    major=$(uname -r | cut -d. -f1)
    [ "$major" -ge 6 ] || skip "this kernel is older than 6: the advice would be right"
    # pidfd_open is 434 on every architecture revrun builds for
    run "$RR_BIN/deny_syscall" 434 38 "$RR_BIN/revrun" --root "$RR_ROOT" check
    assert_failure
    assert_output_contains "FAIL  pidfd"
    assert_output_contains "this kernel has it: something in between refuses it"
    assert_output_contains "cause: the outer container's seccomp filter"
    if grep -q "Linux 5.3 or later" <<<"$output"; then false; fi
}

@test "host: root of a user namespace that maps only its root (unshare -r): revrun says so and runs in its rootless mode; check agrees" {
    make_checkout root "$RR_TMP/co"
    run unshare -r -- "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/co" -- \
        sh -c 'echo changed > a.txt; id -u'
    assert_success
    assert_output_contains "maps no other id"
    assert_output_contains "running rootless"
    if grep -q "exec fifo owner" <<<"$output"; then false; fi
    run unshare -r -- "$RR_BIN/revrun" --root "$RR_ROOT" check
    assert_success
    assert_output_contains "revrun check: unprivileged"
    assert_output_contains "ok    scratch container"
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}
