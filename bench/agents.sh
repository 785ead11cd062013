#!/bin/bash
# bench/agents.sh: what running a real agent under revrun costs, wall time,
# for Claude Code, Codex and Gemini CLI, side by side:
#   outside  the agent run as a user runs it on the host: its own HOME with
#            the same settings the preset seeds, talking straight to the fake
#            model API (plain HTTP on loopback), in a fresh copy of the
#            checkout
#   inside   `revrun review --agent NAME` on the same checkout: bundle,
#            sandbox, broker (TLS to the same fake API), the agent, vetting,
#            export, destroy: everything the CI job pays
#   no record  the same review with --no-activity: what the activity
#            record (docs/activity.md) costs is inside / no record
#            (target: at most 1.05)
# Both drive the same scripted conversation (integration/agents_upstream.py:
# write a file, edit a file, git status/diff and a name lookup, finish), so
# the difference is revrun's. Runs alternate (outside, inside, outside, ...)
# so a busy machine weighs on both alike. Median of N runs each (default
# 5); the ratio
# is inside / outside (target: at most 1.2).
#
# The record's column, measured on 2026-12-03 (2 cores shared with other
# jobs, load average 4-6, median of 3): claude 1.04 s with, 0.98 s without
# (1.07); codex 1.43 / 1.74 (0.82); gemini 10.74 / 11.97 (0.90): a scripted
# session execs a few dozen programs, and the difference is within the
# machine's run-to-run noise.
#
#   bench/agents.sh [N] [AGENT...]     AGENT: claude codex gemini (default all)
#
# Needs root (review's root mode), python3, openssl, git and the agents
# installed by `npm install --prefix DIR` (REVRUN_TEST_AGENTS, else
# integration/.agents, else /opt/revrun-test-agents, as .ci/run does).
# Everything stays on loopback and stops by itself.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-5}
shift || true
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini)
revrun="$here/revrun"
[ -x "$revrun" ] || make -C "$here" revrun >/dev/null
REPO_ROOT=$here
# shellcheck source=../integration/egress_helpers.bash
. "$here/integration/egress_helpers.bash"
# shellcheck source=../integration/agents_helpers.bash
. "$here/integration/agents_helpers.bash"
agent_dir=$(ag_dir)

tmp=$(mktemp -d /tmp/revrun-bench-agents.XXXXXX)
chmod 0755 "$tmp"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

eg_make_certs "$tmp/certs"
printf 'sk-revrun-bench-REAL-0123456789abcdef\n' >"$tmp/key"
chmod 0600 "$tmp/key"
python3 "$here/integration/agents_upstream.py" --cert "$tmp/certs/good.pem" \
    --key "$tmp/certs/good.key" --record /dev/null --port-file "$tmp/tls.port" \
    --plain-port-file "$tmp/plain.port" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/tls.port" ] && [ -s "$tmp/plain.port" ] && break; sleep 0.05; done
tls_port=$(cat "$tmp/tls.port")
plain_port=$(cat "$tmp/plain.port")

mkdir -p "$tmp/lower"
git -C "$tmp/lower" init -q
printf 'hello world\n' >"$tmp/lower/hello.txt"
git -C "$tmp/lower" add hello.txt
git -C "$tmp/lower" -c user.name=b -c user.email=b@example.invalid commit -qm base
chmod -R a+rX "$tmp/lower"

now() { date +%s.%N; }

# outside AGENT RUN: one run on the host; prints its wall time.
outside() {
    local a=$1 w="$tmp/out-$1-$2" home="$tmp/home-$1-$2" t0 t1
    cp -a "$tmp/lower" "$w"
    mkdir -p "$home"
    local env=(HOME="$home" PATH="$agent_dir/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
        LANG=C.UTF-8 TERM=dumb)
    local cmd
    case $a in
    claude)
        # --dangerously-skip-permissions is refused to root unless told the
        # host is a sandbox; revrun runs it as uid 1000 inside instead.
        env+=(ANTHROPIC_BASE_URL="http://127.0.0.1:$plain_port" ANTHROPIC_API_KEY=dummy-key
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1)
        cmd=(claude -p "revrun-agent-test workdir=$w" --dangerously-skip-permissions)
        ;;
    codex)
        mkdir -p "$home/.codex"
        printf '%s\n' 'model_provider = "bench"' '[model_providers.bench]' 'name = "bench"' \
            "base_url = \"http://127.0.0.1:$plain_port/v1\"" 'env_key = "OPENAI_API_KEY"' \
            'wire_api = "responses"' 'supports_websockets = true' >"$home/.codex/config.toml"
        env+=(OPENAI_API_KEY=dummy-key)
        cmd=(codex exec --skip-git-repo-check -m gpt-5.5 --dangerously-bypass-approvals-and-sandbox
            "revrun-agent-test workdir=$w")
        ;;
    gemini)
        mkdir -p "$home/.gemini"
        echo '{"security": {"auth": {"selectedType": "gemini-api-key"}}}' \
            >"$home/.gemini/settings.json"
        env+=(GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$plain_port" GEMINI_API_KEY=dummy-key
            GEMINI_CLI_TRUST_WORKSPACE=true)
        cmd=(gemini --yolo -p "revrun-agent-test workdir=$w")
        ;;
    esac
    t0=$(now)
    (cd "$w" && env -i "${env[@]}" "${cmd[@]}" </dev/null >"$tmp/outside-$a-$2.log" 2>&1)
    t1=$(now)
    grep -q '^hello revrun$' "$w/hello.txt" || { echo "outside $a run $2 did not finish" >&2; exit 1; }
    echo "$t1 - $t0" | bc
}

# inside AGENT RUN [FLAG]: one `revrun review --agent`; prints its wall time.
inside() {
    local a=$1 out="$tmp/in-$1-$2${3:-}" t0 t1 cmd
    case $a in
    claude) cmd=(claude -p "$AG_PROMPT" --dangerously-skip-permissions) ;;
    codex) cmd=(codex exec --skip-git-repo-check -m gpt-5.5 --dangerously-bypass-approvals-and-sandbox "$AG_PROMPT") ;;
    gemini) cmd=(gemini --yolo -p "$AG_PROMPT") ;;
    esac
    t0=$(now)
    "$revrun" --root "$tmp/state" review --agent "$a" --agent-dir "$agent_dir" \
        --upstream "https://localhost:$tls_port" --credential-file "$tmp/key" \
        --ca-file "$tmp/certs/ca.pem" --lower "$tmp/lower" --out "$out" --timeout 300 ${3:-} \
        -- "${cmd[@]}" >/dev/null 2>&1 || { echo "inside $a run $2 failed: $(cat "$out/summary.txt" 2>/dev/null)" >&2; exit 1; }
    t1=$(now)
    echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

printf '%-8s %12s %12s %8s %12s %8s   (median of %d, seconds)\n' agent outside inside ratio \
    "no record" record "$n"
for a in "${agents[@]}"; do
    if [ ! -x "$agent_dir/node_modules/.bin/$a" ]; then
        printf '%-8s not installed in %s\n' "$a" "$agent_dir"
        continue
    fi
    : >"$tmp/$a.outside"
    : >"$tmp/$a.inside"
    : >"$tmp/$a.norecord"
    for i in $(seq "$n"); do
        outside "$a" "$i" >>"$tmp/$a.outside"
        inside "$a" "$i" >>"$tmp/$a.inside"
        inside "$a" "$i" --no-activity >>"$tmp/$a.norecord"
    done
    o=$(median <"$tmp/$a.outside")
    s=$(median <"$tmp/$a.inside")
    q=$(median <"$tmp/$a.norecord")
    printf '%-8s %12.2f %12.2f %8.2f %12.2f %8.3f\n' "$a" "$o" "$s" "$(echo "$s / $o" | bc -l)" \
        "$q" "$(echo "$s / $q" | bc -l)"
done
