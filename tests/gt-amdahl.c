/*
 * gt-amdahl: one thread, one serial path.  Each item runs line "hot" for
 * 0.4 of a unit (-u, default 5000 us) then line "rest" for 0.6, pinned to
 * CPU 0.  Amdahl's law:
 *
 *	speeding hot by s:	program speedup 0.4 s
 *	speeding rest by s:	program speedup 0.6 s
 *
 * See gt.h for the options and the output.
 */
#include "gt.h"

enum { HOT, REST };

static const struct gt_line amdahl_lines[] = {
	[HOT] = { "hot", 0.4 },
	[REST] = { "rest", 0.6 },
	{ NULL, 0 },
};

int
main(int argc, char **argv)
{
	unsigned long n;

	gt.prog = "gt-amdahl";
	gt.n = 300;
	gt.unit_us = 5000;
	gt.pin = 1;
	gt.lines = amdahl_lines;
	gt_init(argc, argv);
	gt_pin(0);

	while (gt_claim()) {
		n = gt_n(HOT);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:hot */
		n = gt_n(REST);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:rest */
		gt_progress();
	}
	gt_report();
	return 0;
}
