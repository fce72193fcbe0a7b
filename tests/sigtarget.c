/*
 * sigtarget N: the program's own signal use must work exactly as
 * untraced: N SIGUSR1 to a handler, N SIGUSR2 taken by sigwait() in a
 * thread, and 20 SIGALRMs from an interval timer.  Each signal is sent
 * only after the previous one was seen, so none may coalesce: every
 * count must be exact.  Exit status bits: 1 SIGUSR1, 2 SIGUSR2, 4 SIGALRM.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>
#include "tests.h"

static volatile sig_atomic_t usr1, alrm;
static volatile int usr2;

static void on_usr1(int sig) { usr1++; }
static void on_alrm(int sig) { alrm++; }

static void *
waiter(void *arg)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	for (;;) {
		if (sigwait(&set, &sig) == 0 && sig == SIGUSR2)
			__atomic_add_fetch(&usr2, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* Wait (up to 10 s) until *v reaches want. */
static int
await(volatile int *v, int want)
{
	double end = mono_now() + 10;

	while (__atomic_load_n(v, __ATOMIC_SEQ_CST) < want)
		if (mono_now() > end)
			return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	sigset_t set;
	pthread_t w;
	int bad = 0;

	signal(SIGUSR1, on_usr1);
	signal(SIGALRM, on_alrm);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&w, NULL, waiter, NULL);

	for (int i = 1; i <= n; i++) {
		kill(getpid(), SIGUSR1);
		if (!await((volatile int *) &usr1, i))
			break;
		pthread_kill(w, SIGUSR2);
		if (!await(&usr2, i))
			break;
	}
	setitimer(ITIMER_REAL, &it, NULL);
	await((volatile int *) &alrm, 20);
	it = (struct itimerval) { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);

	if (usr1 != n)
		bad |= 1;
	if (usr2 != n)
		bad |= 2;
	if (alrm < 20)
		bad |= 4;
	printf("usr1=%d usr2=%d alrm=%d\n", (int) usr1, usr2, (int) alrm);
	return bad;
}
