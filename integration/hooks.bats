#!/usr/bin/env bats
# An engine's lifecycle hooks (runtime-spec config.md#posix-platform-hooks,
# runtime.md#lifecycle), driven through revrun create/start/delete on an
# engine's bundle (busybox, `runc spec`) and judged from the host: what each
# hook saw of the container (its mounts, its namespace, its executable), the
# state on its stdin, the exit status of the verb, what is left. Where
# Debian's runc is installed, the same bundle gives the reference.
# Engine mode is root only (rootless engine configs are refused, see
# engines.bats), so this suite is too.

load helpers

setup() {
    [ "$(id -u)" = 0 ] || skip "engine mode needs root"
    [ -x /bin/busybox ] || skip "busybox is not installed"
    rr_setup_tmp
    B=$RR_TMP/b
    OUT=$RR_TMP/out
    mkdir -p "$B/rootfs/bin" "$B/rootfs/tmp" "$OUT"
    # createContainer runs as the container's root: a mapped uid on the host
    chmod 1777 "$OUT"
    cp /bin/busybox "$B/rootfs/bin/"
    for a in sh sleep true false cat echo; do ln -sf busybox "$B/rootfs/bin/$a"; done
    write_hook
    # IDs name cgroups host-wide: unique ones keep parallel runs apart
    X="h$RANDOM$BATS_TEST_NUMBER"
    RUNC_IDS=()
}

teardown() {
    local id
    # a start left waiting holds the container's lock: it goes first
    [ -z "${START_PID:-}" ] || kill -9 "$START_PID" 2>/dev/null || true
    rr_destroy_all
    for id in "${RUNC_IDS[@]}"; do
        runc --root "$RR_TMP/runc" delete --force "$id" >/dev/null 2>&1 || true
    done
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

runc_() {
    runc --root "$RR_TMP/runc" "$@"
}

# The host-side hook: hook.sh NAME ACTION keeps its stdin as $OUT/NAME.json
# and what ACTION looks at as $OUT/NAME.*.
write_hook() {
    cat >"$RR_TMP/hook.sh" <<'SH'
#!/bin/sh
out=$OUT/$1
cat >"$out.json"
pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$out.json")
case $2 in
mounts)
    # proc mount points of the container's process and of this hook's own
    awk '/ - proc / {print $5}' "/proc/$pid/mountinfo" | sort >"$out.procs"
    awk '/ - proc / {print $5}' /proc/self/mountinfo | sort >"$out.ownprocs"
    readlink /proc/self/ns/mnt >"$out.mnt"
    ;;
mnt) readlink /proc/self/ns/mnt >"$out.mnt" ;;
exe) readlink "/proc/$pid/exe" >"$out.exe" ;;
fail) echo "hook $1 says no" >&2; exit 3 ;;
esac
exit 0
SH
    chmod 0755 "$RR_TMP/hook.sh"
}

# The bundle: `runc spec` for busybox, a tmpfs /tmp, the process and the
# hooks given as JSON (HOOK stands for hook.sh, OUT for the output dir).
make_bundle() {
    (cd "$B" && runc spec 2>/dev/null) || python3 - "$B/config.json" <<'EOF'
import json, sys
json.dump({"ociVersion": "1.0.2", "root": {"path": "rootfs"},
           "process": {"cwd": "/", "user": {"uid": 0, "gid": 0}, "args": ["sh"],
                       "env": ["PATH=/bin"]},
           "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
           "linux": {"namespaces": [{"type": t} for t in
                                    ["pid", "network", "ipc", "uts", "mount"]]}},
          open(sys.argv[1], "w"))
EOF
    python3 - "$B/config.json" "$RR_TMP/hook.sh" "$OUT" "$1" "$2" <<'EOF'
import json, sys
p, hook, out, args, hooks = sys.argv[1:]
c = json.load(open(p))
c["process"]["terminal"] = False
c["process"]["args"] = json.loads(args)
c["root"]["readonly"] = False
c["mounts"].append({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
                    "options": ["nosuid", "nodev", "mode=1777"]})
c["annotations"] = {"org.example/k": "v"}
env = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "OUT=" + out]
h = json.loads(hooks.replace("HOOK", hook))
for kind in h.values():
    for x in kind:
        x.setdefault("env", env)
c["hooks"] = h
json.dump(c, open(p, "w"))
EOF
}

# create with the container's stdio in a file (a created container holds
# create's stdio until it runs, as runc's does); $1: revrun or runc_
create() {
    (cd "$B" && "$1" create "$2" </dev/null >"$OUT/$2.stdio" 2>&1)
    local rc=$?
    cat "$OUT/$2.stdio"
    return $rc
}

field() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# A proc mount of the container's (its own, at its root's proc) that the
# host side does not have: the container's mounts are made.
sees_container_proc() {
    [ -n "$(comm -23 "$OUT/$1.procs" "$OUT/$1.ownprocs")" ]
}

@test "hooks: prestart and createRuntime run in create once the container's mounts are made, before pivot_root; createContainer in its mount namespace; state created" {
    make_bundle '["sleep", "1000"]' \
        '{"prestart": [{"path": "HOOK", "args": ["hook", "pre", "mounts"]}],
          "createRuntime": [{"path": "HOOK", "args": ["hook", "cr", "mounts"]}],
          "createContainer": [{"path": "HOOK", "args": ["hook", "cc", "mnt"]}]}'
    run create rr c1
    [ "$status" = 0 ]
    local pid
    pid=$(rr state c1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    for h in pre cr cc; do
        [ "$(field "$OUT/$h.json" id)" = c1 ]
        [ "$(field "$OUT/$h.json" pid)" = "$pid" ]
        [ "$(field "$OUT/$h.json" bundle)" = "$B" ]
        # the spec's status after its lifecycle's step 2 (the environment made)
        [ "$(field "$OUT/$h.json" status)" = created ]
        [ "$(field "$OUT/$h.json" annotations)" = "{'org.example/k': 'v'}" ]
    done
    # the host side, seeing the container's proc mounted under its root
    sees_container_proc pre
    sees_container_proc cr
    [ "$(cat "$OUT/pre.mnt")" = "$(readlink /proc/self/ns/mnt)" ]
    # createContainer: in the container's mount namespace
    [ "$(cat "$OUT/cc.mnt")" = "$(readlink "/proc/$pid/ns/mnt")" ]
    [ "$(cat "$OUT/cc.mnt")" != "$(readlink /proc/self/ns/mnt)" ]
    # and the process not started yet
    [ "$(rr state c1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')" = created ]
    rr delete --force c1

    command -v runc >/dev/null || return 0
    rm -f "$OUT"/pre.* "$OUT"/cr.* "$OUT"/cc.*
    RUNC_IDS+=(rc1-$X)
    run create runc_ rc1-$X
    [ "$status" = 0 ]
    sees_container_proc pre
    sees_container_proc cr
    pid=$(runc_ state rc1-$X | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    [ "$(cat "$OUT/cc.mnt")" = "$(readlink "/proc/$pid/ns/mnt")" ]
}

@test "hooks: startContainer in the container before the process; poststart after its exec, every one run, a failure a warning; poststop likewise at delete" {
    # startContainer's path is the container's; it sleeps so that a
    # poststart run before the exec would find the init not yet exec'd
    make_bundle '["sh", "-c", "cat /tmp/sc; exec sleep 1000"]' \
        '{"startContainer": [{"path": "/bin/sh", "args": ["sh", "-c", "echo from-startContainer >/tmp/sc; sleep 1"]}],
          "poststart": [{"path": "HOOK", "args": ["hook", "ps0", "fail"]},
                        {"path": "HOOK", "args": ["hook", "ps1", "exe"]}],
          "poststop": [{"path": "HOOK", "args": ["hook", "pst0", "fail"]},
                       {"path": "HOOK", "args": ["hook", "pst1"]}]}'
    run create rr c2
    [ "$status" = 0 ]
    [ ! -e "$OUT/ps1.json" ]
    run rr start c2
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"warning"*"hooks.poststart[0]"*"exited 3"*"hook ps0 says no"* ]]
    # the second ran, once the process was the container's program
    [ "$(field "$OUT/ps1.json" status)" = running ]
    [[ "$(cat "$OUT/ps1.exe")" == */bin/busybox ]]
    [ "$(field "$OUT/ps1.json" annotations)" = "{'org.example/k': 'v'}" ]
    for _ in $(seq 50); do grep -q from-startContainer "$OUT/c2.stdio" && break; sleep 0.1; done
    grep -q from-startContainer "$OUT/c2.stdio"
    run rr delete --force c2
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"warning"*"hooks.poststop[0]"*"exited 3"* ]]
    [ "$(field "$OUT/pst1.json" status)" = stopped ]
    [ "$(field "$OUT/pst1.json" id)" = c2 ]
    [ ! -e "$RR_ROOT/c2" ]

    # runc (1.1.5, Debian 12) is the reference for startContainer only: it
    # runs poststart hooks inside create (status "created"; a failing one
    # fails the create) and stops its poststop hooks at the first failure,
    # where the spec wants them after start and every one run
    command -v runc >/dev/null || return 0
    python3 - "$B/config.json" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))
del c["hooks"]["poststart"], c["hooks"]["poststop"]
json.dump(c, open(sys.argv[1], "w"))
EOF2
    RUNC_IDS+=(rc2-$X)
    run create runc_ rc2-$X
    [ "$status" = 0 ]
    run runc_ start rc2-$X
    [ "$status" = 0 ]
    for _ in $(seq 50); do grep -q from-startContainer "$OUT/rc2-$X.stdio" && break; sleep 0.1; done
    grep -q from-startContainer "$OUT/rc2-$X.stdio"
}

@test "hooks: a start waiting for an exec that never comes (startContainer hangs) does not hold up delete --force; nothing is left" {
    make_bundle '["sleep", "1000"]' \
        '{"startContainer": [{"path": "/bin/sleep", "args": ["sleep", "1000"]}]}'
    run create rr c4
    [ "$status" = 0 ]
    local pid
    pid=$(rr state c4 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    rr start c4 >"$OUT/start.out" 2>&1 &
    START_PID=$!
    # start has read the fifo's byte once the fifo is gone
    for _ in $(seq 100); do
        [ -e "$RR_ROOT/c4/exec.fifo" ] || break
        sleep 0.1
    done
    [ ! -e "$RR_ROOT/c4/exec.fifo" ]
    # a guard against a deadlock, not a speed bound: behind start's lock,
    # delete would wait as long as the hook
    run timeout 60 "$RR_BIN/revrun" --root "$RR_ROOT" delete --force c4
    echo "$output"
    [ "$status" = 0 ]
    wait "$START_PID" || true
    assert_dead "$pid"
    [ ! -e "$RR_ROOT/c4" ]
    ! pgrep -f "^sleep 1000" -P "$pid" >/dev/null || false
}

@test "hooks: startContainer (the image's program) runs confined as the process: its caps, no_new_privs, seccomp; a read-only bind stays read-only; nothing keeps more" {
    # The hook's path is resolved in the container, so its bytes are the
    # image's: it must hold no more than the process it precedes. It tries
    # what a hook with the user namespace's CAP_SYS_ADMIN could (remount a
    # read-only bind read-write, write the host's directory) and leaves a
    # process behind; all of it is judged from the host.
    for a in mount setsid; do ln -sf busybox "$B/rootfs/bin/$a"; done
    local D=$RR_TMP/hostro
    mkdir "$D"
    chmod 0777 "$D"
    echo host-bytes >"$D/canary"
    chmod 0666 "$D/canary"
    make_bundle '["sleep", "1000"]' \
        '{"startContainer": [{"path": "/bin/sh", "args": ["sh", "-c",
            "cat /proc/$$/status >/tmp/hs; mount -o remount,bind,rw /h; echo mount=$? >/tmp/hr; echo pwned >/h/canary; echo pwned >/h/new; setsid sleep 1000 </dev/null >/dev/null 2>&1 & exit 0"]}]}'
    python3 - "$B/config.json" "$D" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))
c["mounts"].append({"destination": "/h", "type": "bind", "source": sys.argv[2],
                    "options": ["rbind", "ro"]})
c["process"]["user"] = {"uid": 1000, "gid": 1000}
json.dump(c, open(sys.argv[1], "w"))
EOF2
    run create rr c6
    echo "$output"
    [ "$status" = 0 ]
    run rr start c6
    echo "$output"
    [ "$status" = 0 ]
    local pid
    pid=$(rr state c6 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    # start returns once the process has exec'd: the hook is done
    [[ "$(readlink "/proc/$pid/exe")" == */bin/busybox ]]
    local want hs=/proc/$pid/root/tmp/hs
    want=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
    cat "$hs" "/proc/$pid/root/tmp/hr"
    # the hook: the process's capabilities (no CAP_SYS_ADMIN, bit 21),
    # its no_new_privs and the seccomp filters
    [ "$(awk '/^CapEff:/ {print $2}' "$hs")" = "$want" ]
    [ $(( 0x$want & (1 << 21) )) = 0 ]
    [ "$(awk '/^Seccomp:/ {print $2}' "$hs")" = 2 ]
    [ "$(awk '/^NoNewPrivs:/ {print $2}' "$hs")" = "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")" ]
    # and its identity (as the container sees it: process.user)
    [ "$(awk '/^Uid:/ {print $2 $3 $4 $5}' "$hs")" = 1000100010001000 ]
    [ "$(awk '/^Gid:/ {print $2 $3 $4 $5}' "$hs")" = 1000100010001000 ]
    # the remount was refused and the host directory is unchanged
    [ "$(cat "/proc/$pid/root/tmp/hr")" != mount=0 ]
    awk '$5 == "/h" {print $6}' "/proc/$pid/mountinfo" | grep -q '^ro'
    ! awk '$5 == "/h" {print $6}' "/proc/$pid/mountinfo" | grep -q '^rw' || false
    [ "$(cat "$D/canary")" = host-bytes ]
    [ "$(ls -A "$D")" = canary ]
    # every process of the container's pid namespace (the left-behind
    # sleep included) has the process's capabilities and is filtered
    local ns p n=0
    ns=$(readlink "/proc/$pid/ns/pid")
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
        grep -E '^(Name|CapEff|Seccomp):' "$p/status"
        [ "$(awk '/^CapEff:/ {print $2}' "$p/status")" = "$want" ]
        [ "$(awk '/^Seccomp:/ {print $2}' "$p/status")" = 2 ]
        n=$((n + 1))
    done
    [ "$n" -ge 2 ]
    rr delete --force c6
}

@test "hooks: a failing prestart hook fails create, with its words; createRuntime never runs, the process is gone, nothing is left" {
    make_bundle '["sh", "-c", "echo ran >/tmp/ran"]' \
        '{"prestart": [{"path": "HOOK", "args": ["hook", "pre", "fail"]}],
          "createRuntime": [{"path": "HOOK", "args": ["hook", "cr"]}]}'
    run create rr c3
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"hooks.prestart[0]"*"exited 3"*"hook pre says no"* ]]
    [ ! -e "$OUT/cr.json" ]
    local pid
    pid=$(field "$OUT/pre.json" pid)
    assert_dead "$pid"
    [ ! -e "$RR_ROOT/c3" ]
    run rr state c3
    [ "$status" != 0 ]

    command -v runc >/dev/null || return 0
    rm -f "$OUT"/pre.*
    RUNC_IDS+=(rc3-$X)
    run create runc_ rc3-$X
    [ "$status" != 0 ]
    [ ! -e "$OUT/cr.json" ]
    run runc_ state rc3-$X
    [ "$status" != 0 ]
}
