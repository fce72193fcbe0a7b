/*
 * patch-cost N [ROUNDS [THREADS]]: what a progress point costs the program per hit,
 * seen from inside it.  Calls hit() (a few instructions: long enough to
 * be patched) N times per round and prints the best round's time per
 * call, "ns/call X"; run bare, and under causaltop with
 * --progress=hit in each --probe-mode, the difference is the cost of a
 * hit (bench/patch-cost.sh).  The first round starts after 200 ms, once
 * causaltop has attached the counters.  THREADS (default 1) threads each
 * run the rounds at once: a patched-in counter is one cache line that
 * they share; each thread's best round, the worst thread's printed.
 *
 *   cc -O2 -g -pthread -o /tmp/patch-cost bench/patch-cost.c
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

long hit(long i);
long __attribute__((noinline))
hit(long i)
{
	return (i * 2654435761L) ^ (i >> 7);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long n;
static int rounds;

static void *
runner(void *arg)
{
	double *best = arg;

	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns(), t;
		long acc = 0;

		for (long i = 0; i < n; i++)
			acc += hit(i);
		sink = acc;
		t = (now_ns() - t0) / n;
		if (!r || t < *best)
			*best = t;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	struct timespec settle = { 0, 200 * 1000 * 1000 };
	pthread_t t[64];
	double best[64] = { 0 }, worst = 0;

	n = argc > 1 ? atol(argv[1]) : 1000000;
	rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (n < 1 || rounds < 1 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: patch-cost N [ROUNDS [THREADS]]\n");
		return 2;
	}
	nanosleep(&settle, NULL);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, runner, &best[i]);
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		if (best[i] > worst)
			worst = best[i];
	}
	printf("ns/call %.2f hits %ld\n", worst, n * rounds * threads);
	return 0;
}
