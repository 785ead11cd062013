#!/usr/bin/env bats
# Real agents out of the box: Claude Code, Codex and Gemini CLI, installed
# from npm, each run by `revrun review --agent NAME` with one --agent-dir
# and the egress flags, against a fake TLS model API (agents_upstream.py)
# that speaks the agent's own streaming format and drives a real tool-use
# conversation: write a file, edit a file, run `git status`, `git diff`,
# `git add` + `git commit` and
# a name lookup in the shell, finish.
#
# Judged from outside: review's exit status; the change set applied onto a
# copy of the checkout (exactly the two files, byte for byte); what the
# upstream received (the real key in the agent's header on every request,
# never the dummy; the shell's output, NXDOMAIN included); OUT/artifacts
# (the transcript); result.json and summary.txt (the agent's own sandbox
# refused, with the remedy). Agents missing: skipped, or failed under CI
# (agents_helpers.bash).

load helpers
load egress_helpers
load agents_helpers

setup_file() {
    export EG_CERTS="$BATS_FILE_TMPDIR/certs"
    eg_make_certs "$EG_CERTS"
}

setup() {
    ag_setup
}

teardown() {
    ag_teardown
}

# ---- Claude Code ----------------------------------------------------------

claude_review() {
    ag_review claude "$@" -- claude -p "$AG_PROMPT" --dangerously-skip-permissions
}

@test "agents: claude writes, edits and runs git through revrun; exact change set" {
    ag_need claude
    claude_review
    assert_success
    ag_expect_changeset
    ag_expect_key x-api-key ""
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_transcript .claude/projects
    grep -q '^POST /v1/messages 200$' "$AG/out/egress.log"
    ag_expect_activity claude
}

@test "agents: claude, rootless" {
    ag_need claude
    ag_review_rootless claude -- claude -p "$AG_PROMPT" --dangerously-skip-permissions
    assert_success
    ag_expect_changeset
    ag_expect_key x-api-key ""
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_activity claude
}

# Claude's own sandbox (settings sandbox.enabled) runs each command under
# bubblewrap. Refused, the command never runs and the report says why.
@test "agents: claude's own sandbox refused: counted in result.json, remedy in summary" {
    ag_need claude
    mkdir -p "$AG/home/.claude"
    echo '{"sandbox": {"enabled": true}}' >"$AG/home/.claude/settings.json"
    claude_review --home "$AG/home"
    [ "$(ag_result '["nestedSandbox"]["refused"]')" -ge 1 ]
    grep -q 'nested sandbox: .* refused' "$AG/out/summary.txt"
    grep -q -- '--nested-sandboxes' "$AG/out/summary.txt"
    ! grep -q 'SHELL-42' "$AG/up.rec" || false
}

# Allowed, it works inside revrun. It leaves its mount placeholders behind
# (empty files and directories such as .git/worktrees, .claude/.cc-writes):
# those under .git stay out of the change set, the empty .claude/ tree comes
# along. Under revrun, keep Claude's sandbox off (README "Real agents").
@test "agents: claude's own sandbox allowed (--nested-sandboxes): it runs; only its empty placeholders come along" {
    ag_need claude
    mkdir -p "$AG/home/.claude"
    echo '{"sandbox": {"enabled": true}}' >"$AG/home/.claude/settings.json"
    claude_review --home "$AG/home" --nested-sandboxes
    assert_success
    ag_expect_shell_ran nodns
    [ "$(ag_result '.get("nestedSandbox", {}).get("refused", 0)')" = 0 ]
    [ "$(ag_result '["verdict"]')" = accept ]
    [ "$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
print(" ".join(sorted(c["path"] + ":" + c["type"] for c in m["changes"])))' \
        "$AG/out/changeset/manifest.json")" = \
        ".claude/.cc-writes:dir .claude:dir NOTES.md:file hello.txt:file" ]
    grep -q 'under .git (not part of the change set)' "$AG/out/summary.txt"
}

# ---- Codex ------------------------------------------------------------------

# -m: a model whose tools are the classic exec_command and apply_patch,
# which the fake API scripts.
codex_review() {
    local flags=()
    while [ "$1" != -- ]; do
        flags+=("$1")
        shift
    done
    shift
    ag_review codex "${flags[@]}" -- codex exec --skip-git-repo-check -m gpt-5.5 "$@" "$AG_PROMPT"
}

@test "agents: codex over its WebSocket transport through the broker; exact change set" {
    ag_need codex
    codex_review -- --dangerously-bypass-approvals-and-sandbox
    assert_success
    ag_expect_changeset
    ag_expect_key authorization "Bearer "
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_transcript .codex/sessions
    ag_expect_activity codex
    # one WebSocket for the whole session, no fallback to plain POSTs
    grep -q '^GET /v1/responses 101$' "$AG/out/egress.log"
    ! grep -q '^POST /v1/responses' "$AG/out/egress.log" || false
    grep -q '^=== ws-message' "$AG/up.rec"
}

@test "agents: codex with its own sandbox (--nested-sandboxes): bubblewrap inside revrun works" {
    ag_need codex
    codex_review --nested-sandboxes -- --sandbox workspace-write
    assert_success
    ag_expect_changeset
    ag_expect_shell_ran nodns
    [ "$(ag_result '.get("nestedSandbox", {}).get("refused", 0)')" = 0 ]
    ag_expect_activity codex nested
}

@test "agents: codex's own sandbox refused: counted in result.json, remedy in summary" {
    ag_need codex
    codex_review -- --sandbox workspace-write
    [ "$(ag_result '["nestedSandbox"]["refused"]')" -ge 1 ]
    grep -q 'nested sandbox: .* refused' "$AG/out/summary.txt"
    grep -q -- '--nested-sandboxes' "$AG/out/summary.txt"
    grep -q 'danger-full-access' "$AG/out/summary.txt"
    # nothing the sandboxed tools would have written got through
    ! grep -q 'NOTES.md' "$AG/out/summary.txt" || false
}

# ---- Gemini CLI -------------------------------------------------------------

@test "agents: gemini writes, edits and runs git through revrun; exact change set" {
    ag_need gemini
    ag_review gemini -- gemini --yolo -p "$AG_PROMPT"
    assert_success
    ag_expect_changeset
    ag_expect_key x-goog-api-key ""
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_transcript .gemini/tmp
    grep -q '^POST /v1beta/models/[a-z0-9.-]*:streamGenerateContent 200$' "$AG/out/egress.log"
    ag_expect_activity gemini
}

# ---- in a worktree checkout -------------------------------------------------

@test "agents: claude in a git worktree checkout: git works inside, the main repository unchanged" {
    ag_need claude
    ag_worktree_lower
    claude_review
    assert_success
    ag_expect_changeset
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_worktree
}

@test "agents: claude in a git worktree checkout, rootless" {
    ag_need claude
    ag_worktree_lower
    ag_review_rootless claude -- claude -p "$AG_PROMPT" --dangerously-skip-permissions
    assert_success
    ag_expect_changeset
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_worktree
}

@test "agents: codex in a git worktree checkout: git works inside, the main repository unchanged" {
    ag_need codex
    ag_worktree_lower
    codex_review -- --dangerously-bypass-approvals-and-sandbox
    assert_success
    ag_expect_changeset
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_worktree
}

@test "agents: gemini in a git worktree checkout: git works inside, the main repository unchanged" {
    ag_need gemini
    ag_worktree_lower
    ag_review gemini -- gemini --yolo -p "$AG_PROMPT"
    assert_success
    ag_expect_changeset
    ag_expect_shell_ran
    ag_expect_commit
    ag_expect_worktree
}
