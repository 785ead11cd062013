#!/bin/bash
# bench/lifecycle.sh: the wall time of one whole sandbox lifecycle running
# /bin/true, revrun beside the two tools one would pick instead. The three
# run alternately, N rounds, in one invocation; the figures are medians.
#
#   revrun  `revrun --root TMP run --lower CHECKOUT -- /bin/true`: a temporary
#           bundle from the default spec, create, start, wait, destroy. That
#           is user+mount+pid+net+ipc+uts+cgroup namespaces, uid/gid 1000
#           mapped to an unprivileged host id, the read-only binds of the
#           default spec (/usr, /bin, /lib*, /etc pieces), proc, tmpfs /dev
#           (+ device nodes), /dev/shm, /tmp, /home/agent, native overlayfs of
#           the checkout (idmapped lower) at /workspace, masked and read-only
#           /proc and /sys paths, seccomp floor, no capabilities, rlimits,
#           cgroup limits (memory, pids, cpu), the monitor process, state
#           files, and removing all of it.
#   crun    `crun run` (create + start + wait + delete) of a bundle made from
#           `crun spec` with the same namespaces (a user namespace too: ids
#           0-65535 mapped from the same unprivileged host id, as crun needs
#           a root inside to assemble the root; the process runs as 1000),
#           the same mounts as
#           revrun's default spec, an overlay of the checkout at /workspace
#           (fresh upper per run, made outside the timing), the same masked
#           and read-only paths, rlimits, cgroup limits, no capabilities,
#           noNewPrivileges and a seccomp deny list of the size of revrun's
#           floor. No idmapped lower. crun 1.8.1 refuses this host's hybrid
#           cgroup layout, so crun runs in a private mount namespace (made
#           once, outside the timing) with an empty file over
#           /sys/fs/cgroup/unified/cgroup.controllers: it uses cgroup v1.
#   bwrap   `bwrap` with the same namespaces (uid/gid 1000 inside), the same
#           read-only binds, proc, dev, tmpfs, and the checkout bound
#           read-only at /workspace (bubblewrap 0.8 has no overlay). bwrap
#           sets no cgroups, rlimits or seccomp filter here and keeps no
#           state: it is the floor of what a sandbox launch costs.
#
#   bench/lifecycle.sh [N]      N rounds (default 30, or $ROUNDS); SETTLE=S
#                               seconds of pause before each run (0.1)
#
# Needs root, crun, bwrap, jq. Prints figures only; cleans up after itself;
# exits 0 even when a tool is missing or fails (it is not a test).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-${ROUNDS:-30}}
# The optimised build: ./revrun may be the ASan one `make check SANITIZE=1`
# leaves behind.
revrun="$here/build/revrun"
tmp=
state=
coproc_pid=

cleanup() {
    if [ -n "$coproc_pid" ]; then
        kill "$coproc_pid" 2>/dev/null
        wait "$coproc_pid" 2>/dev/null
    fi
    if [ -n "$tmp" ] && [ -d "$tmp" ]; then
        rm -rf "$tmp" 2>/dev/null
    fi
    if [ -n "$state" ] && [ -d "$state" ]; then
        crun --root "$state/crun" delete -f bench 2>/dev/null
        "$revrun" --root "$state/revrun" sweep >/dev/null 2>&1
        rm -rf "$state" 2>/dev/null
    fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM

note() { echo "lifecycle: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { note "needs root"; exit 0; }
for t in crun bwrap jq; do
    command -v "$t" >/dev/null || { note "$t is missing"; exit 0; }
done
make -C "$here" build/revrun >/dev/null 2>&1 || { note "cannot build revrun"; exit 0; }

tmp=$(mktemp -d /tmp/revrun-bench-lifecycle.XXXXXX)
chmod 755 "$tmp" # crun's root inside (an unprivileged host id) walks it
checkout="$tmp/checkout"
# Both state roots on tmpfs under /run, where each tool keeps them by default
# (/run/revrun, /run/crun): on a disk, revrun's fsync'ed state writes cost
# several ms a run that a deployment does not pay.
state=$(mktemp -d /run/revrun-bench-state.XXXXXX)
mkdir -p "$checkout/src" "$state/revrun" "$state/crun"
for i in $(seq 20); do echo "line $i" >"$checkout/src/file$i.txt"; done

# The crun bundle: crun spec, with revrun's default spec grafted on.
bundle="$tmp/bundle"
mkdir -p "$bundle/rootfs"
(cd "$bundle" && crun spec) || { note "crun spec failed"; exit 0; }
"$revrun" spec --lower "$checkout" >"$tmp/revrun-spec.json" || { note "revrun spec failed"; exit 0; }
# Denied syscalls: as many as revrun's seccomp floor denies by name.
deny='["keyctl","add_key","request_key","bpf","perf_event_open","userfaultfd",
 "io_uring_setup","io_uring_enter","io_uring_register","kexec_load","kexec_file_load",
 "init_module","finit_module","delete_module","open_by_handle_at","setns","acct","swapon",
 "swapoff","reboot","syslog","vhangup","settimeofday","clock_settime","iopl","ioperm",
 "quotactl","quotactl_fd","lookup_dcookie","uselib","ptrace","process_vm_readv",
 "process_vm_writev","mount","umount2","pivot_root","move_mount","open_tree","fsopen",
 "fsconfig","fsmount","fspick","mount_setattr","unshare"]'
jq --slurpfile rr "$tmp/revrun-spec.json" --argjson deny "$deny" --arg co "$checkout" '
  $rr[0] as $r
  | .process.args = ["/bin/true"]
  | .process.terminal = false
  | .process.user = {uid: 1000, gid: 1000}
  | .process.cwd = "/workspace"
  | .process.env = $r.process.env
  | .process.rlimits = $r.process.rlimits
  | .process.capabilities = {bounding: [], effective: [], inheritable: [], permitted: [], ambient: []}
  | .process.noNewPrivileges = true
  | .root = {path: "rootfs", readonly: true}
  | .hostname = "revrun"
  | .mounts = [$r.mounts[] | if .type == "bind" then .options = ["rbind", "ro", "nosuid", "nodev"] else . end]
      + [{destination: "/workspace", type: "overlay", source: "overlay",
          options: ["lowerdir=" + $co, "upperdir=UPPER", "workdir=WORK"]}]
  | .linux.namespaces = [{type: "pid"}, {type: "network"}, {type: "ipc"}, {type: "uts"},
                         {type: "mount"}, {type: "user"}, {type: "cgroup"}]
  | .linux.uidMappings = [{containerID: 0, hostID: 2000000000, size: 65536}]
  | .linux.gidMappings = [{containerID: 0, hostID: 2000000000, size: 65536}]
  | .linux.resources = {memory: {limit: $r.linux.resources.memory.limit,
                                 swap: $r.linux.resources.memory.swap},
                        pids: $r.linux.resources.pids, cpu: $r.linux.resources.cpu}
  | .linux.cgroupsPath = "/revrun-bench-crun"
  | .linux.maskedPaths = $r.linux.maskedPaths
  | .linux.readonlyPaths = $r.linux.readonlyPaths
  | .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
                      syscalls: [{names: $deny, action: "SCMP_ACT_ERRNO", errnoRet: 1}]}
' "$bundle/config.json" >"$bundle/config.json.new" || { note "jq failed"; exit 0; }
mv "$bundle/config.json.new" "$bundle/config.json"
# The root inside (host id 2000000000) makes the mount points in rootfs.
chown 2000000000:2000000000 "$bundle/rootfs"

# crun in its own mount namespace, fed one "go" per round; it answers with
# the elapsed microseconds and the exit status. Each run gets a fresh upper.
crun_loop='
    : >"$T/empty"
    mount --bind "$T/empty" /sys/fs/cgroup/unified/cgroup.controllers || exit 1
    n=0
    while read -r _; do
        n=$((n + 1)); up="$T/ovl$n"
        mkdir -p "$up/upper" "$up/work" && chown -R 2000000000:2000000000 "$up"
        sed "s#UPPER#$up/upper#; s#WORK#$up/work#" "$T/bundle/config.json.tmpl" >"$T/bundle/config.json"
        t0=$EPOCHREALTIME
        crun --root "$S/crun" run -b "$T/bundle" bench </dev/null >/dev/null 2>"$T/crun.err"
        rc=$?
        t1=$EPOCHREALTIME
        rm -rf "$up"
        echo "$(( (${t1/./} - ${t0/./}) )) $rc"
    done'
mv "$bundle/config.json" "$bundle/config.json.tmpl"
coproc CRUN { T="$tmp" S="$state" exec unshare -m --propagation private bash -c "$crun_loop"; }
coproc_pid=$CRUN_PID

run_revrun() {
    "$revrun" --root "$state/revrun" run --lower "$checkout" -- /bin/true \
        </dev/null >/dev/null 2>"$tmp/revrun.err"
}

run_bwrap() {
    bwrap --unshare-user --uid 1000 --gid 1000 --unshare-pid --unshare-net --unshare-ipc \
        --unshare-uts --unshare-cgroup --die-with-parent --new-session --hostname revrun \
        --ro-bind /usr /usr --ro-bind /bin /bin --ro-bind /sbin /sbin --ro-bind /lib /lib \
        --ro-bind-try /lib32 /lib32 --ro-bind-try /lib64 /lib64 \
        --ro-bind-try /etc/alternatives /etc/alternatives --ro-bind-try /etc/ssl /etc/ssl \
        --ro-bind-try /etc/ca-certificates /etc/ca-certificates \
        --ro-bind-try /etc/ld.so.cache /etc/ld.so.cache --ro-bind-try /etc/ld.so.conf /etc/ld.so.conf \
        --ro-bind-try /etc/ld.so.conf.d /etc/ld.so.conf.d --ro-bind-try /etc/localtime /etc/localtime \
        --ro-bind-try /etc/nsswitch.conf /etc/nsswitch.conf \
        --proc /proc --dev /dev --tmpfs /tmp --tmpfs /home/agent \
        --ro-bind "$checkout" /workspace --chdir /workspace \
        --remount-ro / /bin/true </dev/null >/dev/null 2>"$tmp/bwrap.err"
}

# Microseconds taken by "$@" (its status in $rc).
timed() {
    local t0 t1
    t0=$EPOCHREALTIME
    "$@"
    rc=$?
    t1=$EPOCHREALTIME
    us=$(( ${t1/./} - ${t0/./} ))
}

median() {
    sort -n | awk '{v[NR] = $1} END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.1f\n", m / 1000 }'
}

: >"$tmp/revrun.us"; : >"$tmp/crun.us"; : >"$tmp/bwrap.us"
fail_revrun=0; fail_crun=0; fail_bwrap=0
# One untimed round of each warms the page cache.
run_revrun; run_bwrap; echo go >&"${CRUN[1]}"; read -r _ _ <&"${CRUN[0]}" || { note "crun helper failed"; exit 0; }
# A pause before each run: moving a task into a cgroup v1 hierarchy waits
# for an RCU grace period (~20 ms here) unless another move happened just
# before, so without it whichever tool runs right after another one that
# set up cgroups would skip that wait.
settle() { sleep "${SETTLE:-0.1}"; }
for _ in $(seq "$rounds"); do
    settle
    timed run_revrun
    if [ "$rc" -eq 0 ]; then echo "$us" >>"$tmp/revrun.us"; else fail_revrun=$((fail_revrun + 1)); fi
    settle
    echo go >&"${CRUN[1]}"
    read -r us rc <&"${CRUN[0]}" || break
    if [ "$rc" -eq 0 ]; then echo "$us" >>"$tmp/crun.us"; else fail_crun=$((fail_crun + 1)); fi
    settle
    timed run_bwrap
    if [ "$rc" -eq 0 ]; then echo "$us" >>"$tmp/bwrap.us"; else fail_bwrap=$((fail_bwrap + 1)); fi
done

m_revrun=$(median <"$tmp/revrun.us")
m_crun=$(median <"$tmp/crun.us")
m_bwrap=$(median <"$tmp/bwrap.us")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "nan") printf "%.2f", a / b; else printf "n/a" }'; }
echo "lifecycle of /bin/true, median of $rounds rounds (ms)"
printf '  revrun  %8s   (%d failed)\n' "$m_revrun" "$fail_revrun"
printf '  crun    %8s   (%d failed)\n' "$m_crun" "$fail_crun"
printf '  bwrap   %8s   (%d failed)\n' "$m_bwrap" "$fail_bwrap"
echo "  revrun/crun  $(ratio "$m_revrun" "$m_crun")   (target: 1.5 or less)"
echo "  revrun/bwrap $(ratio "$m_revrun" "$m_bwrap")"
for t in revrun crun bwrap; do
    [ -s "$tmp/$t.err" ] && note "$t said: $(head -c 300 "$tmp/$t.err" | tr '\n' ' ')"
done
exit 0
