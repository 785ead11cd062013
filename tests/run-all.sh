#!/bin/bash
# make check: every unit test binary, then every bats suite; both stages run
# even when the first fails. The last line is "N passed, N failed".
set -u
# The suites need root (they run their rootless half from there). A user's
# `make check` builds as the user and asks sudo for the run alone; CI keeps
# its meaning through sudo (under CI a missing agent or engine fails).
if [ "$(id -u)" != 0 ]; then
    exec sudo CI="${CI:-}" "$0" "$@"
fi
build="$1"
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

{
    tests/run-unit.sh "$@"
    REVRUN="$build/revrun" REVRUN_PROBES="$build/probes" integration/run.sh
} 2>&1 | tee "$log"

passed=$(grep -cE '^ok [0-9]+' "$log" | head -1)
skipped=$(grep -cE '^ok [0-9]+.*# skip' "$log" | head -1)
failed=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
passed=$((passed - skipped))
if [ "$skipped" -gt 0 ]; then
    echo "($skipped skipped:)"
    grep -E '^ok [0-9]+.*# skip' "$log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
