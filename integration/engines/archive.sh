#!/bin/sh
# A docker-archive image (manifest.json, config, one layer) that
# `ctr image import` takes, built offline from a root directory:
#   archive.sh ROOTFS_DIR TAG OUT.tar CMD...
# The layer is ROOTFS_DIR with fixed owners and times (the same bytes every
# build); the image's Cmd is CMD..., its PATH /bin.
set -eu
root=$1 tag=$2 out=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/rr-archive.XXXXXX")
trap 'rm -rf "$work"' EXIT
find "$root" -exec touch -h -d @0 {} +
tar --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 -C "$root" -cf "$work/layer" .
layer=$(sha256sum "$work/layer" | cut -d' ' -f1)
mv "$work/layer" "$work/$layer.tar"
cmd=
for a in "$@"; do cmd="$cmd${cmd:+,}\"$a\""; done
cat >"$work/config" <<JSON
{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin"],"Cmd":[$cmd]},"rootfs":{"type":"layers","diff_ids":["sha256:$layer"]},"history":[{"created_by":"revrun archive.sh"}]}
JSON
cfg=$(sha256sum "$work/config" | cut -d' ' -f1)
mv "$work/config" "$work/$cfg.json"
printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s.tar"]}]\n' \
    "$cfg" "$tag" "$layer" >"$work/manifest.json"
tar --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$work" -cf "$out" \
    manifest.json "$cfg.json" "$layer.tar"
