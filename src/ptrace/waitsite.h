/*
 * Where threads wait: the stack of a thread that a pause's interrupt
 * found blocked in a system call (pause.c), taken while it is stopped
 * anyway, unwound with libunwind-ptrace and symbolized with its
 * process's libdw session, counted per site.  A site is the call the
 * program made (pthread_mutex_lock, pthread_cond_wait, epoll_wait) and
 * the first in-scope frame that made it: which lock or queue, called
 * from where.
 *
 * An unwind reads the stopped thread's registers and stack through
 * ptrace, so it holds the thread longer than the stop alone: at most one
 * a thread every WAIT_MIN_GAP_NS, and none while a thread is held to pay
 * a delay (its stack is where it ran, not where it waits).
 */
#ifndef CT_WAITSITE_H
# define CT_WAITSITE_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>

struct ct_func;
struct ct_line;
struct ctproc;
struct tcb;

# define WAIT_FRAMES		16
# define WAIT_MIN_GAP_NS	50000000ULL	/* a thread's stacks: 20 a second at most */
# define WAIT_SITES_MAX		512

struct wait_frame {
	const struct ct_func *func;	/* interned: valid to the session's end */
	const struct ct_line *line;	/* NULL: no line info */
	bool in_scope;
};

struct wait_site {
	long syscall;			/* its number (x86-64), the thread's orig_rax */
	const char *syscall_name;	/* "futex", ...; NULL: unknown */
	unsigned nframes;
	struct wait_frame frames[WAIT_FRAMES];	/* leaf first: the first stack
						   taken there */
	int call;			/* the call the program made: the frame below
					   the first in scope; -1: none */
	int caller;			/* the first frame in scope; -1: none */
	uint64_t count;			/* stacks taken here */
	char *label;			/* "pthread_mutex_lock from worker (x.c:40)" */
};

struct wait_stats {
	uint64_t taken;			/* stacks unwound and counted */
	uint64_t skipped;		/* too soon after the thread's last */
	uint64_t failed;		/* no frame could be unwound */
	uint64_t other;			/* counted in no site: the table was full */
	uint64_t ns_total, ns_max;	/* unwinding and symbolizing, per stack */
};

struct wait_sites;

struct wait_sites *wait_sites_new(void);
void wait_sites_free(struct wait_sites *);

/*
 * t is in a ptrace-stop, found blocked in a system call: unwind and
 * count it (rate-limited per thread; t->wait then names its site).
 */
void wait_sites_take(struct wait_sites *, struct tcb *t, uint64_t now);

/* What libunwind holds for a process (at an exec, at its end) or a thread. */
void wait_sites_forget_proc(struct ctproc *);
void wait_sites_forget_thread(struct tcb *);

/* The sites, most stacks first (valid until the next take). */
const struct wait_site *const *wait_sites_sorted(struct wait_sites *, size_t *n);
const struct wait_stats *wait_sites_stats(const struct wait_sites *);

#endif
