#!/usr/bin/env bats
# The documents cannot drift from the code: THREAT_MODEL.md's functions and
# tests exist, README.md's and docs/'s commands and flags are --help's, every
# flag --help knows is documented, the man page is the same table. The
# checks are integration/docs_check.py; each prints the drift it finds.

load helpers

setup() {
    command -v python3 >/dev/null || skip "python3 is not installed"
    D=$(mktemp -d /tmp/revrun-docs.XXXXXX)
}

teardown() {
    rm -rf "$D"
}

check() {
    run python3 "$REPO_ROOT/integration/docs_check.py" "$1" "${2:-$REPO_ROOT}" "$REVRUN"
    [ "$status" -eq 0 ] || {
        echo "$output" >&2
        return 1
    }
}

# A scratch copy of the repository's documents, the code beside them linked.
scratch_repo() {
    local f
    for f in "$REPO_ROOT"/*; do
        case "$(basename "$f")" in
        README.md | THREAT_MODEL.md | docs) cp -r "$f" "$D/" ;;
        *) ln -s "$f" "$D/" ;;
        esac
    done
}

@test "docs: README.md is under 300 lines, THREAT_MODEL.md under 30 KB" {
    lines=$(wc -l <"$REPO_ROOT/README.md")
    bytes=$(wc -c <"$REPO_ROOT/THREAT_MODEL.md")
    echo "README.md: $lines lines, THREAT_MODEL.md: $bytes bytes" >&2
    [ "$lines" -lt 300 ]
    [ "$bytes" -lt 30000 ]
}

@test "docs: every file:function and every test THREAT_MODEL.md names exists" {
    check threat
}

@test "docs: every revrun command and flag in README.md and docs/ is one --help knows" {
    check flags
}

@test "docs: every command and flag --help knows is in README.md or docs/" {
    check documented
}

@test "docs: every option runtime/cli parses is in --help" {
    check cli
}

@test "docs: the man page has a section per command, with every flag of it" {
    check man
}

@test "docs: relative links resolve; no issue numbers or commit ids in user documents" {
    check links
    check ids
}

@test "docs: --deny-content is in --help; sweep --help says --exports deletes change sets past their retention" {
    for c in diff export writeback; do
        run "$REVRUN" "$c" --help
        assert_success
        assert_output_contains "--deny-content FILE"
    done
    run "$REVRUN" sweep --help
    assert_success
    assert_output_contains "also delete the change sets exported under DIR"
    assert_output_contains "past their retention"
}

@test "docs: the checks fail on drift: a flag --help does not know, a missing function or test" {
    scratch_repo
    printf '\n```sh\nrevrun review --lower x --no-such-flag -- agent\n```\n' >>"$D/docs/ci.md"
    sed -i '0,/confine\/caps.c:caps_drop_all/s//confine\/caps.c:caps_drop_everything/' \
        "$D/THREAT_MODEL.md"
    # a file named by too few of its folders is no one file
    sed -i '0,/common\/fsutil.c:rr_close_all_except/s//fsutil.c:rr_close_all_except/' \
        "$D/THREAT_MODEL.md"
    sed -i '0,/containment.bats "identity: no capability"/s//containment.bats "no such test"/' \
        "$D/THREAT_MODEL.md"
    run python3 "$REPO_ROOT/integration/docs_check.py" flags "$D" "$REVRUN"
    assert_failure
    assert_output_contains "has no --no-such-flag"
    run python3 "$REPO_ROOT/integration/docs_check.py" threat "$D"
    assert_failure
    assert_output_contains "no function caps_drop_everything"
    assert_output_contains "fsutil.c: names 2 files (common/fsutil.c, writeback/base/fsutil.c): give more of its path"
    assert_output_contains 'has no test named "no such test..."'
    rm "$D/docs/config.md"
    run python3 "$REPO_ROOT/integration/docs_check.py" links "$D"
    assert_failure
    assert_output_contains "config.md: no such file"
}

@test "docs: the checks fail on drift: an undocumented flag, an option --help lacks, a man page without a flag" {
    scratch_repo
    sed -i 's/--idle-timeout/--idle-time/g' "$D"/docs/*.md
    run python3 "$REPO_ROOT/integration/docs_check.py" documented "$D" "$REVRUN"
    assert_failure
    assert_output_contains "revrun broker --idle-timeout: not in README.md or docs/"
    rm "$D/runtime"
    mkdir -p "$D/runtime"
    cp -r "$REPO_ROOT/runtime/cli" "$D/runtime/"
    sed -i 's/{"older-than", required_argument/{"older-than-x", no_argument, NULL, 0},\n        &/' \
        "$D/runtime/cli/cli_sweep.c"
    run python3 "$REPO_ROOT/integration/docs_check.py" cli "$D" "$REVRUN"
    assert_failure
    assert_output_contains "--older-than-x is parsed but no --help lists it"
    # $D/revrun is a link to the tree's own binary (scratch_repo): replaced,
    # never written through
    rm -f "$D/revrun"
    printf '#!/bin/sh\nif [ "$1" = --man ]; then "%s" --man | sed "s/deny.-content/deny/g"; else exec "%s" "$@"; fi\n' \
        "$REVRUN" "$REVRUN" >"$D/revrun"
    chmod +x "$D/revrun"
    run python3 "$REPO_ROOT/integration/docs_check.py" man "$D" "$D/revrun"
    assert_failure
    assert_output_contains "man page, diff: no --deny-content"
}
