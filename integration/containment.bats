#!/usr/bin/env bats
# Containment, judged from the host: canaries planted on the host before a
# probe runs inside revrun, then checked from outside (the bytes, the
# process table, the mount table). The probes are the static programs of
# integration/probes/, carried in through the checkout. This part: the
# agent's identity, host secrets, writes and processes; the network,
# sockets, seccomp, terminal and fds: containment_reach.bats; revrun's own
# protection, /proc, Landlock, nested sandboxes and the ceilings:
# containment_hardening.bats. THREAT_MODEL.md's Containment table names
# these tests.

load containment_helpers

# ---- identity ----

@test "identity: no capability in any set, no_new_privs, seccomp filtering" {
    run rr_run $P/ids
    assert_success
    assert_identity
}

@test "identity (rootless): no capability in any set, no_new_privs, seccomp filtering" {
    rootless_checkout
    run rr_run_rootless $P/ids
    assert_success
    assert_identity
}

@test "identity: the agent is an unprivileged host uid; the checkout changes through the idmapped overlay, never chowned" {
    chown -R 4242:4242 "$RR_TMP/checkout"
    chmod 0644 "$RR_TMP/checkout/a.txt"
    make_bundle "$(args '["sh", "-c", "echo changed >> a.txt && stat -c %u a.txt && sleep 300 # '"$TAG"'"]')"
    rr_bundle create u1-$X </dev/null >"$RR_TMP/log" 2>&1
    rr start u1-$X
    agent=$(root_match "$TAG")
    # seen from the host: the container user is an id of revrun's range
    # (its own: hostids.bats), nobody's
    hid=$(awk '/^Uid:/ {print $2}' /proc/"$agent"/status)
    [ "$hid" -ge 2000000000 ] && [ "$hid" -le 2000065535 ] || false
    [ "$(awk '/^Uid:/ {print $2, $3, $4, $5}' /proc/"$agent"/status)" = "$hid $hid $hid $hid" ]
    [ "$(awk '/^Gid:/ {print $2}' /proc/"$agent"/status)" = "$hid" ]
    [ "$(awk '/^Groups:/ {print $2}' /proc/"$agent"/status)" = "" ]
    ! getent passwd "$hid" || false
    # inside, the checkout's owner appears as the agent, who could write
    [ "$(cat "$RR_TMP/log")" = 1000 ]
    # on the host, nothing of the checkout changed, owner included
    [ "$(stat -c '%u:%g %a' "$RR_TMP/checkout/a.txt")" = "4242:4242 644" ]
    [ "$(cat "$RR_TMP/checkout/a.txt")" = hello ]
    rr destroy --force u1-$X
}

@test "identity (rootless): the agent is the caller's own uid on the host" {
    rootless_checkout
    make_bundle "$(args '["sh", "-c", "sleep 300 # '"$TAG"'"]')"
    rr_bundle_rootless create u2-$X </dev/null
    as_user "$RR_BIN/revrun" start u2-$X
    agent=$(root_match "$TAG")
    [ "$(awk '/^Uid:/ {print $2, $3, $4, $5}' /proc/"$agent"/status)" = \
        "$REVRUN_TEST_UID $REVRUN_TEST_UID $REVRUN_TEST_UID $REVRUN_TEST_UID" ]
    [ "$(awk '/^CapEff:/ {print $2}' /proc/"$agent"/status)" = 0000000000000000 ]
    as_user "$RR_BIN/revrun" destroy --force u2-$X
    assert_no_tagged_process
}

# A rootless caller with supplementary groups (here ssl-cert and users): the
# agent's process has none of them, seen from the host's /proc; the broker
# of its kind and pid 1 neither (they are forked after the monitor dropped them).
@test "identity (rootless): the caller's supplementary groups are dropped (host /proc Groups empty)" {
    getent group ssl-cert >/dev/null || skip "no ssl-cert group"
    grep -q "^revrun-ci:" /etc/subgid 2>/dev/null || skip "no subordinate gid range for the test user"
    rootless_checkout
    local rt="$RR_TMP/xdg-$REVRUN_TEST_UID" secs=$((300000 + RANDOM)) pid=
    mkdir -p "$rt" && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$rt" && chmod 0700 "$rt"
    rr_delegate_cgroups
    setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --groups=ssl-cert,users \
        --inh-caps=-all --reset-env -- env HOME="$rt" XDG_RUNTIME_DIR="$rt" PATH=/usr/bin:/bin \
        "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- sleep $secs >"$RR_TMP/grp.out" 2>&1 &
    KILL_PIDS+=($!)
    for _ in $(seq 100); do
        pid=$(pgrep -x -f "sleep $secs" | head -1)
        [ -n "$pid" ] && break
        sleep 0.1
    done
    [ -n "$pid" ] || { cat "$RR_TMP/grp.out"; return 1; }
    grep Groups "/proc/$pid/status" >&3
    groups=$(sed -n 's/^Groups:[[:space:]]*//p' "/proc/$pid/status")
    kill "$pid"
    [ "$(stat -c %u "/proc/$pid" 2>/dev/null || echo "$REVRUN_TEST_UID")" = "$REVRUN_TEST_UID" ]
    [ -z "${groups// /}" ]
}

@test "identity: a setuid-root binary inside gains nothing" {
    chown 4242:4242 "$RR_TMP/checkout"
    cp "$RR_BIN/ids" "$RR_TMP/checkout/suid-ids"
    chown 0:0 "$RR_TMP/checkout/suid-ids"
    chmod 4755 "$RR_TMP/checkout/suid-ids"
    run rr_run /workspace/suid-ids
    assert_success
    assert_identity
}

# ---- host secrets ----

@test "secrets: the caller's GITHUB_TOKEN, ANTHROPIC_API_KEY and AWS_* never reach the agent" {
    run env GITHUB_TOKEN="gh-$TAG" ANTHROPIC_API_KEY="ak-$TAG" AWS_ACCESS_KEY_ID="aid-$TAG" \
        AWS_SECRET_ACCESS_KEY="sk-$TAG" AWS_SESSION_TOKEN="st-$TAG" \
        "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- \
        sh -c 'env; cat /proc/self/environ /proc/1/environ 2>&1; echo end'
    assert_success
    assert_output_contains "PATH="
    assert_output_contains "end"
    [[ "$output" != *"$TAG"* ]]
    [[ "$output" != *GITHUB_TOKEN* && "$output" != *ANTHROPIC* && "$output" != *AWS_* ]]
}

@test "secrets: a checkout whose .git/config holds a token (extraheader, URL) is refused; nothing runs" {
    git -C "$RR_TMP/checkout" init -q
    git -C "$RR_TMP/checkout" remote add origin https://github.com/o/r
    run rr_run sh -c "echo ran >/out/marker"
    assert_success # an ordinary remote is fine
    rm -f "$RR_TMP/out/marker"
    git -C "$RR_TMP/checkout" config http.https://github.com/.extraheader "AUTHORIZATION: basic $TAG"
    run rr_run sh -c "echo ran >/out/marker"
    assert_failure
    assert_output_contains "persist-credentials: false"
    [ ! -e "$RR_TMP/out/marker" ]
    git -C "$RR_TMP/checkout" config --unset-all http.https://github.com/.extraheader
    git -C "$RR_TMP/checkout" remote set-url origin "https://x-access-token:$TAG@github.com/o/r"
    run rr_run sh -c "echo ran >/out/marker"
    assert_failure
    [[ "$output" != *"$TAG"* ]] # the error names the line, never the secret
    [ ! -e "$RR_TMP/out/marker" ]
    # a submodule's own config, where actions/checkout puts the token too
    git -C "$RR_TMP/checkout" remote set-url origin https://github.com/o/r
    mkdir -p "$RR_TMP/checkout/.git/modules/libs/sub"
    printf '[http "https://github.com/"] extraheader = AUTHORIZATION: basic %s\n' "$TAG" \
        >"$RR_TMP/checkout/.git/modules/libs/sub/config"
    run rr_run sh -c "echo ran >/out/marker"
    assert_failure
    assert_output_contains ".git/modules/libs/sub/config line 1"
    [ ! -e "$RR_TMP/out/marker" ]
    # many submodules with their objects are no reason to refuse
    rm "$RR_TMP/checkout/.git/modules/libs/sub/config"
    for m in $(seq 1 30); do
        mkdir -p "$RR_TMP/checkout/.git/modules/m$m/refs"
        echo "ref: refs/heads/main" >"$RR_TMP/checkout/.git/modules/m$m/HEAD"
        printf '[core]\n\tbare = false\n' >"$RR_TMP/checkout/.git/modules/m$m/config"
        for o in $(seq 0 199); do mkdir -p "$RR_TMP/checkout/.git/modules/m$m/objects/$o"; done
    done
    run rr_run sh -c "echo ran >/out/marker"
    assert_success
    [ -e "$RR_TMP/out/marker" ]
}

# Refused before anything runs, naming the file and line, never the secret.
refused_for() {
    run rr_run sh -c "echo ran >/out/marker"
    assert_failure
    assert_output_contains "persist-credentials: false"
    assert_output_contains "$1"
    [[ "$output" != *"$TAG"* ]]
    [ ! -e "$RR_TMP/out/marker" ]
}

@test "secrets: a token in a symlinked .git/config or in a file it includes ([include], [includeIf]) is refused; nothing runs" {
    local co="$RR_TMP/checkout" url="https://x-access-token:$TAG@github.com/o/r"
    git -C "$co" init -q
    # a symlinked config, leading to a file inside the checkout (git follows it)
    git -C "$co" remote add origin "$url"
    mv "$co/.git/config" "$co/.git/config.real"
    ln -s config.real "$co/.git/config"
    refused_for "$co/.git/config line "
    # absolute, naming the checkout's place inside
    ln -sfn /workspace/.git/config.real "$co/.git/config"
    refused_for "$co/.git/config.real line "
    rm "$co/.git/config"; mv "$co/.git/config.real" "$co/.git/config"
    # an [include]d file, relative to the including config's directory
    git -C "$co" remote remove origin
    git config --file "$co/.git/creds.inc" remote.origin.url "$url"
    git -C "$co" config include.path creds.inc
    refused_for "$co/.git/creds.inc line 2 holds a URL with a user or password in it (included from $co/.git/config line "
    # [includeIf "gitdir:/"], nested one include deeper, an extraheader
    git -C "$co" config --unset include.path
    git config --file "$co/.git/hdr.inc" include.path ../extra.inc
    git config --file "$co/extra.inc" http.extraheader "AUTHORIZATION: basic $TAG"
    git -C "$co" config 'includeIf.gitdir:/.path' hdr.inc
    refused_for "$co/.git/../extra.inc line 2 holds an http.extraheader"
    # without the token the same includes run
    git config --file "$co/extra.inc" --unset http.extraheader
    run rr_run sh -c "git -C /workspace config --get include.path; echo ran >/out/marker"
    assert_success
    [ -e "$RR_TMP/out/marker" ]
}

@test "secrets: a .git/config linked to a host file outside the checkout runs: inside the link leads nowhere" {
    local co="$RR_TMP/checkout"
    git -C "$co" init -q
    echo "[remote \"origin\"] url = https://x-access-token:$TAG@github.com/o/r" >"$RR_TMP/host-config"
    chmod 0644 "$RR_TMP/host-config"
    ln -sfn "$RR_TMP/host-config" "$co/.git/config"
    run rr_run sh -c "$P/try read /workspace/.git/config; echo ran >/out/marker"
    assert_success
    assert_output_contains "ENOENT"
    [[ "$output" != *"$TAG"* ]]
    [ -e "$RR_TMP/out/marker" ]
    # one whose ".." leaves the checkout is refused: revrun cannot tell
    rm -f "$RR_TMP/out/marker"
    ln -sfn ../../host-config "$co/.git/config"
    run rr_run sh -c "echo ran >/out/marker"
    assert_failure
    assert_output_contains "$co/.git/../../host-config: a symlink or \"..\" on its path leads out of $co"
    [ ! -e "$RR_TMP/out/marker" ]
}

@test "secrets (rootless): a token in a file .git/config includes is refused; nothing runs" {
    local co="$RR_TMP/checkout"
    git -C "$co" init -q
    git config --file "$co/.git/creds.inc" remote.origin.url "https://x-access-token:$TAG@github.com/o/r"
    git -C "$co" config include.path creds.inc
    rootless_checkout
    run rr_run_rootless sh -c "echo ran >/out/marker"
    assert_failure
    assert_output_contains "$co/.git/creds.inc line 2 holds a URL"
    [[ "$output" != *"$TAG"* ]]
    [ ! -e "$RR_TMP/out/marker" ]
}

@test "secrets: canary files in \$HOME and /root are unreadable and a host /tmp canary is shadowed" {
    for f in "$HOME/.$TAG-home" "/root/.$TAG-root" "/tmp/$TAG-tmp"; do
        echo "secret-$TAG" >"$f"
        chmod 0644 "$f"
        CANARIES+=("$f")
    done
    run rr_run sh -c "
        for f in '$HOME/.$TAG-home' '/root/.$TAG-root' '/tmp/$TAG-tmp'; do $P/try read \"\$f\"; done
        ls -A /tmp /root $HOME 2>&1
        grep -rs '$TAG' /tmp /home /root /etc 2>/dev/null; echo end"
    assert_success
    assert_output_contains "end"
    [ "$(grep -c '^ENOENT$' <<<"$output")" = 3 ]
    [[ "$output" != *"secret-$TAG"* ]]
    [[ "$output" != *"$TAG-"* ]]
    for f in "${CANARIES[@]}"; do [ "$(cat "$f")" = "secret-$TAG" ]; done
}

@test "secrets (rootless): a canary in the caller's \$HOME is unreadable" {
    rootless_checkout
    home="$RR_TMP/xdg-$REVRUN_TEST_UID"
    mkdir -p "$home"
    echo "secret-$TAG" >"$home/.$TAG"
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$home"
    run rr_run_rootless sh -c "$P/try read '$home/.$TAG'; ls -A /home 2>&1; echo \$HOME"
    assert_success
    assert_output_contains "ENOENT"
    [[ "$output" != *"secret-$TAG"* ]]
}

# ---- writes ----

# A rootless caller in the ssl-cert group (which may read the host's TLS
# keys): /etc/ssl/private is not in the sandbox, the certificates are.
@test "secrets (rootless): /etc/ssl/private stays out even for a caller in its group; certificates are there" {
    getent group ssl-cert >/dev/null || skip "no ssl-cert group"
    [ -d /etc/ssl/private ] || skip "no /etc/ssl/private"
    local key="/etc/ssl/private/revrun-$TAG.pem"
    echo "PRIVATE-KEY-$TAG" >"$key"
    chown root:ssl-cert "$key"
    chmod 0640 "$key"
    CANARIES+=("$key")
    rootless_checkout
    local rt="$RR_TMP/xdg-$REVRUN_TEST_UID"
    mkdir -p "$rt" && chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$rt" && chmod 0700 "$rt"
    rr_delegate_cgroups
    run setpriv --reuid="$REVRUN_TEST_UID" --regid="$REVRUN_TEST_GID" --groups=ssl-cert \
        --inh-caps=-all --reset-env -- env HOME="$rt" XDG_RUNTIME_DIR="$rt" PATH=/usr/bin:/bin \
        "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- \
        sh -c "cat $key; echo private=\$(ls /etc/ssl/private 2>&1 >/dev/null | grep -c 'No such file'); echo certs=\$(ls /etc/ssl/certs | wc -l)"
    assert_success
    [[ "$output" != *"PRIVATE-KEY-$TAG"* ]]
    [ "$(kv private)" = 1 ]
    [ "$(kv certs)" -gt 0 ]
}

@test "writes: only the upper, the out-dir and the agent's tmpfs take writes; no host file changes" {
    # a host directory bound read-only, where the host's permissions would
    # let anyone write
    mkdir -p "$RR_TMP/hostdir"
    echo orig >"$RR_TMP/hostdir/ww"
    chmod 0777 "$RR_TMP/hostdir"
    chmod 0666 "$RR_TMP/hostdir/ww"
    script writes.sh <<EOF
#!/bin/sh
for f in /$TAG /etc/$TAG /etc/ssl/$TAG /usr/$TAG /bin/$TAG /lib/$TAG /proc/sys/kernel/hostname \
         /hostdir/ww /hostdir/new; do
    echo "\$f \$($P/try write \$f)"
done
echo "trunc-ww \$($P/try trunc /hostdir/ww)"
echo "trunc-env \$($P/try trunc /usr/bin/env)"
echo "mkdir-etc \$($P/try mkdir /etc/$TAG.d)"
for f in /workspace/new /workspace/a.txt /out/new /tmp/new /home/agent/new; do
    echo "\$f \$($P/try write \$f)"
done
EOF
    before=$(cd "$RR_TMP/checkout" && find . -type f -exec sha256sum {} + | sort)
    env_sum=$(sha256sum /usr/bin/env)
    make_bundle \
        'c["mounts"].append({"destination": "/hostdir", "type": "bind", "source": "'"$RR_TMP/hostdir"'", "options": ["rbind", "ro"]})' \
        "$(args "[\"$P/writes.sh\"]")"
    run rr_bundle run w1-$X
    assert_success
    for f in /$TAG /etc/$TAG /etc/ssl/$TAG /usr/$TAG /bin/$TAG /lib/$TAG /proc/sys/kernel/hostname \
        /hostdir/ww /hostdir/new trunc-ww trunc-env mkdir-etc; do
        line=$(grep "^$f " <<<"$output")
        [[ "$line" == *" EROFS" || "$line" == *" EACCES" ]] || {
            echo "write to $f: $line" >&2
            return 1
        }
    done
    for f in /workspace/new /workspace/a.txt /out/new /tmp/new /home/agent/new; do
        grep -q "^$f ok$" <<<"$output"
    done
    # from the host: the out-dir got its file; nothing else changed
    [ "$(cat "$RR_TMP/out/new")" = x ]
    [ "$(cat "$RR_TMP/hostdir/ww")" = orig ] && [ ! -e "$RR_TMP/hostdir/new" ] || false
    [ ! -e "/usr/$TAG" ] && [ ! -e "/etc/$TAG" ] && [ ! -e "/tmp/new" ] && [ ! -e "/$TAG" ] || false
    [ "$(sha256sum /usr/bin/env)" = "$env_sum" ]
    after=$(cd "$RR_TMP/checkout" && find . -type f -exec sha256sum {} + | sort)
    [ "$before" = "$after" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "writes: chmod and remount of read-only binds fail, and a write still gets EROFS" {
    mode=$(stat -c %a /usr/bin/env)
    run rr_run sh -c "
        echo chmod-usr \$($P/try chmod /usr/bin/env 777)
        echo chmod-root \$($P/try chmod /etc/passwd 666)
        echo remount \$($P/try remount-rw /usr)
        echo remount-root \$($P/try remount-rw /)
        echo write-after \$($P/try write /usr/$TAG)"
    assert_success
    grep -q '^chmod-usr EROFS$' <<<"$output"
    grep -q '^chmod-root EROFS$' <<<"$output"
    grep -q '^remount EPERM$' <<<"$output"
    grep -q '^remount-root EPERM$' <<<"$output"
    grep -q '^write-after EROFS$' <<<"$output"
    [ "$(stat -c %a /usr/bin/env)" = "$mode" ]
    [ ! -e "/usr/$TAG" ]
}

@test "writes (rootless): read-only binds refuse writes, chmod and remount" {
    rootless_checkout
    run rr_run_rootless sh -c "
        echo write \$($P/try write /usr/$TAG)
        echo chmod \$($P/try chmod /usr/bin/env 777)
        echo remount \$($P/try remount-rw /usr)
        echo out \$($P/try write /out/new)"
    assert_success
    grep -q '^write EROFS$' <<<"$output"
    grep -q '^chmod EROFS$' <<<"$output"
    grep -q '^remount EPERM$' <<<"$output"
    grep -q '^out ok$' <<<"$output"
    [ ! -e "/usr/$TAG" ]
    [ "$(cat "$RR_TMP/out/new")" = x ]
}

# ---- processes ----

@test "processes: a host process's pid is invisible and cannot be signalled" {
    sleep 300 &
    host_pid=$!
    KILL_PIDS+=("$host_pid")
    run rr_run sh -c "$P/try kill $host_pid; $P/try read /proc/$host_pid/status; $P/ids"
    assert_success
    [ "$(sed -n 1p <<<"$output")" = ESRCH ]
    [ "$(sed -n 2p <<<"$output")" = ENOENT ]
    # sh, ids, pid 1 and the NXDOMAIN resolver; while they walk, the
    # checkout's warmers (runtime/container/warm.h), one per CPU, at most
    # eight: nothing else is visible
    [ "$(kv pids)" -le 4 ]
    [ "$(kv warmers)" -le 8 ]
    kill -0 "$host_pid"
}

@test "nothing outlives: a setsid double-forked grandchild dies with the main process" {
    run rr_run sh -c "(setsid sh -c 'sleep 2; echo late > /out/marker; sleep 300 # $TAG' \
        </dev/null >/dev/null 2>&1 &); sleep 0.5; exit 0"
    assert_success
    assert_no_tagged_process
    sleep 3
    [ ! -e "$RR_TMP/out/marker" ]
}

@test "nothing outlives: destroy and kill end every process, a detached grandchild included" {
    make_bundle "$(args "[\"sh\", \"-c\", \"(setsid sh -c 'sleep 2; echo late > /out/marker; sleep 300 # $TAG' </dev/null >/dev/null 2>&1 &); exec sleep 300\"]")"
    rr_bundle create d1-$X </dev/null
    rr start d1-$X
    wait_tagged_process
    init=$(state_field d1-$X '["pid"]')
    rr destroy --force d1-$X
    assert_no_tagged_process
    assert_dead "$init"
    [ ! -e "$RR_ROOT/d1" ]
    rr_bundle create k1-$X </dev/null
    rr start k1-$X
    wait_tagged_process
    rr kill k1-$X KILL
    wait_stopped k1-$X
    assert_no_tagged_process
    rr destroy k1-$X
    sleep 3
    [ ! -e "$RR_TMP/out/marker" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
}

@test "signals: pid 1 forwards SIGTERM, SIGINT and SIGHUP; the exit status propagates" {
    make_bundle "$(args '["sh", "-c", "for s in TERM INT HUP; do trap \"echo $s > /out/got; exit 3\" $s; done; : > /out/ready; while :; do sleep 0.1; done"]')"
    for sig in TERM INT HUP; do
        rm -f "$RR_TMP/out/got" "$RR_TMP/out/ready"
        rr_bundle create s1-$X </dev/null
        rr start s1-$X
        # the traps are set (a signal before them ends the shell: not 3)
        for _ in $(seq 100); do [ -e "$RR_TMP/out/ready" ] && break; sleep 0.1; done
        rr kill s1-$X "$sig"
        wait_stopped s1-$X
        [ "$(state_field s1-$X '["revrun"]["exit"]["code"]')" = 3 ]
        [ "$(cat "$RR_TMP/out/got")" = "$sig" ]
        rr destroy s1-$X
    done
    run rr_run sh -c 'exit 7'
    [ "$status" -eq 7 ]
    run rr_run sh -c 'kill -TERM $$'
    [ "$status" -eq 143 ]
}
