/*
 * exec-thread: the main thread spins in before_exec() while a second
 * thread spins too; then a third, non-leader thread execs this program
 * again as "exec-thread after", which spins in after_exec() and exits 7.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "tests.h"

static volatile unsigned long sink;
static const char *self;

static void __attribute__((noinline))
before_exec(double secs)
{
	double end = mono_now() + secs;

	while (secs == 0 || mono_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* BEFORE-LINE */
}

static void __attribute__((noinline))
after_exec(double secs)
{
	double end = mono_now() + secs;

	while (mono_now() < end)
		for (int i = 0; i < 100000; i++) sink += i * 5;	/* AFTER-LINE */
}

static void *
spinner(void *arg)
{
	before_exec(0);
	return NULL;
}

static void *
execer(void *arg)
{
	execl(self, self, "after", (char *) NULL);
	fail_exit(99, "execl failed");
}

int
main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1 && !strcmp(argv[1], "after")) {
		after_exec(0.3);
		return 7;
	}
	self = argv[0];
	pthread_create(&a, NULL, spinner, NULL);
	before_exec(0.3);
	pthread_create(&b, NULL, execer, NULL);
	pthread_join(b, NULL);
	fail_exit(99, "exec did not happen");
}
