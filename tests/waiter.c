/*
 * waiter SECONDS: the main thread works for SECONDS, a progress point per
 * unit, holding a mutex while it works and waking two threads after each
 * unit; the two wait for that on a condition variable (idle_worker), a
 * third for the mutex (locked_worker), each doing a little work between
 * its waits, so that they owe delay and a pause finds them blocked.
 * Where they wait is known: the WAIT-COND and WAIT-LOCK lines.
 */
#include <pthread.h>
#include <stdbool.h>
#include "causaltop.h"
#include "tests.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool done;
static unsigned long round_no;
static volatile unsigned long sink;

static void
a_little_work(void)
{
	for (int i = 0; i < 2000; i++)
		sink += i;
}

static void *
idle_worker(void *arg)
{
	unsigned long seen = 0;

	(void) arg;
	pthread_mutex_lock(&lock);
	while (!done) {
		while (!done && round_no == seen)
			pthread_cond_wait(&cond, &lock);	/* WAIT-COND */
		seen = round_no;
		pthread_mutex_unlock(&lock);
		a_little_work();
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *
locked_worker(void *arg)
{
	bool stop = false;

	(void) arg;
	while (!stop) {
		pthread_mutex_lock(&held);	/* WAIT-LOCK */
		stop = done;
		pthread_mutex_unlock(&held);
		a_little_work();
	}
	return NULL;
}

static void __attribute__((noinline))
unit_of_work(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;	/* SPIN-LINE */
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1, end;
	pthread_t t[3];

	pthread_create(&t[0], NULL, idle_worker, NULL);
	pthread_create(&t[1], NULL, idle_worker, NULL);
	pthread_create(&t[2], NULL, locked_worker, NULL);
	end = mono_now() + secs;
	while (mono_now() < end) {
		pthread_mutex_lock(&held);
		unit_of_work();
		pthread_mutex_unlock(&held);
		CAUSALTOP_PROGRESS;
		pthread_mutex_lock(&lock);
		round_no++;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&held);
	pthread_mutex_lock(&lock);
	done = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&held);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
