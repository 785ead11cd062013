/* apply's verify against a TARGET that changes under it: the stat that
 * judged a name and the file then opened and hashed must be one inode, at
 * one size, all the way through the read. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tap.h"
#include "writeback/apply/apply_same.h"
#include "writeback/base/hash.h"

struct dir {
    char path[64];
    int fd;
};

static void dir_init(struct dir *d)
{
    snprintf(d->path, sizeof(d->path), "/tmp/wbrace.XXXXXX");
    if (mkdtemp(d->path) == NULL || (d->fd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        abort();
}

static void dir_free(struct dir *d)
{
    char cmd[128];

    close(d->fd);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", d->path);
    if (system(cmd) != 0)
        tap_note("could not remove %s", d->path);
}

static void put(const struct dir *d, const char *name, const char *text, int flags)
{
    char p[128];
    FILE *f;

    snprintf(p, sizeof(p), "%s/%s", d->path, name);
    if ((f = fopen(p, flags ? "a" : "w")) == NULL)
        abort();
    fputs(text, f);
    fclose(f);
}

static struct wb_obj base_of(const char *text)
{
    struct wb_obj o = {.type = WB_T_FILE, .size = strlen(text)};

    wb_sha256(text, strlen(text), o.sha256);
    return o;
}

static int same(int dirfd, const char *name, const struct stat *st, const char *text)
{
    struct wb_obj base = base_of(text);
    struct rr_error err;
    int r = ap_same_file(dirfd, name, st, &base, &err);

    if (r < 0)
        tap_note("ap_same_file: %s", err.msg);
    return r;
}

TEST(same_and_different_content)
{
    struct dir d;
    struct stat st;

    dir_init(&d);
    put(&d, "f", "base\n", 0);
    CHECK(fstatat(d.fd, "f", &st, AT_SYMLINK_NOFOLLOW) == 0);
    CHECK(same(d.fd, "f", &st, "base\n") == AP_SAME);
    CHECK(same(d.fd, "f", &st, "BASE\n") == AP_DIFFERENT);
    CHECK(same(d.fd, "f", &st, "longer\n") == AP_DIFFERENT);
    dir_free(&d);
}

TEST(a_file_swapped_after_the_stat_is_a_conflict_even_with_the_base_bytes)
{
    struct dir d;
    struct stat st;
    char from[128], to[128];

    dir_init(&d);
    put(&d, "f", "XXXX\n", 0);
    put(&d, "g", "base\n", 0);
    CHECK(fstatat(d.fd, "f", &st, AT_SYMLINK_NOFOLLOW) == 0);
    snprintf(from, sizeof(from), "%s/g", d.path);
    snprintf(to, sizeof(to), "%s/f", d.path);
    CHECK(rename(from, to) == 0); /* same size, the base's bytes, another inode */
    CHECK(same(d.fd, "f", &st, "base\n") == AP_MOVED);
    dir_free(&d);
}

TEST(a_file_grown_after_the_stat_is_a_conflict)
{
    struct dir d;
    struct stat st;

    dir_init(&d);
    put(&d, "f", "base\n", 0);
    CHECK(fstatat(d.fd, "f", &st, AT_SYMLINK_NOFOLLOW) == 0);
    put(&d, "f", "more\n", 1);
    CHECK(same(d.fd, "f", &st, "base\n") == AP_MOVED);
    dir_free(&d);
}

/* A file whose bytes outrun its size while read: /proc's files say size 0
 * and then read more, as a file that grows between fstat and read does. */
TEST(a_file_that_grows_while_read_is_a_conflict)
{
    int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat st;

    CHECK(proc >= 0);
    CHECK(fstatat(proc, "version", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
          st.st_size == 0);
    CHECK(same(proc, "version", &st, "") == AP_MOVED);
    close(proc);
}

TEST(a_file_gone_or_made_a_symlink_after_the_stat_is_a_conflict)
{
    struct dir d;
    struct stat st;
    char p[128];

    dir_init(&d);
    put(&d, "f", "base\n", 0);
    put(&d, "g", "base\n", 0);
    CHECK(fstatat(d.fd, "f", &st, AT_SYMLINK_NOFOLLOW) == 0);
    snprintf(p, sizeof(p), "%s/f", d.path);
    CHECK(unlink(p) == 0);
    CHECK(same(d.fd, "f", &st, "base\n") == AP_MOVED);
    CHECK(symlink("g", p) == 0);
    CHECK(same(d.fd, "f", &st, "base\n") == AP_MOVED);
    dir_free(&d);
}
