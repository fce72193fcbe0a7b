/*
 * manythreads TOTAL CONCURRENT BURN_US: create and join TOTAL short-lived
 * threads, at most CONCURRENT at a time; each burns about BURN_US of CPU
 * time in burn(), so that each gets sampled.  The burn is a calibrated
 * loop with no system call in it: time spent in the kernel is not sampled
 * (exclude_kernel), so a loop that reads its CPU clock would lose samples.
 */
#include <pthread.h>
#include <stdlib.h>
#include "tests.h"

static volatile unsigned long sink;
static unsigned long burn_iters;

static void __attribute__((noinline))
burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) sink += i;	/* BURN-LINE */
}

/*
 * Iterations of burn() per second of CPU time on this machine: the
 * fastest of five rounds.  One round of 20 ms could run slow (we think
 * a vCPU taken by the host still counts as the thread's CPU time), and then
 * every burn was short: one run of the test found 3.3 samples a thread
 * where 6 were meant, and 46 threads with none.
 */
static double
calibrate(void)
{
	unsigned long n = 100000;
	double t0, t, best = 0;

	for (int round = 0; round < 5;) {
		t0 = thread_cpu_now();
		burn(n);
		t = thread_cpu_now() - t0;
		if (t < 0.02) {
			n *= 2;
			continue;
		}
		if (n / t > best)
			best = n / t;
		round++;
	}
	return best;
}

static void *
worker(void *arg)
{
	burn(burn_iters);
	return NULL;
}

int
main(int argc, char **argv)
{
	int total = argc > 1 ? atoi(argv[1]) : 10000;
	int conc = argc > 2 ? atoi(argv[2]) : 8;
	pthread_t *t = calloc(conc, sizeof(*t));

	burn_iters = (unsigned long) (calibrate() * (argc > 3 ? atof(argv[3]) : 300) / 1e6);
	for (int done = 0; done < total; ) {
		int k = total - done < conc ? total - done : conc;

		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				fail_exit(99, "pthread_create failed after %d", done + i);
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		done += k;
	}
	free(t);
	return 0;
}
