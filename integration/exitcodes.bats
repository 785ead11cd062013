#!/usr/bin/env bats
# The one exit-code table (common/exitcode.h): every command's bad command
# line exits 2 and names what is wrong, and each failure class has its own
# code, whichever command meets it. The table in --help, the man page and
# docs/exit-codes.md say the same.

load helpers
load wb_helpers

setup() {
    wb_setup
    mkdir -p "$RR_TMP/checkout"
    echo hello >"$RR_TMP/checkout/a.txt"
    chmod -R a+rX "$RR_TMP/checkout"
}

teardown() {
    rr_destroy_all
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

result() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" \
        "$1/result.json" "$2"
}

# The commands --help lists.
commands() {
    "$RR_BIN/revrun" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}'
}

@test "exit 2: an unknown option, for every command --help lists, is named" {
    local n=0 c
    for c in $(commands); do
        run rr "$c" --no-such-flag x
        [ "$status" -eq 2 ] || { echo "$c: status $status: $output" >&2; false; }
        [[ "$output" == *"'--no-such-flag'"* ]] || { echo "$c: $output" >&2; false; }
        n=$((n + 1))
    done
    [ "$n" -ge 23 ]
    run rr --no-such-flag
    [ "$status" -eq 2 ]
    assert_output_contains "'--no-such-flag'"
}

@test "exit 2: a missing or extra operand, for every command" {
    local args
    while IFS= read -r args; do
        # shellcheck disable=SC2086
        run rr $args
        [ "$status" -eq 2 ] || { echo "'$args': status $status: $output" >&2; false; }
    done <<'EOF'
spec extra
create
start
state
kill
delete
destroy
run
exec
ps
pause
resume
update
features extra
list extra
check extra
diff
export
apply
apply dir --to t
writeback
review --lower /tmp
sweep extra
broker
nosuchcommand
EOF
    run rr
    [ "$status" -eq 2 ]
}

@test "exit 2: a bad value, and an option without its value, name the option" {
    run rr --log-format xml list
    [ "$status" -eq 2 ]
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" --timeout soon -- true
    [ "$status" -eq 2 ]
    assert_output_contains "--timeout"
    run rr list --format xml
    [ "$status" -eq 2 ]
    run rr kill some-id SIGNOPE
    [ "$status" -eq 2 ]
    run rr diff --lower "$WB/lower" --upper "$WB/lower" --format zfs
    [ "$status" -eq 2 ]
    run rr apply "$WB" --to
    [ "$status" -eq 2 ]
    assert_output_contains "'--to' needs a value"
}

@test "exit 2: --out inside --lower, the checkout inside --out, or an --out with results" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/checkout/out" -- true
    [ "$status" -eq 2 ]
    assert_output_contains "inside --lower"
    [ ! -e "$RR_TMP/checkout/out" ]
    # the same directory by another path (a symlink) is the same directory
    ln -s "$RR_TMP/checkout" "$RR_TMP/alias"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/alias/out" -- true
    [ "$status" -eq 2 ]
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP" -- true
    [ "$status" -eq 2 ]
    assert_output_contains "is inside --out"
    run rr run --lower "$RR_TMP/checkout" --out "$RR_TMP/checkout/o" -- true
    [ "$status" -eq 2 ]
    mkdir -p "$RR_TMP/used" && echo '{}' >"$RR_TMP/used/result.json"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/used" -- true
    [ "$status" -eq 2 ]
    assert_output_contains "already holds"
    run rr review --lower "$RR_TMP/nothere" --out "$RR_TMP/out" -- true
    [ "$status" -eq 2 ]
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
}

@test "exit 1: the command failed (a missing container, a missing export)" {
    run rr state nothere
    [ "$status" -eq 1 ]
    run rr delete nothere
    [ "$status" -eq 1 ]
    run rr diff nothere
    [ "$status" -eq 1 ]
    run rr apply "$RR_TMP/no-export" --to "$WB/lower" --approve "$(printf '0%.0s' $(seq 64))"
    [ "$status" -eq 1 ]
}

@test "exit 3: the sandbox could not be set up; the agent was not started" {
    mkdir -p "$RR_TMP/host"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" --bind "$RR_TMP/host:/proc/x" \
        -- sh -c 'echo started'
    [ "$status" -eq 3 ]
    [ "$(result "$RR_TMP/out" '["exitCode"]')" = 3 ]
    [ ! -s "$RR_TMP/out/agent.log" ]
}

@test "exit 4: the agent ran out of time" {
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" --timeout 1 -- sleep 30
    [ "$status" -eq 4 ]
    [ "$(result "$RR_TMP/out" '["exitCode"]')" = 4 ]
}

@test "exit 5: a refused change set, from diff, export, writeback and review" {
    wb_agent root 'mkfifo pipe'
    wb_target
    run rr diff $(wb_pair)
    [ "$status" -eq 5 ]
    run rr export $(wb_pair) "$WB/out"
    [ "$status" -eq 5 ]
    run rr writeback $(wb_pair) --to "$WB/target" --approve "$(wb_digest)"
    [ "$status" -eq 5 ]
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- mkfifo pipe
    [ "$status" -eq 5 ]
    [ "$(result "$RR_TMP/out" '["verdict"]')" = refuse ]
}

@test "exit 6 and 7: a TARGET that moved on, a digest that is not the set's; nothing written" {
    wb_agent root 'echo more >> README'
    wb_target
    digest=$(wb_digest)
    run rr export $(wb_pair) "$WB/out"
    assert_success
    zero=$(printf '0%.0s' $(seq 64))
    run rr apply "$WB/out" --to "$WB/target" --approve "$zero"
    [ "$status" -eq 7 ]
    run rr writeback $(wb_pair) --to "$WB/target" --approve "$zero"
    [ "$status" -eq 7 ]
    echo edited >"$WB/target/README"
    before=$(wb_state "$WB/target")
    run rr apply "$WB/out" --to "$WB/target" --approve "$digest"
    [ "$status" -eq 6 ]
    run rr writeback $(wb_pair) --to "$WB/target" --approve "$digest"
    [ "$status" -eq 6 ]
    [ "$before" = "$(wb_state "$WB/target")" ]
}

@test "exit 8: the agent ran, then keeping its results failed" {
    # OUT/artifacts is a file: the artifacts cannot be copied out
    mkdir -p "$RR_TMP/out" && : >"$RR_TMP/out/artifacts"
    run rr review --lower "$RR_TMP/checkout" --out "$RR_TMP/out" --artifact '~/notes' \
        -- sh -c 'echo started; echo n > ~/notes'
    [ "$status" -eq 8 ]
    [ "$(result "$RR_TMP/out" '["exitCode"]')" = 8 ]
    grep -qx started "$RR_TMP/out/agent.log"
    grep -q artifacts "$RR_TMP/out/result.json"
}

@test "exit 255: exec could not start the process" {
    run rr exec nothere true
    [ "$status" -eq 255 ]
}

@test "the table: --help, the man page, docs/exit-codes.md and README.md list the same codes" {
    local help man doc readme
    help=$("$RR_BIN/revrun" --help | sed -n '/^exit status/,/^$/p' | awk '$1 ~ /^[0-9]+$/ {print $1}')
    man=$("$RR_BIN/revrun" --man | sed -n '/^\.SH EXIT STATUS/,/^\.SH SEE/p' |
        awk 'prev == ".TP" && $1 == ".B" {print $2} {prev = $0}')
    doc=$(awk -F'|' '$2 ~ /^ *[0-9]+ *$/ {gsub(/ /, "", $2); print $2}' "$REPO_ROOT/docs/exit-codes.md")
    [ "$(echo $help)" = "0 1 2 3 4 5 6 7 8 255" ]
    [ "$(echo $man)" = "$(echo $help)" ]
    [ "$(echo $doc)" = "$(echo $help)" ]
    readme=$(awk -F'|' '$2 ~ /^ *[0-9]+ *$/ {gsub(/ /, "", $2); print $2}' "$REPO_ROOT/README.md")
    [ "$(echo $readme)" = "$(echo $help)" ]
}
