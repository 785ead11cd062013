#!/usr/bin/env python3
"""subreaper.py OUT -- CMD...: run CMD as a child subreaper, as containerd's
shim and conmon are: once `revrun create` has exited, the container's
process and anything revrun leaves behind are this process's children. It
reaps each as it ends and, once none is left, writes one line a child to
OUT: "PID STATUS" (the raw wait status), and exits with CMD's status. Its
own pid is in OUT.pid from the start (a test's teardown kills its
children)."""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def main():
    out, sep, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sep != "--" or not cmd:
        sys.exit("usage: subreaper.py OUT -- CMD...")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl(PR_SET_CHILD_SUBREAPER): %s" % os.strerror(ctypes.get_errno()))
    with open(out + ".pid", "w") as f:
        f.write("%d\n" % os.getpid())
    first = os.fork()
    if first == 0:
        os.execvp(cmd[0], cmd)
    lines, rc = [], 1
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == first:
            rc = os.waitstatus_to_exitcode(status)
        else:
            lines.append("%d %d\n" % (pid, status))
    with open(out, "w") as f:
        f.writelines(lines)
    sys.exit(rc)


main()
