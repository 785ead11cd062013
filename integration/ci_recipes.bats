#!/usr/bin/env bats
# The CI recipes (examples/ci/*.yml) run: their shell steps are the scripts
# beside them, which this suite runs as the forge would, against a local
# bare repository standing in for the forge, with a fake agent. The YAML is
# parsed to check that every step it runs is one of those scripts.

load helpers

CI="$REPO_ROOT/examples/ci"

setup() {
    rr_setup_tmp
    # the forge: main, and a pull request's branch one commit on top
    git init -q --bare "$RR_TMP/forge.git"
    git clone -q "$RR_TMP/forge.git" "$RR_TMP/dev" 2>/dev/null
    git -C "$RR_TMP/dev" config user.name dev
    git -C "$RR_TMP/dev" config user.email dev@example.invalid
    printf 'hello\n' >"$RR_TMP/dev/a.txt"
    git -C "$RR_TMP/dev" add a.txt
    git -C "$RR_TMP/dev" commit -qm base
    git -C "$RR_TMP/dev" push -q origin HEAD:refs/heads/main
    printf 'def f(): pass\n' >"$RR_TMP/dev/f.py"
    git -C "$RR_TMP/dev" add f.py
    git -C "$RR_TMP/dev" commit -qm "the pull request"
    git -C "$RR_TMP/dev" push -q origin HEAD:refs/heads/pr
    PR=$(git -C "$RR_TMP/dev" rev-parse HEAD)
    # the runner's workspace: the pull request checked out (as actions/checkout does)
    git clone -q --branch pr "$RR_TMP/forge.git" "$RR_TMP/ws/checkout"
    chmod -R a+rX "$RR_TMP/ws"
}

teardown() {
    rr_destroy_all
    rr_teardown_tmp
}

# Every run:/script: line of a recipe, one per line.
steps_of() {
    python3 - "$1" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for name, job in doc.get("jobs", doc).items():
    if not isinstance(job, dict):
        continue
    for step in job.get("steps", []):
        if "run" in step:
            print(step["run"].strip().replace("\n", " ; "))
    for line in job.get("script", []):
        print(line)
PY
}

# The review job's steps, as the scripts the recipes call: install, review.
review_job() {
    PREFIX="$RR_TMP/prefix" REVRUN_BIN="$RR_BIN/revrun" "$CI/install.sh" >/dev/null
    (cd "$RR_TMP/ws" &&
        env CHECKOUT=checkout OUT=revrun-out TIMEOUT=1m REVRUN="$RR_TMP/prefix/bin/revrun" \
            GITHUB_OUTPUT="$RR_TMP/gh-output" GITHUB_STEP_SUMMARY="$RR_TMP/gh-summary.md" \
            REVRUN_DOTENV="$RR_TMP/revrun.env" \
            "$CI/review.sh" sh -c "$1")
}

@test "ci recipes: every step the YAML runs is a script that is here, and the YAML parses" {
    for recipe in github-actions.yml gitlab-ci.yml; do
        steps_of "$CI/$recipe" >"$RR_TMP/steps"
        cat "$RR_TMP/steps" >&3
        for script in install.sh review.sh approve.sh; do
            grep -q "revrun/$script" "$RR_TMP/steps"
            [ -x "$CI/$script" ]
        done
    done
    # the approval is the forge's: a protected environment, a manual job
    python3 - "$CI/github-actions.yml" "$CI/gitlab-ci.yml" <<'PY'
import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))
assert gh["jobs"]["approve"]["environment"] == "revrun-approval", gh["jobs"]["approve"]
assert gh["jobs"]["approve"]["needs"] == "review"
gl = yaml.safe_load(open(sys.argv[2]))
assert gl["revrun-approve"]["rules"][0]["when"] == "manual", gl["revrun-approve"]
assert gl["revrun-approve"]["needs"] == ["revrun-review"]
PY
}

@test "ci recipes: the review job's steps review with a fake agent and hand the verdict to the forge" {
    run review_job 'echo "::warning::from the agent"; printf "hello\nfixed\n" > a.txt'
    assert_success
    out="$RR_TMP/ws/revrun-out"
    digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$out/result.json")
    # the step's outputs and GitLab's dotenv carry the digest the approver reads
    grep -qx "digest=$digest" "$RR_TMP/gh-output"
    grep -qx "verdict=accept" "$RR_TMP/gh-output"
    grep -qx "REVRUN_DIGEST=$digest" "$RR_TMP/revrun.env"
    # the job summary: the summary.txt in a fence, the digest in it
    grep -qx '### revrun review (exit 0)' "$RR_TMP/gh-summary.md"
    grep -qx "digest: $digest" "$RR_TMP/gh-summary.md"
    # the job log: the phases, the agent's line escaped
    assert_output_contains "revrun| verdict: accept, 1 change, digest $digest"
    assert_output_contains 'agent| \x3a:warning::from the agent'
    # the artifact: what the approval job downloads
    [ -f "$out/changeset/manifest.json" ] && [ -f "$out/changeset.patch" ] || false
}

@test "ci recipes: a fence in the job summary that a file name cannot close" {
    run review_job 'echo x > "\`\`\`\`\`\` [click](javascript:x)"'
    assert_success
    # the fence is longer than any run of backquotes in the summary
    fence=$(grep -m1 -o '^``*' "$RR_TMP/gh-summary.md")
    [ "${#fence}" -ge 7 ]
    [ "$(grep -c "^$fence" "$RR_TMP/gh-summary.md")" -eq 2 ]
}

@test "ci recipes: a refused review stops the pipeline: non-zero, no digest for the approval" {
    run review_job 'mkfifo pipe'
    [ "$status" -eq 5 ]
    grep -qx "verdict=refuse" "$RR_TMP/gh-output"
    grep -qx "digest=" "$RR_TMP/gh-output"
    grep -qx "REVRUN_DIGEST=" "$RR_TMP/revrun.env"
}

@test "ci recipes: the approval job's step commits the approved set on the reviewed commit and pushes the branch" {
    if ! "$RR_BIN/revrun" apply --help 2>&1 | grep -q -- '--commit'; then
        skip "revrun apply has no --commit yet (it comes with the git apply work)"
    fi
    review_job 'printf "hello\nfixed\n" > a.txt; echo new > n.txt'
    digest=$(sed -n 's/^digest=//p' "$RR_TMP/gh-output")
    # the approval job: a fresh clone, the artifact downloaded
    git clone -q "$RR_TMP/forge.git" "$RR_TMP/ws2/repo"
    git -C "$RR_TMP/ws2/repo" fetch -q origin pr
    git -C "$RR_TMP/ws2/repo" config user.name "revrun approval"
    git -C "$RR_TMP/ws2/repo" config user.email revrun@example.invalid
    cp -a "$RR_TMP/ws/revrun-out" "$RR_TMP/ws2/revrun-out"
    run env OUT="$RR_TMP/ws2/revrun-out" DIGEST="$digest" REPO="$RR_TMP/ws2/repo" \
        BRANCH=revrun/pr-1 REVRUN="$RR_TMP/prefix/bin/revrun" "$CI/approve.sh"
    assert_success
    # the forge has the branch: one commit on the pull request, the change in it
    [ "$(git -C "$RR_TMP/forge.git" rev-parse revrun/pr-1^)" = "$PR" ]
    [ "$(git -C "$RR_TMP/forge.git" show revrun/pr-1:a.txt)" = "$(printf 'hello\nfixed')" ]
    [ "$(git -C "$RR_TMP/forge.git" show revrun/pr-1:n.txt)" = new ]
    git -C "$RR_TMP/forge.git" log -1 --format=%B revrun/pr-1 | grep -q "^Revrun-Digest: .*$digest"
    # a wrong digest writes and pushes nothing
    run env OUT="$RR_TMP/ws2/revrun-out" DIGEST="$(printf '%064d' 0)" REPO="$RR_TMP/ws2/repo" \
        BRANCH=revrun/pr-2 REVRUN="$RR_TMP/prefix/bin/revrun" "$CI/approve.sh"
    assert_failure
    ! git -C "$RR_TMP/forge.git" rev-parse -q --verify revrun/pr-2 || false
}

# The install step as the shipped recipes run it: no binary given, the
# source cloned from REVRUN_REPO and built (a clone of this repository's
# HEAD stands in for the forge's; the Debian packages are in place).
@test "ci recipes: install.sh builds revrun from REVRUN_REPO into PREFIX, and what it installed runs" {
    [ "$(id -u)" = 0 ] || skip "the build's install step writes as root in CI"
    git -C "$REPO_ROOT" rev-parse --verify -q HEAD >/dev/null || skip "not a git checkout"
    head=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD)
    run env PREFIX="$RR_TMP/built" REVRUN_REPO="file://$REPO_ROOT" REVRUN_DEPS=skip \
        "$CI/install.sh"
    echo "$output" | tail -20
    [ "$status" = 0 ]
    [ -x "$RR_TMP/built/bin/revrun" ]
    # the installed binary is HEAD's build, and a command that needs its
    # libraries and presets works from the installed paths
    "$RR_TMP/built/bin/revrun" --version | grep -q "^commit: $head"
    "$RR_TMP/built/bin/revrun" spec --agent claude >"$RR_TMP/spec.json"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$RR_TMP/spec.json"
}
