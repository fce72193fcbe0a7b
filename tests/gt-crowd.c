/*
 * gt-crowd: more threads ready to run than CPUs.  Eight worker threads
 * (-x N for N of them), four pinned to each of CPUs 0 and 1 (-P: placed
 * by the scheduler), take items from a common count; each item runs line
 * "hot" for 0.6 of a unit (-u, default 2000 us) then line "rest" for 0.4.
 * Nothing but the CPUs limits them, so
 *
 *	speeding hot by s:	program speedup 0.6 s
 *	speeding rest by s:	program speedup 0.4 s
 *
 * A thread waits most of the time for a CPU, behind the others: what a
 * faster line would save is their wait, which virtual speedup must see.
 * See gt.h for the options and the output.
 */
#include "gt.h"

enum { HOT, REST };

static const struct gt_line crowd_lines[] = {
	[HOT] = { "hot", 0.6 },
	[REST] = { "rest", 0.4 },
	{ NULL, 0 },
};

static void *
worker(void *arg GT_UNUSED)
{
	unsigned long n;

	while (gt_claim()) {
		n = gt_n(HOT);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:hot */
		n = gt_n(REST);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:rest */
		gt_progress();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned long nthreads;
	pthread_t *t;

	gt.prog = "gt-crowd";
	gt.n = 1500;
	gt.unit_us = 2000;
	gt.pin = 1;
	gt.lines = crowd_lines;
	gt.modes[0] = "8";
	gt.modes[1] = "3";
	gt.modes[2] = "16";
	gt.modes[3] = "64";
	gt.modes[4] = "256";
	gt_init(argc, argv);
	nthreads = strtoul(gt.mode, NULL, 10);
	t = calloc(nthreads, sizeof(*t));
	if (!t)
		gt_die("out of memory");
	for (unsigned long i = 0; i < nthreads; i++)
		gt_thread(&t[i], (int)(i % 2), worker, NULL);
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
	gt_report();
	return 0;
}
