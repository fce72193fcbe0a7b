/*
 * gt-unequal: fork-join with unequal branches.  For each item the main
 * thread starts two threads and joins both: A runs line "long" (one unit,
 * -u, default 5000 us) pinned to CPU 0, B runs line "short" (0.6 unit)
 * pinned to CPU 1.  An item takes as long as its longer branch, so
 *
 *	speeding long by s:	program speedup min(s, 1 - 0.6) = min(s, 0.4)
 *	speeding short:		0
 *
 * (a little less in practice: starting and joining the threads, ~5% of
 * an item, is not sped up).  -x says how the branches are joined:
 *
 *	barrier	(default) A and B are long-lived and meet the main thread
 *		at a barrier before and after each item, as a thread pool does;
 *	create	the main thread creates both threads per item and joins them.
 *
 * See gt.h for the options and the output.
 */
#include "gt.h"

enum { LONG, SHORT };

static const struct gt_line unequal_lines[] = {
	[LONG] = { "long", 1 },
	[SHORT] = { "short", 0.6 },
	{ NULL, 0 },
};

static pthread_barrier_t item_start, item_done;
static volatile int stop;

static void
run_long(void)
{
	unsigned long n = gt_n(LONG);

	for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:long */
}

static void
run_short(void)
{
	unsigned long n = gt_n(SHORT);

	for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:short */
}

static void *
branch_long(void *arg GT_UNUSED)
{
	run_long();
	return NULL;
}

static void *
branch_short(void *arg GT_UNUSED)
{
	run_short();
	return NULL;
}

/* A long-lived branch: one run per item, between the two barriers. */
static void *
worker(void *arg)
{
	void (*run)(void) = (void (*)(void)) arg;

	for (;;) {
		pthread_barrier_wait(&item_start);
		if (stop)
			return NULL;
		run();
		pthread_barrier_wait(&item_done);
	}
}

int
main(int argc, char **argv)
{
	pthread_t a, b;

	gt.prog = "gt-unequal";
	gt.n = 300;
	gt.unit_us = 5000;
	gt.pin = 1;
	gt.lines = unequal_lines;
	gt.modes[0] = "barrier";
	gt.modes[1] = "create";
	gt_init(argc, argv);

	if (gt_mode_is("create")) {
		while (gt_claim()) {
			gt_thread(&a, 0, branch_long, NULL);
			gt_thread(&b, 1, branch_short, NULL);
			pthread_join(a, NULL);
			pthread_join(b, NULL);
			gt_progress();
		}
		gt_report();
		return 0;
	}
	pthread_barrier_init(&item_start, NULL, 3);
	pthread_barrier_init(&item_done, NULL, 3);
	gt_thread(&a, 0, worker, (void *) run_long);
	gt_thread(&b, 1, worker, (void *) run_short);
	while (gt_claim()) {
		pthread_barrier_wait(&item_start);
		pthread_barrier_wait(&item_done);
		gt_progress();
	}
	stop = 1;
	pthread_barrier_wait(&item_start);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	gt_report();
	return 0;
}
