#!/usr/bin/env bats
# Each change an agent legitimately makes, through each backend's real
# mount: revrun accepts it, and export + apply make TARGET exactly the merged
# view (content, type, executable bit, symlink targets).

load helpers
load wb_helpers

setup() {
    wb_setup
}

teardown() {
    rr_teardown_tmp
}

# The userxattr upper is vetted and applied rootless, as the runtime's
# unprivileged user would; the others as root.
accept() {
    [ "$1" = user ] && WB_AS_USER=1
    wb_agent "$1" "$2"
    wb_expect_accept
}

@test "accept (root): add a file" {
    accept root "printf 'new\n' > src/new.c"
}

@test "accept (root): modify a file" {
    accept root "printf 'more\n' >> README"
}

@test "accept (root): delete a file" {
    accept root "rm keep.txt"
}

@test "accept (root): delete a directory" {
    accept root "rm -r docs/old"
}

@test "accept (root): rename a file and a directory" {
    accept root "mv keep.txt kept.txt && mv src/lib src/library"
}

@test "accept (root): chmod +x" {
    accept root "chmod +x keep.txt"
}

@test "accept (root): in-tree relative symlink" {
    accept root "ln -s ../README src/readme-link && ln -s docs docslink"
}

@test "accept (root): empty directory" {
    accept root "mkdir -p empty/deeper"
}

@test "accept (root): binary edit and a retargeted symlink" {
    accept root "printf '\\000\\377' >> blob.bin && ln -sfn src/main.c link"
}

@test "accept (root): a directory becomes a file, a file a directory" {
    accept root "rm -r docs && echo doc > docs && rm keep.txt && mkdir keep.txt && echo in > keep.txt/in"
}

@test "accept (root): delete a directory, then make it again" {
    accept root "rm -r docs/old && mkdir docs/old && echo new > docs/old/c.txt"
}

@test "accept (user): add a file" {
    accept user "printf 'new\n' > src/new.c"
}

@test "accept (user): modify a file" {
    accept user "printf 'more\n' >> README"
}

@test "accept (user): delete a file" {
    accept user "rm keep.txt"
}

@test "accept (user): delete a directory" {
    accept user "rm -r docs/old"
}

@test "accept (user): rename a file and a directory" {
    accept user "mv keep.txt kept.txt && mv src/lib src/library"
}

@test "accept (user): chmod +x" {
    accept user "chmod +x keep.txt"
}

@test "accept (user): in-tree relative symlink" {
    accept user "ln -s ../README src/readme-link && ln -s docs docslink"
}

@test "accept (user): empty directory" {
    accept user "mkdir -p empty/deeper"
}

@test "accept (user): binary edit and a retargeted symlink" {
    accept user "printf '\\000\\377' >> blob.bin && ln -sfn src/main.c link"
}

@test "accept (user): a directory becomes a file, a file a directory" {
    accept user "rm -r docs && echo doc > docs && rm keep.txt && mkdir keep.txt && echo in > keep.txt/in"
}

@test "accept (user): delete a directory, then make it again" {
    accept user "rm -r docs/old && mkdir docs/old && echo new > docs/old/c.txt"
}

@test "accept (fuse): add a file" {
    accept fuse "printf 'new\n' > src/new.c"
}

@test "accept (fuse): modify a file" {
    accept fuse "printf 'more\n' >> README"
}

@test "accept (fuse): delete a file" {
    accept fuse "rm keep.txt"
}

@test "accept (fuse): delete a directory" {
    accept fuse "rm -r docs/old"
}

@test "accept (fuse): rename a file and a directory" {
    accept fuse "mv keep.txt kept.txt && mv src/lib src/library"
}

@test "accept (fuse): chmod +x" {
    accept fuse "chmod +x keep.txt"
}

@test "accept (fuse): in-tree relative symlink" {
    accept fuse "ln -s ../README src/readme-link && ln -s docs docslink"
}

@test "accept (fuse): empty directory" {
    accept fuse "mkdir -p empty/deeper"
}

@test "accept (fuse): binary edit and a retargeted symlink" {
    accept fuse "printf '\\000\\377' >> blob.bin && ln -sfn src/main.c link"
}

@test "accept (fuse): a directory becomes a file, a file a directory" {
    accept fuse "rm -r docs && echo doc > docs && rm keep.txt && mkdir keep.txt && echo in > keep.txt/in"
}

@test "accept (fuse): delete a directory, then make it again" {
    accept fuse "rm -r docs/old && mkdir docs/old && echo new > docs/old/c.txt"
}
