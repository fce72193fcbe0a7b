/*
 * spinners THREADS SECONDS [IDLE]: the scaling target.  THREADS threads
 * burn CPU for SECONDS of wall time, each in chunks of work that end in
 * the progress point (Coz's COZ_PROGRESS_NAMED("item")); thread 0 works in
 * line SPIN:hot, the others in line SPIN:cold.  IDLE more threads only
 * wait for the end (a server's idle pool), for attach tests.  Nothing is
 * pinned.  At exit it prints on stderr
 *
 *	spinners: threads T idle I items N per_sec R hwm_kb K
 *
 * R being chunks done per second of wall time, and K the process's peak
 * resident set (VmHWM) as it ends.  SECONDS 0: run until killed.
 *
 * With a fixed experiment on SPIN:hot, every other thread owes a delay
 * for each of thread 0's samples there and is paused to pay it: the
 * delay-fidelity axis uses it so, with THREADS 2.
 */
#include "workload.h"

#define CHUNK	20000UL		/* multiply-adds per chunk, about 20 us */

static double seconds;
static volatile int stop;
static unsigned long items;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;

static void __attribute__((noinline))
spin_hot(void)
{
	while (!stop) {
		for (unsigned long i = 0, x = 0; i < CHUNK; i++) gt_sink = x = BENCH_MIX(x, i);	/* SPIN:hot */
		COZ_PROGRESS_NAMED("item");
		__atomic_add_fetch(&items, 1, __ATOMIC_RELAXED);
	}
}

static void __attribute__((noinline))
spin_cold(void)
{
	while (!stop) {
		for (unsigned long i = 0, x = 0; i < CHUNK; i++) gt_sink = x = BENCH_MIX(x, i);	/* SPIN:cold */
		COZ_PROGRESS_NAMED("item");
		__atomic_add_fetch(&items, 1, __ATOMIC_RELAXED);
	}
}

static void *
spinner(void *arg)
{
	if (arg)
		spin_hot();
	else
		spin_cold();
	return NULL;
}

static void *
idler(void *arg GT_UNUSED)
{
	pthread_mutex_lock(&idle_lock);
	while (!stop)
		pthread_cond_wait(&idle_cond, &idle_lock);
	pthread_mutex_unlock(&idle_lock);
	return NULL;
}

static long
vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void
start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, NULL, fn, arg);

	if (err)
		gt_die("pthread_create: %s", strerror(err));
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int idle = argc > 3 ? atoi(argv[3]) : 0;
	pthread_t *t;
	double t0, t1;

	gt.prog = "spinners";
	seconds = argc > 2 ? atof(argv[2]) : 1;
	if (n < 1 || idle < 0 || seconds < 0 || argc > 4)
		gt_die("usage: spinners THREADS SECONDS [IDLE]");
	t = calloc(n + idle, sizeof(*t));
	if (!t)
		gt_die("out of memory");
	for (int i = 0; i < idle; i++)
		start(&t[n + i], idler, NULL);
	t0 = gt_now();
	for (int i = 0; i < n; i++)
		start(&t[i], spinner, i ? NULL : (void *)1);
	if (seconds > 0) {
		struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

		/* Not nanosleep(): bench/sleeplog.c logs those, Coz's pauses. */
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
	} else {
		for (;;)
			pause();
	}
	pthread_mutex_lock(&idle_lock);
	stop = 1;
	pthread_cond_broadcast(&idle_cond);
	pthread_mutex_unlock(&idle_lock);
	for (int i = 0; i < n + idle; i++)
		pthread_join(t[i], NULL);
	t1 = gt_now();
	fprintf(stderr, "spinners: threads %d idle %d items %lu per_sec %.1f hwm_kb %ld\n",
		n, idle, items, items / (t1 - t0), vm_hwm_kb());
	free(t);
	return 0;
}
