#!/usr/bin/env bats
# Egress: WebSockets through the broker. An upgrade to an allowed path is
# tunnelled (the handshake judged and rewritten like any request, the
# upstream's 101 checked, then frames both ways unchanged, the agent's
# metered and the upstream's through the echo guard); every other upgrade
# is refused by the broker itself. Same fixtures as egress.bats: the agent's
# side is a fresh network namespace with the relay; ws_client.py is the
# agent's SDK. THREAT_MODEL.md "Egress" names these tests.

load helpers
load egress_helpers

setup_file() {
    export EG_CERTS="$BATS_FILE_TMPDIR/certs"
    eg_make_certs "$EG_CERTS"
}

setup() {
    eg_setup
    eg_start_broker --header authorization --header-prefix "Bearer "
    eg_start_agent_side
}

teardown() {
    eg_teardown
}

# ws ARGS...: the client inside the namespace, through the relay.
ws() {
    run eg_agent python3 "$REPO_ROOT/integration/ws_client.py" --port "$EG_PORT" "$@"
}

@test "egress ws: a WebSocket to an allowed path is tunnelled, the real key on its handshake" {
    ws --head "Authorization: Bearer $EG_DUMMY" --head "x-api-key: $EG_DUMMY-2" \
        --head "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits" \
        --send hello --send "second message" --send-big 70000 --last close
    assert_success
    assert_output_contains "STATUS 101"
    assert_output_contains "MSG echo: hello"
    assert_output_contains "MSG echo: second message"
    assert_output_contains "MSG binary 70000"
    assert_output_contains "CLOSE 1000"
    # one handshake upstream, with the real key only and no extension offer
    eg_expect_recorded 1
    grep -qx "authorization: Bearer $EG_KEY" <(tr -d '\r' <"$EG/up.rec")
    ! grep -q DUMMY "$EG/up.rec" || false
    ! grep -qi 'x-api-key\|extensions\|deflate' "$EG/up.rec" || false
    grep -qi '^upgrade: websocket' "$EG/up.rec"
    # the frames arrived as sent, in order
    [ "$(grep -A1 '^=== ws-message' "$EG/up.rec" | grep -v '^===\|^--' | head -3 | tr '\n' '|')" = "hello|second message|bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...|" ]
    # logged when the tunnel ends, which may be after the client is done
    eg_wait grep -q 'egress: GET /v1/ws 101$' "$EG/broker.log"
}

@test "egress ws: every other upgrade is refused by the broker, nothing forwarded" {
    eg_send 'GET /v1/x HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n'
    eg_expect_status 501
    eg_send 'GET /v1/x HTTP/1.1\r\nHost: x\r\nUpgrade: TLS/1.2\r\nConnection: Upgrade\r\n\r\n'
    eg_expect_status 501
    eg_send 'POST /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nContent-Length: 0\r\n\r\n'
    eg_expect_status 400
    eg_send 'GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'
    eg_expect_status 400
    # half a handshake is not sent on as a plain GET
    eg_send 'GET /v1/ws HTTP/1.1\r\nHost: x\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'
    eg_expect_status 400
    # frames sent before the 101 could be a request smuggled behind it
    eg_send 'GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\nGET /v1/other HTTP/1.1\r\n\r\n'
    eg_expect_status 400
    # outside the allowlist
    ws --path /v2/ws --send hello
    assert_output_contains "STATUS 404"
    eg_expect_recorded 0
    grep -q 'GET /v1/x 501: only WebSocket upgrades are carried' "$EG/broker.log"
}

@test "egress ws: a 101 the handshake did not ask for gets 502" {
    ws --path /v1/ws-ext --send hello
    assert_output_contains "STATUS 502"
    ws --path /v1/ws-badaccept --send hello
    assert_output_contains "STATUS 502"
    [[ "$output" != *"MSG echo"* ]]
    ! grep -q '^=== ws-message' "$EG/up.rec" || false
}

@test "egress ws: an upstream frame carrying the key cuts the tunnel; the agent never sees it" {
    ws --send hello --send head
    assert_output_contains "STATUS 101"
    assert_output_contains "MSG echo: hello"
    [[ "$output" != *"$EG_KEY"* ]]
    [[ "$output" != *"MSG GET /v1/ws"* ]]
    grep -q 'GET /v1/ws 101: tunnel cut: upstream sent the credential' "$EG/broker.log"
}

@test "egress ws: an unmasked frame from the agent cuts the tunnel before it goes up" {
    ws --send hello --unmasked "not-masked-canary"
    assert_output_contains "STATUS 101"
    assert_output_contains "MSG echo: hello"
    [[ "$output" != *"not-masked-canary"* ]]
    ! grep -q 'not-masked-canary' "$EG/up.rec" || false
    grep -q 'GET /v1/ws 101: unmasked WebSocket frame from the agent' "$EG/broker.log"
}

@test "egress ws: an idle tunnel is cut after the idle timeout" {
    # the broker runs with --idle-timeout 2; the client would wait 20 s
    ws --send hello --wait 20
    assert_output_contains "MSG echo: hello"
    assert_output_contains "EOF"
    grep -q 'GET /v1/ws 101: tunnel cut: idle' "$EG/broker.log"
}
