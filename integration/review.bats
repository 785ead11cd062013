#!/usr/bin/env bats
# revrun review, the CI job: exit codes, outputs, the agent's output kept out
# of the job's control, the approval step, and nothing left behind.

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout"
    echo "hello" >"$RR_TMP/checkout/a.txt"
    echo "keep" >"$RR_TMP/checkout/b.txt"
    chmod -R a+rX "$RR_TMP/checkout"
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    # what a failed test left: its review, then any bundle of this state root
    if [ -n "${REVIEW_PID:-}" ]; then
        kill -9 "$REVIEW_PID" 2>/dev/null || true
    fi
    rr_destroy_all
    "$RR_BIN/revrun" --root "$RR_ROOT" sweep >/dev/null 2>&1 || true
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$1/result.json" "$2"
}

assert_nothing_left() {
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "review: accepted changes are exported, approved and applied byte for byte" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo changed >> a.txt; printf "new\n" > c.txt; rm b.txt'
    [ "$status" -eq 0 ]
    [ "$(result "$RR_TMP/out" '["verdict"]')" = accept ]
    [ "$(result "$RR_TMP/out" '["changes"]')" = 3 ]
    [ -f "$RR_TMP/out/changeset/manifest.json" ]
    grep -q "^digest: " "$RR_TMP/out/summary.txt"
    assert_nothing_left
    # the operator approves later, on another copy of the checkout
    cp -a "$RR_TMP/checkout" "$RR_TMP/target"
    digest=$(result "$RR_TMP/out" '["digest"]')
    rr apply "$RR_TMP/out/changeset" --to "$RR_TMP/target" --approve "$digest"
    [ "$(cat "$RR_TMP/target/a.txt")" = "$(printf 'hello\nchanged')" ]
    [ "$(cat "$RR_TMP/target/c.txt")" = new ]
    [ ! -e "$RR_TMP/target/b.txt" ]
    # the checkout itself never changed
    [ "$(cat "$RR_TMP/checkout/a.txt")" = hello ]
}

@test "review: no change exits 0 and exports nothing" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- true
    [ "$status" -eq 0 ]
    [ "$(result "$RR_TMP/out" '["changes"]')" = 0 ]
    [ ! -e "$RR_TMP/out/changeset" ]
}

@test "review: an agent that fails exits 1 with its status on record" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c 'exit 9'
    [ "$status" -eq 1 ]
    [ "$(result "$RR_TMP/out" '["agent"]["exitStatus"]')" = 9 ]
    assert_nothing_left
}

@test "review: summary.txt holds no raw control byte from content, and says why a file is shown as binary" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c \
        'printf "echo safe\r# rm -rf ~\n\033]0;pwned\007\033[2J\000 \302\233 \342\200\256\n" > a.txt; printf "x\rz\n" > c.txt'
    [ "$status" -eq 0 ]
    [ "$(result "$RR_TMP/out" '["verdict"]')" = accept ]
    grep -q "a.txt" "$RR_TMP/out/summary.txt"
    # and it says why the patch shows them as binary
    grep -q "the new content holds a carriage return: shown as binary in the patch" "$RR_TMP/out/summary.txt"
    [ "$(grep -c "shown as binary in the patch" "$RR_TMP/out/summary.txt")" -eq 2 ]
    # only printable ASCII, TAB and LF: no CR, ESC, BEL, NUL, C1 or bidi from the files
    ! LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$RR_TMP/out/summary.txt" || false
    assert_nothing_left
}

@test "review: a refused change set exits 5, names the reason and exports nothing" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c 'mkfifo pipe'
    [ "$status" -eq 5 ]
    [ "$(result "$RR_TMP/out" '["verdict"]')" = refuse ]
    grep -q "pipe" "$RR_TMP/out/summary.txt"
    [ ! -e "$RR_TMP/out/changeset" ]
    assert_nothing_left
}

@test "review: a sandbox that cannot be set up exits 3, says why, and the agent never ran" {
    mkdir -p "$RR_TMP/host"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" \
        --bind "$RR_TMP/host:/proc/x" -- sh -c 'echo the agent ran'
    [ "$status" -eq 3 ]
    assert_output_contains "/proc"
    grep -q setupError "$RR_TMP/out/result.json"
    [ ! -s "$RR_TMP/out/agent.log" ]
    assert_nothing_left
}

@test "review: a checkout that does not exist is a bad command line (exit 2), not a setup failure" {
    run rr review --lower "$RR_TMP/no-such-checkout" --out "$RR_TMP/out" -- true
    [ "$status" -eq 2 ]
    assert_output_contains "no-such-checkout"
    [ ! -e "$RR_TMP/out" ]
}

@test "review: the timeout kills the whole container and exits 4" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" --timeout 1 -- \
        sh -c '(setsid sh -c "sleep 3; touch /tmp/never" &); sleep 30'
    [ "$status" -eq 4 ]
    [ "$(result "$RR_TMP/out" '["limitsHit"]')" = "['timeout']" ]
    assert_nothing_left
}

# review in the background, its agent started: REVIEW_PID
review_bg() {
    # revrun itself, not a subshell around it, is the one signalled
    "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" \
        -- sh -c "$1" >"$RR_TMP/review.out" 2>&1 &
    REVIEW_PID=$!
    for _ in $(seq 100); do
        grep -q started "$RR_TMP/out/agent.log" 2>/dev/null && return 0
        sleep 0.1
    done
    false
}

@test "review: a cancelled job (SIGTERM) stops the agent, destroys the bundle and writes the result" {
    review_bg 'echo started; sleep 60'
    kill -TERM "$REVIEW_PID"
    status=0
    timeout 30 tail --pid="$REVIEW_PID" -f /dev/null
    wait "$REVIEW_PID" || status=$?
    [ "$status" -eq 1 ]
    [ "$(result "$RR_TMP/out" '["interruptedBy"]')" = TERM ]
    [ "$(result "$RR_TMP/out" '["agent"]["signal"]')" = 15 ]
    grep -q "Terminated received: stopping the agent" "$RR_TMP/review.out"
    assert_nothing_left
}

@test "review: an agent that ignores the first signal is killed by the second" {
    review_bg 'trap "" TERM INT; echo started; sleep 60'
    kill -TERM "$REVIEW_PID"
    sleep 0.3
    kill -0 "$REVIEW_PID" # still waiting for the agent
    kill -INT "$REVIEW_PID"
    status=0
    timeout 30 tail --pid="$REVIEW_PID" -f /dev/null
    wait "$REVIEW_PID" || status=$?
    [ "$status" -eq 1 ]
    [ "$(result "$RR_TMP/out" '["agent"]["signal"]')" = 9 ]
    assert_nothing_left
}

@test "review: result.json names the backend the bundle used" {
    rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/config.json"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- true
    [ "$(result "$RR_TMP/out" '["backend"]')" = native ]
    mkdir -p "$RR_TMP/bundle/rootfs"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["revrun"]["overlay"]="fuse"; json.dump(c,open(sys.argv[2],"w"))' \
        "$RR_TMP/config.json" "$RR_TMP/bundle/config.json"
    run rr review --bundle "$RR_TMP/bundle" --lower "$RR_TMP/checkout" --out "$RR_TMP/out2" -- true
    [ "$status" -eq 0 ]
    [ "$(result "$RR_TMP/out2" '["backend"]')" = fuse ]
    assert_nothing_left
}

@test "review: the agent's output is escaped, prefixed and kept raw in agent.log" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo "::set-env name=PATH::/evil"; printf "\033]0;title\007\n"'
    [ "$status" -eq 0 ]
    # no line of the job's log starts with a workflow command, no raw ESC
    ! printf '%s\n' "$output" | grep -q '^::' || false
    assert_output_contains 'agent| \x3a:set-env name=PATH::/evil'
    assert_output_contains 'agent| \x1b]0;title\x07'
    ! printf '%s' "$output" | grep -q "$(printf '\033')" || false
    grep -q "$(printf '\033')" "$RR_TMP/out/agent.log"
}

# GitHub's runner also acts on the legacy "##[cmd]" anywhere in a line, and
# on "::cmd::" after blanks; Azure Pipelines on "##vso[...]" and TeamCity on
# "##teamcity[...]" anywhere: no form reaches the job's log, from the
# agent's output or from a file name in the report.
@test "review: no CI log-command form survives, in the agent's output or in names" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- \
        sh -c 'echo "x ##[add-mask]hidden"; echo "  ::warning::pwn"; echo "##[set-output name=a;]b";
               echo "ok ##vso[task.setvariable variable=VERDICT]accept";
               echo "##teamcity[buildStatus status=SUCCESS]";
               echo new >"##[error]named"; echo new >"::error::named";
               echo new >"##vso[task.complete result=Succeeded]named"'
    [ "$status" -eq 0 ]
    echo "$output" >&3
    ! printf '%s\n' "$output" | grep -F '##[' || false
    ! printf '%s\n' "$output" | grep -E '##(vso|teamcity)\[' || false
    ! printf '%s\n' "$output" | grep -E '^[[:space:]]*::' || false
    assert_output_contains 'agent| x \x23#[add-mask]hidden'
    assert_output_contains 'agent| ok \x23#vso[task.setvariable variable=VERDICT]accept'
    # the report a job prints (summary.txt, as `revrun diff` shows it)
    cat "$RR_TMP/out/summary.txt" >&3
    ! grep -F '##[' "$RR_TMP/out/summary.txt" || false
    ! grep -E '##(vso|teamcity)\[' "$RR_TMP/out/summary.txt" || false
    ! grep -E '^[[:space:]]*::' "$RR_TMP/out/summary.txt" || false
    grep -qF '\x23#[error]named' "$RR_TMP/out/summary.txt"
    grep -qF '\x23#vso[task.complete result=Succeeded]named' "$RR_TMP/out/summary.txt"
}

@test "review: refuses an --out that already holds results (a bad command line)" {
    rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- true
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- true
    [ "$status" -eq 2 ]
    assert_output_contains "already holds"
}

@test "review: rootless, end to end" {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
    mkdir "$RR_TMP/uout"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/uout"
    run as_user "$RR_BIN/revrun" review --lower "$RR_TMP/checkout" --out "$RR_TMP/uout" -- \
        sh -c 'echo rootless >> a.txt'
    [ "$status" -eq 0 ]
    [ "$(result "$RR_TMP/uout" '["verdict"]')" = accept ]
    [ -f "$RR_TMP/uout/changeset/manifest.json" ]
}

# The secrets git keeps under keys of their own, each alone in the
# checkout's .git/config: every one refuses the review before the agent
# runs, names the file and the key, and its value is nowhere: not in the
# output, the results, the state root.
@test "review: a git-config secret (smtpPass, *.oauthtoken, *.token, *password*, *secret*, a password-shaped credential username, a cookie file inside) refuses the review; the value appears nowhere" {
    local co="$RR_TMP/checkout" tag="rr-gitsecret-$$-$RANDOM" n=0 entry key value shown
    git -C "$co" init -q
    printf '# Netscape HTTP Cookie File\ngithub.com\tFALSE\t/\tTRUE\t0\tsession\t%s\n' "$tag" \
        >"$co/.git/cookies"
    for entry in "sendemail.smtpPass=$tag=sendemail.smtppass" \
        "hub.oauthtoken=$tag=hub.oauthtoken" \
        "gitlab.example.com.token=$tag=gitlab.example.com.token" \
        "ci.deployPassword=$tag=ci.deploypassword" \
        "ci.clientSecret=$tag=ci.clientsecret" \
        "credential.https://github.com.username=ghp_$tag=credential.https://github.com.username" \
        "http.cookieFile=.git/cookies=http.cookiefile" \
        "http.https://github.com/.cookieFile=/workspace/.git/cookies=http.https://github.com/.cookiefile"; do
        key=${entry%%=*}
        value=${entry#*=}
        shown=${value#*=}
        value=${value%=*}
        n=$((n + 1))
        git -C "$co" config "$key" "$value"
        run rr review --lower "$co" --out "$RR_TMP/out$n" -- \
            sh -c 'cat .git/config .git/cookies; echo ran >a.txt'
        echo "$key: $output"
        [ "$status" -eq 3 ]
        assert_output_contains "$co/.git/config line "
        assert_output_contains "(git config key $shown)"
        [[ "$output" != *"$tag"* ]]
        [ -z "$(grep -rlF "$tag" "$RR_TMP/out$n" "$RR_ROOT" 2>/dev/null)" ]
        [ "$(cat "$co/a.txt")" = hello ]
        git -C "$co" config --unset-all "$key"
    done
    # without them the same checkout (the cookie file in it but named by no
    # key) runs
    run rr review --lower "$co" --out "$RR_TMP/out-clean" -- sh -c 'echo ran >>a.txt'
    [ "$status" -eq 0 ]
}

# git's store helper keeps plaintext passwords in the file its --file
# names; an inline helper prints a file's. Such a file inside the checkout,
# named by the agent's path (/workspace/...) or by the host's (the
# operator's own config), refuses the review before the agent reads it.
@test "review: a credential helper reading a file in the checkout (store --file by the agent's or the host's path, an inline !cat) refuses the review; the secret appears nowhere" {
    local co="$RR_TMP/checkout" tag="rr-helper-$$-$RANDOM" n=0 helper
    git -C "$co" init -q
    printf 'https://x:%s@github.com\n' "$tag" >"$co/.git/creds"
    chmod -R a+rX "$co"
    for helper in "store --file=/workspace/.git/creds" "store --file $co/.git/creds" \
        "!cat $co/.git/creds" "!f() { cat .git/creds; }; f"; do
        n=$((n + 1))
        git -C "$co" config credential.helper "$helper"
        run rr review --lower "$co" --out "$RR_TMP/out$n" -- sh -c 'cat .git/creds; echo ran >a.txt'
        echo "$helper: $output"
        [ "$status" -eq 3 ]
        assert_output_contains "a credential helper reading a file inside the checkout (git config key credential.helper)"
        [[ "$output" != *"$tag"* ]]
        [ -z "$(grep -rlF "$tag" "$RR_TMP/out$n" "$RR_ROOT" 2>/dev/null)" ]
        [ "$(cat "$co/a.txt")" = hello ]
        git -C "$co" config --unset-all credential.helper
    done
    # a helper whose file is elsewhere, or a password manager's, runs
    git -C "$co" config credential.helper "store --file=/tmp/elsewhere"
    git -C "$co" config --add credential.helper "!pass show git/github"
    run rr review --lower "$co" --out "$RR_TMP/out-clean" -- sh -c 'echo ran >>a.txt'
    echo "$output"
    [ "$status" -eq 0 ]
}
