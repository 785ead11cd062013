# Shared by writeback_git.bats and writeback_git_formats.bats: a real git
# checkout made by the test, a review over it as root or as the test user,
# and what the review left (result.json fields, manifest paths, the bytes
# apply writes into a copy).

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
