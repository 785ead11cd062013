/* Test hook for crash safety: when REVRUN_CRASH_AT names this phase, the
 * process kills itself with SIGKILL right there, as an operator's kill -9
 * or a power cut would. The integration suite uses it to prove that sweep
 * cleans what every phase can leave behind. Harmless in production: the
 * variable comes from whoever runs revrun, who could kill it anyway. */
#ifndef REVRUN_CRASHPOINT_H
#define REVRUN_CRASHPOINT_H

void crash_point(const char *phase);

#endif
