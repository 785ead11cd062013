#!/usr/bin/python3
"""The configs a kubelet would send through the CRI, as JSON for cri.py:

  spec.py pod NAME UID LOGDIR [PATH=JSON...]   a PodSandboxConfig
  spec.py ctr NAME IMAGE [PATH=JSON...] [-- CMD...]
                                               a ContainerConfig

with the kubelet's defaults (cgroup parent /kubepods/burstable/pod<UID>,
the pod's network and IPC namespaces and a pid namespace of the container's
own, the default masked and read-only paths, RuntimeDefault seccomp, CPU
shares 2 and period 100000 as for a burstable container without requests,
a log per container), then each PATH=JSON set over them: PATH is dotted
field names of cri.proto ("linux.security_context.run_as_user"), JSON the
value (`{"value": 1000}`); a value of null removes the field."""
import json
import sys

MASKED = ["/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
          "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
          "/sys/firmware"]
READONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]


def pod(name, uid, logdir):
    return {
        "metadata": {"name": name, "uid": uid, "namespace": "default", "attempt": 0},
        "hostname": name,
        "log_directory": logdir,
        "dns_config": {"servers": ["10.89.0.1"], "searches": ["default.svc.cluster.local"]},
        "labels": {"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": "default",
                   "io.kubernetes.pod.uid": uid},
        "linux": {
            "cgroup_parent": "/kubepods/burstable/pod" + uid,
            "security_context": {
                "namespace_options": {"network": "POD", "pid": "CONTAINER", "ipc": "POD"},
                "seccomp": {"profile_type": "RuntimeDefault"},
            },
        },
    }


def ctr(name, image, cmd):
    return {
        "metadata": {"name": name, "attempt": 0},
        "image": {"image": image},
        "command": cmd,
        "log_path": name + "/0.log",
        "labels": {"io.kubernetes.container.name": name},
        "linux": {
            "resources": {"cpu_period": 100000, "cpu_shares": 2, "oom_score_adj": 1000},
            "security_context": {
                "namespace_options": {"network": "POD", "pid": "CONTAINER", "ipc": "POD"},
                "masked_paths": MASKED,
                "readonly_paths": READONLY,
                "seccomp": {"profile_type": "RuntimeDefault"},
            },
        },
    }


def put(doc, path, value):
    keys = path.split(".")
    for k in keys[:-1]:
        doc = doc.setdefault(k, {})
    if value is None:
        doc.pop(keys[-1], None)
    else:
        doc[keys[-1]] = value


def main(argv):
    cmd = []
    if "--" in argv:
        i = argv.index("--")
        argv, cmd = argv[:i], argv[i + 1:]
    if len(argv) >= 4 and argv[0] == "pod":
        doc, sets = pod(argv[1], argv[2], argv[3]), argv[4:]
    elif len(argv) >= 3 and argv[0] == "ctr":
        doc, sets = ctr(argv[1], argv[2], cmd), argv[3:]
    else:
        sys.exit(__doc__)
    for s in sets:
        path, _, value = s.partition("=")
        put(doc, path, json.loads(value))
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
