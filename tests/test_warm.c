/* runtime/container/warm.c: the checkout's warmers share one walk. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/container/warm.h"
#include "tests/tap.h"

static char root[64];

/* root/t: 6 directories of 9 files, one with a subdirectory of 4 files,
 * and a symlink to root/far (20 files) that no walk may follow. */
static const size_t in_tree = 6 * 9 + 6 + 1 + 4 + 1;

static void make_tree(void)
{
    char p[256];

    snprintf(root, sizeof(root), "/tmp/revrun-test-warm.XXXXXX");
    if (mkdtemp(root) == NULL)
        abort();
    snprintf(p, sizeof(p), "%s/t", root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/far", root);
    mkdir(p, 0755);
    for (int i = 0; i < 20; i++) {
        snprintf(p, sizeof(p), "%s/far/f%d", root, i);
        close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    }
    for (int d = 0; d < 6; d++) {
        snprintf(p, sizeof(p), "%s/t/d%d", root, d);
        mkdir(p, 0755);
        for (int f = 0; f < 9; f++) {
            snprintf(p, sizeof(p), "%s/t/d%d/f%d", root, d, f);
            close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        }
    }
    snprintf(p, sizeof(p), "%s/t/d0/sub", root);
    mkdir(p, 0755);
    for (int f = 0; f < 4; f++) {
        snprintf(p, sizeof(p), "%s/t/d0/sub/g%d", root, f);
        close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    }
    snprintf(p, sizeof(p), "%s/t/link", root);
    if (symlink("../far", p) < 0)
        abort();
}

static size_t walk(unsigned worker, unsigned workers, size_t max_entries, unsigned max_depth)
{
    char p[128];
    int fd;

    snprintf(p, sizeof(p), "%s/t", root);
    fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? 0 : warm_tree(fd, max_entries, max_depth, worker, workers);
}

TEST(one_walker_states_every_entry_and_follows_no_symlink)
{
    make_tree();
    CHECK(walk(0, 1, WARM_MAX_ENTRIES, WARM_MAX_DEPTH) == in_tree);
    CHECK(walk(0, 0, WARM_MAX_ENTRIES, WARM_MAX_DEPTH) == in_tree); /* 0 means one */
}

TEST(the_shares_of_several_walkers_are_every_entry_once)
{
    for (unsigned workers = 2; workers <= 8; workers++) {
        size_t sum = 0, least = (size_t)-1;
        for (unsigned w = 0; w < workers; w++) {
            size_t n = walk(w, workers, WARM_MAX_ENTRIES, WARM_MAX_DEPTH);
            sum += n;
            least = n < least ? n : least;
        }
        if (!CHECK(sum == in_tree))
            tap_note("%u walkers stated %zu of %zu", workers, sum, in_tree);
        /* 8 directories to share: each of up to 8 walkers gets one */
        CHECK(least > 0);
    }
}

TEST(the_walk_stops_at_its_bounds)
{
    /* one level: the 6 directories and the symlink, nothing beneath */
    CHECK(walk(0, 1, WARM_MAX_ENTRIES, 0) == 7);
    /* two levels: d0/sub is met, but not entered */
    CHECK(walk(0, 1, WARM_MAX_ENTRIES, 1) == in_tree - 4);
    CHECK(walk(0, 1, 10, WARM_MAX_DEPTH) == 10);
}

TEST(cleanup)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    CHECK(system(cmd) == 0);
}
