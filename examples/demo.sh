#!/bin/sh
# A real review, end to end, on the example checkout:
#   1. an "agent" edits the checkout inside a revrun sandbox (and tries to
#      read host secrets, which it cannot);
#   2. revrun shows what it changed, vetted, with the change set's digest;
#   3. the bundle is destroyed and nothing is left behind.
# Run from the repository after `make`; it runs as root, through sudo when
# it is not root already.
set -eu
if [ "$(id -u)" != 0 ]; then
    exec sudo "$0" "$@"
fi
cd "$(dirname "$0")/.."
# REVRUN: the binary to run (an installed one: REVRUN=/usr/bin/revrun)
REVRUN=${REVRUN:-./revrun}
ID=demo-$$

echo "== the agent runs confined over examples/checkout"
$REVRUN run --lower examples/checkout --keep --id "$ID" -- sh -c '
    echo "agent: I am $(id -un) (uid $(id -u)) in $(pwd)"
    sed -i "s/return \"Hello, \" + name/return f\"Hello, {name}!\"/" greet.py
    printf "from greet import greet\n\n\ndef test_greet():\n    assert greet(\"x\") == \"Hello, x!\"\n" > test_greet.py
    rm NOTES.txt
    cat /etc/shadow >/dev/null 2>&1 && echo "agent: read /etc/shadow" || echo "agent: /etc/shadow is out of reach"
    echo "agent: env holds $(env | wc -l) variables; GITHUB_TOKEN=${GITHUB_TOKEN:-<absent>}"
'
echo
echo "== what it changed (vetted), bound to a digest"
$REVRUN diff "$ID" || true
echo
echo "== the same as a patch for git apply"
$REVRUN diff --patch "$ID" || true
echo
echo "== the bundle is destroyed"
$REVRUN destroy "$ID"
$REVRUN list
echo "== the checkout itself is untouched:"
git status --short examples/checkout 2>/dev/null || ls examples/checkout
