#!/usr/bin/env bats
# The activity record (docs/activity.md): what the agent executed and what it
# requested through the broker, recorded by revrun's monitor outside the
# sandbox. Judged from the host: OUT/activity.jsonl, summary.txt,
# report.json, `revrun activity`, what the fake upstream received. Root and
# rootless.

load helpers
load egress_helpers

setup_file() {
    export EG_CERTS="$BATS_FILE_TMPDIR/certs"
    eg_make_certs "$EG_CERTS"
}

setup() {
    eg_setup
    mkdir -p "$RR_TMP/checkout"
    echo hello >"$RR_TMP/checkout/a.txt"
    chmod -R a+rX "$RR_TMP/checkout"
    OUT="$RR_TMP/out"
}

teardown() {
    pkill -CONT -x revrun-monitor || true # a test that stopped one
    rr_destroy_all
    rr_destroy_all "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"
    eg_teardown
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# review root|rootless [flags...] -- CMD...: OUT is $OUT either way; the
# probes are at /probes inside.
review() {
    local mode=$1
    shift
    if [ "$mode" = rootless ]; then
        chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
        mkdir -p "$OUT"
        chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT"
        as_user "$RR_BIN/revrun" review --lower "$RR_TMP/checkout" --out "$OUT" --timeout 600 \
            --bind "$RR_BIN:/probes" "$@"
    else
        rr review --lower "$RR_TMP/checkout" --out "$OUT" --timeout 600 --bind "$RR_BIN:/probes" "$@"
    fi
}

# aq EXPR / assert_aq EXPR: act_query and act_assert (helpers.bash) over
# $OUT/activity.jsonl
aq() { act_query "$OUT/activity.jsonl" "$1"; }
assert_aq() { act_assert "$OUT/activity.jsonl" "$1"; }

# ---- what ran ----

# sh -c, a script the agent wrote and then ran, and a detached grandchild
# that outlives the agent (its own session, its parent gone) until revrun
# ends the container. The agent waits (builtins only: no exec of its own)
# until the grandchild is sleep: its exec waited for the monitor's answer,
# so it is in the record whatever the machine's load.
agent_session() {
    review "$1" -- sh -c 'printf "#!/bin/sh\n/bin/echo from-the-script \"\$@\"\n" > run.sh
        chmod +x run.sh; ./run.sh arg1
        sh -c "/bin/echo via-sh-c"
        setsid /bin/sleep 600 </dev/null >/dev/null 2>&1 &
        i=0; until read c </proc/$!/comm && [ "$c" = sleep ]; do
            i=$((i + 1)); [ $i -lt 100000 ] || break; done 2>/dev/null
        /bin/sleep 0.5; exit 0'
}

assert_session() {
    assert_success
    [ "$(sed -n 1p "$OUT/activity.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["type"])')" = activity ]
    # the agent itself, pid 1's child, as seen in the container
    assert_aq "execs[0]['argv'][:2] == ['sh', '-c'] and execs[0]['ppid'] == 1 and execs[0]['cwd'] == '/workspace'"
    # the script it wrote, run by its path, and what the script ran
    assert_aq "ran('./run.sh', 'arg1')[0]['found'] is True"
    assert_aq "ran('/bin/echo', 'from-the-script', 'arg1')[0]['ppid'] == ran('./run.sh', 'arg1')[0]['pid']"
    assert_aq "len(ran('/bin/echo', 'via-sh-c')) == 1"
    # the grandchild: started, and ended by revrun (SIGKILL) after the
    # agent had exited normally
    assert_aq "exits[ran('/bin/sleep', '600')[0]['seq']]['signal'] == 9"
    assert_aq "exits[execs[0]['seq']]['status'] == 0"
    assert_aq "exits[ran('/bin/sleep', '600')[0]['seq']]['time'] >= exits[execs[0]['seq']]['time']"
    assert_aq "r[-1]['type'] == 'end' and r[-1]['capped'] is False"
    # summed up for the operator
    grep -q '^activity: [0-9]* programs run' "$OUT/summary.txt"
    grep -qE '^ +2  /bin/sleep$' "$OUT/summary.txt"
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["activity"]; assert a["programs"] >= 6 and not a["capped"]' "$OUT/report.json"
}

@test "activity: sh -c, a script the agent wrote, and a setsid grandchild killed at the end" {
    run agent_session root
    assert_session
}

@test "activity (rootless): sh -c, a script the agent wrote, and a setsid grandchild" {
    run agent_session rootless
    assert_session
}

# ---- the agent's own sandbox ----

# bwrap with its own pid namespace and its own seccomp filter (allow-all,
# stacked on revrun's); inside it, a filter of the agent's own again; and an
# attempt at a listener of its own, which would take the exec notifications
# first.
nested_session() {
    printf '\006\000\000\000\000\000\377\177' >"$RR_TMP/allow.bpf"
    chmod 0644 "$RR_TMP/allow.bpf"
    review "$1" --nested-sandboxes --bind "$RR_TMP/allow.bpf:/allow.bpf" -- sh -c '
        bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
            --symlink usr/lib64 /lib64 --ro-bind /probes /probes --unshare-pid --proc /proc \
            --dev /dev --seccomp 9 sh -c "/bin/echo nested-mark; /probes/ownfilter allow" 9</allow.bpf
        echo bwrap=$?
        /probes/ownfilter listener'
}

assert_nested() {
    assert_success
    grep -q '^bwrap=0$' "$OUT/agent.log"
    assert_aq "ran('/bin/echo', 'nested-mark')[0]['nested'] == 1"
    assert_aq "ran('echo', 'ownfilter-allow')[0]['nested'] == 1"
    # the agent's own listener is refused: its exec is recorded all the same
    grep -q '^listener=EPERM$' "$OUT/agent.log"
    assert_aq "len(ran('echo', 'ownfilter-listener')) == 1"
    grep -q 'of the programs ran inside the agent.s own sandbox' "$OUT/summary.txt"
}

@test "activity: programs in the agent's own bwrap, under its own filters, are recorded" {
    command -v bwrap >/dev/null || skip "bubblewrap is not installed"
    run nested_session root
    assert_nested
}

@test "activity (rootless): programs in the agent's own bwrap are recorded" {
    command -v bwrap >/dev/null || skip "bubblewrap is not installed"
    run nested_session rootless
    assert_nested
}

@test "activity: after 10000 refused unshares the agent still cannot answer its own (no record)" {
    # without the record the monitor lets go of its listener past its count;
    # the floor still refuses a listener of the agent's own, which would
    # otherwise answer CONTINUE to its own unshare
    run review root --no-activity -- /probes/ownfilter unshare 10005
    assert_success
    grep -q '^listener=EPERM$' "$OUT/agent.log"
    grep -q '^unshare=ENOSYS$' "$OUT/agent.log"
    [ ! -e "$OUT/activity.jsonl" ]
    grep -q 'activity: not recorded' "$OUT/summary.txt"
}

# ---- the broker ----

broker_session() {
    cp "$EG_CERTS/ca.pem" "$EG/ca.pem"
    chmod 0644 "$EG/ca.pem"
    [ "$1" = rootless ] && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$EG" "$EG/key"
    review "$1" --upstream "https://localhost:$EG_UP_PORT" --credential-file "$EG/key" \
        --ca-file "$EG/ca.pem" -- sh -c '
        printf "POST /v1/messages?q=secretquery HTTP/1.1\r\nHost: x\r\nx-api-key: dummy\r\nContent-Length: 11\r\n\r\nsecret-body" | /probes/egress_http -p 8080
        printf "GET /v2/elsewhere HTTP/1.1\r\nHost: x\r\n\r\n" | /probes/egress_http -p 8080
        true'
}

assert_broker() {
    assert_success
    eg_expect_recorded 1
    assert_aq "[(x['method'], x['path'], x['status']) for x in reqs] == [('POST', '/v1/messages', 200), ('GET', '/v2/elsewhere', 404)]"
    assert_aq "reqs[0]['credential'] is True and reqs[1]['credential'] is False"
    assert_aq "reqs[0]['bytesUp'] > 11 and reqs[0]['bytesDown'] > 0 and reqs[0]['ms'] >= 0"
    # never the key (nowhere: the agent never had it); a request's record
    # has no query, body or header value either (the agent's command line,
    # recorded as its exec, has all three)
    ! grep -q "$EG_KEY" "$OUT/activity.jsonl" || false
    assert_aq "[s for x in reqs for s in ('secretquery', 'secret-body', 'dummy') if s in json.dumps(x)] == []"
    grep -qE '^ +1  POST /v1/messages 200$' "$OUT/summary.txt"
    grep -qE '^ +1  GET /v2/elsewhere 404$' "$OUT/summary.txt"
}

@test "activity: each request through the broker, with its status; never a key, query or body" {
    run broker_session root
    assert_broker
}

@test "activity (rootless): each request through the broker, with its status" {
    run broker_session rootless
    assert_broker
}

# The broker hands each request's line to the monitor without waiting: with
# the monitor stopped (SIGSTOP, from the host) the agent's requests go on,
# and the lines with no room are counted, never lost silently. A blocking
# send would hang the requests; an uncounted drop would break the sum.
stopped_monitor() {
    local mode=$1 sig="$RR_TMP/sig" n=300 mon review_pid i
    mkdir -p "$sig"
    chmod 0755 "$sig"
    cp "$EG_CERTS/ca.pem" "$EG/ca.pem"
    chmod 0644 "$EG/ca.pem"
    [ "$mode" = rootless ] && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$EG" "$EG/key"
    review "$mode" --upstream "https://localhost:$EG_UP_PORT" --credential-file "$EG/key" \
        --ca-file "$EG/ca.pem" --bind "$sig:/sig" -- python3 -c "
import http.client, os, time
while not os.path.exists('/sig/go'):
    time.sleep(0.01)
done = 0
for i in range($n):
    c = http.client.HTTPConnection('127.0.0.1', 8080, timeout=60)
    c.request('GET', '/v1/flood-%d' % i)
    c.getresponse().read()
    c.close()
    done += 1
print('requests', done)
" >"$RR_TMP/review.out" 2>&1 &
    review_pid=$!
    # the agent's python has run (its exec answered); then the monitor stops.
    # The monitor is the one of that name whose parent is revrun review: the
    # container's pid 1 and its helpers carry the name too (forked from it,
    # never exec'd) and can start in the same clock tick, so "the oldest"
    # picked one of them now and then, which pid 1 killed at the end
    for i in $(seq 600); do pgrep -f "^python3 -c" >/dev/null && break; sleep 0.1; done
    pgrep -f "^python3 -c" >/dev/null
    mon=$(pgrep -x -P "$(pgrep -d, -x revrun)" revrun-monitor)
    [[ "$mon" =~ ^[0-9]+$ ]]
    kill -STOP "$mon"
    touch "$sig/go"
    for i in $(seq 1200); do pgrep -f "^python3 -c" >/dev/null || break; sleep 0.1; done
    kill -CONT "$mon"
    if pgrep -f "^python3 -c" >/dev/null; then
        echo "the requests hung while the monitor was stopped" >&2
        false
    fi
    wait "$review_pid"
    grep -q "^requests $n\$" "$OUT/agent.log"
    assert_aq "len([x for x in reqs if x['path'].startswith('/v1/flood-')]) + r[-1]['more']['requests'] == $n"
    assert_aq "r[-1]['more']['requests'] > 0"
}

@test "activity: the broker never waits on the record: requests go on with the monitor stopped, the unrecorded counted" {
    stopped_monitor root
}

@test "activity (rootless): the broker never waits on the record, the unrecorded counted" {
    stopped_monitor rootless
}

# ---- bounds ----

flood() {
    review "$1" -- /probes/execloop 100000
}

assert_flood() {
    assert_success
    grep -q '^execloop done$' "$OUT/agent.log"
    [ "$(stat -c %s "$OUT/activity.jsonl")" -le $((8 << 20)) ]
    # the cap stated first, the count of what it left out last
    assert_aq "r[0]['maxRecords'] == 20000 and len(r) <= 20002"
    assert_aq "r[-1]['capped'] is True and r[-1]['records'] == 20000"
    assert_aq "len(execs) + r[-1]['more']['execs'] == 100001"
    grep -q 'more execs\? .*counted, not recorded' "$OUT/summary.txt" ||
        grep -q "cap (20000 records, 8388608 bytes) was reached: 80001 more" "$OUT/summary.txt"
}

@test "activity: 100,000 execs leave a capped record, the rest counted, and the review ends" {
    run flood root
    assert_flood
}

@test "activity (rootless): 100,000 execs leave a capped record, the rest counted" {
    run flood rootless
    assert_flood
}

@test "activity: long argv fill the byte cap first; each record stays under 16 KiB" {
    run review root -- /probes/execloop 3000 20000
    assert_success
    [ "$(stat -c %s "$OUT/activity.jsonl")" -le $((8 << 20)) ]
    assert_aq "r[-1]['capped'] is True and r[-1]['records'] < 20000"
    assert_aq "len(execs) + r[-1]['more']['execs'] == 3001"
    # 20,000 bytes of argument kept up to 4 KiB, the rest counted
    assert_aq "all(x.get('bytesCut', 0) == 20000 - 4096 for x in execs if len(x['argv']) == 4)"
    [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$OUT/activity.jsonl")" -le 16384 ]
}

# ---- hostile argv ----

hostile_session() {
    review "$1" -- sh -c '
        /bin/true "$(printf "\033]0;pwned\007\033[2J")" "::set-output name=x::y" \
            "##vso[task.setvariable variable=x]y" "$(printf "\377\376ok")" \
            "$(printf "\342\200\256txt.exe")"
        /bin/true $(seq 100)
        /bin/true "$(head -c 1048576 /dev/zero | tr "\\0" x)" || true
        /bin/true "$(head -c 8000 /dev/zero | tr "\\0" "\\033")"
        true'
}

assert_hostile() {
    assert_success
    f="$OUT/activity.jsonl"
    # nothing a terminal or a CI runner acts on, valid UTF-8 throughout:
    # every line one JSON object (a workflow command must start a line), no
    # argument that starts one, no ##vso[ anywhere
    ! grep -q "$(printf '\033')" "$f" || false
    ! grep -q "$(printf '\007')" "$f" || false
    ! grep -qv '^{"' "$f" || false
    assert_aq "[a for x in execs for a in x['argv'] if a.startswith('::') or a.startswith('##')] == []"
    ! grep -q '##vso\[' "$f" || false
    ! grep -q "$(printf '\342\200\256')" "$f" || false
    iconv -f UTF-8 -t UTF-8 "$f" >/dev/null
    assert_aq "ran('/bin/true', '\\\\x1b]0;pwned\\\\x07\\\\x1b[2J')[0]['argv'][2] == '\\\\x3a:set-output name=x::y'"
    assert_aq "ran('/bin/true', '\\\\x1b]0;pwned\\\\x07\\\\x1b[2J')[0]['argv'][4] == '\\\\xff\\\\xfeok'"
    # 100 arguments: 64 kept, the rest counted
    assert_aq "[(len(x['argv']), x['argc'], x['argsCut']) for x in ran('/bin/true', '1', '2')] == [(64, 101, 37)]"
    # a 1 MiB argument (the kernel refuses it: E2BIG) is still on record, cut
    assert_aq "[x['argv'][1][:4] for x in execs if x.get('bytesCut', 0) > 100000] == ['xxxx']"
    # 8000 escape bytes: shown escaped and cut to the record's size, counted
    assert_aq "[x['argv'][1][:8] for x in execs if 0 < x.get('bytesCut', 0) < 8000] == ['\\\\x1b\\\\x1b']"
    [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$f")" -le 16384 ]
    # nor does the summary or the job's log carry them raw
    ! grep -q "$(printf '\033')" "$OUT/summary.txt" || false
    [[ "$output" != *"$(printf '\033')"* ]]
}

@test "activity: hostile argv are escaped and cut, never written raw" {
    run hostile_session root
    assert_hostile
}

@test "activity (rootless): hostile argv are escaped and cut, never written raw" {
    run hostile_session rootless
    assert_hostile
}

# ---- lifecycle ----

# rv root|rootless ARGS...: revrun as root (on RR_ROOT) or as the test user
# (on its own state root, which teardown clears too)
rv() {
    local mode=$1
    shift
    if [ "$mode" = rootless ]; then
        as_user "$RR_BIN/revrun" "$@"
    else
        rr "$@"
    fi
}

kept_record() {
    local mode=$1
    [ "$mode" = rootless ] && chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
    rv "$mode" run --lower "$RR_TMP/checkout" --keep --id act1 -- sh -c '/bin/echo one; /bin/echo two'
    run rv "$mode" activity act1
    assert_success
    [ "$(grep -c '"type":"exec"' <<<"$output")" = 3 ]
    assert_output_contains '"argv":["/bin/echo","two"]'
    run rv "$mode" activity --summary act1
    assert_success
    assert_output_contains "activity: 3 programs run"
    assert_output_contains "2  /bin/echo"
    rv "$mode" destroy act1
    run rv "$mode" activity act1
    assert_failure
}

@test "activity: revrun activity ID prints a kept container's record, --summary sums it up" {
    kept_record root
}

@test "activity (rootless): revrun activity ID prints the user's kept container's record" {
    kept_record rootless
}

@test "activity: revrun.activity \"off\" records nothing, and every exec still runs" {
    run review root --no-activity -- sh -c '/bin/echo still-runs'
    assert_success
    grep -q '^still-runs$' "$OUT/agent.log"
    [ ! -e "$OUT/activity.jsonl" ]
    grep -q 'activity: not recorded' "$OUT/summary.txt"
}
