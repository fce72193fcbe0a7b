/*
 * Reading the rings.  Samples and wake-ups wait in perf rings until the
 * supervisor reads them, and reading them runs their owners' callbacks:
 * the sampler's ops (engine/collect.c: counters, and the experiment
 * engine's hits) and the wake-up tracker's (the engine's wake-ups).
 * drain_rings() is the one function that does it, so that what comes
 * back up from perf/ comes back at the moments listed here; each reason
 * says why its caller cannot wait for the next tick.  (sampler.c also
 * drains a ring it closes, and every ring when it is freed.)
 */
#ifndef CT_DRAIN_H
# define CT_DRAIN_H

struct sampler;
struct sampler_ring;
struct wake;

enum drain_why {
	/*
	 * app/main.c, at every tick (1-2 ms during experiments, 20 ms
	 * between): samples, then wake-ups, before the engine's tick uses
	 * them.  A 64 KiB ring holds more than 300 ms of samples at 1 kHz.
	 */
	DRAIN_TICK,
	/*
	 * engine/account.c (catch_up), during an experiment: a thread is
	 * about to copy another's accounting (a new thread its parent's) or
	 * to pay what it owes at its exit, so every hit and wake-up so far
	 * must be applied first: samples and wake-ups.
	 */
	DRAIN_CATCH_UP,
	/*
	 * ptrace/trace.c, a process's image is replaced (exec, attach):
	 * samples taken on the old image are symbolized against it before
	 * its symbolizer goes.
	 */
	DRAIN_IMAGE,
	/*
	 * ptrace/trace.c, a thread's exit stop: its ring (every ring in
	 * cpu mode), while its mappings still exist.
	 */
	DRAIN_EXIT,
	/*
	 * ptrace/trace.c, a thread without a ring of its own (cpu mode) is
	 * dropped: its samples while its tid still means it.
	 */
	DRAIN_GONE,
	/* app/main.c, once every thread is detached: the last samples. */
	DRAIN_END,
};

/*
 * Deliver what the rings hold: only's samples (NULL: every ring's), and
 * wake's wake-ups too when why wants them (wake may be NULL).
 */
void drain_rings(struct sampler *, struct wake *, struct sampler_ring *only, enum drain_why why);

#endif
