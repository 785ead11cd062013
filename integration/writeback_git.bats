#!/usr/bin/env bats
# Write-back that understands the repository: on a real git checkout made by
# the test, an agent that runs git inside `revrun review` (status, diff, add,
# commit, stash) gets an accepted change set holding exactly its worktree
# change; what it did in .git is counted and its commits' subjects are shown,
# never applied; build output the checkout's ignore rules cover is counted,
# not exported; the agent's own index never widens the export. Root and
# rootless. Judged from the outside: result.json, summary.txt, the manifest
# and the bytes apply writes. Index formats, worktrees, packs and the
# shadow: writeback_git_formats.bats.

load writeback_git_helpers

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
    [ ! -e "$RR_TMP/target/main.o" ] && [ ! -e "$RR_TMP/target/node_modules" ] || false
    [ ! -e "$RR_TMP/target/build" ] && [ ! -L "$RR_TMP/target/py.pyc" ] || false
    [ ! -e "$RR_TMP/target/src/deep" ] && [ ! -e "$RR_TMP/target/.cache" ] || false
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
