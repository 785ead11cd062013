#!/usr/bin/env bats
# Write-back reading git's formats as an attacker shapes them: an agent
# index with a 200,000-level cache tree or expanding to ~450 MiB of paths,
# ignore rules in deleted or replaced directories, a worktree's gitfile
# (followed only to this checkout's git directory), commits the agent
# packed or repacked, more packs than revrun opens, the shadow a crashed
# vet leaves, and the checkout's warmers. Root and rootless; judged from
# result.json, summary.txt, the manifest and the process table.

load writeback_git_helpers

# review3 R7: an agent index whose cache-tree extension nests 200,000
# levels (libgit2 recursed once a level: the vet crashed) still gives a
# verdict: extensions are skipped unread. Its one entry, forced.o, counts.
DEEP_INDEX='set -e; printf "y\n" > x.o; printf "f\n" > forced.o; printf "new\n" > a.txt
chmod u+w .git/index; python3 - .git/index <<"PY"
import hashlib, struct, sys
ext = b"d\0-1 1\n" * 200000 + b"d\0-1 0\n"
e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0) + b"\0" * 20
e += struct.pack(">H", 8) + b"forced.o"
e += b"\0" * ((62 + 8 + 8) // 8 * 8 - 62 - 8)
d = b"DIRC" + struct.pack(">II", 2, 1) + e + b"TREE" + struct.pack(">I", len(ext)) + ext
open(sys.argv[1], "wb").write(d + hashlib.sha1(d).digest())
PY'

deep_cache_tree() {
    review "$1" "$DEEP_INDEX"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt forced.o " ]
    grep -qxF "    x.o" "$OUT/summary.txt"
}

@test "git: an agent index with a 200,000-level cache tree gives a verdict (root)" {
    deep_cache_tree root
}

@test "git: an agent index with a 200,000-level cache tree gives a verdict (rootless)" {
    deep_cache_tree user
}

# review3 R3: an 8 MB index v4 whose ~117,000 paths of ~4,000 bytes each
# (~450 MiB expanded; libgit2 allocated them all) is read by the vet under a
# 160 MiB address-space cap (plain build: an ASan one reserves terabytes),
# and its last entry, forced.o, counts. Vetted as `revrun diff` of the
# checkout and an upper made here: the cap is on the vet alone.
@test "git: an agent index v4 of 8 MB expanding to ~450 MiB of paths is read in bounded memory" {
    local up="$RR_TMP/upper"
    mkdir -p "$up/.git"
    printf 'y\n' >"$up/x.o"
    printf 'f\n' >"$up/forced.o"
    python3 - "$up/.git/index" 8000000 <<'PY'
import hashlib, struct, sys
out, size = sys.argv[1], int(sys.argv[2])
head = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0) + b"\0" * 20 + struct.pack(">H", 0xfff)
first = b"d/" + b"a" * 3994 + b"AAAA"
body = [head + b"\0" + first + b"\0"]
n = min((size - 32) // 72, 26 ** 4 - 1)
for i in range(1, n):
    s = bytes(65 + (i // 26 ** k) % 26 for k in (3, 2, 1, 0))
    body.append(head + b"\4" + s + b"\0")
def varint(v):  # git's offset varint
    b = [v & 127]
    while v >> 7:
        v = (v >> 7) - 1
        b.insert(0, 128 | (v & 127))
    return bytes(b)
body.append(head + varint(len(first)) + b"forced.o\0")
d = b"DIRC" + struct.pack(">II", 4, n + 1) + b"".join(body)
open(out, "wb").write(d + hashlib.sha1(d).digest())
PY
    [ "$(stat -c %s "$up/.git/index")" -gt 7000000 ]
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$up"
    if ldd "$RR_BIN/revrun" 2>/dev/null | grep -q libasan; then
        run "$RR_BIN/revrun" diff --json --lower "$CO" --upper "$up" --format overlay
    else
        run prlimit --as=$((160 << 20)) "$RR_BIN/revrun" diff --json --lower "$CO" --upper "$up" --format overlay
    fi
    assert_success
    printf '%s' "$output" >"$RR_TMP/diff.json"
    python3 - "$RR_TMP/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
paths = sorted(c["path"] for c in d["changes"])
assert paths == ["forced.o"], paths
assert d["verdict"] == "accept", d["verdict"]
assert not d["git"].get("note"), d["git"].get("note")
PY
}

@test "git: an ignored untracked file under a directory the agent replaced is no change either" {
    mkdir -p "$CO/build"
    printf 'y\n' >"$CO/build/y.o"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/build"
    # rm -rf then mkdir: an opaque directory; its hidden old contents are judged one by one
    review root 'set -e; rm -rf src; mkdir src; printf "int lib2;\n" > src/lib.c; rm -rf build; mkdir build'
    assert_success
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "src/.gitignore src/lib.c " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 1 ]
    grep -qxF "    build/y.o" "$OUT/summary.txt"
}

# out/ holds a tracked .gitignore ("*", "!.gitignore": everything else in
# it is build output) and untracked output only that file ignores. The
# agent's `rm -rf out` removes the rule from the merged view with the
# files: they are judged by the checkout's rules, those that applied while
# they existed, so they stay the operator's; the tracked .gitignore's
# deletion is a change, and out/ stays, holding them (git has no
# directories).
deleted_dir_rules() {
    mkdir -p "$CO/out/cache"
    printf '*\n!.gitignore\n' >"$CO/out/.gitignore"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/out"
    ugit -C "$CO" add out/.gitignore
    ugit -C "$CO" commit -qm out
    printf '<html>\n' >"$CO/out/report.html"
    printf 'blob\n' >"$CO/out/cache/blob"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/out"
    review "$1" 'set -e; rm -rf out; printf "new\n" > a.txt'
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt out/.gitignore " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 2 ]
    grep -qxF "    out/report.html" "$OUT/summary.txt"
    grep -qxF "    out/cache/ (1 file)" "$OUT/summary.txt"
    apply_to_copy
    [ ! -e "$RR_TMP/target/out/.gitignore" ]
    [ "$(cat "$RR_TMP/target/out/report.html")" = '<html>' ]
    [ "$(cat "$RR_TMP/target/out/cache/blob")" = blob ]
}

@test "git: a .gitignore inside a directory the agent deleted still judges what it held (root)" {
    deleted_dir_rules root
}

@test "git: a .gitignore inside a directory the agent deleted still judges what it held (rootless)" {
    deleted_dir_rules user
}

# The agent's edit of the rules does not judge a deletion: old.o was build
# output while it existed (the checkout's *.o), notes.txt was the operator's
# untracked work, whatever rule the agent adds for it.
@test "git: a deletion is judged by the checkout's ignore rules, not by the agent's edit of them" {
    printf 'old\n' >"$CO/old.o"
    printf 'mine\n' >"$CO/notes.txt"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/old.o" "$CO/notes.txt"
    review root 'set -e; printf "notes.txt\n" > .gitignore; rm old.o notes.txt'
    assert_success
    [ "$(manifest_paths | sort | tr '\n' ' ')" = ".gitignore notes.txt " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 1 ]
    grep -qxF "    old.o" "$OUT/summary.txt"
}

# A file replacing a directory cannot leave the directory's ignored files
# in place: they go with it, shown as deletions, and the set applies.
@test "git: a directory the agent replaced with a file takes its ignored files along, and the set applies" {
    mkdir -p "$CO/logs"
    printf '*.log\n' >"$CO/logs/.gitignore"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/logs"
    ugit -C "$CO" add logs/.gitignore
    ugit -C "$CO" commit -qm logs
    printf 'l\n' >"$CO/logs/run.log"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/logs/run.log"
    review root 'set -e; rm -rf logs; printf "now a file\n" > logs'
    assert_success
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "logs logs/.gitignore logs/run.log " ]
    apply_to_copy
    [ "$(cat "$RR_TMP/target/logs")" = "now a file" ]
}

# A git worktree: its .git is a gitfile naming a git directory outside the
# checkout (here the main repository's .git/worktrees/wt: its index, and a
# commondir naming the main .git, whose info/exclude holds .cache/). revrun
# follows it only when it is provably this checkout's: no symlink on the
# way, a back-link (gitdir) to this very .git, all of it the checkout
# owner's. It also holds old.o, untracked build output.
make_worktree() {
    mkdir "$RR_TMP/wt"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/wt"
    ugit -C "$CO" worktree add -q "$RR_TMP/wt" >/dev/null
    printf 'old\n' >"$RR_TMP/wt/old.o"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/wt/old.o"
    find "$RR_TMP/wt" -exec touch -h -d '2 hours ago' {} +
    ugit -C "$RR_TMP/wt" status --porcelain >/dev/null
    [ -f "$RR_TMP/wt/.git" ]
    grep -q '^gitdir: ' "$RR_TMP/wt/.git"
}

# review_wt [root|user] SCRIPT [CHECKOUT]
review_wt() {
    local mode=$1 script=$2 co=${3:-$RR_TMP/wt}
    rm -rf "$OUT" && mkdir "$OUT" && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT"
    if [ "$mode" = root ]; then
        run "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$co" --out "$OUT" -- sh -c "$script"
    else
        run as_user "$RR_BIN/revrun" review --lower "$co" --out "$OUT" -- sh -c "$script"
    fi
}

WT_AGENT='set -e; printf "obj\n" > main.o; mkdir -p build .cache; printf "x\n" > build/x.o
printf "c\n" > .cache/c; printf "again\n" > gen.o; printf "rebuilt\n" > old.o; printf "fix\n" >> a.txt'

worktree_followed() {
    make_worktree
    review_wt "$1" "$WT_AGENT"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    # the main repository's exclude hides .cache/; the worktree's index
    # tracks gen.o (matched by *.o: still a change) and not old.o (left out)
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt gen.o " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 4 ]
    grep -qF "    .cache/ (1 file)" "$OUT/summary.txt"
    grep -qxF "    old.o" "$OUT/summary.txt"
    ! grep -q "^note:" "$OUT/summary.txt" || false
    ! grep -q "under .git" "$OUT/summary.txt" || false
    cp -a "$RR_TMP/wt" "$RR_TMP/target"
    "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/target" --approve "$(result '["digest"]')"
    [ "$(cat "$RR_TMP/target/gen.o")" = again ] && [ "$(cat "$RR_TMP/target/old.o")" = old ] || false
    [ ! -e "$RR_TMP/target/.cache" ]
}

@test "git: a worktree's gitfile (git worktree add) is followed: the main repository's exclude and the worktree's index count (root)" {
    worktree_followed root
}

@test "git: a worktree's gitfile (git worktree add) is followed: the main repository's exclude and the worktree's index count (rootless)" {
    worktree_followed user
}

# The gitfile was not followed: the checkout's .gitignore files alone (so
# .cache/ is exported) and no index (so old.o counts as tracked), and why.
not_followed() {
    local why=$1
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = ".cache .cache/c a.txt gen.o old.o " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 2 ]
    grep -qF "note: the checkout's .git is a gitfile (a worktree's) whose git directory was not read ($why): every changed checkout file counts" \
        "$OUT/summary.txt"
    [ -n "$(result '["git"]["note"]')" ]
}

@test "git: a worktree's gitfile is not followed to a copy's, another user's or root's git directory, or through a symlink; the summary says why" {
    make_worktree
    # a copy of the worktree: its gitfile names wt's git directory, whose
    # back-link is wt/.git, not the copy's
    cp -a "$RR_TMP/wt" "$RR_TMP/wtcopy"
    review_wt root "$WT_AGENT" "$RR_TMP/wtcopy"
    not_followed "its back-link (gitdir) names another .git than the checkout's"
    # root, or another user, owns the worktree's git directory or the main one
    chown root:root "$CO/.git/worktrees/wt"
    review_wt user "$WT_AGENT"
    not_followed "the git directory it names is owned by uid 0, not by the checkout's owner (uid $REVRUN_TEST_UID)"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/.git/worktrees/wt"
    chown 4242:4242 "$CO/.git"
    review_wt root "$WT_AGENT"
    not_followed "the common git directory is owned by uid 4242, not by the checkout's owner (uid $REVRUN_TEST_UID)"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/.git"
    # the same git directory, named through a symlink
    ln -s "$CO" "$RR_TMP/colink"
    printf 'gitdir: %s/colink/.git/worktrees/wt\n' "$RR_TMP" >"$RR_TMP/wt/.git"
    review_wt root "$WT_AGENT"
    not_followed "the git directory it names: a symlink on the way"
    # and again without it: followed
    printf 'gitdir: %s/checkout/.git/worktrees/wt\n' "$RR_TMP" >"$RR_TMP/wt/.git"
    review_wt root "$WT_AGENT"
    assert_success
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt gen.o " ]
}

@test "git: a worktree's gitfile .git replaced by a directory, or edited, is refused" {
    make_worktree
    review_wt root 'rm .git && mkdir -p .git/hooks && echo "#!/bin/sh" > .git/hooks/post-checkout'
    [ "$status" -eq 5 ]
    grep -q "^REFUSED .git: touches .git" "$OUT/summary.txt"
    rm -rf "$OUT" && mkdir "$OUT"
    review_wt root 'echo "gitdir: /tmp/evil" > .git'
    [ "$status" -eq 5 ]
    grep -q "^REFUSED .git: touches .git" "$OUT/summary.txt"
}

# Two commits sharing a long body, so that git stores the newer as a delta
# of the older (checked inside: verify-pack shows a commit with a base).
PACK_COMMITS="set -e; $AGENT_ID
body=\$(head -c 3000 /dev/zero | tr '\\0' y | fold -w 70)
printf 'fixed\n' >> a.txt; git commit -qam 'agent: packed one' -m \"\$body\"
printf 'new\n' > docs/new.md; git add docs/new.md
git commit -qm \"\$(printf 'agent: packed two \\033[31mred\\033[0m')\" -m \"\$body\""
NO_LOOSE="test -z \"\$(find .git/objects -type f -path '*/objects/[0-9a-f][0-9a-f]/*')\""
A_DELTA="git verify-pack -v .git/objects/pack/pack-*.idx | grep -Eq '^[0-9a-f]{40} commit [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9a-f]{40}\$'"

packed_listed() {
    local mode=$1 pack=$2
    review "$mode" "$PACK_COMMITS
$pack; $NO_LOOSE; $A_DELTA"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt docs/new.md " ]
    [ "$(result '["git"]["commits"]["packed"]')" = False ]
    [ "$(result '["git"]["commits"]["onCheckoutHead"]')" = True ]
    [ "$(result '["git"]["commits"]["subjects"][1]')" = "agent: packed one" ]
    grep -q "on top of the checkout's HEAD" "$OUT/summary.txt"
    grep -qxF '    agent: packed two \x1b[31mred\x1b[0m' "$OUT/summary.txt"
    grep -qxF '    agent: packed one' "$OUT/summary.txt"
    ! grep -q "not listed" "$OUT/summary.txt" || false
    ! grep -q $'\033' "$OUT/summary.txt" || false
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "git: commits the agent packed (git gc) are listed, a delta among them (root)" {
    packed_listed root "git gc -q --prune=now"
}

@test "git: commits the agent packed (git gc) are listed, a delta among them (rootless)" {
    packed_listed user "git gc -q --prune=now"
}

@test "git: commits the agent repacked (git repack -adf --depth) are listed" {
    packed_listed root "git repack -adfq --depth=50 --window=250"
}

@test "git: a packed commit over the size cap is said not to be listed, the ones above it are" {
    review root "set -e; $AGENT_ID
printf 'fixed\n' >> a.txt
{ printf 'agent: packed away\n\n'; head -c 300000 /dev/zero | tr '\\0' x; } | git commit -qa -F -
printf 'more\n' >> a.txt; git commit -qam 'agent: on top'
git gc -q --prune=now; $NO_LOOSE"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths)" = a.txt ]
    [ "$(result '["git"]["commits"]["packed"]')" = True ]
    [ "$(result '["git"]["commits"]["onCheckoutHead"]')" = True ]
    [ "$(result '["git"]["commits"]["subjects"]')" = "['agent: on top']" ]
    result '["git"]["commits"]["packedWhy"]' | grep -q "declared over its cap"
    grep -qF "the agent's commits older than those below are in a pack it wrote (git gc, repack) that revrun did not read within its bounds (a pack entry declared over its cap" \
        "$OUT/summary.txt"
    grep -qF ", so they are not listed" "$OUT/summary.txt"
    ! grep -q "packed away" "$OUT/summary.txt" || false
}

@test "git: after git gc, a HEAD moved onto an older checkout commit lists only the agent's commits" {
    printf 'second\n' >>"$CO/a.txt"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/a.txt"
    ugit -C "$CO" commit -qam 'checkout: second'
    ugit -C "$CO" gc -q
    review root "set -e; $AGENT_ID
git reset -q --hard HEAD~1; printf 'other\n' > docs/other.md; git add docs/other.md
git commit -qm 'agent: off the head'; git gc -q --prune=now; $NO_LOOSE"
    assert_success
    # the checkout's "base" commit is in the agent's pack too: not listed as its work
    [ "$(result '["git"]["commits"]["subjects"]')" = "['agent: off the head']" ]
    [ "$(result '["git"]["commits"]["onCheckoutHead"]')" = False ]
    [ "$(result '["git"]["commits"]["packed"]')" = False ]
    grep -q "its HEAD is not on top of the checkout's" "$OUT/summary.txt"
}

# A checkout that fetched or repacked often holds more packs than revrun
# opens (WB_PACKS_MAX): a commit none of the opened ones holds may still be
# the checkout's, once the agent's git gc has repacked the whole history.
# The walk then stops and says so rather than list the checkout's work as
# the agent's.
@test "git: with more checkout packs than revrun opens, no checkout commit is listed as the agent's" {
    local i last target o
    for i in $(seq 40); do
        printf '%s\n' "$i" >>"$CO/a.txt"
        chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/a.txt"
        ugit -C "$CO" commit -qam "checkout: commit $i"
        ugit -C "$CO" repack -q
    done
    ugit -C "$CO" prune-packed
    [ "$(find "$CO/.git/objects/pack" -name '*.pack' | wc -l)" -gt 32 ]
    # a commit in the last index by name (past those opened)
    last=$(LC_ALL=C ls "$CO/.git/objects/pack/" | grep '\.idx$' | tail -1)
    for o in $(ugit -C "$CO" show-index <"$CO/.git/objects/pack/$last" | awk '{print $2}'); do
        [ "$(ugit -C "$CO" cat-file -t "$o")" = commit ] && target=$o && break
    done
    [ -n "$target" ]
    review root "set -e; $AGENT_ID; git reset -q --hard $target; printf 'z\n' > z.txt
git add z.txt; git commit -qm 'agent: the only one'; git gc -q --prune=now; $NO_LOOSE"
    assert_success
    ! grep -q '^    checkout: commit' "$OUT/summary.txt" || false
    [ "$(result '["git"]["commits"]["packed"]')" = True ]
    grep -qF "so a packed commit could be the checkout's own" "$OUT/summary.txt"
}

@test "git: sweep removes the shadow a crashed vet left, never a live one or another user's" {
    export TMPDIR="$RR_TMP/tmp"
    mkdir -p "$TMPDIR" "$RR_TMP/upper"
    printf 'obj\n' >"$RR_TMP/upper/main.o" # an ignore rule may match: the shadow is made
    REVRUN_CRASH_AT=vet:git-shadow run "$RR_BIN/revrun" diff --lower "$CO" --upper "$RR_TMP/upper" --format overlay
    [ "$status" -ne 0 ]
    left=$(find "$TMPDIR" -maxdepth 1 -name 'revrun-gitignore.*')
    [ -n "$left" ]
    [ -f "$left/.git/HEAD" ]
    # one just made may be about to be locked: left alone
    run "$RR_BIN/revrun" --root "$RR_ROOT" sweep
    assert_success
    [ -d "$left" ]
    mkdir -p "$TMPDIR/revrun-gitignore.live/.git" "$TMPDIR/revrun-gitignore.theirs"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$TMPDIR/revrun-gitignore.theirs"
    touch -d '10 minutes ago' "$left" "$TMPDIR/revrun-gitignore.live" "$TMPDIR/revrun-gitignore.theirs"
    # the live one is locked by its vet (here by flock) while sweep runs
    run flock "$TMPDIR/revrun-gitignore.live" "$RR_BIN/revrun" --root "$RR_ROOT" sweep
    assert_success
    assert_output_contains "removed 1 git shadow directory a crashed vet left in $TMPDIR"
    [ ! -e "$left" ]
    [ -d "$TMPDIR/revrun-gitignore.live/.git" ]
    [ -d "$TMPDIR/revrun-gitignore.theirs" ]
    # a vet that finishes leaves nothing
    run "$RR_BIN/revrun" diff --lower "$CO" --upper "$RR_TMP/upper" --format overlay
    assert_success
    assert_output_contains "main.o"
    [ -z "$(find "$TMPDIR" -maxdepth 1 -name 'revrun-gitignore.*' ! -name '*.live' ! -name '*.theirs')" ]
}

# The checkout's warmers (runtime/container/warm.h) are processes inside
# the sandbox beside the agent, one per CPU it may run on (at most 8): the
# agent finds each confined as it is itself (seccomp, no_new_privs, no
# capability), at idle priority, and all gone once they have looked the
# checkout up. 60,000 files, so that they are still there when the agent's
# first command looks.
warmer_confined() {
    python3 - "$CO" <<'PY'
import os, sys
for i in range(60000):
    d = os.path.join(sys.argv[1], "many", "d%03d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%03d" % (i % 100)), "w").close()
PY
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/many"
    # pid 1 forks them right after the agent: look until they are there
    review "$1" 'cpus=$(nproc); [ $cpus -gt 8 ] && cpus=8
i=0; while [ -z "$ws" ] && [ $i -lt 200 ]; do
  ws=$(for p in /proc/[0-9]*; do grep -q "^[0-9]* (revrun-warm) " $p/stat 2>/dev/null && echo $p; done)
  i=$((i+1)); done
[ -n "$ws" ] || { echo "no warmer"; exit 3; }
echo "warmers $(echo $ws | wc -w) of $cpus"
for w in $ws; do
  grep -E "^(Seccomp|NoNewPrivs|CapEff|CapPrm|CapBnd):" $w/status
  echo "policy $(cut -d" " -f41 $w/stat)"
done
for w in $ws; do
  i=0; while [ -d $w ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
  [ -d $w ] && echo "warmer still there"
done
echo "warmers gone"'
    assert_success
    # Each one seen is confined; never more than one per CPU.
    local seen cpus
    read -r _ seen _ cpus < <(grep "^warmers [0-9]* of" "$OUT/agent.log")
    [ "$seen" -ge 1 ] && [ "$seen" -le "$cpus" ] || false
    [ "$(grep -cE "^Seccomp:[[:space:]]+2$" "$OUT/agent.log")" -eq "$seen" ]
    [ "$(grep -cE "^NoNewPrivs:[[:space:]]+1$" "$OUT/agent.log")" -eq "$seen" ]
    [ "$(grep -cE "^CapEff:[[:space:]]+0+$" "$OUT/agent.log")" -eq "$seen" ]
    [ "$(grep -cE "^CapPrm:[[:space:]]+0+$" "$OUT/agent.log")" -eq "$seen" ]
    [ "$(grep -cx "policy 5" "$OUT/agent.log")" -eq "$seen" ] # SCHED_IDLE
    ! grep -q "warmer still there" "$OUT/agent.log" || false
    grep -qx "warmers gone" "$OUT/agent.log"
}

@test "git: the checkout's warmer is confined like the agent, idle, and exits (root)" {
    warmer_confined root
}

@test "git: the checkout's warmer is confined like the agent, idle, and exits (rootless)" {
    warmer_confined user
}
