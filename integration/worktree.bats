#!/usr/bin/env bats
# A `git worktree add` checkout, as review daemons make one per pull
# request: its .git is a file naming a git directory of the main
# repository, outside the checkout. Inside `revrun review` git works as in
# a plain clone (status, diff, add, commit, stash, log): the main
# repository's git directory is shown at its own path, read-only with a
# scratch upper, and nothing else of the main repository. Root and
# rootless, real worktrees made here; judged from the outside (exit codes
# the agent printed, the change set, a checksum of the main repository's
# .git, the mount table, the probes' view of a canary).

load helpers

P=/workspace/.probes

setup() {
    rr_setup_tmp
    MAIN="$RR_TMP/repos/main"
    CO="$RR_TMP/repos/pr"
    OUT="$RR_TMP/out"
    TAG="revrun-canary-$$-$RANDOM"
    mkdir -p "$OUT"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT"
    make_worktree
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    rr_destroy_all
    rr_teardown_tmp
}

# git as the repository's owner (a user's, as on a review host).
ugit() {
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        env HOME="$RR_TMP" git -c user.name=owner -c user.email=owner@localhost \
        -c init.defaultBranch=main "$@"
}

# main/ (with a secret beside its .git, as a developer's tree has) and the
# worktree pr/ on branch pr; the probes are carried in through the
# worktree, ignored by the common info/exclude.
make_worktree() {
    mkdir -p "$MAIN"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/repos"
    printf 'hello\n' >"$MAIN/a.txt"
    printf 'SECRET=%s\n' "$TAG" >"$MAIN/secret.env"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$MAIN"
    ugit init -q "$MAIN"
    ugit -C "$MAIN" add a.txt
    ugit -C "$MAIN" commit -qm base
    printf '.probes/\n' >>"$MAIN/.git/info/exclude"
    ugit -C "$MAIN" worktree add -q "$CO" -b pr
    mkdir -p "$CO/.probes"
    cp "$RR_BIN/try" "$CO/.probes/"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/.probes"
    chmod -R a+rX "$CO/.probes"
}

# The main repository's .git, names, sizes, modes and bytes.
git_sum() {
    (cd "$MAIN/.git" && find . -printf '%p %y %s %m\n' | LC_ALL=C sort &&
        find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum
}

# review MODE SCRIPT: SCRIPT (sh) as the agent, as root or rootless.
review() {
    local mode=$1 script=$2
    if [ "$mode" = root ]; then
        run "$RR_BIN/revrun" --root "$RR_ROOT" review ${BUNDLE:+--bundle "$BUNDLE"} \
            --lower "$CO" --out "$OUT" -- sh -c "$script"
    else
        run as_user "$RR_BIN/revrun" review ${BUNDLE:+--bundle "$BUNDLE"} \
            --lower "$CO" --out "$OUT" -- sh -c "$script"
    fi
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$OUT/result.json" "$1"
}

manifest_paths() {
    python3 -c "import json,sys; [print(c['path']) for c in json.load(open(sys.argv[1]))['changes']]" \
        "$OUT/changeset/manifest.json"
}

AGENT_ID='export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@localhost GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@localhost'

# Every git command an agent runs, each one's exit status printed.
SESSION="$AGENT_ID
st() { \"\$@\"; echo \"rc \$1 \$2 \$?\"; }
st git status
printf 'fixed\n' >> a.txt
st git diff --stat
st git add a.txt
st git commit -qm 'agent: fix the greeting'
printf 'wip\n' > b.txt
st git stash -u -q
st git stash pop -q
st git log --oneline
echo end"

git_works() {
    local before
    before=$(git_sum)
    review "$1" "$SESSION
$P/try read $MAIN/secret.env; ls -A $MAIN; $P/try read $MAIN/.git/HEAD"
    assert_success
    assert_output_contains "end"
    for c in "git status" "git diff" "git add" "git commit" "git stash" "git log"; do
        grep -q "^agent| rc $c " <<<"$output" || { echo "no $c: $output" >&2; return 1; }
    done
    # every one exited 0
    [ "$(grep -c '^agent| rc git ' <<<"$output")" = 7 ]
    [ "$(grep '^agent| rc git ' <<<"$output" | grep -vc ' 0$')" = 0 ]
    assert_output_contains "agent: fix the greeting"
    # nothing else of the main repository: its secret is not there, its
    # git directory alone is
    grep -qx 'agent| ENOENT' <<<"$output"
    grep -qx 'agent| .git' <<<"$output"
    grep -q '^agent| ok ref: refs/heads/main' <<<"$output"
    [[ "$output" != *"SECRET=$TAG"* ]]
    # the change set: exactly the worktree change
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt b.txt " ]
    grep -qF "its main git directory is shown inside at $MAIN/.git" "$OUT/summary.txt"
    # the agent's commit, listed from that directory's scratch, never applied
    grep -q "on top of the checkout's HEAD" "$OUT/summary.txt"
    grep -qxF '    agent: fix the greeting' "$OUT/summary.txt"
    [ "$(result '["git"]["commits"]["subjects"][0]')" = "agent: fix the greeting" ]
    grep -Eq "^the agent changed [0-9]+ files under .git \(not part of the change set\)$" \
        "$OUT/summary.txt"
    # the host's repository is as it was; no mount is left
    [ "$(git_sum)" = "$before" ]
    [ "$(ugit -C "$MAIN" log --oneline pr | wc -l)" = 1 ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "worktree: git status, diff, add, commit, stash and log work inside; the change set is the worktree's (root)" {
    git_works root
}

@test "worktree: git status, diff, add, commit, stash and log work inside; the change set is the worktree's (rootless)" {
    git_works user
}

refused_by_token() {
    rm -rf "${OUT:?}"/*
    review "$1" "echo ran >a.txt"
    [ "$status" -ne 0 ]
    assert_output_contains "persist-credentials: false"
    assert_output_contains "$2 line "
    [[ "$output" != *"$TAG"* ]] # the line is named, never the secret
    [ ! -e "$OUT/agent.log" ] || ! grep -q . "$OUT/agent.log"
    [ "$(cat "$CO/a.txt")" = hello ]
}

@test "worktree: a token in the main repository's config, or in the worktree's config.worktree, refuses the review (root)" {
    ugit -C "$MAIN" config http.https://github.com/.extraheader "AUTHORIZATION: basic $TAG"
    refused_by_token root "$MAIN/.git/config"
    ugit -C "$MAIN" config --unset-all http.https://github.com/.extraheader
    printf '[http "https://github.com/"] extraheader = AUTHORIZATION: basic %s\n' "$TAG" \
        >"$MAIN/.git/worktrees/pr/config.worktree"
    refused_by_token root "$MAIN/.git/worktrees/pr/config.worktree"
}

@test "worktree: a git-config secret in the main repository's config (sendemail.smtpPass, hub.oauthtoken, a cookie file in the main repository) refuses the review (root)" {
    ugit -C "$MAIN" config sendemail.smtpPass "$TAG"
    refused_by_token root "$MAIN/.git/config"
    assert_output_contains "(git config key sendemail.smtppass)"
    ugit -C "$MAIN" config --unset-all sendemail.smtpPass
    printf '[hub]\n\toauthtoken = %s\n' "$TAG" >"$MAIN/.git/worktrees/pr/config.worktree"
    refused_by_token root "$MAIN/.git/worktrees/pr/config.worktree"
    assert_output_contains "(git config key hub.oauthtoken)"
    rm "$MAIN/.git/worktrees/pr/config.worktree"
    printf 'github.com\tFALSE\t/\tTRUE\t0\tsession\t%s\n' "$TAG" >"$MAIN/.git/cookies"
    ugit -C "$MAIN" config http.https://github.com/.cookieFile "$MAIN/.git/cookies"
    refused_by_token root "$MAIN/.git/config"
    assert_output_contains "a cookie file inside the checkout (git config key http.https://github.com/.cookiefile)"
}

@test "worktree: a token in the main repository's config refuses the review (rootless)" {
    ugit -C "$MAIN" config remote.origin.url "https://x-access-token:$TAG@github.com/o/r"
    refused_by_token user "$MAIN/.git/config"
}

@test "worktree: a token in a file the main repository's config includes, or behind a symlinked config, refuses the review (root)" {
    local url="https://x-access-token:$TAG@github.com/o/r"
    # [include] path, relative to C
    ugit -C "$MAIN" config --file "$MAIN/.git/creds.inc" remote.origin.url "$url"
    ugit -C "$MAIN" config include.path creds.inc
    refused_by_token root "$MAIN/.git/creds.inc"
    assert_output_contains "(included from $MAIN/.git/config line "
    # [includeIf "gitdir:..."] in the worktree's config.worktree
    ugit -C "$MAIN" config --unset include.path
    printf '[includeIf "gitdir:%s/"]\n\tpath = ../../creds.inc\n' "$MAIN" \
        >"$MAIN/.git/worktrees/pr/config.worktree"
    refused_by_token root "$MAIN/.git/worktrees/pr/../../creds.inc"
    rm "$MAIN/.git/worktrees/pr/config.worktree"
    # C/config a symlink to a file in C, absolute as C's place inside
    mv "$MAIN/.git/config" "$MAIN/.git/config.real"
    ugit -C "$MAIN" config --file "$MAIN/.git/config.real" remote.origin.url "$url"
    ln -s "$MAIN/.git/config.real" "$MAIN/.git/config"
    refused_by_token root "$MAIN/.git/config.real"
    assert_output_contains "(linked from $MAIN/.git/config)"
}

@test "worktree: a token in a file the main repository's config includes refuses the review (rootless)" {
    ugit -C "$MAIN" config --file "$MAIN/.git/creds.inc" http.extraheader "AUTHORIZATION: basic $TAG"
    ugit -C "$MAIN" config include.path creds.inc
    refused_by_token user "$MAIN/.git/creds.inc"
}

# Not followed: the review runs as before, git inside fails, and one line
# (in the log and the summary) says why.
not_followed() {
    local mode=$1 why=$2
    review "$mode" "git status; echo \"rc \$?\"; $P/try read $MAIN/.git/HEAD; true"
    assert_success
    assert_output_contains "git will not work inside"
    assert_output_contains "$why"
    grep -q '^agent| rc 128$' <<<"$output"
    grep -qx 'agent| ENOENT' <<<"$output"
    grep -qF "git will not work inside" "$OUT/summary.txt"
    grep -qF "$why" "$OUT/summary.txt"
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "worktree: a back-link naming another worktree's .git is not followed, and the log says why" {
    ugit -C "$MAIN" worktree add -q "$RR_TMP/repos/other" -b other
    printf '%s/repos/other/.git\n' "$RR_TMP" >"$MAIN/.git/worktrees/pr/gitdir"
    not_followed root "names another .git than the checkout's"
}

@test "worktree: a gitfile whose path runs through a symlink is not followed (rootless)" {
    ln -s "$MAIN" "$RR_TMP/mainlink"
    printf 'gitdir: %s/mainlink/.git/worktrees/pr\n' "$RR_TMP" >"$CO/.git"
    chown -h "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/.git"
    not_followed user "a symlink on the way"
}

@test "worktree: a worktree git directory owned by another user is not followed (root)" {
    chown 0:0 "$MAIN/.git/worktrees/pr"
    not_followed root "is owned by uid 0, not by the checkout's owner (uid $REVRUN_TEST_UID)"
}

@test "worktree: a git directory that is not the common one's worktrees/NAME is not followed" {
    # a worktree-looking directory elsewhere whose commondir and back-link are right
    mkdir -p "$RR_TMP/elsewhere"
    cp -a "$MAIN/.git/worktrees/pr" "$RR_TMP/elsewhere/pr"
    printf '%s/.git\n' "$MAIN" >"$RR_TMP/elsewhere/pr/commondir"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/elsewhere"
    printf 'gitdir: %s/elsewhere/pr\n' "$RR_TMP" >"$CO/.git"
    not_followed root "is not the common git directory's worktrees/pr"
}

@test "worktree: the agent replacing or editing the gitfile .git is still refused" {
    review root "printf 'gitdir: /elsewhere\n' > .git; echo x >> a.txt"
    [ "$status" -eq 5 ]
    [ "$(result '["verdict"]')" = refuse ]
    grep -q '\.git' "$OUT/summary.txt"
}

# A gitfile naming its git directory relative to the checkout (as
# `git worktree add --relative-paths` writes it): inside, git resolves it
# from the checkout's place (/workspace), so C is shown where that leads
# (/main/.git, in the container's own root, writable there by Landlock).
relative_gitfile() {
    local name=$1
    if [ "$name" != main ]; then
        mv "$MAIN" "$RR_TMP/repos/$name"
        MAIN="$RR_TMP/repos/$name"
    fi
    printf 'gitdir: ../%s/.git/worktrees/pr\n' "$name" >"$CO/.git"
    chown -h "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/.git"
}

@test "worktree: a gitfile with a relative path: git works inside, C shown where it leads (rootless)" {
    relative_gitfile main
    review user "$AGENT_ID
git status && echo more >> a.txt && git add -A && git commit -qm 'agent: relative' && git log --oneline && echo end"
    assert_success
    assert_output_contains "end"
    assert_output_contains "agent: relative"
    grep -qF "its main git directory is shown inside at /main/.git" "$OUT/summary.txt"
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "worktree: a git directory that would lie where revrun builds the container (/etc) is not shown, and why" {
    relative_gitfile etc
    not_followed root "it would lie in /etc, which revrun builds itself"
}

# The other checkouts' uncommitted work (review3 R6). Another worktree,
# hotfix, has a staged, uncommitted file; the main checkout has a stash and
# a staged file of its own. Inside, C/worktrees holds only pr, and C/index,
# C/refs/stash, C/logs/refs/stash are absent: no name, blob id, content or
# host path of that work reaches the agent through them, and git still
# works (the agent's own stash lands in scratch). Objects are not filtered
# (THREAT_MODEL: anything ever staged or stashed is in the object store):
# the agent here names the files, it does not list every object.
others_hidden() {
    local mode=$1 other="$RR_TMP/repos/hotfix" C="$MAIN/.git" ids before
    ugit -C "$MAIN" worktree add -q "$other" -b hotfix
    printf 'DB_PASSWORD=staged-in-hotfix-%s\n' "$TAG" >"$other/prod.env"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$other/prod.env"
    ugit -C "$other" add prod.env
    printf 'API_KEY=stashed-in-main-%s\n' "$TAG" >>"$MAIN/a.txt"
    ugit -C "$MAIN" stash -q
    printf 'TOKEN=staged-in-main-%s\n' "$TAG" >"$MAIN/main.env"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$MAIN/main.env"
    ugit -C "$MAIN" add main.env
    # what would name that work: the staged blobs, the stash commit
    ids="$(ugit -C "$other" rev-parse :prod.env) $(ugit -C "$MAIN" rev-parse :main.env)
$(ugit -C "$MAIN" rev-parse stash)"
    before=$(git_sum)
    # (read before the session: the agent's own stash and pop rewrite refs/stash)
    review "$mode" "echo \"stashes before: \$(git stash list | wc -l)\"
echo \"worktrees: \$(ls -A $C/worktrees | tr '\n' ' ')\"
for f in index refs/stash logs/refs/stash worktrees/hotfix/gitdir worktrees/hotfix/index; do
    printf '%s ' \$f; $P/try read $C/\$f
done
GIT_INDEX_FILE=$C/worktrees/hotfix/index git ls-files -s
GIT_INDEX_FILE=$C/index git ls-files -s
git show stash@{0} refs/stash; git log -g --oneline refs/stash
$SESSION
echo \"stashes after: \$(git stash list | wc -l)\"; true"
    assert_success
    assert_output_contains "end"
    [ "$(grep -c '^agent| rc git ' <<<"$output")" = 7 ]
    [ "$(grep '^agent| rc git ' <<<"$output" | grep -vc ' 0$')" = 0 ]
    assert_output_contains "agent: fix the greeting"
    grep -qx 'agent| stashes before: 0' <<<"$output"
    grep -qx 'agent| stashes after: 0' <<<"$output"
    grep -qx 'agent| worktrees: pr ' <<<"$output"
    for f in index refs/stash logs/refs/stash worktrees/hotfix/gitdir worktrees/hotfix/index; do
        grep -qx "agent| $f ENOENT" <<<"$output" || { echo "$f readable: $output" >&2; return 1; }
    done
    [[ "$output" != *"staged-in-hotfix-$TAG"* ]]
    [[ "$output" != *"stashed-in-main-$TAG"* ]]
    [[ "$output" != *"staged-in-main-$TAG"* ]]
    [[ "$output" != *"$other"* ]]
    [[ "$output" != *"prod.env"* && "$output" != *"main.env"* ]]
    for id in $ids; do
        [[ "$output" != *"$id"* ]] || { echo "$id shown: $output" >&2; return 1; }
    done
    # the summary says what is shown and what is not
    grep -qF "anything ever staged or stashed in any worktree is readable" "$OUT/summary.txt"
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt b.txt " ]
    # the host's repository is as it was (its stash, both indexes); no mount is left
    [ "$(git_sum)" = "$before" ]
    [ "$(ugit -C "$MAIN" stash list | wc -l)" = 1 ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "worktree: other worktrees, the main checkout's index and stash are not readable inside; git works (root)" {
    others_hidden root
}

@test "worktree: other worktrees, the main checkout's index and stash are not readable inside; git works (rootless)" {
    others_hidden user
}

# revrun.git.worktree "hide": C is not shown at all, as before worktree
# support: git fails inside and the log and summary say why.
# hide_bundle VALUE [root|user]: a bundle whose config sets it.
hide_bundle() {
    BUNDLE="$RR_TMP/bundle"
    mkdir -p "$BUNDLE"
    if [ "${2:-root}" = user ]; then # the rootless spec (no cgroup limits it cannot set)
        as_user "$RR_BIN/revrun" spec --lower "$CO" >"$BUNDLE/config.json"
    else
        "$RR_BIN/revrun" spec --lower "$CO" >"$BUNDLE/config.json"
    fi
    python3 - "$BUNDLE/config.json" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["revrun"]["git"] = {"worktree": sys.argv[2]}
c["linux"].pop("cgroupsPath", None)  # review names the container's group itself
json.dump(c, open(sys.argv[1], "w"))
PY
    chmod -R a+rX "$BUNDLE"
}

@test "worktree: revrun.git.worktree \"hide\" shows no git directory of the main repository (root)" {
    hide_bundle hide
    not_followed root 'revrun.git.worktree is "hide"'
}

@test "worktree: revrun.git.worktree \"hide\" shows no git directory of the main repository (rootless)" {
    hide_bundle hide user
    not_followed user 'revrun.git.worktree is "hide"'
}

@test "worktree: revrun.git.worktree other than show or hide is refused" {
    hide_bundle off
    review root "echo ran"
    [ "$status" -ne 0 ]
    assert_output_contains 'revrun.git.worktree: "off" is not one of the accepted values'
    [[ "$output" != *"agent| ran"* ]]
}

@test "worktree: with fuse-overlayfs serving the checkout (revrun.overlay \"fuse\") C is not shown, and why" {
    mkdir -p "$RR_TMP/bundle/rootfs"
    "$RR_BIN/revrun" spec --lower "$CO" >"$RR_TMP/bundle/config.json"
    python3 - "$RR_TMP/bundle/config.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["revrun"]["overlay"] = "fuse"
json.dump(c, open(p, "w"))
PY
    run "$RR_BIN/revrun" --root "$RR_ROOT" review --bundle "$RR_TMP/bundle" --lower "$CO" \
        --out "$OUT" -- sh -c "git status; echo \"rc \$?\"; $P/try read $MAIN/.git/HEAD; true"
    assert_success
    assert_output_contains "git will not work inside"
    assert_output_contains "kernel overlayfs only"
    grep -q '^agent| rc 128$' <<<"$output"
    grep -qx 'agent| ENOENT' <<<"$output"
    grep -qF "kernel overlayfs only" "$OUT/summary.txt"
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}
