/*
 * gt-mutex: a lock-bound program.  Four worker threads each loop: line
 * "local" (L = a quarter unit) outside any lock, then line "critical"
 * (C = one unit, -u, default 2000 us) under one global mutex, then an
 * item done.  Items are one per critical section, so the lock bounds the
 * rate at one per C, while the CPU (L + C = 1.25 C of work per item on two
 * CPUs) would allow one per 0.625 C.  Speeding critical by s, an item
 * takes max(C (1 - s), (L + C (1 - s)) / 2):
 *
 *	speeding critical by s:	s for s <= 0.75, (s + 0.25) / 2 above
 *	speeding local:		0
 *
 * Measured, on an idle 2-CPU machine (gt-real.sh, 5 pairs; the handing
 * over of the lock, ~5% of an item, is not sped up): 0.243, 0.469, 0.880
 * for critical at 25, 50, 100%, -0.003 for local at 50%, and 0.03 for
 * local at 100%: with no local work a worker takes the lock again at
 * once, with no wake-up in between.
 *
 * L was half a unit until the 50% point was found to be a corner: there
 * both the lock and the CPUs saturate, every scheduling hiccup of the
 * real speedup shows (0.41-0.43, not 0.5), and no virtual speedup can
 * show them, since pausing threads frees CPUs where a faster line would
 * keep them busy (predicted 0.47-0.49).  The README states the limit.
 *
 * Workers are not pinned by default: with -p (workers 0 and 2 on CPU 0,
 * 1 and 3 on CPU 1) a woken waiter may have to wait for its CPU while
 * the lock sits free.  See gt.h for the options and the output.
 */
#include "gt.h"

#define WORKERS	4

enum { LOCAL, CRITICAL };

static const struct gt_line mutex_lines[] = {
	[LOCAL] = { "local", 0.25 },
	[CRITICAL] = { "critical", 1 },
	{ NULL, 0 },
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *
worker(void *arg GT_UNUSED)
{
	unsigned long n;

	while (gt_claim()) {
		n = gt_n(LOCAL);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:local */
		pthread_mutex_lock(&lock);
		n = gt_n(CRITICAL);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:critical */
		pthread_mutex_unlock(&lock);
		gt_progress();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	int i;

	gt.prog = "gt-mutex";
	gt.n = 750;
	gt.unit_us = 2000;
	gt.pin = 0;
	gt.lines = mutex_lines;
	gt_init(argc, argv);

	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i % 2, worker, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	gt_report();
	return 0;
}
