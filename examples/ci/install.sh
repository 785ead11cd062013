#!/bin/sh
# CI step: install revrun. Either a binary built elsewhere (REVRUN_BIN, e.g.
# from an artifact of your own build job) or a build of the source at
# REVRUN_REPO (a git URL) and REVRUN_REF. Installs into PREFIX (default
# /usr/local, with sudo when not root); REVRUN_DEPS=skip leaves the Debian
# packages alone (they are scripts/deps.sh's list).
set -eu
PREFIX=${PREFIX:-/usr/local}
SUDO=
if [ "$(id -u)" != 0 ] && [ ! -w "$PREFIX" ] && [ ! -w "$(dirname "$PREFIX")" ]; then
    SUDO=sudo
fi
if [ -n "${REVRUN_BIN:-}" ]; then
    $SUDO install -d "$PREFIX/bin"
    $SUDO install -m 0755 "$REVRUN_BIN" "$PREFIX/bin/revrun"
else
    : "${REVRUN_REPO:?set REVRUN_REPO (revrun's git URL) or REVRUN_BIN (a built binary)}"
    src=$(mktemp -d)
    git clone --quiet --depth 1 ${REVRUN_REF:+--branch "$REVRUN_REF"} "$REVRUN_REPO" "$src"
    if [ "${REVRUN_DEPS:-install}" != skip ]; then
        "$src/scripts/deps.sh"
    fi
    make -C "$src" -j"$(nproc)"
    $SUDO make -C "$src" install PREFIX="$PREFIX"
    rm -rf "$src"
fi
"$PREFIX/bin/revrun" --version
