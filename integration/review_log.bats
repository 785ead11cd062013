#!/usr/bin/env bats
# What `revrun review` tells the operator: its phases on the job's log (text,
# --quiet, --json), the patch it writes, what state the agent left (failed,
# timed out, processes left running, a full upper) above the verdict, a
# refused set's digest never shown as an approvable one, and OUT handed to
# the sudo user. Judged from the outside: the job's stderr, OUT's files.

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout"
    echo "hello" >"$RR_TMP/checkout/a.txt"
    echo "keep" >"$RR_TMP/checkout/b.txt"
    chmod -R a+rX "$RR_TMP/checkout"
}

teardown() {
    rr_destroy_all
    "$RR_BIN/revrun" --root "$RR_ROOT" sweep >/dev/null 2>&1 || true
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$1/result.json" "$2"
}

# The line number of the first line of FILE matching the pattern.
line_of() {
    grep -n -m1 -- "$2" "$1" | cut -d: -f1
}

@test "review log: every phase is one 'revrun| ' line on stderr, the verdict with count and digest" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo working; echo changed >> a.txt; echo new > c.txt; rm b.txt'
    assert_success
    digest=$(result "$RR_TMP/out" '["digest"]')
    printf '%s\n' "$output" | grep '^revrun| ' >"$RR_TMP/phases"
    cat "$RR_TMP/phases" >&3
    grep -q '^revrun| bundle ready: ' "$RR_TMP/phases"
    grep -q '^revrun| agent started: sh -c echo working' "$RR_TMP/phases"
    grep -q '^revrun| agent exited with status 0 after ' "$RR_TMP/phases"
    grep -q '^revrun| vetting what the agent wrote$' "$RR_TMP/phases"
    grep -qx "revrun| verdict: accept, 3 changes, digest $digest" "$RR_TMP/phases"
    grep -qx "revrun| exported to $RR_TMP/out/changeset" "$RR_TMP/phases"
    grep -qx 'revrun| bundle destroyed' "$RR_TMP/phases"
    grep -qx "revrun| result: exit 0, written to $RR_TMP/out/result.json" "$RR_TMP/phases"
    # in that order, with the agent's own line between start and exit
    [ "$(cut -d' ' -f2 "$RR_TMP/phases" | tr '\n' ' ')" = \
        "bundle agent agent vetting verdict: exported bundle result: " ]
    [ "$(printf '%s\n' "$output" | grep -n 'agent| working' | cut -d: -f1)" -gt \
        "$(printf '%s\n' "$output" | grep -n 'agent started' | cut -d: -f1)" ]
}

@test "review log: a phase line escapes what it shows (no CI log command from the command line)" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'true "##[error]x" "$(printf "\033[2J")"'
    assert_success
    ! printf '%s\n' "$output" | grep -F '##[' || false
    ! printf '%s' "$output" | grep -q "$(printf '\033')" || false
    assert_output_contains 'revrun| agent started: sh -c true "\x23#[error]x"'
}

@test "review log: --quiet prints no phase, the agent's lines stay" {
    run rr review --quiet --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo working; echo changed >> a.txt'
    assert_success
    ! printf '%s\n' "$output" | grep -q '^revrun|' || false
    assert_output_contains 'agent| working'
    [ "$(result "$RR_TMP/out" '["verdict"]')" = accept ]
}

@test "review log: --json makes every stderr line one JSON object, phases in order" {
    run rr review --json --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo "##[warning]out"; echo changed >> a.txt'
    assert_success
    digest=$(result "$RR_TMP/out" '["digest"]')
    printf '%s\n' "$output" | python3 -c '
import json, sys
phases, agent = [], []
for line in sys.stdin.read().splitlines():
    d = json.loads(line)          # every line, or this fails
    if "phase" in d:
        phases.append(d)
    else:
        agent.append(d["agent"])
names = [p["phase"] for p in phases]
assert names == ["bundle", "started", "exited", "vetting", "verdict", "exported",
                 "destroyed", "result"], names
v = phases[4]
assert v["verdict"] == "accept" and v["changes"] == 1 and v["digest"] == sys.argv[1], v
assert phases[2]["exitStatus"] == 0, phases[2]
assert agent == ["\\x23#[warning]out"], agent
' "$digest"
}

@test "review log: OUT/changeset.patch is what diff --patch prints, and git apply makes the applied tree" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo changed >> a.txt; printf "x\rz\n" > cr.txt; rm b.txt; mkdir d; echo f > d/f'
    assert_success
    [ -s "$RR_TMP/out/changeset.patch" ]
    # the unsafe-content rules: a carriage return is shown as binary
    grep -q '^# revrun: cr.txt: the new content holds a carriage return' "$RR_TMP/out/changeset.patch"
    rr diff --patch "$RR_TMP/out" >"$RR_TMP/from-out.patch"
    cmp "$RR_TMP/out/changeset.patch" "$RR_TMP/from-out.patch"
    rr diff --patch "$RR_TMP/out/changeset" >"$RR_TMP/from-export.patch"
    cmp "$RR_TMP/out/changeset.patch" "$RR_TMP/from-export.patch"
    # the patch is the change: git apply on a copy gives what revrun apply gives
    cp -a "$RR_TMP/checkout" "$RR_TMP/by-git"
    cp -a "$RR_TMP/checkout" "$RR_TMP/by-revrun"
    git -C "$RR_TMP/by-git" apply "$RR_TMP/out/changeset.patch"
    rr apply "$RR_TMP/out" --to "$RR_TMP/by-revrun" --approve "$(result "$RR_TMP/out" '["digest"]')"
    diff -r "$RR_TMP/by-git" "$RR_TMP/by-revrun"
}

@test "review log: diff --json and diff of an exported set (not only of a live bundle)" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c 'echo changed >> a.txt'
    assert_success
    digest=$(result "$RR_TMP/out" '["digest"]')
    run rr diff --json "$RR_TMP/out"
    assert_success
    printf '%s' "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["digest"] == sys.argv[1] and d["verdict"] == "accept", d
assert [c["path"] for c in d["changes"]] == ["a.txt"], d' "$digest"
    run rr diff "$RR_TMP/out/changeset"
    assert_success
    [ "${lines[-1]}" = "digest: $digest" ]
    # a directory that holds no set is an error naming it, not "open state.json"
    run rr diff --patch "$RR_TMP/checkout"
    [ "$status" -eq 1 ]
    assert_output_contains "holds no change set"
}

@test "review log: a timed-out agent's summary and log say so above the verdict" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" --timeout 1 -- \
        sh -c 'echo half >> a.txt; sleep 30'
    [ "$status" -eq 4 ]
    note="the agent was killed after 1 s (its timeout): this change set is what it left, unfinished"
    grep -qxF "$note" "$RR_TMP/out/summary.txt"
    [ "$(line_of "$RR_TMP/out/summary.txt" "^$note")" -lt "$(line_of "$RR_TMP/out/summary.txt" '^verdict: ')" ]
    printf '%s\n' "$output" | grep -nxF "revrun| $note" >"$RR_TMP/n"
    [ "$(cut -d: -f1 "$RR_TMP/n")" -lt "$(printf '%s\n' "$output" | grep -n '^revrun| verdict:' | cut -d: -f1)" ]
}

@test "review log: an agent that exits 7 leaves a summary that says so, not a bare verdict" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c 'echo half >> a.txt; exit 7'
    [ "$status" -eq 1 ]
    note="the agent exited 7: this change set is what it left, unfinished"
    grep -qxF "$note" "$RR_TMP/out/summary.txt"
    [ "$(line_of "$RR_TMP/out/summary.txt" "^$note")" -lt "$(line_of "$RR_TMP/out/summary.txt" '^verdict: ')" ]
    assert_output_contains "revrun| $note"
    # a finished agent's summary has no such line
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out2" -- sh -c 'echo done >> a.txt'
    assert_success
    ! grep -q 'unfinished' "$RR_TMP/out2/summary.txt" || false
}

@test "review log: a refused review shows no approvable digest in summary.txt, result.json or the log" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c 'echo x >> a.txt; mkfifo pipe'
    [ "$status" -eq 5 ]
    refused=$(result "$RR_TMP/out" '["refusedDigest"]')
    [ "${#refused}" -eq 64 ]
    ! grep -q '^digest:' "$RR_TMP/out/summary.txt" || false
    grep -qx "refused set (not approvable): sha256 $refused" "$RR_TMP/out/summary.txt"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "digest" not in d, d' \
        "$RR_TMP/out/result.json"
    ! printf '%s\n' "$output" | grep -F "$refused" || false
    assert_output_contains "revrun| verdict: refuse, 1 change, 1 reason (nothing to approve"
}

@test "review log: a write past the upper's size cap shows in limitsHit and the summary, also when the agent deleted it before its exit" {
    rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/config.json"
    mkdir -p "$RR_TMP/bundle/rootfs"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["revrun"]["upperSize"]=2*1024*1024; json.dump(c,open(sys.argv[2],"w"))' \
        "$RR_TMP/config.json" "$RR_TMP/bundle/config.json"
    run rr review --bundle "$RR_TMP/bundle" --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo small >> a.txt; head -c 8388608 /dev/zero > big || echo "write failed"'
    assert_output_contains 'agent| write failed'
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "upperSize" in d["limitsHit"], d' \
        "$RR_TMP/out/result.json"
    grep -q 'the agent filled the upper to its size cap (2097152 bytes)' "$RR_TMP/out/summary.txt"
    # a run within the cap hits no limit
    run rr review --bundle "$RR_TMP/bundle" --lower "$RR_TMP/checkout" --out "$RR_TMP/out2" -- \
        sh -c 'echo small >> a.txt'
    assert_success
    [ "$(result "$RR_TMP/out2" '["limitsHit"]')" = "[]" ]
    # filled, then emptied before the agent exits: the monitor saw it full
    run rr review --bundle "$RR_TMP/bundle" --lower "$RR_TMP/checkout" --out "$RR_TMP/out3" -- \
        sh -c 'echo small >> a.txt; head -c 8388608 /dev/zero > big || echo "write failed"; sleep 3; rm -f big'
    assert_output_contains 'agent| write failed'
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "upperSize" in d["limitsHit"], d' \
        "$RR_TMP/out3/result.json"
    grep -q 'the agent filled the upper to its size cap' "$RR_TMP/out3/summary.txt"
}

@test "review log: processes the agent left running are counted and named (escaped) in the summary" {
    # comm is the name the program was run by: a symlink in the container's
    # /tmp gives one with a terminal's control sequence in it
    cat >"$RR_TMP/checkout/leave.sh" <<'EOF'
name="ev$(printf '\033')]0;x$(printf '\007')il"
ln -s "$(command -v sleep)" "/tmp/$name"
"/tmp/$name" 1000 &
sh -c 'sleep 1000; :' &
sleep 1000 &
# all of them must be what they will be when the agent exits: no timing guess
while [ "$(cat /proc/$!/comm)" != sleep ]; do :; done
while [ "$(grep -l '^sleep$' /proc/[0-9]*/comm 2>/dev/null | wc -l)" -lt 2 ]; do :; done
while ! grep -q '^ev' /proc/[0-9]*/comm 2>/dev/null; do :; done
echo left >> a.txt
EOF
    chmod a+r "$RR_TMP/checkout/leave.sh"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh leave.sh
    assert_success
    line=$(grep '^the agent left ' "$RR_TMP/out/summary.txt")
    echo "$line" >&3
    # the sh that waits for its sleep, that sleep, the lone sleep and the renamed one
    [[ "$line" == "the agent left 4 processes running; revrun killed them at its exit: "* ]]
    [[ "$line" == *"ev\\x1b]0;x\\x07il"* ]]
    [ "$(grep -o sleep <<<"$line" | wc -l)" -eq 2 ]
    ! LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]' "$RR_TMP/out/summary.txt" || false
    [ "$(result "$RR_TMP/out" '["leftoverProcesses"]["killed"]')" = 4 ]
    assert_output_contains "revrun| the agent left 4 processes running"
    # an agent that leaves nothing: no such line
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out2" -- sh -c 'echo x >> a.txt'
    ! grep -q 'the agent left' "$RR_TMP/out2/summary.txt" || false
}

@test "review log: under sudo (SUDO_UID) OUT is the invoking user's, so apply needs no sudo" {
    mkdir "$RR_TMP/out"
    echo mine >"$RR_TMP/out/operator-note" # OUT's own file, from before: left as it was
    run env SUDO_UID="$REVRUN_TEST_UID" SUDO_GID="$REVRUN_TEST_GID" \
        "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$RR_TMP/checkout" --out "$RR_TMP/out/o" -- \
        sh -c 'echo changed >> a.txt; echo new > c.txt'
    assert_success
    # everything revrun wrote, OUT included (it made it), is the user's
    [ -z "$(find "$RR_TMP/out/o" \( ! -uid "$REVRUN_TEST_UID" -o ! -gid "$REVRUN_TEST_GID" \) -print)" ]
    [ "$(find "$RR_TMP/out/o" -type f | wc -l)" -ge 6 ]
    [ "$(stat -c %u "$RR_TMP/out/operator-note")" = 0 ]
    # the user applies it onto their own clone, without sudo
    cp -a "$RR_TMP/checkout" "$RR_TMP/clone"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/clone"
    chmod a+x "$RR_TMP/out"
    run as_user "$RR_BIN/revrun" apply "$RR_TMP/out/o" --to "$RR_TMP/clone" \
        --approve "$(result "$RR_TMP/out/o" '["digest"]')"
    assert_success
    [ "$(cat "$RR_TMP/clone/c.txt")" = new ]
}

@test "review log: under sudo a file in a pre-existing OUT that revrun did not write stays root's" {
    mkdir "$RR_TMP/out"
    echo before >"$RR_TMP/out/keep.txt"
    run env SUDO_UID="$REVRUN_TEST_UID" SUDO_GID="$REVRUN_TEST_GID" \
        "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo changed >> a.txt'
    assert_success
    [ "$(stat -c %u "$RR_TMP/out/keep.txt")" = 0 ]
    [ "$(stat -c %u "$RR_TMP/out")" = 0 ] # not made by revrun: not handed over
    [ "$(stat -c %u "$RR_TMP/out/summary.txt")" = "$REVRUN_TEST_UID" ]
    [ "$(stat -c %u "$RR_TMP/out/changeset/manifest.json")" = "$REVRUN_TEST_UID" ]
}

@test "review log: rootless, the phases and the notes are the same" {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
    mkdir "$RR_TMP/uout"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/uout"
    run as_user "$RR_BIN/revrun" review --lower "$RR_TMP/checkout" --out "$RR_TMP/uout/o" -- \
        sh -c 'echo rootless >> a.txt; sleep 1000 & while [ "$(cat /proc/$!/comm)" != sleep ]; do :; done; exit 3'
    [ "$status" -eq 1 ]
    assert_output_contains "revrun| agent exited with status 3"
    assert_output_contains "revrun| verdict: accept, 1 change, digest "
    grep -qx "the agent exited 3: this change set is what it left, unfinished" "$RR_TMP/uout/o/summary.txt"
    grep -qx "the agent left 1 process running; revrun killed it at its exit: sleep" "$RR_TMP/uout/o/summary.txt"
    as_user "$RR_BIN/revrun" diff --patch "$RR_TMP/uout/o" | cmp - "$RR_TMP/uout/o/changeset.patch"
}

@test "review log: under sudo a hard link planted in a user's OUT during the run is not chowned" {
    mkdir "$RR_TMP/out"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/out" # the user's own OUT
    echo secret >"$RR_TMP/rootfile"
    SUDO_UID="$REVRUN_TEST_UID" SUDO_GID="$REVRUN_TEST_GID" \
        "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" \
        -- sh -c 'echo changed >> a.txt; echo started; sleep 60' >"$RR_TMP/review.out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        grep -q started "$RR_TMP/out/agent.log" 2>/dev/null && break
        sleep 0.1
    done
    # what the user could do in their OUT while root's review runs
    ln "$RR_TMP/rootfile" "$RR_TMP/out/planted"
    kill -TERM "$pid"
    wait "$pid" || true
    [ "$(stat -c %u "$RR_TMP/rootfile")" = 0 ]
    [ "$(stat -c %u "$RR_TMP/out/result.json")" = "$REVRUN_TEST_UID" ]
}
