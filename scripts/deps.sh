#!/bin/sh
# Installs what building revrun, its example and its tests need on Debian 12
# or Ubuntu 24.04. Run it as root or as a user with sudo: it asks for sudo
# only when it is not root already (a root shell in a container often has no
# sudo at all). .ci/run installs these and the suites' extras (engines, the
# real agents).
set -eu
if [ "$(id -u)" != 0 ]; then
    exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y build-essential pkg-config libmount-dev libseccomp-dev libyajl-dev \
    libssl-dev libgit2-dev zlib1g-dev bats fuse-overlayfs uidmap
