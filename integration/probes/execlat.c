/* execlat N: exec itself N times in a row (no fork) and time each exec
 * from the call to the new image's first step; prints the median, the
 * 10th and 90th percentiles and the mean time per exec in microseconds
 * (bench/activity.sh: what the activity record adds to one exec, as the
 * agent sees it, apart from what a whole review's wall time mixes in).
 * The times travel in a memfd kept across the execs. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static int report(int fd, double first)
{
    off_t size = lseek(fd, 0, SEEK_END);
    size_t n = size > 0 ? (size_t)size / sizeof(double) : 0;
    double *v = n > 0 ? malloc(n * sizeof(double)) : NULL;

    if (v == NULL || pread(fd, v, n * sizeof(double), 0) != (ssize_t)(n * sizeof(double))) {
        fprintf(stderr, "execlat: no times\n");
        return 1;
    }
    qsort(v, n, sizeof(double), by_value);
    printf("execs %zu median %.1f p10 %.1f p90 %.1f mean %.1f\n", n, v[n / 2], v[n / 10],
           v[n * 9 / 10], (now_us() - first) / (double)n);
    free(v);
    return 0;
}

/* argv: N, then (after the first exec) the memfd, when the exec was
 * called and when the first one was. */
int main(int argc, char **argv)
{
    double at = now_us(), first = at;
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    char left[32], fd_s[16], called[64], first_s[64];
    int fd;

    if (argc >= 5) {
        double took = at - strtod(argv[3], NULL);
        fd = (int)strtol(argv[2], NULL, 10);
        first = strtod(argv[4], NULL);
        if (write(fd, &took, sizeof(took)) != (ssize_t)sizeof(took))
            return 1;
    } else {
        fd = memfd_create("execlat", 0); /* kept across exec */
        if (fd < 0) {
            perror("execlat: memfd_create");
            return 1;
        }
    }
    if (n <= 0)
        return report(fd, first);
    snprintf(left, sizeof(left), "%ld", n - 1);
    snprintf(fd_s, sizeof(fd_s), "%d", fd);
    snprintf(first_s, sizeof(first_s), "%.3f", first);
    snprintf(called, sizeof(called), "%.3f", now_us());
    char *args[] = {argv[0], left, fd_s, called, first_s, NULL};
    execv(argv[0], args);
    perror("execlat");
    return 1;
}
