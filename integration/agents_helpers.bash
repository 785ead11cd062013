# Real agents (Claude Code, Codex, Gemini CLI from npm) under `revrun
# review --agent NAME`, against agents_upstream.py: a fake TLS model API on
# host loopback that scripts the same tool-use conversation for each (write
# NOTES.md, edit hello.txt, run `git status; git diff`, the tests, a commit and
# a name lookup, finish) and records every request it gets.
#
# Where the agents are: REVRUN_TEST_AGENTS, else integration/.agents, else
# /opt/revrun-test-agents (what .ci/run installs: `npm install --prefix DIR`
# of the versions in AG_PACKAGES). Under CI (CI=true) a missing agent is a
# failure; elsewhere the test is skipped, saying how to install it.
#
# Load after helpers and egress_helpers.

AG_PACKAGES="@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 @google/gemini-cli@0.61.0"
AG_PROMPT="revrun-agent-test workdir=/workspace"
AG_NOTES="Reviewed by the revrun agent suite."
AG_DUMMY_MARK="revrun-placeholder-key" # what the presets' dummy keys hold

ag_dir() {
    if [ -n "${REVRUN_TEST_AGENTS:-}" ]; then
        echo "$REVRUN_TEST_AGENTS"
    elif [ -d "$REPO_ROOT/integration/.agents/node_modules" ]; then
        echo "$REPO_ROOT/integration/.agents"
    else
        echo /opt/revrun-test-agents
    fi
}

# ag_need NAME: the agent's binary is there, or skip (fail under CI).
ag_need() {
    AG_DIR=$(ag_dir)
    [ -x "$AG_DIR/node_modules/.bin/$1" ] && return 0
    local msg="agent '$1' not installed in $AG_DIR (npm install --prefix $AG_DIR $AG_PACKAGES)"
    if [ "${CI:-}" = true ]; then
        echo "$msg" >&2
        return 1
    fi
    skip "$msg"
}

# ag_setup: scratch dir (readable by the test user), certificates, keys, the
# checkout (a git repository with hello.txt), the upstream.
ag_setup() {
    eg_setup # RR_TMP, EG (pids, key), an egress_upstream we do not use
    # --agent NAME finds agents/ one up from the binary, as in a build tree
    cp -r "$REPO_ROOT/agents" "$RR_TMP/agents"
    chmod -R a+rX "$RR_TMP/agents"
    AG="$RR_TMP/ag"
    mkdir -p "$AG"
    cp "$EG_CERTS/ca.pem" "$AG/ca.pem"
    chmod 0644 "$AG/ca.pem"
    AG_KEY="sk-revrun-agents-REAL-$RANDOM$RANDOM-0123456789"
    printf '%s\n' "$AG_KEY" >"$AG/key"
    chmod 0600 "$AG/key"
    mkdir -p "$AG/lower"
    git -C "$AG/lower" init -q
    printf 'hello world\n' >"$AG/lower/hello.txt"
    # the tests the scripted session runs after its edit
    printf '%s\n' 'import unittest' '' '' 'class Hello(unittest.TestCase):' \
        '    def test_greeting(self):' '        with open("hello.txt") as f:' \
        '            self.assertTrue(f.read().startswith("hello "))' >"$AG/lower/test_hello.py"
    git -C "$AG/lower" add hello.txt test_hello.py
    git -C "$AG/lower" -c user.name=revrun -c user.email=revrun@example.invalid \
        commit -qm base
    chmod -R a+rX "$AG/lower"
    python3 "$REPO_ROOT/integration/agents_upstream.py" --cert "$EG_CERTS/good.pem" \
        --key "$EG_CERTS/good.key" --record "$AG/up.rec" --port-file "$AG/up.port" \
        >/dev/null 2>"$AG/up.err" 3>&- &
    eg_track $!
    eg_wait test -s "$AG/up.port"
    AG_PORT=$(cat "$AG/up.port")
}

ag_teardown() {
    local id
    for id in $(ls "$RR_ROOT" 2>/dev/null); do
        "$RR_BIN/revrun" --root "$RR_ROOT" destroy --force "$id" 2>/dev/null || true
    done
    if [ -n "${AG:-}" ]; then
        echo "--- agent log" >&2
        tail -n 40 "$AG/out/agent.log" >&2 2>/dev/null || true
        echo "--- summary" >&2
        cat "$AG/out/summary.txt" >&2 2>/dev/null || true
        echo "--- egress log" >&2
        cat "$AG/out/egress.log" >&2 2>/dev/null || true
        echo "--- what the shell step sent back" >&2
        python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.rfind(b"git status --short")
print(d[i:i+900].decode("utf-8","replace") if i >= 0 else "(no shell step)")' "$AG/up.rec" >&2 || true
    fi
    eg_teardown
}

# ag_review NAME [revrun flags...] -- CMD...: the review as a user runs it,
# as root. Output and status as `run` leaves them; OUT is $AG/out.
ag_review() {
    local name=$1
    shift
    run "$RR_BIN/revrun" --root "$RR_ROOT" review --agent "$name" --agent-dir "$AG_DIR" \
        --upstream "https://localhost:$AG_PORT" --credential-file "$AG/key" \
        --ca-file "$AG/ca.pem" --lower "$AG/lower" --out "$AG/out" --timeout 300 "$@"
}

# The same as the unprivileged test user (rootless revrun).
ag_review_rootless() {
    local name=$1
    shift
    mkdir -p "$RR_TMP/ustate"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$AG" "$RR_TMP/ustate"
    run as_user "$RR_BIN/revrun" --root "$RR_TMP/ustate" review --agent "$name" \
        --agent-dir "$AG_DIR" --upstream "https://localhost:$AG_PORT" \
        --credential-file "$AG/key" --ca-file "$AG/ca.pem" --lower "$AG/lower" \
        --out "$AG/out" --timeout 300 "$@"
}

ag_result() {
    python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(eval("v"+sys.argv[2]))' \
        "$AG/out/result.json" "$1"
}

# The change set holds exactly NOTES.md (new) and hello.txt (edited), byte
# for byte: applied onto a copy of the checkout, nothing else differs.
ag_expect_changeset() {
    local digest
    digest=$(ag_result '["digest"]')
    [ "$(ag_result '["verdict"]')" = accept ]
    [ "$(ag_result '["changes"]')" = 2 ]
    cp -a "$AG/lower" "$AG/target"
    "$RR_BIN/revrun" apply "$AG/out/changeset" --to "$AG/target" --approve "sha256:$digest"
    [ "$(cat "$AG/target/NOTES.md")" = "$AG_NOTES" ]
    [ "$(cat "$AG/target/hello.txt")" = "hello revrun" ]
    printf 'hello revrun\n' | cmp - "$AG/target/hello.txt"
    printf '%s\n' "$AG_NOTES" | cmp - "$AG/target/NOTES.md"
    rm "$AG/target/NOTES.md"
    printf 'hello world\n' >"$AG/target/hello.txt"
    diff -r --no-dereference "$AG/lower" "$AG/target"
}

# The upstream saw the real key in HEADER (case-insensitive name, PREFIX
# before it) on every request, and never the agent's dummy.
ag_expect_key() {
    local header=$1 prefix=$2 n_req n_key
    n_req=$(grep -c '^=== request' "$AG/up.rec")
    n_key=$(tr -d '\r' <"$AG/up.rec" | grep -ic "^$header: $prefix$AG_KEY\$")
    [ "$n_req" -gt 0 ]
    [ "$n_key" = "$n_req" ]
    ! grep -q "$AG_DUMMY_MARK" "$AG/up.rec" || false
    ! grep -qi '^x-api-key: \|^authorization: \|^x-goog-api-key: ' \
        <(tr -d '\r' <"$AG/up.rec" | grep -iv "^$header: $prefix$AG_KEY\$")
}

# The shell step ran inside, over the overlay, and its output came back to
# the model: git saw the two changes (the diff's index line names both
# blobs), the name lookup got NXDOMAIN (EAI_NONAME, not EAI_AGAIN). Each
# string is one only the command's output holds, not its text or a tool's
# input. With "nodns", the lookup is not judged (an agent's own sandbox
# runs the command in a network namespace of its own).
ag_expect_shell_ran() {
    grep -q 'SHELL-42' "$AG/up.rec"
    grep -q ' M hello.txt' "$AG/up.rec"
    grep -q '?? NOTES.md' "$AG/up.rec"
    grep -q 'index 3b18e51\.\.2f005b4' "$AG/up.rec"
    [ "${1:-}" = nodns ] || grep -q 'dns -2' "$AG/up.rec"
    ! grep -q 'SCRIPT-ABORTED' "$AG/up.rec" || false
}

# The agent's commit (the shell step's git add + commit) went through:
# git inside printed its subject back to the model, and the operator's
# summary lists it beside the count of files changed under .git, none of
# which is in the change set (ag_expect_changeset holds it to two files).
ag_expect_commit() {
    grep -q 'COMMITTED-revrun-agent-commit: notes and greeting' "$AG/up.rec"
    grep -q 'revrun-agent-commit: notes and greeting' "$AG/out/summary.txt"
    grep -qE 'the agent changed (at least )?[0-9]+ files? under \.git \(not part of the change set\)' \
        "$AG/out/summary.txt"
}

# The agent's transcript is in OUT/artifacts, and not in the change set.
ag_expect_transcript() {
    local dir=$1
    [ -d "$AG/out/artifacts/$dir" ]
    grep -rlq "revrun-agent-test" "$AG/out/artifacts/$dir"
    ! grep -q 'artifacts\|\.claude\|\.codex\|\.gemini' "$AG/out/changeset/manifest.json" || false
}

# ag_worktree_lower: the checkout becomes a `git worktree add` checkout (as
# review daemons make one per pull request) of the repository, now at
# $AG/main, beside which a secret lies; AG_MAIN_SUM is its .git's checksum.
ag_worktree_lower() {
    mv "$AG/lower" "$AG/main"
    printf 'SECRET=revrun-agents-main-%s\n' "$RANDOM" >"$AG/main/secret.env"
    git -C "$AG/main" worktree add -q "$AG/lower" -b pr
    chmod -R a+rX "$AG/main" "$AG/lower"
    AG_MAIN_SUM=$(ag_main_sum)
}

ag_main_sum() {
    (cd "$AG/main/.git" && find . -printf '%p %y %s %m\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum
}

# After a review in a worktree checkout: git worked inside (what the shell
# step's git printed reached the model, ag_expect_shell_ran/commit), the
# main repository's git directory was shown and is unchanged on the host,
# and its secret reached neither the model nor the results.
ag_expect_worktree() {
    grep -q 'its main git directory is shown inside at ' "$AG/out/summary.txt"
    [ "$(ag_main_sum)" = "$AG_MAIN_SUM" ]
    ! grep -q 'revrun-agents-main-' "$AG/up.rec" || false
    ! grep -rq 'revrun-agents-main-' "$AG/out" || false
}

# The activity record (OUT/activity.jsonl), made outside the sandbox, has
# what the scripted session ran: the agent itself (AGENT, argv[0]), its
# shell step's `git status --short`, `git diff`, `git commit` and the
# name lookup (python3 -c), and a request to the model API with the key
# injected. With "nested", the shell step ran inside the agent's own
# sandbox and is recorded there.
ag_expect_activity() {
    python3 - "$AG/out/activity.jsonl" "$1" "${2:-}" <<'PY'
import json, os, sys
path, agent, nested = sys.argv[1:]
r = [json.loads(l) for l in open(path, encoding="utf-8")]
execs = [x for x in r if x["type"] == "exec" and x.get("found", True)]
def ran(*argv):
    return [x for x in execs if os.path.basename(x["argv"][0]) == argv[0] and x["argv"][1:len(argv)] == list(argv[1:])]
want = [(agent,), ("git", "status", "--short"), ("git", "diff"), ("python3", "-B", "-m", "unittest"),
        ("git", "-c"), ("python3", "-c")]
missing = [w for w in want if not ran(*w)]
assert not missing, "not in the record: %r" % missing
# the tests passed, where the kernel tells exits (Linux 6.15+)
exits = {x["seq"]: x for x in r if x["type"] == "exit"}
if exits:
    tests = ran("python3", "-B", "-m", "unittest")
    assert all(exits.get(x["seq"], {}).get("status") == 0 for x in tests), [exits.get(x["seq"]) for x in tests]
if nested:
    assert any(x.get("nested", 0) > 0 for x in ran("git", "status", "--short")), "not nested"
reqs = [x for x in r if x["type"] == "request"]
assert any(x["credential"] and x["status"] in (200, 101) for x in reqs), reqs[:3]
assert r[-1]["type"] == "end"
PY
    grep -qE '^ +[0-9]+  .*/git$' "$AG/out/summary.txt"
}
