/*
 * split THREADS CPU_SECONDS: each of THREADS threads burns CPU_SECONDS of
 * its own CPU time (CLOCK_THREAD_CPUTIME_ID) in cycles of 3 ms in func_a
 * then 1 ms in func_b, so that a profiler sampling CPU time attributes
 * 75% of the samples to func_a and 25% to func_b, whatever the load on
 * the machine.  On exit it prints, on stderr, the CPU time it measured in
 * each function, summed over the threads:
 *	split: func_a 2.400 s func_b 0.800 s
 */
#include <pthread.h>
#include <stdlib.h>
#include "tests.h"

#define A_SECONDS 0.003
#define B_SECONDS 0.001

static volatile unsigned long sink;
static double cpu_seconds;
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static double total_a, total_b;

/*
 * Pure computation, with the clock read only every few tens of
 * microseconds: the time in clock_gettime (whose samples a frame-pointer
 * walk may credit to the caller) stays a small, equal share of both.
 * The multiplier differs between the two functions, so that no identical
 * code folding merges them.
 */
#define BURN_UNTIL(end, mult) do { \
		unsigned long x_ = sink; \
		do { \
			for (int i_ = 0; i_ < 20000; i_++) \
				x_ = x_ * (mult) + i_; \
		} while (thread_cpu_now() < (end)); \
		sink = x_; \
	} while (0)

static double __attribute__((noinline))
func_a(void)
{
	double start = thread_cpu_now();

	BURN_UNTIL(start + A_SECONDS, 6364136223846793005UL);
	return thread_cpu_now() - start;
}

static double __attribute__((noinline))
func_b(void)
{
	double start = thread_cpu_now();

	BURN_UNTIL(start + B_SECONDS, 2862933555777941757UL);
	return thread_cpu_now() - start;
}

static void *
worker(void *arg)
{
	double stop = thread_cpu_now() + cpu_seconds;
	double a = 0, b = 0;

	while (thread_cpu_now() < stop) {
		a += func_a();
		b += func_b();
	}
	pthread_mutex_lock(&totals_lock);
	total_a += a;
	total_b += b;
	pthread_mutex_unlock(&totals_lock);
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t *t;

	cpu_seconds = argc > 2 ? atof(argv[2]) : 1;
	if (n <= 0 || cpu_seconds <= 0)
		fail_exit(99, "usage: split THREADS CPU_SECONDS");
	t = calloc(n, sizeof(*t));
	if (!t)
		fail_exit(99, "out of memory");
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			fail_exit(99, "pthread_create failed");
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	fprintf(stderr, "split: func_a %.3f s func_b %.3f s\n", total_a, total_b);
	return 0;
}
