#!/usr/bin/env bats
# revrun as a platform team installs it: `make deb` packages this build with
# the dependencies shlibdeps cannot see, lintian finds no error, apt
# installs it, the demo runs from the installed paths (presets, man page,
# completion, sweep timer, /run/revrun), and a purge leaves the machine as
# it was. Also: the install layout any PREFIX gets, the presets a copied
# binary carries, the completion script, the Makefile's per-module check.

load helpers

DEB_DIR="$REPO_ROOT/build/deb"

setup_file() {
    # the package of the build users get, also under `make check SANITIZE=1`
    # (whose SANITIZE reaches this make through MAKEFLAGS)
    if command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null; then
        env -u MAKEFLAGS -u MFLAGS -u SANITIZE make -C "$REPO_ROOT" deb >"$BATS_FILE_TMPDIR/deb.log" 2>&1 ||
            { cat "$BATS_FILE_TMPDIR/deb.log" >&3; return 1; }
    fi
}

setup() {
    rr_setup_tmp
    RUN_REVRUN_BEFORE=$([ -e /run/revrun ] && echo yes || echo no)
}

teardown() {
    # a package this suite installed never outlives it
    if [ -e "$RR_TMP/installed" ] && dpkg -s revrun >/dev/null 2>&1; then
        apt-get purge -y -o DPkg::Lock::Timeout=300 revrun >/dev/null 2>&1 || dpkg --purge revrun
    fi
    if [ "$RUN_REVRUN_BEFORE" = no ] && [ -d /run/revrun ]; then
        rmdir /run/revrun 2>/dev/null || true
    fi
    rr_destroy_all
    rr_teardown_tmp
}

the_deb() {
    ls "$DEB_DIR"/revrun_*_"$(dpkg --print-architecture)".deb
}

# A tool the suite needs: missing, the test is skipped, but under CI (which
# installs it, .ci/run) it fails.
need() {
    command -v "$1" >/dev/null && return 0
    if [ "${CI:-}" = true ]; then
        echo "$1 missing (.ci/run installs it)" >&2
        return 1
    fi
    skip "$1 missing (.ci/run installs it)"
}

need_deb() {
    need dpkg-buildpackage
    need dh
    [ -f "$(the_deb)" ]
}

# COMPLETE SCRIPT WORDS...: what the completion offers for the last word.
complete_words() {
    local script=$1
    shift
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _revrun
        printf "%s\n" "${COMPREPLY[@]}"' complete "$script" "$@"
}

@test "deb: the package declares every library revrun loads, and its version is the binary's" {
    need_deb
    deb=$(the_deb)
    depends=$(dpkg-deb -f "$deb" Depends)
    for want in "libgit2-1.5 | libgit2-1.7" "libssl3 | libssl3t64" libmount1 fuse-overlayfs \
        libseccomp2 libyajl2 zlib1g; do
        [[ "$depends" == *"$want"* ]] || { echo "Depends lacks $want: $depends" >&2; false; }
    done
    version=$("$RR_BIN/revrun" --version | awk 'NR == 1 {print $3}')
    [ "$(dpkg-deb -f "$deb" Version)" = "$version" ]
    contents=$(dpkg-deb -c "$deb")
    for path in ./usr/bin/revrun ./usr/share/man/man1/revrun.1.gz \
        ./usr/share/bash-completion/completions/revrun ./usr/share/revrun/agents/claude.json \
        ./lib/systemd/system/revrun-sweep.service ./lib/systemd/system/revrun-sweep.timer \
        ./usr/lib/tmpfiles.d/revrun.conf ./usr/share/doc/revrun/copyright; do
        [[ "$contents" == *" $path"* ]] || { echo "missing $path" >&2; false; }
    done
    dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/revrun/copyright | grep -q "License: Apache-2.0"
    # the timer is enabled by the maintainer scripts, the tmpfiles entry applied
    dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst | grep -q revrun-sweep.timer
    dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst | grep -q "systemd-tmpfiles"
}

@test "deb: lintian finds no error" {
    need_deb
    need lintian
    cp "$(the_deb)" "$RR_TMP/revrun.deb"
    chmod 0644 "$RR_TMP/revrun.deb"
    # as an unprivileged user, as lintian wants
    run setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --clear-groups \
        env HOME="$RR_TMP" lintian --fail-on error "$RR_TMP/revrun.deb"
    assert_success
    [[ "$output" != *"E: "* ]]
}

@test "deb: apt installs it; the demo runs from the installed paths; a purge leaves nothing" {
    need_deb
    if dpkg -s revrun >/dev/null 2>&1; then
        skip "a revrun package is installed already: not touched"
    fi
    [ ! -e /usr/bin/revrun ] || skip "/usr/bin/revrun exists: not overwritten"
    touch "$RR_TMP/installed"
    run apt-get install -y -o DPkg::Lock::Timeout=300 "$(the_deb)"
    assert_success
    [ "$(dpkg-query -W -f '${Status}' revrun)" = "install ok installed" ]
    [ -x /usr/bin/revrun ]
    /usr/bin/revrun --version | grep -q '^commit: '
    # the man page, with the exit-code table
    [ -f "$(man -w revrun)" ]
    zcat "$(man -w revrun)" | grep -q '^\.SH EXIT STATUS'
    # the completion completes commands and flags
    [ "$(complete_words /usr/share/bash-completion/completions/revrun revrun revi)" = review ]
    complete_words /usr/share/bash-completion/completions/revrun revrun review --best | grep -qx -- --best-effort
    # the timer is enabled, valid where systemd-analyze is there
    [ -L /etc/systemd/system/timers.target.wants/revrun-sweep.timer ]
    if command -v systemd-analyze >/dev/null; then
        run systemd-analyze verify /lib/systemd/system/revrun-sweep.timer /lib/systemd/system/revrun-sweep.service
        assert_success
    fi
    # tmpfiles.d made the state root
    [ "$(stat -c '%U %a' /run/revrun)" = "root 700" ]
    # presets: built in, and a file in the installed directory found by name
    sed 's/"name": "claude"/"name": "zz-installed"/' "$REPO_ROOT/agents/claude.json" \
        >/usr/share/revrun/agents/zz-installed.json
    run /usr/bin/revrun spec --agent zz-installed
    rm -f /usr/share/revrun/agents/zz-installed.json
    assert_success
    assert_output_contains "api.anthropic.com"
    # the demo, from the installed binary
    run env REVRUN="/usr/bin/revrun --root $RR_TMP/state" "$REPO_ROOT/examples/demo.sh"
    assert_success
    assert_output_contains "/etc/shadow is out of reach"
    assert_output_contains "digest: "
    # purged: nothing of it is left
    run apt-get purge -y -o DPkg::Lock::Timeout=300 revrun
    assert_success
    ! dpkg -s revrun >/dev/null 2>&1 || false
    [ ! -e /usr/bin/revrun ] && [ ! -e /usr/share/revrun ] && [ ! -e /usr/lib/tmpfiles.d/revrun.conf ] || false
    [ ! -e /lib/systemd/system/revrun-sweep.timer ]
    [ ! -L /etc/systemd/system/timers.target.wants/revrun-sweep.timer ]
    [ ! -e /usr/share/bash-completion/completions/revrun ]
    # and the tree's own build still runs
    "$REPO_ROOT/build/revrun" --version >/dev/null
}

@test "install: any PREFIX gets a tree whose binary finds its presets, nothing of PREFIX compiled in" {
    run make -C "$REPO_ROOT" install PREFIX="$RR_TMP/p"
    assert_success
    for f in bin/revrun share/man/man1/revrun.1 share/bash-completion/completions/revrun \
        share/revrun/agents/codex.json lib/systemd/system/revrun-sweep.timer \
        lib/tmpfiles.d/revrun.conf; do
        [ -f "$RR_TMP/p/$f" ] || { echo "missing $f" >&2; false; }
    done
    grep -qx "ExecStart=$RR_TMP/p/bin/revrun sweep --older-than 1h" \
        "$RR_TMP/p/lib/systemd/system/revrun-sweep.service"
    # a preset file of the installed tree overrides the built-in one
    sed 's|https://api.anthropic.com|https://models.internal.example|' "$REPO_ROOT/agents/claude.json" \
        >"$RR_TMP/p/share/revrun/agents/claude.json"
    run "$RR_TMP/p/bin/revrun" spec --agent claude
    assert_success
    assert_output_contains "models.internal.example"
    # the same binary copied alone carries the presets built in
    mkdir -p "$RR_TMP/alone"
    cp "$RR_TMP/p/bin/revrun" "$RR_TMP/alone/revrun"
    run "$RR_TMP/alone/revrun" spec --agent claude
    assert_success
    assert_output_contains "api.anthropic.com"
    run "$RR_TMP/alone/revrun" spec --agent gemini
    assert_success
}

@test "install: a preset near the binary that someone else could have planted is not read" {
    mkdir -p "$RR_TMP/x/bin" "$RR_TMP/x/share/revrun/agents"
    cp "$RR_BIN/revrun" "$RR_TMP/x/bin/revrun"
    sed 's|https://api.anthropic.com|https://attacker.example|' "$REPO_ROOT/agents/claude.json" \
        >"$RR_TMP/x/share/revrun/agents/claude.json"
    chmod 0777 "$RR_TMP/x/share/revrun/agents" # anyone may write there
    run "$RR_TMP/x/bin/revrun" spec --agent claude
    assert_success
    assert_output_contains "api.anthropic.com"
    [[ "$output" != *attacker.example* ]]
    chmod 0755 "$RR_TMP/x/share/revrun/agents"
    chown "$REVRUN_TEST_UID" "$RR_TMP/x/share/revrun/agents/claude.json" # another user's
    run "$RR_TMP/x/bin/revrun" spec --agent claude
    [[ "$output" != *attacker.example* ]]
    chown 0 "$RR_TMP/x/share/revrun/agents/claude.json" # root's, not writable by others: taken
    run "$RR_TMP/x/bin/revrun" spec --agent claude
    assert_output_contains "attacker.example"
}

@test "completion: commands, flags, fixed values, container IDs, files after --" {
    "$RR_BIN/revrun" --bash-completion >"$RR_TMP/c.bash"
    bash -n "$RR_TMP/c.bash"
    [ "$(complete_words "$RR_TMP/c.bash" revrun che)" = check ]
    complete_words "$RR_TMP/c.bash" revrun --ro | grep -qx -- --root
    complete_words "$RR_TMP/c.bash" revrun check --js | grep -qx -- --json
    complete_words "$RR_TMP/c.bash" revrun apply --t | grep -qx -- --to
    [ "$(complete_words "$RR_TMP/c.bash" revrun list --format "" | sort | xargs)" = "json table" ]
    [ "$(complete_words "$RR_TMP/c.bash" revrun --log-format j)" = json ]
    complete_words "$RR_TMP/c.bash" revrun review --agent cl | grep -qx claude
    complete_words "$RR_TMP/c.bash" revrun review --best-effort p | grep -qx pids
    # every flag --help lists for a command completes for it
    for flag in $("$RR_BIN/revrun" review --help | grep -oE '^  --[a-z-]+'); do
        complete_words "$RR_TMP/c.bash" revrun review "$flag" | grep -qx -- "$flag" ||
            { echo "review $flag does not complete" >&2; false; }
    done
    # container IDs, from the state root named on the line
    mkdir -p "$RR_TMP/co"
    "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/co" --keep --id comp-test -- true
    PATH="$RR_BIN:$PATH" complete_words "$RR_TMP/c.bash" revrun --root "$RR_ROOT" state comp | grep -qx comp-test
    # after --, the agent's command line: files
    touch "$RR_TMP/co/zz-file"
    (cd "$RR_TMP/co" && complete_words "$RR_TMP/c.bash" revrun review --lower . -- zz) | grep -qx zz-file
}

@test "make: a missing pkg-config module is named with the package that provides it" {
    printf '#!/bin/sh\nfor a; do [ "$a" = mount ] && exit 1; done\nexec pkg-config "$@"\n' >"$RR_TMP/pc"
    chmod +x "$RR_TMP/pc"
    run make -C "$REPO_ROOT" -n PKG_CONFIG="$RR_TMP/pc"
    [ "$status" -ne 0 ]
    assert_output_contains "pkg-config finds no mount: apt-get install libmount-dev"
    run make -C "$REPO_ROOT" -n PKG_CONFIG="$RR_TMP/no-such-pkg-config"
    [ "$status" -ne 0 ]
    assert_output_contains "apt-get install pkg-config"
}
