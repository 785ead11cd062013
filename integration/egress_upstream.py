#!/usr/bin/env python3
"""A fake model API for the egress tests and benchmark: HTTPS on loopback
with the certificate the test made, recording every request it receives
(head and body, raw) so a test can judge what reached the upstream.

Routes (path without the query):
  /v1/sse?n=N&ms=M   N server-sent events, M ms apart (chunked)
  /v1/stall          headers and one event, then silence
  /v1/stall-head     silence before anything
  /v1/reset          headers and one event, then a TCP reset
  /v1/echo           the request head, reflected in the body
  /v1/big?kb=N       N KiB of body
  /v1/ws             a WebSocket (with Upgrade: websocket): each text message
                     comes back as "echo: TEXT", a binary one as its length;
                     "head" sends the handshake head as received (the key in
                     it), "close" ends with a close frame; each message is
                     recorded as "=== ws-message"
  /v1/ws-ext         a 101 that picks permessage-deflate (nobody offered it)
  /v1/ws-badaccept   a 101 whose Sec-WebSocket-Accept does not match the key
  anything else      a small JSON body naming the method and path
"""
import base64
import hashlib
import argparse
import os
import socket
import socketserver
import ssl
import struct
import threading
import time
import urllib.parse

record_lock = threading.Lock()


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
        if len(data) > 1 << 20:
            return None, b""
    head, rest = data.split(b"\r\n\r\n", 1)
    return head + b"\r\n\r\n", rest


def read_exact(conn, rest, n):
    while len(rest) < n:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return rest[:n], rest[n:]


def read_chunked(conn, rest):
    """The raw chunked body, as received (it is recorded, not decoded)."""
    raw = b""
    while True:
        while b"\r\n" not in rest:
            chunk = conn.recv(65536)
            if not chunk:
                return raw + rest
            rest += chunk
        line, rest = rest.split(b"\r\n", 1)
        raw += line + b"\r\n"
        size = int(line, 16)
        data, rest = read_exact(conn, rest, size + 2)
        raw += data
        if size == 0:
            return raw


def read_body(conn, head, rest):
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            k, v = line.split(b":", 1)
            fields[k.strip().lower()] = v.strip()
    if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
        return read_chunked(conn, rest)
    n = int(fields.get(b"content-length", b"0") or 0)
    body, _ = read_exact(conn, rest, n)
    return body


def record(path, head, body):
    with record_lock, open(path, "ab") as f:
        f.write(b"=== request\n" + head + body + b"\n")


def send_head(conn, status, ctype, extra=b""):
    conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: " + ctype +
                 b"\r\n" + extra + b"Connection: close\r\n\r\n")


def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)


def sse(conn, n, ms):
    send_head(conn, b"200 OK", b"text/event-stream", b"Transfer-Encoding: chunked\r\n")
    for i in range(1, n + 1):
        conn.sendall(chunk(b"data: event %d\n\n" % i))
        if i < n:
            time.sleep(ms / 1000.0)
    conn.sendall(b"0\r\n\r\n")


def reset(conn):
    send_head(conn, b"200 OK", b"text/event-stream", b"Transfer-Encoding: chunked\r\n")
    conn.sendall(chunk(b"data: event 1\n\n"))
    time.sleep(0.2)
    # Linger 0: the close below sends a TCP reset, no close_notify.
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def reply(conn, head, body):
    target = head.split(b" ")[1].decode("latin-1")
    url = urllib.parse.urlsplit(target)
    q = dict(urllib.parse.parse_qsl(url.query))
    path = url.path
    if path == "/v1/sse":
        sse(conn, int(q.get("n", 5)), int(q.get("ms", 300)))
    elif path == "/v1/stall":
        send_head(conn, b"200 OK", b"text/event-stream", b"Transfer-Encoding: chunked\r\n")
        conn.sendall(chunk(b"data: event 1\n\n"))
        time.sleep(60)
    elif path == "/v1/stall-head":
        time.sleep(60)
    elif path == "/v1/reset":
        reset(conn)
    elif path == "/v1/echo":
        send_head(conn, b"200 OK", b"text/plain", b"Content-Length: %d\r\n" % len(head))
        conn.sendall(head)
    elif path == "/v1/big":
        data = b"x" * (int(q.get("kb", 1024)) * 1024)
        send_head(conn, b"200 OK", b"application/octet-stream",
                  b"Content-Length: %d\r\n" % len(data))
        conn.sendall(data)
    else:
        out = b'{"ok":true,"method":"%s","path":"%s","body_len":%d}' % (
            head.split(b" ")[0], path.encode(), len(body))
        send_head(conn, b"200 OK", b"application/json", b"Content-Length: %d\r\n" % len(out))
        conn.sendall(out)


WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def ws_read(conn, rest):
    """One frame: (opcode, payload, rest), opcode None at the end."""
    hdr, rest = read_exact(conn, rest, 2)
    if len(hdr) < 2:
        return None, b"", rest
    n = hdr[1] & 0x7F
    if n == 126:
        ext, rest = read_exact(conn, rest, 2)
        n = struct.unpack("!H", ext)[0]
    elif n == 127:
        ext, rest = read_exact(conn, rest, 8)
        n = struct.unpack("!Q", ext)[0]
    mask = b""
    if hdr[1] & 0x80:
        mask, rest = read_exact(conn, rest, 4)
    data, rest = read_exact(conn, rest, n)
    if mask:
        data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    return hdr[0] & 0x0F, data, rest


def ws_frame(op, data):
    n = len(data)
    if n < 126:
        return struct.pack("!BB", 0x80 | op, n) + data
    if n < 1 << 16:
        return struct.pack("!BBH", 0x80 | op, 126, n) + data
    return struct.pack("!BBQ", 0x80 | op, 127, n) + data


def websocket(conn, head, rest, path, rec):
    key = b""
    for line in head.split(b"\r\n")[1:]:
        if line.lower().startswith(b"sec-websocket-key:"):
            key = line.split(b":", 1)[1].strip()
    accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest())
    if path == "/v1/ws-badaccept":
        accept = base64.b64encode(hashlib.sha1(b"other" + WS_GUID).digest())
    extra = b"Sec-WebSocket-Extensions: permessage-deflate\r\n" if path == "/v1/ws-ext" else b""
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n" + extra +
                 b"\r\n")
    while True:
        op, data, rest = ws_read(conn, rest)
        if op is None:
            return
        with record_lock, open(rec, "ab") as f:
            f.write(b"=== ws-message\n" + data[:64] + (b"..." if len(data) > 64 else b"") + b"\n")
        if op == 8:
            conn.sendall(ws_frame(8, data[:2]))
            return
        if op == 2:
            conn.sendall(ws_frame(1, b"binary %d" % len(data)))
        elif data == b"head":
            conn.sendall(ws_frame(1, head))
        elif data == b"close":
            conn.sendall(ws_frame(8, struct.pack("!H", 1000)))
            return
        elif op == 1:
            conn.sendall(ws_frame(1, b"echo: " + data))


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        # Small writes (a head, one event) leave at once, as a real API's do.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            conn = self.server.tls.wrap_socket(self.request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # a client that refused our certificate: nothing recorded
        try:
            head, rest = read_head(conn)
            if head is None:
                return
            path = urllib.parse.urlsplit(head.split(b" ")[1].decode("latin-1")).path
            if b"\r\nupgrade: websocket" in head.lower() and path.startswith("/v1/ws"):
                record(self.server.record, head, b"")
                websocket(conn, head, rest, path, self.server.record)
                return
            body = read_body(conn, head, rest)
            record(self.server.record, head, body)
            reply(conn, head, body)
        except (OSError, ValueError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--port-file", required=True)
    a = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    srv.tls.load_cert_chain(a.cert, a.key)
    srv.record = a.record
    open(a.record, "ab").close()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
