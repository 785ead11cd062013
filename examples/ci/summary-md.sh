#!/bin/sh
# OUT/summary.txt as Markdown for a forge's job summary: revrun escaped every
# byte the agent chose, but Markdown still acts on backquotes, so the text
# goes in a fence longer than any run of backquotes inside it.
#   summary-md.sh OUT STATUS
set -eu
out=$1
status=$2
longest=$(grep -o '`*' "$out/summary.txt" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
fence=$(printf '%*s' $((longest < 3 ? 3 : longest + 1)) '' | tr ' ' '`')
echo "### revrun review (exit $status)"
echo
echo "$fence text"
cat "$out/summary.txt"
echo "$fence"
if [ -f "$out/changeset.patch" ]; then
    echo
    echo "The patch is in the artifact: changeset.patch. Approve by running the approval job;"
    echo "it applies exactly the digest above."
fi
