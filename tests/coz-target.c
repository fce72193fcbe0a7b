/*
 * coz-target THREADS K: as progress-target, with Coz's own coz.h macros:
 * a program instrumented for Coz, unchanged.
 */
#include <pthread.h>
#include <stdlib.h>
#include <coz.h>
#include "tests.h"

static volatile unsigned long sink;
static long k;

static void *
worker(void *arg)
{
	for (long i = 0; i < k; i++) {
		COZ_BEGIN("txn");
		for (int j = 0; j < 200; j++)
			sink += j;
		COZ_END("txn");
		COZ_PROGRESS_NAMED("unit");
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t[64];

	k = argc > 2 ? atol(argv[2]) : 1000;
	if (n < 1 || n > 64)
		fail_exit(99, "1 to 64 threads");
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
