#!/bin/sh
# Fails when an include runs upward or sideways between the parts. A part is
# a top-level folder (common, bundle, overlay, egress), a stage of
# writeback/ or a folder of runtime/ (its sub-folders count as the folder).
# Each part lists the parts it may include, all below it: a new arrow is a
# diff to this file, which a reviewer sees. Every include is repo-relative
# ("writeback/git/gitpack.h"), so the folder it names is the part it reaches;
# a file of writeback/ sits in a stage. runtime/confine/profile/ is of
# confine's rank (it uses the mechanisms' headers, they use its profile.h),
# and its internal.h is included by no file outside that folder. Run by
# `make check` before any test.
set -u
cd "$(dirname "$0")/.."

# The stages of writeback/, lowest first (writeback/README.md): base and
# names use neither each other nor anything of writeback/.
WB_ALL="writeback/base writeback/names writeback/git writeback/changeset writeback/scan
writeback/rules writeback/export writeback/patch writeback/apply"

allowed() {
    case "$1" in
    common) echo "" ;;
    bundle) echo "common" ;;
    overlay) echo "common" ;;
    egress) echo "common bundle" ;;
    writeback/base) echo "common" ;;
    writeback/names) echo "common bundle" ;;
    writeback/git) echo "common bundle writeback/base writeback/names" ;;
    writeback/changeset) echo "common bundle writeback/base writeback/names writeback/git" ;;
    writeback/scan)
        echo "common bundle writeback/base writeback/names writeback/git writeback/changeset" ;;
    writeback/rules)
        echo "common bundle writeback/base writeback/names writeback/changeset writeback/scan" ;;
    writeback/export) echo "common bundle writeback/base writeback/changeset writeback/scan" ;;
    writeback/patch) echo "common bundle writeback/base writeback/changeset writeback/scan" ;;
    writeback/apply)
        echo "common bundle writeback/base writeback/git writeback/changeset writeback/export" ;;
    runtime/confine) echo "common bundle overlay egress" ;;
    runtime/container)
        echo "common bundle overlay egress writeback/base runtime/confine" ;;
    runtime/check) # writeback/git: only to load libgit2 as a review would (check_libs.c)
        echo "common bundle overlay egress writeback/git runtime/confine runtime/container" ;;
    runtime/jobs) echo "common bundle $WB_ALL runtime/confine runtime/container" ;;
    runtime/cli)
        echo "common bundle egress $WB_ALL runtime/confine runtime/container" \
            "runtime/jobs runtime/check" ;;
    *) echo "-" ;; # not a part this file knows: add it above
    esac
}

# The part a file or include path belongs to: runtime/ and writeback/ by
# their second level, the rest by the first.
part_of() {
    case "$1" in
    runtime/*/* | writeback/*/*) echo "$1" | cut -d/ -f1-2 ;;
    */*) echo "$1" | cut -d/ -f1 ;;
    *) echo "" ;;
    esac
}

bad=0
for f in $(find common bundle overlay writeback egress runtime -name '*.[ch]' | sort); do
    part=$(part_of "$f")
    ok=$(allowed "$part")
    if [ "$ok" = "-" ]; then
        echo "layout: $f is in no known part (add its folder to tests/layout-check.sh)"
        bad=1
        continue
    fi
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        to=$(part_of "$inc")
        if [ -z "$to" ]; then
            echo "layout: $f includes \"$inc\" (not repo-relative)"
            bad=1
            continue
        fi
        [ "$to" = "$part" ] && continue
        case " $(echo $ok) " in
        *" $to "*) ;;
        *) echo "layout: $f includes $inc ($part may not use $to: upward or sideways)"; bad=1 ;;
        esac
    done
    case "$(dirname "$f")" in
    runtime/confine/profile) ;;
    *) if grep -q '^#include "runtime/confine/profile/internal.h"' "$f"; then
           echo "layout: $f includes runtime/confine/profile/internal.h (call profile.h)"; bad=1
       fi ;;
    esac
done
exit $bad
