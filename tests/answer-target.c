/*
 * answer-target SECONDS: one thread, one unit of progress per round of
 * two loops, each on a line of its own: HOT-LINE does nine tenths of the
 * work, COLD-LINE the rest.  Speeding HOT-LINE up is what would speed the
 * program up most, by far: the answer --until-answer must give.
 */
#include "causaltop.h"
#include "tests.h"

static volatile unsigned long sink;

static void __attribute__((noinline))
hot(void)
{
	for (int i = 0; i < 18000; i++) sink += i;	/* HOT-LINE */
}

static void __attribute__((noinline))
cold(void)
{
	for (int i = 0; i < 2000; i++) sink += i * 3;	/* COLD-LINE */
}

int
main(int argc, char **argv)
{
	double end = mono_now() + (argc > 1 ? atof(argv[1]) : 1);

	while (mono_now() < end) {
		hot();
		cold();
		CAUSALTOP_PROGRESS;
	}
	return 0;
}
