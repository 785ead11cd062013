# Shared by the suites that drive engine mode without an engine
# (engine_oci.bats, engine_activity.bats): containerd's config around a
# busybox image, and the host policy given to one command.

# eng_image DIR: revrun and a busybox image (with the probes in its /bin)
# under DIR, where container ids can read them.
eng_image() {
    chmod 0755 "$1"
    cp "$REVRUN" "$1/revrun"
    chmod 0755 "$1/revrun"
    "$BATS_TEST_DIRNAME/engines/mkimage.sh" "$1/img" >/dev/null
    cp "$REVRUN_PROBES/ids" "$REVRUN_PROBES/sys" "$REVRUN_PROBES/try" "$1/img/rootfs/bin/"
}

# bundle PYTHON...: containerd's config in $B, the image under $ENG_DIR as
# root, edited by the statements given (c is the config)
bundle() {
    python3 - "$BATS_TEST_DIRNAME/../tests/fixtures/engines/containerd-ctr-run.json" "$B" \
        "$ENG_DIR/img/rootfs" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = sys.argv[3]
# the fixture's /default/t2 would be every concurrent run's (device rules
# make a v1 devices cgroup there)
c["linux"]["cgroupsPath"] = "/rrengines-oci/" + sys.argv[2].rstrip("/").split("/")[-1]
for stmt in sys.argv[4:]:
    exec(stmt)
json.dump(c, open(sys.argv[2] + "/config.json", "w"))
PY
}

# with_policy JSON CMD...: CMD sees /etc/revrun/policy.json holding JSON
# (an overlay over /etc in a mount namespace of its own: the host's /etc is
# never written)
with_policy() {
    local pol=$1 d rc
    shift
    d=$(mktemp -d /tmp/revrun-policy.XXXXXX)
    mkdir -p "$d/u/revrun" "$d/w"
    printf '%s' "$pol" >"$d/u/revrun/policy.json"
    unshare --mount --propagation private -- sh -c \
        'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/u,workdir=$1/w" /etc || exit 99
         shift; exec "$@"' sh "$d" "$@"
    rc=$?
    rm -rf "$d"
    return $rc
}
