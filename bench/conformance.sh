#!/bin/bash
# bench/conformance.sh: opencontainers/runtime-tools' validation programs,
# run back to back against revrun (default policy, and the policy that lets
# the config decide noNewPrivileges), runc and crun on this host; prints a
# verdict per program and the counts docs/engines.md quotes.
#
#   bench/conformance.sh RT_DIR [RUNTIME...]
#
# RT_DIR: a runtime-tools checkout with `runtimetest` and the programs
# built (validation/NAME/NAME.t), outside this repository, e.g.
#   git -C RT_DIR checkout 260e151
#   (cd RT_DIR && GOFLAGS=-mod=vendor make runtimetest validation-executables)
# RUNTIME: revrun (no policy file), revrun-config (a policy file of
# {"engine": {"noNewPrivileges": "config"}}, bound over /etc/revrun in a
# mount namespace of this script's own: the host's file is never touched),
# runc, crun. Default: all four.
#
# A program passes by A when it exits 0 with at least one `ok` and no
# `not ok`; by C also when it is one of the nine that print no test line
# (the hook programs, process_capabilities_fail, process_rlimits_fail) and
# exits 0 with no diagnostic. Core: the 58 minus the 14 linux_cgroups_*,
# linux_mount_label and linux_process_apparmor_profile.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
rt=${1:?usage: bench/conformance.sh RT_DIR [RUNTIME...]}
rt=$(cd "$rt" && pwd)
shift
[ $# -gt 0 ] || set -- revrun revrun-config runc crun
[ -x "$rt/runtimetest" ] || { echo "no $rt/runtimetest: build it first" >&2; exit 1; }
[ -x "$here/revrun" ] || make -C "$here" revrun >/dev/null
tmp=$(mktemp -d /tmp/revrun-conf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp "$here/revrun" "$tmp/revrun"
chmod 0755 "$tmp" "$tmp/revrun"
SILENT=" hooks prestart prestart_fail poststart poststart_fail poststop poststop_fail process_capabilities_fail process_rlimits_fail "

# verdict NAME OUT RC: A, C or -
verdict() {
    local name=$1 out=$2 rc=$3
    [ "$rc" = 0 ] || { echo -; return; }
    grep -q '^not ok' "$out" && { echo -; return; }
    grep -q '^ok' "$out" && { echo A; return; }
    case $SILENT in *" $name "*) ;; *) echo -; return ;; esac
    grep -qE '^[[:space:]]+---|^#' "$out" && { echo -; return; }
    echo C
}

core() {
    case $1 in linux_cgroups_* | linux_mount_label | linux_process_apparmor_profile) return 1 ;; esac
}

# run_all RUNTIME_BIN: every program, one line each, then the counts.
run_all() {
    local bin=$1 t name rc v a=0 c=0 ca=0 cc=0 n=0
    cd "$rt" || return 1
    for t in validation/*/*.t; do
        name=$(basename "$t" .t)
        RUNTIME=$bin timeout 300 "./$t" >"$tmp/$name.out" 2>&1
        rc=$?
        v=$(verdict "$name" "$tmp/$name.out" "$rc")
        n=$((n + 1))
        [ "$v" = A ] && a=$((a + 1))
        [ "$v" != - ] && c=$((c + 1))
        if core "$name"; then
            [ "$v" = A ] && ca=$((ca + 1))
            [ "$v" != - ] && cc=$((cc + 1))
        fi
        printf '  %-36s %s\n' "$name" "$v"
    done
    echo "  by A: $a of $n (core $ca); by C: $c of $n (core $cc)"
}

for r in "$@"; do
    echo "== $r"
    case $r in
    revrun) run_all "$tmp/revrun" ;;
    revrun-config)
        # the policy, seen only in this mount namespace
        mkdir -p "$tmp/etc"
        echo '{"engine": {"noNewPrivileges": "config"}}' >"$tmp/etc/policy.json"
        made=
        [ -d /etc/revrun ] || { mkdir /etc/revrun && made=1; }
        export -f run_all verdict core
        export rt tmp SILENT
        unshare -m --propagation private bash -c \
            'mount --bind "$0/etc" /etc/revrun && run_all "$0/revrun"' "$tmp"
        [ -n "$made" ] && rmdir /etc/revrun 2>/dev/null
        ;;
    runc | crun) run_all "$(command -v "$r")" ;;
    *) echo "unknown runtime $r" >&2 ;;
    esac
done
