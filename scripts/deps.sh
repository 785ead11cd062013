#!/bin/sh
# Installs what building revrun, its example and `make check` need on
# Debian 12 or Ubuntu 24.04. Run it as root or as a user with sudo: it asks
# for sudo only when it is not root already (a root shell in a container
# often has no sudo at all). The suites that need more (container engines,
# containerd's CRI, the real agents from npm, the package tools) skip
# without them; .ci/run installs those too and runs every suite.
set -eu
if [ "$(id -u)" != 0 ]; then
    exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
# building: the compiler and the -dev packages of what revrun links or loads
apt-get install -y --no-install-recommends build-essential pkg-config libmount-dev \
    libseccomp-dev libyajl-dev libssl-dev libgit2-dev zlib1g-dev fuse-overlayfs fuse3 uidmap
# make check: bats and the tools the suites drive from outside (git for the
# checkouts, python3 for the fake model API and the egress upstreams,
# openssl for their test CA, curl, socat, strace, attr, iproute2, bc,
# procps) and sudo for the unprivileged half
apt-get install -y --no-install-recommends bats util-linux iproute2 attr git ca-certificates \
    openssl python3 python3-yaml curl socat sudo strace bc procps
