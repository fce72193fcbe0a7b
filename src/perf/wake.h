/*
 * Who woke whom: the kernel's sched:sched_waking tracepoint, one perf
 * event and ring per CPU.  The event fires in the waker's context, so the
 * sample's pid/tid is the waker and the raw record names the wakee; the
 * raw record's common_flags say whether the waker was really a task or an
 * interrupt that happened to land on it (a timer expiring, a packet
 * arriving): only task wake-ups pass virtual time from waker to wakee.
 *
 * One kind of softirq wake-up is a task's own: a packet sent over
 * loopback is received in the sender's softirq, at the end of its
 * send, so the receiver is woken in the sender's context with the
 * softirq flag (every loopback TCP wake-up, measured).  net:netif_rx,
 * which loopback's transmit fires, shares each CPU's ring: a softirq
 * wake-up by a task that queued a loopback packet on that CPU just
 * before (WAKE_LOOPBACK_NS) is that task's.
 *
 * sched:sched_switch shares the ring too (optional): which task left a CPU
 * to which, and whether the one leaving stayed ready to run.  A thread
 * that waited for a CPU waited for the task that held it, as a thread
 * woken by another waited for that one (engine/account.c).
 *
 * Needs tracefs (mounted on /sys/kernel/tracing if it is not and we may)
 * and permission for raw tracepoint samples on every CPU (root or
 * CAP_PERFMON + CAP_SYS_ADMIN).  Rings are drained on the caller's tick.
 */
#ifndef CT_WAKE_H
# define CT_WAKE_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>
# include <linux/perf_event.h>

struct wake_event {
	uint64_t time;		/* CLOCK_MONOTONIC ns */
	pid_t waker_pid;	/* tgid of the task that was running */
	pid_t waker_tid;
	pid_t wakee;		/* tid of the task woken */
	bool irq;		/* in hard/soft interrupt or NMI context, not
				   the waker's own loopback softirq */
	bool softirq;		/* serving a softirq (not hardirq, not NMI) */
	/*
	 * A context switch instead: waker_* is the task that left the CPU,
	 * wakee the one that took it (0: the idle task).
	 */
	bool sw;
	bool prev_ready;	/* the one that left is still ready to run */
	int cpu;		/* the ring's: where it happened */
};

typedef void (*wake_cb)(void *ctx, const struct wake_event *);

/* Where the fields are in the raw record (from the event's format file). */
struct wake_format {
	unsigned type_off;	/* common_type, 2 bytes: which event */
	unsigned flags_off;	/* common_flags, 1 byte */
	unsigned pid_off;	/* pid (the wakee), 4 bytes */
	uint16_t waking_type;	/* sched_waking's common_type (its id) */
	uint16_t xmit_type;	/* net:netif_rx's; 0: not watched */
	uint16_t switch_type;	/* sched:sched_switch's; 0: not watched */
	unsigned prev_state_off, prev_state_size;	/* its prev_state (4 or 8 bytes) */
	unsigned next_pid_off;	/* its next_pid, 4 bytes */
};

/* What a record is. */
enum wake_rec {
	WAKE_REC_BAD,		/* too short for what it claims, or unknown */
	WAKE_REC_WAKING,	/* a wake-up */
	WAKE_REC_XMIT,		/* a task queued a loopback packet (waker_tid, time) */
	WAKE_REC_SWITCH,	/* a context switch (sw set) */
};

/*
 * A softirq wake-up this long after its task's own loopback transmit on
 * the same CPU is that task's: measured on wl-kvserver, median 2 us, p99
 * 6 us, max 124 us (2,320 of 2,322 softirq wake-ups by its threads).
 */
# define WAKE_LOOPBACK_NS 200000ULL

/* A CPU's last loopback transmit. */
struct wake_xmit {
	pid_t tid;		/* 0: none */
	uint64_t time;
};

struct wake_stats {
	uint64_t events;	/* wake-ups delivered */
	uint64_t loopback;	/* of which softirq ones found to be the waker's own */
	uint64_t xmits;		/* loopback transmits seen */
	uint64_t lost;		/* records the kernel dropped */
	uint64_t bad;		/* records that made no sense */
	uint64_t switches;	/* context switches delivered */
	bool xmit_watched;	/* net:netif_rx could be opened */
	bool switch_watched;	/* sched:sched_switch could be opened */
};

struct wake;

/*
 * Open the per-CPU events (with sched_switch if switches and it can be).
 * Returns 0, or -errno with *why pointing to a
 * static explanation (nothing is printed: the caller decides whether a
 * missing wake-up tracker is worth a word).
 */
int wake_open(struct wake **, wake_cb, void *ctx, bool switches, const char **why);
void wake_close(struct wake *);
/* Deliver every pending record, in ring order: through drain_rings() (drain.h). */
void wake_drain(struct wake *);
const struct wake_stats *wake_stats(const struct wake *);

/*
 * Decode one PERF_RECORD_SAMPLE of either event (sample_type
 * PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW); a transmit fills
 * waker_pid, waker_tid and time.  Pure, for the unit test.
 */
enum wake_rec wake_parse(const struct perf_event_header *, const struct wake_format *,
			 struct wake_event *);
/*
 * ev, a wake-up read after x on the same CPU: if it is its waker's own
 * loopback softirq, clear ev->irq and return true.  Pure.
 */
bool wake_loopback(const struct wake_xmit *x, struct wake_event *ev);
/*
 * Read the offsets from sched_waking's tracefs format file's text (the
 * types are the caller's).  False if missing.
 */
bool wake_parse_format(const char *text, struct wake_format *);
/* The same for sched_switch's prev_state and next_pid (switch_type is the caller's). */
bool wake_parse_switch_format(const char *text, struct wake_format *);

#endif
