/*
 * libhotlib.so, linked into hot-shlib at build time: hotlib_spin() spins
 * on its marked line for SECONDS of its CPU time.  Built with frame
 * pointers, so the callchain leads back to the caller in hot-shlib.
 */
#include "tests.h"

unsigned long hotlib_spin(double seconds);

static volatile unsigned long sink;

unsigned long
hotlib_spin(double seconds)
{
	double end = thread_cpu_now() + seconds;

	while (thread_cpu_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* HOT-LIB */
	return sink;
}
