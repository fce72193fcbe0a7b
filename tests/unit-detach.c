/*
 * trace_wait_launched() (src/ptrace/detach.c) on a real process: a
 * command whose leader exits while one of its threads is still our
 * tracee.  That thread stops at its exit event and holds the process
 * unreaped until it is let go of; waitpid() on the command alone waits
 * forever (as causaltop did after a Ctrl-C had raced its detach).
 * trace_wait_launched() must let it go and return the command's status.
 *
 * Mutation it was seen to fail against (then restored): main.c's plain
 * waitpid(pid, status, options) in its place (the alarm ends the hang).
 */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ptrace/trace.h"
#include "unit.h"

static int tid_pipe[2], go_pipe[2];

static void *
worker(void *arg)
{
	pid_t tid = (pid_t) syscall(SYS_gettid);

	(void) arg;
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(90);
	for (;;)
		pause();
	return NULL;
}

/* The command: a worker thread, and a leader that exits with 3 when told. */
static void
command(void)
{
	pthread_t th;
	char c;

	if (pthread_create(&th, NULL, worker, NULL))
		_exit(91);
	if (read(go_pipe[0], &c, 1) != 1)
		_exit(92);
	exit(3);
}

int
main(void)
{
	pid_t pid, tid, got;
	int status = 0;

	if (pipe(tid_pipe) || pipe(go_pipe))
		return 99;
	pid = fork();
	if (pid < 0)
		return 99;
	if (pid == 0)
		command();
	if (read(tid_pipe[0], &tid, sizeof(tid)) != sizeof(tid))
		return 99;
	if (ptrace(PTRACE_SEIZE, tid, 0L, (long) PTRACE_O_TRACEEXIT) < 0) {
		/* Not permitted here (Yama, a container): nothing to test. */
		printf("unit-detach: PTRACE_SEIZE: %s: skipped\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 77;
	}
	/* A hang is a failure: SIGALRM kills the test. */
	alarm(20);
	if (write(go_pipe[1], "x", 1) != 1)
		return 99;
	while ((got = trace_wait_launched(pid, &status, 0)) < 0 && errno == EINTR)
		;
	alarm(0);
	CHECK(got == pid, "returned %d, not the command %d (%s)", (int) got, (int) pid,
	      got < 0 ? strerror(errno) : "");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x, not exit 3", status);
	CHECK(kill(tid, 0) < 0 && errno == ESRCH, "thread %d still there", (int) tid);
	if (!failures)
		printf("unit-detach: all checks passed\n");
	return failures ? 1 : 0;
}
