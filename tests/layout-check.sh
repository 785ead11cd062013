#!/bin/sh
# Fails when an include runs upward in runtime/ (cli -> jobs -> container ->
# confine; check reads confine and container) or when a part outside
# runtime/ includes it; runtime/confine/profile/ is of confine's rank (it
# uses the mechanisms' headers, they use its profile.h), and its
# internal.h is included by no file outside that folder. Run by
# `make check` before any test.
set -u
cd "$(dirname "$0")/.."
allowed() {
    case "$1" in
    runtime/cli) echo "cli jobs container confine check" ;;
    runtime/jobs) echo "jobs container confine" ;;
    runtime/container) echo "container confine" ;;
    runtime/confine) echo "confine" ;;
    runtime/confine/profile) echo "confine" ;;
    runtime/check) echo "check container confine" ;;
    *) echo "" ;;
    esac
}
bad=0
for f in $(find common bundle overlay writeback egress runtime -name '*.[ch]' | sort); do
    dir=$(dirname "$f")
    ok=$(allowed "$dir")
    for inc in $(sed -n 's/^#include "runtime\/\([a-z]*\)\/.*/\1/p' "$f"); do
        case " $ok " in
        *" $inc "*) ;;
        *) echo "layout: $f includes runtime/$inc/ (upward or sideways)"; bad=1 ;;
        esac
    done
    case "$dir" in
    runtime/confine/profile) ;;
    *) if grep -q '^#include "runtime/confine/profile/internal.h"' "$f"; then
           echo "layout: $f includes runtime/confine/profile/internal.h (call profile.h)"; bad=1
       fi ;;
    esac
done
exit $bad
