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
 * Workers are not pinned by default: the kernel's balancing keeps the
 * lock holder running.  -p pins workers 0 and 2 to CPU 0, 1 and 3 to
 * CPU 1.  See gt.h for the options and the output.
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
static long claimed;

static void *
worker(void *arg)
{
	unsigned long n;

	/* Claim each item first, so that exactly gt.n are done. */
	while (__atomic_fetch_add(&claimed, 1, __ATOMIC_RELAXED) < gt.n) {
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
