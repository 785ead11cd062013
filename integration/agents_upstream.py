#!/usr/bin/env python3
"""A fake model API for the real-agent suite and bench/agents.sh: one server
that speaks the three streaming formats the agents use and scripts the same
tool-use conversation for each, so that a real Claude Code, Codex or Gemini
CLI does real work against it.

  Anthropic  POST /v1/messages            SSE (message_start ... tool_use)
             POST /v1/messages/count_tokens
  OpenAI     POST /v1/responses           SSE (response.output_item.done ...)
             GET  /v1/responses + Upgrade: websocket   the same events as
                                          text frames, one response.create in
  Gemini     POST /v1beta/models/M:streamGenerateContent?alt=sse  (functionCall)
             POST /v1beta/models/M:generateContent / :countTokens

The conversation (when the prompt holds "revrun-agent-test workdir=DIR"):
write NOTES.md, edit hello.txt ("world" -> "revrun"), run one shell command
(`git status --short; git diff`, the checkout's tests (`python3 -B -m
unittest`: -B, so no bytecode joins the change set), `git add -A; git
commit`, a name lookup,
`printf 'SHELL-%s\\n' 42`:
its output, never its text, holds "SHELL-42"), then
a final answer. Each
step is chosen from the history the request carries (how many tool results
came back), so retries and parallel side requests (titles, routing,
token counts) do not derail it. A tool result that reports an error ends the
conversation at once with "SCRIPT-ABORTED", so a failing test shows why.

Every request is recorded raw (head and body) to --record, and each
WebSocket message the client sent as "=== ws-message"; a test greps them for
the credential that arrived. Listens on loopback only: TLS on an ephemeral
port (--port-file), and plain HTTP on another (--plain-port-file) for runs
outside revrun. Stdlib only.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import socket
import socketserver
import ssl
import struct
import threading
import urllib.parse

record_lock = threading.Lock()
counter_lock = threading.Lock()
counter = [0]

NOTES = "Reviewed by the revrun agent suite.\n"
OLD, NEW = "world", "revrun"
# The shell step also asks the sandbox's resolver for a name: "dns -2"
# (EAI_NONAME, an NXDOMAIN answer) is what revrun promises inside.
# --no-ext-diff: Gemini CLI runs commands with diff.external set to "",
# which git 2.39 tries to run.
# Then the tests run, as an agent runs them after its edit (the fixture's
# test_hello.py; where a checkout has none, the error is the output).
# Then it commits, as agents do: the change set stays the worktree change
# and the subject shows in the summary. In a subshell, so that where an
# agent's own sandbox keeps .git read-only the rest still runs.
SHELL = ("git status --short; git diff --no-ext-diff; "
         "python3 -B -m unittest -q test_hello 2>&1 | tail -n 1; (git add -A && git -c user.name=agent "
         "-c user.email=agent@example.invalid commit -qm 'revrun-agent-commit: notes and "
         "greeting' && git log --format=COMMITTED-%s -1); python3 -c \"import socket\n"
         "try: socket.getaddrinfo('model-api.example', 443); print('dns resolved')\n"
         "except socket.gaierror as e: print('dns', e.errno)\"; printf 'SHELL-%s\\n' 42")
DONE = "Review finished: NOTES.md written, hello.txt edited."
MARKER = re.compile(r"revrun-agent-test workdir=(/[A-Za-z0-9._/-]*)")
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def next_id(prefix):
    with counter_lock:
        counter[0] += 1
        return "%s_%d" % (prefix, counter[0])


# ---- plumbing ------------------------------------------------------------

def read_head(conn, buf):
    while b"\r\n\r\n" not in buf:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        buf += chunk
        if len(buf) > 1 << 20:
            return None, b""
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head + b"\r\n\r\n", rest


def read_exact(conn, rest, n):
    while len(rest) < n:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return rest[:n], rest[n:]


def read_chunked(conn, rest):
    body = b""
    while True:
        while b"\r\n" not in rest:
            chunk = conn.recv(65536)
            if not chunk:
                return body
            rest += chunk
        line, rest = rest.split(b"\r\n", 1)
        size = int(line.split(b";")[0], 16)
        data, rest = read_exact(conn, rest, size + 2)
        if size == 0:
            return body
        body += data[:-2]


def fields_of(head):
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            k, v = line.split(b":", 1)
            fields[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    return fields


def read_body(conn, fields, rest):
    if fields.get("transfer-encoding", "").lower() == "chunked":
        return read_chunked(conn, rest)
    body, _ = read_exact(conn, rest, int(fields.get("content-length", "0") or 0))
    return body


def record(path, kind, data):
    with record_lock, open(path, "ab") as f:
        f.write(b"=== " + kind + b"\n" + data + b"\n")


def send_head(conn, status, ctype, extra=b""):
    conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: " + ctype + b"\r\n" + extra +
                 b"Connection: close\r\n\r\n")


def send_json(conn, obj, status=b"200 OK"):
    out = json.dumps(obj).encode()
    send_head(conn, status, b"application/json", b"Content-Length: %d\r\n" % len(out))
    conn.sendall(out)


class SSE:
    """Server-sent events, chunked, each event its own chunk (as the APIs do)."""

    def __init__(self, conn):
        self.conn = conn
        send_head(conn, b"200 OK", b"text/event-stream", b"Transfer-Encoding: chunked\r\n"
                  b"Cache-Control: no-cache\r\n")

    def event(self, obj, name=None):
        data = (b"event: %s\n" % name.encode() if name else b"") + \
            b"data: " + json.dumps(obj).encode() + b"\n\n"
        self.conn.sendall(b"%x\r\n%s\r\n" % (len(data), data))

    def end(self):
        self.conn.sendall(b"0\r\n\r\n")


def workdir_of(body_text):
    m = MARKER.search(body_text)
    return m.group(1).rstrip("/") if m else None


# ---- Anthropic Messages ---------------------------------------------------

def anthropic_step(req):
    """(step, aborted) from the history: how many tool results came back."""
    n = 0
    for msg in req.get("messages", []):
        content = msg.get("content")
        if msg.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                if block.get("is_error"):
                    return n, True
                n += 1
    return n, False


def anthropic_plan(req, workdir):
    step, aborted = anthropic_step(req)
    if aborted:
        return ("text", "SCRIPT-ABORTED: a tool failed")
    plan = [
        ("Write", {"file_path": workdir + "/NOTES.md", "content": NOTES}),
        ("Read", {"file_path": workdir + "/hello.txt"}),
        ("Edit", {"file_path": workdir + "/hello.txt", "old_string": OLD, "new_string": NEW}),
        ("Bash", {"command": SHELL, "description": "Show the change set"}),
    ]
    if step < len(plan):
        return ("tool", plan[step])
    return ("text", DONE)


def anthropic_messages(conn, req, body_text):
    tools = {t.get("name") for t in req.get("tools", []) if isinstance(t, dict)}
    workdir = workdir_of(body_text)
    if workdir and "Write" in tools:
        kind, what = anthropic_plan(req, workdir)
    else:
        kind, what = "text", "ok"  # titles, summaries, quota probes
    if not req.get("stream"):
        if kind == "tool":
            content = [{"type": "tool_use", "id": next_id("toolu"), "name": what[0],
                        "input": what[1]}]
        else:
            content = [{"type": "text", "text": what}]
        send_json(conn, {"id": next_id("msg"), "type": "message", "role": "assistant",
                         "model": req.get("model", "fake"), "content": content,
                         "stop_reason": "tool_use" if kind == "tool" else "end_turn",
                         "stop_sequence": None,
                         "usage": {"input_tokens": 10, "output_tokens": 5}})
        return
    s = SSE(conn)
    s.event({"type": "message_start", "message": {
        "id": next_id("msg"), "type": "message", "role": "assistant",
        "model": req.get("model", "fake"), "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}},
        "message_start")
    if kind == "tool":
        s.event({"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": next_id("toolu"), "name": what[0], "input": {}}},
            "content_block_start")
        s.event({"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps(what[1])}},
            "content_block_delta")
    else:
        s.event({"type": "content_block_start", "index": 0,
                 "content_block": {"type": "text", "text": ""}}, "content_block_start")
        s.event({"type": "content_block_delta", "index": 0,
                 "delta": {"type": "text_delta", "text": what}}, "content_block_delta")
    s.event({"type": "content_block_stop", "index": 0}, "content_block_stop")
    s.event({"type": "message_delta", "delta": {
        "stop_reason": "tool_use" if kind == "tool" else "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 5}}, "message_delta")
    s.event({"type": "message_stop"}, "message_stop")
    s.end()


# ---- OpenAI Responses -----------------------------------------------------

def responses_step(items):
    n = 0
    for it in items:
        if isinstance(it, dict) and it.get("type") in ("function_call_output",
                                                      "custom_tool_call_output"):
            out = it.get("output")
            text = out if isinstance(out, str) else json.dumps(out)
            # exec_command reports "Process exited with code N"; apply_patch
            # "Success" or an error line.
            if re.search(r"exited with code [1-9]|apply_patch verification failed|"
                         r"failed to|No such file|sandbox denied|Permission denied", text, re.I):
                return n, True
            n += 1
    return n, False


def responses_tools(req):
    tools = {}
    for t in req.get("tools", []):
        if isinstance(t, dict) and t.get("name"):
            tools[t["name"]] = t.get("type")
    return tools


def patch_item(tools, patch):
    if tools.get("apply_patch") == "custom":
        return {"type": "custom_tool_call", "id": next_id("ctc"), "call_id": next_id("call"),
                "name": "apply_patch", "input": patch, "status": "completed"}
    return {"type": "function_call", "id": next_id("fc"), "call_id": next_id("call"),
            "name": "apply_patch", "arguments": json.dumps({"input": patch}),
            "status": "completed"}


def shell_item(tools, workdir):
    if "exec_command" in tools:
        name, args = "exec_command", {"cmd": SHELL, "workdir": workdir}
    elif "shell_command" in tools:
        name, args = "shell_command", {"command": SHELL, "workdir": workdir}
    else:
        name, args = "shell", {"command": ["bash", "-lc", SHELL], "workdir": workdir}
    return {"type": "function_call", "id": next_id("fc"), "call_id": next_id("call"),
            "name": name, "arguments": json.dumps(args), "status": "completed"}


def message_item(text):
    return {"type": "message", "id": next_id("msg"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def responses_plan(req, items, workdir):
    tools = responses_tools(req)
    if not workdir or not tools:
        return message_item("ok")
    step, aborted = responses_step(items)
    if aborted:
        return message_item("SCRIPT-ABORTED: a tool failed")
    if step == 0:
        return patch_item(tools, "*** Begin Patch\n*** Add File: NOTES.md\n" +
                          "".join("+" + l + "\n" for l in NOTES.splitlines()) +
                          "*** End Patch\n")
    if step == 1:
        return patch_item(tools, "*** Begin Patch\n*** Update File: hello.txt\n@@\n"
                          "-hello %s\n+hello %s\n*** End Patch\n" % (OLD, NEW))
    if step == 2:
        return shell_item(tools, workdir)
    return message_item(DONE)


def responses_events(req, item):
    """The event objects of one response that outputs item."""
    rid = next_id("resp")
    base = {"id": rid, "object": "response", "model": req.get("model", "fake"),
            "status": "in_progress", "output": []}
    done = dict(base, status="completed", output=[item],
                usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                       "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                       "total_tokens": 15})
    ev = [{"type": "response.created", "response": base},
          {"type": "response.in_progress", "response": base},
          {"type": "response.output_item.added", "output_index": 0,
           "item": dict(item, status="in_progress")}]
    if item["type"] == "message":
        ev.append({"type": "response.output_text.delta", "item_id": item["id"],
                   "output_index": 0, "content_index": 0,
                   "delta": item["content"][0]["text"]})
    ev += [{"type": "response.output_item.done", "output_index": 0, "item": item},
           {"type": "response.completed", "response": done}]
    return rid, ev


def responses_http(conn, req, body_text):
    _, events = responses_events(req, responses_plan(req, req.get("input", []),
                                                     workdir_of(body_text)))
    s = SSE(conn)
    for e in events:
        s.event(e, e["type"])
    s.end()


# -- WebSocket (RFC 6455), server side: enough for one client at a time ---

def ws_recv(conn, rest):
    """One whole message: (opcode, payload, rest); opcode None at EOF."""
    payload, first_op = b"", None
    while True:
        hdr, rest = read_exact(conn, rest, 2)
        if len(hdr) < 2:
            return None, b"", rest
        fin, op = hdr[0] & 0x80, hdr[0] & 0x0F
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
        if op >= 8:  # control frames may come between fragments
            if op == 9:
                ws_send(conn, 10, data)
                continue
            if op == 10:
                continue
            return op, data, rest
        if first_op is None:
            first_op = op
        payload += data
        if fin:
            return first_op, payload, rest


def ws_send(conn, op, data):
    n = len(data)
    if n < 126:
        hdr = struct.pack("!BB", 0x80 | op, n)
    elif n < 1 << 16:
        hdr = struct.pack("!BBH", 0x80 | op, 126, n)
    else:
        hdr = struct.pack("!BBQ", 0x80 | op, 127, n)
    conn.sendall(hdr + data)


def responses_ws(conn, fields, rest, server):
    key = fields.get("sec-websocket-key", "").encode()
    accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest())
    # No Sec-WebSocket-Extensions: frames stay uncompressed.
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    history = []  # input items of this connection's conversation so far
    outputs = {}  # response id -> the item it output
    while True:
        op, data, rest = ws_recv(conn, rest)
        if op is None or op == 8:
            if op == 8:
                ws_send(conn, 8, data[:2])
            return
        record(server.record, b"ws-message", data)
        try:
            msg = json.loads(data)
        except ValueError:
            continue
        if msg.get("type") != "response.create":
            continue
        prev = msg.get("previous_response_id")
        if prev and prev in outputs:
            history = history + [outputs[prev]] + list(msg.get("input", []))
        else:
            history = list(msg.get("input", []))
        if msg.get("generate") is False:  # a warm-up: no output
            item = None
            rid = next_id("resp")
            events = [{"type": "response.created", "response": {"id": rid, "output": []}},
                      {"type": "response.completed", "response": {
                          "id": rid, "status": "completed", "output": [],
                          "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}}}]
        else:
            # The marker came with the first request of the connection.
            item = responses_plan(msg, history, workdir_of(json.dumps(history)))
            rid, events = responses_events(msg, item)
        outputs[rid] = item if item is not None else {"type": "message", "content": []}
        for e in events:
            ws_send(conn, 1, json.dumps(e).encode())


# ---- Gemini ---------------------------------------------------------------

def gemini_step(req):
    n = 0
    for c in req.get("contents", []):
        for p in c.get("parts", []) if isinstance(c, dict) else []:
            fr = p.get("functionResponse") if isinstance(p, dict) else None
            if fr is not None:
                resp = json.dumps(fr.get("response", {}))
                if '"error"' in resp or "was blocked" in resp:
                    return n, True
                n += 1
    return n, False


def gemini_plan(req, workdir):
    names = set()
    for t in req.get("tools", []):
        for f in t.get("functionDeclarations", []) if isinstance(t, dict) else []:
            names.add(f.get("name"))
    if not workdir or "write_file" not in names:
        cfg = req.get("generationConfig", {})
        if cfg.get("responseMimeType") == "application/json":  # the model router
            return {"text": json.dumps({"complexity_reasoning": "scripted",
                                        "complexity_score": 10,
                                        "reasoning": "scripted", "model_choice": "flash"})}
        return {"text": "ok"}
    step, aborted = gemini_step(req)
    if aborted:
        return {"text": "SCRIPT-ABORTED: a tool failed"}
    plan = [
        ("write_file", {"file_path": workdir + "/NOTES.md", "content": NOTES}),
        ("replace", {"file_path": workdir + "/hello.txt", "old_string": OLD,
                     "new_string": NEW, "instruction": "Greet revrun instead of the world."}),
        ("run_shell_command", {"command": SHELL, "description": "Show the change set"}),
    ]
    if step < len(plan):
        return {"functionCall": {"name": plan[step][0], "args": plan[step][1]}}
    return {"text": DONE}


def gemini_chunk(part):
    return {"candidates": [{"content": {"parts": [part], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": "fake"}


def gemini(conn, path, req, body_text):
    if path.endswith(":countTokens"):
        send_json(conn, {"totalTokens": 10})
        return
    part = gemini_plan(req, workdir_of(body_text))
    if path.endswith(":streamGenerateContent"):
        s = SSE(conn)
        s.event(gemini_chunk(part))
        s.end()
    else:
        send_json(conn, gemini_chunk(part))


# ---- dispatch -------------------------------------------------------------

def handle(conn, server):
    head, rest = read_head(conn, b"")
    if head is None:
        return
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    method, target = line.split(" ")[0], line.split(" ")[1]
    path = urllib.parse.urlsplit(target).path
    fields = fields_of(head)
    if fields.get("upgrade", "").lower() == "websocket":
        record(server.record, b"request", head)
        if method == "GET" and path.endswith("/responses"):
            responses_ws(conn, fields, rest, server)
        else:
            send_json(conn, {"error": {"message": "no websocket here"}}, b"404 Not Found")
        return
    body = read_body(conn, fields, rest)
    record(server.record, b"request", head + body)
    text = body.decode("utf-8", "replace")
    try:
        req = json.loads(body) if body else {}
    except ValueError:
        req = {}
    if method == "POST" and path.endswith("/messages/count_tokens"):
        send_json(conn, {"input_tokens": 10})
    elif method == "POST" and path.endswith("/messages"):
        anthropic_messages(conn, req, text)
    elif method == "POST" and path.endswith("/responses"):
        responses_http(conn, req, text)
    elif method == "POST" and path.startswith("/v1beta/models/"):
        gemini(conn, path, req, text)
    elif method == "GET" and path.endswith("/models"):
        send_json(conn, {"object": "list", "data": [], "models": []})
    else:
        send_json(conn, {"error": {"message": "not scripted: %s %s" % (method, path)}},
                  b"404 Not Found")


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = self.request
        if self.server.tls is not None:
            try:
                conn = self.server.tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                return
        try:
            handle(conn, self.server)
        except (OSError, ValueError, KeyError, IndexError):
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


def publish(path, port):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--record", required=True)
    ap.add_argument("--port-file", help="TLS port (needs --cert, --key)")
    ap.add_argument("--plain-port-file", help="plain HTTP port")
    a = ap.parse_args()
    open(a.record, "ab").close()
    servers = []
    if a.port_file:
        srv = Server(("127.0.0.1", 0), Handler)
        srv.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        srv.tls.load_cert_chain(a.cert, a.key)
        servers.append((srv, a.port_file))
    if a.plain_port_file:
        srv = Server(("127.0.0.1", 0), Handler)
        srv.tls = None
        servers.append((srv, a.plain_port_file))
    for srv, _ in servers:
        srv.record = a.record
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    for srv, pf in servers:
        publish(pf, srv.server_address[1])
    threading.Event().wait()


if __name__ == "__main__":
    main()
