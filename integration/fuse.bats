#!/usr/bin/env bats
# The fuse-overlayfs backend and revrun.overlay "auto", root and rootless,
# judged from the host: the daemon by pid, the mount table, the checkout's
# bytes, and the markers fuse-overlayfs leaves in the upper for write-back.

load helpers
load fuse_helpers # the suite's setup and teardown too
load wb_helpers   # wb_view: what write-back carries

# The agent changes the checkout through fuse-overlayfs; the checkout itself
# never changes.
edit_through_fuse() {
    local mode=$1 co="$RR_TMP/co"
    make_checkout "$mode" "$co"
    before=$(tree_listing "$co")
    make_bundle "$mode" fuse "$co" "$RR_TMP/b" sh -c '
        echo "uid $(id -u) owner $(stat -c %u:%g a.txt)"
        grep " /workspace " /proc/self/mountinfo
        echo changed >> a.txt && rm b.txt && echo new > new.txt && rm -r gone && mkdir gone &&
        echo y > gone/y && cat a.txt gone/y'
    cd "$RR_TMP/b"
    run rr_as "$mode" run "$ID"
    assert_success
    assert_output_contains "uid 1000 owner 1000:1000"
    assert_output_contains "fuse.fuse-overlayfs"
    [[ "$(grep ' /workspace ' <<<"$output")" == *nosuid,nodev* ]]
    assert_output_contains "changed"
    [ "$(tree_listing "$co")" = "$before" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "fuse (root): the agent edits the checkout through fuse-overlayfs (nosuid, nodev), the checkout is untouched" {
    edit_through_fuse root
}

@test "fuse (rootless): the agent edits the checkout through fuse-overlayfs (nosuid, nodev), the checkout is untouched" {
    edit_through_fuse user
}

# The daemon: the monitor's child, the container user's host identity, no
# capability, its own pid and network namespaces, the container's cgroup;
# gone with destroy, and the mount table as it was.
daemon_is_confined() {
    local mode=$1 uid=$2
    make_checkout "$mode" "$RR_TMP/co"
    make_bundle "$mode" fuse "$RR_TMP/co" "$RR_TMP/b" sleep 1000
    cd "$RR_TMP/b"
    rr_as "$mode" create "$ID" </dev/null
    [ "$(state_of "$mode" "$ID" 'd["revrun"]["backend"]')" = fuse ]
    daemon=$(daemon_of "$mode" "$ID")
    [ -n "$daemon" ]
    init=$(state_of "$mode" "$ID" 'd["pid"]')
    # as root: the container's own host id (of revrun's range), its pid 1's
    if [ "$uid" = range ]; then
        uid=$(awk '/^Uid:/ {print $2}' "/proc/$init/status")
        [ "$uid" -ge 2000000000 ] && [ "$uid" -le 2000065535 ] || false
    fi
    grep -q "^Uid:	$uid	$uid	$uid	$uid$" "/proc/$daemon/status"
    grep -q "^CapEff:	0000000000000000$" "/proc/$daemon/status"
    grep -q "^CapBnd:	0000000000000000$" "/proc/$daemon/status"
    grep -q "^NoNewPrivs:	1$" "/proc/$daemon/status"
    grep -q "^Seccomp:	2$" "/proc/$daemon/status"
    # outside the container's pid namespace, and not in the host's either
    [ "$(readlink "/proc/$daemon/ns/pid")" != "$(readlink "/proc/$init/ns/pid")" ]
    [ "$(readlink "/proc/$daemon/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]
    [ "$(readlink "/proc/$daemon/ns/net")" != "$(readlink /proc/self/ns/net)" ]
    # counted with the container
    [ "$(grep memory "/proc/$daemon/cgroup")" = "$(grep memory "/proc/$init/cgroup")" ]
    # served to the container user alone (no allow_other): not even host root
    run ls "/proc/$init/root/workspace"
    assert_failure
    assert_output_contains "Permission denied"
    monitor=$(monitor_of "$mode" "$ID")
    rr_as "$mode" destroy --force "$ID"
    wait_gone "$daemon"
    ! alive "$monitor" || false
    ! alive "$init" || false
    [ ! -e "$(rr_state_root "$mode")/$ID" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "fuse (root): the daemon runs as the container user's host uid, without capabilities, outside the container, and goes with destroy" {
    daemon_is_confined root range
}

@test "fuse (rootless): the daemon runs as the caller, without capabilities, outside the container, and goes with destroy" {
    daemon_is_confined user "$REVRUN_TEST_UID"
}

# The daemon's root is a small tmpfs of its own: the host's tree is out of
# its reach, through /proc/PID/root and from inside its mount namespace with
# its own ids, while the container still edits the checkout through it.
daemon_sees_no_host() {
    local mode=$1 uid=$2 gid=$3
    make_checkout "$mode" "$RR_TMP/co"
    make_bundle "$mode" fuse "$RR_TMP/co" "$RR_TMP/b" sh -c 'echo edited >> a.txt; cat a.txt'
    echo host-canary >"$RR_TMP/canary"
    chmod 0644 "$RR_TMP/canary"
    cd "$RR_TMP/b"
    rr_as "$mode" create "$ID" >"$RR_TMP/ctr.out" 2>&1 </dev/null 3>&-
    daemon=$(daemon_of "$mode" "$ID")
    [ -n "$daemon" ]
    # as root: the container's own host id, the daemon's identity
    if [ "$uid" = range ]; then
        uid=$(awk '/^Uid:/ {print $2}' "/proc/$daemon/status")
        gid=$(awk '/^Gid:/ {print $2}' "/proc/$daemon/status")
        [ "$uid" -ge 2000000000 ] && [ "$uid" -le 2000065535 ] && [ "$gid" = "$uid" ] || false
    fi
    [ -e "$RR_TMP/canary" ]
    [ ! -e "/proc/$daemon/root$RR_TMP/canary" ]
    [ ! -e "/proc/$daemon/root/var/tmp" ]
    [ ! -e "/proc/$daemon/root/root" ]
    [ ! -e "/proc/$daemon/root$REPO_ROOT" ]
    # what is there: the layers, /proc, and the read-only system files
    ls "/proc/$daemon/root/lower/a.txt" "/proc/$daemon/root/store/upper"
    # as the daemon itself: nothing of the host to read or write
    run nsenter -t "$daemon" -m -p -- setpriv --reuid="$uid" --regid="$gid" --clear-groups \
        sh -c "cat '$RR_TMP/canary'; touch /var/tmp/revrun-daemon-canary /x; ls /"
    [[ "$output" != *host-canary* ]]
    [ ! -e /var/tmp/revrun-daemon-canary ]
    [[ "$output" != *home* ]]
    assert_output_contains "lower"
    # and the daemon still serves the container
    rr_as "$mode" start "$ID"
    wait_stopped "$mode" "$ID"
    grep -q edited "$RR_TMP/ctr.out"
    rr_as "$mode" destroy "$ID"
}

@test "fuse (root): the daemon's root holds its layers and read-only system files, no host path" {
    daemon_sees_no_host root range range
}

@test "fuse (rootless): the daemon's root holds its layers and read-only system files, no host path" {
    daemon_sees_no_host user "$REVRUN_TEST_UID" "$REVRUN_TEST_GID"
}

monitor_killed() {
    local mode=$1
    make_checkout "$mode" "$RR_TMP/co"
    make_bundle "$mode" fuse "$RR_TMP/co" "$RR_TMP/b" sleep 1000
    cd "$RR_TMP/b"
    rr_as "$mode" create "$ID" </dev/null
    rr_as "$mode" start "$ID"
    daemon=$(daemon_of "$mode" "$ID")
    init=$(state_of "$mode" "$ID" 'd["pid"]')
    kill -9 "$(monitor_of "$mode" "$ID")"
    wait_gone "$daemon"
    wait_gone "$init"
    # no namespace holds the FUSE mount any more: it was attached only in
    # the container's
    ! grep -qs "user_id=.*default_permissions" "/proc/$init/mountinfo" || false
    [ "$(state_of "$mode" "$ID" 'd["status"]')" = stopped ]
    rr_as "$mode" destroy "$ID"
    [ ! -e "$(rr_state_root "$mode")/$ID" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "fuse (root): kill -9 of the monitor takes the daemon and the mount with it; destroy clears the state" {
    monitor_killed root
}

@test "fuse (rootless): kill -9 of the monitor takes the daemon and the mount with it; destroy clears the state" {
    monitor_killed user
}

@test "fuse: kill -9 of an attached revrun run takes the container and the daemon; sweep clears the state" {
    make_checkout root "$RR_TMP/co"
    make_bundle root fuse "$RR_TMP/co" "$RR_TMP/b" sleep 1000
    cd "$RR_TMP/b"
    "$RR_BIN/revrun" --root "$RR_ROOT" run "$ID" </dev/null >/dev/null 2>&1 &
    runner=$!
    for _ in $(seq 50); do
        [ -s "$RR_ROOT/$ID/state.json" ] && daemon=$(daemon_of root "$ID") && break
        sleep 0.1
    done
    [ -n "$daemon" ]
    kill -9 "$runner"
    wait "$runner" || true
    wait_gone "$daemon"
    "$RR_BIN/revrun" --root "$RR_ROOT" sweep
    [ ! -e "$RR_ROOT/$ID" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "fuse: a daemon that dies under a running container takes the container down, and the exit record says why" {
    make_checkout root "$RR_TMP/co"
    make_bundle root fuse "$RR_TMP/co" "$RR_TMP/b" sleep 1000
    cd "$RR_TMP/b"
    rr_as root create "$ID" </dev/null
    rr_as root start "$ID"
    kill -9 "$(daemon_of root "$ID")"
    wait_stopped root "$ID"
    [ "$(state_of root "$ID" 'd["revrun"]["exit"]["signal"]')" = 9 ]
    [[ "$(state_of root "$ID" 'd["revrun"]["exit"]["error"]')" == *"fuse-overlayfs (the checkout's view) was killed by signal 9"* ]]
}

@test "fuse: the upper's size cap holds (ENOSPC at revrun.upperSize)" {
    make_checkout root "$RR_TMP/co"
    make_bundle root fuse "$RR_TMP/co" "$RR_TMP/b" sh -c \
        'dd if=/dev/zero of=big bs=64k count=64 2>&1; echo "dd=$?"; echo small > small && cat small'
    set_config "$RR_TMP/b" 'c["revrun"]["upperSize"] = 1 << 20'
    cd "$RR_TMP/b"
    run rr_as root run "$ID"
    assert_output_contains "No space left on device"
    assert_output_contains "dd=1"
}

# What fuse-overlayfs writes in the upper, as revrun runs it (overlay/fuse.c
# documents it; writeback/ reads it as WB_FORMAT_FUSE_OVERLAYFS): whiteouts
# are character devices 0/0, an opaque directory carries
# user.fuseoverlayfs.opaque="y" with ".wh..wh..opq" (empty file) and
# ".wh..opq" (0/0) inside, a copied-up file user.fuseoverlayfs.origin; never
# trusted.* nor a ".wh.NAME" whiteout file.
upper_markers() {
    local mode=$1 upper
    make_checkout "$mode" "$RR_TMP/co"
    make_bundle "$mode" fuse "$RR_TMP/co" "$RR_TMP/b" sh -c '
        echo more >> a.txt && rm b.txt && rm -r gone && mkdir gone && echo y > gone/y &&
        mv sub moved && mkdir newdir'
    cd "$RR_TMP/b"
    rr_as "$mode" create "$ID" </dev/null
    rr_as "$mode" start "$ID"
    wait_stopped "$mode" "$ID"
    [ "$(state_of "$mode" "$ID" 'd["revrun"]["exit"]["code"]')" = 0 ]
    upper="/proc/$(monitor_of "$mode" "$ID")/root$(realpath "$(rr_state_root "$mode")")/$ID/store/upper"
    cd "$upper"
    # deletions: whiteouts as character devices 0/0
    [ "$(stat -c '%F %t:%T' b.txt)" = "character special file 0:0" ]
    [ "$(stat -c '%F %t:%T' sub)" = "character special file 0:0" ]
    # a directory made again, a renamed one, a new one: opaque
    for d in gone moved newdir; do
        [ "$(getfattr --only-values -n user.fuseoverlayfs.opaque "$d")" = y ]
        [ "$(stat -c '%F %s' "$d/.wh..wh..opq")" = "regular empty file 0" ]
    done
    [ "$(stat -c '%F %t:%T' gone/.wh..opq)" = "character special file 0:0" ]
    [ "$(cat gone/y moved/c.txt moved/deep/d.txt)" = "$(printf 'y\nnested\ndeeper')" ]
    # a changed file: copied up whole, its origin noted
    [ "$(getfattr --only-values -n user.fuseoverlayfs.origin a.txt)" = a.txt ]
    [ "$(cat a.txt)" = "$(printf 'hello\nmore')" ]
    # nothing else: no trusted.* marker, no .wh.NAME whiteout file
    ! getfattr -R -h -d -m 'trusted\.' --absolute-names . 2>/dev/null | grep -q trusted || false
    [ -z "$(find . -name '.wh.*' ! -name .wh..wh..opq ! -name .wh..opq)" ]
}

@test "fuse (root): the upper holds fuse-overlayfs' whiteouts (char 0/0), opaque markers (user.fuseoverlayfs.opaque) and nothing else" {
    upper_markers root
}

@test "fuse (rootless): the upper holds fuse-overlayfs' whiteouts (char 0/0), opaque markers (user.fuseoverlayfs.opaque) and nothing else" {
    upper_markers user
}

@test "fuse fails closed: no fuse-overlayfs, an untrusted one, a relative path; nothing is left" {
    make_checkout root "$RR_TMP/co"
    make_bundle root fuse "$RR_TMP/co" "$RR_TMP/b" true
    cd "$RR_TMP/b"
    REVRUN_FUSE_OVERLAYFS=/does/not/exist run "$RR_BIN/revrun" --root "$RR_ROOT" run "$ID"
    assert_failure
    assert_output_contains 'revrun.overlay "fuse"'
    assert_output_contains "fuse-overlayfs /does/not/exist"
    cp "$(command -v fuse-overlayfs)" "$RR_TMP/fo"
    chmod 0775 "$RR_TMP/fo"
    REVRUN_FUSE_OVERLAYFS=$RR_TMP/fo run "$RR_BIN/revrun" --root "$RR_ROOT" run "$ID"
    assert_failure
    assert_output_contains "writable by group or others"
    REVRUN_FUSE_OVERLAYFS=fuse-overlayfs run "$RR_BIN/revrun" --root "$RR_ROOT" run "$ID"
    assert_failure
    assert_output_contains "an absolute path is needed"
    [ -z "$(ls -A "$RR_ROOT")" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "fuse (rootless) fails closed where /dev/fuse is not the user's (0600 here), saying how to fix it" {
    make_checkout user "$RR_TMP/co"
    make_bundle user fuse "$RR_TMP/co" "$RR_TMP/b" true
    cd "$RR_TMP/b"
    run as_user_host_fuse "$RR_BIN/revrun" run "$ID"
    assert_failure
    assert_output_contains "open /dev/fuse: Permission denied"
    assert_output_contains "sudo chmod 0666 /dev/fuse"
    [ -z "$(ls -A "$(rr_state_root user)")" ]
}

@test "fuse refuses a checkout whose top directory carries fuse-overlayfs' override xattrs" {
    make_checkout root "$RR_TMP/co"
    setfattr -n user.fuseoverlayfs.override_stat -v 0:0:04755 "$RR_TMP/co"
    make_bundle root fuse "$RR_TMP/co" "$RR_TMP/b" true
    cd "$RR_TMP/b"
    run rr_as root run "$ID"
    assert_failure
    assert_output_contains "carries user.fuseoverlayfs.override_stat"
}

# A committed ".wh.NAME" is a whiteout to fuse-overlayfs even in its one
# lower: the pull request would choose what the agent cannot see.
wh_checkout() {
    local mode=$1 co=$2
    make_checkout "$mode" "$co"
    echo "review me" >"$co/sub/evil.sh"
    : >"$co/sub/.wh.evil.sh"
    if [ "$mode" = user ]; then chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$co"; fi
}

fuse_refuses_whiteout_names() {
    local mode=$1
    wh_checkout "$mode" "$RR_TMP/co"
    make_bundle "$mode" fuse "$RR_TMP/co" "$RR_TMP/b" sh -c 'ls sub; echo AGENT-RAN'
    cd "$RR_TMP/b"
    run rr_as "$mode" run "$ID"
    assert_failure
    assert_output_contains 'the checkout holds sub/.wh.evil.sh, a name fuse-overlayfs takes for a whiteout (it would hide "evil.sh" from the agent): refused for the fuse backend'
    [[ "$output" != *AGENT-RAN* ]]
    [ -z "$(ls -A "$(rr_state_root "$mode")" 2>/dev/null)" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "fuse (root) refuses a checkout holding a .wh. name, which would hide a file from the agent; nothing is left" {
    fuse_refuses_whiteout_names root
}

@test "fuse (rootless) refuses a checkout holding a .wh. name; nothing is left" {
    fuse_refuses_whiteout_names user
}

@test "fuse refuses an opaque marker name (.wh..wh..opq) deep in the checkout" {
    make_checkout root "$RR_TMP/co"
    mkdir -p "$RR_TMP/co/sub/deep/er"
    : >"$RR_TMP/co/sub/deep/er/.wh..wh..opq"
    make_bundle root fuse "$RR_TMP/co" "$RR_TMP/b" true
    cd "$RR_TMP/b"
    run rr_as root run "$ID"
    assert_failure
    assert_output_contains "sub/deep/er/.wh..wh..opq"
    assert_output_contains "would make its directory opaque"
}

@test "auto shows such a checkout through native overlayfs, the file and its .wh. name both visible" {
    wh_checkout root "$RR_TMP/co"
    make_bundle root auto "$RR_TMP/co" "$RR_TMP/b" sh -c 'ls -a sub; cat sub/evil.sh'
    cd "$RR_TMP/b"
    run rr_as root run "$ID"
    assert_success
    assert_output_contains ".wh.evil.sh"
    assert_output_contains "review me"
}

@test "auto where native cannot mount refuses such a checkout, naming both reasons" {
    co=$(stacked_checkout root)
    echo "review me" >"$co/evil.sh"
    : >"$co/.wh.evil.sh"
    make_bundle root auto "$co" "$RR_TMP/b" sh -c 'echo AGENT-RAN'
    cd "$RR_TMP/b"
    run rr_as root run "$ID"
    assert_failure
    assert_output_contains "no overlay works here: native:"
    assert_output_contains "the checkout holds .wh.evil.sh"
    [[ "$output" != *AGENT-RAN* ]]
}

# auto on a checkout where kernel overlayfs refuses: fuse-overlayfs, with the
# kernel's reason shown, and state.json says so.
auto_falls_back() {
    local mode=$1 co
    co=$(stacked_checkout "$mode")
    make_bundle "$mode" auto "$co" "$RR_TMP/b" sh -c 'cat a.txt && echo new > new.txt && cat new.txt'
    cd "$RR_TMP/b"
    # (not under `run`: the created process holds create's output until it ends)
    rr_as "$mode" create "$ID" </dev/null >"$RR_TMP/create.out" 2>&1
    output=$(cat "$RR_TMP/create.out")
    assert_output_contains 'revrun.overlay "auto": kernel overlayfs cannot mount this checkout'
    assert_output_contains "using fuse-overlayfs"
    [ "$(state_of "$mode" "$ID" 'd["revrun"]["backend"]')" = fuse ]
    rr_as "$mode" start "$ID"
    wait_stopped "$mode" "$ID"
    [ "$(state_of "$mode" "$ID" 'd["revrun"]["exit"]["code"]')" = 0 ]
    rr_as "$mode" destroy "$ID"
    [ ! -e "$co/new.txt" ]
}

@test "auto (root) falls back to fuse-overlayfs on a checkout kernel overlayfs refuses (on a stacked overlay), saying why" {
    auto_falls_back root
}

@test "auto (rootless) falls back to fuse-overlayfs on a checkout kernel overlayfs refuses (stacking depth), saying why" {
    auto_falls_back user
}

@test "native on that checkout fails closed; auto without a usable fuse-overlayfs fails naming both reasons; nothing is left" {
    co=$(stacked_checkout root)
    make_bundle root native "$co" "$RR_TMP/b" true
    cd "$RR_TMP/b"
    run rr_as root run "$ID"
    assert_failure
    assert_output_contains "lower $co"
    set_config "$RR_TMP/b" 'c["revrun"]["overlay"] = "auto"'
    REVRUN_FUSE_OVERLAYFS=/does/not/exist run "$RR_BIN/revrun" --root "$RR_ROOT" run "$ID"
    assert_failure
    assert_output_contains "no overlay works here: native:"
    assert_output_contains "fuse-overlayfs /does/not/exist"
    [ -z "$(ls -A "$RR_ROOT")" ]
}

@test "check says which backends this host can use, and what rootless fuse needs here" {
    run "$RR_BIN/revrun" check
    assert_output_contains "fuse overlay       fuse-overlayfs mounts and serves"
    assert_output_contains 'native and fuse: "auto" uses native overlayfs'
    run as_user "$RR_BIN/revrun" check
    assert_output_contains "ok    /dev/fuse          mode 0666"
    assert_output_contains 'native and fuse: "auto" uses native overlayfs'
    run as_user_host_fuse "$RR_BIN/revrun" check
    assert_output_contains "warn  /dev/fuse          mode 0600: Permission denied"
    assert_output_contains "sudo chmod 0666 /dev/fuse"
    assert_output_contains 'native only: "auto" uses native overlayfs'
}

# ---- write-back over either backend's upper ----

# Every kind of change the write-back suites accept, made by the agent.
WB_CHANGES='echo more >> README && rm keep.txt && rm -r docs/old && mkdir docs/old &&
    echo c > docs/old/c.txt && mv src/lib src/library && chmod +x run.sh && ln -sfn keep2 link &&
    mkdir -p empty/deeper && printf "\000\377" >> blob.bin && rm -r docs2 && echo doc > docs2 &&
    rm keep2 && mkdir keep2 && echo in > keep2/in'

wb_checkout() {
    local mode=$1 d=$2
    mkdir -p "$d/docs/old" "$d/docs2" "$d/src/lib"
    printf 'hello\n' >"$d/README"
    printf 'keep\n' >"$d/keep.txt"
    printf 'keep2\n' >"$d/keep2"
    printf 'old a\n' >"$d/docs/old/a.txt"
    printf 'x\n' >"$d/docs2/x"
    printf 'int lib;\n' >"$d/src/lib/lib.c"
    printf '#!/bin/sh\n' >"$d/run.sh"
    printf 'bin\000ary' >"$d/blob.bin"
    ln -s README "$d/link"
    chmod -R a+rX "$d"
    if [ "$mode" = user ]; then chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$d"; fi
}

# revrun review over BACKEND: the verdict, and the digest of the change set.
review_with() {
    local mode=$1 backend=$2 out="$RR_TMP/out-$2"
    make_bundle "$mode" "$backend" "$RR_TMP/co" "$RR_TMP/b-$backend" true
    mkdir "$out"
    if [ "$mode" = user ]; then chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$out"; fi
    # one id for both (one after the other): the digest binds the review's id
    run rr_as "$mode" review --bundle "$RR_TMP/b-$backend" --lower "$RR_TMP/co" --out "$out" \
        --id "$ID-review" -- sh -c "$3"
}

result_of() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
        "$RR_TMP/out-$1/result.json" "$2"
}

# The same change set, to the digest, from either upper; applied, it makes
# exactly what the agent's script makes of a plain copy.
same_change_set() {
    local mode=$1
    wb_checkout "$mode" "$RR_TMP/co"
    cp -a "$RR_TMP/co" "$RR_TMP/expected"
    (cd "$RR_TMP/expected" && sh -c "$WB_CHANGES")
    for backend in native fuse; do
        review_with "$mode" "$backend" "$WB_CHANGES"
        assert_success
        [ "$(result_of "$backend" verdict)" = accept ]
    done
    [ "$(result_of fuse digest)" = "$(result_of native digest)" ]
    [ "$(result_of fuse changes)" = "$(result_of native changes)" ]
    cp -a "$RR_TMP/co" "$RR_TMP/target"
    "$RR_BIN/revrun" apply "$RR_TMP/out-fuse/changeset" --to "$RR_TMP/target" \
        --approve "$(result_of fuse digest)"
    diff <(wb_view "$RR_TMP/target") <(wb_view "$RR_TMP/expected")
}

@test "write-back (root): fuse-overlayfs' upper gives the change set native's does, to the digest, and it applies byte for byte" {
    same_change_set root
}

@test "write-back (rootless): fuse-overlayfs' upper gives the change set native's does, to the digest, and it applies byte for byte" {
    same_change_set user
}

@test "write-back: each backend's upper refuses the other's opaque marker, planted by the agent" {
    wb_checkout root "$RR_TMP/co"
    review_with root fuse 'mkdir d && setfattr -n user.overlay.opaque -v y d'
    [ "$status" -eq 5 ]
    grep -q "REFUSED d: .*user.overlay.opaque" "$RR_TMP/out-fuse/summary.txt"
    review_with root native 'mkdir d && setfattr -n user.fuseoverlayfs.opaque -v y d'
    [ "$status" -eq 5 ]
    grep -q "REFUSED d: .*user.fuseoverlayfs.opaque" "$RR_TMP/out-native/summary.txt"
}
