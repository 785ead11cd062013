#!/bin/bash
# bench/broker.sh: what the egress path costs. The same fake upstream
# (integration/egress_upstream.py, HTTPS on loopback) is reached two ways:
#   direct   the client speaks TLS to the upstream itself (resuming its TLS
#            session, as an SDK with a pooled client would)
#   brokered the client speaks plain HTTP to `revrun relay`, which pumps to
#            `revrun broker`, which speaks TLS to the upstream
# Figures: median latency of a small request (new connection each time, as
# the broker does one request per connection), requests per second with 1
# and 4 clients, time to the first and the last event of an SSE stream, and
# the throughput of a 4 MiB body. Ratios are brokered / direct.
#
#   bench/broker.sh [N]     N small requests per measurement (default 300)
#
# Needs python3, openssl; runs as any user; everything stays on loopback and
# stops by itself.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-300}
revrun="$here/revrun"
[ -x "$revrun" ] || make -C "$here" revrun >/dev/null
# shellcheck source=../integration/egress_helpers.bash
. "$here/integration/egress_helpers.bash"

tmp=$(mktemp -d /tmp/revrun-bench.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

eg_make_certs "$tmp/certs"
printf '%s\n' "$EG_KEY" >"$tmp/key"
python3 "$here/integration/egress_upstream.py" --cert "$tmp/certs/good.pem" \
    --key "$tmp/certs/good.key" --record /dev/null --port-file "$tmp/up.port" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/up.port" ] && break; sleep 0.05; done
up_port=$(cat "$tmp/up.port")

"$revrun" broker --socket "$tmp/broker.sock" --upstream "https://localhost:$up_port" \
    --credential-file "$tmp/key" --ca-file "$tmp/certs/ca.pem" 2>"$tmp/broker.log" &
pids+=($!)
relay_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for _ in $(seq 100); do [ -S "$tmp/broker.sock" ] && break; sleep 0.05; done
"$revrun" relay --listen "$relay_port" --socket "$tmp/broker.sock" 2>"$tmp/relay.log" &
pids+=($!)
sleep 0.3

python3 - "$n" "$up_port" "$relay_port" "$tmp/certs/ca.pem" <<'EOF'
import socket, ssl, statistics, sys, threading, time

n, up_port, relay_port, ca = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ctx = ssl.create_default_context(cafile=ca)
session = [None]

def connect(brokered):
    if brokered:
        return socket.create_connection(("127.0.0.1", relay_port))
    raw = socket.create_connection(("127.0.0.1", up_port))
    s = ctx.wrap_socket(raw, server_hostname="localhost", session=session[0])
    return s

def request(brokered, req, on_data=None):
    s = connect(brokered)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1) if not brokered else None
    s.sendall(req)
    total = 0
    while True:
        d = s.recv(65536)
        if not d:
            break
        total += len(d)
        if on_data:
            on_data(d)
    if not brokered and s.session is not None and s.session.has_ticket:
        session[0] = s.session
    s.close()
    return total

SMALL = (b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: dummy\r\n"
         b"Content-Type: application/json\r\nContent-Length: 20\r\n\r\n"
         b'{"model":"m","x":1}\n')

def latencies(brokered):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        request(brokered, SMALL)
        out.append((time.perf_counter() - t) * 1000)
    return out

def rps(brokered, clients):
    per = max(1, n // clients)
    def work():
        for _ in range(per):
            request(brokered, SMALL)
    ts = [threading.Thread(target=work) for _ in range(clients)]
    t = time.perf_counter()
    for th in ts: th.start()
    for th in ts: th.join()
    return per * clients / (time.perf_counter() - t)

def sse(brokered):
    req = b"GET /v1/sse?n=20&ms=20 HTTP/1.1\r\nHost: x\r\n\r\n"
    firsts, lasts = [], []
    for _ in range(15):
        t = time.perf_counter()
        seen = {}
        def on(d):
            now = (time.perf_counter() - t) * 1000
            if b"event 1\n" in d and "first" not in seen:
                seen["first"] = now
            if b"event 20\n" in d:
                seen["last"] = now
        request(brokered, req, on)
        firsts.append(seen.get("first", float("nan")))
        lasts.append(seen.get("last", float("nan")))
    return statistics.median(firsts), statistics.median(lasts)

def big(brokered):
    req = b"GET /v1/big?kb=4096 HTTP/1.1\r\nHost: x\r\n\r\n"
    rates = []
    for _ in range(7):
        t = time.perf_counter()
        got = request(brokered, req)
        rates.append(got / (time.perf_counter() - t) / 1e6)
    return statistics.median(rates)

request(False, SMALL); request(True, SMALL)  # warm up both paths
rows = []
d, b = statistics.median(latencies(False)), statistics.median(latencies(True))
rows.append(("small request, median latency (ms)", d, b, b - d))
for c in (1, 4):
    d, b = rps(False, c), rps(True, c)
    rows.append(("small requests/s, %d client%s" % (c, "s" if c > 1 else ""), d, b, None))
(df, dl), (bf, bl) = sse(False), sse(True)
rows.append(("SSE first event (ms, 20 events 20 ms apart)", df, bf, bf - df))
rows.append(("SSE last event (ms)", dl, bl, bl - dl))
d, b = big(False), big(True)
rows.append(("4 MiB response, MB/s", d, b, None))

print("%-46s %10s %10s %7s %9s" % ("", "direct", "brokered", "ratio", "added"))
for name, d, b, added in rows:
    print("%-46s %10.2f %10.2f %7.2f %9s" % (name, d, b, b / d,
          "" if added is None else "%+.2f" % added))
print("(%d requests per latency/rps figure; upstream: egress_upstream.py, Python)" % n)
EOF
