/* runtime/jobs/review_log.c and review_notes.c: what review says about the
 * agent's end and its verdict, on the log and in the summary. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/jobs/review_log.h"
#include "runtime/jobs/review_notes.h"
#include "tests/tap.h"

static char note[2048];

static bool unfinished(int status, bool timed_out, int interrupted, const char *exec_error)
{
    struct review_agent_end e = {.wait_status = status,
                                 .timed_out = timed_out,
                                 .timeout_s = 2,
                                 .interrupted = interrupted,
                                 .exec_error = exec_error};
    return review_unfinished_note(&e, note, sizeof(note));
}

TEST(a_finished_agent_leaves_no_note)
{
    CHECK(!unfinished(0, false, 0, ""));
}

TEST(each_unfinished_end_is_said)
{
    CHECK(unfinished(7 << 8, false, 0, ""));
    CHECK(strcmp(note, "the agent exited 7: this change set is what it left, unfinished") == 0);
    CHECK(unfinished(SIGKILL, true, 0, ""));
    CHECK(strcmp(note, "the agent was killed after 2 s (its timeout): this change set is what "
                       "it left, unfinished") == 0);
    CHECK(unfinished(SIGTERM, false, SIGTERM, ""));
    CHECK(strstr(note, "the job was cancelled (SIGTERM)") == note);
    CHECK(unfinished(SIGSEGV, false, 0, ""));
    CHECK(strstr(note, "killed by signal 11 (SIGSEGV)") != NULL);
}

TEST(an_exec_error_in_the_note_is_escaped)
{
    CHECK(unfinished(127 << 8, false, 0, "exec \033]0;x\007: not found"));
    CHECK(strchr(note, '\033') == NULL && strchr(note, '\007') == NULL);
    CHECK(strstr(note, "\\x1b]0;x\\x07") != NULL);
}

TEST(leftover_names_are_escaped_counted_and_capped)
{
    struct review_notes n = {.leftover = 20};
    char line[4096];

    snprintf(n.leftover_names, sizeof(n.leftover_names), "sleep\nev\033il\n##[error]x");
    review_notes_leftover_text(&n, line, sizeof(line));
    CHECK(strstr(line, "the agent left 20 processes running; revrun killed them at its exit: "
                       "sleep, ev\\x1bil, \\x23#[error]x and 17 more") == line);
    n = (struct review_notes){0};
    review_notes_leftover_text(&n, line, sizeof(line));
    CHECK(line[0] == '\0');
}

/* What a phase writes to the log, read back through a pipe. */
static void logged(enum review_voice voice, void (*say)(const struct review_log *), char *buf,
                   size_t len)
{
    int p[2];
    ssize_t n;

    if (pipe(p) < 0)
        abort();
    {
        struct review_log l = {.voice = voice, .fd = p[1]};
        say(&l);
    }
    close(p[1]);
    n = read(p[0], buf, len - 1);
    buf[n < 0 ? 0 : n] = '\0';
    close(p[0]);
}

static void refused(const struct review_log *l)
{
    rlog_verdict(l, true, 2, 1, "ab12");
}

static void accepted(const struct review_log *l)
{
    rlog_verdict(l, false, 1, 0, "ab12");
}

TEST(a_refused_verdict_carries_no_digest)
{
    char buf[1024];

    logged(REVIEW_VOICE_TEXT, refused, buf, sizeof(buf));
    CHECK(strstr(buf, "revrun| verdict: refuse, 2 changes, 1 reason") == buf);
    CHECK(strstr(buf, "ab12") == NULL);
    logged(REVIEW_VOICE_JSON, refused, buf, sizeof(buf));
    CHECK(strstr(buf, "ab12") == NULL && strstr(buf, "\"digest\"") == NULL);
    logged(REVIEW_VOICE_TEXT, accepted, buf, sizeof(buf));
    CHECK(strcmp(buf, "revrun| verdict: accept, 1 change, digest ab12\n") == 0);
    logged(REVIEW_VOICE_QUIET, accepted, buf, sizeof(buf));
    CHECK(buf[0] == '\0');
}
