#include "runtime/container/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle/config.h"
#include "common/escape.h"

static int log_fd = -1;
static enum log_format log_fmt = LOG_FORMAT_TEXT;
static enum log_level stderr_level = LOG_WARN;
static int stderr_fd = -1;
static bool stderr_json;
static struct rr_strv *warn_sink;

static const char *level_name(enum log_level l)
{
    static const char *const names[] = {"debug", "info", "warning", "error"};
    return names[l];
}

int log_open(const char *path, enum log_format fmt, struct rr_error *err)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600);

    if (fd < 0)
        return rr_fail(err, errno, "open log file %s", path);
    log_close();
    log_fd = fd;
    log_fmt = fmt;
    return 0;
}

int log_fileno(void)
{
    return log_fd;
}

void log_close(void)
{
    if (log_fd >= 0)
        close(log_fd);
    log_fd = -1;
}

void log_set_stderr_level(enum log_level level)
{
    stderr_level = level;
}

void log_set_stderr_fd(int fd)
{
    stderr_fd = fd;
}

void log_set_stderr_json(bool on)
{
    stderr_json = on;
}

void log_collect_warnings(struct rr_strv *sink)
{
    warn_sink = sink;
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* logging must never turn into a failure of its own */
        buf += n;
        len -= (size_t)n;
    }
}

/* JSON string body: the text is already escaped to printable characters, so
 * only the quote and backslash need JSON escaping. */
static size_t json_quote(const char *in, char *out, size_t outlen)
{
    size_t o = 0;

    for (; *in != '\0' && o + 3 < outlen; in++) {
        if (*in == '"' || *in == '\\')
            out[o++] = '\\';
        out[o++] = *in;
    }
    out[o] = '\0';
    return o;
}

static void log_emit(enum log_level level, const char *escaped)
{
    char line[8192];
    int n;

    if (level >= stderr_level || log_fd < 0) {
        if (level >= stderr_level && stderr_json) {
            char quoted[6000];
            json_quote(escaped, quoted, sizeof(quoted));
            n = snprintf(line, sizeof(line), "{\"level\":\"%s\",\"msg\":\"%s\"}\n",
                         level_name(level), quoted);
            write_all(stderr_fd >= 0 ? stderr_fd : STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
        } else if (level >= stderr_level) {
            n = snprintf(line, sizeof(line), "revrun: %s%s\n",
                         level == LOG_ERROR ? "" : (level == LOG_WARN ? "warning: " : ""),
                         escaped);
            write_all(stderr_fd >= 0 ? stderr_fd : STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
        }
    }
    /* Bounded: a run emits a handful; a flood is cut, not grown. */
    if (level == LOG_WARN && warn_sink != NULL && warn_sink->n < 64)
        (void)strv_push(warn_sink, escaped);
    if (log_fd < 0)
        return;
    char stamp[64];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    if (log_fmt == LOG_FORMAT_JSON) {
        char quoted[6000];
        json_quote(escaped, quoted, sizeof(quoted));
        n = snprintf(line, sizeof(line), "{\"level\":\"%s\",\"msg\":\"%s\",\"time\":\"%s.%09ldZ\"}\n",
                     level_name(level), quoted, stamp, ts.tv_nsec);
    } else {
        n = snprintf(line, sizeof(line), "%s.%09ldZ %s: %s\n", stamp, ts.tv_nsec,
                     level_name(level), escaped);
    }
    write_all(log_fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    char raw[4096];
    char escaped[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    rr_escape(raw, strlen(raw), escaped, sizeof(escaped));
    log_emit(level, escaped);
}

void log_error(const struct rr_error *err)
{
    char text[RR_ERROR_MSG_MAX + 128];

    rr_error_text(err, text, sizeof(text));
    log_msg(LOG_ERROR, "%s", text);
}
