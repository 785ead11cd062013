#!/bin/sh
# CI step, behind the forge's manual approval: apply the approved change set
# as a commit on the commit the review ran on, on a new branch, and push it.
#
#   OUT      the review's results (the artifact, downloaded)
#   DIGEST   the digest the review job printed and the approver read
#   REPO     a clone of the repository holding the reviewed commit
#   BRANCH   the branch to create (default: revrun/<the review's id>)
#   REMOTE   where to push (default: origin)
#   REVRUN   the binary (default: revrun on PATH)
#
# Nothing is written when the digest is not the set's, the base commit is
# missing or the branch exists; the push is the last step.
set -eu
: "${OUT:?}" "${DIGEST:?}" "${REPO:?}"
REMOTE=${REMOTE:-origin}
REVRUN=${REVRUN:-revrun}
case "$DIGEST" in
*[!0-9a-f]* | "") echo "approve.sh: DIGEST is not a digest" >&2; exit 2 ;;
esac
set -- "$REVRUN" apply "$OUT" --approve "$DIGEST" --commit --to "$REPO"
if [ -n "${BRANCH:-}" ]; then
    set -- "$@" --branch "$BRANCH"
fi
made=$("$@")
echo "$made"
branch=${made%% *}
git -C "$REPO" push "$REMOTE" "refs/heads/$branch:refs/heads/$branch"
