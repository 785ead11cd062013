#!/usr/bin/env bats
# Egress: the broker and the relay, end to end on loopback. The agent's side
# runs in a fresh network namespace (only lo, only the relay); the fake
# upstream records what reaches it. Every contract line of the broker that
# does not need a container is here; THREAT_MODEL.md "Egress" names them.

load helpers
load egress_helpers

setup_file() {
    export EG_CERTS="$BATS_FILE_TMPDIR/certs"
    eg_make_certs "$EG_CERTS"
}

setup() {
    eg_setup
    eg_start_broker
    eg_start_agent_side
}

teardown() {
    eg_teardown
}

POST_HEAD='POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n'

@test "egress: /healthz is answered by the broker, not the upstream" {
    eg_send 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
    assert_success
    eg_expect_status 200
    eg_expect_recorded 0
}

@test "egress: the real key arrives upstream, the agent's credentials do not" {
    eg_send "${POST_HEAD}x-api-key: $EG_DUMMY\r\nAuthorization: Bearer $EG_DUMMY-2\r\nCookie: s=$EG_DUMMY-3\r\nProxy-Authorization: Basic $EG_DUMMY-4\r\nX-API-KEY: $EG_DUMMY-5\r\nContent-Length: 11\r\n\r\n{\"hi\":true}"
    assert_success
    eg_expect_status 200
    assert_output_contains '"path":"/v1/messages","body_len":11'
    eg_expect_recorded 1
    grep -qx "x-api-key: $EG_KEY" <(tr -d '\r' <"$EG/up.rec")
    [ "$(grep -ci 'x-api-key' "$EG/up.rec")" = 1 ]
    ! grep -q DUMMY "$EG/up.rec" || false
    ! grep -qi '^authorization\|^cookie\|^proxy-authorization' "$EG/up.rec" || false
    grep -q 'Host: localhost:' "$EG/up.rec"
}

@test "egress: --header and --header-prefix choose how the key is sent" {
    eg_stop_broker
    eg_start_broker --header authorization --header-prefix "Bearer "
    eg_send "${POST_HEAD}Authorization: Bearer $EG_DUMMY\r\nContent-Length: 2\r\n\r\n{}"
    eg_expect_status 200
    grep -qx "authorization: Bearer $EG_KEY" <(tr -d '\r' <"$EG/up.rec")
    ! grep -q DUMMY "$EG/up.rec" || false
}

@test "egress: the key can come from the operator's environment, and does not stay in it" {
    eg_stop_broker
    REVRUN_TEST_KEY="$EG_KEY" eg_broker --upstream "https://localhost:$EG_UP_PORT" \
        --credential-env REVRUN_TEST_KEY --ca-file "$EG_CERTS/ca.pem"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 200
    grep -q "x-api-key: $EG_KEY" "$EG/up.rec"
    # the variable's value is wiped in the broker's own environment block
    ! grep -qa "$EG_KEY" "/proc/$EG_BROKER_PID/environ" || false
    ! grep -qa "$EG_KEY" "/proc/$EG_BROKER_PID/cmdline" || false
}

@test "egress: an unset variable or a key file with a line break is refused at start" {
    run env -u NOPE "$RR_BIN/revrun" broker --socket "$EG/other.sock" \
        --upstream "https://localhost:$EG_UP_PORT" --credential-env NOPE
    assert_failure
    assert_output_contains "NOPE is not set"
    printf 'sk-first-half\r\nX-Evil: 1\n' >"$EG/badkey"
    run "$RR_BIN/revrun" broker --socket "$EG/other.sock" \
        --upstream "https://localhost:$EG_UP_PORT" --credential-file "$EG/badkey"
    assert_failure
    assert_output_contains "not visible ASCII"
    [ ! -e "$EG/other.sock" ]
}

@test "egress: paths outside the allowlist get 404 and never reach upstream" {
    local t
    for t in /admin /v2/messages /v1 /V1/messages /v1x/ /healthz2; do
        eg_send "GET $t HTTP/1.1\r\nHost: x\r\n\r\n"
        eg_expect_status 404
    done
    eg_expect_recorded 0
}

@test "egress: --allow replaces the default prefix" {
    eg_stop_broker
    eg_start_broker --allow /v1/messages --allow /v1/models/
    eg_send 'GET /v1/files HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 404
    eg_send 'GET /v1/messagesX HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 404
    eg_send 'GET /v1/models/m1 HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 200
    eg_expect_recorded 1
}

@test "egress: every spelling of a dot segment gets 400 and never reaches upstream" {
    local t
    for t in '/v1/../admin' '/v1/./messages' '/v1/..' '/v1/%2e%2e/admin' '/v1/%2E%2e/admin' \
        '/v1/%2e%2E/' '/v1/.%2e/admin' '/v1/%2e/messages' '/v1/..;/admin' '/v1/.../x' \
        '/v1/..\\admin' '/v1\\..\\admin' '/v1/%5c..%5cadmin' '/v1%2f..%2fadmin' \
        '/v1/%252e%252e/admin' '/v1/%c0%ae%c0%ae/admin' '/v1//messages'; do
        eg_send "GET $t HTTP/1.1\r\nHost: x\r\n\r\n"
        eg_expect_status 400 || {
            echo "path: $t" >&2
            return 1
        }
    done
    eg_expect_recorded 0
}

@test "egress: absolute-form, authority-form, CONNECT and TRACE are refused" {
    eg_send 'GET http://evil.example/v1/messages HTTP/1.1\r\nHost: evil.example\r\n\r\n'
    eg_expect_status 400
    eg_send 'GET https://localhost/v1/messages HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 400
    eg_send 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n'
    eg_expect_status 405
    eg_send 'TRACE /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 405
    eg_send 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 400
    eg_expect_recorded 0
}

@test "egress: request smuggling shapes get 400 and never reach upstream" {
    local shapes=(
        "${POST_HEAD}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        "${POST_HEAD}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"
        "${POST_HEAD}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello"
        "${POST_HEAD}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"
        "${POST_HEAD}Content-Length: 5, 5\r\n\r\nhello"
        "${POST_HEAD}X-Folded: a\r\n b\r\nContent-Length: 5\r\n\r\nhello"
        "${POST_HEAD}Content-Length : 5\r\n\r\nhello"
        "${POST_HEAD}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
        "${POST_HEAD}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n"
        "POST /v1/messages HTTP/1.1\nHost: x\nContent-Length: 5\n\nhello"
        "${POST_HEAD}Transfer-Encoding: chunked\r\n\r\n5;ext\r\nhello\r\n0\r\n\r\n"
        "${POST_HEAD}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Api-Key: t\r\n\r\n"
        "${POST_HEAD}Transfer-Encoding: chunked\r\n\r\n-1\r\nhello\r\n0\r\n\r\n"
    )
    local s
    for s in "${shapes[@]}"; do
        eg_send "$s"
        eg_expect_status 400 || {
            echo "shape: $s" >&2
            return 1
        }
    done
    eg_expect_recorded 0
}

# An upstream in the CGI/WSGI tradition folds '_' into '-': x_api_key would
# be its X-Api-Key, Content_Length its framing.
@test "egress: underscore spellings of credential fields are stripped, of framing fields refused" {
    eg_send "${POST_HEAD}x_api_key: $EG_DUMMY\r\nProxy_Authorization: Basic $EG_DUMMY-2\r\nX_Api-Key: $EG_DUMMY-3\r\nContent-Length: 2\r\n\r\n{}"
    assert_success
    eg_expect_status 200
    eg_expect_recorded 1
    ! grep -q DUMMY "$EG/up.rec" || false
    [ "$(grep -ci 'x.api.key' "$EG/up.rec")" = 1 ]
    local s
    for s in "${POST_HEAD}Content-Length: 2\r\nContent_Length: 40\r\n\r\n{}" \
        "${POST_HEAD}Transfer_Encoding: chunked\r\n\r\n0\r\n\r\n"; do
        eg_send "$s"
        eg_expect_status 400 || {
            echo "shape: $s" >&2
            return 1
        }
    done
    eg_expect_recorded 1
}

@test "egress: a valid chunked body is forwarded; bytes after a body are not" {
    eg_send "${POST_HEAD}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    eg_expect_status 200
    grep -q 'hello' "$EG/up.rec"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}GET /admin HTTP/1.1\r\nHost: x\r\n\r\n"
    eg_expect_status 200
    eg_expect_recorded 2
    ! grep -q '/admin' "$EG/up.rec" || false
}

@test "egress: Expect: 100-continue is answered by the broker" {
    eg_send "${POST_HEAD}Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"
    eg_expect_status 100
    assert_output_contains 'HTTP/1.1 200 OK'
    ! grep -qi '^expect' "$EG/up.rec" || false
}

@test "egress: header and body sizes are capped" {
    local big
    big=$(head -c 20000 /dev/zero | tr '\0' a)
    eg_send "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: $big\r\n\r\n"
    eg_expect_status 431
    eg_send "GET /v1/$big HTTP/1.1\r\nHost: x\r\n\r\n"
    eg_expect_status 414
    eg_send "${POST_HEAD}Content-Length: 40000000\r\n\r\n"
    eg_expect_status 413
    eg_expect_recorded 0
}

@test "egress: server-sent events arrive as they are produced" {
    eg_send 'GET /v1/sse?n=5&ms=300 HTTP/1.1\r\nHost: x\r\n\r\n' -t
    assert_success
    local first last
    first=$(printf '%s\n' "$output" | awk '/data: event 1$/ {print $1; exit}')
    last=$(printf '%s\n' "$output" | awk '/data: event 5$/ {print $1; exit}')
    [ -n "$first" ] && [ -n "$last" ] || false
    # 1.2 s of production: the first event must not wait for the last
    if [ $((last - first)) -lt 900 ]; then
        echo "events not incremental: first at $first ms, last at $last ms" >&2
        printf '%s\n' "$output" >&2
        return 1
    fi
}

@test "egress: a client that disconnects mid-stream leaves the broker serving" {
    eg_send 'GET /v1/sse?n=20&ms=100 HTTP/1.1\r\nHost: x\r\n\r\n' -n 150
    assert_success
    assert_output_contains 'data: event 1'
    eg_wait grep -q 'went away' "$EG/broker.log"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 200
    kill -0 "$EG_BROKER_PID"
}

@test "egress: an upstream that stalls mid-stream is cut after the idle timeout, with no text spliced in" {
    eg_send 'GET /v1/stall HTTP/1.1\r\nHost: x\r\n\r\n'
    assert_success
    eg_expect_status 200
    assert_output_contains 'data: event 1'
    [[ "$output" != *revrun* && "$output" != *HTTP/1.1\ 50* ]]
    grep -q 'GET /v1/stall 200: stream cut: upstream idle' "$EG/broker.log"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 200
}

@test "egress: an upstream that stalls before answering gets 504" {
    eg_send 'GET /v1/stall-head HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 504
}

@test "egress: an upstream that resets mid-stream cuts the stream, nothing spliced" {
    eg_send 'GET /v1/reset HTTP/1.1\r\nHost: x\r\n\r\n'
    assert_success
    eg_expect_status 200
    assert_output_contains 'data: event 1'
    [[ "$output" != *revrun* ]]
    [[ "$output" != *$'\r\n0\r\n'* ]] # no last chunk: the agent sees the cut
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 200
}

@test "egress: an upstream certificate for another name is refused" {
    local port
    port=$(eg_start_upstream wrong wrong)
    eg_stop_broker
    eg_start_broker --upstream "https://localhost:$port"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 502
    assert_output_contains 'hostname mismatch'
    eg_expect_recorded 0 wrong
}

@test "egress: an untrusted upstream certificate is refused, with or without --ca-file" {
    local port
    port=$(eg_start_upstream self selfsigned)
    eg_stop_broker
    eg_start_broker --upstream "https://localhost:$port"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 502
    eg_stop_broker
    # the system trust store does not know the test CA either
    eg_broker --upstream "https://localhost:$EG_UP_PORT" --credential-file "$EG/key"
    eg_send "${POST_HEAD}Content-Length: 2\r\n\r\n{}"
    eg_expect_status 502
    eg_expect_recorded 0 self
    eg_expect_recorded 0
}

@test "egress: an upstream that reflects the request never shows the agent the key" {
    eg_send 'GET /v1/echo HTTP/1.1\r\nHost: x\r\n\r\n'
    [[ "$output" != *"$EG_KEY"* ]]
    [[ "$output" != *"${EG_KEY:0:12}"* ]] || true
    grep -q 'carried the credential' "$EG/broker.log"
    eg_expect_recorded 1
}

@test "egress: nothing but the relay is reachable from inside" {
    # the upstream listens on the host's 127.0.0.1; inside, that is another lo
    run eg_agent "$RR_BIN/egress_http" -p "$EG_UP_PORT" -c
    [ "$status" -eq 3 ]
    run eg_agent ip -o link show
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
    assert_output_contains ': lo:'
    run eg_agent ip -o -4 route show
    [ -z "$output" ] || [[ "$output" != *default* ]]
}

@test "egress: the log has method, path and status, never headers, query or body" {
    eg_send "POST /v1/messages?q=QUERY-CANARY HTTP/1.1\r\nHost: x\r\nx-api-key: $EG_DUMMY\r\nX-Trace: HEADER-CANARY\r\nContent-Length: 11\r\n\r\nBODY-CANARY"
    eg_expect_status 200
    eg_send 'GET /v1/\x1b[31mred HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 400
    grep -q 'egress: POST /v1/messages 200$' "$EG/broker.log"
    ! grep -q 'CANARY\|DUMMY' "$EG/broker.log" || false
    ! grep -qF "$EG_KEY" "$EG/broker.log" || false
    ! grep -q $'\x1b' "$EG/broker.log" || false
    grep -qF 'GET /v1/\x1b[31mred 400' "$EG/broker.log"
}

@test "egress: connections beyond --max-conns get 503, and the broker recovers" {
    eg_stop_broker
    eg_start_broker --max-conns 2
    local a b
    (printf 'GET /v1/stall-head HTTP/1.1\r\nHost: x\r\n\r\n' |
        eg_agent "$RR_BIN/egress_http" -p "$EG_PORT" >/dev/null) 3>&- &
    a=$!
    (printf 'GET /v1/stall-head HTTP/1.1\r\nHost: x\r\n\r\n' |
        eg_agent "$RR_BIN/egress_http" -p "$EG_PORT" >/dev/null) 3>&- &
    b=$!
    eg_wait eg_recorded_is 2
    eg_send 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 503
    wait "$a" "$b" || true
    eg_send 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 200
}

@test "egress: the relay answers 502 when the broker is gone; the broker stops on SIGTERM" {
    local rc=0
    kill -TERM "$EG_BROKER_PID"
    wait "$EG_BROKER_PID" || rc=$?
    [ "$rc" -eq 0 ]
    [ ! -e "$EG_SOCK" ]
    eg_send 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'
    eg_expect_status 502
    assert_output_contains 'broker is down'
}

@test "egress: the broker's memory and environment are closed to its own uid" {
    # A process of the broker's uid (what a rootless agent would be, were it
    # not in its own pid namespace) cannot read the key out of the broker.
    eg_restart_broker_as_user
    local pid=$EG_BROKER_PID
    # not dumpable: the files under /proc/PID belong to root
    [ "$(stat -c %u "/proc/$pid/environ")" = 0 ]
    run as_user cat "/proc/$pid/environ"
    assert_failure
    run as_user dd if="/proc/$pid/mem" bs=1 count=1 skip=4096
    assert_failure
    run as_user cat "/proc/$pid/cmdline"
    [[ "$output" != *"$EG_KEY"* ]]
}

@test "egress: rootless, broker, relay and agent all as an unprivileged user" {
    eg_restart_broker_as_user
    run as_user unshare -rn bash -c '
        ip link set lo up
        "$1/revrun" relay --listen 8080 --socket "$2" & r=$!
        for i in $(seq 100); do "$1/egress_http" -c && break; sleep 0.05; done
        printf "POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: dummy\r\nContent-Length: 2\r\n\r\n{}" |
            "$1/egress_http"
        kill $r' _ "$RR_BIN" "$EG_SOCK"
    assert_success
    assert_output_contains 'HTTP/1.1 200 OK'
    grep -q "x-api-key: $EG_KEY" "$EG/up.rec"
    ! grep -q dummy "$EG/up.rec" || false
}
