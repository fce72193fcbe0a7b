/*
 * Who woke whom: the kernel's sched:sched_waking tracepoint, one perf
 * event and ring per CPU.  The event fires in the waker's context, so the
 * sample's pid/tid is the waker and the raw record names the wakee; the
 * raw record's common_flags say whether the waker was really a task or an
 * interrupt that happened to land on it (a timer expiring, a packet
 * arriving): only task wake-ups pass virtual time from waker to wakee.
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
	bool irq;		/* in hard/soft interrupt or NMI context */
};

typedef void (*wake_cb)(void *ctx, const struct wake_event *);

/* Where the fields are in the raw record (from the event's format file). */
struct wake_format {
	unsigned flags_off;	/* common_flags, 1 byte */
	unsigned pid_off;	/* pid (the wakee), 4 bytes */
};

struct wake_stats {
	uint64_t events;	/* records delivered */
	uint64_t lost;		/* records the kernel dropped */
	uint64_t bad;		/* records that made no sense */
};

struct wake;

/*
 * Open the per-CPU events.  Returns 0, or -errno with *why pointing to a
 * static explanation (nothing is printed: the caller decides whether a
 * missing wake-up tracker is worth a word).
 */
int wake_open(struct wake **, wake_cb, void *ctx, const char **why);
void wake_close(struct wake *);
/* Deliver every pending record, in ring order. */
void wake_drain(struct wake *);
const struct wake_stats *wake_stats(const struct wake *);

/*
 * Decode one PERF_RECORD_SAMPLE of the event (sample_type
 * PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW).  False if it is
 * too short for what it claims.  Pure, for the unit test.
 */
bool wake_parse(const struct perf_event_header *, const struct wake_format *,
		struct wake_event *);
/* Read offsets from a tracefs format file's text.  False if missing. */
bool wake_parse_format(const char *text, struct wake_format *);

#endif
