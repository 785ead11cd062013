/* bomb: the resource attacks of containment.bats, each bounded so a
 * missing limit shows as a number rather than a dead host.
 *
 *   bomb fork MAX       fork children that wait, until fork fails or MAX;
 *                       prints "forked=N error=ERRNO|none", then ends them all
 *   bomb mem MIB        allocate and touch MIB MiB, printing "mem=N" every 16 MiB;
 *                       prints "survived" if it gets there
 *   bomb fill PATH MIB  write PATH in 1 MiB steps until an error or MIB MiB;
 *                       prints "bytes=N error=ERRNO|none"
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err_name(int e)
{
    return e == 0 ? "none" : strerrorname_np(e);
}

static int fork_bomb(long max)
{
    pid_t *kids = calloc((size_t)max, sizeof(pid_t));
    long n = 0;
    int e = 0;

    if (kids == NULL)
        return 1;
    for (; n < max; n++) {
        pid_t p = fork();
        if (p < 0) {
            e = errno;
            break;
        }
        if (p == 0) {
            pause();
            _exit(0);
        }
        kids[n] = p;
    }
    printf("forked=%ld error=%s\n", n, err_name(e));
    fflush(stdout);
    for (long i = 0; i < n; i++)
        kill(kids[i], SIGKILL);
    for (long i = 0; i < n; i++)
        waitpid(kids[i], NULL, 0);
    return 0;
}

static int mem_bomb(long mib)
{
    for (long i = 1; i <= mib; i++) {
        char *p = malloc(1 << 20);
        if (p == NULL) {
            printf("malloc failed at %ld\n", i);
            return 1;
        }
        memset(p, (int)i, 1 << 20);
        if (i % 16 == 0) {
            printf("mem=%ld\n", i);
            fflush(stdout);
        }
    }
    printf("survived\n");
    return 0;
}

static int fill(const char *path, long mib)
{
    static char buf[1 << 20];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    long long total = 0;
    int e = 0;

    if (fd < 0) {
        printf("bytes=0 error=%s\n", err_name(errno));
        return 1;
    }
    signal(SIGXFSZ, SIG_IGN); /* RLIMIT_FSIZE shows as EFBIG */
    memset(buf, 'x', sizeof(buf));
    for (long i = 0; i < mib; i++) {
        ssize_t n = write(fd, buf, sizeof(buf));
        if (n > 0)
            total += n;
        if (n != (ssize_t)sizeof(buf)) {
            e = n < 0 ? errno : ENOSPC;
            break;
        }
    }
    printf("bytes=%lld error=%s\n", total, err_name(e));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "fork") == 0)
        return fork_bomb(atol(argv[2]));
    if (argc >= 3 && strcmp(argv[1], "mem") == 0)
        return mem_bomb(atol(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "fill") == 0)
        return fill(argv[2], atol(argv[3]));
    fprintf(stderr, "usage: bomb fork MAX | mem MIB | fill PATH MIB\n");
    return 2;
}
