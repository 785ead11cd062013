#include "runtime/container/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/escape.h"
#include "common/fsutil.h"
#include "runtime/container/log.h"

#define HOOK_OUTPUT_MAX 2048

int hooks_state_json(const char *id, const char *status, pid_t pid, const char *bundle,
                     const struct rr_strv *annotations, char **out, struct rr_error *err)
{
    struct json_writer *w = json_writer_new(false);
    int r;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "hook state");
    json_w_begin_object(w);
    json_w_kv_string(w, "ociVersion", "1.0.2");
    json_w_kv_string(w, "id", id);
    json_w_kv_string(w, "status", status);
    json_w_kv_int(w, "pid", pid);
    json_w_key(w, "bundle");
    json_w_bytes(w, bundle, strlen(bundle));
    json_w_key(w, "annotations");
    json_w_begin_object(w);
    for (size_t i = 0; annotations != NULL && i < annotations->n; i++) {
        const char *kv = annotations->v[i];
        const char *eq = strchr(kv, '=');
        char key[256];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
        json_w_key(w, key);
        json_w_bytes(w, eq + 1, strlen(eq + 1));
    }
    json_w_end_object(w);
    json_w_end_object(w);
    r = json_writer_finish(w, out, NULL, err);
    json_writer_free(w);
    return r;
}

__attribute__((noreturn)) static void exec_hook(const struct rr_hook *h, int in, int out)
{
    const int keep[] = {0, 1, 2};
    char *argv_path[] = {h->path, NULL};
    char *empty_env[] = {NULL};
    sigset_t none;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(127);
    rr_close_all_except(keep, 3);
    execve(h->path, h->args.n > 0 ? h->args.v : argv_path, h->env.n > 0 ? h->env.v : empty_env);
    _exit(127);
}

/* Feed the state, gather the output, wait within the timeout. */
static int supervise(pid_t pid, int in, int out, const char *state, const struct rr_hook *h,
                     char *output, size_t *used, int *status)
{
    long long deadline = h->timeout > 0 ? rr_mono_ms() + h->timeout * 1000 : -1;
    size_t len = strlen(state), sent = 0;
    bool timed_out = false;

    while (out >= 0) {
        struct pollfd pfd[2] = {{.fd = sent < len ? in : -1, .events = POLLOUT},
                                {.fd = out, .events = POLLIN}};
        long long left = deadline < 0 ? -1 : deadline - rr_mono_ms();
        if (deadline >= 0 && left <= 0) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(pfd, 2, left < 0 ? -1 : (int)left) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t n = write(in, state + sent, len - sent);
            if (n > 0)
                sent += (size_t)n;
            if (n < 0 || sent == len) {
                sent = len; /* a hook that does not read its stdin is fine */
                close(in);
                in = -1;
            }
        }
        if (pfd[1].revents & (POLLIN | POLLHUP)) {
            char buf[512];
            ssize_t n = read(out, buf, sizeof(buf));
            if (n <= 0)
                break;
            size_t take = (size_t)n < HOOK_OUTPUT_MAX - *used ? (size_t)n : HOOK_OUTPUT_MAX - *used;
            memcpy(output + *used, buf, take);
            *used += take;
        }
    }
    if (in >= 0)
        close(in);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return timed_out ? -1 : 0;
}

static int run_one(const struct rr_hook *h, const char *where, const char *state,
                   struct rr_error *err)
{
    int inp[2], outp[2], status = 0;
    char output[HOOK_OUTPUT_MAX + 1], shown[HOOK_OUTPUT_MAX * 4 + 1];
    size_t used = 0;
    pid_t pid;
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    int r;

    if (pipe2(inp, O_CLOEXEC) < 0)
        return rr_fail(err, errno, "%s: pipe", where);
    if (pipe2(outp, O_CLOEXEC) < 0) {
        close(inp[0]);
        close(inp[1]);
        return rr_fail(err, errno, "%s: pipe", where);
    }
    pid = fork();
    if (pid == 0)
        exec_hook(h, inp[0], outp[1]);
    close(inp[0]);
    close(outp[1]);
    if (pid < 0) {
        close(inp[1]);
        close(outp[0]);
        signal(SIGPIPE, old);
        return rr_fail(err, errno, "%s: fork", where);
    }
    fcntl(inp[1], F_SETFL, O_NONBLOCK);
    r = supervise(pid, inp[1], outp[0], state, h, output, &used, &status);
    close(outp[0]);
    signal(SIGPIPE, old);
    /* the output's last newline is the end of its message, not part of it */
    while (used > 0 && (output[used - 1] == '\n' || output[used - 1] == '\r'))
        used--;
    output[used] = '\0';
    rr_escape(output, used, shown, sizeof(shown));
    if (r < 0)
        return rr_fail(err, ETIMEDOUT, "%s (%s): killed after its timeout of %llds%s%s", where,
                       h->path, (long long)h->timeout, used ? ": " : "", shown);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        return rr_fail(err, 0, "%s (%s): killed by signal %d%s%s", where, h->path,
                       WTERMSIG(status), used ? ": " : "", shown);
    return rr_fail(err, 0, "%s (%s): exited %d%s%s", where, h->path, WEXITSTATUS(status),
                   used ? ": " : "", shown);
}

int hooks_run(const struct rr_config *cfg, enum rr_hook_kind kind, const char *state_json,
              struct rr_error *err)
{
    for (size_t i = 0; i < cfg->n_hooks[kind]; i++) {
        char where[64];
        snprintf(where, sizeof(where), "hooks.%s[%zu]", rr_hook_kind_names[kind], i);
        if (run_one(&cfg->hooks[kind][i], where, state_json, err) < 0)
            return -1;
    }
    return 0;
}

int hooks_run_warn(const struct rr_config *cfg, enum rr_hook_kind kind, const char *state_json)
{
    int failed = 0;

    for (size_t i = 0; i < cfg->n_hooks[kind]; i++) {
        char where[64], text[RR_ERROR_MSG_MAX + 128];
        struct rr_error err;
        snprintf(where, sizeof(where), "hooks.%s[%zu]", rr_hook_kind_names[kind], i);
        if (run_one(&cfg->hooks[kind][i], where, state_json, &err) < 0) {
            log_msg(LOG_WARN, "%s", rr_error_text(&err, text, sizeof(text)));
            failed++;
        }
    }
    return failed;
}
