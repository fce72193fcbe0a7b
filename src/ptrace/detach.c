/*
 * Letting go of every thread, never leaving one stopped.
 *
 * PTRACE_DETACH only works on a thread in a ptrace-stop (and not on one
 * restarted with PTRACE_LISTEN).  For the others, PTRACE_INTERRUPT and
 * detach at whatever stop comes next: the interrupt may be overtaken by
 * another stop (a signal, an exit event), which does as well.  A thread
 * detached in group-stop stays stopped, as it would untraced.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "ptrace/patch.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"

/*
 * Handle stops until every tcb is detached.  Never hang: a thread that
 * reports nothing for DETACH_PATIENCE_NS is given up on, and the kernel
 * detaches it when causaltop exits.
 */
#define DETACH_PATIENCE_NS 3000000000ULL

static void
wait_detached(struct session *s)
{
	uint64_t deadline = clock_now_ns() + DETACH_PATIENCE_NS;

	while (tcb_count()) {
		int step = trace_wait_step(s);

		if (step > 0) {
			deadline = clock_now_ns() + DETACH_PATIENCE_NS;
			continue;
		}
		if (step < 0 || clock_now_ns() > deadline) {
			if (step == 0)
				error_msg("warning: %u threads did not stop to be detached; "
					  "the kernel detaches them as causaltop exits", tcb_count());
			while (tcb_first())
				trace_drop_thread(s, tcb_first());
			break;
		}
	}
}

void
trace_detach_all(struct session *s)
{
	struct tcb *t, *next;

	if (s->detaching)
		return;
	/* The program's code as it was, while we can still stop it. */
	patch_unpatch_all(s);
	s->detaching = true;
	for (t = tcb_first(); t; t = next) {
		next = t->next;
		t->flags |= TCB_DETACH_NEXT;
		/* Held in a stop by us: pass on what it was stopped with. */
		if (t->flags & TCB_STOPPED) {
			trace_detach_stopped(s, t, t->stop_sig);
			continue;
		}
		/* A first stop is on its way anyway. */
		if (t->flags & TCB_STARTUP)
			continue;
		/*
		 * Past its exit event, or gone: nothing to detach.  A leader
		 * that left with pthread_exit() is not even reported until its
		 * whole group ends, so waiting for it could last forever.
		 */
		if ((t->flags & TCB_EXITING) ||
		    (ptrace(PTRACE_INTERRUPT, t->tid, 0L, 0L) < 0 && errno == ESRCH)) {
			s->threads.exited++;
			trace_drop_thread(s, t);
		}
	}
	wait_detached(s);
}

/*
 * After the detach, the launched command is still our child, and any
 * thread the detach missed is still our tracee: it stops at its exit
 * event and holds its process unreaped until we let it go.  Waiting for
 * the command's pid alone would then wait forever.  So wait for any of
 * our children and tracees (__WALL), and let go of whatever stops.
 */
pid_t
trace_wait_launched(pid_t pid, int *status, int options)
{
	for (;;) {
		siginfo_t si;
		int st, sig = 0;
		pid_t got = waitpid(-1, &st, __WALL | options);

		if (got <= 0)
			return got;
		if (got == pid && !WIFSTOPPED(st)) {
			*status = st;
			return got;
		}
		if (!WIFSTOPPED(st))
			continue;
		/* A signal-delivery-stop passes its signal on; other stops nothing. */
		if (st >> 16 == 0 && ptrace(PTRACE_GETSIGINFO, got, 0L, &si) == 0)
			sig = WSTOPSIG(st);
		debug_msg("trace: %d stopped after the detach: let go", (int) got);
		ptrace(PTRACE_DETACH, got, 0L, (long) sig);
	}
}
