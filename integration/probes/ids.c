/* ids: what the process is, as key=value lines for containment.bats.
 *
 *   uid= euid= gid= egid= groups=      real and effective ids, supplementary count
 *   CapInh= CapPrm= CapEff= CapBnd= CapAmb= NoNewPrivs= Seccomp= Seccomp_filters=
 *                                      from /proc/self/status
 *   session_leader=1|0                 getsid(0) == getpid()
 *   tty_nr=                            controlling terminal (0: none)
 *   devtty=ok|ERRNO                    open("/dev/tty")
 *   fds=0,1,2                          every open fd but the one listing them
 *   fd.N=TARGET                        where each points
 *   cwd=                               the working directory
 *   rlimit.NAME=soft:hard              NOFILE NPROC CORE FSIZE
 *   hostname=
 *   ifaces=lo,...                      network interfaces
 *   pids=N                             processes visible in /proc, but the
 *                                      checkout's warmers (named revrun-warm)
 *   warmers=N                          those
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void status_lines(void)
{
    static const char *const keys[] = {"CapInh:", "CapPrm:",     "CapEff:",  "CapBnd:",
                                       "CapAmb:", "NoNewPrivs:", "Seccomp:", "Seccomp_filters:"};
    char line[256];
    FILE *f = fopen("/proc/self/status", "re");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            if (strncmp(line, keys[i], strlen(keys[i])) == 0) {
                char *v = line + strlen(keys[i]);
                v += strspn(v, " \t");
                printf("%.*s=%s", (int)strlen(keys[i]) - 1, keys[i], v);
            }
    if (f != NULL)
        fclose(f);
}

static void tty_lines(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    int tty = -1;

    if (fd >= 0)
        close(fd);
    if (n > 0) {
        buf[n] = '\0';
        /* after "(comm)": state ppid pgrp session tty_nr */
        char *p = strrchr(buf, ')');
        if (p != NULL)
            sscanf(p + 2, "%*c %*d %*d %*d %d", &tty);
    }
    printf("session_leader=%d\n", getsid(0) == getpid());
    printf("tty_nr=%d\n", tty);
    fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    printf("devtty=%s\n", fd >= 0 ? "ok" : strerrorname_np(errno));
    if (fd >= 0)
        close(fd);
}

static void fd_lines(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    char list[1024] = "", path[300], target[512];
    int self = d ? dirfd(d) : -1;

    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == self)
            continue;
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", list[0] ? "," : "",
                 e->d_name);
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        printf("fd.%s=%s\n", e->d_name, target);
    }
    if (d != NULL)
        closedir(d);
    printf("fds=%s\n", list);
}

static void rlimit_lines(void)
{
    static const struct {
        const char *name;
        int res;
    } lims[] = {{"NOFILE", RLIMIT_NOFILE},
                {"NPROC", RLIMIT_NPROC},
                {"CORE", RLIMIT_CORE},
                {"FSIZE", RLIMIT_FSIZE}};

    for (size_t i = 0; i < sizeof(lims) / sizeof(lims[0]); i++) {
        struct rlimit rl;
        getrlimit(lims[i].res, &rl);
        printf("rlimit.%s=%lld:%lld\n", lims[i].name,
               rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur,
               rl.rlim_max == RLIM_INFINITY ? -1LL : (long long)rl.rlim_max);
    }
}

static void misc_lines(void)
{
    char buf[4096];
    struct if_nameindex *ifs = if_nameindex();
    DIR *d = opendir("/proc");
    struct dirent *e;
    int pids = 0, warmers = 0;

    ssize_t n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
    buf[n > 0 ? n : 0] = '\0';
    printf("cwd=%s\n", buf);
    if (gethostname(buf, sizeof(buf)) == 0)
        printf("hostname=%s\n", buf);
    printf("ifaces=");
    for (struct if_nameindex *i = ifs; i != NULL && i->if_index != 0; i++)
        printf("%s%s", i == ifs ? "" : ",", i->if_name);
    printf("\n");
    while (d != NULL && (e = readdir(d)) != NULL) {
        char path[300], comm[32] = "";
        FILE *f;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
        if ((f = fopen(path, "re")) != NULL) {
            if (fgets(comm, sizeof(comm), f) == NULL)
                comm[0] = '\0';
            fclose(f);
        }
        if (strcmp(comm, "revrun-warm\n") == 0)
            warmers++;
        else
            pids++;
    }
    if (d != NULL)
        closedir(d);
    printf("pids=%d\nwarmers=%d\n", pids, warmers);
}

int main(void)
{
    gid_t groups[64];

    printf("uid=%u\neuid=%u\ngid=%u\negid=%u\n", getuid(), geteuid(), getgid(), getegid());
    printf("groups=%d\n", getgroups(64, groups));
    status_lines();
    tty_lines();
    fd_lines();
    rlimit_lines();
    misc_lines();
    return 0;
}
