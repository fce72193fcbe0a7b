/*
 * gt-parallel: two threads run the same line at once.  For each item two
 * long-lived workers, pinned to CPUs 0 and 1, run line "work" (one unit,
 * -u, default 5000 us) between two barriers, as a data-parallel loop
 * does; then the main thread, unpinned, runs line "tail" (half a unit)
 * alone.  An item takes 1.5 units, so
 *
 *	speeding work by s:	program speedup s / 1.5
 *	speeding tail by s:	program speedup s * 0.5 / 1.5
 *
 * (a little less in practice: the barriers are not sped up).  Each
 * worker's samples in the line come a part of a period apart from the
 * other's: the shape that paused each in turn for the other's last hit
 * (engine/account.c, payable; bench/knee-20261130).
 *
 * See gt.h for the options and the output.
 */
#include "gt.h"

enum { WORK, TAIL };

static const struct gt_line parallel_lines[] = {
	[WORK] = { "work", 1 },
	[TAIL] = { "tail", 0.5 },
	{ NULL, 0 },
};

static pthread_barrier_t item_start, item_done;
static volatile int stop;

static void
run_work(void)
{
	unsigned long n = gt_n(WORK);

	for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:work */
}

static void
run_tail(void)
{
	unsigned long n = gt_n(TAIL);

	for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:tail */
}

static void *
worker(void *arg GT_UNUSED)
{
	for (;;) {
		pthread_barrier_wait(&item_start);
		if (stop)
			return NULL;
		run_work();
		pthread_barrier_wait(&item_done);
	}
}

int
main(int argc, char **argv)
{
	pthread_t a, b;

	gt.prog = "gt-parallel";
	gt.n = 300;
	gt.unit_us = 5000;
	gt.pin = 1;
	gt.lines = parallel_lines;
	gt_init(argc, argv);

	pthread_barrier_init(&item_start, NULL, 3);
	pthread_barrier_init(&item_done, NULL, 3);
	gt_thread(&a, 0, worker, NULL);
	gt_thread(&b, 1, worker, NULL);
	while (gt_claim()) {
		pthread_barrier_wait(&item_start);
		pthread_barrier_wait(&item_done);
		run_tail();
		gt_progress();
	}
	stop = 1;
	pthread_barrier_wait(&item_start);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	gt_report();
	return 0;
}
