#!/usr/bin/env bats
# Write-back that understands the repository: on a real git checkout made by
# the test, an agent that runs git inside `revrun review` (status, diff, add,
# commit, stash) gets an accepted change set holding exactly its worktree
# change; what it did in .git is counted and its commits' subjects are shown,
# never applied; build output the checkout's ignore rules cover is counted,
# not exported. Root and rootless. Judged from the outside: result.json,
# summary.txt, the manifest and the bytes apply writes.

load helpers

setup() {
    rr_setup_tmp
    CO="$RR_TMP/checkout"
    OUT="$RR_TMP/out"
    mkdir -p "$OUT"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT"
    make_checkout "$CO"
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    rr_destroy_all
    "$RR_BIN/revrun" --root "$RR_ROOT" sweep >/dev/null 2>&1 || true
    rr_teardown_tmp
}

# git as the checkout's owner (a user's checkout is theirs, index included).
ugit() {
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        env HOME="$RR_TMP" git -c user.name=owner -c user.email=owner@localhost \
        -c init.defaultBranch=main "$@"
}

# A real repository: text, a tracked file the ignore rules match (added with
# -f), ignore rules at the top, in a subdirectory and in .git/info/exclude.
# Every file is older than the index, so no entry is racily clean, and git
# status has settled the index as the owner would have.
make_checkout() {
    local d=$1
    mkdir -p "$d/src" "$d/docs"
    printf 'hello\n' >"$d/a.txt"
    printf 'int lib;\n' >"$d/src/lib.c"
    printf 'notes\n' >"$d/docs/notes.md"
    printf 'prebuilt\n' >"$d/gen.o"
    printf '*.o\nbuild/\nnode_modules/\n*.pyc\n' >"$d/.gitignore"
    printf '*.tmp\n' >"$d/src/.gitignore"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$d"
    find "$d" -exec touch -h -d '2 hours ago' {} +
    ugit init -q "$d"
    printf '.cache/\n' >>"$d/.git/info/exclude"
    ugit -C "$d" add -A
    ugit -C "$d" add -f gen.o
    ugit -C "$d" commit -qm base
    ugit -C "$d" status --porcelain >/dev/null
    BASE_HEAD=$(ugit -C "$d" rev-parse HEAD)
}

# review MODE SCRIPT: run SCRIPT (sh) as the agent, as root or rootless.
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

# The paths of the exported manifest, one a line.
manifest_paths() {
    python3 -c "import json,sys; [print(c['path']) for c in json.load(open(sys.argv[1]))['changes']]" \
        "$OUT/changeset/manifest.json"
}

apply_to_copy() {
    cp -a "$CO" "$RR_TMP/target"
    "$RR_BIN/revrun" apply "$OUT/changeset" --to "$RR_TMP/target" --approve "$(result '["digest"]')"
}

AGENT_ID='export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@localhost GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@localhost'

# What an agent does with git: look, change, stage, commit twice, stash and
# pop its work in progress, look again.
GIT_SESSION="set -e; $AGENT_ID
git status; git diff; git log --oneline
printf 'fixed\n' >> a.txt
git add a.txt
git commit -qm 'agent: fix the greeting'
printf 'new\n' > docs/new.md
git add docs/new.md
git commit -qm \"\$(printf 'agent: add notes \\033[31mred\\033[0m')\"
printf 'int wip;\n' >> src/lib.c
git stash -q
git stash pop -q
git status; git diff"

git_session() {
    review "$1" "$GIT_SESSION"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    # exactly the worktree change: nothing under .git
    [ "$(result '["changes"]')" = 3 ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt docs/new.md src/lib.c " ]
    grep -Eq "^the agent changed [0-9]+ files under .git \(not part of the change set\)$" \
        "$OUT/summary.txt"
    [ "$(result '["git"]["gitDir"]["changed"]')" -gt 5 ]
    # its commits, newest first, escaped
    grep -q "on top of the checkout's HEAD" "$OUT/summary.txt"
    grep -qF '    agent: add notes \x1b[31mred\x1b[0m' "$OUT/summary.txt"
    grep -qF '    agent: fix the greeting' "$OUT/summary.txt"
    [ "$(result '["git"]["commits"]["subjects"][1]')" = "agent: fix the greeting" ]
    ! grep -q $'\033' "$OUT/summary.txt" || false
    # the bytes apply writes; the target's repository is untouched
    apply_to_copy
    [ "$(cat "$RR_TMP/target/a.txt")" = "$(printf 'hello\nfixed')" ]
    [ "$(cat "$RR_TMP/target/docs/new.md")" = new ]
    [ "$(cat "$RR_TMP/target/src/lib.c")" = "$(printf 'int lib;\nint wip;')" ]
    [ "$(ugit -C "$RR_TMP/target" rev-parse HEAD)" = "$BASE_HEAD" ]
    [ "$(ugit -C "$RR_TMP/target" stash list)" = "" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "git: status, diff, add, commit and stash inside give exactly the worktree change (root)" {
    git_session root
}

@test "git: status, diff, add, commit and stash inside give exactly the worktree change (rootless)" {
    git_session user
}

# Build output: objects at the top and in build/, a cache dir the exclude
# file covers, a node_modules tree of 5,000 files, a venv-style absolute
# symlink the rules cover; and the tracked gen.o, which they match too.
BUILD="set -e
printf 'obj\n' > main.o
mkdir -p build/sub .cache/pip src/deep
printf 'obj\n' > build/sub/x.o; printf 'log\n' > build/log.txt
printf 'c\n' > .cache/pip/wheel; printf 't\n' > src/deep/scratch.tmp
ln -s /usr/bin/python3 py.pyc
i=0; while [ \$i -lt 50 ]; do mkdir -p node_modules/p\$i; j=0
  while [ \$j -lt 100 ]; do : > node_modules/p\$i/f\$j.js; j=\$((j+1)); done; i=\$((i+1)); done
printf 'rebuilt\n' > gen.o
printf 'real\n' > src/real.c"

ignored_output() {
    review "$1" "$BUILD"
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "gen.o src/real.c " ]
    # counted: main.o, py.pyc, scratch.tmp, build/ (2), .cache/ (1), node_modules/ (5,000)
    [ "$(result '["git"]["ignored"]["count"]')" = 5006 ]
    grep -qF "5006 ignored files left out by the checkout's ignore rules" "$OUT/summary.txt"
    grep -qF "    node_modules/ (5000 files)" "$OUT/summary.txt"
    grep -qF "    build/ (2 files)" "$OUT/summary.txt"
    grep -qF "    .cache/ (1 file)" "$OUT/summary.txt"
    grep -qxF "    main.o" "$OUT/summary.txt"
    grep -qxF "    src/deep/scratch.tmp" "$OUT/summary.txt"
    apply_to_copy
    [ "$(cat "$RR_TMP/target/gen.o")" = rebuilt ]
    [ "$(cat "$RR_TMP/target/src/real.c")" = real ]
    [ ! -e "$RR_TMP/target/main.o" ] && [ ! -e "$RR_TMP/target/node_modules" ]
    [ ! -e "$RR_TMP/target/build" ] && [ ! -L "$RR_TMP/target/py.pyc" ]
    [ ! -e "$RR_TMP/target/src/deep" ] && [ ! -e "$RR_TMP/target/.cache" ]
}

@test "git: ignored build output is counted, not exported; a force-added ignored file's edit is (root)" {
    ignored_output root
}

@test "git: ignored build output is counted, not exported; a force-added ignored file's edit is (rootless)" {
    ignored_output user
}

# review3 R8: the agent writes both the ignore rules and the paths, so the
# vet's CPU is rules x paths x depth. Five levels of 10,000 rules no index
# skips (a*q0000001 ...) over 3,000 files 60 directories down: minutes of
# root CPU without the budget; with it a refusal of its own class.
ignore_cost() {
    review "$1" 'set -e; d=.; l=0
while [ $l -lt 60 ]; do d=$d/d$l; mkdir $d
  [ $l -ge 5 ] || awk "BEGIN{for(i=0;i<10000;i++) printf(\"a*q%07d\\n\", i)}" > $d/.gitignore
  l=$((l+1)); done
cd $d; awk "BEGIN{for(i=0;i<3000;i++) printf(\"f%d.c\\n\", i)}" | xargs touch'
    [ "$status" -eq 5 ]
    [ "$(result '["verdict"]')" = refuse ]
    grep -q "^REFUSED (change set): the agent's ignore rules are too costly to evaluate: [0-9]* checks, past the budget of 134217728 \[ignore-cost\]" "$OUT/summary.txt"
}

@test "git: the agent's ignore rules past the vet's budget refuse the set (root)" {
    ignore_cost root
}

@test "git: the agent's ignore rules past the vet's budget refuse the set (rootless)" {
    ignore_cost user
}

@test "git: an ignore rule the agent writes counts; one it deletes does not" {
    review root "set -e
printf 'gen.o\n' > .gitignore
printf 'x\n' > main.o
printf 'secret\n' > notes.log; printf '*.log\n' >> .git/info/exclude"
    assert_success
    # .gitignore lost *.o: main.o is an add; the agent's exclude hides notes.log
    [ "$(manifest_paths | sort | tr '\n' ' ')" = ".gitignore main.o " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 1 ]
    grep -qxF "    notes.log" "$OUT/summary.txt"
}

@test "git: revrun.writeback.ignored \"include\" exports ignored output" {
    "$RR_BIN/revrun" spec --lower "$CO" >"$RR_TMP/config.json"
    python3 - "$RR_TMP/config.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["revrun"].setdefault("writeback", {})["ignored"] = "include"
json.dump(c, open(p, "w"))
PY
    mkdir -p "$RR_TMP/bundle"
    mv "$RR_TMP/config.json" "$RR_TMP/bundle/"
    run "$RR_BIN/revrun" --root "$RR_ROOT" review --bundle "$RR_TMP/bundle" --lower "$CO" \
        --out "$OUT" -- sh -c 'printf "obj\n" > main.o; mkdir build; printf "x\n" > build/x.o'
    assert_success
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "build build/x.o main.o " ]
    [ "$(result '["git"]["ignored"]["exported"]')" = True ]
}

@test "git: a config value for revrun.writeback.ignored other than exclude or include is refused" {
    "$RR_BIN/revrun" spec --lower "$CO" >"$RR_TMP/c.json"
    python3 - "$RR_TMP/c.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["revrun"].setdefault("writeback", {})["ignored"] = "sometimes"
json.dump(c, open(p, "w"))
PY
    mkdir -p "$RR_TMP/bundle"
    mv "$RR_TMP/c.json" "$RR_TMP/bundle/config.json"
    run "$RR_BIN/revrun" --root "$RR_ROOT" review --bundle "$RR_TMP/bundle" --lower "$CO" \
        --out "$OUT" -- true
    assert_failure
    assert_output_contains "revrun.writeback.ignored"
}

@test "git: the first git status inside rewrites nothing under .git (root)" {
    review root 'set -e; git status; git diff; git status --porcelain'
    assert_success
    [ "$(result '["changes"]')" = 0 ]
    [ "$(result '["git"]["gitDir"]["changed"]')" = 0 ]
    ! grep -q "under .git" "$OUT/summary.txt" || false
}

@test "git: the first git status inside rewrites nothing under .git (rootless)" {
    review user 'set -e; git status; git diff; git status --porcelain'
    assert_success
    [ "$(result '["changes"]')" = 0 ]
    [ "$(result '["git"]["gitDir"]["changed"]')" = 0 ]
}

# Agents and tools that run git with a cleaned environment (every GIT_CONFIG_*
# variable dropped, as Claude Code does for some of its own git calls) still
# get the settings: the sandbox's /etc/gitconfig holds them too. Without
# --no-optional-locks, git would rewrite the index if it re-hashed.
clean_env_status() {
    review "$1" 'set -e; for v in $(env | sed -n "s/^\(GIT_CONFIG[A-Z0-9_]*\)=.*/\1/p"); do unset "$v"; done
env | grep -q "^GIT_CONFIG" && exit 3
git status; git diff; git status --porcelain'
    assert_success
    [ "$(result '["changes"]')" = 0 ]
    [ "$(result '["git"]["gitDir"]["changed"]')" = 0 ]
}

@test "git: git with every GIT_CONFIG_* variable dropped rewrites nothing under .git (root)" {
    clean_env_status root
}

@test "git: git with every GIT_CONFIG_* variable dropped rewrites nothing under .git (rootless)" {
    clean_env_status user
}

@test "git: an edit that keeps the size still shows inside and is exported" {
    review root 'set -e; printf "HELLO\n" > a.txt; git status --porcelain | grep -qx " M a.txt"'
    assert_success
    [ "$(manifest_paths)" = a.txt ]
}

@test "git: replacing .git with a file or a symlink, or a nested repository, is still refused" {
    review root 'rm -rf .git && echo "gitdir: /tmp/elsewhere" > .git'
    [ "$status" -eq 5 ]
    grep -q "^REFUSED .git: touches .git" "$OUT/summary.txt"
    rm -rf "$OUT" && mkdir "$OUT" && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT"
    review user 'rm -rf .git && ln -s /tmp .git'
    [ "$status" -eq 5 ]
    grep -q "^REFUSED .git: touches .git" "$OUT/summary.txt"
    rm -rf "$OUT" && mkdir "$OUT"
    review root 'mkdir sub && cd sub && git init -q && echo x > f'
    [ "$status" -eq 5 ]
    grep -q "nested .git (an embedded repository)" "$OUT/summary.txt"
}

@test "git: a checkout without a repository keeps refusing writes under .git" {
    rm -rf "$CO/.git"
    mkdir -p "$CO/.git/hooks"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/.git"
    review root 'echo "#!/bin/sh" > .git/hooks/pre-commit; echo obj > main.o'
    [ "$status" -eq 5 ]
    grep -q "^REFUSED .git/hooks/pre-commit" "$OUT/summary.txt"
    ! grep -q "ignored" "$OUT/summary.txt" || false
}

@test "git: commit subjects are capped in number and length, and a forged object is not listed" {
    review root "set -e; $AGENT_ID
i=0; while [ \$i -lt 30 ]; do echo \$i >> a.txt; git commit -qam \"c\$i \$(head -c 600 /dev/zero | tr '\\0' x)\"; i=\$((i+1)); done
h=\$(git rev-parse HEAD); f=.git/objects/\$(echo \$h | cut -c1-2)/\$(echo \$h | cut -c3-)
chmod u+w \$f; printf 'not zlib' > \$f"
    assert_success
    # the newest object no longer matches its id: nothing is listed from it
    [ "$(result '["git"]["commits"]["subjects"]')" = "[]" ]
    [ "$(result '["git"]["commits"]["onCheckoutHead"]')" = False ]
    rm -rf "$OUT" && mkdir "$OUT"
    review root "set -e; $AGENT_ID
i=0; while [ \$i -lt 30 ]; do echo \$i >> a.txt; git commit -qam \"c\$i \$(head -c 600 /dev/zero | tr '\\0' x)\"; i=\$((i+1)); done"
    assert_success
    [ "$(result '["git"]["commits"]["more"]')" = True ]
    python3 - "$OUT/result.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["git"]["commits"]["subjects"]
assert len(s) == 20, len(s)
assert all(len(x) == 200 for x in s), [len(x) for x in s]
assert s[0].startswith("c29 ") and s[19].startswith("c10 "), (s[0][:4], s[19][:4])
PY
}

@test "git: a new ignored file the agent stages with add -f is exported; an unreadable index is said" {
    review root "set -e; printf 'forced\n' > forced.o; git add -f forced.o; printf 'y\n' > other.o"
    assert_success
    [ "$(manifest_paths)" = forced.o ]
    [ "$(result '["git"]["ignored"]["count"]')" = 1 ]
    # no index to ask: a changed checkout file counts, a new one is judged by the rules
    printf 'not an index' >"$CO/.git/index"
    rm -rf "$OUT" && mkdir "$OUT"
    review root "printf 'again\n' > gen.o; printf 'x\n' > new.o"
    assert_success
    [ "$(manifest_paths)" = gen.o ]
    grep -q "^note: the checkout's index could not be read" "$OUT/summary.txt"
    [ -n "$(result '["git"]["note"]')" ]
}

# Build output already in the operator's checkout (untracked, ignored) that
# the agent's `make clean` removes: git calls that no change, so it is
# counted with the ignored paths and the target keeps it; the deletion of
# the tracked gen.o (ignored by *.o, force-added) is exported.
ignored_deletions() {
    mkdir -p "$CO/build/sub"
    printf 'old\n' >"$CO/old.o"
    printf 'y\n' >"$CO/build/y.o"
    printf 'z\n' >"$CO/build/sub/z.o"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/old.o" "$CO/build"
    review "$1" 'set -e; rm old.o gen.o; rm -rf build; printf "new\n" > a.txt'
    assert_success
    [ "$(result '["verdict"]')" = accept ]
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt gen.o " ]
    [ "$(result '["git"]["ignored"]["count"]')" = 3 ]
    grep -qxF "    old.o" "$OUT/summary.txt"
    grep -qxF "    build/ (2 files)" "$OUT/summary.txt"
    apply_to_copy
    [ "$(cat "$RR_TMP/target/old.o")" = old ]
    [ "$(cat "$RR_TMP/target/build/sub/z.o")" = z ]
    [ ! -e "$RR_TMP/target/gen.o" ]
    [ "$(cat "$RR_TMP/target/a.txt")" = new ]
}

@test "git: deleting ignored untracked files is no change, a tracked one's deletion is exported (root)" {
    ignored_deletions root
}

@test "git: deleting ignored untracked files is no change, a tracked one's deletion is exported (rootless)" {
    ignored_deletions user
}

# The agent's own index never decides for what the checkout has (review3
# R2): an operator's ignored, untracked build/cache.bin and local.o, and
# keep.o it edits, stay out of the set when the agent force-adds them
# before deleting them, and when it leaves a garbage .git/index (the
# summary says that index was not read). A NEW file it force-adds is still
# exported: for new paths its index counts.
agent_index_narrow() {
    mkdir -p "$CO/build"
    printf 'cache\n' >"$CO/build/cache.bin"
    printf 'local\n' >"$CO/local.o"
    printf 'keep\n' >"$CO/keep.o"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$CO/build" "$CO/local.o" "$CO/keep.o"
    review "$1" 'set -e; git add -f build/cache.bin local.o keep.o; rm -rf build local.o
        printf "agent\n" >> keep.o; printf "forced\n" > forced.o; git add -f forced.o
        printf "new\n" > a.txt'
    assert_success
    [ "$(manifest_paths | sort | tr '\n' ' ')" = "a.txt forced.o " ]
    apply_to_copy
    [ "$(cat "$RR_TMP/target/build/cache.bin")" = cache ]
    [ "$(cat "$RR_TMP/target/local.o")" = local ]
    [ "$(cat "$RR_TMP/target/keep.o")" = keep ]
    [ "$(cat "$RR_TMP/target/forced.o")" = forced ]
    rm -rf "$OUT" "$RR_TMP/target" && mkdir "$OUT" && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$OUT"
    review "$1" 'set -e; rm -rf build local.o; printf "agent\n" >> keep.o; printf "new\n" > a.txt
        chmod u+w .git/index; printf "junk\033[31m" > .git/index'
    assert_success
    [ "$(manifest_paths)" = a.txt ]
    grep -q "^note: the agent's index was not read (not an index" "$OUT/summary.txt"
    ! grep -q $'\033' "$OUT/summary.txt" || false
    apply_to_copy
    [ "$(cat "$RR_TMP/target/build/cache.bin")" = cache ]
    [ "$(cat "$RR_TMP/target/local.o")" = local ]
    [ "$(cat "$RR_TMP/target/keep.o")" = keep ]
}

@test "git: the agent's index (force-added, or garbage) never exports the deletion or edit of an operator's ignored file (root)" {
    agent_index_narrow root
}

@test "git: the agent's index (force-added, or garbage) never exports the deletion or edit of an operator's ignored file (rootless)" {
    agent_index_narrow user
}

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
    [ "$(cat "$RR_TMP/target/gen.o")" = again ] && [ "$(cat "$RR_TMP/target/old.o")" = old ]
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
    [ "$seen" -ge 1 ] && [ "$seen" -le "$cpus" ]
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
