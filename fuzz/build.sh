#!/bin/sh
# Build the libFuzzer harnesses with clang (ASan + UBSan + libFuzzer).
#   fuzz/build.sh            -> build/fuzz/json_config_fuzz, build/fuzz/gitpack_fuzz,
#                               build/fuzz/gitindex_fuzz, build/fuzz/gitconfig_fuzz
# Needs clang and its fuzzer runtime (Debian: clang, libclang-rt-14-dev).
# Only bundle/ and common/ are compiled in (and, for gitpack_fuzz, the pure
# pack reader of writeback/, and for gitconfig_fuzz the text-only git-config
# reader of runtime/confine/): nothing that mounts or forks.
set -eu
cd "$(dirname "$0")/.."
CC=${FUZZ_CC:-clang}
out=build/fuzz
mkdir -p "$out"
pkgs="yajl"
flags="-std=c11 -D_GNU_SOURCE -I. -g -O1 -fno-omit-frame-pointer
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wall -Wextra -Werror"
# bundle/preset.c's built-in presets (the Makefile makes the same table)
scripts/gen-presets.sh agents/*.json >"$out/presets.c"
# shellcheck disable=SC2086
$CC $flags $(pkg-config --cflags $pkgs) -o "$out/json_config_fuzz" \
    fuzz/json_config_fuzz.c bundle/*.c common/*.c "$out/presets.c" $(pkg-config --libs $pkgs) "$@"
echo "built $out/json_config_fuzz"
# shellcheck disable=SC2086
$CC $flags $(pkg-config --cflags zlib) -o "$out/gitpack_fuzz" fuzz/gitpack_fuzz.c \
    writeback/git/gitspan.c writeback/git/gitidx.c writeback/git/gitpack.c \
    writeback/git/gitdelta.c writeback/git/gitinflate.c common/error.c \
    $(pkg-config --libs zlib) "$@"
echo "built $out/gitpack_fuzz"
# shellcheck disable=SC2086
$CC $flags -o "$out/gitindex_fuzz" fuzz/gitindex_fuzz.c writeback/git/gitindex.c common/error.c "$@"
echo "built $out/gitindex_fuzz"
# shellcheck disable=SC2086
$CC $flags -o "$out/gitconfig_fuzz" fuzz/gitconfig_fuzz.c runtime/confine/git_config_parse.c \
    runtime/confine/git_config_secrets.c common/escape.c common/cpclass.c "$@"
echo "built $out/gitconfig_fuzz"
