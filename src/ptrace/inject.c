#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "base/error_prints.h"
#include "ptrace/inject.h"

#ifdef __x86_64__

/*
 * A SIGTRAP stop of a single step: the kernel's debug trap (TRAP_TRACE,
 * or TRAP_BRKPT for a step out of a system call), not a SIGTRAP of the
 * thread's own that was pending when it was stopped: an int3 it ran just
 * before (SI_KERNEL; causaltop's at the entry point, say) or one sent to
 * it (SI_USER, SI_TKILL: si_code <= 0).
 */
static bool
inject_step_trap(pid_t tid)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0L, &si) < 0)
		return true;
	return si.si_code > 0 && si.si_code != SI_KERNEL;
}

/*
 * Single-step tid once and wait for that step's SIGTRAP.  Another signal
 * may stop it first, before the instruction ran, a SIGTRAP too: it is
 * kept for the caller (the first one; the kernel queues the rest) and the
 * step tried again.  Any other stop of tid (an exit) is an error: ESRCH.
 */
static int
inject_step(pid_t tid, int *pending_sig)
{
	for (int tries = 0; tries < 16; tries++) {
		int status;

		if (ptrace(PTRACE_SINGLESTEP, tid, 0L, 0L) < 0)
			return -1;
		if (waitpid(tid, &status, __WALL) != tid)
			return -1;
		if (!WIFSTOPPED(status)) {
			errno = ESRCH;
			return -1;
		}
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16) && inject_step_trap(tid))
			return 0;
		if (status >> 16) {
			/* An event stop (exit): the thread is leaving. */
			errno = ESRCH;
			return -1;
		}
		if (!*pending_sig)
			*pending_sig = WSTOPSIG(status);
		else if (WSTOPSIG(status) != *pending_sig)
			debug_msg("inject: %d: signal %d while %d is kept", (int) tid,
				  WSTOPSIG(status), *pending_sig);
	}
	errno = EAGAIN;
	return -1;
}

/*
 * Two steps, over `nop; syscall` written at the PC.  The nop first: a
 * thread stopped at an event inside a system call (the exec event, a
 * clone's) finishes that call when it resumes, and the call's return
 * value lands in rax; the nop's step takes it out to user mode, and the
 * value is kept for the restore.  orig_rax = -1 through both steps, so
 * that a system call interrupted by our stop is not restarted under us;
 * restored at the end, it is restarted when the thread resumes.
 */
int
inject_syscall(pid_t tid, long nr, const uint64_t args[6], int64_t *ret,
	       int *pending_sig)
{
	struct user_regs_struct saved, r;
	long word;
	int err = 0;

	*pending_sig = 0;
	if (ptrace(PTRACE_GETREGS, tid, 0L, &saved) < 0)
		return -1;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, tid, (void *) saved.rip, 0L);
	if (errno)
		return -1;
	/* nop = 90, syscall = 0f 05 */
	if (ptrace(PTRACE_POKETEXT, tid, (void *) saved.rip,
		   (void *) ((word & ~0xffffffL) | 0x050f90)) < 0)
		return -1;
	r = saved;
	r.orig_rax = (unsigned long long) -1;
	if (ptrace(PTRACE_SETREGS, tid, 0L, &r) < 0) {
		err = errno;
		goto restore;
	}
	/* A step out of a system call traps at its exit first, before the nop. */
	for (int steps = 0; r.rip != saved.rip + 1; steps++) {
		if (steps == 2 || inject_step(tid, pending_sig) < 0 ||
		    ptrace(PTRACE_GETREGS, tid, 0L, &r) < 0) {
			err = errno ? errno : EIO;
			goto restore;
		}
	}
	/* What the finished system call returned, if one was. */
	saved.rax = r.rax;
	r.rax = (unsigned long long) nr;
	r.rdi = args[0];
	r.rsi = args[1];
	r.rdx = args[2];
	r.r10 = args[3];
	r.r8 = args[4];
	r.r9 = args[5];
	/* Not a system call being restarted: the kernel must not rewind. */
	r.orig_rax = (unsigned long long) -1;
	if (ptrace(PTRACE_SETREGS, tid, 0L, &r) < 0 || inject_step(tid, pending_sig) < 0 ||
	    ptrace(PTRACE_GETREGS, tid, 0L, &r) < 0)
		err = errno;
	else
		*ret = (int64_t) r.rax;
restore:
	/* Put everything back, whatever happened. */
	if (ptrace(PTRACE_POKETEXT, tid, (void *) saved.rip, (void *) word) < 0 && !err)
		err = errno;
	if (ptrace(PTRACE_SETREGS, tid, 0L, &saved) < 0 && !err)
		err = errno;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

#else

int
inject_syscall(pid_t tid, long nr, const uint64_t args[6], int64_t *ret,
	       int *pending_sig)
{
	(void) tid;
	(void) nr;
	(void) args;
	(void) ret;
	*pending_sig = 0;
	errno = ENOSYS;
	return -1;
}

#endif
