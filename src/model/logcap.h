/*
 * While the TUI owns the terminal, nothing else may write to it: the
 * supervisor's stderr (its own messages, and whatever libdw prints) is
 * redirected to a pipe, and a launched command's stdout and stderr to
 * another, both read by the event loop into a ring of lines that the
 * Log screen shows.  When the TUI closes, stderr is restored and the
 * supervisor's messages are written to it again, the command's output to
 * stdout, so that nothing said during the session is lost.
 */
#ifndef CT_LOGCAP_H
# define CT_LOGCAP_H

# include <stdint.h>
# include <sys/types.h>
# include "model/model.h"

# define LOGCAP_MAX 1000	/* lines kept */

struct evloop;
struct logcap;

struct logcap_line {
	uint64_t t_ns;		/* CLOCK_MONOTONIC */
	enum model_log_kind kind;
	char *text;
};

/* Redirect stderr, and make the pipe for a command's output (target_output). */
struct logcap *logcap_start(struct evloop *, bool target_output);
/* The fd a launched command gets as stdout and stderr; -1 if none. */
int logcap_target_fd(const struct logcap *);
/* A note of causaltop's own (not replayed at the end). */
void logcap_add(struct logcap *, enum model_log_kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Line number seq (0 the first), NULL if dropped or not there yet. */
const struct logcap_line *logcap_get(const struct logcap *, uint64_t seq);
/* How many lines were ever logged. */
uint64_t logcap_total(const struct logcap *);
/* Read what the pipes hold now (the loop does it when they are readable). */
void logcap_poll(struct logcap *);
/* Restore stderr; write the messages out again.  Idempotent. */
void logcap_stop(struct logcap *);
/*
 * After logcap_stop: pass the command's output on to stdout until pid
 * exits; its wait status in *status.  wait: waitpid(2), or one that also
 * tends to what else may stop meanwhile (ptrace/trace.h).
 */
void logcap_wait_child(struct logcap *, pid_t pid, int *status,
		       pid_t (*wait)(pid_t pid, int *status, int options));
void logcap_free(struct logcap *);

#endif
