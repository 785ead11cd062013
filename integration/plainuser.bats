#!/usr/bin/env bats
# A plain user with no session (no XDG_RUNTIME_DIR: cron, su, a CI runner's
# user) and no cgroup delegation: spec, features, check and list need no
# state root; anything that keeps state falls back to a private
# /tmp/revrun-UID (0700, the user's own, never a symlink); a review runs
# with --best-effort limits and says what it skipped.

load helpers

PRIV=/tmp/revrun-$REVRUN_TEST_UID

setup() {
    rr_setup_tmp
    # the test owns the fallback directory while it runs: one left by
    # someone else is put aside and restored
    if [ -e "$PRIV" ] || [ -L "$PRIV" ]; then
        mv "$PRIV" "$RR_TMP/priv-before"
    fi
    mkdir -p "$RR_TMP/co"
    echo hello >"$RR_TMP/co/a.txt"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/co"
    mkdir -p "$RR_TMP/res"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/res"
}

teardown() {
    if [ -d "$PRIV" ] && [ ! -L "$PRIV" ]; then
        plain "$RR_BIN/revrun" sweep >/dev/null 2>&1 || true
        rr_destroy_all "$PRIV"
    fi
    rm -rf "$PRIV"
    if [ -e "$RR_TMP/priv-before" ] || [ -L "$RR_TMP/priv-before" ]; then
        mv "$RR_TMP/priv-before" "$PRIV"
    fi
    rr_teardown_tmp
}

# As the test identity, with no XDG_RUNTIME_DIR and no delegated cgroup.
plain() {
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        --inh-caps=-all --reset-env -- env HOME="$RR_TMP" PATH=/usr/local/bin:/usr/bin:/bin "$@"
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$1/result.json" "$2"
}

@test "plain user: spec, features, check and list run with no state root, and make none" {
    run plain "$RR_BIN/revrun" spec
    assert_success
    python3 -c 'import json,sys; json.loads(sys.argv[1])' "$output"
    run plain "$RR_BIN/revrun" features
    assert_success
    run plain "$RR_BIN/revrun" list
    assert_success
    run plain "$RR_BIN/revrun" list --format json
    [ "$output" = "[]" ]
    # check judges the host (it may fail here: no delegation); it needs no
    # state root to do so
    run plain "$RR_BIN/revrun" check
    assert_output_contains "revrun check: unprivileged"
    [[ "$output" != *"state root"* ]]
    [ ! -e "$PRIV" ]
}

@test "plain user: the state root falls back to /tmp/revrun-UID, made 0700 and the user's" {
    run plain "$RR_BIN/revrun" sweep
    assert_success
    [ -d "$PRIV" ] && [ ! -L "$PRIV" ] || false
    [ "$(stat -c '%u %a' "$PRIV")" = "$REVRUN_TEST_UID 700" ]
}

@test "plain user: a planted symlink, another owner's directory or a wider mode is refused" {
    mkdir "$RR_TMP/elsewhere"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/elsewhere"
    chmod 0700 "$RR_TMP/elsewhere"
    ln -s "$RR_TMP/elsewhere" "$PRIV"
    run plain "$RR_BIN/revrun" sweep
    [ "$status" -eq 1 ]
    assert_output_contains "$PRIV"
    [ -z "$(ls -A "$RR_TMP/elsewhere")" ]
    run plain "$RR_BIN/revrun" list
    [ "$status" -eq 1 ]
    rm "$PRIV"
    mkdir -m 0700 "$PRIV" # root's
    run plain "$RR_BIN/revrun" sweep
    [ "$status" -eq 1 ]
    assert_output_contains "must belong to uid $REVRUN_TEST_UID"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$PRIV"
    chmod 0755 "$PRIV"
    run plain "$RR_BIN/revrun" sweep
    [ "$status" -eq 1 ]
    assert_output_contains "mode 0700"
    chmod 0700 "$PRIV"
    run plain "$RR_BIN/revrun" sweep
    assert_success
}

@test "plain user: a rootless review with --best-effort runs without delegation and says what it skipped" {
    run plain "$RR_BIN/revrun" review --best-effort memory,pids,cpu --lower "$RR_TMP/co" \
        --out "$RR_TMP/res/out" -- sh -c 'echo more >> a.txt'
    assert_success
    [ "$(result "$RR_TMP/res/out" '["verdict"]')" = accept ]
    [ "$(result "$RR_TMP/res/out" '["bestEffort"]')" != "[]" ]
    skipped=$(result "$RR_TMP/res/out" '["limitsSkipped"]')
    python3 - "$RR_TMP/res/out/result.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d["limitsSkipped"]) <= set(d["bestEffort"]), d
assert {"memory", "pids", "cpu"} <= set(d["bestEffort"]), d
EOF
    [ -d "$PRIV" ]
    [ -z "$(ls -A "$PRIV")" ]
    if [ "$skipped" != "[]" ]; then
        # no delegation here: the log says so, and without the flag the
        # review refuses to start the agent
        assert_output_contains "limits not enforced (best effort)"
        run plain "$RR_BIN/revrun" review --lower "$RR_TMP/co" --out "$RR_TMP/res/out2" \
            -- sh -c 'echo started'
        [ "$status" -eq 3 ]
        assert_output_contains "--best-effort"
        [ ! -s "$RR_TMP/res/out2/agent.log" ]
    fi
}

@test "plain user: --best-effort takes only the names revrun.bestEffort takes" {
    run plain "$RR_BIN/revrun" spec --best-effort memory,disk
    [ "$status" -eq 2 ]
    assert_output_contains "'disk' is not one of"
    run plain "$RR_BIN/revrun" spec --best-effort memory,,cpu
    [ "$status" -eq 2 ]
    run plain "$RR_BIN/revrun" spec --best-effort memory,pids,cpu
    assert_success
    python3 -c 'import json,sys; assert {"memory","pids","cpu"} <= set(json.loads(sys.argv[1])["revrun"]["bestEffort"])' "$output"
}
