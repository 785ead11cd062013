#!/usr/bin/env bats
# apply as the operator's own tool: given the review's --out it finds the
# set, a second apply of the same set is a no-op ("already applied", exit 0,
# not a byte or an mtime touched), and run as root onto a user's checkout it
# keeps owners (a changed path its own, a new one its directory's).

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/d" "$RR_TMP/checkout/other"
    echo "hello" >"$RR_TMP/checkout/a.txt"
    echo "theirs" >"$RR_TMP/checkout/other/t.txt"
    echo "keep" >"$RR_TMP/checkout/d/k.txt"
    ln -s a.txt "$RR_TMP/checkout/link"
    chmod -R a+rX "$RR_TMP/checkout"
}

teardown() {
    rr_destroy_all
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

digest_of() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["digest"])' "$1/result.json"
}

# Every name with its type, owner, mode, size, mtime (ns) and content hash.
tree_state() {
    (cd "$1" && find . -printf '%y %u:%g %m %s %T@ %p -> %l\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# The review every test approves: a change, a new file, a new directory with
# a file, a change in a directory someone else owns, a retargeted symlink,
# a removal.
review_changes() {
    rr review --quiet --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- sh -c '
        echo changed >> a.txt; echo new > n.txt; mkdir nd; echo f > nd/f;
        echo more >> other/t.txt; echo mine > other/new.txt;
        rm link; ln -s n.txt link; rm d/k.txt'
}

@test "apply: given the review's --out, finds OUT/changeset" {
    review_changes
    cp -a "$RR_TMP/checkout" "$RR_TMP/target"
    run rr apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    assert_success
    [ "$(cat "$RR_TMP/target/n.txt")" = new ]
    # a directory with neither is named in the error
    run rr apply "$RR_TMP/checkout" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    [ "$status" -eq 1 ]
    assert_output_contains "holds no change set"
}

@test "apply: --approve takes the digest as summary.txt prints it, with or without sha256:" {
    review_changes
    printed=$(sed -n 's/^digest: //p' "$RR_TMP/out/summary.txt")
    [ "$printed" = "$(digest_of "$RR_TMP/out")" ]
    cp -a "$RR_TMP/checkout" "$RR_TMP/t1"
    cp -a "$RR_TMP/checkout" "$RR_TMP/t2"
    rr apply "$RR_TMP/out" --to "$RR_TMP/t1" --approve "$printed"
    rr apply "$RR_TMP/out" --to "$RR_TMP/t2" --approve "sha256:$printed"
    [ "$(cat "$RR_TMP/t2/n.txt")" = new ]
}

@test "apply: a second apply of the same set says 'already applied', exits 0 and writes nothing" {
    review_changes
    cp -a "$RR_TMP/checkout" "$RR_TMP/target"
    rr apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    before=$(tree_state "$RR_TMP/target")
    run rr apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    assert_success
    assert_output_contains "already applied"
    [ "$before" = "$(tree_state "$RR_TMP/target")" ]
    # half applied is no "already applied": a conflict, refused, nothing written
    echo "hello" >"$RR_TMP/target/a.txt"
    touch -d @1000000000 "$RR_TMP/target/a.txt"
    before=$(tree_state "$RR_TMP/target")
    run rr apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    [ "$status" -eq 6 ]
    [[ "$output" != *"already applied"* ]]
    [ "$before" = "$(tree_state "$RR_TMP/target")" ]
}

@test "apply: rootless, a second apply is a no-op too" {
    review_changes
    cp -a "$RR_TMP/checkout" "$RR_TMP/target"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/target"
    chmod -R a+rX "$RR_TMP/out"
    chmod a+rx "$RR_TMP/out"
    run as_user "$RR_BIN/revrun" apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    assert_success
    before=$(tree_state "$RR_TMP/target")
    run as_user "$RR_BIN/revrun" apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    assert_success
    assert_output_contains "already applied"
    [ "$before" = "$(tree_state "$RR_TMP/target")" ]
    # everything stays the user's (apply ran as them)
    [ -z "$(find "$RR_TMP/target" ! -uid "$REVRUN_TEST_UID" -print)" ]
}

@test "apply as root onto a user's clone: every path keeps its owner, new ones get their directory's" {
    review_changes
    cp -a "$RR_TMP/checkout" "$RR_TMP/target"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/target"
    # a file and a directory of another user's in the clone
    chown 4242:4243 "$RR_TMP/target/a.txt"
    chown -R 4244:4245 "$RR_TMP/target/other"
    run rr apply "$RR_TMP/out" --to "$RR_TMP/target" --approve "$(digest_of "$RR_TMP/out")"
    assert_success
    owner() { stat -c %u:%g "$RR_TMP/target/$1"; }
    me="$REVRUN_TEST_UID:$REVRUN_TEST_GID"
    [ "$(cat "$RR_TMP/target/a.txt")" = "$(printf 'hello\nchanged')" ]
    [ "$(owner a.txt)" = 4242:4243 ]          # changed: its own
    [ "$(owner other/t.txt)" = 4244:4245 ]    # changed: its own
    [ "$(owner other/new.txt)" = 4244:4245 ]  # new: its directory's
    [ "$(owner n.txt)" = "$me" ]              # new: TARGET's
    [ "$(owner nd)" = "$me" ]                 # new directory: TARGET's
    [ "$(owner nd/f)" = "$me" ]               # in a new directory: that one's
    [ "$(stat -c %u:%g "$RR_TMP/target/link")" = "$me" ] # a retargeted symlink: its own
    # nothing at all is root's
    [ -z "$(find "$RR_TMP/target" -uid 0 -print)" ]
}
