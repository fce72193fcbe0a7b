/*
 * gt-mutex: a lock-bound program.  Four worker threads each loop: line
 * "local" (L = half a unit) outside any lock, then line "critical" (C =
 * one unit, -u, default 2000 us) under one global mutex, then an item
 * done.  Items are one per critical section, so the lock bounds the rate
 * at one per C, while the CPU (L + C = 1.5 C of work per item on two
 * CPUs) would allow one per 0.75 C.  Speeding critical by s, an item takes
 * max(C (1 - s), (L + C (1 - s)) / 2):
 *
 *	speeding critical by s:	s for s <= 0.5, (s + 0.5) / 2 above
 *	speeding local:		0
 *
 * Measured, on an idle 2-CPU machine (1 - s' / s'' with the handing
 * over of the lock, ~5% of an item, not sped up): 0.25, 0.41, 0.76 for
 * critical at 25, 50, 100%, 0.00 for local at 25 and 50%, and 0.02-0.06
 * for local at 100%: with no local work a worker takes the lock again at
 * once, with no wake-up in between.  At s = 0.5 both the lock and the
 * CPUs are saturated, and every scheduling hiccup shows: 0.41, not 0.5.
 *
 * Workers are not pinned by default: with -p (workers 0 and 2 on CPU 0,
 * 1 and 3 on CPU 1) a woken waiter may have to wait for its CPU while
 * the lock sits free, and local at 50% gave a speedup of 0.10 instead
 * of 0.  See gt.h for the options and the output.
 */
#include "gt.h"

#define WORKERS	4

enum { LOCAL, CRITICAL };

static const struct gt_line mutex_lines[] = {
	[LOCAL] = { "local", 0.5 },
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
