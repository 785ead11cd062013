#!/usr/bin/env bats
# The operator's decision in git: `apply --commit` turns an approved change
# set into a commit whose parent is the commit the review ran on, on a new
# branch, written into the repository's object store while the operator's
# worktree, index, HEAD and stash stay as they were; refusals write nothing;
# --only/--exclude apply exactly the part named, and a broken part is
# refused; a plain apply onto a tree at another commit names the commit the
# set was made on. Real repositories made here; root and rootless. Judged
# from the outside: git's own view of the repository.

load helpers
load wb_helpers

setup() {
    rr_setup_tmp
    CO="$RR_TMP/checkout"
    OP="$RR_TMP/operator"
    OUT="$RR_TMP/out"
    mkdir -p "$OUT"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT" "$RR_TMP"
    make_checkout "$CO"
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    rr_destroy_all
    "$RR_BIN/revrun" --root "$RR_ROOT" sweep >/dev/null 2>&1 || true
    rr_teardown_tmp
}

# git as the test identity (a user's repository is theirs).
ugit() {
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        env HOME="$RR_TMP" git -c init.defaultBranch=main "$@"
}

# The reviewed checkout: text, a script, a symlink, a binary, nested
# directories; one commit.
make_checkout() {
    local d=$1
    mkdir -p "$d/src" "$d/docs/old"
    printf 'hello\n' >"$d/a.txt"
    printf 'int lib;\n' >"$d/src/lib.c"
    printf '#!/bin/sh\necho hi\n' >"$d/run.sh"
    chmod +x "$d/run.sh"
    printf 'old\n' >"$d/docs/old/a.txt"
    printf 'bin\000ary\001' >"$d/blob.bin"
    printf 'crlf\r\nline\r\n' >"$d/w.txt"
    ln -s a.txt "$d/link"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$d"
    ugit init -q "$d"
    ugit -C "$d" add -A
    ugit -C "$d" -c user.name=owner -c user.email=owner@localhost commit -qm base
    BASE=$(ugit -C "$d" rev-parse HEAD)
}

# The operator's clone, in the middle of their own work: a change staged,
# another not, a stash entry, an untracked file; their identity in its
# config.
make_operator() {
    ugit clone -q "$CO" "$OP"
    ugit -C "$OP" config user.name Operator
    ugit -C "$OP" config user.email operator@localhost
    printf 'stashed\n' >>"$OP/src/lib.c"
    ugit -C "$OP" stash -q
    printf 'staged\n' >>"$OP/a.txt"
    ugit -C "$OP" add a.txt
    printf 'unstaged\n' >>"$OP/run.sh"
    printf 'mine\n' >"$OP/untracked.txt"
}

# Everything of the operator's that apply --commit must leave alone.
operator_state() {
    (cd "$OP" && find . -path ./.git -prune -o -printf '%y %m %s %p -> %l\n' | LC_ALL=C sort &&
        find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
    sha256sum "$OP/.git/index" "$OP/.git/HEAD"
    ugit -C "$OP" rev-parse HEAD
    ugit -C "$OP" stash list --format='%H %s'
    ugit -C "$OP" status --porcelain
}

# Objects and refs: what a refusal must not change.
store_state() {
    ugit -C "$1" count-objects -v
    ugit -C "$1" for-each-ref --format='%(refname) %(objectname)'
    (cd "$1/.git" && find refs logs -printf '%y %p\n' 2>/dev/null | LC_ALL=C sort)
}

AGENT_ID='export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@localhost GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@localhost'

# The agent commits twice: a fix, then new files, a mode change, a symlink
# retargeted, a binary rewritten, a directory removed. It prints its own
# tree and diff, to be compared with what the commit holds.
TWO_COMMITS="set -e; $AGENT_ID
printf 'fixed\n' >> a.txt
git add a.txt
git commit -qm 'agent: fix the greeting' -m 'The greeting lacked a line.'
printf 'new\n' > docs/new.md
mkdir -p tools; printf '#!/bin/sh\necho t\n' > tools/t.sh; chmod +x tools/t.sh
chmod -x run.sh
rm link; ln -s src/lib.c link
printf 'bin\000new\001\002' > blob.bin
git rm -q -r docs/old
git add -A
git commit -qm 'agent: add notes and a tool'
echo AGENT_TREE=\$(git rev-parse HEAD^{tree})
echo ===DIFF===; git diff --binary HEAD~2 HEAD; echo ===END==="

review() {
    local mode=$1 script=$2
    if [ "$mode" = root ]; then
        run "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$CO" --out "$OUT" -- sh -c "$script"
    else
        run as_user "$RR_BIN/revrun" review --lower "$CO" --out "$OUT" -- sh -c "$script"
    fi
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$OUT/result.json" "$1"
}

# revrun as root, or as the test identity for mode "user".
rv() {
    local mode=$1
    shift
    if [ "$mode" = root ]; then
        "$RR_BIN/revrun" "$@"
    else
        as_user "$RR_BIN/revrun" "$@"
    fi
}

two_commits_as_a_branch() {
    local mode=$1 digest id before branch tip
    review "$mode" "$TWO_COMMITS"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    digest=$(result '["digest"]')
    id=$(result '["id"]')
    # the base is part of the set, bound by the digest
    [ "$(result '["base"]["commit"]')" = "$BASE" ]
    [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["base"]["commit"])' \
        "$OUT/changeset/manifest.json")" = "$BASE" ]
    grep -qx "base: commit $BASE (tree $(ugit -C "$CO" rev-parse HEAD^{tree})), the checkout's HEAD" \
        "$OUT/summary.txt"
    make_operator
    before=$(operator_state)
    touch "$RR_TMP/marker"
    sleep 0.01
    run rv "$mode" apply "$OUT/changeset" --to "$OP" --approve "$digest" --commit
    assert_success
    branch="revrun/$id"
    tip=$(ugit -C "$OP" rev-parse "refs/heads/$branch")
    [ "$output" = "$branch $tip" ]
    # one commit on the base, its tree the agent's own, byte for byte
    [ "$(ugit -C "$OP" rev-parse "$tip^")" = "$BASE" ]
    [ "$(ugit -C "$OP" rev-list --count "$BASE..$tip")" = 1 ]
    [ "$(ugit -C "$OP" rev-parse "$tip^{tree}")" = "$(sed -n 's/^AGENT_TREE=//p' "$OUT/agent.log")" ]
    diff <(sed -n '/^===DIFF===$/,/^===END===$/p' "$OUT/agent.log" | sed '1d;$d') \
        <(ugit -C "$OP" diff --binary "$BASE" "$tip")
    [ "$(ugit -C "$OP" ls-tree "$tip" run.sh | cut -c1-6)" = 100644 ]
    [ "$(ugit -C "$OP" ls-tree "$tip" tools/t.sh | cut -c1-6)" = 100755 ]
    [ "$(ugit -C "$OP" ls-tree "$tip" link | cut -c1-6)" = 120000 ]
    [ -z "$(ugit -C "$OP" ls-tree -r "$tip" docs/old)" ]
    # the message: the agent's subjects and body, the trailers; the operator
    # is author and committer, never the agent
    ugit -C "$OP" log -1 --format=%B "$tip" >"$RR_TMP/msg"
    [ "$(head -1 "$RR_TMP/msg")" = "agent: fix the greeting" ]
    grep -qx '\* agent: add notes and a tool' "$RR_TMP/msg"
    grep -qx '    The greeting lacked a line.' "$RR_TMP/msg"
    [ "$(ugit -C "$OP" log -1 --format='%(trailers:key=Revrun-Digest,valueonly)' "$tip")" = \
        "sha256:$digest" ]
    [ "$(ugit -C "$OP" log -1 --format='%(trailers:key=Revrun-Review,valueonly)' "$tip")" = "$id" ]
    [ "$(ugit -C "$OP" log -1 --format='%an <%ae> / %cn <%ce>' "$tip")" = \
        "Operator <operator@localhost> / Operator <operator@localhost>" ]
    # the operator's worktree, index, HEAD, current branch and stash: as they were
    [ "$(operator_state)" = "$before" ]
    [ "$(ugit -C "$OP" symbolic-ref HEAD)" = refs/heads/main ]
    # what was written is the owner's: their git goes on working
    [ -z "$(find "$OP/.git" -newer "$RR_TMP/marker" ! -user "$REVRUN_TEST_UID")" ]
    ugit -C "$OP" fsck --no-dangling
    ugit -C "$OP" -c user.name=o -c user.email=o@x commit -q --allow-empty -m "still mine"
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "commit: two agent commits become one commit on the base, the operator's state untouched (root onto a user's clone)" {
    two_commits_as_a_branch root
}

@test "commit: two agent commits become one commit on the base, the operator's state untouched (rootless)" {
    two_commits_as_a_branch user
}

# A reviewed set and the operator's clone, for the tests below.
reviewed() {
    review "${1:-root}" "${2:-$TWO_COMMITS}"
    assert_success
    DIGEST=$(result '["digest"]')
    ID=$(result '["id"]')
    make_operator
}

@test "commit: the base missing from the repository is refused, nothing written" {
    reviewed
    # a repository that never held the base commit
    mkdir "$RR_TMP/elsewhere"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/elsewhere"
    ugit init -q "$RR_TMP/elsewhere"
    printf 'x\n' >"$RR_TMP/elsewhere/x"
    ugit -C "$RR_TMP/elsewhere" add x
    ugit -C "$RR_TMP/elsewhere" -c user.name=o -c user.email=o@x commit -qm other
    before=$(store_state "$RR_TMP/elsewhere")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/elsewhere" --approve "$DIGEST" \
        --commit --author "Op <op@x>"
    [ "$status" -eq 6 ]
    assert_output_contains "the set was made on commit $BASE, which $RR_TMP/elsewhere does not hold"
    assert_output_contains "nothing written"
    [ "$(store_state "$RR_TMP/elsewhere")" = "$before" ]
}

@test "commit: an existing branch (or one in its way) is refused, nothing written" {
    reviewed
    ugit -C "$OP" branch "revrun/$ID" "$BASE"
    before=$(store_state "$OP")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit
    [ "$status" -eq 6 ]
    assert_output_contains "the branch revrun/$ID exists already"
    [ "$(store_state "$OP")" = "$before" ]
    # a branch named like the new one's directory
    ugit -C "$OP" branch work "$BASE"
    before=$(store_state "$OP")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --branch work/fix
    [ "$status" -eq 6 ]
    assert_output_contains "the branch work is in the way of work/fix"
    [ "$(store_state "$OP")" = "$before" ]
    # a wrong digest: nothing either
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$(echo "$DIGEST" | tr 0-9a-f 1-9a-f0)" --commit \
        --branch other
    [ "$status" -eq 7 ]
    [ "$(store_state "$OP")" = "$before" ]
    # with a free name it goes
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --branch fix/one --author "Someone <someone@localhost>"
    assert_success
    [ "$(ugit -C "$OP" log -1 --format='%an <%ae> / %cn' fix/one)" = \
        "Someone <someone@localhost> / Operator" ]
}

@test "commit: a symlink where git would write is refused, nothing written" {
    reviewed
    mkdir "$RR_TMP/elsewhere"
    ln -s "$RR_TMP/elsewhere" "$OP/.git/refs/heads/revrun"
    before=$(store_state "$OP")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit
    [ "$status" -eq 6 ]
    assert_output_contains "refs/heads/revrun in the git directory is a symlink"
    [ "$(store_state "$OP")" = "$before" ]
    [ -z "$(ls -A "$RR_TMP/elsewhere")" ]
}

@test "commit: a checkout that differed from its HEAD is refused for --commit; files apply names the base commit" {
    # uncommitted work in the reviewed checkout, which the agent then changes
    printf 'dirty\n' >>"$CO/src/lib.c"
    review root "printf 'agent\n' >> src/lib.c; printf 'n\n' > n.txt"
    assert_success
    DIGEST=$(result '["digest"]')
    make_operator
    before=$(store_state "$OP")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit
    [ "$status" -eq 6 ]
    assert_output_contains "conflict: src/lib.c: the base commit holds other content"
    assert_output_contains "the base commit $BASE does not hold the base of 1 path"
    [ "$(store_state "$OP")" = "$before" ]
    # as files, onto a tree at another commit that still holds every base
    # (the checkout itself, one commit on): applied, and the commit named
    ugit -C "$CO" -c user.name=o -c user.email=o@x commit -qam "more work"
    cp -a "$CO" "$RR_TMP/target"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/target" --approve "$DIGEST"
    assert_success
    assert_output_contains "the set was made on commit $BASE; TARGET is at commit $(ugit -C "$CO" rev-parse HEAD)"
    [ "$(cat "$RR_TMP/target/n.txt")" = n ]
    # one whose file differs: refused, with the commit the set was made on
    cp -a "$CO" "$RR_TMP/target2"
    printf 'theirs\n' >"$RR_TMP/target2/src/lib.c"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/target2" --approve "$DIGEST"
    [ "$status" -eq 6 ]
    assert_output_contains "the set was made on commit $BASE; TARGET is at commit"
    [ ! -e "$RR_TMP/target2/n.txt" ]
}

@test "part: --only and --exclude apply exactly the part, as a commit and as files; a broken part is refused" {
    reviewed
    # as a commit: only the new notes and the tool
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --branch part --only docs/new.md --only 'tools'
    assert_success
    [ "$(ugit -C "$OP" diff --name-status "$BASE" part | tr '\t' ' ')" = \
        "$(printf 'A docs/new.md\nA tools/t.sh')" ]
    ugit -C "$OP" log -1 --format=%B part >"$RR_TMP/msg"
    grep -q '^Left out of this commit (approved with the set, not applied): 6 changes$' "$RR_TMP/msg"
    grep -qx '    modify     a.txt' "$RR_TMP/msg"
    [ "$(ugit -C "$OP" log -1 --format='%(trailers:key=Revrun-Digest,valueonly)' part)" = \
        "sha256:$DIGEST" ]
    # as files: all but the binary and the docs
    cp -a "$CO" "$RR_TMP/target"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/target" --approve "$DIGEST" \
        --exclude '*.bin' --exclude docs
    assert_success
    [ "$(cat "$RR_TMP/target/a.txt")" = "$(printf 'hello\nfixed')" ]
    [ -x "$RR_TMP/target/tools/t.sh" ] && [ ! -x "$RR_TMP/target/run.sh" ] || false
    cmp "$RR_TMP/target/blob.bin" "$CO/blob.bin"
    [ -e "$RR_TMP/target/docs/old/a.txt" ] && [ ! -e "$RR_TMP/target/docs/new.md" ] || false
    # broken: a new directory's file without the directory; a removed
    # directory while its file stays; nothing written either way
    before=$(store_state "$OP")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --branch broken --only tools/t.sh
    [ "$status" -eq 2 ]
    assert_output_contains "tools/t.sh: it lies in the directory tools that the set makes (dir-add), which is left out"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --branch broken --only docs/old --exclude docs/old/a.txt
    [ "$status" -eq 2 ]
    assert_output_contains "docs/old: the set removes this directory (dir-delete), but docs/old/a.txt under it is left out"
    [ "$(store_state "$OP")" = "$before" ]
    cp -a "$CO" "$RR_TMP/target3"
    before=$(store_state "$RR_TMP/target3")
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/target3" --approve "$DIGEST" \
        --only tools/t.sh
    [ "$status" -eq 2 ]
    [ ! -e "$RR_TMP/target3/tools" ]
    # a pattern that names nothing is said
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --only nope
    [ "$status" -eq 2 ]
    assert_output_contains "--only nope: no change of the set matches it"
}

@test "part: half of a rename is refused" {
    reviewed root "git mv -f docs/old/a.txt moved.txt 2>/dev/null || mv docs/old/a.txt moved.txt"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --only moved.txt
    [ "$status" -eq 2 ]
    assert_output_contains "moved.txt: it and docs/old/a.txt hold the same content (one half of a rename)"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit \
        --only moved.txt --only docs/old
    assert_success
}

# For the mail: a subject git am must decode, a body that holds a patch of
# its own and lines git am would take for the end of the message or for
# headers, a file with CRLF lines, a binary, a file replaced by a
# directory and a directory by a file.
MAIL_AGENT="set -e; $AGENT_ID
evil=\$(printf 'From: Mallory <m@x>\\n\\ndiff --git a/evil.txt b/evil.txt\\nnew file mode 100644\\n--- /dev/null\\n+++ b/evil.txt\\n@@ -0,0 +1 @@\\n+evil\\n---\\nIndex: x')
printf 'fixed\\n' >> a.txt
git add a.txt
git commit -qm \"\$(printf 'agent: caf\\303\\251 fix')\" -m \"\$evil\"
printf 'crlf\\r\\nchanged\\r\\n' > w.txt
printf 'bin\\000new\\001\\002' > blob.bin
git rm -q -r docs/old; mkdir -p docs; printf 'now a file\\n' > docs/old
rm run.sh; mkdir run.sh; printf 'in\\n' > run.sh/in
chmod +x src/lib.c
git add -A
git commit -qm 'agent: reshape'
echo AGENT_TREE=\$(git rev-parse HEAD^{tree})"

# git am on a fresh clone at the base, as the test identity.
am_onto_fresh() {
    rm -rf "$RR_TMP/fresh"
    ugit clone -q "$CO" "$RR_TMP/fresh"
    ugit -C "$RR_TMP/fresh" -c user.name=Applier -c user.email=applier@localhost am -q "$1"
}

mail_applies() {
    local mode=$1 tree
    review "$mode" "$MAIL_AGENT"
    assert_success
    DIGEST=$(result '["digest"]')
    tree=$(sed -n 's/^AGENT_TREE=//p' "$OUT/agent.log")
    [ -n "$tree" ]
    rv "$mode" export "$OUT/changeset" --format mbox --author "Mail Author <mail@localhost>" \
        >"$RR_TMP/mail.mbox"
    chmod a+r "$RR_TMP/mail.mbox"
    am_onto_fresh "$RR_TMP/mail.mbox"
    [ "$(ugit -C "$RR_TMP/fresh" rev-parse HEAD^{tree})" = "$tree" ]
    [ "$(ugit -C "$RR_TMP/fresh" rev-parse HEAD^)" = "$BASE" ]
    [ ! -e "$RR_TMP/fresh/evil.txt" ]
    [ "$(ugit -C "$RR_TMP/fresh" log -1 --format='%an <%ae>|%s')" = \
        "Mail Author <mail@localhost>|$(printf 'agent: caf\303\251 fix')" ]
    [ "$(ugit -C "$RR_TMP/fresh" log -1 --format='%(trailers:key=Revrun-Digest,valueonly)')" = \
        "sha256:$DIGEST" ]
    ugit -C "$RR_TMP/fresh" log -1 --format=%B | grep -qx '    diff --git a/evil.txt b/evil.txt'
    # the same commit apply --commit writes: tree and message
    make_operator
    run rv "$mode" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit --branch mail
    assert_success
    [ "$(ugit -C "$OP" rev-parse mail^{tree})" = "$tree" ]
    diff <(ugit -C "$OP" log -1 --format=%B mail) <(ugit -C "$RR_TMP/fresh" log -1 --format=%B)
    # a part: the mail of --exclude is the commit of --exclude
    rv "$mode" export "$OUT/changeset" --format mbox --author "M <m@x>" --exclude '*.bin' \
        >"$RR_TMP/part.mbox"
    chmod a+r "$RR_TMP/part.mbox"
    am_onto_fresh "$RR_TMP/part.mbox"
    run rv "$mode" apply "$OUT/changeset" --to "$OP" --approve "$DIGEST" --commit --branch part \
        --exclude '*.bin'
    assert_success
    [ "$(ugit -C "$OP" rev-parse part^{tree})" = "$(ugit -C "$RR_TMP/fresh" rev-parse HEAD^{tree})" ]
    [ "$(ugit -C "$RR_TMP/fresh" rev-parse HEAD:blob.bin)" = "$(ugit -C "$CO" rev-parse HEAD:blob.bin)" ]
}

@test "mbox: the export as a mail git am applies on a fresh clone: the agent's tree, apply --commit's message (root)" {
    mail_applies root
}

@test "mbox: the export as a mail git am applies on a fresh clone: the agent's tree, apply --commit's message (rootless)" {
    mail_applies user
}

@test "mbox: diff --mbox of a live pair is the mail of its export" {
    WB="$RR_TMP/wb"
    mkdir -p "$WB"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB"
    ugit clone -q "$CO" "$WB/lower"
    wb_agent root "printf 'x\\n' >> a.txt && printf 'bin\\000z' > blob.bin && rm link && mkdir n && echo n > n/n"
    run "$RR_BIN/revrun" diff --mbox $(wb_pair) --author "Op <op@localhost>"
    assert_success
    printf '%s\n' "$output" >"$RR_TMP/live.mbox"
    chmod a+r "$RR_TMP/live.mbox"
    am_onto_fresh "$RR_TMP/live.mbox"
    run "$RR_BIN/revrun" export $(wb_pair) "$WB/out"
    assert_success
    make_operator
    run "$RR_BIN/revrun" apply "$WB/out" --to "$OP" --approve "$(wb_digest)" --commit
    assert_success
    [ "$(ugit -C "$OP" rev-parse "${output%% *}^{tree}")" = \
        "$(ugit -C "$RR_TMP/fresh" rev-parse HEAD^{tree})" ]
    # no author known: refused, and said how to give one
    run env HOME="$RR_TMP/nohome" "$RR_BIN/revrun" diff --mbox $(wb_pair)
    [ "$status" -eq 1 ]
    assert_output_contains 'pass --author "Name <email>"'
}

@test "base: read from a checkout whose history and refs are packed (git gc), and none from one at no commit" {
    ugit -C "$CO" gc -q
    [ -z "$(find "$CO/.git/objects" -mindepth 1 -maxdepth 1 -name '??' -type d ! -empty)" ]
    [ ! -e "$CO/.git/refs/heads/main" ]
    review root "printf 'x\n' >> a.txt"
    assert_success
    [ "$(result '["base"]["commit"]')" = "$BASE" ]
    [ "$(result '["base"]["tree"]')" = "$(ugit -C "$CO" rev-parse HEAD^{tree})" ]
    # a repository with no commit yet: no base, and --commit says why
    rm -rf "$CO" "$OUT"
    mkdir -p "$CO" "$OUT"
    printf 'a\n' >"$CO/a.txt"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO" "$OUT"
    ugit init -q "$CO"
    review root "printf 'x\n' >> a.txt"
    assert_success
    grep -q "^base: none recorded (HEAD names no commit" "$OUT/summary.txt"
    ugit init -q "$RR_TMP/r"
    run "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/r" --approve "$(result '["digest"]')" \
        --commit --author "O <o@x>"
    [ "$status" -eq 6 ]
    assert_output_contains "the set records no base commit"
}
