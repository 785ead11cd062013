#!/usr/bin/env bats
# The libraries revrun loads with dlopen (libgit2, libssl, libmount: `ldd`
# shows none of them): `revrun check` has a row for each and fails naming
# the package when one is missing; a review then refuses before its agent
# runs (exit 3), so no model call is spent on a job that cannot finish.
# "Missing" is a bind of /dev/null over the library file, in a mount
# namespace of the test's own.

load helpers

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/co"
    echo hello >"$RR_TMP/co/a.txt"
}

teardown() {
    rr_destroy_all
    rr_teardown_tmp
}

# The files behind the sonames revrun tries for LIB.
lib_files() {
    local s
    case "$1" in
    libgit2) set -- libgit2.so.1.5 libgit2.so.1.7 ;;
    libssl) set -- libssl.so.3 ;;
    libmount) set -- libmount.so.1 ;;
    esac
    for s in "$@"; do
        ldconfig -p | awk -v s="$s" '$1 == s {print $NF}' | xargs -r readlink -f
    done | sort -u
}

# without LIB CMD...: CMD in a mount namespace where LIB's files are empty.
without() {
    local lib=$1 files
    shift
    files=$(lib_files "$lib")
    [ -n "$files" ] || { echo "no file for $lib" >&2; return 1; }
    REVRUN_HIDE="$files" unshare -m --propagation private -- bash -c '
        for f in $REVRUN_HIDE; do mount --bind /dev/null "$f" || exit 99; done
        exec "$@"' hide "$@"
}

# The package check must name for LIB on this host.
package_of() {
    . /etc/os-release
    case "$1:$ID:$VERSION_ID" in
    libgit2:debian:12) echo libgit2-1.5 ;;
    libgit2:ubuntu:24.04) echo libgit2-1.7 ;;
    libssl:ubuntu:24.04) echo libssl3t64 ;;
    libssl:*) echo libssl3 ;;
    libmount:*) echo libmount1 ;;
    *) echo "$1" ;;
    esac
}

@test "check: a row for each library loaded with dlopen, with the soname it found" {
    run "$RR_BIN/revrun" --root "$RR_ROOT" check
    assert_output_contains "ok    libgit2            libgit2.so.1."
    assert_output_contains "ok    libssl             libssl.so.3"
    assert_output_contains "ok    libmount           libmount.so.1"
    run "$RR_BIN/revrun" --root "$RR_ROOT" check --json
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
rows = {i["name"]: i for i in d["items"]}
for lib in ("libgit2", "libssl", "libmount"):
    assert rows[lib]["status"] == "ok", rows[lib]' "$output"
}

check_without() {
    local lib=$1 pkg
    pkg=$(package_of "$lib")
    run without "$lib" "$RR_BIN/revrun" --root "$RR_ROOT" check
    [ "$status" -eq 1 ] || { echo "$output" >&2; false; }
    assert_output_contains "FAIL  $lib"
    assert_output_contains "remedy: install $pkg"
    run without "$lib" "$RR_BIN/revrun" --root "$RR_ROOT" check --json
    [ "$status" -eq 1 ]
    python3 -c '
import json, sys
d = json.loads(sys.argv[1][sys.argv[1].index("{"):])
assert d["ok"] is False, d
row = [i for i in d["items"] if i["name"] == sys.argv[2]][0]
assert row["status"] == "fail" and sys.argv[3] in row["remedy"], row' "$output" "$lib" "$pkg"
}

review_without() {
    local lib=$1 pkg
    shift
    pkg=$(package_of "$lib")
    run without "$lib" "$RR_BIN/revrun" --root "$RR_ROOT" review --lower "$RR_TMP/co" \
        --out "$RR_TMP/out" "$@" -- sh -c 'echo the agent ran'
    [ "$status" -eq 3 ] || { echo "$output" >&2; false; }
    assert_output_contains "the agent was not started"
    assert_output_contains "install $pkg"
    [ ! -s "$RR_TMP/out/agent.log" ]
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exitCode"] == 3 and sys.argv[2] in d["setupError"], d
assert "exitStatus" not in d["agent"], d' "$RR_TMP/out/result.json" "$pkg"
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
}

@test "libgit2 missing: check fails naming the package; review refuses before the agent runs" {
    check_without libgit2
    review_without libgit2
}

@test "libssl missing: check fails naming the package; a review with egress refuses before the agent runs" {
    check_without libssl
    K=not-a-key review_without libssl --upstream https://127.0.0.1:9 --credential-env K
}

@test "libmount missing: check fails naming the package; review refuses before the agent runs" {
    check_without libmount
    review_without libmount
}

@test "a library that loads but lacks a function revrun takes is refused whole, by name" {
    # a real shared object under libgit2's name, without libgit2's functions
    printf 'int revrun_not_libgit2;\n' >"$RR_TMP/fake.c"
    cc -shared -fPIC -o "$RR_TMP/fake.so" "$RR_TMP/fake.c"
    files=$(lib_files libgit2)
    run env REVRUN_HIDE="$files" FAKE="$RR_TMP/fake.so" unshare -m --propagation private -- bash -c '
        for f in $REVRUN_HIDE; do mount --bind "$FAKE" "$f" || exit 99; done
        exec "$0" --root "$1" check' "$RR_BIN/revrun" "$RR_ROOT"
    [ "$status" -eq 1 ]
    assert_output_contains "has no git_libgit2_init"
}
