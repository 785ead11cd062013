#!/usr/bin/env bats
# Engine mode's activity record (docs/activity.md, the host policy's
# "activity": "record"): create leaves a recorder outside the container that
# answers the floor's notification of each exec; the record is in the state
# directory for `revrun activity ID`. Driven as an engine drives revrun
# (create and start under a child subreaper, as the shim and conmon are),
# judged from the host: the record's lines, what the subreaper reaped (the
# recorder ends with the container), what a container whose recorder was
# killed could run.

load helpers
load engine_bundle

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-engact.XXXXXX)
    eng_image "$ENG_DIR"
}

teardown_file() {
    rm -rf "$ENG_DIR"
}

setup() {
    RT=$ENG_DIR/revrun
    B=$(mktemp -d /tmp/revrun-engact-b.XXXXXX)
    chmod 0755 "$B"
    RECORD='{"engine": {"activity": "record"}}'
}

teardown() {
    local p
    "$RT" --root "$B/state" delete --force c1 >/dev/null 2>&1 || true
    # what a test left under its subreaper (a recorder that did not end)
    [ -f "$B/reaped.pid" ] && pkill -9 -P "$(cat "$B/reaped.pid")" 2>/dev/null
    for p in $(recorder_of_b); do kill -9 "$p"; done
    grep -F " $B" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$B"
}

# The recorders writing a record under $B (by the file they hold).
recorder_of_b() {
    local p
    for p in $(pgrep -x revrun-recorder); do
        ls -l "/proc/$p/fd" 2>/dev/null | grep -qF "$B/state/" && echo "$p"
    done
    return 0
}

# create_c1 [WRAPPER...]: create c1 seeing the recording policy (WRAPPER
# before revrun: prlimit, say); its output in $B/out, shown if it fails.
create_c1() {
    with_policy "$RECORD" "$@" "$RT" --root "$B/state" create --bundle "$B" c1 \
        </dev/null >"$B/out" 2>&1 || {
        cat "$B/out"
        false
    }
}

# assert_never_ran TEXT: after a start the recorder could not take, c1 is
# stopped, its output names TEXT and its program (echo RAN) never ran.
assert_never_ran() {
    for _ in $(seq 100); do
        "$RT" --root "$B/state" state c1 | grep -q '"status": *"stopped"' && break
        sleep 0.1
    done
    cat "$B/out"
    "$RT" --root "$B/state" state c1 | grep -q '"status": *"stopped"'
    grep -q "$1" "$B/out"
    ! grep -q "^RAN" "$B/out" || false
}

# create (seeing POLICY) and start c1 under a child subreaper; returns once
# the subreaper has reaped every process left (the container's and the
# recorder), each in $B/reaped. The container's output is in $B/out.
run_reaped() {
    timeout 120 python3 "$BATS_TEST_DIRNAME/engines/subreaper.py" "$B/reaped" -- \
        bash -c "$(declare -f with_policy)"'
        with_policy "$1" "$2" --root "$3/state" --log "$3/log" create --bundle "$3" c1 \
            </dev/null >"$3/out" 2>&1 || { cat "$3/out"; exit 1; }
        "$2" --root "$3/state" start c1' sh "$POLICY" "$RT" "$B"
}

# await_started FILE: up to 30 s for the container's processes to say
# "started" in FILE
await_started() {
    for _ in $(seq 300); do
        grep -q started "$1" && return 0
        sleep 0.1
    done
    grep -q started "$1"
}

# aq EXPR / assert_aq EXPR: act_query and act_assert (helpers.bash) over
# $B/activity.jsonl
aq() { act_query "$B/activity.jsonl" "$1"; }
assert_aq() { act_assert "$B/activity.jsonl" "$1"; }

# The container's program: a program with hostile arguments, a detached
# grandchild in a session of its own, and an exit status.
SCRIPT='/bin/true a "b c" "$1" "$2"; /bin/setsid /bin/sh -c "exec /bin/echo grandchild"; sleep 0; exit 3'

@test "the policy's activity \"record\": every program an engine container runs is recorded from outside, escaped, with pid 1's exit; the recorder ends with the container" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', '''$SCRIPT''', 'sh', '\x1b]0;pwned\x07\x1b[2J', '::set-output name=x::y']"
    POLICY=$RECORD run run_reaped
    echo "$output"
    assert_success
    grep -q "activity: every exec of the container is recorded (policy engine)" "$B/log"
    grep -q "^grandchild$" "$B/out"
    # the container's process (exit 3) and the recorder (0), nothing else
    # (create's intermediate children are reaped by create itself)
    sort -n -k2 "$B/reaped"
    [ "$(awk '{print $2}' "$B/reaped" | sort -n | tr '\n' ' ')" = "0 768 " ]
    "$RT" --root "$B/state" activity c1 >"$B/activity.jsonl"
    assert_aq "r[0]['type'] == 'activity' and r[-1]['type'] == 'end' and not r[-1]['capped']"
    assert_aq "execs[0]['pid'] == 1 and execs[0]['argv'][:2] == ['/bin/sh', '-c'] and execs[0]['seq'] == 1"
    assert_aq "ran('/bin/true', 'a', 'b c')[0]['argv'][3] == '\\\\x1b]0;pwned\\\\x07\\\\x1b[2J'"
    assert_aq "ran('/bin/true', 'a', 'b c')[0]['argv'][4] == '\\\\x3a:set-output name=x::y'"
    assert_aq "ran('/bin/true', 'a', 'b c')[0]['ppid'] == 1"
    # the grandchild: setsid, then the shell it started, then echo (the shell's exec)
    assert_aq "len(ran('/bin/setsid')) == 1 and len(ran('/bin/echo', 'grandchild')) == 1"
    assert_aq "ran('/bin/echo', 'grandchild')[0]['ppid'] == 1 and ran('/bin/echo', 'grandchild')[0]['pid'] != 1"
    # exits: pid 1's own status, the programs' statuses
    assert_aq "exits[1]['status'] == 3 and exits[1]['pid'] == 1"
    # busybox runs its applet through the caller's own /proc/self/exe: not
    # revrun's to look up, so no "found" either way
    assert_aq "[(x['path'], 'found' in x) for x in ran('sleep', '0')] == [('/proc/self/exe', False)]"
    assert_aq "exits[ran('/bin/true', 'a', 'b c')[0]['seq']]['status'] == 0"
    assert_aq "exits[ran('/bin/echo', 'grandchild')[0]['seq']]['status'] == 0"
    # nothing the container chose reaches the file raw
    ! grep -q $'\x1b' "$B/activity.jsonl" || false
    ! grep -q '::set-output' "$B/activity.jsonl" || false
    run "$RT" --root "$B/state" activity --summary c1
    echo "$output"
    assert_success
    [[ "$output" == *"programs by count"* ]]
    [[ "$output" == *"/bin/true"* ]]
    # delete takes the record with the state directory
    "$RT" --root "$B/state" delete c1
    run "$RT" --root "$B/state" activity c1
    assert_failure
}

@test "the policy's activityRoot keeps each finished record as ID.jsonl (root's, 0600), never replacing one; a root others may write is refused" {
    local pol="{\"engine\": {\"activity\": \"record\", \"activityRoot\": \"$B/kept\"}}"
    bundle "c['process']['args'] = ['/bin/sh', '-c', '/bin/true first; exit 3']"
    POLICY=$pol run run_reaped
    echo "$output"
    assert_success
    grep -q "kept once it ends as $B/kept/c1.jsonl" "$B/log"
    "$RT" --root "$B/state" activity c1 >"$B/activity.jsonl"
    # the same bytes, once the last line is written
    cmp "$B/activity.jsonl" "$B/kept/c1.jsonl"
    assert_aq "r[-1]['type'] == 'end' and exits[1]['status'] == 3"
    [ "$(stat -c '%u %a' "$B/kept")" = "0 700" ]
    [ "$(stat -c '%u %a' "$B/kept/c1.jsonl")" = "0 600" ]
    "$RT" --root "$B/state" delete c1
    # the id again: the first record stays, the second is c1@1.jsonl
    bundle "c['process']['args'] = ['/bin/true', 'second']"
    POLICY=$pol run run_reaped
    assert_success
    grep -q '"argv":\["/bin/sh","-c","/bin/true first; exit 3"\]' "$B/kept/c1.jsonl"
    grep -q '"argv":\["/bin/true","second"\]' "$B/kept/c1@1.jsonl"
    [ "$(ls -A "$B/kept" | wc -l)" = 2 ]
    "$RT" --root "$B/state" delete c1
    # a root another user could write into (or swap files in) is refused at create
    chmod 0777 "$B/kept"
    POLICY=$pol run run_reaped
    echo "$output"
    assert_failure
    [[ "$output" == *"activityRoot $B/kept must be root's and writable by nobody else"* ]]
    [ "$(wc -l <"$B/reaped")" = 0 ]
    # so is one below a directory others may change (they could swap the
    # root for a symlink to any directory of root's)
    chmod 0700 "$B/kept"
    mkdir -m 0777 "$B/open"
    POLICY="{\"engine\": {\"activity\": \"record\", \"activityRoot\": \"$B/open/kept\"}}" run run_reaped
    echo "$output"
    assert_failure
    [[ "$output" == *"as every directory above it (open)"* ]]
    [ ! -e "$B/open/kept" ]
}

@test "a container that fills its record has its next execs refused, never run unrecorded; the last line counts them" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', 'A=\$(head -c 4000 /dev/zero | tr \"\\\\0\" x); i=0; while [ \$i -lt 700 ]; do /bin/true \$A \$A \$A \$A 2>/dev/null; i=\$((i+1)); done; /bin/echo AFTER || echo REFUSED']"
    POLICY=$RECORD run run_reaped
    echo "$output"
    assert_success
    cat "$B/out"
    grep -q "^REFUSED$" "$B/out"
    ! grep -q "AFTER" "$B/out" || false
    "$RT" --root "$B/state" activity c1 >"$B/activity.jsonl"
    assert_aq "r[-1]['type'] == 'end' and r[-1]['capped'] and r[-1]['refused'] > 100"
    assert_aq "r[-1]['more']['execs'] == 0 and not ran('/bin/echo', 'AFTER')"
    [ "$(stat -c %s "$B/activity.jsonl")" -le 8388608 ]
}

@test "a recorder sent SIGTERM finishes and keeps the record; the container's next exec fails" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', '/bin/true before; read x; /bin/echo AFTER || echo FAILED; sleep 1000']"
    with_policy "{\"engine\": {\"activity\": \"record\", \"activityRoot\": \"$B/kept\"}}" \
        "$RT" --root "$B/state" create --bundle "$B" c1 <"$B/fifo-not-yet" >"$B/out" 2>&1 &&
        false || true
    mkfifo "$B/in"
    with_policy "{\"engine\": {\"activity\": \"record\", \"activityRoot\": \"$B/kept\"}}" \
        "$RT" --root "$B/state" create --bundle "$B" c1 <"$B/in" >"$B/out" 2>&1 &
    exec 7>"$B/in"
    wait $!
    "$RT" --root "$B/state" start c1
    for _ in $(seq 50); do grep -q '"before"' "$B/state/c1/activity.jsonl" 2>/dev/null && break; sleep 0.1; done
    run recorder_of_b
    [ -n "$output" ]
    kill -TERM $output
    for _ in $(seq 50); do [ -s "$B/kept/c1.jsonl" ] && break; sleep 0.1; done
    tail -1 "$B/kept/c1.jsonl" | grep -q '"type":"end"'
    grep -q '"argv":\["/bin/true","before"\]' "$B/kept/c1.jsonl"
    echo go >&7
    exec 7>&-
    for _ in $(seq 50); do grep -q FAILED "$B/out" && break; sleep 0.1; done
    cat "$B/out"
    grep -q "^FAILED$" "$B/out"
    ! grep -q "^AFTER" "$B/out" || false
}

@test "the activity record is the policy's choice: off by default, a named policy may record, any other value is refused naming the field" {
    bundle "c['process']['args'] = ['/bin/true', 'x']"
    POLICY='{"engine": {}}' run run_reaped
    echo "$output"
    assert_success
    # the container's process alone: no recorder was left
    [ "$(wc -l <"$B/reaped")" = 1 ]
    ! grep -q "activity" "$B/log" || false
    run "$RT" --root "$B/state" activity c1
    echo "$output"
    assert_failure
    [[ "$output" == *"has no activity record"* ]]
    "$RT" --root "$B/state" delete c1
    # io.revrun.policy names one that records
    bundle "c['process']['args'] = ['/bin/true', 'named']" \
        "c.setdefault('annotations', {})['io.revrun.policy'] = 'rec'"
    POLICY='{"engine": {}, "policies": {"rec": {"activity": "record"}}}' run run_reaped
    echo "$output"
    assert_success
    [ "$(wc -l <"$B/reaped")" = 2 ]
    grep -q "recorded (policy rec)" "$B/log"
    "$RT" --root "$B/state" activity c1 >"$B/activity.jsonl"
    assert_aq "[x['argv'] for x in execs] == [['/bin/true', 'named']]"
    "$RT" --root "$B/state" delete c1
    # a value that is neither is refused (a typo must not record nothing)
    POLICY='{"engine": {"activity": "on"}}' run run_reaped
    echo "$output"
    assert_failure
    [[ "$output" == *'engine.activity: "off" or "record"'* ]]
}

@test "a container whose recorder is gone runs nothing: its start fails, naming the record, and the program never ran" {
    bundle "c['process']['args'] = ['/bin/echo', 'RAN']"
    create_c1
    run recorder_of_b
    echo "recorder: $output"
    [ -n "$output" ]
    kill -9 $output
    "$RT" --root "$B/state" start c1 || true
    assert_never_ran "activity record: hand the exec listener to revrun's recorder"
}

@test "revrun exec into a recording container (an engine's exec, a probe) is recorded too; with its recorder gone the exec fails" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', 'exec /bin/sleep 1000']"
    create_c1
    "$RT" --root "$B/state" start c1
    # its execs, and those of what it runs
    run timeout 20 "$RT" --root "$B/state" exec c1 /bin/sh -c '/bin/echo from-exec'
    echo "$output"
    assert_success
    [ "$output" = from-exec ]
    for _ in $(seq 50); do
        "$RT" --root "$B/state" activity c1 >"$B/activity.jsonl"
        # the last of them: the one whose argv is the echo's own
        grep -qF '"argv":["/bin/echo","from-exec"]' "$B/activity.jsonl" && break
        sleep 0.1
    done
    assert_aq "[x['argv'] for x in execs] == [['/bin/sh', '-c', 'exec /bin/sleep 1000'], ['/bin/sleep', '1000'], ['/bin/sh', '-c', '/bin/echo from-exec'], ['/bin/echo', 'from-exec']]"
    # the exec'd process's parent is outside the container
    assert_aq "ran('/bin/sh', '-c', '/bin/echo from-exec')[0]['ppid'] == 0"
    # no recorder: the exec is refused before anything runs in the container
    rec=$(recorder_of_b)
    [ -n "$rec" ]
    kill -9 "$rec"
    # gone, not dying: a connect to a dying recorder is reset instead (the
    # exec fails all the same, in other words)
    for _ in $(seq 100); do [ -d "/proc/$rec" ] || break; sleep 0.05; done
    run timeout 20 "$RT" --root "$B/state" exec c1 /bin/echo unrecorded
    echo "$output"
    assert_failure
    [[ "$output" == *"the container's recorder is gone"* ]]
    [[ "$output" != *unrecorded$'\n'* ]]
    [ "$(printf '%s\n' "$output" | grep -cx unrecorded)" = 0 ]
    "$RT" --root "$B/state" kill c1 KILL
}

@test "a container that uses up its recorder's fds (a pidfd a process) gets a refused exec at once, not a hung one" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', 'i=0; while [ \$i -lt 1100 ]; do /bin/sleep 1000 & i=\$((i+1)); done; echo started; wait']" \
        "c['process']['rlimits'] = [{'type': 'RLIMIT_NOFILE', 'hard': 1024, 'soft': 1024}]"
    create_c1 prlimit --nofile=1024:1024
    "$RT" --root "$B/state" start c1
    await_started "$B/out"
    # the recorder at its limit
    [ "$(ls "/proc/$(recorder_of_b)/fd" | wc -l)" -ge 1020 ]
    run timeout -k 5 30 "$RT" --root "$B/state" exec c1 /bin/echo unrecorded
    echo "$output"
    # neither timed out nor killed by timeout, nor run
    [ "$status" != 124 ]
    [ "$status" != 137 ]
    [ "$status" != 0 ]
    [ "$(printf '%s\n' "$output" | grep -cx unrecorded)" = 0 ]
    "$RT" --root "$B/state" kill c1 KILL
}

@test "a recorder out of fds before the start: the start fails saying why, not hung, and the container's program never runs" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', 'echo RAN']" \
        "c['process']['rlimits'] = [{'type': 'RLIMIT_NOFILE', 'hard': 1024, 'soft': 1024}]"
    create_c1 prlimit --nofile=1024:1024
    # processes exec'd into the created container: a pidfd each in the recorder
    "$RT" --root "$B/state" exec -d c1 /bin/sh -c \
        'i=0; while [ $i -lt 1100 ]; do /bin/sleep 1000 & i=$((i+1)); done; echo started; wait' \
        </dev/null >"$B/exec.out" 2>&1
    await_started "$B/exec.out"
    [ "$(ls "/proc/$(recorder_of_b)/fd" | wc -l)" -ge 1020 ]
    # the start ends (it hung waiting for the recorder's answer) and the
    # init fails, as with a recorder that is gone (the test above)
    run timeout -k 5 30 "$RT" --root "$B/state" start c1
    echo "$output"
    [ "$status" != 124 ]
    [ "$status" != 137 ]
    assert_never_ran "the recorder could not take the listener (out of file descriptors"
}

@test "the recorder's 64 exec slots in use (exec'd processes still running): the next exec is refused saying so, runs nothing, and gets a slot once one is free" {
    bundle "c['process']['args'] = ['/bin/sh', '-c', 'exec /bin/sleep 1000']"
    create_c1
    "$RT" --root "$B/state" start c1
    # a listener is held until every process under it has ended
    for i in $(seq 64); do
        "$RT" --root "$B/state" exec -d --pid-file "$B/x$i.pid" c1 /bin/sleep 1000
    done
    run timeout 20 "$RT" --root "$B/state" exec c1 /bin/echo unrecorded
    echo "$output"
    [ "$status" = 255 ]
    [[ "$output" == *"holds 64 exec'd processes' listeners"*"no room for this one"* ]]
    [ "$(printf '%s\n' "$output" | grep -cx unrecorded)" = 0 ]
    # one ends: its slot is free again
    kill -9 "$(cat "$B/x1.pid")"
    for _ in $(seq 50); do
        run timeout 20 "$RT" --root "$B/state" exec c1 /bin/echo recorded
        [ "$status" = 0 ] && break
        sleep 0.1
    done
    assert_success
    [ "$output" = recorded ]
    for _ in $(seq 50); do
        "$RT" --root "$B/state" activity c1 >"$B/activity.jsonl"
        grep -q '"recorded"' "$B/activity.jsonl" && break
        sleep 0.1
    done
    assert_aq "len(ran('/bin/sleep', '1000')) == 65 and len(ran('/bin/echo', 'recorded')) == 1 and not ran('/bin/echo', 'unrecorded')"
    "$RT" --root "$B/state" kill c1 KILL
}
