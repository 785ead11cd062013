/* nsloop N: try unshare(CLONE_NEWUSER) N times and print how each try
 * ended, as "ok=A EPERM=B ENOSYS=C other=D" (agent_config.bats: the
 * monitor answers EPERM and counts, up to its cap; past it the kernel
 * answers ENOSYS: still refused). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
    long ok = 0, eperm = 0, enosys = 0, other = 0;

    for (long i = 0; i < n; i++) {
        if (unshare(CLONE_NEWUSER) == 0)
            ok++;
        else if (errno == EPERM)
            eperm++;
        else if (errno == ENOSYS)
            enosys++;
        else
            other++;
    }
    printf("ok=%ld EPERM=%ld ENOSYS=%ld other=%ld\n", ok, eperm, enosys, other);
    return 0;
}
