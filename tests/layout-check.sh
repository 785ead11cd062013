#!/bin/sh
# Fails when an include runs upward in runtime/ (cli -> jobs -> container ->
# confine; check reads confine and container) or when a part outside
# runtime/ includes it. Run by `make check` before any test.
set -u
cd "$(dirname "$0")/.."
allowed() {
    case "$1" in
    runtime/cli) echo "cli jobs container confine check" ;;
    runtime/jobs) echo "jobs container confine" ;;
    runtime/container) echo "container confine" ;;
    runtime/confine) echo "confine" ;;
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
done
exit $bad
