#include "runtime/cli/signame.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    int sig;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT},   {"ILL", SIGILL},
    {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},   {"IOT", SIGIOT},     {"BUS", SIGBUS},
    {"FPE", SIGFPE},   {"KILL", SIGKILL},   {"USR1", SIGUSR1},   {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2}, {"PIPE", SIGPIPE},   {"ALRM", SIGALRM},   {"TERM", SIGTERM},
    {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},   {"TTOU", SIGTTOU},   {"URG", SIGURG},
    {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},   {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH}, {"IO", SIGIO},     {"PWR", SIGPWR},     {"SYS", SIGSYS},
};

int signal_parse(const char *s)
{
    char *end;
    long n;

    if (s[0] >= '0' && s[0] <= '9') {
        n = strtol(s, &end, 10);
        if (*end != '\0' || n <= 0 || n >= NSIG)
            return -1;
        return (int)n;
    }
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
        if (strcasecmp(signals[i].name, s) == 0)
            return signals[i].sig;
    return -1;
}
