/*
 * gt-sleep: waiting on the outside world.  A worker thread, pinned to
 * CPU 0, does per item: a wait of about one unit (-u, default 2000 us) on
 * something outside the process, then line "work" (one unit of CPU), then
 * the item.  Another thread, pinned to CPU 1, runs line "burn" for ever,
 * off the critical path.  The wait depends on -x:
 *
 *   sleep (default)  clock_nanosleep() for one unit.  An item takes
 *		      S + W (1 - s), so speeding work by s gives
 *		      s W / (S + W), about s / 2 (a little less: the sleep
 *		      overshoots by the timer slack and the wake-up).
 *   rpc	      a request byte written to a forked child process, which
 *		      sleeps one unit and answers with a byte the worker
 *		      read()s: a remote call of fixed latency, same answer as
 *		      sleep.
 *   fd		      a blocking read() of one byte from a pipe that a forked
 *		      child process feeds at a steady rate, one byte every
 *		      2 units on an absolute clock.  The feed bounds the rate
 *		      at one item per 2 units (the worker waits about one
 *		      unit, then works one), so speeding work gives 0: the
 *		      program is bound by its input, not by work.
 *
 *	speeding burn:		0, in every mode
 *
 * The parent kills and reaps the child at the end; should the parent die
 * first, the child follows (PR_SET_PDEATHSIG, and EPIPE/EOF on its pipe).
 * See gt.h for the options and the output.
 */
#include "gt.h"
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

enum { WORK, BURN };

static const struct gt_line sleep_lines[] = {
	[WORK] = { "work", 1 },
	[BURN] = { "burn", 1 },
	{ NULL, 0 },
};

static int req_fd = -1, in_fd = -1;	/* to and from the child */
static pid_t child = -1;

static void
add_usec(struct timespec *ts, double usec)
{
	long long ns = ts->tv_nsec + (long long)(usec * 1e3);

	ts->tv_sec += ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static void
sleep_usec(double usec)
{
	struct timespec ts = { 0, 0 };

	add_usec(&ts, usec);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* The child: the outside world.  Never returns. */
static void
child_run(pid_t parent, int rfd, int wfd)
{
	struct timespec next;
	char c = 'x';

	/* Die with the parent; it may have gone already. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	if (gt_mode_is("rpc")) {
		while (read(rfd, &c, 1) == 1) {
			sleep_usec(gt.unit_us);
			if (write(wfd, &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	/* fd: absolute deadlines, so that the rate does not drift. */
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		add_usec(&next, 2 * gt.unit_us);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (write(wfd, &c, 1) != 1)
			_exit(0);
	}
}

static void
child_start(void)
{
	int req[2], resp[2];
	pid_t parent = getpid();

	if (pipe(req) || pipe(resp))
		gt_die("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		gt_die("fork: %s", strerror(errno));
	if (child == 0) {
		close(req[1]);
		close(resp[0]);
		child_run(parent, req[0], resp[1]);
	}
	close(req[0]);
	close(resp[1]);
	req_fd = req[1];
	in_fd = resp[0];
}

static void
wait_external(void)
{
	char c = 'x';

	if (gt_mode_is("sleep")) {
		sleep_usec(gt.unit_us);
		return;
	}
	if (gt_mode_is("rpc") && write(req_fd, &c, 1) != 1)
		gt_die("request: %s", strerror(errno));
	if (read(in_fd, &c, 1) != 1)
		gt_die("read from the child: %s", strerror(errno));
}

static void *
worker(void *arg GT_UNUSED)
{
	unsigned long n;

	while (gt_claim()) {
		wait_external();
		n = gt_n(WORK);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:work */
		gt_progress();
	}
	return NULL;
}

static void *
burner(void *arg GT_UNUSED)
{
	unsigned long n;

	for (;;) {
		n = gt_n(BURN);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:burn */
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t w, b;

	gt.prog = "gt-sleep";
	gt.n = 400;
	gt.unit_us = 2000;
	gt.pin = 1;
	gt.lines = sleep_lines;
	gt.modes[0] = "sleep";
	gt.modes[1] = "rpc";
	gt.modes[2] = "fd";
	gt_init(argc, argv);
	if (!gt_mode_is("sleep"))
		child_start();

	gt_thread(&b, 1, burner, NULL);
	gt_thread(&w, 0, worker, NULL);
	pthread_join(w, NULL);
	gt_report();
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	/* The burner never ends: exit() takes it down. */
	return 0;
}
