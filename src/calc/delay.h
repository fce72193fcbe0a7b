/*
 * Virtual-speedup delay accounting (Coz's model, kept by the supervisor):
 * pure arithmetic, no syscalls.
 *
 * Each time a sample of thread T hits the selected code, T is credited d
 * = s * P (it is the thread being sped up) and the global delay G becomes
 * the largest credit of any thread.  Every thread owes G - local and pays
 * by being paused (its local grows by the time it was actually held).  A
 * thread woken by a traced thread inherits the waker's local as it was at
 * the moment of the wake-up (Coz's rule: a thread woken by one that has
 * paid its delays does not pay again for the time it was blocked); a
 * thread woken by anything else (a timer, outside I/O) inherits nothing
 * and still owes the delays inserted while it slept.
 *
 * Because samples and wake-ups reach the supervisor a few ms late, each
 * thread keeps a short history of its local, so that "the waker's local
 * at the wake-up" is known for events that are already in the past.
 */
#ifndef CT_DELAY_H
# define CT_DELAY_H

# include <stdbool.h>
# include <stdint.h>

# define DELAY_HISTORY 16

struct delay_thread {
	uint64_t local;		/* ns of delay absorbed or credited */
	/* (time, local after the change) of the last changes, oldest first */
	uint64_t hist_t[DELAY_HISTORY];
	uint64_t hist_v[DELAY_HISTORY];
	unsigned hist_n;
	uint64_t paid_ns;	/* pauses held, whole session */
	uint64_t paid_pending;	/* paid since it last took a CPU (delay_revoke) */
	uint64_t credited_ns;	/* inherited from wakers, whole session */
	uint64_t hits;		/* samples in the selected code, session */
};

# define DELAY_G_HISTORY 4096

struct delay_global {
	uint64_t global;	/* G: the delay every thread must absorb */
	/* (time, G) at each rise, a ring: G as it was at a past moment */
	uint64_t hist_t[DELAY_G_HISTORY];
	uint64_t hist_v[DELAY_G_HISTORY];
	unsigned hist_n, hist_head;
};

/* G at time t (the oldest value known if t is older than the history). */
uint64_t delay_global_at(const struct delay_global *, uint64_t t);

/* A thread seen for the first time: nothing owed, nothing credited. */
void delay_thread_init(struct delay_thread *, const struct delay_global *, uint64_t now);
/* A new thread starts where its parent is (Coz's pthread_create rule). */
void delay_thread_inherit_parent(struct delay_thread *child,
				 const struct delay_thread *parent, uint64_t now);

/* A sample at time t hit the selected code: credit d, raise G. */
void delay_hit(struct delay_global *, struct delay_thread *, uint64_t t, uint64_t d);
/*
 * The thread lost ns, ending at time t, to the experiment itself, time
 * it would not have lost had the delays been inserted as they are meant
 * to be: as a hit of ns (G rises, every other thread pays it), not
 * counted as one.
 */
void delay_lost_to_exp(struct delay_global *, struct delay_thread *, uint64_t t, uint64_t ns);
/*
 * The thread was held paused for ns, ending at time t.  Held longer than
 * it owed, it is ahead of G: it owes that much less next time.  (Coz
 * raises G instead, which makes every other thread pay the overshoot,
 * the thread that is being sped up included, and ratchets.)
 */
void delay_paid(struct delay_global *, struct delay_thread *, uint64_t t, uint64_t ns);
/*
 * The thread could not run for ns, ending at time t, because the
 * supervisor took its CPU: to the program that is a pause, so it counts
 * toward what the thread owes, up to that and no further.  Returns the
 * part counted.
 */
uint64_t delay_lost(const struct delay_global *, struct delay_thread *, uint64_t t, uint64_t ns);
/*
 * Take back ns of what it was credited, at time t: a pause that cost the
 * program nothing (another of its threads ran on the CPU meanwhile).
 */
void delay_revoke(struct delay_thread *, uint64_t t, uint64_t ns);
/* Its local at time t (before changes stamped after t). */
uint64_t delay_local_at(const struct delay_thread *, uint64_t t);
/*
 * Woken at time t by a thread whose local was then waker_local, having
 * blocked at time blocked (as best known): credited the delay inserted
 * while it was blocked, as far as its waker had absorbed it (Coz's
 * post_block, with the waker's catch-up done by inheritance).  What it
 * owed when it blocked is credited too, as far as paying it first would
 * only have moved the block later: up to the time it slept, less the part
 * its waker carries for it (circular: inherited from it and not paid
 * since), less the delay inserted while that payment would have lasted,
 * which it would then have owed instead.  Coz keeps all of it, and pays
 * it in the critical section of a lock it is woken to take.  Never
 * beyond its waker's local or G.  Returns the credit given.
 */
uint64_t delay_wake(const struct delay_global *, struct delay_thread *, uint64_t t,
		    uint64_t waker_local, uint64_t blocked, uint64_t circular);
/* The same, only permille / 1000 of that credit. */
uint64_t delay_wake_part(const struct delay_global *, struct delay_thread *, uint64_t t,
			 uint64_t waker_local, uint64_t blocked, uint64_t circular,
			 unsigned permille);
/* What the thread still owes. */
uint64_t delay_owed(const struct delay_global *, const struct delay_thread *);
/* Between experiments nothing is owed: local = G. */
void delay_forgive(const struct delay_global *, struct delay_thread *, uint64_t now);

#endif
