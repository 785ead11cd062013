/* execloop N [ARGBYTES]: exec itself N times in a row (the same process,
 * no fork: as fast as execs come), each time with N-1 and, with ARGBYTES,
 * one more argument of that many bytes; prints "execloop done" at the end
 * (activity.bats: the record's caps). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    long bytes = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    char next[32], size[32];
    char *big = NULL;

    if (n <= 0) {
        puts("execloop done");
        return 0;
    }
    snprintf(next, sizeof(next), "%ld", n - 1);
    snprintf(size, sizeof(size), "%ld", bytes);
    if (bytes > 0) {
        big = malloc((size_t)bytes + 1);
        if (big == NULL)
            return 1;
        memset(big, 'x', (size_t)bytes);
        big[bytes] = '\0';
    }
    char *args[] = {argv[0], next, size, big, NULL};
    execv(argv[0], args);
    perror("execloop");
    return 1;
}
