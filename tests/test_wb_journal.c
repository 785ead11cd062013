/* The apply journal: recovery undoes exactly the steps that happened, skips
 * logged steps that never ran, drops a record cut short by the crash, and
 * refuses a journal that is not its TARGET's or is malformed, keeping it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tap.h"
#include "writeback/apply/journal.h"

#define STAGE ".revrun-apply-0123456789abcdef"

struct jt {
    char root[64], target[96];
    int tfd, stage, jfd;
};

static void put(int dirfd, const char *name, const char *text)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static bool holds(int dirfd, const char *name, const char *text)
{
    char buf[64] = {0};
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

    if (fd >= 0)
        close(fd);
    return n == (ssize_t)strlen(text) && strcmp(buf, text) == 0;
}

static uint64_t ino_of(int dirfd, const char *name)
{
    struct stat st;

    CHECK(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0);
    return st.st_ino;
}

static bool exists(int dirfd, const char *name)
{
    return faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static off_t size_of(int fd)
{
    struct stat st;

    return fstat(fd, &st) == 0 ? st.st_size : -1;
}

/* TARGET holds a (to be removed), b (to be replaced); the stage holds n1
 * (a new file c) and n2 (b's new content). */
static void jt_init(struct jt *t)
{
    struct rr_error err;
    char jpath[128];

    snprintf(t->root, sizeof(t->root), "/tmp/wbjournal.XXXXXX");
    CHECK(mkdtemp(t->root) != NULL);
    snprintf(t->target, sizeof(t->target), "%s/target", t->root);
    snprintf(jpath, sizeof(jpath), "%s/journal", t->root);
    CHECK(mkdir(t->target, 0755) == 0);
    t->tfd = open(t->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    t->jfd = open(jpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    CHECK(t->tfd >= 0 && t->jfd >= 0);
    put(t->tfd, "a", "A");
    put(t->tfd, "b", "B");
    CHECK(wb_journal_begin(t->jfd, t->tfd, t->target, STAGE, &err) == 0);
    CHECK(mkdirat(t->tfd, STAGE, 0700) == 0);
    t->stage = openat(t->tfd, STAGE, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(t->stage >= 0);
    put(t->stage, "n1", "C");
    put(t->stage, "n2", "B2");
}

static void jt_free(struct jt *t)
{
    char cmd[128];

    close(t->tfd);
    close(t->stage);
    close(t->jfd);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
    CHECK(system(cmd) == 0);
}

static void logged(struct jt *t, enum wb_step_op op, uint32_t slot, uint64_t ino, const char *path)
{
    struct wb_step s = {op, slot, ino, path, strlen(path)};
    struct rr_error err;

    CHECK(wb_journal_step(t->jfd, &s, &err) == 0);
}

/* Steps as commit takes them, the last two logged but cut off by a crash. */
static void half_commit(struct jt *t)
{
    uint64_t c = ino_of(t->stage, "n1"), b2 = ino_of(t->stage, "n2");

    logged(t, WB_STEP_MOVED, 0, 0, "a");
    CHECK(renameat(t->tfd, "a", t->stage, "u0") == 0);
    logged(t, WB_STEP_PLACED, 1, c, "c");
    CHECK(renameat(t->stage, "n1", t->tfd, "c") == 0);
    logged(t, WB_STEP_MKDIR, 3, 0, "d");
    logged(t, WB_STEP_EXCHANGED, 2, b2, "b");
}

static void expect_as_before(struct jt *t)
{
    CHECK(holds(t->tfd, "a", "A"));
    CHECK(holds(t->tfd, "b", "B"));
    CHECK(!exists(t->tfd, "c"));
    CHECK(!exists(t->tfd, "d"));
    CHECK(!exists(t->tfd, STAGE));
}

TEST(recover_undoes_what_happened_and_nothing_else)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;

    jt_init(&t);
    half_commit(&t);
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0);
    CHECK(rec.found && !rec.committed && rec.undone == 4);
    expect_as_before(&t);
    CHECK(size_of(t.jfd) == 0);
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0); /* twice: nothing left */
    CHECK(!rec.found);
    jt_free(&t);
}

TEST(recover_opens_the_recorded_target_by_path)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;

    jt_init(&t);
    half_commit(&t);
    CHECK(wb_journal_recover(t.jfd, -1, &rec, &err) == 0);
    CHECK(strcmp(rec.target, t.target) == 0);
    expect_as_before(&t);
    jt_free(&t);
}

TEST(recover_after_the_exchange_swaps_back)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;

    jt_init(&t);
    half_commit(&t);
    CHECK(renameat2(t.stage, "n2", t.tfd, "b", RENAME_EXCHANGE) == 0);
    CHECK(holds(t.tfd, "b", "B2"));
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0);
    expect_as_before(&t);
    jt_free(&t);
}

TEST(a_record_cut_short_is_dropped)
{
    struct wb_recovery rec;
    struct rr_error err;
    char junk[10] = {WB_STEP_MOVED};
    struct jt t;

    jt_init(&t);
    half_commit(&t);
    CHECK(lseek(t.jfd, 0, SEEK_END) > 0 && write(t.jfd, junk, sizeof(junk)) == sizeof(junk));
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0);
    expect_as_before(&t);
    jt_free(&t);
}

TEST(a_committed_apply_keeps_its_changes)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;

    jt_init(&t);
    half_commit(&t);
    logged(&t, WB_STEP_COMMITTED, 0, 0, "");
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0);
    CHECK(rec.found && rec.committed && rec.undone == 0);
    CHECK(holds(t.tfd, "c", "C"));
    CHECK(!exists(t.tfd, "a"));
    CHECK(!exists(t.tfd, STAGE));
    jt_free(&t);
}

TEST(another_directory_is_not_the_target)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;
    off_t before;
    int other;

    jt_init(&t);
    half_commit(&t);
    before = size_of(t.jfd);
    other = open(t.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(wb_journal_recover(t.jfd, other, &rec, &err) == -1);
    CHECK(err.errnum == ESTALE);
    CHECK(size_of(t.jfd) == before); /* kept for a later attempt */
    CHECK(exists(t.stage, "u0"));
    close(other);
    jt_free(&t);
}

TEST(malformed_journals_are_refused_and_kept)
{
    static const char *bad_paths[] = {"/etc/passwd", "a\0b"};
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;

    for (size_t i = 0; i < 2; i++) {
        struct wb_step s = {WB_STEP_MOVED, 0, 0, bad_paths[i], i == 0 ? 11 : 3};
        jt_init(&t);
        CHECK(wb_journal_step(t.jfd, &s, &err) == 0);
        CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == -1);
        CHECK(size_of(t.jfd) > 0);
        jt_free(&t);
    }
    jt_init(&t);
    CHECK(pwrite(t.jfd, "XXXX", 4, 0) == 4); /* the magic */
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == -1);
    CHECK(exists(t.tfd, STAGE));
    jt_free(&t);
}

TEST(a_committed_apply_whose_stage_is_gone_is_finished)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;
    char cmd[256];

    jt_init(&t);
    half_commit(&t);
    logged(&t, WB_STEP_COMMITTED, 0, 0, "");
    snprintf(cmd, sizeof(cmd), "rm -rf %s/" STAGE, t.target); /* killed before clearing */
    CHECK(system(cmd) == 0);
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0);
    CHECK(rec.found && rec.committed);
    CHECK(size_of(t.jfd) == 0);
    jt_free(&t);
}

TEST(a_settled_journal_only_removes_the_stage)
{
    struct wb_recovery rec;
    struct rr_error err;
    struct jt t;

    jt_init(&t);
    half_commit(&t);
    CHECK(renameat(t.stage, "u0", t.tfd, "a") == 0 && renameat(t.tfd, "c", t.stage, "n1") == 0);
    CHECK(wb_journal_settle(t.jfd, &err) == 0); /* killed right after this */
    CHECK(wb_journal_recover(t.jfd, t.tfd, &rec, &err) == 0);
    CHECK(rec.found && rec.undone == 0);
    expect_as_before(&t);
    jt_free(&t);
}

TEST(a_step_under_a_directory_that_is_a_file_again_is_undone_already)
{
    struct wb_step s = {WB_STEP_PLACED, 5, 1, "b/x", 3}; /* b is the base's file */
    struct jt t;

    jt_init(&t);
    CHECK(wb_undo_step(t.tfd, t.stage, &s) == 0);
    s.op = WB_STEP_MKDIR;
    CHECK(wb_undo_step(t.tfd, t.stage, &s) == 0);
    s.op = WB_STEP_EXCHANGED; /* never under a new directory: an error, not a skip */
    CHECK(wb_undo_step(t.tfd, t.stage, &s) == -1);
    CHECK(holds(t.tfd, "b", "B"));
    jt_free(&t);
}

TEST(a_directory_someone_else_made_is_left_alone)
{
    struct wb_step s = {WB_STEP_MKDIR, 3, 0, "d", 1};
    struct jt t;

    jt_init(&t);
    CHECK(mkdirat(t.tfd, "d", 0755) == 0);
    s.ino = ino_of(t.tfd, "d") + 1000; /* what our mkdir made was another */
    CHECK(wb_undo_step(t.tfd, t.stage, &s) == 0);
    CHECK(exists(t.tfd, "d"));
    s.ino = ino_of(t.tfd, "d");
    CHECK(wb_undo_step(t.tfd, t.stage, &s) == 0);
    CHECK(!exists(t.tfd, "d"));
    jt_free(&t);
}

TEST(a_directory_never_known_by_inode_over_the_restored_base_is_left)
{
    /* killed at the mkdir replacing file b: the journal holds MOVED b and
     * MKDIR b without an inode; an interrupted recovery already moved b
     * back, so the second one finds the base file where the directory was. */
    struct wb_step s = {WB_STEP_MKDIR, 2, 0, "b", 1};
    struct jt t;

    jt_init(&t);
    CHECK(wb_undo_step(t.tfd, t.stage, &s) == 0);
    CHECK(holds(t.tfd, "b", "B"));
    jt_free(&t);
}
