#!/usr/bin/env bats
# Each class the write-back stage refuses: revrun diff exits 5 naming the
# class, export writes nothing, writeback applies nothing, and TARGET stays
# byte for byte what it was. Uppers come from real mounts; the few shapes no
# mount produces (planted or impossible markers) are written into the upper
# directly, as a hostile backend or a tampered bundle would.

load helpers
load wb_helpers

setup() {
    wb_setup
}

teardown() {
    rr_teardown_tmp
}

refuse() {
    wb_agent "$1" "$2"
    wb_expect_refuse "$3"
}

@test "refuse: device node" {
    refuse root 'mknod dev c 1 3' special
}

@test "refuse: fifo" {
    refuse user 'mkfifo pipe' special
}

@test "refuse: socket" {
    refuse user "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")'" special
}

@test "refuse: absolute symlink" {
    refuse user 'ln -s /etc/passwd pw' symlink-escape
}

@test "refuse: symlink that climbs out with .." {
    refuse user 'ln -s ../../etc src/up' symlink-escape
}

@test "refuse: symlink that leaves the tree through another symlink" {
    # src/top -> .. is the top itself; out -> src/top/.. is above it
    refuse user 'ln -s .. src/top && ln -s src/top/.. out' symlink-escape
    assert_output_contains "out: symlink target leads out of the tree"
}

@test "refuse: symlinks apply would refuse though the merged tree keeps them inside, root and rootless" {
    # README is a file: the kernel stops there (ENOTDIR); apply reads the
    # target as text, where README/.. is the top and one more .. climbs out
    refuse user 'ln -s README/../../etc up && mkdir -p sub/a/b && ln -s a/b sub/lnk && ln -s sub/lnk/../../.. back' symlink-escape
    assert_output_contains 'up: symlink target leads out of the tree when read as text, as apply checks it'
    assert_output_contains 'back: symlink target leads out of the tree when read as text, as apply checks it'
    WB_AS_USER=1 wb_expect_refuse symlink-escape
}

@test "refuse: symlink into .git" {
    refuse user 'ln -s .git/config cfg' symlink-escape
    assert_output_contains "leads into .git"
}

@test "refuse: symlink that replaces a directory of the checkout" {
    refuse user 'rm -r docs && ln -s src docs' symlink-replaces-dir
}

@test "refuse: changed path whose parent is a symlink in the merged tree" {
    refuse user 'rm -r docs && ln -s src docs' parent-symlink
    assert_output_contains "docs/old/a.txt: its parent docs is a symlink"
}

@test "refuse: planted .wh. whiteout marker (kernel format)" {
    refuse user 'touch .wh.README' foreign-marker
}

@test "refuse: planted .wh..wh..opq opaque marker directory (kernel format)" {
    refuse root 'mkdir -p src/.wh..wh..opq' foreign-marker
}

@test "refuse: user.overlay.opaque planted through a root mount" {
    refuse root 'mkdir newdir && setfattr -n user.overlay.opaque -v y newdir' foreign-marker
    assert_output_contains "planted"
}

@test "refuse: fuse-overlayfs opaque xattr planted through a root mount" {
    refuse root 'setfattr -n user.fuseoverlayfs.opaque -v y src' foreign-marker
}

@test "refuse: overlay redirect xattr (trusted) in the upper" {
    wb_agent root 'mkdir newdir'
    setfattr -n trusted.overlay.redirect -v /docs "$WB/upper/newdir"
    wb_expect_refuse planted-marker
    assert_output_contains "never writes"
}

@test "refuse: overlay metacopy xattr (userxattr) in the upper" {
    wb_agent user 'echo more >> README'
    setfattr -n user.overlay.metacopy "$WB/upper/README"
    wb_expect_refuse planted-marker
}

@test "refuse: a non-empty origin in a userxattr upper" {
    wb_agent user 'echo more >> README'
    setfattr -n user.overlay.origin -v 0x00fb1d0001 "$WB/upper/README"
    wb_expect_refuse planted-marker
}

@test "refuse: whiteout with nothing beneath it" {
    wb_agent user 'echo x > new'
    mknod "$WB/upper/ghost" c 0 0
    wb_expect_refuse impossible-marker
}

@test "refuse: whiteout inside an opaque directory" {
    wb_agent user 'rm -r docs && mkdir docs'
    mknod "$WB/upper/docs/old" c 0 0
    wb_expect_refuse impossible-marker
}

@test "refuse: opaque marker on a file" {
    wb_agent user 'echo more >> README'
    setfattr -n user.overlay.opaque -v y "$WB/upper/README"
    wb_expect_refuse planted-marker
}

@test "refuse: directory over a checkout file without an opaque marker" {
    wb_agent user 'echo x > new'
    mkdir "$WB/upper/keep.txt"
    wb_expect_refuse impossible-marker
}

@test "refuse: xattr whiteout outside a directory that declares them" {
    wb_agent user 'echo x > new'
    touch "$WB/upper/keep.txt"
    setfattr -n user.overlay.whiteout "$WB/upper/keep.txt"
    wb_expect_refuse planted-marker
}

# overlayfs reads xattr whiteouts (an empty file with overlay.whiteout in a
# directory with opaque "x") only in lower layers userspace made, and never
# writes one: in an upper they are planted, and never honoured as deletions.
xwhiteout_planted() {
    local ns=$1
    wb_agent "$2" 'echo x > new'
    mkdir "$WB/upper/docs" "$WB/upper/docs/old"
    setfattr -n "$ns.overlay.opaque" -v x "$WB/upper/docs/old"
    touch "$WB/upper/docs/old/a.txt"
    setfattr -n "$ns.overlay.whiteout" "$WB/upper/docs/old/a.txt"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/upper/docs"
    wb_expect_refuse planted-marker
    assert_output_contains 'docs/old: opaque "x" (xattr whiteouts inside): overlayfs never writes it'
    assert_output_contains 'docs/old/a.txt: xattr whiteout: overlayfs never writes one'
}

@test "refuse: xattr whiteouts in a userxattr upper (planted-marker), vetted as root" {
    xwhiteout_planted user user
}

@test "refuse: xattr whiteouts in a userxattr upper (planted-marker), vetted rootless" {
    WB_AS_USER=1 xwhiteout_planted user user
}

@test "refuse: xattr whiteouts in a trusted upper (planted-marker)" {
    xwhiteout_planted trusted root
}

@test "refuse: the other kernel spelling: trusted.overlay.opaque in a userxattr upper" {
    wb_agent user 'echo x > new'
    mkdir "$WB/upper/src"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/upper/src"
    setfattr -n trusted.overlay.opaque -v y "$WB/upper/src"
    wb_expect_refuse foreign-marker
    assert_output_contains 'src: overlay marker of another format (planted): trusted.overlay.opaque'
}

@test "refuse: fuse-overlayfs' opaque xattr in a userxattr upper, root and rootless" {
    refuse user 'mkdir fresh && setfattr -n user.fuseoverlayfs.opaque -v y fresh' foreign-marker
    WB_AS_USER=1 wb_expect_refuse foreign-marker
}

@test "refuse: a kernel (userxattr) marker in a fuse-overlayfs upper, root and rootless" {
    wb_agent fuse 'mkdir fresh && echo x > fresh/f'
    setfattr -n user.overlay.opaque -v y "$WB/upper/fresh"
    wb_expect_refuse foreign-marker
    WB_AS_USER=1 wb_expect_refuse foreign-marker
}

@test "refuse: trusted.overlay.opaque in a fuse-overlayfs upper: revrun's unprivileged daemon cannot write it" {
    wb_agent fuse 'rm -r docs && mkdir docs && echo n > docs/n'
    # what the daemon wrote: the user spelling, never trusted.*
    [ "$(getfattr --only-values -n user.fuseoverlayfs.opaque "$WB/upper/docs")" = y ]
    setfattr -n trusted.overlay.opaque -v y "$WB/upper/docs"
    wb_expect_refuse planted-marker
    assert_output_contains "docs: trusted.overlay.* in a fuse-overlayfs upper"
}

@test "refuse: fuse-overlayfs .wh. entry that is not an empty file" {
    wb_agent fuse 'echo x > new'
    echo planted >"$WB/upper/.wh.README"
    wb_expect_refuse foreign-marker
}

@test "refuse: hard link" {
    refuse user 'ln keep.txt hard' hardlink
}

@test "refuse: setuid bit" {
    refuse user 'chmod u+s run.sh' mode-bits
}

@test "refuse: setgid bit on a file" {
    refuse user 'chmod g+s keep.txt' mode-bits
}

@test "refuse: sticky directory" {
    refuse user 'mkdir tmp && chmod +t tmp' mode-bits
}

@test "refuse: security.capability" {
    refuse root 'setfattr -n security.capability -v 0sAQAAAgAgAAAAAAAAAAAAAAAAAAA= run.sh' xattr
    assert_output_contains "security.capability"
}

@test "refuse: other trusted. xattr" {
    refuse root 'setfattr -n trusted.evil -v x keep.txt' xattr
}

@test "refuse: a file under .git" {
    refuse user 'echo "[alias]" >> .git/config' git
}

@test "refuse: replacing .git" {
    refuse user 'rm -rf .git && echo "gitdir: /tmp/elsewhere" > .git' git
}

@test "refuse: nested .git (an embedded repository), any spelling" {
    refuse user 'mkdir -p sub/.git && echo ref > sub/.git/HEAD' git
    refuse user 'mkdir -p other/.GIT' git
}

@test "refuse: a bare repository the agent made (git init --bare), root and rootless" {
    refuse user 'git init -q --bare tools/cache.git && git -C tools/cache.git config core.fsmonitor "touch /tmp/pwned"' embedded-repo
    assert_output_contains 'tools/cache.git: looks like a git directory'
    WB_AS_USER=1 wb_expect_refuse embedded-repo
}

@test "refuse: a hand-made git directory in any spelling macOS or Windows resolves" {
    refuse user 'mkdir -p a/objects a/refs && echo "ref: refs/heads/main" > a/HEAD &&
        mkdir -p b/OBJECTS b/Refs && echo "ref: refs/heads/main" > b/head &&
        mkdir c && echo "ref: refs/heads/main" > c/HEAD && echo ../.git > c/commondir' embedded-repo
    assert_output_contains 'a: looks like a git directory'
    assert_output_contains 'b: looks like a git directory'
    assert_output_contains 'c: looks like a git directory'
}

@test "refuse: HEAD added beside a checkout's objects/ and refs/, or a change inside a checkout's bare repository" {
    mkdir -p "$WB/lower/fixture/objects" "$WB/lower/fixture/refs" "$WB/lower/bare/objects" "$WB/lower/bare/refs"
    echo 'ref: refs/heads/main' >"$WB/lower/bare/HEAD"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/lower/fixture" "$WB/lower/bare"
    refuse user 'echo "ref: refs/heads/main" > fixture/HEAD && printf "[core]\n\tfsmonitor = evil\n" > bare/config' embedded-repo
    assert_output_contains 'fixture: looks like a git directory'
    assert_output_contains 'bare: looks like a git directory'
    WB_AS_USER=1 wb_expect_refuse embedded-repo
}

@test "accept: parts of a git directory that do not make one, and a checkout's bare repository left alone" {
    mkdir -p "$WB/lower/bare/objects" "$WB/lower/bare/refs"
    echo 'ref: refs/heads/main' >"$WB/lower/bare/HEAD"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/lower/bare"
    wb_agent user 'mkdir -p x/objects x/refs && echo data > x/objects/o && mkdir y && echo main > y/HEAD && mkdir -p y/refs &&
        mkdir -p z/objects z/refs z/HEAD && echo more >> README'
    wb_expect_accept
}

@test "refuse: protected glob (.gitmodules)" {
    refuse user 'printf "[submodule \"x\"]\n" > .gitmodules' protected
}

@test "refuse: .gitmodules in every spelling macOS or Windows takes for it" {
    refuse user 'i=0; for n in .GitModules .gitmodules. ".gitmodules " ".gitmodules::\$DATA" gitmod~1 GITMOD~4 gi7eba~1; do
        i=$((i + 1)); mkdir d$i && printf "[submodule \"x\"]\n" > "d$i/$n"; done' protected
    assert_output_contains 'd1/.GitModules: matches the protected glob .gitmodules'
    # a trailing dot or space is refused whatever the name
    assert_output_contains 'd2/.gitmodules.: name ends in a dot or a space'
    assert_output_contains 'd3/.gitmodules : name ends in a dot or a space'
    assert_output_contains 'd4/.gitmodules::$DATA: matches the protected glob .gitmodules'
    assert_output_contains 'd5/gitmod~1: matches the protected glob .gitmodules'
    assert_output_contains 'd6/GITMOD~4: matches the protected glob .gitmodules'
    assert_output_contains 'd7/gi7eba~1: matches the protected glob .gitmodules'
}

@test "refuse: newline in a name" {
    refuse user 'touch "$(printf "a\nb")"' path
}

@test "refuse: escape sequence in a name, and the output stays inert" {
    refuse user 'touch "$(printf "\033]0;pwned\007")"' path
    [[ "$output" != *$'\e'* ]]
    [[ "$output" != *$'\a'* ]]
    assert_output_contains '\x1b]0;pwned\x07'
}

@test "refuse: invalid UTF-8 in a name; JSON stays valid UTF-8" {
    refuse user 'touch "$(printf "bad\377")"' path
    run wb_revrun diff --json $(wb_pair)
    [ "$status" -eq 5 ]
    printf '%s' "$output" | python3 -c 'import json,sys; d=json.loads(sys.stdin.buffer.read().decode("utf-8")); assert d["verdict"]=="refuse"'
}

@test "refuse: a backslash in a name (a separator on Windows)" {
    refuse user 'touch ".git\\hooks\\post-checkout" && mkdir sub && touch "sub\\.GIT\\config" "x\\..\\..\\y"' backslash
    # printed escaped: a backslash shows as two
    assert_output_contains '.git\\hooks\\post-checkout: name holds a backslash'
    assert_output_contains 'sub\\.GIT\\config: name holds a backslash'
    assert_output_contains 'x\\..\\..\\y: name holds a backslash'
}

@test "refuse: a backslash in a symlink target" {
    refuse user 'ln -s "..\\..\\..\\Windows\\System32" win && ln -s ".git\\hooks" hooks' backslash
    assert_output_contains 'win: symlink target holds a backslash'
    assert_output_contains 'hooks: symlink target holds a backslash'
}

@test "refuse: deleting or retargeting a checkout symlink whose target is not UTF-8" {
    # the manifest could not carry the base target, so apply could never take it
    ln -s "$(printf 'bad\377')" "$WB/lower/badlink"
    ln -s "$(printf 'bad\376')" "$WB/lower/badlink2"
    chown -h "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$WB/lower/badlink" "$WB/lower/badlink2"
    refuse user 'rm badlink && ln -sfn README badlink2' symlink
    assert_output_contains "badlink: the checkout's symlink target is not valid UTF-8"
    assert_output_contains "badlink2: the checkout's symlink target is not valid UTF-8"
}

@test "refuse: bidirectional controls in names and symlink targets (Trojan Source), root and rootless" {
    # "evil\u202etxt.sh" shows as "evilhs.txt"; an isolate and a mark too
    refuse user 'touch "$(printf "evil\342\200\256txt.sh")" "$(printf "a\342\201\246b")" "$(printf "c\342\200\217")" &&
        ln -s "$(printf "README\342\200\256")" tl' bidi
    assert_output_contains 'evil\xe2\x80\xaetxt.sh: name holds a bidirectional control'
    assert_output_contains 'a\xe2\x81\xa6b: name holds a bidirectional control'
    assert_output_contains 'c\xe2\x80\x8f: name holds a bidirectional control'
    assert_output_contains 'tl: name holds a bidirectional control'
    # the report shows them escaped: no raw override reaches the terminal
    [[ "$output" != *$'\u202e'* ]]
    WB_AS_USER=1 wb_expect_refuse bidi
}

@test "refuse: invisible format characters in names and symlink targets, root and rootless" {
    refuse user 'touch "$(printf "ma\342\200\213in.c")" "$(printf "\357\273\277bom")" "$(printf "soft\302\255hyphen")" \
        "$(printf "zw\342\200\215j")" "$(printf "wj\342\201\240")" && ln -s "$(printf "src/ma\342\200\214in.c")" tl' invisible
    assert_output_contains 'ma\xe2\x80\x8bin.c: name holds an invisible format character'
    assert_output_contains 'bom: name holds an invisible format character'
    assert_output_contains 'hyphen: name holds an invisible format character'
    assert_output_contains 'j: name holds an invisible format character'
    assert_output_contains 'wj\xe2\x81\xa0: name holds an invisible format character'
    assert_output_contains 'tl: name holds an invisible format character'
    WB_AS_USER=1 wb_expect_refuse invisible
}

@test "refuse: lookalike dots and separators in names and symlink targets, root and rootless" {
    # "src\u2215main.c" reads as src/main.c, "\u2024\u2024" as "..", "\uff0egit" as ".git"
    refuse user 'touch "$(printf "src\342\210\225main.c")" "$(printf "\342\200\244\342\200\244")" "$(printf "\357\274\216git")" \
        "$(printf "a\342\201\204b")" "$(printf "a\357\274\217b")" "$(printf "a\342\247\270b")" "$(printf "a\342\200\245")" \
        "$(printf "a\357\274\274b")" "$(printf "nb\302\240sp")" &&
        ln -s "$(printf "\342\200\245\342\210\225etc")" tl' confusable
    for n in 'src\xe2\x88\x95main.c' '\xe2\x80\xa4\xe2\x80\xa4' '\xef\xbc\x8egit' 'a\xe2\x81\x84b' 'a\xef\xbc\x8fb' \
        'a\xe2\xa7\xb8b' 'a\xe2\x80\xa5' 'a\xef\xbc\xbcb' 'nb\xc2\xa0sp' tl; do
        assert_output_contains "$n: name holds a lookalike of a slash, backslash, dot or space"
    done
    WB_AS_USER=1 wb_expect_refuse confusable
}

@test "refuse: names that collide under case folding" {
    refuse user 'echo x > readme' collision
    assert_output_contains 'readme: collides with "README"'
}

@test "refuse: names that collide under Unicode normalization" {
    refuse user 'echo a > "$(printf "caf\303\251")" && echo b > "$(printf "cafe\314\201")"' collision
}

@test "refuse: names that collide on Windows: trailing dot or space, :stream" {
    refuse user 'echo x > run.sh. && echo y > "run.sh " && echo z > "run.sh:x"' collision
    assert_output_contains 'run.sh.: name ends in a dot or a space (Windows drops it) [path]'
    assert_output_contains 'run.sh : name ends in a dot or a space (Windows drops it) [path]'
    assert_output_contains 'run.sh:x: collides with "run.sh"'
}

@test "refuse: MICRO SIGN next to GREEK SMALL LETTER MU" {
    refuse user 'echo a > "$(printf "\302\265")" && echo b > "$(printf "\316\274")"' collision
}

@test "refuse: path deeper than the cap" {
    refuse user 'mkdir -p "$(printf "d/%.0s" $(seq 65))" && touch "$(printf "d/%.0s" $(seq 65))f"' path
    assert_output_contains "deeper than the cap"
}

@test "refuse: path longer than the cap" {
    refuse user 'for i in $(seq 17); do d=$(printf "%0250d" $i); mkdir $d && cd $d; done; touch f' path
    assert_output_contains "longer than the cap"
}

@test "refuse: a file over the per-file cap" {
    refuse user 'truncate -s 101M big' file-cap
    assert_output_contains "over the per-file cap of 104857600"
}

@test "refuse: the agent made a directory unreadable" {
    refuse user 'mkdir locked && echo x > locked/f && chmod 000 locked' unreadable
}
