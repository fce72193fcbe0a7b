/* Helpers shared by the test target programs. */
#ifndef CT_TESTS_H
# define CT_TESTS_H

# include <stdio.h>
# include <stdlib.h>
# include <time.h>

# define fail_exit(code, ...) do { \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		exit(code); \
	} while (0)

static inline double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double
thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
