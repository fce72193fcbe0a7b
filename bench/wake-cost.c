/*
 * wake-cost: what the per-CPU sched_waking events (src/perf/wake.c) cost a
 * wake-heavy program.  Two threads ping-pong N round trips (two wake-ups
 * each) through a pair of pipes or a pair of futexes, free to run on any
 * CPU or both pinned to CPU 0; each variant is timed with the events
 * closed and open (drained every 20 ms by the main thread, as the
 * supervisor's tick does), alternating, REPS times.  Prints medians of
 * the wall time and of the two threads' CPU time (user + system: the
 * tracepoint is paid by the waker, in the kernel), the CPU overhead per
 * record of the program's own wake-ups, the records per second the rings
 * took (all processes: the events are system-wide), the program's own
 * wake-ups per round trip (about 1, not 2: the woken thread often runs
 * and answers before its waker has gone to sleep, so the waker's next
 * wait wakes nobody) and the drain's cost per record.
 *
 * Needs root (or CAP_PERFMON) and tracefs.  Not part of `make check`.
 * Build by hand from a configured build directory (for config.h):
 *
 *   cc -O2 -I. -I$SRC/src -o wake-cost $SRC/bench/wake-cost.c \
 *      $SRC/src/perf/wake.c $SRC/src/perf/perf_ring.c $SRC/src/base/xmalloc.c \
 *      $SRC/src/base/error_prints.c -lpthread
 *   ./wake-cost [ROUND_TRIPS [REPS [noswitch]]]      (default 100000 7)
 *
 * By default the rings also take sched_switch, as causaltop's do unless
 * --wake-tracking=waking; "noswitch" times sched_waking (and netif_rx)
 * alone.  Own wake-ups count wake-ups only.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "perf/wake.h"

enum kind { K_PIPE, K_FUTEX };

struct game {
	enum kind kind;
	long trips;
	int ping[2], pong[2];
	uint32_t fut[2];	/* fut[i] is thread i's turn counter */
};

struct player {
	struct game *g;
	int me;
	double cpu_s;		/* the thread's user + system time */
	uint64_t end;		/* when it was done */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

/* Wait until *f differs from old, then return its value. */
static uint32_t
futex_wait_change(uint32_t *f, uint32_t old)
{
	uint32_t v;

	while ((v = __atomic_load_n(f, __ATOMIC_ACQUIRE)) == old)
		syscall(SYS_futex, f, FUTEX_WAIT_PRIVATE, old, NULL, NULL, 0);
	return v;
}

static void
futex_bump(uint32_t *f)
{
	__atomic_fetch_add(f, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, f, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *
player_main(void *arg)
{
	struct player *p = arg;
	struct game *g = p->g;
	uint32_t seen = 0;
	char c = 0;

	for (long i = 0; i < g->trips; i++) {
		if (g->kind == K_PIPE) {
			if (p->me == 0) {
				if (write(g->ping[1], &c, 1) != 1 || read(g->pong[0], &c, 1) != 1)
					die("pipe");
			} else {
				if (read(g->ping[0], &c, 1) != 1 || write(g->pong[1], &c, 1) != 1)
					die("pipe");
			}
		} else {
			if (p->me == 0) {
				futex_bump(&g->fut[1]);
				seen = futex_wait_change(&g->fut[0], seen);
			} else {
				seen = futex_wait_change(&g->fut[1], seen);
				futex_bump(&g->fut[0]);
			}
		}
	}
	p->end = now_ns();
	{
		struct rusage ru;

		getrusage(RUSAGE_THREAD, &ru);
		p->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	return NULL;
}

/* sched_switch too, as causaltop opens by default (argv[3] "noswitch": not). */
static bool with_switches;

struct count {
	uint64_t all, ours, ours_irq;
	pid_t pid;
};

static void
on_wake(void *ctx, const struct wake_event *ev)
{
	struct count *c = ctx;

	c->all++;
	if (ev->waker_pid == c->pid && !ev->sw) {
		c->ours++;
		if (ev->irq)
			c->ours_irq++;
	}
}

struct result {
	double wall_s, cpu_s;
	uint64_t records, ours, ours_irq, lost;
	double drain_s;
};

static struct result
play(enum kind kind, bool pinned, long trips, bool traced)
{
	struct game g = { .kind = kind, .trips = trips };
	struct player pl[2] = { { &g, 0, 0, 0 }, { &g, 1, 0, 0 } };
	struct count cnt = { .pid = getpid() };
	struct result r = { 0 };
	struct wake *w = NULL;
	pthread_attr_t attr;
	pthread_t t[2];
	uint64_t t0;
	const char *why;

	if (pipe(g.ping) < 0 || pipe(g.pong) < 0)
		die("pipe");
	pthread_attr_init(&attr);
	if (pinned) {
		cpu_set_t cpu0;

		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		pthread_attr_setaffinity_np(&attr, sizeof(cpu0), &cpu0);
	}
	if (traced) {
		int err = wake_open(&w, on_wake, &cnt, with_switches, &why);

		if (err < 0) {
			fprintf(stderr, "wake_open: %s (%s)\n", why, strerror(-err));
			exit(77);
		}
		wake_drain(w);	/* start from empty rings */
		cnt.all = cnt.ours = cnt.ours_irq = 0;
	}
	t0 = now_ns();
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], &attr, player_main, &pl[i]))
			die("pthread_create");
	if (traced) {
		/* The supervisor's tick: drain every 20 ms until both are done. */
		for (;;) {
			struct timespec tick = { 0, 20 * 1000 * 1000 };
			uint64_t d0;

			nanosleep(&tick, NULL);
			d0 = now_ns();
			wake_drain(w);
			r.drain_s += (now_ns() - d0) / 1e9;
			if (pthread_tryjoin_np(t[0], NULL) == 0) {
				pthread_join(t[1], NULL);
				break;
			}
		}
	} else {
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
	}
	if (traced) {
		uint64_t d0 = now_ns();

		wake_drain(w);
		r.drain_s += (now_ns() - d0) / 1e9;
		r.lost = wake_stats(w)->lost;
		wake_close(w);
	}
	pthread_attr_destroy(&attr);
	for (int i = 0; i < 2; i++) {
		close(g.ping[i]);
		close(g.pong[i]);
	}
	/* Not when joined: in traced runs that waits for the next tick. */
	r.wall_s = ((pl[0].end > pl[1].end ? pl[0].end : pl[1].end) - t0) / 1e9;
	r.cpu_s = pl[0].cpu_s + pl[1].cpu_s;
	r.records = cnt.all;
	r.ours = cnt.ours;
	r.ours_irq = cnt.ours_irq;
	return r;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	long trips = argc > 1 ? atol(argv[1]) : 100000;
	int reps = argc > 2 ? atoi(argv[2]) : 7;

	with_switches = !(argc > 3 && !strcmp(argv[3], "noswitch"));
	static const char *const kind_name[] = { "pipe", "futex" };

	if (trips < 1 || reps < 1 || reps > 100) {
		fprintf(stderr, "usage: %s [ROUND_TRIPS [REPS<=100 [noswitch]]]\n", argv[0]);
		return 2;
	}
	printf("%ld round trips, %d runs each, medians; wall and cpu (both "
	       "threads' user+sys) in s\n", trips, reps);
	for (int k = K_PIPE; k <= K_FUTEX; k++) {
		for (int pinned = 0; pinned <= 1; pinned++) {
			double off_w[100], on_w[100], off_c[100], on_c[100], rate[100];
			double mw_off, mw_on, mc_off, mc_on, ours_run;
			uint64_t ours = 0, ours_irq = 0, lost = 0, records = 0;
			double drain = 0;

			/* Alternate, so that drift in the machine's load hits both. */
			for (int i = 0; i < reps; i++) {
				struct result a = play(k, pinned, trips, false);
				struct result b = play(k, pinned, trips, true);

				off_w[i] = a.wall_s;
				on_w[i] = b.wall_s;
				off_c[i] = a.cpu_s;
				on_c[i] = b.cpu_s;
				rate[i] = b.records / b.wall_s;
				ours += b.ours;
				ours_irq += b.ours_irq;
				lost += b.lost;
				records += b.records;
				drain += b.drain_s;
			}
			mw_off = median(off_w, reps);
			mw_on = median(on_w, reps);
			mc_off = median(off_c, reps);
			mc_on = median(on_c, reps);
			ours_run = (double) ours / reps;
			printf("%-5s %-5s wall %.3f -> %.3f (%+.1f%%)  cpu %.3f -> %.3f "
			       "(%+.1f%%, %.2f us/record)  %.0f records/s  %.2f own "
			       "wake-ups/trip (%" PRIu64 " with irq)  drain %.0f ns/record  "
			       "lost %" PRIu64 "\n",
			       kind_name[k], pinned ? "CPU0" : "free",
			       mw_off, mw_on, 100 * (mw_on / mw_off - 1),
			       mc_off, mc_on, 100 * (mc_on / mc_off - 1),
			       ours_run ? 1e6 * (mc_on - mc_off) / ours_run : 0.0,
			       median(rate, reps), ours_run / trips, ours_irq,
			       records ? 1e9 * drain / records : 0.0, lost);
			fflush(stdout);
		}
	}
	return 0;
}
