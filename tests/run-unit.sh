#!/bin/sh
# Run each unit test binary; print its TAP. Exit non-zero if any failed.
rc=0
for t in "$@"; do
    echo "# $(basename "$t")"
    "$t" || rc=1
done
exit $rc
