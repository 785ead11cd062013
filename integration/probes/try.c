/* try: one operation, and how it went: prints "ok" or the errno's name
 * (EROFS, EACCES, ...) and exits 0 or 1, for containment.bats.
 *
 *   try read PATH              open O_RDONLY and read (prints what was read after "ok ")
 *   try write PATH             open O_WRONLY|O_CREAT|O_APPEND and write a byte
 *   try trunc PATH             open O_WRONLY|O_TRUNC
 *   try mkdir PATH
 *   try mknod-fifo PATH
 *   try chmod PATH OCTAL
 *   try remount-rw PATH        clear MOUNT_ATTR_RDONLY with mount_setattr, then
 *                              mount(MS_REMOUNT|MS_BIND) without MS_RDONLY
 *   try connect-tcp ADDR PORT  IPv4
 *   try connect-abstract NAME  abstract unix socket (no leading NUL in NAME)
 *   try tiocsti FD             push a byte into the terminal FD's input
 *   try reopen-tiocsti FD      open /proc/self/fd/FD again without O_NOCTTY
 *                              (which makes a terminal the controlling one of a
 *                              session leader), then TIOCSTI on it
 *   try kill PID               kill(PID, 0)
 *   try sethostname NAME
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <signal.h>
#include <unistd.h>

static int done(long r)
{
    if (r < 0) {
        printf("%s\n", strerrorname_np(errno));
        return 1;
    }
    printf("ok\n");
    return 0;
}

static int do_read(const char *path)
{
    char buf[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return done(-1);
    n = read(fd, buf, sizeof(buf) - 1);
    if (n < 0)
        return done(-1);
    buf[n] = '\0';
    printf("ok %s\n", buf);
    return 0;
}

static int do_open_write(const char *path, int flags)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);

    if (fd < 0)
        return done(-1);
    if (!(flags & O_TRUNC) && write(fd, "x", 1) != 1)
        return done(-1);
    return done(0);
}

static int do_remount_rw(const char *path)
{
    struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};
    long r = syscall(SYS_mount_setattr, AT_FDCWD, path, 0, &attr, sizeof(attr));

    if (r < 0 && mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL) == 0)
        r = 0;
    return done(r);
}

static int do_connect_tcp(const char *addr, const char *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
        return done(-1);
    return done(connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
}

static int do_connect_abstract(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(name);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0 || n + 1 > sizeof(sa.sun_path))
        return done(-1);
    memcpy(sa.sun_path + 1, name, n);
    return done(connect(fd, (struct sockaddr *)&sa, (socklen_t)(sizeof(sa.sun_family) + 1 + n)));
}

static int do_reopen_tiocsti(const char *fdnum)
{
    char path[64];
    char c = 'X';
    int fd;

    snprintf(path, sizeof(path), "/proc/self/fd/%s", fdnum);
    fd = open(path, O_RDWR);
    if (fd < 0) {
        printf("reopen ");
        return done(-1);
    }
    return done(ioctl(fd, TIOCSTI, &c));
}

int main(int argc, char **argv)
{
    const char *op = argc > 1 ? argv[1] : "";
    const char *a = argc > 2 ? argv[2] : "";
    const char *b = argc > 3 ? argv[3] : "";
    char c = 'X';

    if (strcmp(op, "read") == 0)
        return do_read(a);
    if (strcmp(op, "write") == 0)
        return do_open_write(a, O_CREAT | O_APPEND);
    if (strcmp(op, "trunc") == 0)
        return do_open_write(a, O_TRUNC);
    if (strcmp(op, "mkdir") == 0)
        return done(mkdir(a, 0755));
    if (strcmp(op, "mknod-fifo") == 0)
        return done(mknod(a, S_IFIFO | 0644, 0));
    if (strcmp(op, "chmod") == 0)
        return done(chmod(a, (mode_t)strtol(b, NULL, 8)));
    if (strcmp(op, "remount-rw") == 0)
        return do_remount_rw(a);
    if (strcmp(op, "connect-tcp") == 0)
        return do_connect_tcp(a, b);
    if (strcmp(op, "connect-abstract") == 0)
        return do_connect_abstract(a);
    if (strcmp(op, "tiocsti") == 0)
        return done(ioctl(atoi(a), TIOCSTI, &c));
    if (strcmp(op, "reopen-tiocsti") == 0)
        return do_reopen_tiocsti(a);
    if (strcmp(op, "kill") == 0)
        return done(kill(atoi(a), 0));
    if (strcmp(op, "sethostname") == 0)
        return done(sethostname(a, strlen(a)));
    fprintf(stderr, "usage: try OP ARGS (see the source)\n");
    return 2;
}
