/*
 * libcall CPU_SECONDS: time spent in the C library on behalf of two
 * lines of the program.  In cycles of 2 ms then 1 ms of thread CPU time
 * (each a batch of calls more at most: BATCH_SECONDS, below),
 * scan() calls strlen over a long string on its LEAF line (in Debian's
 * libc a leaf that sets up no frame), and format() calls snprintf on
 * integers and a string on its NEST line (several libc frames deep, built without
 * frame pointers).  A profiler that charges time in a library to the
 * line that called it attributes 2/3 of the samples to LEAF and 1/3 to
 * NEST, whatever the load; a frame-pointer walk, from inside strlen,
 * skips scan() and credits the line of main that called it (CALLER).
 * On exit, on stderr, the CPU time measured in each:
 *	libcall: leaf 1.600 s nest 0.800 s
 * Built twice: with frame pointers (libcall), and without (libcall-nofp).
 */
#include <stdlib.h>
#include <string.h>
#include "tests.h"

#define LEAF_SECONDS 0.002
#define NEST_SECONDS 0.001
#define TEXT_BYTES 65536

static char *text;
static volatile size_t sink;

/*
 * The clock is read once per batch of calls, and a batch grows until it
 * lasts BATCH_SECONDS: where a clock read costs microseconds (3 us in a
 * paravirtualized guest, as many as 16 strlen calls), reading it every
 * 16 calls put 7% of the samples on it instead of on LEAF and NEST.
 */
#define BATCH_SECONDS 0.0002

static void
batch_grow(unsigned *calls, double took)
{
	if (took < BATCH_SECONDS && *calls < 1U << 20)
		*calls *= 2;
}

static double __attribute__((noinline))
scan(void)
{
	static unsigned calls = 16;
	double start = thread_cpu_now(), now = start, then;
	size_t n = 0;

	do {
		for (unsigned i = 0; i < calls; i++)
			n += strlen(text + (i & 7));	/* LEAF */
		then = now;
		now = thread_cpu_now();
		batch_grow(&calls, now - then);
	} while (now < start + LEAF_SECONDS);
	sink = n;
	return now - start;
}

static double __attribute__((noinline))
format(void)
{
	static unsigned calls = 16;
	double start = thread_cpu_now(), now = start, then;
	unsigned long x = sink;
	char buf[256];
	size_t n = 0;

	do {
		for (unsigned i = 0; i < calls; i++, x = x * 6364136223846793005UL + 1)
			n += snprintf(buf, sizeof(buf), "%u %lx %lu %-12s|", i, x, x >> 7, text + 65000);	/* NEST */
		then = now;
		now = thread_cpu_now();
		batch_grow(&calls, now - then);
	} while (now < start + NEST_SECONDS);
	sink = n;
	return now - start;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1, stop, leaf = 0, nest = 0;

	if (seconds <= 0)
		fail_exit(2, "usage: libcall CPU_SECONDS");
	text = malloc(TEXT_BYTES);
	if (!text)
		fail_exit(1, "libcall: out of memory");
	memset(text, 'x', TEXT_BYTES - 1);
	text[TEXT_BYTES - 1] = '\0';
	stop = thread_cpu_now() + seconds;
	while (thread_cpu_now() < stop) {
		leaf += scan();		/* CALLER */
		nest += format();
	}
	fprintf(stderr, "libcall: leaf %.3f s nest %.3f s\n", leaf, nest);
	free(text);
	return 0;
}
