#!/usr/bin/env bats
# Containment, judged from the host: canaries planted on the host before a
# probe runs inside revrun, then checked from outside (the bytes, the
# process table, the mount table, a listener's log). The probes are the
# static programs of integration/probes/, carried in through the checkout.
# THREAT_MODEL.md's Containment table names these tests.

load helpers

P=/workspace/.probes
# An unprivileged identity nobody delegates a cgroup to (as_user delegates to
# REVRUN_TEST_UID, and suites running side by side share that one).
NODELEG_UID=$((REVRUN_TEST_UID + 17))
NODELEG_GID=$((REVRUN_TEST_GID + 17))

setup() {
    rr_setup_tmp
    mkdir -p "$RR_TMP/checkout/.probes" "$RR_TMP/out"
    echo hello >"$RR_TMP/checkout/a.txt"
    cp "$RR_BIN"/{ids,sys,try,bomb} "$RR_TMP/checkout/.probes/"
    chmod -R a+rX "$RR_TMP/checkout"
    chmod 0777 "$RR_TMP/out"
    TAG="revrun-canary-$$-$RANDOM"
    # Container IDs name cgroups host-wide: unique ones keep parallel runs apart.
    X="ct$RANDOM$BATS_TEST_NUMBER"
    ROOTLESS=
    SPEC_UID=$REVRUN_TEST_UID
    SPEC_GID=$REVRUN_TEST_GID
    KILL_PIDS=()
    CANARIES=()
    MOUNTS_BEFORE=$(mount_points)
}

teardown() {
    local pid d
    for pid in "${KILL_PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    rr_destroy_all
    rr_destroy_all "$RR_TMP/other-root"
    for d in "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun"/*/; do
        [ -d "$d" ] && as_user "$RR_BIN/revrun" destroy --force "$(basename "$d")"
    done
    rm -f "${CANARIES[@]}"
    # nothing of the container may outlive a test, whatever it did
    pkill -9 -f "$TAG" 2>/dev/null || true
    rr_teardown_tmp
}

rr() {
    "$RR_BIN/revrun" --root "$RR_ROOT" "$@"
}

# The default spec around the test checkout, with /out bound read-write.
rr_run() {
    rr run --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- "$@"
}

rootless_checkout() {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/checkout" "$RR_TMP/out"
    ROOTLESS=1
}

# Run as NODELEG_UID, its state under $RR_TMP/nodeleg; bundles made after
# nodeleg_setup are its own.
undelegated() {
    setpriv --reuid="$NODELEG_UID" --regid="$NODELEG_GID" --clear-groups --reset-env -- \
        env HOME="$RR_TMP/nodeleg" XDG_RUNTIME_DIR="$RR_TMP/nodeleg" PATH=/usr/bin:/bin "$@"
}

nodeleg_setup() {
    mkdir -p "$RR_TMP/nodeleg"
    chown "$NODELEG_UID:$NODELEG_GID" "$RR_TMP/nodeleg"
    chmod 0700 "$RR_TMP/nodeleg"
    ROOTLESS=1
    SPEC_UID=$NODELEG_UID
    SPEC_GID=$NODELEG_GID
}

# An executable script in the checkout, run inside as $P/NAME (stdin: its text).
script() {
    cat >"$RR_TMP/checkout/.probes/$1"
    chmod 0755 "$RR_TMP/checkout/.probes/$1"
}

rr_run_rootless() {
    as_user "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" --out "$RR_TMP/out" -- "$@"
}

# A bundle from the default spec, /out bound, then edited by the Python
# statements given (c is the config), e.g. 'c["revrun"]["nestedSandboxes"] = True'.
make_bundle() {
    mkdir -p "$RR_TMP/bundle/rootfs"
    if [ -n "$ROOTLESS" ]; then
        setpriv --reuid="$SPEC_UID" --regid="$SPEC_GID" --clear-groups -- \
            env XDG_RUNTIME_DIR="$RR_TMP" "$RR_BIN/revrun" spec --lower "$RR_TMP/checkout" \
            >"$RR_TMP/bundle/config.json"
    else
        rr spec --lower "$RR_TMP/checkout" >"$RR_TMP/bundle/config.json"
    fi
    python3 - "$RR_TMP/bundle/config.json" "$RR_TMP/out" "$@" <<'EOF'
import json, sys
p, out = sys.argv[1], sys.argv[2]
c = json.load(open(p))
c["mounts"].append({"destination": "/out", "type": "bind", "source": out,
                    "options": ["bind", "rw", "nosuid", "nodev"]})
for stmt in sys.argv[3:]:
    exec(stmt)
json.dump(c, open(p, "w"), indent=2)
EOF
}

# Process args for the bundle, as a JSON list in Python syntax.
args() {
    printf 'c["process"]["args"] = %s' "$1"
}

rr_bundle() {
    (cd "$RR_TMP/bundle" && rr "$@")
}

rr_bundle_rootless() {
    chown -R "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/bundle"
    (cd "$RR_TMP/bundle" && as_user "$RR_BIN/revrun" "$@")
}

# The value of KEY= in $output.
kv() {
    sed -n "s/^$1=//p" <<<"$output" | head -1
}

state_field() {
    rr state "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$2"
}

wait_stopped() {
    for _ in $(seq 100); do
        [ "$(state_field "$1" '["status"]')" = stopped ] && return 0
        sleep 0.1
    done
    return 1
}

# No process on the host carries the test's tag any more.
assert_no_tagged_process() {
    if pgrep -f "$TAG" >/dev/null; then
        echo "still running:" >&2
        pgrep -af "$TAG" >&2
        return 1
    fi
}

wait_tagged_process() {
    for _ in $(seq 100); do
        pgrep -f "$TAG" >/dev/null && return 0
        sleep 0.1
    done
    return 1
}

assert_identity() {
    [ "$(kv uid)" = 1000 ] && [ "$(kv euid)" = 1000 ]
    local set
    for set in CapInh CapPrm CapEff CapBnd CapAmb; do
        [ "$(kv $set)" = 0000000000000000 ] || {
            echo "$set is $(kv $set)" >&2
            return 1
        }
    done
    [ "$(kv NoNewPrivs)" = 1 ]
    [ "$(kv Seccomp)" = 2 ]
}

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
    wait_tagged_process
    agent=$(pgrep -f "$TAG")
    # seen from the host: the container user is an id of revrun's range
    # (its own: hostids.bats), nobody's
    hid=$(awk '/^Uid:/ {print $2}' /proc/"$agent"/status)
    [ "$hid" -ge 2000000000 ] && [ "$hid" -le 2000065535 ]
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
    wait_tagged_process
    agent=$(pgrep -f "$TAG")
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
    [ "$(cat "$RR_TMP/hostdir/ww")" = orig ] && [ ! -e "$RR_TMP/hostdir/new" ]
    [ ! -e "/usr/$TAG" ] && [ ! -e "/etc/$TAG" ] && [ ! -e "/tmp/new" ] && [ ! -e "/$TAG" ]
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
    make_bundle "$(args '["sh", "-c", "for s in TERM INT HUP; do trap \"echo $s > /out/got; exit 3\" $s; done; while :; do sleep 0.1; done"]')"
    for sig in TERM INT HUP; do
        rm -f "$RR_TMP/out/got"
        rr_bundle create s1-$X </dev/null
        rr start s1-$X
        sleep 0.5
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

# ---- network ----

# A listener on the host's loopback (TCP) and an abstract unix socket; each
# connection it accepts is logged.
start_listeners() {
    python3 - "$RR_TMP/listen" "$TAG" <<'EOF' &
import os, select, socket, sys
base, tag = sys.argv[1], sys.argv[2]
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(socket.AF_UNIX); u.bind("\0" + tag); u.listen(8)
open(base + ".port.tmp", "w").write(str(t.getsockname()[1]))
os.rename(base + ".port.tmp", base + ".port")
while True:
    for s in select.select([t, u], [], [])[0]:
        c, _ = s.accept()
        open(base + ".log", "a").write("accepted\n")
        c.close()
EOF
    KILL_PIDS+=("$!")
    for _ in $(seq 50); do
        [ -e "$RR_TMP/listen.port" ] && break
        sleep 0.1
    done
    PORT=$(cat "$RR_TMP/listen.port")
}

@test "network: only loopback inside; listeners on the host's loopback and abstract sockets are unreachable" {
    start_listeners
    # the listener answers from the host
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT)).close()"
    rm -f "$RR_TMP/listen.log"
    run rr_run sh -c "$P/ids; echo tcp=\$($P/try connect-tcp 127.0.0.1 $PORT); echo abstract=\$($P/try connect-abstract $TAG)"
    assert_success
    [ "$(kv ifaces)" = lo ]
    [ "$(kv tcp)" = ECONNREFUSED ]
    [ "$(kv abstract)" = ECONNREFUSED ]
    [ ! -e "$RR_TMP/listen.log" ]
}

@test "network: revrun.network \"host\" is the explicit switch that shares the host network" {
    start_listeners
    make_bundle 'c["revrun"]["network"] = "host"' \
        'c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]' \
        "$(args "[\"sh\", \"-c\", \"echo tcp=\$($P/try connect-tcp 127.0.0.1 $PORT); echo abstract=\$($P/try connect-abstract $TAG)\"]")"
    run rr_bundle run h1-$X
    assert_success
    [ "$(kv tcp)" = ok ]
    [ "$(grep -c accepted "$RR_TMP/listen.log")" = 1 ]
    # the host's abstract sockets stay out of reach (Landlock scoping, ABI 6+)
    if [ "$(rr check | sed -n 's/.*landlock *ABI \([0-9]*\).*/\1/p')" -ge 6 ]; then
        [ "$(kv abstract)" = EPERM ]
    fi
}

# The /dev nodes are the host's own inodes, bound: the agent may read and
# write the devices, never change the inodes (utimensat moved the host's
# /dev/null mtime).
@test "devices: /dev nodes are read-only binds: writes to the devices work, the host inodes' times never change" {
    before=$(stat -c '%y %Z' /dev/null /dev/zero /dev/full /dev/urandom)
    run rr_run sh -c 'for d in null zero full urandom; do touch /dev/$d 2>/dev/null; echo touch.$d=$?; done
        echo x >/dev/null && echo null-write=ok; echo zero=$(head -c 3 /dev/zero | wc -c)'
    assert_success
    [ "$(kv null-write)" = ok ] && [ "$(kv zero)" = 3 ]
    [ "$(kv touch.null)" = 1 ] && [ "$(kv touch.urandom)" = 1 ]
    [ "$(stat -c '%y %Z' /dev/null /dev/zero /dev/full /dev/urandom)" = "$before" ]
}

# ---- the out-dir ----

# What the agent leaves in /out reaches the host directory only as regular
# files and directories: a symlink to a host secret (for an uploader or a
# root consumer to follow), a fifo (to hang it), a socket are not handed
# over, and each is reported.
out_dir_vetted() {
    run "$@" sh -c 'echo hi >/out/a; mkdir -p /out/d/e; echo x >/out/d/e/run; chmod 0755 /out/d/e/run;
        ln -s /etc/shadow /out/shadow; ln -s a /out/d/rel; mkfifo /out/fifo;
        python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"/out/d/sock\")"; echo done'
    assert_success
    assert_output_contains done
    [ "$(cat "$RR_TMP/out/a")" = hi ] && [ -x "$RR_TMP/out/d/e/run" ]
    [ "$(cd "$RR_TMP/out" && find . -mindepth 1 \( -type f -o -type d \) | sort | tr '\n' ' ')" = \
        "./a ./d ./d/e ./d/e/run " ]
    [ -z "$(find "$RR_TMP/out" -mindepth 1 ! -type f ! -type d)" ]
    assert_output_contains "/out/shadow is a symlink: not handed over"
    assert_output_contains "/out/d/rel is a symlink: not handed over"
    assert_output_contains "/out/fifo is a fifo: not handed over"
    assert_output_contains "/out/d/sock is a socket: not handed over"
    [ "$(stat -c %U "$RR_TMP/out/a")" = "$(stat -c %U "$RR_TMP/out")" ]
}

@test "out-dir: only regular files and directories are handed over; symlinks, fifos and sockets are reported" {
    out_dir_vetted rr_run
}

@test "out-dir (rootless): only regular files and directories are handed over" {
    rootless_checkout
    out_dir_vetted rr_run_rootless
}

# /out is capped like the upper (revrun.upperSize), whatever the host
# directory's filesystem would take.
@test "out-dir: /out is capped at revrun.upperSize; the host directory gets no more" {
    make_bundle 'c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/out"]' \
        'c["revrun"]["out"] = "'"$RR_TMP/out"'"' 'c["revrun"]["upperSize"] = "16M"' \
        "$(args '["sh", "-c", "for i in 1 2 3; do head -c 6M /dev/zero >/out/f$i || echo full=$i; done; echo done"]')"
    run rr_bundle run cap-$X
    assert_success
    assert_output_contains done
    [ "$(kv full)" = 3 ]
    total=$(find "$RR_TMP/out" -type f -printf '%s\n' | awk '{t += $1} END {print t}')
    echo "handed over $total bytes" >&3
    [ "$total" -le $((16 << 20)) ]
}

# A read-write bind of the host out-dir (or a tree holding it) would let the
# agent plant there what the vetting at exit removes: refused at create.
@test "out-dir: a read-write bind onto the host out-dir is refused; nothing runs" {
    make_bundle 'c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/out"]' \
        'c["mounts"].append({"destination": "/data", "type": "bind", "source": "'"$RR_TMP"'/out", "options": ["bind", "rw"]})' \
        'c["revrun"]["out"] = "'"$RR_TMP/out"'"' \
        "$(args '["sh", "-c", "ln -s /etc/shadow /data/planted"]')"
    run rr_bundle run outbind-$X
    [ "$status" -ne 0 ]
    assert_output_contains "would reach revrun.out"
    [ ! -L "$RR_TMP/out/planted" ]
}

# ---- socket families ----

# Only AF_UNIX, AF_INET, AF_INET6 and netlink's NETLINK_ROUTE open; every
# other family (AF_VSOCK above all: the VM's ports, not the netns's) fails
# with EAFNOSUPPORT on every ABI, socketpair too.
assert_families_confined() {
    local line
    while read -r line; do
        case "$line" in
        af.1=ok | af.2=ok | af.10=ok | af.16=ok | netlink.route=ok | socketpair.unix=ok | \
            i386.socket.unix=ok | *=EAFNOSUPPORT | *=unavailable) ;;
        *)
            echo "not confined: $line" >&2
            return 1
            ;;
        esac
    done <<<"$output"
    [ "$(kv af.40)" = EAFNOSUPPORT ] && [ "$(kv af.vsock.highbits)" = EAFNOSUPPORT ]
    [ "$(kv netlink.audit)" = EAFNOSUPPORT ] && [ "$(kv netlink.uevent)" = EAFNOSUPPORT ]
    [ "$(kv af.1)" = ok ] && [ "$(kv af.2)" = ok ] && [ "$(kv netlink.route)" = ok ]
}

@test "socket families: only unix, inet, inet6 and netlink route open; vsock and the rest fail on every ABI" {
    run rr_run $P/sys families
    assert_success
    assert_families_confined
}

@test "socket families (rootless): only unix, inet, inet6 and netlink route open" {
    rootless_checkout
    run rr_run_rootless $P/sys families
    assert_success
    assert_families_confined
}

# The agent tries to listen on a VM-wide vsock port; while it runs, the host
# binds that port itself.
@test "socket families: a vsock port the agent tries to hold stays free for the VM" {
    [ -e /dev/vsock ] || skip "no vsock on this host"
    local port=$((20000 + RANDOM % 20000))
    script vsock-hold <<EOF
#!/usr/bin/python3
import os, socket, time
try:
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    s.bind((socket.VMADDR_CID_ANY, $port))
    s.listen()
    print("held")
except OSError as e:
    print("refused", e.errno)
open("/out/ready", "w").close()
for _ in range(600):
    if os.path.exists("/out/go"):
        break
    time.sleep(0.1)
EOF
    make_bundle "$(args "[\"$P/vsock-hold\"]")"
    (cd "$RR_TMP/bundle" && rr run vs-$X >"$RR_TMP/hold.out") &
    KILL_PIDS+=($!)
    for _ in $(seq 600); do
        [ -e "$RR_TMP/out/ready" ] && break
        sleep 0.1
    done
    run python3 -c "import socket; s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); s.bind((socket.VMADDR_CID_ANY, $port)); print('host bound')"
    touch "$RR_TMP/out/go"
    wait "${KILL_PIDS[-1]}"
    assert_output_contains "host bound"
    grep -q "refused 97" "$RR_TMP/hold.out"
}

# ---- seccomp ----

assert_all_denied() {
    local line n=0
    while read -r line; do
        case "$line" in
        clone3=ENOSYS | *=EPERM) n=$((n + 1)) ;;
        *)
            echo "not denied: $line" >&2
            return 1
            ;;
        esac
    done <<<"$output"
    [ "$n" -ge 50 ]
    assert_output_contains "clone3=ENOSYS"
}

@test "seccomp: each denied syscall fails with EPERM, clone3 with ENOSYS" {
    run rr_run $P/sys
    assert_success
    assert_all_denied
}

@test "seccomp (rootless): each denied syscall fails with EPERM, clone3 with ENOSYS" {
    rootless_checkout
    run rr_run_rootless $P/sys
    assert_success
    assert_all_denied
}

@test "seccomp: the compat ABIs the kernel accepts (i386, x32) are filtered too" {
    run rr_run $P/sys compat
    assert_success
    local line
    while read -r line; do
        [[ "$line" == *=EPERM || "$line" == *=unavailable ]] || {
            echo "not denied: $line" >&2
            return 1
        }
    done <<<"$output"
}

@test "seccomp: an OCI linux.seccomp section is honoured on top of revrun's floor" {
    make_bundle 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]}' \
        "$(args "[\"sh\", \"-c\", \"echo mkdir=\$($P/try mkdir /tmp/d); $P/sys | grep -E ^keyctl=; $P/ids | grep ^Seccomp\"]")"
    run rr_bundle run sc1-$X
    assert_success
    [ "$(kv mkdir)" = EACCES ]
    [ "$(kv keyctl)" = EPERM ]
    # revrun's floor and the config's section, stacked
    [ "$(kv Seccomp_filters)" = 2 ]
}

# ---- terminal ----

# Run a command with a fresh pty as its controlling terminal and stdio, as
# an operator's shell would; print what it wrote, then "injected=" with
# whatever landed in the terminal's input queue.
PTY_RUN='
import os, pty, select, sys, termios, fcntl, tty
master, slave = pty.openpty()
tty.setraw(slave)  # no line buffering: injected bytes are readable at once
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.execvp(sys.argv[1], sys.argv[1:])
out, status = b"", None
while status is None:
    if select.select([master], [], [], 0.2)[0]:
        out += os.read(master, 65536)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
while select.select([master], [], [], 0.2)[0]:
    out += os.read(master, 65536)
os.set_blocking(slave, False)
try:
    injected = os.read(slave, 4096)
except BlockingIOError:
    injected = b""
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
print("injected=" + repr(injected))
sys.exit(os.waitstatus_to_exitcode(status))
'

@test "terminal: no controlling terminal by default; nothing reaches the operator's terminal through TIOCSTI" {
    run python3 -c "$PTY_RUN" "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- \
        sh -c "$P/ids; echo tiocsti=\$($P/try tiocsti 1); echo reopen=\$($P/try reopen-tiocsti 1)"
    assert_success
    [ "$(kv tty_nr)" = 0 ]
    [ "$(kv devtty)" = ENXIO ]
    [ "$(kv tiocsti)" = EPERM ]
    [[ "$(kv reopen)" == EPERM || "$(kv reopen)" == "reopen EACCES" ]]
    [ "$(kv injected)" = "b''" ]
    run rr_run $P/ids
    [ "$(kv session_leader)" = 1 ]
    [ "$(kv tty_nr)" = 0 ]
}

CONSOLE_RECV='
import os, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(1)
open(path + ".ready", "w").close()
c, _ = s.accept()
msg, fds, _, _ = socket.recv_fds(c, 64, 1)
with open(out, "wb") as f:
    while True:
        try:
            d = os.read(fds[0], 4096)
        except OSError:  # EIO: the last holder of the slave is gone
            break
        if not d:
            break
        f.write(d)
        f.flush()
'

# The operator types at the shell (a password) while a backgrounded run's
# agent has the shell's terminal as its stdio: what is typed stays in the
# terminal's input queue for the shell, the agent reads nothing of it.
PTY_TYPED=$(sed 's/^tty.setraw(slave).*/&\nos.write(master, b"hunter2-typed\\n")/' <<<"$PTY_RUN")

@test "terminal: without process.terminal, the caller's terminal is no input for the agent (stdin /dev/null, stdout write-only)" {
    script read-stdio <<'EOF'
#!/usr/bin/python3
import os
for fd in (0, 1, 2):
    try:
        os.set_blocking(fd, False)
        print("fd%d=%r" % (fd, os.read(fd, 100)))
    except OSError as e:
        print("fd%d=%s" % (fd, e.errno))
EOF
    run python3 -c "$PTY_TYPED" "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- $P/read-stdio
    assert_success
    [[ "$output" != *"fd0=b'hunter2"* && "$output" != *"fd1=b'hunter2"* && "$output" != *"fd2=b'hunter2"* ]]
    [ "$(kv fd0)" = "b''" ]
    [ "$(kv fd1)" = 9 ] && [ "$(kv fd2)" = 9 ] # EBADF: write-only
    [ "$(kv injected)" = "b'hunter2-typed\\n'" ]
    assert_output_contains "the agent gets /dev/null as stdin"
}

@test "terminal: process.terminal gives a fresh pty through --console-socket; TIOCSTI on it fails" {
    python3 -c "$CONSOLE_RECV" "$RR_TMP/console.sock" "$RR_TMP/console.out" &
    recv=$!
    KILL_PIDS+=("$recv")
    for _ in $(seq 50); do
        [ -e "$RR_TMP/console.sock.ready" ] && break
        sleep 0.1
    done
    make_bundle 'c["process"]["terminal"] = True' \
        "$(args "[\"sh\", \"-c\", \"$P/ids; echo tiocsti=\$($P/try tiocsti 0)\"]")"
    rr_bundle create --console-socket "$RR_TMP/console.sock" t1-$X </dev/null
    rr start t1-$X
    wait_stopped t1-$X
    for _ in $(seq 50); do kill -0 "$recv" 2>/dev/null || break; sleep 0.1; done
    output=$(tr -d '\r' <"$RR_TMP/console.out")
    [ "$(kv tty_nr)" != 0 ]
    [ "$(kv devtty)" = ok ]
    [ "$(kv fd.0)" = /dev/pts/0 ]
    [ "$(kv tiocsti)" = EPERM ]
    rr destroy t1-$X
    # a terminal needs a console socket, and a console socket a terminal
    run rr_bundle create t2-$X </dev/null
    assert_failure
    assert_output_contains "console-socket"
}

# ---- file descriptors ----

@test "fds: only 0, 1 and 2 reach the process, nothing of revrun's or of the caller's" {
    run bash -c "exec 7</etc/hostname 8>'$RR_TMP/leak' 9<'$RR_TMP/checkout'; \
        '$RR_BIN/revrun' --root '$RR_ROOT' run --lower '$RR_TMP/checkout' -- $P/ids"
    assert_success
    [ "$(kv fds)" = 0,1,2 ]
    [ "$(kv cwd)" = /workspace ]
    make_bundle "$(args "[\"$P/ids\"]")"
    (cd "$RR_TMP/bundle" && exec 7</etc/hostname && rr create f1-$X </dev/null >"$RR_TMP/f1.out" 2>&1)
    rr start f1-$X
    wait_stopped f1-$X
    output=$(cat "$RR_TMP/f1.out")
    [ "$(kv fds)" = 0,1,2 ]
    rr destroy f1-$X
}

@test "fds (rootless): only 0, 1 and 2 reach the process" {
    rootless_checkout
    run bash -c "exec 7</etc/hostname; $(declare -f as_user rr_delegate_cgroups cgroup_is_v2); \
        RR_TMP='$RR_TMP' REVRUN_TEST_UID=$REVRUN_TEST_UID REVRUN_TEST_GID=$REVRUN_TEST_GID \
        CG_V2_BASE='$CG_V2_BASE' as_user '$RR_BIN/revrun' run --lower '$RR_TMP/checkout' -- $P/ids"
    assert_success
    [ "$(kv fds)" = 0,1,2 ]
}

# ---- self-protection ----

@test "self-protection: pid 1's exe (revrun) cannot be opened, /proc/self/exe not for writing" {
    sum=$(sha256sum <"$RR_BIN/revrun")
    run rr_run sh -c "
        echo exe1-write=\$($P/try write /proc/1/exe)
        echo exe1-read=\$($P/try read /proc/1/exe | cut -c1-6)
        echo root1=\$($P/try read /proc/1/root/etc/hostname)
        echo self-write=\$($P/try trunc /proc/self/exe)"
    assert_success
    [ "$(kv exe1-write)" = EACCES ]
    [ "$(kv exe1-read)" = EACCES ]
    [ "$(kv root1)" = EACCES ]
    [ "$(kv self-write)" = ETXTBSY ] || [ "$(kv self-write)" = EACCES ]
    [ "$(sha256sum <"$RR_BIN/revrun")" = "$sum" ]
}

@test "self-protection: pid 1's command line shows none of revrun's (no host paths)" {
    run rr_run sh -c 'tr "\0" " " </proc/1/cmdline; echo'
    assert_success
    assert_output_contains "revrun-init"
    [[ "$output" != *"$RR_TMP"* && "$output" != *"$RR_ROOT"* && "$output" != *--lower* ]]
}

@test "self-protection: a symlink in a bound tree cannot carry a mount destination out of the root" {
    mkdir -p "$RR_TMP/data" "$RR_TMP/victim"
    # the host would let anyone create there: only the resolution keeps it out
    chmod 0777 "$RR_TMP/victim"
    ln -s "$RR_TMP/victim" "$RR_TMP/data/abs"
    ln -s ../../../../../../../../../../../.."$RR_TMP/victim" "$RR_TMP/data/rel"
    make_bundle \
        'c["mounts"].append({"destination": "/data", "type": "bind", "source": "'"$RR_TMP/data"'", "options": ["rbind", "ro"]})' \
        'c["mounts"].append({"destination": "/data/abs/x", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]})' \
        'c["mounts"].append({"destination": "/data/rel/y", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]})' \
        "$(args '["sh", "-c", "echo hi > /data/abs/x/f && echo hi > /data/rel/y/f && echo inside"]')"
    run rr_bundle run l1-$X
    # resolved inside the new root, where the target does not exist: refused,
    # naming the destination; never created on the host
    assert_failure
    assert_output_contains "destination: open data/abs"
    [ -z "$(ls -A "$RR_TMP/victim")" ]
    [ "$(mount_points)" = "$MOUNTS_BEFORE" ]
    [ "$(readlink "$RR_TMP/data/abs")" = "$RR_TMP/victim" ]
}

# ---- /proc ----

@test "/proc: masked entries read empty, read-only ones are read-only mounts and refuse writes" {
    masked=()
    for f in /proc/interrupts /proc/keys /proc/timer_list /proc/kcore /proc/sched_debug /proc/latency_stats; do
        [ -e "$f" ] && masked+=("$f")
    done
    [ "${#masked[@]}" -gt 0 ]
    [ "$(wc -c </proc/interrupts)" -gt 0 ]
    run rr_run sh -c "
        for f in ${masked[*]}; do echo \"\$f \$($P/try read \$f)\"; done
        echo acpi=\$(ls -A /proc/acpi 2>&1 | wc -l)
        echo sys=\$($P/try write /proc/sys/kernel/hostname)
        echo sysrq=\$($P/try write /proc/sysrq-trigger)
        cat /proc/self/mountinfo"
    assert_success
    # a mask is an empty tmpfs or a nodev bind of /dev/null: empty or refused
    for f in "${masked[@]}"; do
        grep -qE "^$f (ok |EACCES)$" <<<"$output" || {
            echo "$f: $(grep "^$f " <<<"$output")" >&2
            return 1
        }
    done
    [ "$(kv acpi)" = 0 ]
    # refused twice over: by ownership (host root's files) and by the mount
    [[ "$(kv sys)" =~ ^(EROFS|EACCES)$ ]]
    [[ "$(kv sysrq)" =~ ^(EROFS|ENOENT|EACCES)$ ]]
    for f in /proc/sys /proc/bus /proc/fs /proc/irq /proc/sysrq-trigger; do
        [ -e "$f" ] || continue
        awk -v m="$f" '$5 == m && $6 ~ /^ro,/ {found = 1} END {exit !found}' <<<"$output" || {
            echo "$f is not a read-only mount inside" >&2
            return 1
        }
    done
}

# ---- Landlock ----

landlock_abi() {
    rr check | sed -n 's/.*landlock *ABI \([0-9]*\).*/\1/p'
}

@test "landlock: check reports the ABI; writes outside the writable set fail even where a mount allows them" {
    run rr check
    assert_output_contains "landlock"
    [ -n "$(landlock_abi)" ] || skip "this kernel has no Landlock"
    script landlock.sh <<EOF
#!/bin/sh
for f in root:/$TAG etc:/etc/$TAG dev:/dev/$TAG ws:/workspace/w out:/out/w tmp:/tmp/w \
         home:/home/agent/w shm:/dev/shm/w null:/dev/null; do
    echo "\${f%%:*}=\$($P/try write \${f#*:})"
done
echo "mkdir=\$($P/try mkdir /$TAG.d)"
echo "fifo=\$($P/try mknod-fifo /dev/$TAG.p)"
EOF
    # a mistake in the mount plan (the root left writable); Landlock required
    make_bundle 'c["root"]["readonly"] = False' 'c["revrun"]["bestEffort"] = []' \
        "$(args "[\"$P/landlock.sh\"]")"
    run rr_bundle run ll1-$X
    assert_success
    for k in root etc dev mkdir fifo; do
        [ "$(kv $k)" = EACCES ] || {
            echo "$k: $(kv $k)" >&2
            return 1
        }
    done
    for k in ws out tmp home shm null; do
        [ "$(kv $k)" = ok ]
    done
    [ "$(cat "$RR_TMP/out/w")" = x ]
}

@test "landlock (rootless): writes outside the writable set fail; the process's own stdout file stays writable, not readable" {
    [ -n "$(landlock_abi)" ] || skip "this kernel has no Landlock"
    script landlock.sh <<EOF
#!/bin/sh
echo "root=\$($P/try write /$TAG)"
echo "dev=\$($P/try write /dev/$TAG)"
echo "ws=\$($P/try write /workspace/w)"
# fd 3: the process's stdout, a file of the caller's; inside \$(), 1 is a pipe
exec 3>&1
echo "stdout_read=\$($P/try read /proc/self/fd/3)"
r=\$($P/try write /proc/self/fd/3)
echo
echo "stdout=\$r"
EOF
    rootless_checkout
    make_bundle 'c["root"]["readonly"] = False' "$(args "[\"$P/landlock.sh\"]")"
    touch "$RR_TMP/ll.out"
    chown "$REVRUN_TEST_UID:$REVRUN_TEST_GID" "$RR_TMP/ll.out"
    rr_bundle_rootless run ll2-$X >"$RR_TMP/ll.out"
    output=$(cat "$RR_TMP/ll.out")
    [ "$(kv root)" = EACCES ]
    [ "$(kv dev)" = EACCES ]
    [ "$(kv ws)" = ok ]
    # reopenable with the access it was given: written, not read
    [ "$(kv stdout)" = ok ]
    [ "$(kv stdout_read)" = EACCES ]
}

# ---- nested sandboxes ----

# What an agent's own tool sandbox does: a user and pid namespace with its
# own /proc, through util-linux unshare and through bubblewrap; the shell in
# it sees itself as the first process there (bwrap's own init is pid 1).
nested_script() {
    script nested.sh <<'EOF'
#!/bin/sh
unshare -Urpf --mount-proc sh -c 'test $$ = 1 && test "$(cut -d" " -f1 /proc/self/stat)" -lt 10'
echo "unshare=$?"
bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --unshare-pid --proc /proc --dev /dev sh -c 'test $$ = 2 && test "$(cut -d" " -f1 /proc/self/stat)" -lt 10'
echo "bwrap=$?"
# root of a nested user namespace, still no write to revrun's read-only mounts
unshare -Urm sh -c 'mount -o remount,bind,rw /usr || mount -o remount,bind,rw /; touch /usr/.w || touch /.w' 2>/dev/null
echo "nested_write=$?"
EOF
}

@test "nested sandboxes: off by default, so unshare and bwrap fail" {
    nested_script
    run rr_run $P/nested.sh
    assert_success
    [ "$(kv unshare)" != 0 ]
    [ "$(kv bwrap)" != 0 ]
}

@test "nested sandboxes: with revrun.nestedSandboxes, unshare -Urpf --mount-proc and bwrap --proc work" {
    nested_script
    make_bundle 'c["revrun"]["nestedSandboxes"] = True' \
        "$(args "[\"sh\", \"-c\", \"$P/nested.sh; $P/ids; $P/sys | grep -E '^(keyctl|setns)='\"]")"
    run rr_bundle run n1-$X
    assert_success
    [ "$(kv unshare)" = 0 ]
    [ "$(kv bwrap)" = 0 ]
    # the rest of the boundary stays
    [ "$(kv nested_write)" != 0 ]
    [ ! -e /usr/.w ]
    assert_identity
    [ "$(kv keyctl)" = EPERM ]
    [ "$(kv setns)" = EPERM ]
}

@test "nested sandboxes (rootless): with revrun.nestedSandboxes, unshare and bwrap work" {
    nested_script
    rootless_checkout
    make_bundle 'c["revrun"]["nestedSandboxes"] = True' "$(args "[\"$P/nested.sh\"]")"
    run rr_bundle_rootless run n2-$X
    assert_success
    [ "$(kv unshare)" = 0 ]
    [ "$(kv bwrap)" = 0 ]
}

# ---- hostname ----

@test "hostname: the container's own; sethostname fails and the host's is unchanged" {
    host=$(hostname)
    run rr_run sh -c "hostname; $P/try sethostname $TAG; true"
    assert_success
    [ "$(sed -n 1p <<<"$output")" = revrun ]
    [ "$(sed -n 2p <<<"$output")" = EPERM ]
    [ "$(hostname)" = "$host" ]
}

# ---- resource ceilings ----

@test "limits: a fork bomb stops at the pids limit" {
    make_bundle 'c["linux"]["resources"]["pids"]["limit"] = 64' "$(args "[\"$P/bomb\", \"fork\", \"500\"]")"
    run rr_bundle run p1-$X
    assert_success
    n=$(sed -n 's/^forked=\([0-9]*\).*/\1/p' <<<"$output")
    [ "$n" -lt 64 ]
    assert_output_contains "error=EAGAIN"
}

@test "limits (rootless): a fork bomb stops at the pids limit" {
    rootless_checkout
    make_bundle 'c["linux"]["resources"]["pids"]["limit"] = 64' "$(args "[\"$P/bomb\", \"fork\", \"500\"]")"
    run rr_bundle_rootless run p2-$X
    assert_success
    n=$(sed -n 's/^forked=\([0-9]*\).*/\1/p' <<<"$output")
    [ "$n" -lt 64 ]
}

@test "limits: a memory bomb is killed at the memory limit, and the exit record says so" {
    make_bundle 'c["linux"]["resources"]["memory"] = {"limit": 67108864, "swap": 67108864}' \
        "$(args "[\"$P/bomb\", \"mem\", \"1024\"]")"
    run rr_bundle run --keep m1-$X
    [ "$status" -eq 137 ]
    [[ "$output" != *survived* ]]
    last=$(sed -n 's/^mem=//p' <<<"$output" | tail -1)
    [ "${last:-0}" -le 64 ]
    [ "$(python3 -c "import json;print(json.load(open('$RR_ROOT/m1-$X/exit.json'))['oomKilled'])")" = True ]
    rr destroy m1-$X
}

# Unread TCP buffers are memory the agent holds: 100 loopback connections,
# each filled until the kernel says no, in a container of 64 MiB. cgroup v2
# charges them to memory.max; v1 counts them apart, bounded only by
# memory.kmem.tcp.limit_in_bytes (unbounded, 1.1 GB were held).
@test "limits: unread TCP socket buffers stay within the memory limit (v1: kmem.tcp)" {
    script hold-tcp <<'EOF'
#!/usr/bin/python3
import os, socket, sys, time
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(128)
port = srv.getsockname()[1]
conns, held, chunk = [], 0, b"x" * 65536
for i in range(100):
    try:
        c = socket.create_connection(("127.0.0.1", port)); a, _ = srv.accept()
    except OSError as e:
        print("connect", i, e.errno); break
    a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32 << 20)
    c.setblocking(False)
    conns.append((c, a))
    while True:
        try:
            held += c.send(chunk)
        except OSError:
            break
print("held=%d" % held, flush=True)
open("/out/ready", "w").close()
for _ in range(600):
    if os.path.exists("/out/go"):
        break
    time.sleep(0.1)
EOF
    make_bundle 'c["linux"]["resources"]["memory"] = {"limit": 64 << 20, "swap": 64 << 20}' \
        "$(args "[\"$P/hold-tcp\"]")"
    (cd "$RR_TMP/bundle" && rr run tcp-$X >"$RR_TMP/tcp.out" 2>&1) &
    KILL_PIDS+=($!)
    for _ in $(seq 600); do
        [ -e "$RR_TMP/out/ready" ] && break
        sleep 0.1
    done
    cg=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cgroup'])" "$RR_ROOT/tcp-$X/state.json")
    f=/sys/fs/cgroup/memory$cg/memory.kmem.tcp.max_usage_in_bytes
    [ -e "$f" ] && tcp_max=$(cat "$f")
    touch "$RR_TMP/out/go"
    wait "${KILL_PIDS[-1]}" || true
    output=$(cat "$RR_TMP/tcp.out")
    echo "held $(kv held) bytes${tcp_max:+, kmem.tcp max usage $tcp_max}" >&3
    [ -n "$(kv held)" ]
    [ "$(kv held)" -le $(((64 << 20) + (8 << 20))) ]
    [ -z "${tcp_max:-}" ] || [ "$tcp_max" -le $(((64 << 20) + (1 << 20))) ]
}

# A caller whose hard limits are below the config's (a CI runner, a service
# unit): the container could not raise them, so create says which limit and
# the remedy before anything exists; nothing is left either way.
@test "limits: a hard RLIMIT_NOFILE below the config's, or below what revrun needs, is refused with the remedy; nothing is left" {
    run prlimit --nofile=1024:1024 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- echo RAN
    assert_failure
    [ "$status" -ne 126 ]
    assert_output_contains "process.rlimits: RLIMIT_NOFILE hard 4096 is above this caller's hard limit (1024)"
    assert_output_contains "ulimit -Hn"
    [[ "$output" != *RAN* ]]
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    # so few files that a create would fail half way on EMFILE
    run prlimit --nofile=12:12 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" --id emfile-$X -- echo RAN
    assert_failure
    assert_output_contains "RLIMIT_NOFILE is 12 here; revrun needs at least 64"
    [ -z "$(ls -A "$RR_ROOT" 2>/dev/null)" ]
    [ -z "$(find /sys/fs/cgroup -type d -name "emfile-$X" 2>/dev/null)" ]
    # and with room enough, it runs
    run prlimit --nofile=4096:4096 "$RR_BIN/revrun" --root "$RR_ROOT" run --lower "$RR_TMP/checkout" -- echo RAN
    assert_success
    assert_output_contains RAN
}

@test "limits (rootless): a hard RLIMIT_NOFILE below the config's is refused with the remedy" {
    rootless_checkout
    run as_user prlimit --nofile=1024:1024 "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- echo RAN
    assert_failure
    assert_output_contains "RLIMIT_NOFILE hard 4096 is above this caller's hard limit (1024)"
    [ -z "$(ls -A "$RR_TMP/xdg-$REVRUN_TEST_UID/revrun" 2>/dev/null)" ]
}

@test "limits: a disk fill stops at the upper's cap with ENOSPC; the host's disk is untouched" {
    make_bundle 'c["revrun"]["upperSize"] = "8M"' "$(args "[\"$P/bomb\", \"fill\", \"/workspace/big\", \"64\"]")"
    free_before=$(df -k --output=avail "$RR_TMP" | tail -1)
    run rr_bundle run --keep fill1-$X
    assert_success
    assert_output_contains "error=ENOSPC"
    bytes=$(sed -n 's/^bytes=\([0-9]*\).*/\1/p' <<<"$output")
    [ "$bytes" -le $((8 << 20)) ]
    [ ! -e "$RR_TMP/checkout/big" ]
    free_after=$(df -k --output=avail "$RR_TMP" | tail -1)
    [ $((free_before - free_after)) -lt 4096 ]
    rr destroy fill1-$X
}

@test "limits: rlimits NOFILE, NPROC, CORE=0 and FSIZE reach the process; FSIZE stops a big file" {
    run rr_run $P/ids
    assert_success
    [ "$(kv rlimit.NOFILE)" = 4096:4096 ]
    [ "$(kv rlimit.NPROC)" = 1024:1024 ]
    [ "$(kv rlimit.CORE)" = 0:0 ]
    [ "$(kv rlimit.FSIZE)" = 1073741824:1073741824 ]
    make_bundle 'c["process"]["rlimits"] = [{"type": "RLIMIT_FSIZE", "soft": 4194304, "hard": 4194304}]' \
        "$(args "[\"$P/bomb\", \"fill\", \"/tmp/big\", \"64\"]")"
    run rr_bundle run r1-$X
    assert_success
    assert_output_contains "bytes=4194304 error=EFBIG"
}

@test "limits: the wall-clock timeout kills the whole container, a detached grandchild included" {
    make_bundle 'c["revrun"]["timeout"] = 2' \
        "$(args "[\"sh\", \"-c\", \"(setsid sh -c 'sleep 300 # $TAG' </dev/null >/dev/null 2>&1 &); exec sleep 20\"]")"
    start=$(date +%s)
    run rr_bundle run to1-$X
    [ "$status" -eq 137 ]
    assert_output_contains "timeout"
    [ $(($(date +%s) - start)) -lt 15 ]
    assert_no_tagged_process
}

@test "limits: a limit the host cannot enforce is refused unless best-effort; no cgroup is left" {
    if cgroup_is_v2; then skip "this host delegates cgroup v2 to the user"; fi
    # rootless, with no delegated cgroup: the default limits cannot be enforced
    nodeleg_setup
    run undelegated "$RR_BIN/revrun" run --lower "$RR_TMP/checkout" -- true
    assert_failure
    assert_output_contains "revrun.bestEffort"
    make_bundle 'c["revrun"]["bestEffort"] = ["memory", "pids", "cpu", "landlock"]' "$(args '["true"]')"
    chown -R "$NODELEG_UID:$NODELEG_GID" "$RR_TMP/bundle"
    run bash -c "cd '$RR_TMP/bundle' && $(declare -f undelegated) && RR_TMP='$RR_TMP' \
        NODELEG_UID=$NODELEG_UID NODELEG_GID=$NODELEG_GID undelegated '$RR_BIN/revrun' run be1-$X"
    assert_success
    assert_output_contains "best effort"
    # as root: the container's cgroups go with destroy
    ROOTLESS=
    SPEC_UID=$REVRUN_TEST_UID
    SPEC_GID=$REVRUN_TEST_GID
    make_bundle "$(args '["sleep", "300"]')"
    rr_bundle create cg1-$X </dev/null
    cg=$(python3 -c "import json;print(json.load(open('$RR_ROOT/cg1-$X/state.json'))['cgroup'])")
    [ -d "/sys/fs/cgroup/pids$cg" ] || [ -d "/sys/fs/cgroup$cg" ]
    rr destroy --force cg1-$X
    [ ! -e "/sys/fs/cgroup/pids$cg" ] && [ ! -e "/sys/fs/cgroup/memory$cg" ] &&
        [ ! -e "/sys/fs/cgroup/cpu$cg" ] && [ ! -e "/sys/fs/cgroup$cg" ]
}

@test "limits: a container's cgroup is its own; one that exists is never joined, and nothing of its owner is killed" {
    make_bundle "$(args '["sh", "-c", "sleep 300 # '"$TAG"'"]')"
    rr_bundle create dup-$X </dev/null
    rr start dup-$X
    wait_tagged_process
    # the same ID under another --root: a cgroup of its own; its destroy
    # leaves the first container alone
    (cd "$RR_TMP/bundle" &&
        "$RR_BIN/revrun" --root "$RR_TMP/other-root" create dup-$X </dev/null >"$RR_TMP/dup.out" 2>&1)
    "$RR_BIN/revrun" --root "$RR_TMP/other-root" destroy --force dup-$X
    pgrep -f "$TAG" >/dev/null
    [ "$(state_field dup-$X '["status"]')" = running ]
    rr destroy --force dup-$X
    # two configs naming the same linux.cgroupsPath: the second is refused
    make_bundle 'c["linux"]["cgroupsPath"] = "/revrun-test-'"$X"'"' \
        "$(args '["sh", "-c", "sleep 300 # '"$TAG"'"]')"
    rr_bundle create cp1-$X </dev/null
    rr start cp1-$X
    wait_tagged_process
    # (its output to a file: a create that worked would hold the pipe)
    run bash -c "cd '$RR_TMP/bundle' && '$RR_BIN/revrun' --root '$RR_TMP/other-root' create cp2-$X \
        </dev/null >'$RR_TMP/dup.out' 2>&1"
    assert_failure
    grep -q "already exists" "$RR_TMP/dup.out"
    pgrep -f "$TAG" >/dev/null
    [ "$(state_field cp1-$X '["status"]')" = running ]
    [ ! -e "$RR_TMP/other-root/cp2-$X" ]
    rr destroy --force cp1-$X
    assert_no_tagged_process
    [ ! -e "/sys/fs/cgroup/pids/revrun-test-$X" ] && [ ! -e "/sys/fs/cgroup/revrun-test-$X" ]
}

# ---- revrun check ----

@test "check: reports what the host enforces; a config it cannot enforce exits non-zero with the remedy" {
    run rr check
    assert_success
    for item in "user namespaces" "native overlay" seccomp cgroups landlock "fresh /proc"; do
        assert_output_contains "$item"
    done
    if cgroup_is_v2; then skip "this host delegates cgroup v2 to the user"; fi
    nodeleg_setup
    make_bundle
    chown -R "$NODELEG_UID:$NODELEG_GID" "$RR_TMP/bundle"
    run undelegated "$RR_BIN/revrun" check --bundle "$RR_TMP/bundle"
    assert_failure
    assert_output_contains "remedy:"
    assert_output_contains "cannot enforce"
}
