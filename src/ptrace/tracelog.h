/*
 * --trace-log: the ptrace core's events in strace's vocabulary, one per
 * line, so that tests can compare them with what the target says it did.
 */
#ifndef CT_TRACELOG_H
# define CT_TRACELOG_H

# include <sys/types.h>

int tracelog_open(const char *path);
void tracelog_close(void);
void tracelog(pid_t tid, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
