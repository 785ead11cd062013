#!/usr/bin/env bats
# An engine's root.path and the host: what a container does through its
# root never leaves a file on a host filesystem owned by a host id outside
# the container's block, and a host tree given as the root (a bind alias of
# "/", /etc) is never shown through the container's mapping. Driven as
# engine_oci.bats drives revrun (create, start, state, delete on
# containerd's config), judged from the host: the image's bytes, owners and
# modes before and after, what a host user gets running what the container
# left, the host's canaries.

load helpers

setup_file() {
    export ENG_DIR
    ENG_DIR=$(mktemp -d /tmp/revrun-engroot.XXXXXX)
    chmod 0755 "$ENG_DIR"
    cp "$REVRUN" "$ENG_DIR/revrun"
    chmod 0755 "$ENG_DIR/revrun"
    "$BATS_TEST_DIRNAME/engines/mkimage.sh" "$ENG_DIR/img" >/dev/null
    cp "$REVRUN_PROBES/ids" "$REVRUN_PROBES/try" "$ENG_DIR/img/rootfs/bin/"
    chmod 0755 "$ENG_DIR/img/rootfs/bin/ids" "$ENG_DIR/img/rootfs/bin/try"
}

teardown_file() {
    rm -rf "$ENG_DIR"
}

setup() {
    [ "$(id -u)" = 0 ] || skip "engine mode runs as root"
    RT=$ENG_DIR/revrun
    B=$(mktemp -d /tmp/revrun-engroot-b.XXXXXX)
    chmod 0755 "$B"
    TAG="revrun-canary-$$-$RANDOM"
    ALIAS=
    IMG=
    RD=
    touch "$B/start"
}

teardown() {
    "$RT" --root "$B/state" delete --force c1 >/dev/null 2>&1 || true
    # the alias of a host tree first, and never removed but by rmdir
    if [ -n "$ALIAS" ]; then
        umount -l "$ALIAS" 2>/dev/null || true
        rmdir "$ALIAS" 2>/dev/null || true
    fi
    rm -f "/etc/rr-plant-$$" "/etc/ssl/private/rr-plant-$$"
    [ -z "$RD" ] || rm -rf "$RD"
    [ -z "$IMG" ] || rm -rf "$IMG"
    # mount points a runtime that wrote into the host's /etc would have made
    for d in rrbin proc dev sys run; do
        [ -n "$(find "/etc/$d" -maxdepth 0 -type d -empty -newer "$B/start" 2>/dev/null)" ] &&
            rmdir "/etc/$d" || true
    done
    grep -F " $B" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    find /sys/fs/cgroup -depth -type d -name "rrengroot-$$-*" -exec rmdir {} \; 2>/dev/null || true
    rm -rf "$B"
}

# bundle ROOT PYTHON...: containerd's config with ROOT as root.path, no
# capabilities at all, edited by the statements given (c is the config)
bundle() {
    local root=$1
    shift
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$root" "rrengroot-$$-$BATS_TEST_NUMBER" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = sys.argv[3]
c["root"]["readonly"] = False
c["process"]["terminal"] = False
c["process"]["capabilities"] = {k: [] for k in ("bounding", "effective", "permitted", "inheritable", "ambient")}
c["linux"]["cgroupsPath"] = "/" + sys.argv[4]
for stmt in sys.argv[5:]:
    exec(stmt)
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
}

# create and start c1; wait until its output holds $1 (or it stopped)
start_until() {
    "$RT" --root "$B/state" --log "$B/log" create --bundle "$B" c1 </dev/null >"$B/out" 2>&1 || {
        cat "$B/out"
        return 1
    }
    "$RT" --root "$B/state" start c1
    for _ in $(seq 300); do
        grep -q "$1" "$B/out" && return 0
        "$RT" --root "$B/state" state c1 | grep -q '"status": *"stopped"' && break
        sleep 0.1
    done
    grep -q "$1" "$B/out" && return 0 # what it printed before it stopped
    cat "$B/out"
    return 1
}

# every name, type, owner, mode and size under $1, and the bytes
tree_sum() {
    (cd "$1" && find . -printf '%p %y %U:%G %m %s\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum
}

pid_of() { "$RT" --root "$B/state" state c1 | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'; }
host_uid() { awk '/^Uid:/ {print $2}' "/proc/$1/status"; }

@test "engine root: a capability-less container's setuid plant in its directory root leaves no setuid file owned by a host id outside its block; a host user running what it left gets no new id" {
    cp -a "$ENG_DIR/img/rootfs" "$B/img"
    before=$(tree_sum "$B/img")
    bundle "$B/img" 'c["process"]["args"] = ["sh", "-c", "cp /bin/ids /tmp/rootme && chmod 4755 /tmp/rootme; cp /bin/ids /rootme && chmod 6755 /rootme; mkdir -p /etc/x && cp /bin/ids /etc/x/r && chmod 4755 /etc/x/r; ls -ln /tmp/rootme /rootme; grep CapEff /proc/self/status; echo planted; exec sleep 1000"]'
    start_until planted
    cat "$B/out"
    grep -q "CapEff:.*0000000000000000" "$B/out"
    # the plant worked inside: the container's root owns what it wrote
    grep -q -- "-rwsr-xr-x .* 0 *0 .*/tmp/rootme" "$B/out"
    base=$(host_uid "$(pid_of)")
    echo "the container's root is host uid $base"
    [ "$base" -gt 0 ]
    # while it runs: every setuid or setgid file revrun or the container
    # holds on a host filesystem is owned by an id of the block, and a host
    # user running it stays who it is
    found=0
    while read -r f; do
        found=$((found + 1))
        owner=$(stat -c %u "$f")
        group=$(stat -c %g "$f")
        echo "setuid/setgid: $f $owner:$group"
        [ "$owner" -ge "$base" ]
        [ "$owner" -lt $((base + 65536)) ]
        [ "$group" -ge "$base" ]
        [ "$group" -lt $((base + 65536)) ]
        run setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups "$f"
        echo "as uid $REVRUN_TEST_UID: $status $output"
        euid=$(sed -n 's/^euid=//p' <<<"$output")
        [ -z "$euid" ] || [ "$euid" = "$REVRUN_TEST_UID" ]
    done < <(find "$B" -xdev -type f -perm /6000 2>/dev/null; find "$B/state" -type f -perm /6000 2>/dev/null)
    [ "$found" -gt 0 ] # the plants are there (in the container's upper)
    # the image directory itself: not a byte, owner or mode changed
    [ "$(tree_sum "$B/img")" = "$before" ]
    "$RT" --root "$B/state" delete --force c1
    [ "$(tree_sum "$B/img")" = "$before" ]
    [ -z "$(find "$B" -type f -perm /6000)" ]
    grep -q "root.path $B/img: a writable directory: shown read-only through the container's mapping" "$B/log"
}

# the container's view of the host canaries, through root.path $1 ($2:
# root.readonly), as a capability-less root; its output in $B/out
probe_host_tree() {
    local root=$1 ro=$2
    shift 2
    bundle "$root" "c['root']['readonly'] = $ro" "$@"
    start_until 'probe done'
    cat "$B/out"
}

@test "engine root: a bind alias of the host's / as root.path is never idmapped: no read of a root-only host file, no write into a root-only host directory (writable and read-only)" {
    ALIAS=$(mktemp -d /tmp/revrun-engroot-alias.XXXXXX)
    # writable, as an engine's root would be: a write the fix did not stop
    # lands in the host's tree. The canary and the root-only directory sit
    # on the filesystem of / itself (the alias is not recursive).
    mount --bind / "$ALIAS"
    RD=$(mktemp -d /revrun-engroot-rd.XXXXXX)
    printf '%s\n' "$TAG" >"$RD/canary"
    chmod 0600 "$RD/canary"
    mkdir -m 0700 "$RD/rootonly"
    grep -qF "$TAG" "$ALIAS$RD/canary" # what the container is given holds them
    for ro in False True; do
        bundle_args="c['process']['args'] = ['/bin/sh', '-c', 'cat $RD/canary; echo x >$RD/rootonly/x; echo x >/etc/rr-plant-$$; echo probe done']"
        probe_host_tree "$ALIAS" "$ro" "$bundle_args"
        grep -q "probe done" "$B/out"
        [ -z "$(grep -F "$TAG" "$B/out")" ]
        [ ! -e "$RD/rootonly/x" ]
        [ ! -e "/etc/rr-plant-$$" ]
        grep -q "root.path $ALIAS: is the host's / (told by what the directory is" "$B/log"
        "$RT" --root "$B/state" delete --force c1
    done
    # without the alias revrun's own files are not the host's: nothing left
    [ -z "$(ls -A "$B/state" 2>/dev/null)" ]
}

@test "engine root: the host's /etc as root.path is never idmapped: root-only files stay unreadable, nothing is written into it, not even mount points" {
    local shadow_line
    shadow_line=$(head -1 /etc/shadow)
    [ -n "$shadow_line" ]
    for ro in False True; do
        probe_host_tree /etc "$ro" \
            "c['mounts'].append({'destination': '/rrbin', 'type': 'bind', 'source': '$ENG_DIR/img/rootfs/bin', 'options': ['rbind', 'ro']})" \
            "c['process']['env'] = ['PATH=/rrbin']" \
            "c['process']['args'] = ['/rrbin/sh', '-c', 'cat /shadow; try read /shadow; try write /ssl/private/rr-plant-$$; try write /rr-plant-$$; echo probe done']"
        grep -q "probe done" "$B/out"
        [ -z "$(grep -F "$shadow_line" "$B/out")" ]
        [ ! -e "/etc/ssl/private/rr-plant-$$" ]
        [ ! -e "/etc/rr-plant-$$" ]
        # the mount points /etc lacks were made in the private upper
        [ ! -e /etc/rrbin ]
        [ ! -e /etc/proc ]
        [ ! -e /etc/sys ]
        grep -q "root.path /etc: is the host's /etc" "$B/log"
        "$RT" --root "$B/state" delete --force c1
    done
}

@test "engine root: an image directory under /root is the host's: its root-only files stay unreadable, nothing written into it" {
    IMG=$(mktemp -d /root/revrun-engroot.XXXXXX)
    chmod 0755 "$IMG"
    printf '%s\n' "$TAG" >"$IMG/canary"
    chmod 0600 "$IMG/canary"
    for ro in False True; do
        probe_host_tree "$IMG" "$ro" \
            "c['mounts'].append({'destination': '/rrbin', 'type': 'bind', 'source': '$ENG_DIR/img/rootfs/bin', 'options': ['rbind', 'ro']})" \
            "c['process']['env'] = ['PATH=/rrbin']" \
            "c['process']['args'] = ['/rrbin/sh', '-c', 'cat /canary; try read /canary; try write /rr-plant-$$; echo probe done']"
        grep -q "probe done" "$B/out"
        [ -z "$(grep -F "$TAG" "$B/out")" ]
        grep -q "^EACCES" "$B/out"
        [ ! -e "$IMG/rr-plant-$$" ]
        grep -q "root.path $IMG: lies in the host's /root" "$B/log"
        "$RT" --root "$B/state" delete --force c1
    done
}

@test "engine root: a tree inside the host's /etc, named through a bind mount elsewhere, is the host's too" {
    [ -d /etc/ssl ] || skip "no /etc/ssl here"
    ALIAS=$(mktemp -d /tmp/revrun-engroot-alias.XXXXXX)
    mount --bind /etc/ssl "$ALIAS"
    mount -o remount,bind,ro "$ALIAS"
    probe_host_tree "$ALIAS" True \
        "c['mounts'].append({'destination': '/rrbin', 'type': 'bind', 'source': '$ENG_DIR/img/rootfs/bin', 'options': ['rbind', 'ro']})" \
        "c['process']['env'] = ['PATH=/rrbin']" \
        "c['process']['args'] = ['/rrbin/sh', '-c', 'try read /private/nothing; echo probe done']"
    grep -q "^EACCES" "$B/out"
    grep -q "root.path $ALIAS: lies in the host's /etc" "$B/log"
}
