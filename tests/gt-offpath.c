/*
 * gt-offpath: CPU burnt off the critical path.  The main thread, pinned
 * to CPU 0, runs line "work" (one unit, -u, default 2000 us) per item; a
 * second thread, pinned to CPU 1, runs line "burn" (in runs of one unit)
 * for ever and never touches the items.  So
 *
 *	speeding work by s:	program speedup s
 *	speeding burn:		0
 *
 * See gt.h for the options and the output.
 */
#include "gt.h"

enum { WORK, BURN };

static const struct gt_line offpath_lines[] = {
	[WORK] = { "work", 1 },
	[BURN] = { "burn", 1 },
	{ NULL, 0 },
};

static void *
burner(void *arg GT_UNUSED)
{
	unsigned long n;

	for (;;) {
		n = gt_n(BURN);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:burn */
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned long n;
	pthread_t t;

	gt.prog = "gt-offpath";
	gt.n = 750;
	gt.unit_us = 2000;
	gt.pin = 1;
	gt.lines = offpath_lines;
	gt_init(argc, argv);
	gt_pin(0);
	gt_thread(&t, 1, burner, NULL);

	while (gt_claim()) {
		n = gt_n(WORK);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:work */
		gt_progress();
	}
	gt_report();
	/* The burner never ends: exit() takes it down with us. */
	return 0;
}
