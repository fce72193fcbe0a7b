/*
 * Sampling with perf_event_open, owned by the supervisor (the target
 * never sees these fds).  Two modes:
 *  - thread: one task-clock event and ring per traced thread; its cost is
 *    paid at every context switch of that thread;
 *  - cpu: one event and ring per CPU, samples of other processes dropped
 *    by TID; cheaper for threads that block often, and flat in fds and
 *    memory however many threads the target has.  Needs
 *    perf_event_paranoid <= 0 or CAP_PERFMON.
 * Rings are drained on the supervisor's tick and whenever a thread stops
 * for good (exit, exec).
 */
#ifndef CT_SAMPLER_H
# define CT_SAMPLER_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>
# include "perf/perf_ring.h"

enum sampler_mode { SAMPLER_AUTO, SAMPLER_THREAD, SAMPLER_CPU };
enum sampler_event { SAMPLER_EV_AUTO, SAMPLER_EV_TASK_CLOCK, SAMPLER_EV_CPU_CLOCK,
		     SAMPLER_EV_CYCLES };

struct sampler_config {
	enum sampler_mode mode;
	enum sampler_event event;
	uint64_t period_ns;
	unsigned ring_pages;		/* data pages per ring, power of two */
	unsigned stack_dump;		/* bytes of user stack per sample, a
					   multiple of 8, for unwind.c; 0: none */
};

struct sampler_ops {
	/* owner: the cookie given to sampler_thread_open, NULL in cpu mode */
	void (*sample)(void *ctx, void *owner, const struct ct_sample *);
	/* pid mapped something executable (a dlopen, say) */
	void (*exec_mmap)(void *ctx, uint32_t pid);
	void (*lost)(void *ctx, void *owner, uint64_t n);
};

struct sampler_stats {
	uint64_t records, samples, lost, bad;
	unsigned rings_open, rings_peak;
};

struct sampler;
struct sampler_ring;

/*
 * Resolve SAMPLER_AUTO and SAMPLER_EV_AUTO by probing, open the per-CPU
 * rings in cpu mode.  On refusal prints why and returns -errno.
 */
int sampler_new(struct sampler **, const struct sampler_config *,
		const struct sampler_ops *, void *ctx);
void sampler_free(struct sampler *);

/*
 * Thread mode: open the event on tid (which should be in a ptrace-stop so
 * that it is sampled from its next instruction on).  Cpu mode: nothing to
 * do, *ring = NULL.  Returns 0, -ESRCH when the thread is gone, or another
 * -errno after printing why.
 */
int sampler_thread_open(struct sampler *, pid_t tid, void *owner,
			struct sampler_ring **ring);
/* Drain, then close.  NULL is fine. */
void sampler_ring_close(struct sampler *, struct sampler_ring *);
/*
 * Deliver pending samples of one ring (NULL: every ring).  Only through
 * drain_rings() (drain.h), which says when and why rings are read.
 */
void sampler_drain(struct sampler *, struct sampler_ring *);

enum sampler_mode sampler_mode(const struct sampler *);
/* "thread task-clock 1.000 ms" */
const char *sampler_describe(const struct sampler *);
const struct sampler_stats *sampler_stats(const struct sampler *);

#endif
