#!/bin/sh
# Fails when revrun defines a global function that a library it loads also
# exports (libgit2's git_config_next once was): a test binary that links the
# library, or a future static link, would call ours from inside theirs.
# Usage: tests/symbol-check.sh BINARY
set -u
bin="$1"
libdir=$(pkg-config --variable=libdir libgit2 2>/dev/null || echo /usr/lib)
ours=$(mktemp)
theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
nm "$bin" | awk '$2 == "T" {print $3}' | sort -u >"$ours"
for lib in libgit2 libssl libcrypto libmount libseccomp libyajl libz; do
    for so in "$libdir/$lib.so" /lib/*/"$lib".so.* /usr/lib/*/"$lib".so.*; do
        [ -e "$so" ] && nm -D --defined-only "$so" 2>/dev/null | awk '{print $3}'
    done
done | sort -u >"$theirs"
clash=$(comm -12 "$ours" "$theirs")
if [ -n "$clash" ]; then
    echo "symbol-check: revrun defines functions a library exports:" $clash
    exit 1
fi
