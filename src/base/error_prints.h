/*
 * Diagnostics in strace's manner.  Every fatal error names its cause and
 * exits with a code of its own (see man/causaltop.1, EXIT STATUS), so that
 * scripts can tell "no such process" from "permission denied".
 */
#ifndef CT_ERROR_PRINTS_H
# define CT_ERROR_PRINTS_H

# include <stdbool.h>

enum ct_exit {
	CT_EXIT_OK = 0,
	CT_EXIT_INTERNAL = 70,	/* bug or resource exhaustion in causaltop */
	CT_EXIT_USAGE = 64,	/* bad command line */
	CT_EXIT_NO_PID = 65,	/* -p: no such process */
	CT_EXIT_BAD_PID = 66,	/* -p: causaltop itself, or a kernel thread */
	CT_EXIT_PTRACE_PERM = 67,	/* ptrace refused: scope, user, capability */
	CT_EXIT_TRACED = 68,	/* already traced by gdb, strace, ... */
	CT_EXIT_PERF = 69,	/* perf_event_open refused */
	CT_EXIT_SPEC = 71,	/* --progress/--latency location not usable */
	CT_EXIT_PROFILE = 72,	/* report, diff: a profile file is malformed */
	CT_EXIT_IO = 73,	/* report, diff: a file cannot be read or written */
	CT_EXIT_REGRESSION = 3,	/* diff --fail-on-regression: a new bottleneck */
	CT_EXIT_NOEXEC = 126,	/* command found but not executable */
	CT_EXIT_NOCMD = 127,	/* command not found */
};

extern const char *program_name;
extern bool debug_flag;

void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void perror_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug_msg_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void error_msg_and_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void perror_msg_and_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

# define debug_msg(...) do { if (debug_flag) debug_msg_(__VA_ARGS__); } while (0)

/* Run before exiting on a fatal error, so no tracee is left stopped. */
void set_die_hook(void (*hook)(void));

#endif
