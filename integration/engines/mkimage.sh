#!/bin/sh
# Build the engines' test image offline from Debian's busybox-static:
#   mkimage.sh OUT_DIR
# writes OUT_DIR/rootfs/ (a busybox root), OUT_DIR/rootfs.tar (for
# `podman import` / `docker import`) and OUT_DIR/image.tar, a docker-archive
# (manifest.json, config, one layer) that `ctr image import` takes, tagged
# docker.io/library/rrbusybox:test.
set -eu
out=$1
bb=/bin/busybox
[ -x "$bb" ] || { echo "mkimage: $bb missing (apt-get install busybox-static)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/rootfs/bin" "$out/rootfs/etc" "$out/rootfs/proc" "$out/rootfs/sys" \
    "$out/rootfs/dev" "$out/rootfs/tmp" "$out/rootfs/root"
chmod 1777 "$out/rootfs/tmp"
cp "$bb" "$out/rootfs/bin/busybox"
for a in $("$bb" --list); do
    [ "$a" = busybox ] || ln -s busybox "$out/rootfs/bin/$a"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
    >"$out/rootfs/etc/passwd"
printf 'root:x:0:\ntty:x:5:\nnogroup:x:65534:\n' >"$out/rootfs/etc/group"
# Fixed times and owners: the same bytes every build.
find "$out/rootfs" -exec touch -h -d @0 {} +
tar --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 \
    -C "$out/rootfs" -cf "$out/rootfs.tar" .
"$(dirname "$0")/archive.sh" "$out/rootfs" docker.io/library/rrbusybox:test "$out/image.tar" /bin/sh
