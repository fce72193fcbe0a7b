/*
 * progress-target THREADS K [burst]: each of THREADS threads does exactly
 * K units of work, marking each with CAUSALTOP_PROGRESS_NAMED("unit"),
 * CAUSALTOP_BEGIN/END("txn") and CAUSALTOP_PROGRESS (named FILE:LINE).
 * With "burst": do one round unprofiled-or-not, print "ready", wait for
 * SIGUSR1, do a second round, print "done", then wait for SIGTERM.
 * With "workers W": a master forks W processes that each burst, saying
 * "ready PID" and "done PID"; SIGTERM to the master ends them all.
 * With "late": sleep 50 ms first, so that the page appears after the
 * supervisor's first look for it, and the run ends before its next.
 * With "exec": a round, 100 ms asleep, then exec itself for another.
 */
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "causaltop.h"
#include "tests.h"

static volatile unsigned long sink;
static long k;

/* Locations for --progress and --latency; the asm keeps them real calls. */
void unit_done(void);
void txn_begin(void);
void txn_end(void);
void __attribute__((noinline)) unit_done(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline)) txn_begin(void) { __asm__ volatile("" ::: "memory"); }
void __attribute__((noinline)) txn_end(void) { __asm__ volatile("" ::: "memory"); }

/*
 * Functions with a body, where a jump can be patched in (the three above
 * are a bare ret, too short for one): --probe-mode=patch's locations.
 */
long unit_mix(long i);
long txn_enter(long i);
long txn_leave(long i);
long __attribute__((noinline)) unit_mix(long i) { return (i * 2654435761L) ^ (i >> 7); }
long __attribute__((noinline)) txn_enter(long i) { return (i * 40503L) ^ (i >> 3); }
long __attribute__((noinline)) txn_leave(long i) { return (i * 69069L) ^ (i >> 5); }

static void *
worker(void *arg)
{
	for (long i = 0; i < k; i++) {
		CAUSALTOP_BEGIN("txn");
		txn_begin();
		sink += txn_enter(i);
		for (int j = 0; j < 200; j++)
			sink += j;
		sink += txn_leave(i);
		txn_end();
		CAUSALTOP_END("txn");
		CAUSALTOP_PROGRESS_NAMED("unit");
		unit_done();
		sink += unit_mix(i);
		CAUSALTOP_PROGRESS;	/* FILE-LINE-POINT */
	}
	return NULL;
}

static void
round_of(int n)
{
	pthread_t t[64];

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/*
 * One round, "ready", SIGUSR1, another round, "done", SIGTERM.  A worker
 * process says its pid after each word.
 */
static int
burst(int n, bool worker)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	round_of(n);
	printf(worker ? "ready %d\n" : "ready\n", (int) getpid());
	fflush(stdout);
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 1;
	round_of(n);
	printf(worker ? "done %d\n" : "done\n", (int) getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}

/*
 * A master and its worker processes (a server's shape): each worker
 * bursts; SIGTERM to the master ends them all; 0 if every worker ended 0.
 */
static int
workers(int n, int w)
{
	sigset_t set;
	int sig, status, bad = 0;
	pid_t kids[16];

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < w; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			fail_exit(99, "fork");
		if (kids[i] == 0)
			_exit(burst(n, true));
	}
	sigwait(&set, &sig);
	for (int i = 0; i < w; i++)
		kill(kids[i], SIGTERM);
	for (int i = 0; i < w; i++)
		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	return bad;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	k = argc > 2 ? atol(argv[2]) : 1000;
	if (n < 1 || n > 64)
		fail_exit(99, "1 to 64 threads");
	if (argc > 3 && !strcmp(argv[3], "late")) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	if (argc > 4 && !strcmp(argv[3], "workers")) {
		int w = atoi(argv[4]);

		if (w < 1 || w > 16)
			fail_exit(99, "1 to 16 workers");
		return workers(n, w);
	}
	if (argc > 3 && !strcmp(argv[3], "exec")) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		round_of(n);
		nanosleep(&ts, NULL);
		execl("/proc/self/exe", argv[0], argv[1], argv[2], (char *) NULL);
		fail_exit(99, "exec");
	}
	if (argc < 4 || strcmp(argv[3], "burst")) {
		round_of(n);
		return 0;
	}
	return burst(n, false);
}
