#!/bin/bash
# Runs every bats suite (or the suites named as arguments) in a private mount
# namespace, so that a test that fails half way cannot leave a mount on the
# host. Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
    suites=("$@")
else
    suites=("$here"/*.bats)
fi
if [ ! -e "${suites[0]}" ]; then
    echo "# no integration suites"
    exit 0
fi
if [ "${REVRUN_IN_PRIVATE_NS:-}" != 1 ]; then
    export REVRUN_IN_PRIVATE_NS=1
    exec unshare --mount --propagation private -- "$0" "${suites[@]}"
fi
# Ubuntu 24.04 restricts unprivileged user namespaces through AppArmor; the
# rootless half of the suites needs them. Lifted for the run, put back after.
aa=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [ -w "$aa" ] && [ "$(cat "$aa")" = 1 ]; then
    echo "# lifting kernel.apparmor_restrict_unprivileged_userns for the rootless tests"
    echo 0 >"$aa"
    trap 'echo 1 >"$aa"' EXIT
fi
bats --tap "${suites[@]}"
