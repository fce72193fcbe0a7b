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
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "error_prints.h"
#include "session.h"
#include "tcb.h"
#include "trace.h"
#include "tracelog.h"

void
trace_detach_all(struct session *s)
{
	struct tcb *t, *next;

	if (s->detaching)
		return;
	s->detaching = true;
	for (t = tcb_first(); t; t = next) {
		next = t->next;
		t->flags |= TCB_DETACH_NEXT;
		if (t->flags & TCB_STOPPED) {
			/* Held in a stop by us: pass on what it was stopped with. */
			if (ptrace(PTRACE_DETACH, t->tid, 0L, (long) t->stop_sig) == 0 ||
			    errno == ESRCH) {
				if (t->proc->started)
					tracelog(t->tid, "+++ detached");
				s->threads.detached++;
				trace_drop_thread(s, t);
			}
			continue;
		}
		/* A first stop is on its way anyway. */
		if (t->flags & TCB_STARTUP)
			continue;
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0L, 0L) < 0 && errno != ESRCH)
			perror_msg("ptrace(INTERRUPT, %d)", (int) t->tid);
		/* ESRCH: dead already; its exit report will drop it. */
	}
	while (tcb_count()) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL);

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			/* ECHILD: nothing left to report; forget the rest. */
			while (tcb_first())
				trace_drop_thread(s, tcb_first());
			break;
		}
		trace_handle_status(s, tid, status);
	}
}
