#!/usr/bin/python3
"""A CRI client for the tests, in place of crictl (which CI cannot fetch):
speaks the CRI v1 gRPC API of cri.proto (compiled here at first use with
Debian's python3-grpc-tools) to containerd's CRI plugin on a unix socket.

  cri.py [--sock PATH] [--gen DIR] COMMAND ARGS...

  version | status                       the runtime's answers, as JSON
  runp POD.json [HANDLER]                run a pod sandbox; prints its id
  stopp ID | rmp ID | inspectp ID        stop, remove, status (JSON) of a pod
  pods                                   the pod sandboxes (JSON list)
  create POD_ID CTR.json POD.json        create a container; prints its id
  start ID | stop ID [SECS] | rm ID      container lifecycle
  inspect ID                             container status (JSON)
  ps [POD_ID]                            containers (JSON list)
  stats ID                               container stats (JSON)
  update ID RES.json                     UpdateContainerResources
  exec-sync ID [--timeout S] -- CMD...   ExecSync: stdout, stderr, exit code
  exec ID [--tty] [--stdin TEXT] -- CMD...
                                         Exec through the streaming server
                                         (WebSocket, v4.channel.k8s.io)
  wait ID STATE [SECS]                   until the container is in STATE
                                         (created|running|exited); exit 1
                                         if it never gets there
  images | image-status REF              the image service

POD.json and CTR.json are PodSandboxConfig and ContainerConfig in the
protobuf JSON mapping (field names as in cri.proto). A gRPC error prints
"ERROR CODE: details" on stderr and exits 2."""
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


def load(gen):
    """Compile cri.proto into gen (once; again when the proto is newer)."""
    proto = os.path.join(HERE, "cri.proto")
    out = os.path.join(gen, "cri_pb2_grpc.py")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(proto):
        os.makedirs(gen, exist_ok=True)
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", HERE,
                        "--python_out=" + gen, "--grpc_python_out=" + gen, proto],
                       check=True)
    sys.path.insert(0, gen)
    import cri_pb2
    import cri_pb2_grpc
    return cri_pb2, cri_pb2_grpc


class Client:
    def __init__(self, sock, gen):
        import grpc
        self.pb, grpcmod = load(gen)
        ch = grpc.insecure_channel("unix://" + sock)
        self.rt = grpcmod.RuntimeServiceStub(ch)
        self.img = grpcmod.ImageServiceStub(ch)

    def msg(self, name, **kw):
        return getattr(self.pb, name)(**kw)

    def parse(self, name, path):
        from google.protobuf import json_format
        with open(path) as f:
            return json_format.Parse(f.read(), getattr(self.pb, name)())


def as_json(m):
    from google.protobuf import json_format
    return json.dumps(json_format.MessageToDict(m, preserving_proto_field_name=True),
                      sort_keys=True)


def cmd_runp(c, args):
    req = c.msg("RunPodSandboxRequest", config=c.parse("PodSandboxConfig", args[0]),
                runtime_handler=args[1] if len(args) > 1 else "")
    print(c.rt.RunPodSandbox(req, timeout=120).pod_sandbox_id)


def cmd_create(c, args):
    req = c.msg("CreateContainerRequest", pod_sandbox_id=args[0],
                config=c.parse("ContainerConfig", args[1]),
                sandbox_config=c.parse("PodSandboxConfig", args[2]))
    print(c.rt.CreateContainer(req, timeout=120).container_id)


def cmd_simple(c, verb, args):
    if verb in ("stopp", "rmp"):
        req = c.msg("PodSandboxIdRequest", pod_sandbox_id=args[0])
        (c.rt.StopPodSandbox if verb == "stopp" else c.rt.RemovePodSandbox)(req, timeout=120)
    elif verb == "stop":
        secs = int(args[1]) if len(args) > 1 else 0
        c.rt.StopContainer(c.msg("StopContainerRequest", container_id=args[0], timeout=secs),
                           timeout=secs + 120)
    else:
        call = {"start": c.rt.StartContainer, "rm": c.rt.RemoveContainer}[verb]
        call(c.msg("ContainerIdRequest", container_id=args[0]), timeout=120)


def cmd_query(c, verb, args):
    if verb == "version":
        r = c.rt.Version(c.msg("VersionRequest", version="v1"))
    elif verb == "status":
        r = c.rt.Status(c.msg("StatusRequest"))
    elif verb == "inspectp":
        r = c.rt.PodSandboxStatus(c.msg("PodSandboxStatusRequest", pod_sandbox_id=args[0],
                                        verbose=True))
    elif verb == "inspect":
        r = c.rt.ContainerStatus(c.msg("ContainerStatusRequest", container_id=args[0],
                                       verbose=True))
    elif verb == "pods":
        r = c.rt.ListPodSandbox(c.msg("ListPodSandboxRequest"))
    elif verb == "ps":
        flt = c.msg("ContainerFilter", pod_sandbox_id=args[0] if args else "")
        r = c.rt.ListContainers(c.msg("ListContainersRequest", filter=flt))
    elif verb == "stats":
        r = c.rt.ContainerStats(c.msg("ContainerIdRequest", container_id=args[0]))
    elif verb == "images":
        r = c.img.ListImages(c.msg("ListImagesRequest"))
    else:
        spec = c.msg("ImageSpec", image=args[0])
        r = c.img.ImageStatus(c.msg("ImageStatusRequest", image=spec))
    print(as_json(r))


def cmd_update(c, args):
    res = c.parse("LinuxContainerResources", args[1])
    c.rt.UpdateContainerResources(c.msg("UpdateContainerResourcesRequest",
                                        container_id=args[0], linux=res), timeout=60)


def split_cmd(args):
    """Options before "--", the command after it."""
    if "--" not in args:
        sys.exit("cri.py: the command goes after --")
    i = args.index("--")
    return args[:i], args[i + 1:]


def cmd_exec_sync(c, args):
    opts, cmd = split_cmd(args)
    secs = int(opts[opts.index("--timeout") + 1]) if "--timeout" in opts else 0
    r = c.rt.ExecSync(c.msg("ExecSyncRequest", container_id=opts[0], cmd=cmd, timeout=secs),
                      timeout=(secs or 60) + 60)
    sys.stdout.buffer.write(r.stdout)
    sys.stderr.buffer.write(r.stderr)
    sys.exit(r.exit_code)


def cmd_wait(c, args):
    want = {"created": 0, "running": 1, "exited": 2}[args[1]]
    end = time.monotonic() + (float(args[2]) if len(args) > 2 else 60)
    while True:
        r = c.rt.ContainerStatus(c.msg("ContainerStatusRequest", container_id=args[0]))
        if r.status.state == want:
            return
        if time.monotonic() > end:
            print("state %d, not %s" % (r.status.state, args[1]), file=sys.stderr)
            sys.exit(1)
        time.sleep(0.1)


# --- Exec's streaming side: a WebSocket client (RFC 6455) for the
# Kubernetes channel protocol: every binary message starts with its channel
# (0 stdin, 1 stdout, 2 stderr, 3 error/status, 4 resize).

def ws_frame(op, data):
    mask = os.urandom(4)
    n = len(data)
    if n < 126:
        hdr = bytes([0x80 | op, 0x80 | n])
    elif n < 1 << 16:
        hdr = bytes([0x80 | op, 0x80 | 126]) + struct.pack("!H", n)
    else:
        hdr = bytes([0x80 | op, 0x80 | 127]) + struct.pack("!Q", n)
    return hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        part = s.recv(n - len(buf))
        if not part:
            raise EOFError
        buf += part
    return buf


def ws_read(s):
    """One message: (opcode, payload); continuation frames joined."""
    data, op = b"", None
    while True:
        b0, b1 = recv_exact(s, 2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", recv_exact(s, 2))[0]
        elif n == 127:
            n = struct.unpack("!Q", recv_exact(s, 8))[0]
        key = recv_exact(s, 4) if b1 & 0x80 else None
        part = recv_exact(s, n)
        if key:
            part = bytes(b ^ key[i % 4] for i, b in enumerate(part))
        op = op if (b0 & 0x0F) == 0 else b0 & 0x0F
        data += part
        if b0 & 0x80:
            return op, data


def ws_connect(url):
    u = urllib.parse.urlsplit(url)
    s = socket.create_connection((u.hostname, u.port or 80), timeout=60)
    key = base64.b64encode(os.urandom(16)).decode()
    path = u.path + ("?" + u.query if u.query else "")
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\nOrigin: http://%s\r\n"
               "Sec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n"
               % (path, u.netloc, key, u.netloc)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        part = s.recv(1)
        if not part:
            raise EOFError("no handshake answer")
        head += part
    status = head.split(b"\r\n", 1)[0]
    if b" 101 " not in status + b" ":
        sys.exit("cri.py exec: %s" % status.decode(errors="replace"))
    return s


def exit_of(status):
    """The exit code in a v4 status message (0 on Success)."""
    try:
        st = json.loads(status)
    except ValueError:
        return 126
    if st.get("status") == "Success":
        return 0
    for cause in st.get("details", {}).get("causes", []):
        if cause.get("reason") == "ExitCode":
            return int(cause.get("message", "1"))
    print("exec: %s" % st.get("message", status), file=sys.stderr)
    return 126


def cmd_exec(c, args):
    opts, cmd = split_cmd(args)
    tty = "--tty" in opts
    stdin = opts[opts.index("--stdin") + 1].encode() if "--stdin" in opts else None
    req = c.msg("ExecRequest", container_id=opts[0], cmd=cmd, tty=tty,
                stdin=stdin is not None, stdout=True, stderr=not tty)
    s = ws_connect(c.rt.Exec(req, timeout=60).url)
    if stdin is not None:
        s.sendall(ws_frame(2, b"\x00" + stdin))
    code = 126
    try:
        while True:
            op, data = ws_read(s)
            if op == 8:
                break
            if op not in (1, 2) or not data:
                continue
            ch, payload = data[0], data[1:]
            if ch == 1:
                sys.stdout.buffer.write(payload)
                sys.stdout.flush()
            elif ch == 2:
                sys.stderr.buffer.write(payload)
            elif ch == 3:
                code = exit_of(payload)
    except EOFError:
        pass
    s.close()
    sys.exit(code)


def main(argv):
    sock = os.environ.get("CRI_SOCK", "")
    gen = os.environ.get("CRI_GEN", os.path.join(os.environ.get("TMPDIR", "/tmp"), "cri-gen"))
    while argv and argv[0].startswith("--"):
        if argv[0] == "--sock":
            sock = argv[1]
        elif argv[0] == "--gen":
            gen = argv[1]
        else:
            sys.exit("cri.py: unknown option %s" % argv[0])
        argv = argv[2:]
    if not argv or not sock:
        sys.exit(__doc__)
    import grpc
    c = Client(sock, gen)
    verb, args = argv[0], argv[1:]
    table = {"runp": cmd_runp, "create": cmd_create, "update": cmd_update,
             "exec-sync": cmd_exec_sync, "exec": cmd_exec, "wait": cmd_wait}
    try:
        if verb in table:
            table[verb](c, args)
        elif verb in ("stopp", "rmp", "start", "stop", "rm"):
            cmd_simple(c, verb, args)
        elif verb in ("version", "status", "inspectp", "inspect", "pods", "ps", "stats", "images",
                      "image-status"):
            cmd_query(c, verb, args)
        else:
            sys.exit("cri.py: unknown command %s" % verb)
    except grpc.RpcError as e:
        print("ERROR %s: %s" % (e.code().name, e.details()), file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
