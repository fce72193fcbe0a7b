/*
 * spin THREADS SECONDS [EXIT]: THREADS workers (or the main thread when
 * THREADS is 0) spin in spin_work() for SECONDS of wall time (0: forever),
 * then the program exits with EXIT.
 */
#include <pthread.h>
#include <stdlib.h>
#include "tests.h"

static volatile unsigned long sink;
static double seconds;

static void __attribute__((noinline))
spin_work(void)
{
	double end = mono_now() + seconds;

	while (seconds == 0 || mono_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* SPIN-LINE */
}

static void *
worker(void *arg)
{
	spin_work();
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t *t;

	seconds = argc > 2 ? atof(argv[2]) : 1;
	if (n <= 0) {
		spin_work();
		return argc > 3 ? atoi(argv[3]) : 0;
	}
	t = calloc(n, sizeof(*t));
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			fail_exit(99, "pthread_create failed");
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return argc > 3 ? atoi(argv[3]) : 0;
}
