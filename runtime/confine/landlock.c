#include "runtime/confine/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

/* The uapi, spelled out: distributions ship headers older than the kernels
 * they run (Debian 12's know ABI 2), and revrun handles up to ABI 6. */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)                  /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)               /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)              /* ABI 5 */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

/* Rights a rule on a file (not a directory) may carry. */
#define LL_FILE_RIGHTS                                                                             \
    (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4; unused: the network namespace does that */
    uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int landlock_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

    return v > 0 ? (int)v : 0;
}

/* Every filesystem right the kernel's ABI knows: all of them handled. */
static uint64_t handled_fs(int abi)
{
    uint64_t fs = (LL_FS_MAKE_SYM << 1) - 1;

    if (abi >= 2)
        fs |= LL_FS_REFER;
    if (abi >= 3)
        fs |= LL_FS_TRUNCATE;
    if (abi >= 5)
        fs |= LL_FS_IOCTL_DEV;
    return fs;
}

static uint64_t rights_of(enum landlock_access a)
{
    switch (a) {
    case LANDLOCK_READ:
        return LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
    case LANDLOCK_DEVICES:
        return LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
    case LANDLOCK_WRITE:
        /* No MAKE_CHAR or MAKE_BLOCK: a device node is nothing the agent makes. */
        return LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR |
               LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER |
               LL_FS_TRUNCATE;
    }
    return 0;
}

int landlock_judge_host(const struct profile *p, char *warning, size_t len, struct rr_error *err)
{
    warning[0] = '\0';
    if (p->landlock == LANDLOCK_OFF || landlock_abi() > 0)
        return 0;
    if (p->landlock == LANDLOCK_REQUIRED)
        return rr_fail(err, EOPNOTSUPP,
                       "Landlock: this kernel has none (Linux 5.13+ with \"landlock\" in the "
                       "lsm= boot parameter), and the config requires it; list \"landlock\" in "
                       "revrun.bestEffort to run without that second filesystem layer");
    snprintf(warning, len,
             "Landlock: this kernel has none; the agent runs without that second filesystem "
             "layer (revrun.bestEffort lists \"landlock\")");
    return 0;
}

/* One rule on the object open as fd; a file gets only the file rights. */
static int add_rule(int ruleset, int fd, uint64_t rights, uint64_t handled)
{
    struct ll_path_beneath_attr pb = {.parent_fd = fd};
    struct stat st;

    if (fstat(fd, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        rights &= LL_FILE_RIGHTS;
    pb.allowed_access = rights & handled;
    if (pb.allowed_access == 0)
        return 0;
    return (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
}

/* The files the process was started with (a log file, /dev/null) stay
 * reopenable through /dev/stdout, with the access they were opened with (a
 * log opened for writing is not readable that way); pipes and sockets need
 * no rule, and a terminal gets none. */
static int add_stdio_rules(int ruleset, uint64_t handled, struct rr_error *err)
{
    for (int fd = 0; fd <= 2; fd++) {
        struct stat st;
        struct termios t;
        int mode = fcntl(fd, F_GETFL);
        uint64_t rights = 0;
        if (mode < 0 || fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))
            continue;
        if (S_ISCHR(st.st_mode) && tcgetattr(fd, &t) == 0)
            continue;
        if ((mode & O_ACCMODE) != O_WRONLY)
            rights |= LL_FS_READ_FILE;
        if ((mode & O_ACCMODE) != O_RDONLY)
            rights |= LL_FS_WRITE_FILE | LL_FS_TRUNCATE;
        if (add_rule(ruleset, fd, rights, handled) < 0)
            return rr_fail(err, errno, "Landlock: rule for fd %d", fd);
    }
    return 0;
}

static int add_profile_rules(const struct profile *p, int ruleset, uint64_t handled,
                             struct rr_error *err)
{
    _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (root < 0)
        return rr_fail(err, errno, "Landlock: open /");
    for (size_t i = 0; i < p->n_landlock_rules; i++) {
        const struct landlock_rule *r = &p->landlock_rules[i];
        /* Resolved as the mount was placed: inside the root. */
        _cleanup_close_ int fd = rr_open_in_root(root, r->path, O_PATH, false);
        if (fd < 0 || add_rule(ruleset, fd, rights_of(r->access), handled) < 0)
            return rr_fail(err, errno, "Landlock: rule for %s", r->path);
    }
    return 0;
}

int landlock_prepare(const struct profile *p, int *ruleset_fd, struct rr_error *err)
{
    int abi = landlock_abi();
    struct ll_ruleset_attr attr = {0};
    _cleanup_close_ int fd = -1;

    *ruleset_fd = -1;
    if (p->landlock == LANDLOCK_OFF || (abi == 0 && p->landlock == LANDLOCK_BEST_EFFORT))
        return 0;
    if (abi == 0)
        return rr_fail(err, EOPNOTSUPP, "Landlock: this kernel has none");
    attr.handled_access_fs = handled_fs(abi);
    /* Abstract unix sockets made outside the agent's domain (the host's,
     * with revrun.network "host") are out of its reach. */
    if (abi >= 6)
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
    if (fd < 0)
        return rr_fail(err, errno, "Landlock: create ruleset (ABI %d)", abi);
    if (add_profile_rules(p, fd, attr.handled_access_fs, err) < 0)
        return -1;
    if (p->landlock_stdio && add_stdio_rules(fd, attr.handled_access_fs, err) < 0)
        return -1;
    *ruleset_fd = rr_steal_fd(&fd);
    return 0;
}

int landlock_enforce(int ruleset_fd)
{
    if (ruleset_fd < 0)
        return 0;
    return (int)syscall(SYS_landlock_restrict_self, ruleset_fd, 0);
}

static int add_read_rules(int ruleset, const char *const *paths, size_t n, uint64_t handled,
                          struct rr_error *err)
{
    for (size_t i = 0; i < n; i++) {
        _cleanup_close_ int fd = open(paths[i], O_PATH | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            continue;
        if (fd < 0 || add_rule(ruleset, fd, LL_FS_READ_FILE | LL_FS_READ_DIR, handled) < 0)
            return rr_fail(err, errno, "Landlock: rule for %s", paths[i]);
    }
    return 0;
}

int landlock_read_only(const char *const *paths, size_t n, struct rr_error *err)
{
    int abi = landlock_abi();
    struct ll_ruleset_attr attr = {0};
    _cleanup_close_ int fd = -1;

    if (abi == 0)
        return 0;
    attr.handled_access_fs = handled_fs(abi);
    if (abi >= 6)
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
    fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
    if (fd < 0)
        return rr_fail(err, errno, "Landlock: create ruleset (ABI %d)", abi);
    if (add_read_rules(fd, paths, n, attr.handled_access_fs, err) < 0)
        return -1;
    if (landlock_enforce(fd) < 0)
        return rr_fail(err, errno, "Landlock: restrict self");
    return 1;
}
