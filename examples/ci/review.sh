#!/bin/sh
# CI step: run the agent over the checkout with `revrun review`, then hand
# the verdict to the forge: the job summary ($GITHUB_STEP_SUMMARY, when the
# forge has one), the step's outputs ($GITHUB_OUTPUT) or a dotenv file
# (REVRUN_DOTENV, GitLab's reports:dotenv), and the job log.
#
#   CHECKOUT   the checkout to review (default: .)
#   OUT        where the results go (default: revrun-out); upload it whole
#   AGENT      a preset (claude, codex, gemini) or a preset file; optional
#   AGENT_DIR  the agent's install (npm --prefix DIR), read-only inside; optional
#   TIMEOUT    seconds, or 10m, 1h (default: 30m)
#   REVRUN     the binary (default: revrun on PATH)
#   the agent's command: this script's arguments
#
# Exits with review's status: 0 accepted (or no change), non-zero otherwise,
# so a refused or failed review stops the pipeline before the approval.
set -u
CHECKOUT=${CHECKOUT:-.}
OUT=${OUT:-revrun-out}
TIMEOUT=${TIMEOUT:-30m}
REVRUN=${REVRUN:-revrun}
here=$(dirname "$0")

status=0
"$REVRUN" review --lower "$CHECKOUT" --out "$OUT" --timeout "$TIMEOUT" \
    ${AGENT:+--agent "$AGENT"} ${AGENT_DIR:+--agent-dir "$AGENT_DIR"} -- "$@" || status=$?

# revrun writes only digits and hex here; anything else is not passed on
value() {
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = d.get(sys.argv[2], "")
print(v if isinstance(v, (int, str)) and str(v).isalnum() else "")' "$OUT/result.json" "$1" 2>/dev/null
}
verdict=$(value verdict)
digest=$(value digest)
changes=$(value changes)

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'verdict=%s\ndigest=%s\nchanges=%s\nstatus=%s\n' "$verdict" "$digest" "$changes" \
        "$status" >>"$GITHUB_OUTPUT"
fi
if [ -n "${REVRUN_DOTENV:-}" ]; then
    printf 'REVRUN_VERDICT=%s\nREVRUN_DIGEST=%s\nREVRUN_STATUS=%s\n' "$verdict" "$digest" \
        "$status" >"$REVRUN_DOTENV"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$OUT/summary.txt" ]; then
    "$here/summary-md.sh" "$OUT" "$status" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
