/* overlay/fuse_markers.c: the scan that refuses a checkout fuse-overlayfs
 * would read whiteouts from, and its caps. On a plain directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "overlay/overlay.h"
#include "tests/tap.h"

static char top[64];

static int fresh(void)
{
    char cmd[128];

    if (top[0] != '\0') {
        snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
        if (system(cmd) != 0)
            return -1;
    }
    snprintf(top, sizeof(top), "/tmp/revrun-markers.XXXXXX");
    if (mkdtemp(top) == NULL)
        return -1;
    return open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void touch(int dir, const char *name)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

/* depth directories "d" nested below dir; returns an fd of the deepest. */
static int nest(int dir, int depth)
{
    int fd = dup(dir);

    for (int i = 0; i < depth && fd >= 0; i++) {
        mkdirat(fd, "d", 0755);
        int next = openat(fd, "d", O_PATH | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = next;
    }
    return fd;
}

TEST(a_clean_tree_passes_and_a_wh_name_anywhere_is_refused)
{
    int fd = fresh(), deep;
    struct rr_error err = {0};

    CHECK(fd >= 0);
    touch(fd, "a.txt");
    touch(fd, "whale.wh.txt"); /* .wh. only as a prefix counts */
    deep = nest(fd, 5);
    touch(deep, "x");
    CHECK(overlay_fuse_check_markers(fd, &err) == 0);
    touch(deep, ".wh.x");
    CHECK(overlay_fuse_check_markers(fd, &err) < 0);
    CHECK(strstr(err.msg, "d/d/d/d/d/.wh.x") != NULL);
    CHECK(strstr(err.msg, "would hide \"x\"") != NULL);
    close(deep);
    close(fd);
}

TEST(an_opaque_marker_name_is_refused)
{
    int fd = fresh();
    struct rr_error err = {0};

    touch(fd, ".wh..wh..opq");
    CHECK(overlay_fuse_check_markers(fd, &err) < 0);
    CHECK(strstr(err.msg, "opaque") != NULL);
    close(fd);
}

TEST(a_tree_deeper_than_the_cap_is_refused_at_the_cap_not_before)
{
    int fd = fresh(), deep = nest(fd, 8);
    struct rr_error err = {0};

    CHECK(overlay_fuse_scan_markers(fd, 8, 1000, &err) == 0);
    CHECK(overlay_fuse_scan_markers(fd, 7, 1000, &err) < 0 && err.errnum == ELOOP);
    CHECK(strstr(err.msg, "deeper than 7") != NULL);
    close(deep);
    close(fd);
}

TEST(a_tree_with_more_entries_than_the_cap_is_refused)
{
    int fd = fresh();
    struct rr_error err = {0};
    char name[16];

    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        touch(fd, name);
    }
    CHECK(overlay_fuse_scan_markers(fd, 8, 50, &err) == 0);
    CHECK(overlay_fuse_scan_markers(fd, 8, 49, &err) < 0 && err.errnum == EFBIG);
    close(fd);
    snprintf(name, sizeof(name), "%s", ""); /* and nothing is left in /tmp */
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
    CHECK(system(cmd) == 0);
}
