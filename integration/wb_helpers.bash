# Helpers of the write-back suites (integration/writeback*.bats): make a
# checkout, let an "agent" script change it through a real overlay mount (as
# root with trusted.* xattrs, in a user namespace with userxattr, or through
# fuse-overlayfs), then judge revrun's verdict and TARGET from the outside.
#
# WB           scratch directory of the test ($RR_TMP/wb)
# WB_FORMAT    the format of the upper the last wb_agent made

# The runtime's mount options: no redirect, no metacopy, no index.
WB_OVL_OPTS="redirect_dir=nofollow,metacopy=off,index=off,volatile"

wb_setup() {
    rr_setup_tmp
    WB="$RR_TMP/wb"
    mkdir -p "$WB"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB" # rootless runs export and apply here
    wb_lower "$WB/lower"
}

# The checkout: text, a script, a binary, a symlink, nested directories, and
# the git and CI files the rules care about. Owned by the unprivileged test
# identity, as a user's checkout is.
wb_lower() {
    local d=$1
    mkdir -p "$d/src/lib" "$d/docs/old" "$d/.git/hooks" "$d/.github/workflows"
    printf 'hello\n' >"$d/README"
    printf 'int main(void)\n{\n    return 0;\n}\n' >"$d/src/main.c"
    printf 'int lib;\n' >"$d/src/lib/lib.c"
    printf 'old a\n' >"$d/docs/old/a.txt"
    printf 'old b\n' >"$d/docs/old/b.txt"
    printf '#!/bin/sh\necho hi\n' >"$d/run.sh"
    printf 'bin\000ary\001\002' >"$d/blob.bin"
    printf '[core]\n' >"$d/.git/config"
    printf 'on: push\n' >"$d/.github/workflows/ci.yml"
    printf 'keep\n' >"$d/keep.txt"
    ln -s README "$d/link"
    ln -s src "$d/srclink"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$d"
}

# wb_mount MODE DIR SCRIPT: run SCRIPT (bash) with the merged view of
# $WB/lower and $WB/upper mounted at DIR as its working directory.
wb_mount() {
    local mode=$1 dir=$2 script=$3 work
    # A fresh work directory per mount: a volatile mount leaves its own
    # marker behind and refuses to be mounted over it again.
    work=$(mktemp -d "$WB/work.XXXXXX")
    mkdir -p "$WB/upper" "$dir"
    case "$mode" in
    root)
        unshare -m bash -c "mount -t overlay overlay -o lowerdir=$WB/lower,upperdir=$WB/upper,workdir=$work,$WB_OVL_OPTS $dir && cd $dir && { $script; }"
        ;;
    user)
        chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/upper" "$work" "$dir"
        setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
            unshare -Urm bash -c "mount -t overlay overlay -o lowerdir=$WB/lower,upperdir=$WB/upper,workdir=$work,userxattr,$WB_OVL_OPTS $dir && cd $dir && { $script; }"
        ;;
    fuse)
        # As revrun runs it (overlay/fuse.c): root makes the FUSE mount on a
        # /dev/fuse fd, the daemon and the agent run as the unprivileged
        # test identity, so the daemon cannot write trusted.* markers.
        chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/upper" "$work" "$dir"
        WB_SCRIPT=$script unshare -m bash -c "exec 3<>/dev/fuse &&
            mount -i -t fuse -o fd=3,rootmode=40000,user_id=$REVRUN_TEST_UID,group_id=$REVRUN_TEST_GID,default_permissions,nosuid,nodev fuse-overlayfs $dir &&
            { setpriv --reuid=$REVRUN_TEST_UID --regid=$REVRUN_TEST_GID --clear-groups fuse-overlayfs -f -o lowerdir=$WB/lower,upperdir=$WB/upper,workdir=$work /dev/fd/3 2>/dev/null & } &&
            exec 3>&- &&
            setpriv --reuid=$REVRUN_TEST_UID --regid=$REVRUN_TEST_GID --clear-groups bash -c 'cd $dir && eval \"\$WB_SCRIPT\"'
            rc=\$?; umount $dir; wait; exit \$rc"
        ;;
    esac
}

wb_format_of() {
    case "$1" in
    root) echo overlay ;;
    user) echo overlay-userxattr ;;
    fuse) echo fuse-overlayfs ;;
    esac
}

# wb_agent MODE SCRIPT: the agent's work, through a real mount.
wb_agent() {
    if [ "$1" = fuse ] && { ! command -v fuse-overlayfs >/dev/null || [ ! -c /dev/fuse ]; }; then
        skip "fuse-overlayfs or /dev/fuse missing"
    fi
    WB_MODE=$1
    WB_FORMAT=$(wb_format_of "$1")
    wb_mount "$1" "$WB/merged" "$2"
}

# Every byte that matters in a tree: type, permission bits, size, symlink
# target, content hash. TARGET after a refusal must match this exactly.
wb_state() {
    (cd "$1" && find . -printf '%y %m %s %p -> %l\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# What write-back carries: type, the executable bit, symlink target, content.
wb_view() {
    (cd "$1" && find . -mindepth 1 \( -type f -perm -u+x -printf 'x ' -o -printf '- ' \) \
        -printf '%y %p -> %l\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# The merged view as the agent left it, seen through the same kind of mount.
wb_merged_view() {
    wb_mount "$WB_MODE" "$WB/view" "$(declare -f wb_view); wb_view ."
}

# revrun as root, or as the test identity when WB_AS_USER=1.
wb_revrun() {
    if [ "${WB_AS_USER:-0}" = 1 ]; then
        as_user "$RR_BIN/revrun" "$@"
    else
        "$RR_BIN/revrun" "$@"
    fi
}

wb_pair() {
    echo --lower "$WB/lower" --upper "$WB/upper" --format "$WB_FORMAT"
}

wb_digest() {
    wb_revrun diff --json $(wb_pair) | python3 -c 'import json,sys; print(json.load(sys.stdin)["digest"])'
}

wb_target() {
    rm -rf "$WB/target"
    cp -a "$WB/lower" "$WB/target"
}

# Accepted: diff says accept, export + apply make TARGET the merged view.
wb_expect_accept() {
    local digest
    wb_target
    run wb_revrun diff $(wb_pair)
    assert_success
    digest=$(wb_digest)
    run wb_revrun export $(wb_pair) "$WB/out"
    assert_success
    [ "$output" = "$digest" ]
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$digest"
    assert_success
    diff <(wb_view "$WB/target") <(wb_merged_view)
    ! ls -a "$WB/target" | grep -q '^\.revrun-apply-' || false
}

# Refused for CODE: diff exits 5 naming it, export and writeback refuse and
# TARGET is byte for byte what it was.
wb_expect_refuse() {
    local code=$1 before
    wb_target
    before=$(wb_state "$WB/target")
    run wb_revrun diff $(wb_pair)
    if [ "$status" -ne 5 ]; then
        echo "expected refusal (5), got $status: $output" >&2
        return 1
    fi
    assert_output_contains "[$code]"
    run wb_revrun export $(wb_pair) "$WB/out"
    [ "$status" -eq 5 ]
    [ ! -e "$WB/out" ]
    run wb_revrun writeback $(wb_pair) --to "$WB/target" --approve "$(wb_digest)"
    [ "$status" -eq 5 ]
    [ "$before" = "$(wb_state "$WB/target")" ]
}
