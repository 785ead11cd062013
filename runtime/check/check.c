#include "runtime/check/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void check_add(struct check_report *r, enum check_status st, bool needed, const char *name,
               const char *remedy, const char *fmt, ...)
{
    struct check_item *it;
    va_list ap;

    if (r->n == CHECK_MAX_ITEMS)
        return;
    it = &r->items[r->n++];
    it->status = st;
    snprintf(it->name, sizeof(it->name), "%s", name);
    va_start(ap, fmt);
    vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
    va_end(ap);
    snprintf(it->remedy, sizeof(it->remedy), "%s", remedy ? remedy : "");
    if (st == CHECK_FAIL && needed)
        r->needed_missing = true;
}

void check_add_step(struct check_report *r, enum check_status st, bool needed, const char *name,
                    unsigned causes, const char *fmt, ...)
{
    struct check_item *it;
    va_list ap;

    if (r->n == CHECK_MAX_ITEMS)
        return;
    it = &r->items[r->n++];
    it->status = st;
    it->causes = st == CHECK_OK || st == CHECK_INFO ? 0 : causes;
    snprintf(it->name, sizeof(it->name), "%s", name);
    va_start(ap, fmt);
    vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
    va_end(ap);
    it->remedy[0] = '\0';
    if (it->causes != 0)
        check_remedies(&r->facts, it->causes, r->rootless, it->remedy, sizeof(it->remedy));
    if (st == CHECK_FAIL && needed)
        r->needed_missing = true;
    if (st == CHECK_FAIL)
        r->all_causes |= it->causes;
}

int check_in_child(int (*fn)(void *arg, char *msg, size_t len), void *arg, char *msg,
                   size_t len)
{
    int p[2];
    pid_t pid;
    int status, e = EIO;

    msg[0] = '\0';
    if (pipe2(p, O_CLOEXEC) < 0)
        return errno;
    pid = fork();
    if (pid < 0) {
        e = errno;
        close(p[0]);
        close(p[1]);
        return e;
    }
    if (pid == 0) {
        char buf[512] = "";
        int r;
        close(p[0]);
        r = fn(arg, buf, sizeof(buf));
        if (write(p[1], &r, sizeof(r)) < 0 || write(p[1], buf, strlen(buf)) < 0)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    if (read(p[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
        ssize_t n = read(p[0], msg, len - 1);
        msg[n > 0 ? n : 0] = '\0';
    } else {
        e = EIO;
    }
    close(p[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return e;
}
