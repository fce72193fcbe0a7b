/*
 * spin THREADS SECONDS [EXIT [leader-exit]]: THREADS workers (or the main
 * thread when THREADS is 0) spin in spin_work() for SECONDS of wall time
 * (0: forever), then the program exits with EXIT.  With leader-exit, the
 * main thread leaves at once with pthread_exit(), becoming a zombie
 * while the workers run.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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
	if (argc > 4 && !strcmp(argv[4], "leader-exit"))
		pthread_exit(NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return argc > 3 ? atoi(argv[3]) : 0;
}
