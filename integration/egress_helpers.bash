# Egress fixtures: a fake model API (egress_upstream.py) on host loopback
# with certificates made here, `revrun broker` on the host, and the agent's
# side — `revrun relay` and the egress_http probe — in a fresh network
# namespace whose only way out is the broker's Unix socket.
#
# Everything the agent does goes through eg_agent, so that the
# container-based suite can swap the namespace for a real revrun container
# and keep the tests as they are.
#
# Load after helpers: `load helpers; load egress_helpers`.

EG_KEY="sk-REAL-egress-0123456789abcdef"
EG_DUMMY="sk-DUMMY-agent-key-000"
EG_PORT=8080 # the relay's port inside the namespace

# CA; "localhost" leaf signed by it; a leaf for another name signed by it;
# a self-signed "localhost" nobody trusts.
eg_make_certs() {
    local d=$1
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    mkdir -p "$d"
    openssl req -x509 "${ec[@]}" -days 2 -subj /CN=revrun-test-ca \
        -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null
    eg_leaf "$d" good "localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1"
    eg_leaf "$d" wrong "wrong.example" "subjectAltName=DNS:wrong.example"
    openssl req -x509 "${ec[@]}" -days 2 -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
        -keyout "$d/selfsigned.key" -out "$d/selfsigned.pem" 2>/dev/null
}

eg_leaf() {
    local d=$1 name=$2 cn=$3 san=$4
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$cn" \
        -keyout "$d/$name.key" -out "$d/$name.csr" 2>/dev/null
    printf '%s\n' "$san" >"$d/$name.ext"
    openssl x509 -req -in "$d/$name.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
        -CAcreateserial -days 2 -extfile "$d/$name.ext" -out "$d/$name.pem" 2>/dev/null
}

# Poll a condition for up to 5 s.
eg_wait() {
    local i
    for i in $(seq 100); do
        "$@" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "timed out waiting for: $*" >&2
    return 1
}

eg_track() {
    echo "$1" >>"$EG/pids"
}

# Background processes close fd 3, or bats waits for them before it ends.

# eg_as_user_bg CMD...: CMD as the unprivileged test identity, in the
# background, with $! its own pid (as_user is a function: killing the
# subshell that runs it would leave CMD behind).
eg_as_user_bg() {
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        --inh-caps=-all --reset-env -- env HOME=/ XDG_RUNTIME_DIR="$EG" PATH=/usr/local/bin:/usr/bin:/bin \
        "$@" 3>&- &
}

eg_other_netns() {
    [ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/self/ns/net)" ]
}

eg_recorded_is() {
    [ "$(eg_recorded "${2:-up}")" = "$1" ]
}

# eg_setup: scratch dir, the credential file, the upstream and the broker.
eg_setup() {
    rr_setup_tmp
    EG="$RR_TMP/egress"
    mkdir -p "$EG"
    chmod 0755 "$EG"
    : >"$EG/pids"
    printf '%s\n' "$EG_KEY" >"$EG/key"
    chmod 0600 "$EG/key"
    EG_SOCK="$EG/broker.sock"
    EG_UP_PORT=$(eg_start_upstream up good)
}

# eg_start_upstream NAME CERT: start one; print its port.
eg_start_upstream() {
    local name=$1 cert=$2
    python3 "$REPO_ROOT/integration/egress_upstream.py" --cert "$EG_CERTS/$cert.pem" \
        --key "$EG_CERTS/$cert.key" --record "$EG/$name.rec" \
        --port-file "$EG/$name.port" >/dev/null 2>"$EG/$name.err" 3>&- &
    eg_track $!
    eg_wait test -s "$EG/$name.port" || return 1
    cat "$EG/$name.port"
}

# eg_broker ARGS...: `revrun broker --socket EG_SOCK ARGS...` in the
# background; waits for the socket.
eg_broker() {
    "$RR_BIN/revrun" broker --socket "$EG_SOCK" "$@" 2>"$EG/broker.log" 3>&- &
    EG_BROKER_PID=$!
    eg_track $EG_BROKER_PID
    eg_wait test -S "$EG_SOCK"
}

# eg_start_broker [ARGS...]: the broker for the good upstream, trusting the
# test CA; ARGS are added to (or override) the defaults.
eg_start_broker() {
    eg_broker --upstream "https://localhost:$EG_UP_PORT" --credential-file "$EG/key" \
        --ca-file "$EG_CERTS/ca.pem" --idle-timeout 2 "$@"
}

eg_stop_broker() {
    kill "$EG_BROKER_PID"
    wait "$EG_BROKER_PID" || true
}

# Replace the broker by one running as the unprivileged test identity
# (what a rootless revrun would start); EG_BROKER_PID is its pid.
eg_restart_broker_as_user() {
    eg_stop_broker
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$EG" "$EG/key"
    cp "$EG_CERTS/ca.pem" "$EG/ca.pem"
    chmod 0644 "$EG/ca.pem"
    eg_as_user_bg "$RR_BIN/revrun" broker --socket "$EG_SOCK" \
        --upstream "https://localhost:$EG_UP_PORT" --credential-file "$EG/key" \
        --ca-file "$EG/ca.pem" 2>"$EG/broker.log"
    EG_BROKER_PID=$!
    eg_track $EG_BROKER_PID
    eg_wait test -S "$EG_SOCK"
}

# The agent's side: a new network namespace (lo only), the relay in it.
eg_start_agent_side() {
    unshare --net -- sleep 600 3>&- &
    EG_NS_PID=$!
    eg_track $EG_NS_PID
    eg_wait eg_other_netns "$EG_NS_PID"
    nsenter -t "$EG_NS_PID" -n -- ip link set lo up
    nsenter -t "$EG_NS_PID" -n -- "$RR_BIN/revrun" relay --listen "$EG_PORT" \
        --socket "$EG_SOCK" 2>"$EG/relay.log" 3>&- &
    EG_RELAY_PID=$!
    eg_track $EG_RELAY_PID
    eg_wait eg_agent "$RR_BIN/egress_http" -p "$EG_PORT" -c
}

# Run a command as the agent: inside the namespace.
eg_agent() {
    nsenter -t "$EG_NS_PID" -n -- "$@"
}

# eg_send 'RAW REQUEST' [probe args]: send it (printf %b escapes) through
# the relay; output and status as bats `run` leaves them.
eg_send() {
    local req=$1
    shift
    run bash -c 'printf "%b" "$1" | nsenter -t "$2" -n -- "$3" -p "$4" "${@:5}"' _ \
        "$req" "$EG_NS_PID" "$RR_BIN/egress_http" "$EG_PORT" "$@"
}

# The status code of the last eg_send (its first response line).
eg_status() {
    printf '%s\n' "$output" | head -n 1 | tr -d '\r' | cut -d' ' -f2
}

eg_expect_status() {
    local got
    got=$(eg_status)
    if [ "$got" != "$1" ]; then
        echo "expected status $1, got '$got'; output:" >&2
        printf '%s\n' "$output" >&2
        return 1
    fi
}

# How many requests the upstream NAME (default up) recorded.
eg_recorded() {
    grep -c '^=== request' "$EG/${1:-up}.rec" || true
}

eg_expect_recorded() {
    local got
    got=$(eg_recorded "${2:-up}")
    if [ "$got" != "$1" ]; then
        echo "expected $1 request(s) upstream, got $got:" >&2
        cat "$EG/${2:-up}.rec" >&2
        return 1
    fi
}

eg_teardown() {
    [ -n "${EG:-}" ] && [ -f "$EG/pids" ] || {
        rr_teardown_tmp
        return 0
    }
    local pid
    for pid in $(tac "$EG/pids"); do
        kill "$pid" 2>/dev/null || true
    done
    for pid in $(tac "$EG/pids"); do
        wait "$pid" 2>/dev/null || true
    done
    # shown by bats only when the test failed
    echo "--- broker log" >&2
    cat "$EG/broker.log" >&2 2>/dev/null || true
    rr_teardown_tmp
}
