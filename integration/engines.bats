#!/usr/bin/env bats
# Engine mode, driven through the real engines from Debian: containerd
# (ctr and its runc shim v2), podman (conmon) and docker (dockerd and the
# shim), each running revrun as its runtime on an image built offline from
# busybox-static. Every step is compared with runc on the same engine; the
# confinement is judged from inside (CapEff, Seccomp, NoNewPrivs, the uid
# map) and from the host (the process gone after stop, no mount and no
# state left); linux.resources and sweep without an engine at the end.
# Hooks and revrun's io.revrun.* annotations: engines_annotations.bats.
# docker needs a runtime named revrun-test in /etc/docker/daemon.json; the
# suite copies the revrun under test to the path that entry names.

load engines_helpers
load engine_bundle

# ---- run --rm: output and exit status ----

@test "ctr: run --rm prints the output and exits 7, as with runc" {
    need ctr
    # stdout and stderr are two pipes whose interleaving is no runtime's to
    # decide: stderr goes into stdout inside.
    same_as_runc ctr 7 -- sh -c 'exec 2>&1; echo out; echo err >&2; exit 7'
    [ "$output" = "out
err" ]
}

@test "podman: run --rm prints the output and exits 7, as with runc" {
    need podman
    same_as_runc podman 7 --network none -- sh -c 'echo out; exit 7'
    [ "$output" = out ]
}

@test "docker: run --rm prints the output and exits 7, as with runc" {
    need docker
    same_as_runc docker 7 --network none -- sh -c 'echo out; exit 7'
    [ "$output" = out ]
}

# ---- a directory as the root (--rootfs) ----

# a copy of the image as a plain directory, for --rootfs; ROOTFS_SUM: its
# names, owners, modes, sizes and bytes
rootfs_copy() {
    ROOTFS=$(mktemp -d /tmp/revrun-engines-rootfs.XXXXXX)
    cp -a "$ENG_DIR/img/rootfs/." "$ROOTFS/"
    ROOTFS_SUM=$(rootfs_sum)
}

rootfs_sum() {
    (cd "$ROOTFS" && find . -printf '%p %y %U:%G %m %s\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum
}

# what a --rootfs container does: write the image's root-owned /etc, plant
# a setuid copy of busybox, read its write back
ROOTFS_SCRIPT='echo hi >/etc/written && cp /bin/busybox /tmp/r && chmod 4755 /tmp/r && cat /etc/written'

@test "ctr: run --rootfs DIR runs the container; its writes (a setuid plant among them) stay in its private upper, DIR is untouched" {
    need ctr
    rootfs_copy
    NAMES+=("ctr:rr-rootfs-$BATS_TEST_NUMBER")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --rootfs "$ROOTFS" \
        "rr-rootfs-$BATS_TEST_NUMBER" sh -c "$ROOTFS_SCRIPT"
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = hi ]
    [ "$(rootfs_sum)" = "$ROOTFS_SUM" ]
}

@test "podman: run --rootfs DIR runs the container; its writes (a setuid plant among them) stay in its private upper, not in DIR" {
    need podman
    rootfs_copy
    NAMES+=("podman:rr-rootfs-$BATS_TEST_NUMBER")
    # shellcheck disable=SC2086
    run timeout 60 podman --runtime "$RT" --cgroup-manager cgroupfs run --rm \
        --name "rr-rootfs-$BATS_TEST_NUMBER" $PODMAN_ULIMITS --rootfs "$ROOTFS" sh -c "$ROOTFS_SCRIPT"
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = hi ]
    # podman itself adds /etc/mtab; nothing of the container's is there
    [ ! -e "$ROOTFS/etc/written" ]
    [ ! -e "$ROOTFS/tmp/r" ]
    [ -z "$(find "$ROOTFS" -perm /6000)" ]
}

# ---- run -t ----

@test "ctr: run -t gives a terminal and the exit status, as with runc" {
    need ctr
    NAMES+=("ctr:rc-t" "ctr:rr-t")
    # ctr -t wants a terminal of its own: script gives it one (-e: its status).
    run timeout 60 script -qec "ctr -n $NS run --runc-binary /usr/sbin/runc -t --rm $IMG_CTR rc-t sh -c 'tty; exit 3'" /dev/null
    local runc_status=$status runc_output=${output//$'\r'/}
    run timeout 60 script -qec "ctr -n $NS run --runc-binary $RT -t --rm $IMG_CTR rr-t sh -c 'tty; exit 3'" /dev/null
    output=${output//$'\r'/}
    echo "runc ($runc_status): $runc_output / revrun ($status): $output"
    [ "$runc_status" = 3 ]
    [ "$status" = 3 ]
    [ "$output" = "$runc_output" ]
    [[ "$output" == *"/dev/pts/0"* ]]
}

@test "podman: run -t gives a terminal and the exit status, as with runc" {
    need podman
    same_as_runc podman 3 -t --network none -- sh -c 'tty >/dev/null && echo tty; exit 3'
}

@test "docker: run -t gives a terminal and the exit status, as with runc" {
    need docker
    same_as_runc docker 3 -t --network none -- sh -c 'tty >/dev/null && echo tty; exit 3'
}

# ---- --network none ----

@test "podman and docker: --network none leaves only loopback, as with runc" {
    local any=0
    if command -v podman >/dev/null 2>&1 && podman image exists "$IMG_LOCAL"; then
        same_as_runc podman 0 --network none -- sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d " "'
        [ "$output" = lo ]
        any=1
    fi
    if "$DOCKER" info >/dev/null 2>&1 && [ -n "$(docker_runtime_path)" ]; then
        same_as_runc docker 0 --network none -- sh -c 'cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d " "'
        [ "$output" = lo ]
        any=1
    fi
    [ "$any" = 1 ] || need podman
}

# ---- confinement, seen from inside ----

confined_inside() {
    echo "$output"
    # a user namespace with revrun's mapping, never the host's ids
    # (a block of its own of the engineIds range: 2100000000 + k*65536)
    [[ "$output" =~ uid_map\ 0\ (21[0-9]{8})\ 65536 ]]
    [ $(((BASH_REMATCH[1] - 2100000000) % 65536)) = 0 ]
    [[ "$output" == *"Seccomp: 2"* ]]
    [[ "$output" == *"NoNewPrivs: 1"* ]]
    local eff
    eff=$(echo "$output" | sed -n 's/.*CapEff: \([0-9a-f]*\).*/\1/p')
    # within the policy's (default) set
    [ -n "$eff" ]
    [ $((0x$eff & ~0x$CAPS_DEFAULT)) = 0 ]
}

PROBE='printf "uid_map %s %s %s\n" $(cat /proc/self/uid_map); grep -E "^(CapEff|Seccomp|NoNewPrivs):" /proc/self/status | tr -s "\t" " "'

@test "ctr: confined inside (revrun's uid map, CapEff within the policy, seccomp, no_new_privs)" {
    need ctr
    run_on ctr revrun "in-ctr" -- sh -c "$PROBE"
    [ "$status" = 0 ]
    confined_inside
}

@test "podman: confined inside" {
    need podman
    run_on podman revrun "in-podman" -- sh -c "$PROBE"
    [ "$status" = 0 ]
    confined_inside
}

@test "podman: the policy's activity \"record\": what the container ran is kept in activityRoot once podman removed it; no recorder left" {
    need podman
    local kept recorders name=rract$$
    kept=$(mktemp -d /tmp/revrun-engines-kept.XXXXXX)
    recorders=$(live_procs revrun-recorder | wc -l)
    NAMES+=("podman:$name")
    # shellcheck disable=SC2086
    run with_policy "{\"engine\": {\"activity\": \"record\", \"activityRoot\": \"$kept\"}}" \
        timeout 60 podman --runtime "$RT" --cgroup-manager cgroupfs run --rm --name "$name" \
        $PODMAN_ULIMITS "$IMG_LOCAL" sh -c '/bin/true from-podman; echo done'
    echo "$output"
    [ "$status" = 0 ]
    [ "$output" = done ]
    for _ in $(seq 50); do
        [ -n "$(ls "$kept")" ] && break
        sleep 0.1
    done
    cat "$kept"/*.jsonl
    run python3 - "$kept" <<'PY'
import json, os, sys
files = os.listdir(sys.argv[1])
assert len(files) == 1 and files[0].endswith(".jsonl"), files
r = [json.loads(l) for l in open(os.path.join(sys.argv[1], files[0]))]
assert r[-1]["type"] == "end", r[-1]
assert [x["argv"] for x in r if x["type"] == "exec"] == \
    [["sh", "-c", "/bin/true from-podman; echo done"], ["/bin/true", "from-podman"]], r
assert [x["status"] for x in r if x["type"] == "exit" and x["pid"] == 1] == [0], r
PY
    rm -rf "$kept"
    echo "$output"
    [ "$status" = 0 ]
    await_live_count revrun-recorder "$recorders"
}

@test "docker: confined inside" {
    need docker
    run_on docker revrun "in-docker" -- sh -c "$PROBE"
    [ "$status" = 0 ]
    confined_inside
}

@test "ctr: CAP_SYS_ADMIN asked for is not granted; the tightening is on record" {
    need ctr
    NAMES+=("ctr:caps")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --cap-add CAP_SYS_ADMIN \
        --cap-add CAP_NET_ADMIN "$IMG_CTR" caps sh -c 'grep CapEff /proc/self/status'
    echo "$output"
    [ "$status" = 0 ]
    local eff
    eff=$(echo "$output" | awk '{print $2}')
    [ $((0x$eff & (1 << 21))) = 0 ] # SYS_ADMIN
    [ $((0x$eff & (1 << 12))) = 0 ] # NET_ADMIN: not in the default policy
    [ $((0x$eff & 1)) = 1 ]         # CHOWN: granted
}

# ---- run -d, kill, stop, rm: seen from the host ----

@test "ctr: run -d, kill, delete: the process is gone, nothing left" {
    need ctr
    NAMES+=("ctr:bg")
    run ctr -n "$NS" run --runc-binary "$RT" -d "$IMG_CTR" bg sleep 600
    [ "$status" = 0 ]
    local pid
    pid=$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $2}')
    [ -n "$pid" ] && kill -0 "$pid"
    [ "$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $3}')" = RUNNING ]
    # a running container's state, through revrun, from the shim's root
    run "$RT" --root "/run/containerd/runc/$NS" state bg
    [[ "$output" == *'"status": "running"'* ]]
    [[ "$output" == *'"tightened"'* ]]
    # no monitor is no sign of a crash: sweep leaves a live engine container
    run "$RT" --root "/run/containerd/runc/$NS" sweep
    [ "$status" = 0 ]
    [ -d "/run/containerd/runc/$NS/bg" ]
    kill -0 "$pid"
    ctr -n "$NS" task kill -s SIGKILL bg
    for _ in $(seq 50); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    [ "$(ctr -n "$NS" task ls | awk '$1 == "bg" {print $3}')" = STOPPED ]
    assert_dead "$pid"
    # kill of a stopped container: the words the shim matches
    run "$RT" --root "/run/containerd/runc/$NS" kill bg 9
    [ "$status" != 0 ]
    [[ "$output" == *"container not running"* ]]
    ctr -n "$NS" task delete bg
    ctr -n "$NS" container rm bg
    nothing_left bg "/run/containerd/runc/$NS"
}

@test "podman: run -d, stop, rm: the process is gone, nothing left" {
    need podman
    NAMES+=("podman:pbg")
    # shellcheck disable=SC2086
    run podman --runtime "$RT" --cgroup-manager cgroupfs run -d --name pbg $PODMAN_ULIMITS \
        --network none "$IMG_LOCAL" sleep 600
    [ "$status" = 0 ]
    local id pid
    id=$(podman inspect -f '{{.Id}}' pbg)
    pid=$(podman inspect -f '{{.State.Pid}}' pbg)
    kill -0 "$pid"
    run podman stop -t 1 pbg
    [ "$status" = 0 ]
    assert_dead "$pid"
    [ "$(podman inspect -f '{{.State.Status}}' pbg)" = exited ]
    podman rm pbg
    nothing_left "$id" /run/revrun
}

@test "docker: run -d, stop, rm: the process is gone, nothing left" {
    need docker
    NAMES+=("docker:dbg")
    run "$DOCKER" run --runtime revrun-test -d --name dbg rrbusybox:engines sleep 600
    [ "$status" = 0 ]
    local id pid
    id=$("$DOCKER" inspect -f '{{.Id}}' dbg)
    pid=$("$DOCKER" inspect -f '{{.State.Pid}}' dbg)
    kill -0 "$pid"
    run "$DOCKER" stop -t 1 dbg
    [ "$status" = 0 ]
    assert_dead "$pid"
    [ "$("$DOCKER" inspect -f '{{.State.Running}}' dbg)" = false ]
    "$DOCKER" rm dbg
    nothing_left "$id" /run/docker/runtime-runc/moby
}

# ---- a second container in the first's network namespace, by path ----

@test "ctr: a second container joins the first's network namespace by path" {
    need ctr
    NAMES+=("ctr:net1" "ctr:net2")
    ctr -n "$NS" run --runc-binary "$RT" -d "$IMG_CTR" net1 sleep 600
    local pid
    pid=$(ctr -n "$NS" task ls | awk '$1 == "net1" {print $2}')
    local want
    want=$(readlink "/proc/$pid/ns/net")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --with-ns "network:/proc/$pid/ns/net" \
        "$IMG_CTR" net2 readlink /proc/self/ns/net
    echo "want $want, got $output"
    [ "$status" = 0 ]
    [ "$output" = "$want" ]
    # a path that is not a namespace file is refused, as runc refuses it
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --with-ns "network:/etc/hostname" \
        "$IMG_CTR" net3 true
    NAMES+=("ctr:net3")
    [ "$status" != 0 ]
    [[ "$output" == *"not a namespace file"* ]]
}

@test "podman: a second container joins the first's network namespace (by path)" {
    need podman
    NAMES+=("podman:pn1" "podman:pn2")
    # shellcheck disable=SC2086
    podman --runtime "$RT" --cgroup-manager cgroupfs run -d --name pn1 $PODMAN_ULIMITS \
        "$IMG_LOCAL" sleep 600
    local pid want
    pid=$(podman inspect -f '{{.State.Pid}}' pn1)
    want=$(readlink "/proc/$pid/ns/net")
    run_on podman revrun pn2 --network container:pn1 -- readlink /proc/self/ns/net
    echo "want $want, got $output"
    [ "$status" = 0 ]
    [ "$output" = "$want" ]
}

@test "docker: a second container joins the first's network namespace (by path)" {
    need docker
    NAMES+=("docker:dn1" "docker:dn2")
    "$DOCKER" run --runtime revrun-test -d --name dn1 rrbusybox:engines sleep 600
    local pid want
    pid=$("$DOCKER" inspect -f '{{.State.Pid}}' dn1)
    want=$(readlink "/proc/$pid/ns/net")
    run_on docker revrun dn2 --network container:dn1 -- readlink /proc/self/ns/net
    echo "want $want, got $output"
    [ "$status" = 0 ]
    [ "$output" = "$want" ]
}

# ---- without an engine: what revrun refuses itself ----

@test "an engine's sysctl in the host's network namespace (joined by path) is refused, as runc refuses it" {
    local b fwd
    b=$(mktemp -d /tmp/revrun-engine-bundle.XXXXXX)
    mkdir -p "$b/rootfs"
    fwd=$(cat /proc/sys/net/ipv4/ip_forward)
    # the host's own value: without the check the write changes nothing here
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$b" "$fwd" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[2] + "/rootfs"
ns = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]
ns.append({"type": "network", "path": "/proc/self/ns/net"})
c["linux"]["namespaces"] = ns
c["linux"]["sysctl"] = {"net.ipv4.ip_forward": sys.argv[3]}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
EOF
    run "$ENG_DIR/revrun" --root "$b/state" create --bundle "$b" hostnet1
    "$ENG_DIR/revrun" --root "$b/state" delete -f hostnet1 >/dev/null 2>&1 || true
    rm -rf "$b"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"net.ipv4.ip_forward: refused: the net namespace /proc/self/ns/net is the host's"* ]]
    [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$fwd" ]
}

@test "an engine's config without root is refused, naming why" {
    local b
    b=$(mktemp -d /tmp/revrun-engine-bundle.XXXXXX)
    chmod 0755 "$b"
    mkdir -p "$b/rootfs"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$b" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[2] + "/rootfs"
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
EOF
    chmod -R a+rX "$b"
    run setpriv --reuid "$REVRUN_TEST_UID" --regid "$REVRUN_TEST_GID" --clear-groups \
        "$ENG_DIR/revrun" --root "$b/state" create --bundle "$b" rootless1
    rm -rf "$b"
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"needs revrun running as root"* ]]
}

# ---- linux.resources.devices, without an engine ----

@test "devices: a rule denying /dev/full by number makes opening it EPERM (v1 devices controller); the other default devices stay" {
    B=$(mktemp -d /tmp/revrun-engine-dev.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sh", "-c", "echo x >/dev/full; echo y >/dev/null && echo null-ok; head -c 1 /dev/zero | wc -c"]
c["linux"]["resources"]["devices"].append(
    {"allow": False, "type": "c", "major": 1, "minor": 7, "access": "rwm"})
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1
    local pid
    pid=$("$RT" --root "$B/state" state h1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    "$RT" --root "$B/state" start h1
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    cat "$B/out"
    if awk '$9 == "cgroup" && $NF ~ /(^|,)devices(,|$)/ {f=1} END {exit !f}' /proc/self/mountinfo; then
        # the cgroup's answer (EPERM), not nodev's (EACCES) or the device's (ENOSPC)
        grep -q "can't create /dev/full: Operation not permitted" "$B/out"
    else
        grep -q "not applied by a cgroup" "$B/out"
    fi
    grep -q null-ok "$B/out"
    grep -qx 1 "$B/out"
    "$RT" --root "$B/state" delete h1
    # the devices cgroup went with the delete
    ! find /sys/fs/cgroup -path "*revrun*" -name h1 | grep -q . || false
    rm -rf "$B"
}

@test "resources: disableOOMKiller leaves a process at its memory limit waiting, not killed; cpu.shares reaches the cpu controller (cgroup v1)" {
    awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ {f=1} END {exit !f}' /proc/self/mountinfo ||
        skip "no v1 memory controller here (cgroup v2: no OOM-killer switch, said in one line)"
    B=$(mktemp -d /tmp/revrun-engine-oom.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
# 64 MiB held in a 16 MiB container (no swap beyond it)
c["process"]["args"] = ["sh", "-c", "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo survived"]
c["linux"]["cgroupsPath"] = "/rrengines-oom/" + sys.argv[2].split("/")[-1]
c["linux"]["resources"]["memory"] = {"limit": 16777216, "swap": 16777216, "disableOOMKiller": True}
c["linux"]["resources"]["cpu"] = {"shares": 512}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1
    local pid mem cpu
    pid=$("$RT" --root "$B/state" state h1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    "$RT" --root "$B/state" start h1
    mem=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
    cpu=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ {print $5; exit}' /proc/self/mountinfo)
    for _ in $(seq 100); do
        grep -q "under_oom 1" "$mem/rrengines-oom/$(basename "$B")/memory.oom_control" && break
        sleep 0.1
    done
    cat "$mem/rrengines-oom/$(basename "$B")/memory.oom_control"
    # at its limit, waiting: alive, never OOM-killed
    grep -q "under_oom 1" "$mem/rrengines-oom/$(basename "$B")/memory.oom_control"
    grep -q "oom_kill 0" "$mem/rrengines-oom/$(basename "$B")/memory.oom_control"
    kill -0 "$pid"
    [ -z "$cpu" ] || [ "$(cat "$cpu/rrengines-oom/$(basename "$B")/cpu.shares")" = 512 ]
    "$RT" --root "$B/state" delete --force h1
    # dead: gone, or a zombie its reaper (not revrun under an engine) has not
    # collected yet; the cgroup's removal below says no live task was left
    local st
    st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo gone)
    [ "$st" = gone ] || [ "$st" = Z ]
    [ ! -e "$mem/rrengines-oom/$(basename "$B")" ]
    rmdir "$mem/rrengines-oom" "$cpu/rrengines-oom" 2>/dev/null || true
    rm -rf "$B"
}

@test "resources: a relative cgroupsPath under /revrun-engine leaves no empty parent after delete" {
    B=$(mktemp -d /tmp/revrun-engine-rel.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["true"]
c["linux"]["cgroupsPath"] = "rrengines-rel/" + sys.argv[2].split("/")[-1] + "/h1"
c["linux"]["resources"]["pids"] = {"limit": 64}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1
    local mnt
    mnt=$("$RT" --root "$B/state" state h1 >/dev/null && awk '($9 == "cgroup" && $NF ~ /(^|,)pids(,|$)/) || $9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    [ -d "$mnt/revrun-engine/rrengines-rel/$(basename "$B")/h1" ]
    "$RT" --root "$B/state" delete --force h1
    [ ! -e "$mnt/revrun-engine/rrengines-rel/$(basename "$B")" ]
    # /revrun-engine itself goes when nothing else is in it
    if [ -z "$(find "$mnt/revrun-engine" -mindepth 1 -type d 2>/dev/null)" ]; then
        [ ! -e "$mnt/revrun-engine" ]
    fi
    rm -rf "$B"
}

@test "sweep: an engine's container whose engine never deleted it: its checkout store is unmounted, its state removed" {
    make_checkout
    B=$(mktemp -d /tmp/revrun-engine-sweep.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$CO" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sleep", "600"]
c["mounts"].append({"destination": "/work", "type": "bind", "source": sys.argv[4],
                    "options": ["rbind", "rw"]})
c["annotations"] = {"io.revrun.checkout": "/work"}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/out" 2>&1 || { cat "$B/out"; false; }
    grep -qF "$B/state/h1/store" /proc/self/mountinfo
    local pid
    pid=$("$RT" --root "$B/state" state h1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    kill -9 "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    run "$RT" --root "$B/state" sweep
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"swept h1"* ]]
    ! grep -qF "$B/state/h1" /proc/self/mountinfo || false
    [ ! -e "$B/state/h1" ]
    diff <(checkout_sums) "$CO.sums"
    rm -rf "$B"
}
