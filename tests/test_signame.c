/* runtime/cli/signame.c: signal names and numbers for `revrun kill`. */
#include <signal.h>
#include <stdio.h>

#include "runtime/cli/signame.h"
#include "tests/tap.h"

TEST(names_with_and_without_sig_any_case)
{
    CHECK(signal_parse("TERM") == SIGTERM);
    CHECK(signal_parse("SIGTERM") == SIGTERM);
    CHECK(signal_parse("sigterm") == SIGTERM);
    CHECK(signal_parse("Term") == SIGTERM);
    CHECK(signal_parse("KILL") == SIGKILL);
    CHECK(signal_parse("HUP") == SIGHUP);
    CHECK(signal_parse("SIGINT") == SIGINT);
    CHECK(signal_parse("USR1") == SIGUSR1 && signal_parse("USR2") == SIGUSR2);
    CHECK(signal_parse("IOT") == SIGABRT && signal_parse("ABRT") == SIGABRT);
    CHECK(signal_parse("CHLD") == SIGCHLD && signal_parse("WINCH") == SIGWINCH);
    CHECK(signal_parse("STOP") == SIGSTOP && signal_parse("CONT") == SIGCONT);
    CHECK(signal_parse("SYS") == SIGSYS && signal_parse("PWR") == SIGPWR);
}

TEST(numbers_within_range)
{
    char buf[16];

    CHECK(signal_parse("1") == 1);
    CHECK(signal_parse("9") == SIGKILL);
    CHECK(signal_parse("15") == SIGTERM);
    snprintf(buf, sizeof(buf), "%d", NSIG - 1);
    CHECK(signal_parse(buf) == NSIG - 1);
    snprintf(buf, sizeof(buf), "%d", NSIG);
    CHECK(signal_parse(buf) == -1);
}

TEST(anything_else_is_refused)
{
    static const char *const bad[] = {
        "",    "0",          "-9",       "+9",  " 9",       "9 ",    "9x",
        "SIG", "SIGSIGTERM", "TERMX",    "ERM", "SIG TERM", "RTMIN", "99999999999999999999",
        "0x9", "NULL",       "SIGKILL\n"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (!CHECK(signal_parse(bad[i]) == -1))
            tap_note("accepted \"%s\"", bad[i]);
}
