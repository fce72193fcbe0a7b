/*
 * inject_syscall() (src/ptrace/inject.c) on a real child, stopped by
 * PTRACE_INTERRUPT inside a blocking read() as patch.c stops a thread to
 * map its pads:
 *
 *  (a) getpid() made in it returns its pid, nothing pending;
 *  (b) the same with a SIGTRAP of the child's own pending at the stop
 *      (sent to it while stopped, as an int3 run just before the stop
 *      leaves one): the single steps must not take it for their own
 *      trap.  It is kept for the caller (pending_sig), and once passed
 *      on, the child's handler gets it exactly once;
 *  (c) the child then finishes its read() (restarted, as the injection
 *      promises) and exits with the count of SIGTRAPs it got.
 *
 * Mutation it was seen to fail against (then restored): inject_step()
 * taking any SIGTRAP stop for its step's (the code before 2026-12-02: an
 * xz launched under --progress lost its entry int3's SIGTRAP that way and
 * ran on from the middle of an instruction, SIGSEGV).
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ptrace/inject.h"
#include "unit.h"

static volatile sig_atomic_t traps;

static void
on_trap(int sig)
{
	(void) sig;
	traps++;
}

/* The child: count SIGTRAPs, block in read(), exit with 10 + the count. */
static void __attribute__((noreturn))
child(int rfd)
{
	struct sigaction sa = { .sa_handler = on_trap, .sa_flags = SA_RESTART };
	char c;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL))
		_exit(90);
	if (read(rfd, &c, 1) != 1)
		_exit(92);
	_exit(10 + traps);
}

/* Sleeping in its read(): state S in /proc/PID/stat. */
static bool
blocked(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	bool s = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		s = p[1] == ' ' && p[2] == 'S';
	fclose(f);
	return s;
}

/* Interrupt pid and wait for its PTRACE_EVENT_STOP. */
static bool
interrupt(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, pid, 0L, 0L) < 0 || waitpid(pid, &status, __WALL) != pid)
		return false;
	return WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP;
}

int
main(void)
{
	const uint64_t args[6] = { 0 };
	int pfd[2], status = 0, sig = -1, rc;
	int64_t ret = 0;
	pid_t pid;

#ifndef __x86_64__
	printf("unit-inject: x86-64 only: skipped\n");
	return 77;
#endif
	if (pipe(pfd))
		return 99;
	pid = fork();
	if (pid < 0)
		return 99;
	if (pid == 0)
		child(pfd[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0L, 0L) < 0) {
		printf("unit-inject: PTRACE_SEIZE: %s: skipped\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 77;
	}
	/* A hang is a failure: SIGALRM kills the test. */
	alarm(20);
	for (int i = 0; i < 2000 && !blocked(pid); i++)
		nanosleep(&(struct timespec) { 0, 1000000 }, NULL);
	check(blocked(pid), "the child sleeps in its read()");

	/* (a) */
	check(interrupt(pid), "stopped at PTRACE_EVENT_STOP");
	rc = inject_syscall(pid, SYS_getpid, args, &ret, &sig);
	check(rc == 0 && ret == pid && sig == 0, "(a) getpid() injected: %d, %lld for %d, signal "
	      "kept %d", rc, (long long) ret, (int) pid, sig);
	check(ptrace(PTRACE_CONT, pid, 0L, 0L) == 0, "(a) restarted");
	for (int i = 0; i < 2000 && !blocked(pid); i++)
		nanosleep(&(struct timespec) { 0, 1000000 }, NULL);

	/* (b) */
	check(interrupt(pid), "stopped again");
	check(syscall(SYS_tgkill, pid, pid, SIGTRAP) == 0, "a SIGTRAP sent to the stopped child");
	ret = 0;
	sig = -1;
	rc = inject_syscall(pid, SYS_getpid, args, &ret, &sig);
	check(rc == 0 && ret == pid, "(b) getpid() injected with a SIGTRAP pending: %d, %lld for %d",
	      rc, (long long) ret, (int) pid);
	check(sig == SIGTRAP, "(b) the child's SIGTRAP kept for the caller, not taken for a step's "
	      "trap: %d", sig);
	check(ptrace(PTRACE_CONT, pid, 0L, (void *) (long) (sig > 0 ? sig : 0)) == 0,
	      "(b) restarted with it");

	/* (c) */
	if (write(pfd[1], "x", 1) != 1)
		return 99;
	for (;;) {
		if (waitpid(pid, &status, __WALL) != pid) {
			check(false, "(c) waitpid: %s", strerror(errno));
			break;
		}
		if (!WIFSTOPPED(status))
			break;
		/* Any other stop (a signal-delivery stop): pass it on. */
		ptrace(PTRACE_CONT, pid, 0L,
		       (void *) (long) ((status >> 16) ? 0 : WSTOPSIG(status)));
	}
	check(WIFEXITED(status) && WEXITSTATUS(status) == 11,
	      "(c) the child read its byte and got one SIGTRAP: status %#x (exit %d; 11 expected)",
	      status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return failures ? 1 : 0;
}
