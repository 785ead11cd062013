#!/usr/bin/env bats
# Engine mode with what an engine's bundle carries for revrun: OCI hooks
# run by revrun create/start/delete on containerd's config (their moments,
# failures and timeouts), and the io.revrun.* annotations through ctr and
# podman (a checkout overlaid and exported as a vetted change set, fuse,
# export names, policies, unknown keys). Judged from the host: the checkout's
# bytes, the exported change set, the hook's records, what is left.

load engines_helpers

# ---- hooks, without an engine: revrun create/start/delete on an engine's bundle ----

# A bundle from containerd's config with the test image as root and the
# hooks given as JSON ($1); the state root is $B/state.
hook_bundle() {
    B=$(mktemp -d /tmp/revrun-engine-hooks.XXXXXX)
    chmod 0755 "$B"
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = "/rrengines-t/" + sys.argv[2].rstrip("/").split("/")[-1]  # the fixture's /default/t2 is every concurrent run's
c["root"]["path"] = sys.argv[3]
c["process"]["args"] = ["sh", "-c", "exit 0"]
c["hooks"] = json.loads(sys.argv[4])
c["annotations"] = {"org.example/k": "v"}
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
    cat >"$B/hook.sh" <<'SH'
#!/bin/sh
# $1: where to put the state; $2: how to end
cat >"$1"
case $2 in
fail) echo "hook says no" >&2; exit 3 ;;
hang) sleep 30 ;;
esac
exit 0
SH
    chmod 0755 "$B/hook.sh"
}

# create, with the container's stdio (create's) in a file: a created
# container holds it until it runs, as runc's does.
hook_create() {
    "$RT" --root "$B/state" create --bundle "$B" h1 </dev/null >"$B/create.out" 2>&1
    local rc=$?
    cat "$B/create.out"
    return $rc
}

hook_teardown() {
    "$RT" --root "$B/state" delete --force h1 >/dev/null 2>&1 || true
    rm -rf "$B"
}

@test "hooks: run on the host side with the state on stdin, at their moments" {
    hook_bundle '{"prestart": [{"path": "HOOK", "args": ["hook", "B/prestart.json"]}],
                  "createRuntime": [{"path": "HOOK", "args": ["hook", "B/createRuntime.json"]}],
                  "poststart": [{"path": "HOOK", "args": ["hook", "B/poststart.json"]}],
                  "poststop": [{"path": "HOOK", "args": ["hook", "B/poststop.json"]}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    run hook_create
    echo "$output"
    [ "$status" = 0 ]
    [ -s "$B/prestart.json" ] && [ -s "$B/createRuntime.json" ] || false
    [ ! -e "$B/poststart.json" ]
    local pid
    pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$B/prestart.json")
    # the state names the container's process, its id, bundle and annotations
    python3 - "$B/createRuntime.json" "$pid" "$B" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["id"] == "h1" and s["status"] == "created", s
assert s["pid"] == int(sys.argv[2]) and s["pid"] > 0, s
assert s["bundle"] == sys.argv[3], s
assert s["annotations"] == {"org.example/k": "v"}, s
PY
    kill -0 "$pid"
    "$RT" --root "$B/state" start h1
    [ -s "$B/poststart.json" ]
    grep -q '"status":"running"' "$B/poststart.json"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    "$RT" --root "$B/state" delete h1
    grep -q '"status":"stopped"' "$B/poststop.json"
    [ ! -e "$B/state/h1" ]
    hook_teardown
}

@test "hooks: a failing createRuntime hook fails create, with its output; nothing is left" {
    hook_bundle '{"createRuntime": [{"path": "HOOK", "args": ["hook", "B/cr.json", "fail"]}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    run hook_create
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"hooks.createRuntime[0]"*"exited 3"*"hook says no"* ]]
    [ ! -e "$B/state/h1" ]
    local pid
    pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$B/cr.json")
    assert_dead "$pid"
    hook_teardown
}

@test "hooks: a hook past its timeout is killed and fails create" {
    hook_bundle '{"prestart": [{"path": "HOOK", "args": ["hook", "B/p.json", "hang"], "timeout": 1}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    run hook_create
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"hooks.prestart[0]"*"killed after its timeout of 1s"* ]]
    [ ! -e "$B/state/h1" ]
    hook_teardown
}

@test "hooks: a failing poststop hook is a warning; the delete goes on" {
    hook_bundle '{"poststop": [{"path": "HOOK", "args": ["hook", "B/ps.json", "fail"]}]}'
    sed -i "s|HOOK|$B/hook.sh|g; s|\"B/|\"$B/|g" "$B/config.json"
    hook_create
    run "$RT" --root "$B/state" delete --force h1
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *"warning"*"hooks.poststop[0]"*"exited 3"* ]]
    [ ! -e "$B/state/h1" ]
    hook_teardown
}

# ---- io.revrun.* annotations: revrun's own settings through an engine ----

# The agent's edits: one modified, one added, one deleted, one untouched.
EDITS='echo changed >/work/a.txt && echo new >/work/new.txt && rm /work/sub/b.txt && cat /work/a.txt /work/c.txt && ls /work'

# The export: the three changes, nothing else, and the host checkout as it was.
judge_checkout_export() {
    echo "$output"
    [ "$status" = 0 ]
    [ "$(echo "$output" | head -2)" = "changed
same" ]
    # the host's checkout: not a byte, name or mode changed
    diff <(checkout_sums) "$CO.sums"
    [ ! -e "$CO/new.txt" ]
    # the vetted change set, exported at delete
    [ -f "$EXP/manifest.json" ]
    python3 - "$EXP/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted((c["path"], c["kind"]) for c in m["changes"])
assert got == [("a.txt", "modify"), ("new.txt", "add"), ("sub/b.txt", "delete")], got
PY
    # the new contents (a.txt, new.txt) and the base's of a.txt and sub/b.txt
    [ "$(find "$EXP/blobs" -type f | wc -l)" = 4 ]
}

@test "ctr: io.revrun.checkout overlays the bind: writes land in the upper, the host checkout is untouched, delete exports the change set" {
    need ctr
    make_checkout
    local name=ctr-co-$$
    EXP=/var/lib/revrun/exports/$name
    NAMES+=("ctr:co1")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation "io.revrun.export=$name" \
        "$IMG_CTR" co1 sh -c "$EDITS"
    judge_checkout_export
    # the store (the upper's tmpfs) went with the delete
    nothing_left co1 "/run/containerd/runc/$NS"
}

@test "ctr: io.revrun.overlay=fuse: fuse-overlayfs serves the checkout past create; the host checkout is untouched, delete exports the change set" {
    need ctr
    make_checkout
    local name=ctr-fuse-$$
    EXP=/var/lib/revrun/exports/$name
    NAMES+=("ctr:cof")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation io.revrun.overlay=fuse \
        --annotation "io.revrun.export=$name" "$IMG_CTR" cof sh -c "$EDITS; grep ' /work ' /proc/self/mountinfo | grep -c ' - fuse'"
    judge_checkout_export
    [ "$(echo "$output" | tail -1)" = 1 ] # the view is fuse-overlayfs'
    nothing_left cof "/run/containerd/runc/$NS"
    ! pgrep -f "fuse-overlayfs.*$CO" # the daemon ended with the container
}

@test "podman: io.revrun.checkout overlays the bind: the host checkout is untouched, delete exports the change set" {
    need podman
    make_checkout
    local name=podman-co-$$
    EXP=/var/lib/revrun/exports/$name
    run_on podman revrun pco1 --network none -v "$CO:/work" --annotation io.revrun.checkout=/work \
        --annotation "io.revrun.export=$name" -- sh -c "$EDITS"
    judge_checkout_export
    ! grep -F "$CO" /proc/self/mountinfo || false
}

@test "ctr: io.revrun.checkout without an export: the upper is seen by revrun diff once stopped, and the size cap holds" {
    need ctr
    make_checkout
    NAMES+=("ctr:co2")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" -d \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation io.revrun.upperSize=1M \
        "$IMG_CTR" co2 sh -c 'echo changed >/work/a.txt; dd if=/dev/zero of=/work/big bs=64k count=64'
    [ "$status" = 0 ]
    for _ in $(seq 100); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "co2" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    # the shim's mount namespace holds the store: diff from there
    local shim
    shim=$(pgrep -f "containerd-shim-runc-v2 -namespace $NS -id co2" | head -1)
    [ -n "$shim" ]
    run nsenter -t "$shim" -m "$RT" --root "/run/containerd/runc/$NS" diff --json co2
    echo "$output"
    # a.txt changed; 4 MiB asked into a 1 MiB upper: big is cut short (ENOSPC)
    python3 -c '
import json, sys
doc = json.loads(sys.argv[1])
ch = {c["path"]: c for c in doc["changes"]}
assert ch["a.txt"]["kind"] == "modify", ch
assert ch["big"]["size"] < (1 << 20), ch["big"]
' "$output"
    diff <(checkout_sums) "$CO.sums"
    ctr -n "$NS" task delete co2
    ctr -n "$NS" container rm co2
    nothing_left co2 "/run/containerd/runc/$NS"
}

# review2 F1: the checkout's owner is idmapped to the container's user, so a
# root-owned source (a read-only bind of /etc, /, a volume root) would hand
# the container root's 0600 files. Refused at create; the same tree owned by
# a user id is taken, and root's file inside it stays unreadable.
@test "ctr: io.revrun.checkout of a root-owned bind is refused; root's 0600 file in a user's checkout stays unreadable" {
    need ctr
    CO=$(mktemp -d /tmp/revrun-engine-co.XXXXXX)
    chmod 0755 "$CO"
    echo TOPSECRET >"$CO/key"
    chmod 0600 "$CO/key"
    NAMES+=("ctr:corr")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/h,options=rbind:ro" \
        --annotation io.revrun.checkout=/h "$IMG_CTR" corr sh -c 'cat /h/key'
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" != *TOPSECRET* ]]
    [[ "$output" == *"owned by uid 0 gid 0"* ]]
    # the directory a user's, the file still root's: unmapped, unreadable
    chown 4242:4242 "$CO"
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/h,options=rbind:ro" \
        --annotation io.revrun.checkout=/h "$IMG_CTR" corr sh -c 'ls -ln /h/key; cat /h/key; echo rc=$?'
    echo "$output"
    [[ "$output" != *TOPSECRET* ]]
    [[ "$output" == *"rc=1"* ]]
    [[ "$output" == *" 65534 "* ]]
}

# review2 F7: an export name is claimed at create, so a second container
# naming it is refused there, naming the holder; the holder's change set is
# what lands under the name, with an origin file saying whose.
@test "ctr: io.revrun.export names are one container's: a second create with the name is refused, naming the first" {
    need ctr
    make_checkout
    local name=ctr-claim-$$
    EXP=/var/lib/revrun/exports/$name
    NAMES+=("ctr:cl1" "ctr:cl2")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" -d \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation "io.revrun.export=$name" \
        "$IMG_CTR" cl1 sh -c "$EDITS; sleep 1000"
    [ "$status" = 0 ]
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work --annotation "io.revrun.export=$name" \
        "$IMG_CTR" cl2 sh -c 'echo attacker >/work/a.txt'
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"is held by container cl1"* ]]
    ctr -n "$NS" task kill -s SIGKILL cl1
    for _ in $(seq 100); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "cl1" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    ctr -n "$NS" task delete cl1
    ctr -n "$NS" container rm cl1
    [ -f "$EXP/manifest.json" ]
    grep -qx "container cl1" "$EXP/origin"
    [ ! -e "$EXP/.claim" ]
    # the claim it swapped out went too
    [ ! -e "$(dirname "$EXP")/.export-cl1" ]
    ! grep -rq attacker "$EXP" || false
    grep -rqx changed "$EXP/blobs"
}

# review2 F8: diff, export and delete re-open the checkout by its host
# path; one swapped for another tree since create is refused, not judged.
@test "ctr: io.revrun.checkout whose host path leads to another tree after create: diff refuses it" {
    need ctr
    make_checkout
    NAMES+=("ctr:cosw")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" -d \
        --mount "type=bind,src=$CO,dst=/work,options=rbind:rw" \
        --annotation io.revrun.checkout=/work "$IMG_CTR" cosw sh -c 'echo changed >/work/a.txt'
    [ "$status" = 0 ]
    for _ in $(seq 100); do
        [ "$(ctr -n "$NS" task ls | awk '$1 == "cosw" {print $3}')" = STOPPED ] && break
        sleep 0.1
    done
    local shim
    shim=$(pgrep -f "containerd-shim-runc-v2 -namespace $NS -id cosw" | head -1)
    [ -n "$shim" ]
    run nsenter -t "$shim" -m "$RT" --root "/run/containerd/runc/$NS" diff --json cosw
    [ "$status" = 0 ]
    # the same path, another tree
    mv "$CO" "$CO.moved"
    mkdir "$CO"
    echo other >"$CO/a.txt"
    chown -R 4242:4242 "$CO"
    run nsenter -t "$shim" -m "$RT" --root "/run/containerd/runc/$NS" diff --json cosw
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"another tree than the one create overlaid"* ]]
    rm -rf "$CO"
    mv "$CO.moved" "$CO"
    ctr -n "$NS" task delete cosw
    ctr -n "$NS" container rm cosw
    nothing_left cosw "/run/containerd/runc/$NS"
}

@test "ctr: io.revrun.policy naming a policy the host does not define is refused" {
    need ctr
    NAMES+=("ctr:pol1")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --annotation io.revrun.policy=wide \
        "$IMG_CTR" pol1 true
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *'io.revrun.policy \"wide\": not a policy of this host'* ||
       "$output" == *'io.revrun.policy "wide": not a policy of this host'* ]]
}

@test "ctr: an unknown io.revrun annotation is refused; an unrelated one is carried" {
    need ctr
    NAMES+=("ctr:ann1" "ctr:ann2")
    run timeout 60 ctr -n "$NS" run --runc-binary "$RT" --rm --annotation io.revrun.chekout=/work \
        "$IMG_CTR" ann1 true
    echo "$output"
    [ "$status" != 0 ]
    [[ "$output" == *"io.revrun.chekout"*"unknown revrun annotation"* ]]
    # outside io.revrun.*: never refused (the runtime spec), and kept for `state`
    ctr -n "$NS" run --runc-binary "$RT" -d --annotation org.example.review/ticket=RR-1 \
        --annotation io.revrunner=x "$IMG_CTR" ann2 sleep 600
    run "$RT" --root "/run/containerd/runc/$NS" state ann2
    echo "$output"
    [ "$status" = 0 ]
    [[ "$output" == *'"org.example.review/ticket": "RR-1"'* ]]
    ctr -n "$NS" task kill -s SIGKILL ann2
}
