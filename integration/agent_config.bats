#!/usr/bin/env bats
# Real agents out of the box, the runtime side: agent presets, the agent's
# install and binds, egress and environment flags, HOME seeded by copy,
# artifacts kept out of the change set, DNS that fails fast, and the report
# when the agent's own sandbox is refused. Judged from the host: OUT's
# files, the host directories, what the agent printed (OUT/agent.log).

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout" "$RR_TMP/host"
    echo hello >"$RR_TMP/checkout/a.txt"
    echo "host file" >"$RR_TMP/host/f"
    chmod -R a+rX "$RR_TMP/checkout" "$RR_TMP/host"
    # NAME presets resolve in agents/ one up from the binary, as in a build tree
    cp -r "$REPO_ROOT/agents" "$RR_TMP/agents"
    chmod -R a+rX "$RR_TMP/agents"
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    rr_destroy_all
    rr_destroy_all "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# review as root (mode root) or as the unprivileged test user (rootless),
# OUT in $RR_TMP/out either way.
review() {
    local mode=$1
    shift
    if [ "$mode" = rootless ]; then
        chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout"
        mkdir -p "$RR_TMP/out"
        chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/out"
        as_user "$RR_BIN/revrun" review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" "$@"
    else
        rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" "$@"
    fi
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$RR_TMP/out/result.json" "$1"
}

spec_field() {
    python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$1"
}

assert_nothing_left() {
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

# ---- presets and flags -> config ----

@test "spec --agent NAME: the preset's fields, as config.json says them" {
    run rr spec --lower "$RR_TMP/checkout" --agent codex
    assert_success
    [ "$(echo "$output" | spec_field '["revrun"]["egress"]["upstream"]')" = https://api.openai.com ]
    [ "$(echo "$output" | spec_field '["revrun"]["egress"]["header"]')" = Authorization ]
    [ "$(echo "$output" | spec_field '["revrun"]["egress"]["headerPrefix"]')" = "Bearer " ]
    [ "$(echo "$output" | spec_field '["revrun"]["egress"]["credentialEnv"]')" = OPENAI_API_KEY ]
    echo "$output" | spec_field '["revrun"]["homeFiles"][".codex/config.toml"]' | grep -q 'env_key = "OPENAI_API_KEY"'
    echo "$output" | spec_field '["process"]["env"]' | grep -q "OPENAI_API_KEY=revrun-placeholder-key"
    run rr spec --lower "$RR_TMP/checkout" --agent gemini
    assert_success
    [ "$(echo "$output" | spec_field '["revrun"]["egress"]["allow"]')" = "['/v1beta/']" ]
    [ "$(echo "$output" | spec_field '["revrun"]["egress"]["baseUrlEnv"]')" = GOOGLE_GEMINI_BASE_URL ]
    run rr spec --lower "$RR_TMP/checkout" --agent claude
    assert_success
    echo "$output" | spec_field '["process"]["env"]' | grep -q "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
    echo "$output" | spec_field '["revrun"]["artifacts"]' | grep -q "~/.claude/projects"
}

@test "spec: a flag overrides the preset; the result is a config create accepts" {
    run rr spec --lower "$RR_TMP/checkout" --agent claude --upstream https://models.example:8443 \
        --header x-other --header-prefix "Key " --allow /v2/ --allow /v3/ \
        --base-url-env A_URL --base-url-env B_URL --credential-env MY_KEY --env EXTRA=1 \
        --nested-sandboxes
    assert_success
    local cfg=$output
    [ "$(echo "$cfg" | spec_field '["revrun"]["egress"]["upstream"]')" = https://models.example:8443 ]
    [ "$(echo "$cfg" | spec_field '["revrun"]["egress"]["header"]')" = x-other ]
    [ "$(echo "$cfg" | spec_field '["revrun"]["egress"]["headerPrefix"]')" = "Key " ]
    [ "$(echo "$cfg" | spec_field '["revrun"]["egress"]["allow"]')" = "['/v2/', '/v3/']" ]
    [ "$(echo "$cfg" | spec_field '["revrun"]["egress"]["baseUrlEnv"]')" = "['A_URL', 'B_URL']" ]
    [ "$(echo "$cfg" | spec_field '["revrun"]["egress"]["credentialEnv"]')" = MY_KEY ]
    [ "$(echo "$cfg" | spec_field '["revrun"]["nestedSandboxes"]')" = True ]
    echo "$cfg" | spec_field '["process"]["env"]' | grep -q "EXTRA=1"
    # a preset adds nothing a config.json could not say: the printed config
    # is the whole story, and it runs
    mkdir -p "$RR_TMP/bundle"
    echo "$cfg" >"$RR_TMP/bundle/config.json"
    MY_KEY=0123456789abcdef run rr run --bundle "$RR_TMP/bundle" c1
    [ "$status" -ne 2 ]
}

@test "spec --agent FILE: unknown keys and bad values are refused with their path" {
    printf '{"name": "mine", "mounts": [{"destination": "/"}]}' >"$RR_TMP/p1.json"
    run rr spec --lower "$RR_TMP/checkout" --agent "$RR_TMP/p1.json"
    assert_failure
    assert_output_contains "mounts"
    printf '{"name": "mine", "homeFiles": {"../../etc/x": "y"}}' >"$RR_TMP/p2.json"
    run rr spec --lower "$RR_TMP/checkout" --agent "$RR_TMP/p2.json"
    assert_failure
    assert_output_contains "homeFiles"
    run rr spec --lower "$RR_TMP/checkout" --agent no-such-agent
    assert_failure
    assert_output_contains "no preset"
    run rr spec --lower "$RR_TMP/checkout" --credential-env K
    assert_failure
    assert_output_contains "--upstream"
}

# ---- the agent's install, binds, environment ----

fake_npm_install() {
    # what `npm install --prefix DIR pkg` leaves: a bin link into the package,
    # which requires its dependency by name (node searches node_modules dirs)
    local d=$1
    mkdir -p "$d/node_modules/.bin" "$d/node_modules/fakeagent" "$d/node_modules/fakedep"
    printf '#!/usr/bin/env node\nconsole.log("fakeagent:", require("fakedep"), __dirname);\n' \
        >"$d/node_modules/fakeagent/cli.js"
    chmod 755 "$d/node_modules/fakeagent/cli.js"
    echo 'module.exports = "dep ok";' >"$d/node_modules/fakedep/index.js"
    ln -s ../fakeagent/cli.js "$d/node_modules/.bin/fakeagent"
    chmod -R a+rX "$d"
}

agent_dir_runs() {
    fake_npm_install "$RR_TMP/agent"
    run review "$1" --agent-dir "$RR_TMP/agent" -- fakeagent
    assert_success
    grep -q "fakeagent: dep ok /opt/agent/node_modules/fakeagent" "$RR_TMP/out/agent.log"
    # a node_modules directory itself keeps its name where it is bound
    rm -rf "$RR_TMP/out"
    run review "$1" --agent-dir "$RR_TMP/agent/node_modules" -- fakeagent
    assert_success
    grep -q "fakeagent: dep ok /opt/agent/node_modules/fakeagent" "$RR_TMP/out/agent.log"
}

@test "--agent-dir: an npm install runs by name, read-only, node_modules kept (root)" {
    command -v node >/dev/null || skip "node is not installed"
    agent_dir_runs root
    # read-only inside, and nothing of it in the change set
    rm -rf "$RR_TMP/out"
    run review root --agent-dir "$RR_TMP/agent" -- sh -c 'echo x > /opt/agent/new; echo rc=$?'
    grep -q "Read-only file system" "$RR_TMP/out/agent.log"
    [ ! -e "$RR_TMP/agent/new" ]
    assert_nothing_left
}

@test "--agent-dir: an npm install runs by name, node_modules kept (rootless)" {
    command -v node >/dev/null || skip "node is not installed"
    agent_dir_runs rootless
}

@test "a global install under /usr/local is visible through the system binds" {
    run review root -- sh -c 'ls /usr/local/bin'
    assert_success
    [ "$(sed 's/^//' "$RR_TMP/out/agent.log")" = "$(ls /usr/local/bin)" ]
}

@test "--bind and --env: read-only by default, read-write when written and said (root)" {
    run review root --bind "$RR_TMP/host:/data" --env GREETING=hi -- \
        sh -c 'echo "$GREETING"; cat /data/f; echo x > /data/new || echo refused'
    assert_success
    grep -qx hi "$RR_TMP/out/agent.log"
    grep -qx "host file" "$RR_TMP/out/agent.log"
    grep -qx refused "$RR_TMP/out/agent.log"
    [ ! -e "$RR_TMP/host/new" ]
    rm -rf "$RR_TMP/out"
    chmod 777 "$RR_TMP/host"
    run review root --bind "$RR_TMP/host:/data:rw" -- sh -c 'echo written > /data/new'
    assert_success
    assert_output_contains "read-write"
    [ "$(cat "$RR_TMP/host/new")" = written ]
}

@test "--base-url-env NAME=/path: the relay's URL with the path the SDK wants" {
    printf 'revrun-test-key-0123456789\n' >"$RR_TMP/key"
    run review root --upstream https://localhost:9 --credential-file "$RR_TMP/key" \
        --base-url-env A_URL --base-url-env 'B_URL=/v1' -- sh -c 'echo "A=$A_URL"; echo "B=$B_URL"'
    assert_success
    grep -qx "A=http://127.0.0.1:8080" "$RR_TMP/out/agent.log"
    grep -qx "B=http://127.0.0.1:8080/v1" "$RR_TMP/out/agent.log"
}

@test "--bind: over /proc, /dev, or read-write onto the checkout or a system tree is refused" {
    run review root --bind "$RR_TMP/host:/proc/x" -- true
    [ "$status" -eq 3 ]
    assert_output_contains "/proc"
    rm -rf "$RR_TMP/out"
    run review root --bind "$RR_TMP/host:/dev/x" -- true
    [ "$status" -eq 3 ]
    assert_output_contains "/dev"
    rm -rf "$RR_TMP/out"
    run review root --bind "$RR_TMP/checkout:/data:rw" -- true
    [ "$status" -eq 3 ]
    assert_output_contains "checkout"
    rm -rf "$RR_TMP/out"
    run review root --bind "$RR_TMP:/data:rw" -- true
    [ "$status" -eq 3 ]
    assert_output_contains "checkout"
    rm -rf "$RR_TMP/out"
    run review root --bind "/usr/lib:/data:rw" -- true
    [ "$status" -eq 3 ]
    assert_output_contains "read-only"
    assert_nothing_left
}

@test "--bind: read-write onto the results directory, or a tree holding it, is refused" {
    mkdir -p "$RR_TMP/out" "$RR_TMP/res"
    run review root --bind "$RR_TMP/out:/data:rw" -- sh -c 'ln -s /etc/shadow /data/summary.txt'
    [ "$status" -eq 3 ]
    assert_output_contains "results directory"
    [ ! -L "$RR_TMP/out/summary.txt" ]
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/res/out" \
        --bind "$RR_TMP/res:/data:rw" -- sh -c 'echo forged >/data/out/summary.txt'
    [ "$status" -eq 3 ]
    assert_output_contains "results directory"
    ! grep -qs forged "$RR_TMP/res/out/summary.txt" || false
    # read-only stays allowed: the agent may read its own log
    rm -rf "$RR_TMP/res/out"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/res/out" \
        --bind "$RR_TMP/res:/data" -- true
    assert_success
    assert_nothing_left
}

@test "--bind and --env (rootless)" {
    run review rootless --bind "$RR_TMP/host:/data" --env GREETING=hi -- \
        sh -c 'echo "$GREETING"; cat /data/f'
    assert_success
    grep -qx hi "$RR_TMP/out/agent.log"
    grep -qx "host file" "$RR_TMP/out/agent.log"
}

# ---- HOME seed and artifacts ----

home_seed() {
    local mode=$1
    mkdir -p "$RR_TMP/seed/.cfg"
    echo seeded >"$RR_TMP/seed/.cfg/a"
    ln -s /etc/hostname "$RR_TMP/seed/evil"
    mkfifo "$RR_TMP/seed/fifo"
    chmod -R a+rX "$RR_TMP/seed"
    printf '{"name": "t", "homeFiles": {".t/settings.json": "{\\"k\\": 1}\\n"}}' >"$RR_TMP/t.json"
    chmod a+r "$RR_TMP/t.json"
    run review "$mode" --home "$RR_TMP/seed" --agent "$RR_TMP/t.json" -- sh -c '
        cat ~/.cfg/a; cat ~/.t/settings.json; stat -c "owner %u" ~/.cfg/a ~/.t/settings.json
        test -e ~/evil || test -L ~/evil || echo "no symlink"
        test -e ~/fifo || echo "no fifo"
        echo changed > ~/.cfg/a'
    assert_success
    grep -qx seeded "$RR_TMP/out/agent.log"
    grep -qx '{"k": 1}' "$RR_TMP/out/agent.log"
    [ "$(grep -c "^owner 1000$" "$RR_TMP/out/agent.log")" = 2 ]
    grep -qx "no symlink" "$RR_TMP/out/agent.log"
    grep -qx "no fifo" "$RR_TMP/out/agent.log"
    # copied, not bound: the seed on the host is as it was
    [ "$(cat "$RR_TMP/seed/.cfg/a")" = seeded ]
}

@test "revrun.home and homeFiles: copied into HOME, owned by the agent, no symlink (root)" {
    home_seed root
    assert_nothing_left
}

@test "revrun.home and homeFiles (rootless)" {
    home_seed rootless
}

@test "revrun.home: a seed over the file cap is refused, not half copied" {
    mkdir -p "$RR_TMP/seed"
    (cd "$RR_TMP/seed" && seq 0 10000 | sed 's/^/f/' | xargs touch)
    run review root --home "$RR_TMP/seed" -- true
    [ "$status" -eq 3 ]
    assert_output_contains "over 10000 files"
    assert_nothing_left
}

artifacts_kept() {
    run review "$1" --artifact '~/.keep' --artifact '~/.none' -- sh -c '
        mkdir -p ~/.keep/sub; printf "transcript\n" > ~/.keep/sub/t.jsonl
        ln -s /etc/passwd ~/.keep/link; mkfifo ~/.keep/fifo
        printf x > "$(printf "$HOME/.keep/e\033[31mvil")"
        echo change > /workspace/new.txt'
    assert_success
    [ "$(cat "$RR_TMP/out/artifacts/.keep/sub/t.jsonl")" = transcript ]
    [ ! -e "$RR_TMP/out/artifacts/.keep/link" ] && [ ! -L "$RR_TMP/out/artifacts/.keep/link" ] || false
    [ ! -e "$RR_TMP/out/artifacts/.keep/fifo" ]
    [ "$(result '["artifacts"]["files"]')" = 2 ]
    [ "$(result '["artifacts"]["skipped"]')" = 2 ]
    [ "$(result '["artifacts"]["missing"]')" = 1 ]
    result '["artifacts"]["skippedNames"]' | grep -q ".keep/link"
    # never part of the change set
    [ "$(result '["changes"]')" = 1 ]
    grep -q "new.txt" "$RR_TMP/out/changeset/manifest.json"
    ! grep -rq "transcript" "$RR_TMP/out/changeset" || false
    # names the agent chose reach the summary escaped
    ! grep -q $'\033' "$RR_TMP/out/summary.txt" || false
    grep -q "artifacts: 2 files" "$RR_TMP/out/summary.txt"
}

@test "revrun.artifacts: copied to OUT/artifacts, no symlink or fifo, not in the change set (root)" {
    artifacts_kept root
    assert_nothing_left
}

@test "revrun.artifacts (rootless)" {
    artifacts_kept rootless
}

@test "revrun.artifacts: the file count cap holds" {
    run review root --artifact '~/many' -- sh -c 'mkdir ~/many; cd ~/many; i=0
        while [ $i -lt 5001 ]; do : > f$i; i=$((i+1)); done'
    assert_success
    [ "$(result '["artifacts"]["files"]')" = 5000 ]
    [ "$(result '["artifacts"]["capped"]')" = True ]
    [ "$(find "$RR_TMP/out/artifacts/many" -type f | wc -l)" = 5000 ]
}

@test "revrun.artifacts: directories count against the cap (empty ones cost the agent nothing, the host an inode each)" {
    run review root --artifact '~/many' -- sh -c 'mkdir ~/many; cd ~/many; seq 0 5999 | xargs mkdir'
    assert_success
    [ "$(result '["artifacts"]["capped"]')" = True ]
    [ "$(find "$RR_TMP/out/artifacts/many" -mindepth 1 -type d | wc -l)" -le 5000 ]
}

# ---- DNS ----

dns_fails_fast() {
    run review "$1" -- sh -c '
        python3 -c "
import socket
try:
    socket.getaddrinfo(\"example.com\", 443)
    print(\"resolved\")
except socket.gaierror as e:
    print(\"gaierror\", e.errno)
"
        node -e "require(\"dns\").lookup(\"example.com\", (e) => console.log(\"node\", e && e.code))" 2>/dev/null || true
        getent hosts localhost >/dev/null && echo "localhost ok"
        grep -h "^nameserver\|^options" /etc/resolv.conf'
    assert_success
    # one try, one second, at the sandbox's own resolver
    grep -qx "nameserver 127.0.0.1" "$RR_TMP/out/agent.log"
    grep -qx "options attempts:1 timeout:1" "$RR_TMP/out/agent.log"
    # EAI_NONAME (-2): "no such name", not EAI_AGAIN (-3), which agents retry
    grep -qx "gaierror -2" "$RR_TMP/out/agent.log"
    grep -qx "localhost ok" "$RR_TMP/out/agent.log"
    if command -v node >/dev/null; then
        grep -qx "node ENOTFOUND" "$RR_TMP/out/agent.log"
    fi
}

@test "DNS inside: every name is NXDOMAIN at once, localhost resolves (root)" {
    dns_fails_fast root
}

@test "DNS inside (rootless)" {
    dns_fails_fast rootless
}

# ---- nested sandboxes ----


nested_report() {
    run review "$1" -- sh -c 'unshare -U true 2>&1; echo "rc=$?"; unshare -Urm true 2>&1; true'
    assert_success
    grep -q "Operation not permitted" "$RR_TMP/out/agent.log"
    grep -qx "rc=1" "$RR_TMP/out/agent.log"
    [ "$(result '["nestedSandbox"]["refused"]')" = 2 ]
    [ "$(result '["nestedSandbox"]["firstSyscall"]')" = unshare ]
    grep -q "nested sandbox: 2 namespace attempts refused" "$RR_TMP/out/summary.txt"
    grep -q -- "--nested-sandboxes" "$RR_TMP/out/summary.txt"
    rm -rf "$RR_TMP/out"
    run review "$1" --nested-sandboxes -- sh -c 'unshare -U true && echo "made one"'
    assert_success
    grep -qx "made one" "$RR_TMP/out/agent.log"
    [ "$(result '.get("nestedSandbox", "none")')" = none ]
}

@test "the agent's own sandbox refused: counted, reported with the remedy, still EPERM (root)" {
    nested_report root
    assert_nothing_left
}

@test "the agent's own sandbox refused (rootless)" {
    nested_report rootless
}

@test "nested sandbox report: the preset's remedy is named" {
    printf '{"name": "t", "sandboxRemedy": "mytool --no-sandbox"}' >"$RR_TMP/t.json"
    run review root --agent "$RR_TMP/t.json" -- sh -c 'unshare -U true; true'
    assert_success
    grep -q "mytool --no-sandbox" "$RR_TMP/out/summary.txt"
    result '["nestedSandbox"]["remedy"]' | grep -q "mytool --no-sandbox"
}

@test "nested sandbox report: past the count cap the kernel refuses alone (fail closed)" {
    run review root --no-activity --bind "$RR_BIN:/probes" -- /probes/nsloop 10005
    assert_success
    # the monitor answered 10000 and let go of the listener; after that the
    # kernel answers ENOSYS: never allowed
    grep -qx "ok=0 EPERM=10000 ENOSYS=5 other=0" "$RR_TMP/out/agent.log"
    [ "$(result '["nestedSandbox"]["refused"]')" = 10000 ]
}

@test "nested sandbox report: with the activity record, past the count cap the monitor still refuses" {
    run review root --bind "$RR_BIN:/probes" -- /probes/nsloop 10005
    assert_success
    # the listener stays (every exec needs it): answered EPERM, uncounted
    grep -qx "ok=0 EPERM=10005 ENOSYS=0 other=0" "$RR_TMP/out/agent.log"
    [ "$(result '["nestedSandbox"]["refused"]')" = 10000 ]
}
