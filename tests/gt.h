/*
 * gt.h: what the ground-truth workloads (tests/gt-*.c) share.
 *
 * Each workload burns CPU in a few marked lines, each a loop on one
 * source line that carries a comment GT:NAME:
 *
 *	n = gt_n(LINE);
 *	for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;
 *
 * A knob (-k NAME=PCT) really speeds such a line up, by running PCT
 * percent fewer iterations of it, so that tests/gt-real.sh can measure the
 * real program speedup a causal profiler should predict for that line.
 *
 * Why not the plain "for (volatile long i = 0; i < n; i++) ;": on this
 * AMD Zen 4 its speed is bimodal, one or two cycles an iteration, varying
 * with code alignment and even from run to run (memory renaming of the
 * stack slot works or not), which skews the lines' ratios by up to 2x.  A
 * chain of dependent multiply-adds in a register takes the multiplier's
 * latency (4 cycles here) wherever the code lies; the store to a
 * volatile (per-thread: no cache line bouncing) keeps the loop alive.
 *
 * Durations are given in units of -u microseconds, and turned into loop
 * counts by a calibration at start (the best of a few timed runs of the
 * same loop), or by -c LOOPS_PER_US to fix it.  Common options:
 *
 *	-n N		units of progress ("item") to do
 *	-u USEC		the workload's unit of work
 *	-k NAME=PCT	do PCT% less of line NAME (repeatable, 0 <= PCT <= 100)
 *	-p / -P		pin threads to CPUs as the workload says / don't
 *	-x MODE		the workload's variant, where it has several
 *	-c LOOPS	loop iterations per microsecond, instead of calibrating
 *	-C		calibrate, print "gt: loops_per_us LOOPS" and exit (so that
 *			runs to compare can all do the very same work)
 *	-a MS		alternate: the knobs apply only every other phase of MS
 *			milliseconds, and both kinds of phase are timed apart
 *	-v		say what it is about to do, on stderr
 *
 * Each unit of work is started after gt_claim() says so, and when done
 * calls gt_progress(), the one progress point ("item").  At exit,
 * gt_report() prints on stderr
 *
 *	gt: items N wall S.SSSSSS per_item_us X.XXX
 *
 * where wall runs from the first unit done to the last (thread start-up
 * and calibration are not in it) and per_item_us is wall / (N - 1).
 * With -a, also
 *
 *	gt: alt base_us B knob_us K phases P Q
 *
 * the time per item in the P phases without the knobs and in the Q phases
 * with them, each timed from a third into the phase (when queues, locks
 * and the scheduler's placement of threads have settled) to its end; the
 * run then goes on past -n items until there have been 4 phases of each
 * kind.  Alternating puts the base and knob measurements so close in time
 * that the speed changes of a shared machine (other virtual machines on
 * the same host: +-10% over seconds here) hit both alike, as separate
 * runs cannot.  But threads that the kernel balances between CPUs take
 * ~100 ms to settle after a switch: give those phases of 300 ms or more.
 */
#ifndef CT_GT_H
# define CT_GT_H

/* For the affinity calls; gt.h comes before any system header. */
# ifndef _GNU_SOURCE
#  define _GNU_SOURCE
# endif

# include <errno.h>
# include <pthread.h>
# include <sched.h>
# include <stdarg.h>
# include <stdio.h>
# include <stdlib.h>
# include <string.h>
# include <time.h>
# include <unistd.h>
# include "causaltop.h"

/*
 * The progress point.  bench/ builds these workloads with Coz's coz.h
 * macro instead, so that Coz and causaltop (through its Coz shim) count
 * the very same point.
 */
# ifndef GT_PROGRESS_POINT
#  define GT_PROGRESS_POINT() CAUSALTOP_PROGRESS_NAMED("item")
# endif

# define GT_MAX_LINES	8
# define GT_MAX_MODES	8
# define GT_MUL		0x9e3779b97f4a7c15UL	/* odd: imul, not shifts */
# define GT_UNUSED	__attribute__((unused))

/* Where the work loops store: per thread, volatile. */
static __thread volatile unsigned long gt_sink;

/* A marked line: its name, and its work in units of -u. */
struct gt_line {
	const char *name;
	double units;
};

struct gt {
	/* Set by the workload before gt_init(): its defaults and names. */
	const char *prog;
	long n;				/* -n */
	double unit_us;			/* -u */
	int pin;			/* -p / -P */
	const struct gt_line *lines;	/* ended by a NULL name */
	const char *modes[GT_MAX_MODES];	/* -x modes, the default first */
	/* Set by gt_init(). */
	const char *mode;
	int pct[GT_MAX_LINES];		/* knob per line */
	int verbose;
	int calibrate_only;		/* -C */
	double loops_per_us;
	double alt_ms;			/* -a, 0 if not alternating */
	/*
	 * Loop counts per line: row 0 without the knobs when alternating
	 * (with them otherwise), row 1 with them; phase says which applies.
	 */
	unsigned long count[2][GT_MAX_LINES];
	int phase;
};

static struct gt gt;

/* Progress bookkeeping: items claimed and done, when the first and last were. */
static long gt_claimed, gt_done;
static double gt_t_first, gt_t_last;

/* -a: the current phase and what the phases of each kind measured. */
static pthread_mutex_t gt_alt_lock = PTHREAD_MUTEX_INITIALIZER;
static double gt_alt_start;		/* when this phase began */
static double gt_alt_last;		/* its last counted item, 0 if none */
static double gt_alt_time[2];		/* sums of item-to-item intervals */
static long gt_alt_intervals[2];
static int gt_alt_phases[2];

static inline __attribute__((format(printf, 1, 2), noreturn)) void
gt_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", gt.prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(99);
}

static inline double
gt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void
gt_usage(void)
{
	int i;

	fprintf(stderr, "usage: %s [-n ITEMS] [-u USEC] [-k NAME=PCT]... "
		"[-p|-P] [-c LOOPS_PER_US] [-C] [-a MS] [-v]%s\n  lines:",
		gt.prog, gt.modes[0] ? " [-x MODE]" : "");
	for (i = 0; gt.lines[i].name; i++)
		fprintf(stderr, " %s", gt.lines[i].name);
	if (gt.modes[0]) {
		fprintf(stderr, "\n  modes:");
		for (i = 0; gt.modes[i]; i++)
			fprintf(stderr, " %s", gt.modes[i]);
	}
	fputc('\n', stderr);
	exit(99);
}

static inline int
gt_line_index(const char *name, size_t len)
{
	int i;

	for (i = 0; gt.lines[i].name; i++)
		if (strlen(gt.lines[i].name) == len &&
		    !strncmp(gt.lines[i].name, name, len))
			return i;
	return -1;
}

static inline double
gt_number(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		gt_die("bad %s '%s'", what, s);
	return v;
}

/*
 * Loop iterations per microsecond, for loops like the marked ones: the
 * fastest of a few ~1 ms runs, so that a preemption cannot skew it.
 */
static inline double
gt_calibrate(void)
{
	const unsigned long iters = 1UL << 20;
	double best = 1e9;
	int k;

	for (k = 0; k < 7; k++) {
		double t = gt_now();

		for (unsigned long i = 0, x = 0; i < iters; i++) gt_sink = x = x * GT_MUL + i;
		t = gt_now() - t;
		if (t < best)
			best = t;
	}
	return iters / (best * 1e6);
}

/* Iterations for line i, less pct percent. */
static inline unsigned long
gt_loops(int i, int pct)
{
	double usec = gt.lines[i].units * gt.unit_us;

	return (unsigned long)(usec * gt.loops_per_us * (100 - pct) / 100 + 0.5);
}

static inline void
gt_init(int argc, char **argv)
{
	const char *eq;
	int c, i;
	double v;

	gt.mode = gt.modes[0];
	while ((c = getopt(argc, argv, "n:u:k:pPx:c:Ca:vh")) != -1) {
		switch (c) {
		case 'n':
			gt.n = (long)gt_number(optarg, "item count");
			if (gt.n < 2)
				gt_die("-n: need at least 2 items");
			break;
		case 'u':
			gt.unit_us = gt_number(optarg, "unit");
			break;
		case 'k':
			eq = strchr(optarg, '=');
			if (!eq || (i = gt_line_index(optarg, eq - optarg)) < 0)
				gt_die("-k %s: want NAME=PCT with a NAME "
				       "of this program's lines", optarg);
			v = gt_number(eq + 1, "percentage");
			if (v > 100)
				gt_die("-k %s: at most 100%%", optarg);
			gt.pct[i] = (int)v;
			break;
		case 'p':
			gt.pin = 1;
			break;
		case 'P':
			gt.pin = 0;
			break;
		case 'x':
			for (i = 0; gt.modes[i]; i++)
				if (!strcmp(gt.modes[i], optarg))
					break;
			if (!gt.modes[i])
				gt_usage();
			gt.mode = gt.modes[i];
			break;
		case 'c':
			gt.loops_per_us = gt_number(optarg, "loop rate");
			break;
		case 'C':
			gt.calibrate_only = 1;
			break;
		case 'a':
			gt.alt_ms = gt_number(optarg, "phase length");
			break;
		case 'v':
			gt.verbose = 1;
			break;
		default:
			gt_usage();
		}
	}
	if (optind != argc)
		gt_usage();
	if (gt.loops_per_us <= 0)
		gt.loops_per_us = gt_calibrate();
	if (gt.calibrate_only) {
		fprintf(stderr, "gt: loops_per_us %.3f\n", gt.loops_per_us);
		exit(0);
	}
	for (i = 0; gt.lines[i].name; i++) {
		gt.count[0][i] = gt_loops(i, gt.alt_ms > 0 ? 0 : gt.pct[i]);
		gt.count[1][i] = gt_loops(i, gt.pct[i]);
	}
	if (gt.verbose) {
		fprintf(stderr, "%s: items %ld unit %.0f us mode %s pin %d "
			"loops/us %.3f alternate %.0f ms", gt.prog, gt.n,
			gt.unit_us, gt.mode ? gt.mode : "-", gt.pin,
			gt.loops_per_us, gt.alt_ms);
		for (i = 0; gt.lines[i].name; i++)
			fprintf(stderr, " %s=%d%%", gt.lines[i].name, gt.pct[i]);
		fputc('\n', stderr);
	}
}

/* Iterations for line i now: with its knob or not, as the phase says. */
static inline unsigned long
gt_n(int i)
{
	return gt.count[__atomic_load_n(&gt.phase, __ATOMIC_RELAXED)][i];
}

static inline int
gt_mode_is(const char *mode)
{
	return gt.mode && !strcmp(gt.mode, mode);
}

/* Pin the calling thread to CPU cpu, if pinning is on. */
static inline void
gt_pin(int cpu)
{
	cpu_set_t set;
	int err;

	if (!gt.pin)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % CPU_SETSIZE, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err)
		gt_die("cannot pin to CPU %d: %s", cpu, strerror(err));
}

/*
 * Start a thread, pinned to CPU cpu from its first instruction when
 * pinning is on (rather than placed anywhere first, then moved).
 */
static inline void
gt_thread(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	pthread_attr_init(&attr);
	if (gt.pin) {
		CPU_ZERO(&set);
		CPU_SET(cpu % CPU_SETSIZE, &set);
		if (pthread_attr_setaffinity_np(&attr, sizeof(set), &set))
			gt_die("cannot pin to CPU %d", cpu);
	}
	err = pthread_create(t, &attr, fn, arg);
	if (err)
		gt_die("pthread_create: %s", strerror(err));
	pthread_attr_destroy(&attr);
}

/*
 * -a: account for an item done now, and switch phases when this one has
 * lasted its time.  Intervals are summed only between items of the same
 * phase, from a third into it.  The clock is read under the lock, so
 * that the items of several threads come in order.
 */
static inline void
gt_alt_item(long done)
{
	double len = gt.alt_ms / 1e3, now;
	int phase;

	pthread_mutex_lock(&gt_alt_lock);
	now = gt_now();
	if (done == 1)
		gt_t_first = now;
	gt_t_last = now;
	phase = gt.phase;
	if (done == 1) {
		gt_alt_start = now;
		gt_alt_phases[phase]++;
	} else if (now - gt_alt_start >= len) {
		phase ^= 1;
		__atomic_store_n(&gt.phase, phase, __ATOMIC_RELAXED);
		gt_alt_start = now;
		gt_alt_last = 0;
		gt_alt_phases[phase]++;
	} else if (now - gt_alt_start >= len / 3) {
		if (gt_alt_last > 0) {
			gt_alt_time[phase] += now - gt_alt_last;
			gt_alt_intervals[phase]++;
		}
		gt_alt_last = now;
	}
	pthread_mutex_unlock(&gt_alt_lock);
}

/*
 * Whether to start one more unit of work (claiming it: thread-safe):
 * exactly -n of them, or with -a as many more as 4 phases of each kind
 * take.
 */
static inline int
gt_claim(void)
{
	int more;

	if (__atomic_fetch_add(&gt_claimed, 1, __ATOMIC_RELAXED) < gt.n)
		return 1;
	if (gt.alt_ms <= 0)
		return 0;
	pthread_mutex_lock(&gt_alt_lock);
	more = gt_alt_phases[0] < 4 || gt_alt_phases[1] < 4;
	pthread_mutex_unlock(&gt_alt_lock);
	return more;
}

/*
 * One unit of work done: the progress point, and the clock read at the
 * first and the last (at every one with -a, where the last is not known
 * in advance).  Thread-safe.
 */
static inline void
gt_progress(void)
{
	long done;

	GT_PROGRESS_POINT();
	done = __atomic_add_fetch(&gt_done, 1, __ATOMIC_RELAXED);
	if (gt.alt_ms > 0)
		gt_alt_item(done);
	else if (done == 1)
		gt_t_first = gt_now();
	else if (done == gt.n)
		gt_t_last = gt_now();
}

static inline void
gt_report(void)
{
	double wall = gt_t_last - gt_t_first;

	if (gt_done < gt.n)
		gt_die("only %ld of %ld items done", gt_done, gt.n);
	fprintf(stderr, "gt: items %ld wall %.6f per_item_us %.3f\n",
		gt_done, wall, wall * 1e6 / (gt_done - 1));
	if (gt.alt_ms <= 0)
		return;
	if (!gt_alt_intervals[0] || !gt_alt_intervals[1])
		gt_die("-a %g: no item timed in some kind of phase", gt.alt_ms);
	fprintf(stderr, "gt: alt base_us %.3f knob_us %.3f phases %d %d\n",
		gt_alt_time[0] * 1e6 / gt_alt_intervals[0],
		gt_alt_time[1] * 1e6 / gt_alt_intervals[1],
		gt_alt_phases[0], gt_alt_phases[1]);
}

#endif
