#!/usr/bin/env bats
# Egress from inside real revrun containers: the agent reaches its model API
# only through the relay on loopback and the broker on the host, the real
# key is injected on the host side, and nothing else is reachable. Every
# agent action below is a `revrun run` of the bundle with that command.

load helpers
load egress_helpers

EG_KEY="sk-revrun-test-REAL-0123456789abcdef"
DUMMY="sk-dummy-agent-key-000000"

setup_file() {
    export EG_CERTS="$BATS_FILE_TMPDIR/certs"
    eg_make_certs "$EG_CERTS"
}

setup() {
    eg_setup
    mkdir -p "$RR_TMP/checkout" "$RR_TMP/bundle/rootfs"
    echo hello >"$RR_TMP/checkout/a.txt"
    chmod -R a+rX "$RR_TMP/checkout"
    CTR_N=0
    make_config "https://localhost:$EG_UP_PORT"
}

teardown() {
    # what a failed test left running (its monitor, broker and container)
    local id
    for id in $(ls "$RR_ROOT" 2>/dev/null); do
        "$RR_BIN/revrun" --root "$RR_ROOT" destroy --force "$id" 2>/dev/null || true
    done
    eg_teardown
}

# The default spec (as root, or with CTR_USER=1 as the test user) with a
# broker for UPSTREAM, the probes bound at /probes.
make_config() {
    if [ "${CTR_USER:-}" = 1 ]; then
        as_user "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    else
        "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    fi
    # where the broker (the test user's, rootless) can read it
    cp "$EG_CERTS/ca.pem" "$EG/ca.pem"
    chmod 0644 "$EG/ca.pem"
    python3 - "$RR_TMP/bundle/config.json" "$1" "$EG/key" "$EG/ca.pem" "$RR_BIN" \
        "$DUMMY" <<'EOF'
import json, sys
path, upstream, key, ca, probes, dummy = sys.argv[1:]
c = json.load(open(path))
c["revrun"]["egress"] = {"mode": "broker", "upstream": upstream, "credentialFile": key,
                         "port": 8080, "baseUrlEnv": "ANTHROPIC_BASE_URL", "caFile": ca}
c["process"]["env"].append("ANTHROPIC_API_KEY=" + dummy)
c["mounts"].append({"destination": "/probes", "type": "bind", "source": probes,
                    "options": ["rbind", "ro"]})
json.dump(c, open(path, "w"), indent=1)
EOF
}

set_args() {
    python3 - "$RR_TMP/bundle/config.json" "$@" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = sys.argv[2:]
json.dump(c, open(sys.argv[1], "w"), indent=1)
EOF
}

# ctr CMD...: run CMD as the agent in a fresh container of the bundle.
ctr() {
    CTR_N=$((CTR_N + 1))
    set_args "$@"
    (cd "$RR_TMP/bundle" && "$RR_BIN/revrun" --root "$RR_ROOT" run "eg$CTR_N")
}

# ctr_send 'RAW REQUEST' [probe args]: through the relay, as bats `run`.
ctr_send() {
    printf '%b' "$1" >"$RR_TMP/request"
    shift
    run ctr_request /probes/egress_http -p 8080 "$@"
}

ctr_request() {
    ctr "$@" <"$RR_TMP/request"
}

@test "egress container: the real key arrives upstream, the agent's dummy key never does" {
    ctr_send 'POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: '"$DUMMY"'\r\nAuthorization: Bearer '"$DUMMY"'\r\nContent-Length: 2\r\n\r\n{}'
    assert_success
    eg_expect_status 200
    eg_expect_recorded 1
    grep -qi "^x-api-key: $EG_KEY" "$EG/up.rec"
    ! grep -q "$DUMMY" "$EG/up.rec" || false
    ! grep -qi "^authorization:" "$EG/up.rec" || false
}

@test "egress container: the agent finds the relay in its environment and cannot read the key" {
    run ctr sh -c 'echo "$ANTHROPIC_BASE_URL"; cat /proc/*/environ /proc/*/cmdline 2>/dev/null | tr "\0" "\n";
                   env; ls -la / /run 2>&1; cat '"$EG/key"' 2>&1;
                   cat /proc/1/fd/* /proc/*/mem 2>&1 | head -c 2000'
    assert_output_contains "http://127.0.0.1:8080"
    [[ "$output" != *"$EG_KEY"* ]]
    assert_output_contains "No such file or directory"
}

@test "egress container: paths outside the allowlist and dot segments never reach upstream" {
    ctr_send 'GET /v2/models HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 404
    for p in '/v1/../admin' '/v1/%2e%2e/admin' '/v1/%2E%2e/admin' '/v1/..%2fadmin' '/v1\\..\\admin'; do
        ctr_send "GET $p HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
        eg_expect_status 400
    done
    eg_expect_recorded 0
}

@test "egress container: request smuggling shapes get 400 and never reach upstream" {
    ctr_send 'POST /v1/m HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
    eg_expect_status 400
    ctr_send 'POST /v1/m HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc'
    eg_expect_status 400
    ctr_send 'GET /v1/m HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n'
    eg_expect_status 400
    ctr_send 'CONNECT api.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n'
    [ "$(eg_status)" = 400 ] || [ "$(eg_status)" = 405 ]
    ctr_send 'GET http://evil.example/v1/m HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 400
    eg_expect_recorded 0
}

@test "egress container: server-sent events arrive as they are produced" {
    ctr_send 'GET /v1/sse?n=4&ms=300 HTTP/1.1\r\nHost: x\r\n\r\n' -t
    assert_success
    # the first event arrives long before the last (4 x 300 ms apart; held
    # back to the end they would arrive together)
    first=$(printf '%s\n' "$output" | grep -m1 'data:' | cut -d' ' -f1)
    last=$(printf '%s\n' "$output" | grep 'data:' | tail -1 | cut -d' ' -f1)
    [ $((last - first)) -ge 600 ]
    [ "$last" -ge 800 ]
}

@test "egress container: a mid-stream disconnect leaves the broker serving the next request" {
    run ctr sh -c 'printf "GET /v1/sse?n=20&ms=100 HTTP/1.1\r\nHost: x\r\n\r\n" | /probes/egress_http -p 8080 -n 200 >/dev/null;
                   printf "GET /v1/next HTTP/1.1\r\nHost: x\r\n\r\n" | /probes/egress_http -p 8080'
    assert_success
    assert_output_contains '"path":"/v1/next"'
}

@test "egress container: an upstream with a wrong certificate is refused" {
    wrong=$(eg_start_upstream wrong wrong)
    make_config "https://localhost:$wrong"
    ctr_send 'GET /v1/m HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 502
    eg_expect_recorded 0 wrong
}

@test "egress container: nothing but the relay is reachable, not even host loopback" {
    python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
import time; time.sleep(60)' >"$EG/listener.port" 3>&- &
    eg_track $!
    eg_wait test -s "$EG/listener.port"
    lport=$(cat "$EG/listener.port")
    run ctr sh -c "/probes/egress_http -p $lport -c; echo host-loopback=\$?;
                   /probes/egress_http -p $EG_UP_PORT -c; echo upstream=\$?;
                   /probes/egress_http -p 8080 -c; echo relay=\$?"
    assert_output_contains "host-loopback=3"
    assert_output_contains "upstream=3"
    assert_output_contains "relay=0"
}

@test "egress container: the log names method, path and status, never the key, query or body" {
    set_args sh -c 'printf "POST /v1/messages?q=secretquery HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nsecret-body" | /probes/egress_http -p 8080'
    (cd "$RR_TMP/bundle" && "$RR_BIN/revrun" --root "$RR_ROOT" run --keep keptlog >/dev/null)
    log="$RR_ROOT/keptlog/egress.log"
    grep -q "POST /v1/messages 200" "$log"
    ! grep -q "$EG_KEY" "$log" || false
    ! grep -q "secretquery" "$log" || false
    ! grep -q "secret-body" "$log" || false
    "$RR_BIN/revrun" --root "$RR_ROOT" destroy keptlog
}

@test "egress container: check validates the egress settings" {
    run "$RR_BIN/revrun" check --bundle "$RR_TMP/bundle"
    assert_success
    python3 - "$RR_TMP/bundle/config.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["revrun"]["egress"]["upstream"] = "https://user@host:99999"
json.dump(c, open(sys.argv[1], "w"))
EOF
    run "$RR_BIN/revrun" check --bundle "$RR_TMP/bundle"
    assert_failure
    assert_output_contains "egress"
}

@test "egress container: rootless, the same path out" {
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$EG" "$EG/key"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout" "$RR_TMP/bundle"
    CTR_USER=1 make_config "https://localhost:$EG_UP_PORT"
    set_args sh -c "printf 'GET /v1/rootless HTTP/1.1\r\nHost: x\r\n\r\n' | /probes/egress_http -p 8080"
    cd "$RR_TMP/bundle"
    run as_user "$RR_BIN/revrun" run rl1
    assert_success
    assert_output_contains '"path":"/v1/rootless"'
    grep -qi "^x-api-key: $EG_KEY" "$EG/up.rec"
}

# The broker must not hold the caller's stdout or stderr: `review` reads
# the agent's output until EOF, and a `create` piped into another command
# ends only when every holder of the pipe has let go. Output goes to files
# and `timeout` bounds the wait, so a regression fails instead of hanging
# the suite (teardown destroys what is left).
@test "egress container: review with a broker finishes, with its exit code and outputs" {
    printf 'POST /v1/messages?q=secretquery HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}' \
        >"$RR_TMP/checkout/request"
    chmod a+r "$RR_TMP/checkout/request"
    status=0
    timeout 60 "$RR_BIN/revrun" --root "$RR_ROOT" review --bundle "$RR_TMP/bundle" \
        --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c '/probes/egress_http -p 8080 <request; echo reviewed > b.txt' \
        >"$RR_TMP/review.out" 2>&1 3>&- || status=$?
    output=$(cat "$RR_TMP/review.out")
    assert_success
    assert_output_contains 'agent| HTTP/1.1 200'
    grep -q '"exitCode": 0' "$RR_TMP/out/result.json"
    grep -q '"verdict": "accept"' "$RR_TMP/out/result.json"
    grep -q '"changes": 1' "$RR_TMP/out/result.json"
    grep -q "POST /v1/messages 200" "$RR_TMP/out/egress.log"
    grep -qi "^x-api-key: $EG_KEY" "$EG/up.rec"
    [ -z "$(ls -A "$RR_ROOT")" ]
}

@test "egress container: a create piped into another command ends when its agent does" {
    set_args true
    (cd "$RR_TMP/bundle" &&
        exec sh -c '"$1" --root "$2" create piped | cat >"$3"; touch "$3.done"' _ \
            "$RR_BIN/revrun" "$RR_ROOT" "$RR_TMP/create.out") 3>&- &
    eg_track $!
    for _ in $(seq 200); do
        "$RR_BIN/revrun" --root "$RR_ROOT" state piped >/dev/null 2>&1 && break
        sleep 0.1
    done
    "$RR_BIN/revrun" --root "$RR_ROOT" start piped
    # the agent has exited; nothing may hold the pipe until destroy
    for _ in $(seq 150); do
        [ -e "$RR_TMP/create.out.done" ] && break
        sleep 0.1
    done
    [ -e "$RR_TMP/create.out.done" ]
    "$RR_BIN/revrun" --root "$RR_ROOT" destroy piped
}

# broker_of ROOT ID: the egress broker of container ID, its monitor's child.
broker_of() {
    local mon
    mon=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['monitorPid'])" \
        "$1/$2/state.json")
    pgrep -P "$mon" -x revrun-broker
}

# The broker parses the agent's HTTP: it serves with no privilege at all.
broker_is_confined() {
    local pid=$1 uid=$2 gid=$3 f
    f="/proc/$pid/status"
    grep -q "^Uid:	$uid	$uid	$uid	$uid$" "$f"
    grep -q "^Gid:	$gid	$gid	$gid	$gid$" "$f"
    grep -q "^Groups:[[:space:]]*$" "$f"
    for cap in CapInh CapPrm CapEff CapBnd CapAmb; do
        grep -q "^$cap:	0000000000000000$" "$f"
    done
    grep -q "^NoNewPrivs:	1$" "$f"
    grep -q "^Seccomp:	2$" "$f"
}

@test "egress container: the broker serves as the container user's host uid, without capabilities, under seccomp" {
    set_args sh -c 'sleep 1; /probes/egress_http -p 8080 <request'
    printf 'GET /v1/confined HTTP/1.1\r\nHost: x\r\n\r\n' >"$RR_TMP/checkout/request"
    chmod a+r "$RR_TMP/checkout/request"
    (cd "$RR_TMP/bundle" && "$RR_BIN/revrun" --root "$RR_ROOT" create conf \
        >"$RR_TMP/conf.out" 2>&1 </dev/null 3>&-)
    broker=$(broker_of "$RR_ROOT" conf)
    [ -n "$broker" ]
    # the container's own host id (of revrun's range): its pid 1's
    init=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['pid'])" \
        "$RR_ROOT/conf/state.json")
    hid=$(awk '/^Uid:/ {print $2}' "/proc/$init/status")
    [ "$hid" -ge 2000000000 ] && [ "$hid" -le 2000065535 ] || false
    broker_is_confined "$broker" "$hid" "$hid"
    # and it still serves: the agent's request reaches the upstream
    "$RR_BIN/revrun" --root "$RR_ROOT" start conf
    eg_wait grep -q '"path":"/v1/confined"' "$RR_TMP/conf.out"
    grep -qi "^x-api-key: $EG_KEY" "$EG/up.rec"
    "$RR_BIN/revrun" --root "$RR_ROOT" destroy --force conf
}

@test "egress container: rootless, the broker keeps the caller's uid and drops every capability" {
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$EG" "$EG/key"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout" "$RR_TMP/bundle"
    CTR_USER=1 make_config "https://localhost:$EG_UP_PORT"
    set_args sleep 1000
    mkdir -p "$RR_TMP/ustate"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/ustate"
    (cd "$RR_TMP/bundle" && as_user "$RR_BIN/revrun" --root "$RR_TMP/ustate" create urc \
        >/dev/null 2>&1 </dev/null 3>&-)
    broker=$(broker_of "$RR_TMP/ustate" urc)
    [ -n "$broker" ]
    status=0
    broker_is_confined "$broker" "$REVRUN_TEST_UID" "$REVRUN_TEST_GID" || status=$?
    as_user "$RR_BIN/revrun" --root "$RR_TMP/ustate" destroy --force urc
    [ "$status" -eq 0 ]
}

@test "egress container: a broker that cannot start fails create, naming why; nothing runs" {
    rm -f "$EG/key"
    run ctr sh -c "echo ran >/tmp/x; echo AGENT-RAN"
    assert_failure
    assert_output_contains "egress broker could not start"
    assert_output_contains "No such file or directory"
    [[ "$output" != *AGENT-RAN* ]]
    [ -z "$(ls "$RR_ROOT" 2>/dev/null)" ] # nothing of the container is left
    for _ in $(seq 20); do # the broker dies with its monitor (parent-death signal)
        pgrep -f -- "--root $RR_ROOT" >/dev/null || break
        sleep 0.1
    done
    run pgrep -f -- "--root $RR_ROOT"
    [ "$status" -eq 1 ]
}

# The agent floods the broker with refused requests: the log in the state
# directory keeps a burst and a steady rate, says how many lines it dropped,
# and stays under its cap (egress/log_limit.h).
@test "egress container: a flood of requests cannot grow the broker's log without bound" {
    cat >"$RR_TMP/checkout/flood.py" <<'EOF'
import socket
for i in range(3000):
    s = socket.create_connection(("127.0.0.1", 8080))
    s.sendall(b"GET /v2/flood HTTP/1.1\r\nHost: x\r\n\r\n")
    while s.recv(4096):
        pass
    s.close()
print("sent")
EOF
    chmod a+r "$RR_TMP/checkout/flood.py"
    set_args python3 /workspace/flood.py
    (cd "$RR_TMP/bundle" && "$RR_BIN/revrun" --root "$RR_ROOT" run --keep floodlog >"$RR_TMP/flood.out")
    grep -q sent "$RR_TMP/flood.out"
    log="$RR_TMP/flood.log"
    cp "$RR_ROOT/floodlog/egress.log" "$log"
    "$RR_BIN/revrun" --root "$RR_ROOT" destroy floodlog
    lines=$(grep -c "^GET /v2/flood 404" "$log")
    echo "logged $lines of 3000, $(stat -c %s "$log") bytes" >&3
    [ "$lines" -ge 200 ] && [ "$lines" -lt 1500 ] || false
    grep -q "request lines dropped" "$log"
    [ "$(stat -c %s "$log")" -le $((1 << 20)) ]
}

@test "egress container: the broker runs in the container's cgroup" {
    set_args sleep 1000
    (cd "$RR_TMP/bundle" && "$RR_BIN/revrun" --root "$RR_ROOT" create cgb >/dev/null 2>&1 </dev/null 3>&-)
    broker=$(broker_of "$RR_ROOT" cgb)
    [ -n "$broker" ]
    cg=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cgroup'])" "$RR_ROOT/cgb/state.json")
    [ -n "$cg" ]
    echo "broker $broker in: $(cat /proc/$broker/cgroup | tr '\n' ' '); container: $cg" >&3
    status=0
    grep -E "^[0-9]+:(memory|):$cg\$" "/proc/$broker/cgroup" || status=1
    "$RR_BIN/revrun" --root "$RR_ROOT" destroy --force cgb
    [ "$status" -eq 0 ]
}
