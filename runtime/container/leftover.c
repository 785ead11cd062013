/* pid 1's count of what the agent left behind (leftover.h). */
#include "runtime/container/leftover.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROC_SCAN_MAX 65536u /* /proc entries looked at: the pids limit is far below */

static bool is_ours(pid_t pid, const pid_t *ours, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ours[i] == pid)
            return true;
    return false;
}

/* /proc/PID/stat is "pid (comm) S ...": comm may hold ')' and blanks, so
 * it ends at the last ')'. False for a zombie (already dead: not killed
 * by us) or a process gone meanwhile. */
static bool live_comm(int procfd, const char *pid, char *comm, size_t len)
{
    char path[64], buf[512];
    char *open_p, *close_p;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "%s/stat", pid);
    fd = openat(procfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    open_p = strchr(buf, '(');
    close_p = strrchr(buf, ')');
    if (open_p == NULL || close_p == NULL || close_p < open_p || close_p[1] != ' ' ||
        close_p[2] == 'Z' || close_p[2] == 'X')
        return false;
    *close_p = '\0';
    snprintf(comm, len, "%s", open_p + 1);
    return true;
}

static void add_name(char *names, size_t len, size_t *used, const char *comm)
{
    size_t n = strlen(comm);

    if (*used + n + 2 > len)
        return;
    if (*used > 0)
        names[(*used)++] = '\n';
    for (size_t i = 0; i < n; i++)
        names[(*used)++] = comm[i] == '\n' ? '?' : comm[i];
    names[*used] = '\0';
}

static uint64_t scan(const pid_t *ours, size_t n_ours, char *names, size_t len)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    uint64_t count = 0;
    size_t used = 0, seen = 0;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL && seen++ < PROC_SCAN_MAX) {
        char *end, comm[64];
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 1 || is_ours((pid_t)pid, ours, n_ours))
            continue;
        if (!live_comm(dirfd(d), e->d_name, comm, sizeof(comm)))
            continue;
        if (count++ < LEFTOVER_NAMES_MAX)
            add_name(names, len, &used, comm);
    }
    closedir(d);
    return count;
}

uint64_t leftover_kill(const pid_t *ours, size_t n_ours, char *names, size_t len)
{
    uint64_t count;

    if (len > 0)
        names[0] = '\0';
    /* Stopped first, so nothing forks between the count and the kill (a
     * fork that races the stop is restarted by the kernel and stops too). */
    if (kill(-1, SIGSTOP) < 0 && errno == ESRCH)
        return 0; /* nothing but pid 1 is left */
    count = scan(ours, n_ours, names, len);
    kill(-1, SIGKILL);
    return count;
}
