/* runtime/confine/host_trees.c: the host's own directories, told by what
 * they are (device and inode), whatever path names them. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/confine/host_trees.h"
#include "tests/tap.h"

/* The verdict on path: kind, and which host directory (NULL: any). */
static bool judged(const char *path, enum host_tree_kind kind, const char *which)
{
    struct host_tree_verdict v;
    struct rr_error e = {0};
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

    if (fd < 0)
        return false;
    r = host_tree_judge(fd, &v, &e);
    close(fd);
    if (r < 0 || v.kind != kind || (which != NULL && (v.which == NULL || strcmp(v.which, which))))
        tap_note("%s: %s (r %d, %s)", path, host_tree_says(&v), r, r < 0 ? e.msg : "");
    return r == 0 && v.kind == kind && (which == NULL || (v.which && !strcmp(v.which, which)));
}

TEST(the_hosts_own_directories_and_their_ancestors)
{
    CHECK(judged("/", HOST_TREE_IS, "/"));
    CHECK(judged("/etc", HOST_TREE_IS, "/etc"));
    CHECK(judged("/etc/", HOST_TREE_IS, "/etc"));
    CHECK(judged("/usr/../var", HOST_TREE_IS, "/var"));
    CHECK(judged("/usr/share/..", HOST_TREE_IS, "/usr"));
}

TEST(a_symlink_is_judged_by_what_it_names)
{
    char dir[64], link[96];

    snprintf(dir, sizeof(dir), "/tmp/rr-hosttrees.XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    snprintf(link, sizeof(link), "%s/alias", dir);
    CHECK(symlink("/etc", link) == 0);
    CHECK(judged(link, HOST_TREE_IS, "/etc"));
    unlink(link);
    CHECK(symlink("/", link) == 0);
    CHECK(judged(link, HOST_TREE_IS, "/"));
    unlink(link);
    /* an image directory of its own is none of the host's */
    CHECK(judged(dir, HOST_TREE_NOT, NULL));
    rmdir(dir);
}

TEST(inside_the_hosts_configuration)
{
    struct stat st;

    if (stat("/etc/ssl", &st) == 0)
        CHECK(judged("/etc/ssl", HOST_TREE_INSIDE, "/etc"));
    /* below the other system directories: an image store may live there */
    CHECK(judged("/usr/share", HOST_TREE_NOT, NULL));
    if (stat("/var/cache", &st) == 0)
        CHECK(judged("/var/cache", HOST_TREE_NOT, NULL));
}
