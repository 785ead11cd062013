#!/usr/bin/env python3
"""The agent's side of the WebSocket egress tests: a client that speaks RFC
6455 over plain TCP to the relay, as an agent's SDK would.

  ws_client.py [--port P] [--path PATH] [--head 'Name: value' ...]
               [--send TEXT ...] [--send-big N] [--unmasked TEXT] [--last TEXT]
               [--wait S]

Sends the handshake (plus --head fields), prints the status line the
broker relayed ("STATUS 101"), then sends the messages (masked, as a client
must): the --send ones in order, a binary one of N bytes, one frame
without a mask (--unmasked; no client may send that), and --last and prints every message that comes back as "MSG <text>"
(a big one as "MSG <n> bytes"), then "CLOSE <code>" or "EOF". Exit 0
when the handshake was answered, 1 otherwise; never waits longer than
--wait seconds in all. Stdlib only."""
import argparse
import base64
import os
import socket
import struct
import sys
import time


def frame(op, data, masked=True):
    n = len(data)
    first = bytes([0x80 | op])
    bit = 0x80 if masked else 0
    if n < 126:
        hdr = first + bytes([bit | n])
    elif n < 1 << 16:
        hdr = first + bytes([bit | 126]) + struct.pack("!H", n)
    else:
        hdr = first + bytes([bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return hdr + data
    mask = os.urandom(4)
    return hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


class Reader:
    def __init__(self, sock, deadline):
        self.sock, self.buf, self.deadline = sock, b"", deadline

    def need(self, n):
        while len(self.buf) < n:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def head(self):
        while b"\r\n\r\n" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return head

    def message(self):
        b0, b1 = self.need(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self.need(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self.need(8))[0]
        if b1 & 0x80:
            self.need(4)  # a server must not mask; read past it anyway
        return b0 & 0x0F, self.need(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--path", default="/v1/ws")
    ap.add_argument("--head", action="append", default=[])
    ap.add_argument("--send", action="append", default=[])
    ap.add_argument("--send-big", type=int, default=0)
    ap.add_argument("--unmasked")
    ap.add_argument("--last", help="a text message sent after all the others")
    ap.add_argument("--wait", type=float, default=10)
    a = ap.parse_args()
    deadline = time.monotonic() + a.wait
    s = socket.create_connection(("127.0.0.1", a.port), timeout=a.wait)
    key = base64.b64encode(os.urandom(16))
    head = (b"GET " + a.path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Key: " + key + b"\r\n" +
            b"".join(h.encode() + b"\r\n" for h in a.head) + b"\r\n")
    s.sendall(head)
    r = Reader(s, deadline)
    try:
        status = r.head()
    except (EOFError, TimeoutError, socket.timeout, OSError):
        print("NO-ANSWER")
        return 1
    lines = status.decode("latin-1").split("\r\n")
    print("STATUS " + lines[0].split(" ")[1])
    for line in lines[1:]:
        print("HEAD " + line)
    if not lines[0].split(" ")[1] == "101":
        print("BODY " + r.buf.decode("latin-1").strip())
        return 0
    out = [frame(1, m.encode()) for m in a.send]
    if a.send_big:
        out.append(frame(2, b"b" * a.send_big))
    if a.unmasked is not None:
        out.append(frame(1, a.unmasked.encode(), masked=False))
    if a.last is not None:
        out.append(frame(1, a.last.encode()))
    try:
        for f in out:
            s.sendall(f)
        while True:
            op, data = r.message()
            if op == 8:
                code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else 1005
                print("CLOSE %d" % code)
                break
            if len(data) > 200:
                print("MSG %d bytes" % len(data))
            else:
                print("MSG " + data.decode("utf-8", "replace"))
            sys.stdout.flush()
    except EOFError:
        print("EOF")
    except (TimeoutError, socket.timeout):
        print("TIMEOUT")
    except OSError:
        print("RESET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
