/*
 * libhotdl.so, dlopen'ed by hot-dlopen once it has run for a while:
 * hotdl_spin() spins on its marked line for SECONDS of its CPU time.
 */
#include "tests.h"

unsigned long hotdl_spin(double seconds);

static volatile unsigned long sink;

unsigned long
hotdl_spin(double seconds)
{
	double end = thread_cpu_now() + seconds;

	while (thread_cpu_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* HOT-DL */
	return sink;
}
