/*
 * The demo workload of the README: a small pipeline.  Two workers take
 * blocks, checksum them (compute_checksum, the CPU hog) and then append
 * the result to a shared log under a lock (record_result, serial).
 * Each finished block is one unit of work: a progress point.
 *
 * demo [SECONDS] — run for SECONDS (default 10).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "causaltop.h"

#define BLOCK 4096

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t log_sum;
static unsigned long blocks_done;
static double end_time;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t __attribute__((noinline))
compute_checksum(const uint8_t *buf, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (int round = 0; round < 8; round++)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
	return h;
}

static void __attribute__((noinline))
record_result(uint64_t h)
{
	pthread_mutex_lock(&log_lock);
	for (int i = 0; i < 2000; i++)
		log_sum = log_sum * 31 + (h >> (i & 63));
	blocks_done++;
	pthread_mutex_unlock(&log_lock);
}

static void *
worker(void *arg)
{
	uint8_t buf[BLOCK];
	uint64_t x = (uintptr_t) arg;

	while (now() < end_time) {
		for (size_t i = 0; i < BLOCK; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[i] = (uint8_t) x;
		}
		record_result(compute_checksum(buf, BLOCK));
		CAUSALTOP_PROGRESS_NAMED("blocks");
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[2];

	end_time = now() + (argc > 1 ? atof(argv[1]) : 10);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *) (uintptr_t) (i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("demo: %lu blocks, log %016llx\n", blocks_done, (unsigned long long) log_sum);
	return 0;
}
