/*
 * pausetarget SECONDS: the delay engine seen from inside.  Thread "hot"
 * burns CPU in one line (the experiment's target, pinned to CPU 0);
 * thread "watch" (pinned to CPU 1) reads CLOCK_MONOTONIC in a tight loop
 * and records every gap longer than 50 us: while the hot line is sped
 * up, the watcher is paused, and each pause shows as a gap.  Both stop
 * after SECONDS of wall time.  At exit it prints on stderr
 *	pausetarget: gaps N total_us T
 * for the gaps of at least 100 us.  Progress: one "tick" per 100,000 hot loops.
 *
 * pausetarget SECONDS CROWD: CROWD more threads burn CPU beside the
 * watcher on CPU 1, so that more threads owe and are ready to run than
 * there are CPUs they may use (engine/account.c pays only as many at once).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "causaltop.h"

static double seconds;
static volatile unsigned long sink;
static volatile int done;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % CPU_SETSIZE, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
hot(void *arg)
{
	uint64_t end = now_ns() + (uint64_t) (seconds * 1e9);

	pin(0);
	/* The clock is read between loops: samples in the vDSO have no
	   frame pointers to lead back to this line. */
	while (now_ns() < end) {
		for (long i = 0; i < 100000; i++) sink = sink * 3 + 1;	/* PT:hot */
		CAUSALTOP_PROGRESS_NAMED("tick");
	}
	done = 1;
	return NULL;
}

static void *
watch(void *arg)
{
	uint64_t last = now_ns(), n = 0, total = 0;

	pin(1);
	while (!done) {
		uint64_t t = now_ns();

		if (t - last >= 100000) {
			n++;
			total += t - last;
		}
		last = t;
	}
	fprintf(stderr, "pausetarget: gaps %llu total_us %llu\n",
		(unsigned long long) n, (unsigned long long) (total / 1000));
	return NULL;
}

static void *
crowd(void *arg)
{
	pin(1);
	while (!done)
		for (long i = 0; i < 10000; i++) sink = sink * 5 + 1;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t h, w, c[64];
	int ncrowd = argc > 2 ? atoi(argv[2]) : 0;

	seconds = argc > 1 ? atof(argv[1]) : 3;
	if (ncrowd < 0 || ncrowd > 64)
		ncrowd = 64;
	pthread_create(&w, NULL, watch, NULL);
	for (int i = 0; i < ncrowd; i++)
		pthread_create(&c[i], NULL, crowd, NULL);
	pthread_create(&h, NULL, hot, NULL);
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	for (int i = 0; i < ncrowd; i++)
		pthread_join(c[i], NULL);
	return 0;
}
