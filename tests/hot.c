/*
 * hot SECONDS: spin in hot_loop() for SECONDS of its CPU time (default 0.5).
 * Built as several variants (DWARF 4 and 5, PIE and not, stripped) for
 * symbolize.test, which expects nearly every sample on the marked line.
 */
#include <stdlib.h>
#include "tests.h"

static volatile unsigned long sink;

static void __attribute__((noinline))
hot_loop(double seconds)
{
	double end = thread_cpu_now() + seconds;

	while (thread_cpu_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* HOT-MAIN */
}

int
main(int argc, char **argv)
{
	hot_loop(argc > 1 ? atof(argv[1]) : 0.5);
	return 0;
}
