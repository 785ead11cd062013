#include "runtime/container/subgid.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"

/* The first subordinate gid of this user (by name or by uid), bounded read. */
static bool first_subgid(gid_t *out)
{
    _cleanup_close_ int fd = open(SUBGID_FILE, O_RDONLY | O_CLOEXEC);
    char buf[16384], name[256], uidtxt[32];
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    ssize_t n;

    if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
        return false;
    buf[n] = '\0';
    snprintf(uidtxt, sizeof(uidtxt), "%u", (unsigned)getuid());
    name[0] = '\0';
    if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res != NULL)
        snprintf(name, sizeof(name), "%s", pw.pw_name);
    for (char *line = buf, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c1 = '\0';
        if (strcmp(line, uidtxt) != 0 && (name[0] == '\0' || strcmp(line, name) != 0))
            continue;
        unsigned long first = strtoul(c1 + 1, NULL, 10), count = strtoul(c2 + 1, NULL, 10);
        if (count >= 1 && first > 0 && first < 0xfffffffful) {
            *out = (gid_t)first;
            return true;
        }
    }
    return false;
}

static bool helper_usable(void)
{
    struct stat st;

    /* setuid root, as the uidmap package installs it */
    return stat(SUBGID_HELPER, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
           (st.st_mode & S_ISUID) && !(st.st_mode & S_IWOTH);
}

__attribute__((noreturn)) static void helper_child(int go, pid_t target, gid_t first)
{
    char c, pid[32], sub[32], gid[32];
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    ssize_t k;

    if (read(go, &c, 1) != 1)
        _exit(1);
    k = read(go, gid, sizeof(gid) - 1);
    if (k <= 0)
        _exit(1);
    gid[k] = '\0';
    snprintf(pid, sizeof(pid), "%d", (int)target);
    snprintf(sub, sizeof(sub), "%u", (unsigned)first);
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
    }
    char *argv[] = {"newgidmap", pid, "0", gid, "1", "1", sub, "1", NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    execve(SUBGID_HELPER, argv, envp);
    _exit(127);
}

bool subgid_helper_start(struct subgid_helper *h, char *why, size_t len)
{
    int p[2];
    pid_t target = getpid();

    *h = (struct subgid_helper){.pid = -1, .go = -1};
    if (!helper_usable()) {
        snprintf(why, len, "no setuid %s (the uidmap package)", SUBGID_HELPER);
        return false;
    }
    if (!first_subgid(&h->first)) {
        snprintf(why, len, "no subordinate gid range for uid %u in %s", (unsigned)getuid(),
                 SUBGID_FILE);
        return false;
    }
    if (pipe2(p, O_CLOEXEC) < 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        return false;
    }
    h->pid = fork();
    if (h->pid == 0) {
        close(p[1]);
        helper_child(p[0], target, h->first);
    }
    close(p[0]);
    if (h->pid < 0) {
        close(p[1]);
        snprintf(why, len, "fork: %s", strerror(errno));
        return false;
    }
    h->go = p[1];
    return true;
}

int subgid_helper_map(struct subgid_helper *h, gid_t gid, struct rr_error *err)
{
    char msg[32];
    int n = snprintf(msg, sizeof(msg), "g%u", (unsigned)gid), status;

    if (write(h->go, msg, (size_t)n) != n) {
        subgid_helper_abandon(h);
        return rr_fail(err, errno, "newgidmap: start it");
    }
    close(h->go);
    h->go = -1;
    while (waitpid(h->pid, &status, 0) < 0)
        if (errno != EINTR)
            return rr_fail(err, errno, "newgidmap: wait");
    h->pid = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rr_fail(err, 0, "newgidmap failed (status %d)", status);
    return 0;
}

void subgid_helper_abandon(struct subgid_helper *h)
{
    if (h->go >= 0)
        close(h->go);
    h->go = -1;
    if (h->pid > 0)
        while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    h->pid = -1;
}
