#!/bin/bash
# Runs every bats suite in a private mount namespace, so that a test that
# fails half way cannot leave a mount on the host. Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
suites=("$here"/*.bats)
if [ ! -e "${suites[0]}" ]; then
    echo "# no integration suites"
    exit 0
fi
if [ "${REVRUN_IN_PRIVATE_NS:-}" != 1 ]; then
    export REVRUN_IN_PRIVATE_NS=1
    exec unshare --mount --propagation private -- "$0" "$@"
fi
exec bats --tap "${suites[@]}"
