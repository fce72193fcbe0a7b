/*
 * hot-dlopen LIBRARY [DELAY [SECONDS]]: spin in the main executable for
 * DELAY seconds of CPU time (default 0.2), then dlopen LIBRARY and spend
 * SECONDS of CPU time (default 0.5) in its hotdl_spin().  The library is
 * mapped only after profiling has started, so the symbolizer must notice
 * it.  CPU time, not wall time: the shares of the samples do not depend
 * on the load of the machine.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include "tests.h"

static volatile unsigned long sink;

static void __attribute__((noinline))
before_dlopen(double seconds)
{
	double end = thread_cpu_now() + seconds;

	while (thread_cpu_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* BEFORE-DLOPEN */
}

int
main(int argc, char **argv)
{
	unsigned long (*spin)(double);
	void *h;

	if (argc < 2)
		fail_exit(99, "usage: hot-dlopen LIBRARY [DELAY [SECONDS]]");
	before_dlopen(argc > 2 ? atof(argv[2]) : 0.2);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h)
		fail_exit(99, "dlopen %s: %s", argv[1], dlerror());
	*(void **) &spin = dlsym(h, "hotdl_spin");
	if (!spin)
		fail_exit(99, "dlsym hotdl_spin: %s", dlerror());
	return spin(argc > 3 ? atof(argv[3]) : 0.5) == 1 ? 2 : 0;	/* DL-CALL */
}
