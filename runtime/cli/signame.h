#ifndef REVRUN_SIGNAME_H
#define REVRUN_SIGNAME_H

/* "TERM", "SIGTERM", "15" -> 15; -1 when not a signal. */
int signal_parse(const char *s);

#endif
