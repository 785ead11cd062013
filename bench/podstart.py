#!/usr/bin/python3
"""Pod start to running through the CRI, runc beside revrun: the time of
RunPodSandbox + CreateContainer + StartContainer (as a kubelet issues them)
for a pod whose container has two of the kubelet's volumes (a read-only
configMap, a read-write emptyDir, made where the kubelet makes them, under
/var/lib/kubelet/pods: revrun idmaps them for the pod) and limits (memory,
CPU quota, shares), measured in one process (no client start-up in the
figures). What it makes under /var/lib/kubelet is removed at the end. The runtimes alternate run by run, so the machine's load falls
on both alike; stopping and removing are not timed.

  podstart.py SOCK GEN NODE_DIR TAG IMAGE N

(bench/engines.sh starts the node, integration/cri/node.bash.)"""
import os
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "cri"))
import cri  # noqa: E402
import spec  # noqa: E402


PODS = "/var/lib/kubelet/pods"
MADE = []  # what configs made under /var/lib/kubelet, removed at the end


def kubelet_pods():
    for d in ("/var/lib/kubelet", PODS):
        if not os.path.isdir(d):
            os.mkdir(d, 0o750)
            MADE.append(d)
    st = os.stat(PODS)
    if st.st_uid != 0 or st.st_mode & 0o027:
        sys.exit("%s is not root's and closed to others: revrun would not idmap its volumes"
                 % PODS)


def configs(c, node, tag, image, name):
    uid = "%s-%s" % (name, tag)
    logdir = os.path.join(node, "logs", name)
    vols = os.path.join(PODS, uid, "volumes")
    vol_ro = os.path.join(vols, "kubernetes.io~configmap", "config")
    vol_rw = os.path.join(vols, "kubernetes.io~empty-dir", "scratch")
    MADE.append(os.path.join(PODS, uid))
    for d in (logdir, vol_ro, vol_rw):
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(vol_ro, "app.conf"), "w") as f:
        f.write("setting = 1\n")
    os.chmod(vol_rw, 0o777)
    pod = spec.pod(name, uid, logdir)
    ctr = spec.ctr("app", image, ["sleep", "1000"])
    ctr["mounts"] = [{"container_path": "/etc/app", "host_path": vol_ro, "readonly": True},
                     {"container_path": "/scratch", "host_path": vol_rw}]
    ctr["linux"]["resources"].update({"memory_limit_in_bytes": 256 << 20, "cpu_quota": 50000,
                                      "cpu_shares": 512})
    from google.protobuf import json_format
    return (json_format.ParseDict(pod, c.pb.PodSandboxConfig()),
            json_format.ParseDict(ctr, c.pb.ContainerConfig()))


def one(c, handler, node, tag, image, k):
    pod_cfg, ctr_cfg = configs(c, node, tag, image, "bench-%s-%d" % (handler, k))
    t0 = time.monotonic()
    pod = c.rt.RunPodSandbox(c.msg("RunPodSandboxRequest", config=pod_cfg,
                                   runtime_handler=handler), timeout=120).pod_sandbox_id
    t1 = time.monotonic()
    cid = c.rt.CreateContainer(c.msg("CreateContainerRequest", pod_sandbox_id=pod,
                                     config=ctr_cfg, sandbox_config=pod_cfg),
                               timeout=120).container_id
    c.rt.StartContainer(c.msg("ContainerIdRequest", container_id=cid), timeout=120)
    t2 = time.monotonic()
    st = c.rt.ContainerStatus(c.msg("ContainerStatusRequest", container_id=cid)).status.state
    c.rt.StopContainer(c.msg("StopContainerRequest", container_id=cid, timeout=0), timeout=120)
    c.rt.RemoveContainer(c.msg("ContainerIdRequest", container_id=cid), timeout=120)
    c.rt.StopPodSandbox(c.msg("PodSandboxIdRequest", pod_sandbox_id=pod), timeout=120)
    c.rt.RemovePodSandbox(c.msg("PodSandboxIdRequest", pod_sandbox_id=pod), timeout=120)
    if st != 1:
        sys.exit("%s: the container was not running (state %d)" % (handler, st))
    return (t1 - t0) * 1000, (t2 - t1) * 1000, (t2 - t0) * 1000


def line(handler, runs):
    def ms(i):
        xs = [r[i] for r in runs]
        return "%5.0f / %5.0f" % (statistics.mean(xs), statistics.median(xs))
    return "%-7s pod %s   create+start %s   total %s" % (handler, ms(0), ms(1), ms(2))


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    sock, gen, node, tag, image, n = argv[0], argv[1], argv[2], argv[3], argv[4], int(argv[5])
    c = cri.Client(sock, gen)
    kubelet_pods()
    try:
        measure(c, node, tag, image, n)
    finally:
        for d in reversed(MADE):
            shutil.rmtree(d, ignore_errors=True)


def measure(c, node, tag, image, n):
    runs = {"runc": [], "revrun": []}
    one(c, "runc", node, tag, image, 0)  # warm: the image's snapshots, the shim binary
    one(c, "revrun", node, tag, image, 0)
    for k in range(1, n + 1):
        for h in ("runc", "revrun") if k % 2 else ("revrun", "runc"):
            runs[h].append(one(c, h, node, tag, image, k))
    print("pod start to running (RunPodSandbox, CreateContainer, StartContainer), "
          "%d runs each, mean / median ms:" % n)
    for h in ("runc", "revrun"):
        print(line(h, runs[h]))
    ratio = statistics.median(r[2] for r in runs["revrun"]) / \
        statistics.median(r[2] for r in runs["runc"])
    print("revrun / runc (median total): %.2f" % ratio)


if __name__ == "__main__":
    main(sys.argv[1:])
