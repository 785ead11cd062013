/* inotify_hog: take inotify instances until the kernel refuses one, then
 * say how many ("inotify=N errno=NAME"); with "hold", keep them and wait
 * to be killed. hostids.bats: a per-user kernel limit
 * (fs.inotify.max_user_instances) that one container uses up must leave
 * another container's, and root's, untouched. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define CAP 1000000

int main(int argc, char **argv)
{
    long n = 0;
    int e = 0;

    while (n < CAP) {
        if (inotify_init1(IN_CLOEXEC) < 0) {
            e = errno;
            break;
        }
        n++;
    }
    printf("inotify=%ld errno=%s\n", n, e == EMFILE ? "EMFILE" : e ? strerror(e) : "none");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "hold") == 0)
        for (;;)
            pause();
    return 0;
}
