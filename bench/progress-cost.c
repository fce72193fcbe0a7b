/*
 * progress-cost: nanoseconds per hit of a progress point.
 *
 *	causaltop CAUSALTOP_PROGRESS, not profiled (enabled == 0)
 *	causaltop CAUSALTOP_PROGRESS, profiled, 1 thread and 2 threads on
 *	    the same counter
 *	Coz's COZ_PROGRESS counting through libcausaltop-coz.so, 1 and 2
 *	    threads
 *	a plain relaxed atomic add, 1 and 2 threads, for reference
 *
 * Build with `make bench` (see bench/README), then
 *	bench/progress-cost [MILLIONS_OF_HITS_PER_THREAD]
 *
 * "Profiled" is faked by setting enabled through the program's own
 * mapping of its page, which is what the supervisor's write amounts to.
 * With 2 threads the figure is wall time over hits per thread, i.e. what
 * each thread pays while the other hammers the same cache line.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "causaltop.h"

#if defined(__has_include)
# if __has_include(<coz.h>)
#  include <coz.h>
#  define HAVE_COZ_H 1
# endif
#endif
#ifndef HAVE_COZ_H
/* What coz.h's COZ_PROGRESS boils down to, for builds without it. */
# include <dlfcn.h>
typedef struct {
	size_t count;
	size_t backoff;
} coz_counter_t;
# define COZ_PROGRESS do { \
		static int init_; \
		static coz_counter_t *counter_; \
		if (!init_) { \
			coz_counter_t *(*get_)(int, const char *); \
			void *p_ = dlsym(RTLD_DEFAULT, "_coz_get_counter"); \
			*(void **)&get_ = p_; \
			counter_ = get_ ? get_(1, __FILE__ ":" "COZ") : NULL; \
			init_ = 1; \
		} \
		if (counter_) \
			__atomic_add_fetch(&counter_->count, 1, __ATOMIC_RELAXED); \
	} while (0)
#endif

static uint64_t plain_counter;

static long hits;			/* per thread */

static void __attribute__((noinline))
loop_causaltop(void)
{
	long i;

	for (i = 0; i < hits; i++)
		CAUSALTOP_PROGRESS;
}

static void __attribute__((noinline))
loop_coz(void)
{
	long i;

	for (i = 0; i < hits; i++)
		COZ_PROGRESS;
}

static void __attribute__((noinline))
loop_plain(void)
{
	long i;

	for (i = 0; i < hits; i++)
		__atomic_fetch_add(&plain_counter, 1, __ATOMIC_RELAXED);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
thread_main(void *arg)
{
	(*(void (**)(void))arg)();
	return NULL;
}

/* ns per hit per thread, with nthreads running fn at once. */
static double
measure(void (*fn)(void), int nthreads)
{
	pthread_t tid[2];
	double t0;
	int i;

	t0 = now();
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, thread_main, &fn) != 0) {
			perror("pthread_create");
			exit(1);
		}
	fn();
	for (i = 1; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	return (now() - t0) * 1e9 / hits;
}

static void
report(const char *what, void (*fn)(void), int nthreads)
{
	double best = 1e9;
	int rep;

	/* Best of 3: the least disturbed run. */
	for (rep = 0; rep < 3; rep++) {
		double ns = measure(fn, nthreads);

		if (ns < best)
			best = ns;
	}
	printf("%-44s %d thread%s %7.2f ns/hit\n", what, nthreads,
	       nthreads > 1 ? "s" : " ", best);
}

int
main(int argc, char **argv)
{
	struct causaltop_page *page;

	hits = (argc > 1 ? atol(argv[1]) : 100) * 1000000L;
	if (hits <= 0) {
		fprintf(stderr, "usage: progress-cost [MILLIONS_OF_HITS]\n");
		return 2;
	}

	/* The first use makes the page and sets the site up. */
	CAUSALTOP_PROGRESS_NAMED("warm-up");
	page = causaltop_state_v1_.page;
	if (page == NULL) {
		fprintf(stderr, "progress-cost: no progress page (memfd?)\n");
		return 1;
	}
	printf("progress-cost: %ld hits per thread, best of 3\n", hits);

	__atomic_store_n(&page->enabled, 0, __ATOMIC_RELAXED);
	report("CAUSALTOP_PROGRESS, not profiled", loop_causaltop, 1);
	report("CAUSALTOP_PROGRESS, not profiled", loop_causaltop, 2);
	__atomic_store_n(&page->enabled, 1, __ATOMIC_RELAXED);
	report("CAUSALTOP_PROGRESS, profiled", loop_causaltop, 1);
	report("CAUSALTOP_PROGRESS, profiled, same counter", loop_causaltop, 2);
	report("COZ_PROGRESS via libcausaltop-coz.so", loop_coz, 1);
	report("COZ_PROGRESS via libcausaltop-coz.so, same", loop_coz, 2);
	report("relaxed __atomic_fetch_add (reference)", loop_plain, 1);
	report("relaxed __atomic_fetch_add, same counter", loop_plain, 2);
	return 0;
}
