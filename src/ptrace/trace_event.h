/*
 * The ptrace core's vocabulary, after strace's trace_event.h: what
 * next_event() (trace.c) makes of one wait status, and, for each, what
 * dispatch_event() does.  Threads are restarted with PTRACE_CONT (or
 * PTRACE_LISTEN in a group-stop), never PTRACE_SYSCALL: per-syscall
 * stops would dominate the overhead.  Before acting on any stop,
 * dispatch_event() marks the thread stopped (TCB_STOPPED) and past its
 * first stop; a thread marked TCB_DETACH_NEXT is detached instead of
 * restarted, with the signal it would have been restarted with.
 */
#ifndef CT_TRACE_EVENT_H
# define CT_TRACE_EVENT_H

# include <sys/types.h>

struct session;
struct tcb;

enum trace_event {
	/* Neither stopped nor dead (WIFCONTINUED): nothing to do. */
	TE_NEXT,
	/*
	 * The thread exited (WIFEXITED) or was killed (WIFSIGNALED): the
	 * launched command's status is kept; a traced thread's end is
	 * logged and its tcb dropped.
	 */
	TE_EXITED,
	TE_SIGNALLED,
	/*
	 * PTRACE_EVENT_CLONE, _FORK or _VFORK: the new thread or process is
	 * traced from now on (unless its first stop overtook this event and
	 * it is known already), its accounting starting from its parent's.
	 * Restart with 0.
	 */
	TE_CLONE,
	/*
	 * PTRACE_EVENT_EXEC.  next_event() has switched tcbs: when a thread
	 * other than the leader exec'ed, it took the leader's tid, and the
	 * old leader is gone without an exit report.  The new image is
	 * symbolized, sampled and probed.  Restart with 0.
	 */
	TE_STOP_BEFORE_EXECVE,
	/*
	 * PTRACE_EVENT_EXIT: its last samples are read while its mappings
	 * exist, its progress page while its fds do, its probes closed; what
	 * it owes is paid there, before its exit wakes a joiner (held:
	 * trace_ops' exit_stop).  Otherwise restart with 0.
	 */
	TE_STOP_BEFORE_EXIT,
	/*
	 * PTRACE_EVENT_STOP with SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU: a
	 * group-stop.  A pause asked of the thread is moot (trace_ops'
	 * pause_cancel).  Restarted with PTRACE_LISTEN, which ends the
	 * ptrace-stop but not the group-stop, so kill -STOP and -CONT
	 * behave as if untraced; detached there, it stays stopped.
	 */
	TE_GROUP_STOP,
	/*
	 * PTRACE_EVENT_STOP otherwise (strace's TE_RESTART, split in two):
	 * the stop a PTRACE_INTERRUPT asked for, or the end of a group-stop
	 * (SIGCONT).  A thread with a pause pending is held there until it
	 * has paid (trace_ops' pause_stop); otherwise restart with 0.
	 */
	TE_INTERRUPT_STOP,
	/* The same for a new thread's first stop; handled alike. */
	TE_STARTUP_STOP,
	/*
	 * Stopped with no event: a signal on its way to the thread.  Restart
	 * with it, unless it is a SIGTRAP of our own breakpoint counters
	 * with no cause recorded (stray_trap), which is dropped.
	 */
	TE_SIGNAL_DELIVERY_STOP,
	/* Any other PTRACE_EVENT (none is asked for): restart with 0. */
	TE_OTHER_STOP,
};

/* One wait status, decoded (next_event) for dispatch_event. */
struct trace_stop {
	enum trace_event te;
	pid_t tid;
	int status;		/* as waitpid gave it */
	int sig;		/* a stop's WSTOPSIG */
	int event;		/* a stop's PTRACE_EVENT_*, 0 for none */
	struct tcb *t;		/* NULL only for the death of an untraced tid */
};

/*
 * trace_handle_status() (trace.h) in its two steps, declared here for
 * tests/unit-trace.c.  next_event() decodes the wait status of tid into
 * ev and returns ev->te; it finds the tcb, allocating one for a tid not
 * seen yet, switching tcbs at an exec.  dispatch_event() acts on it.
 */
enum trace_event next_event(struct session *, pid_t tid, int status, struct trace_stop *ev);
void dispatch_event(struct session *, const struct trace_stop *ev);

#endif
