/*
 * Unit test of src/ptrace/trace.c on scripted wait statuses: the ptrace
 * calls, the clock and the ring drains go through struct trace_sys_ops
 * (fakes here, recorded), the engine's hooks through struct trace_ops
 * (fakes too).  No thread is traced: fake tids are above PID_MAX_LIMIT,
 * except the child of the clone test, a thread of this process that
 * nothing touches (ptrace is faked), whose /proc entry says which
 * process it belongs to.
 *
 *  - next_event() decodes every kind of wait status into trace_event.h's
 *    vocabulary (test_decode), allocates a tcb for a stop of a tid not
 *    seen yet, to be detached if its process is not followed
 *    (test_adopt), and switches tcbs at an exec by a thread other than
 *    the leader (test_exec_switch);
 *  - dispatch_event() re-injects a signal, restarts a group-stop with
 *    PTRACE_LISTEN and cancels a pause pending there, holds an interrupt
 *    stop when the engine's pause_stop says so, reads the rings and asks
 *    exit_stop at an exit event, detaches a thread marked so instead of
 *    restarting it, follows a clone with the child's accounting taken
 *    from its parent, and keeps the launched command's status
 *    (test_dispatch_*); keeps a thread whose detach failed because a
 *    SIGKILL took it out of its stop (test_dispatch_detach_lost);
 *  - trace_detach_all() detaches the threads held in a stop through the
 *    same trace_detach_stopped(), the signal passed on, a gone one counted
 *    as exited (test_detach_all_stopped);
 *  - a SIGTRAP with no cause at one of the thread's breakpoint counters is
 *    dropped and counted, every other SIGTRAP passed on: another code, an
 *    address with no counter, an ICEBP of the program's just before it, a
 *    thread with no counters (test_dispatch_stray_trap).  Whether a
 *    counter sits at the address is perf/probe.c's to say, on a real
 *    thread's counters: the link wraps probe_thread_bp_at() (Makefile.am,
 *    --wrap), and the fake answers for one address.
 *
 * Mutations each test was seen to fail against (then restored):
 *  - test_decode: is_stop_signal() without SIGTTOU; PTRACE_EVENT_VFORK
 *    decoded as another event;
 *  - test_dispatch_group_stop: a group-stop restarted with PTRACE_CONT;
 *    no pause_cancel at a group-stop;
 *  - test_dispatch_interrupt: pause_stop asked without TCB_PAUSE_PENDING;
 *  - test_dispatch_exit: the exit's drain left out;
 *  - test_dispatch_clone: on_new_child() without the thread_new hook that
 *    names the parent;
 *  - test_dispatch_detach_lost: trace_detach_stopped() dropping a thread whose
 *    PTRACE_DETACH failed with ESRCH, as it did before (the thread stayed
 *    traced, held its process unreaped, and causaltop waited forever);
 *  - test_detach_all_stopped: detach.c passing 0 instead of the held
 *    signal; a gone thread counted as detached;
 *  - test_dispatch_stray_trap: the si_code test left out; the ICEBP test
 *    left out; the address test left out.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "app/session.h"
#include "perf/drain.h"
#include "perf/probe.h"
#include "perf/progress.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "ptrace/trace_event.h"
#include "unit.h"

#define MS 1000000ULL
#define T0 5000000		/* fake tids: above PID_MAX_LIMIT */
#define TGID (T0 - 1)

#define STOPPED(sig, event) (((event) << 16) | ((sig) << 8) | 0x7f)
#define EXITED(code) ((code) << 8)

static struct session S;
static uint64_t fake_now;

/* The kernel's side, recorded. */
static struct call {
	int req;
	pid_t tid;
	long data;
} calls[32];
static size_t ncalls;
static unsigned long eventmsg;		/* PTRACE_GETEVENTMSG's answer */
static bool detach_esrch;		/* PTRACE_DETACH fails with ESRCH */
static char thread_state;		/* /proc/TID/stat's state; 0: gone */
static siginfo_t siginfo;		/* PTRACE_GETSIGINFO's answer */
static long peek_word;			/* PTRACE_PEEKTEXT's answer */
static struct drain {
	const struct sampler_ring *only;
	enum drain_why why;
} drains[8];
static size_t ndrains;

static uint64_t
f_now(void)
{
	return fake_now;
}

static long
f_ptrace(int req, pid_t tid, void *addr, void *data)
{
	if (ncalls < sizeof(calls) / sizeof(calls[0]))
		calls[ncalls++] = (struct call) {
			req, tid, req == PTRACE_GETEVENTMSG ? 0 : (long) data,
		};
	if (req == PTRACE_GETEVENTMSG)
		*(unsigned long *) data = eventmsg;
	if (req == PTRACE_GETSIGINFO)
		*(siginfo_t *) data = siginfo;
	if (req == PTRACE_PEEKTEXT) {
		errno = 0;
		return peek_word;
	}
	if (req == PTRACE_DETACH && detach_esrch) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

static char
f_state(struct tcb *t)
{
	(void) t;
	return thread_state;
}

static void
f_drain(struct session *s, struct sampler_ring *only, enum drain_why why)
{
	if (ndrains < sizeof(drains) / sizeof(drains[0]))
		drains[ndrains++] = (struct drain) { only, why };
}

static const struct trace_sys_ops fake_sys = {
	.now = f_now,
	.ptrace = f_ptrace,
	.drain = f_drain,
	.state = f_state,
};

/* The engine's side, recorded. */
enum hook { H_NEW, H_GONE, H_EXIT_STOP, H_PAUSE_STOP, H_PAUSE_CANCEL };
static struct hook_call {
	enum hook h;
	pid_t tid;
	pid_t parent;
	uint64_t now;
} hooks[32];
static size_t nhooks;
static bool hold_exit, hold_pause;	/* what exit_stop and pause_stop answer */
static int ctx_cookie;

static void
record(void *ctx, enum hook h, const struct tcb *t, const struct tcb *parent, uint64_t now)
{
	CHECK(ctx == &ctx_cookie, "hook %d with another context", (int) h);
	if (nhooks < sizeof(hooks) / sizeof(hooks[0]))
		hooks[nhooks++] = (struct hook_call) { h, t->tid, parent ? parent->tid : 0, now };
}

static void
h_new(void *ctx, struct tcb *t, struct tcb *parent)
{
	record(ctx, H_NEW, t, parent, 0);
}

static void
h_gone(void *ctx, struct tcb *t)
{
	record(ctx, H_GONE, t, NULL, 0);
}

static bool
h_exit_stop(void *ctx, struct tcb *t, uint64_t now)
{
	record(ctx, H_EXIT_STOP, t, NULL, now);
	return hold_exit;
}

static bool
h_pause_stop(void *ctx, struct tcb *t, uint64_t now)
{
	record(ctx, H_PAUSE_STOP, t, NULL, now);
	t->flags &= ~TCB_PAUSE_PENDING;		/* as pause_on_stop */
	if (hold_pause)
		t->flags |= TCB_PAUSED;
	return hold_pause;
}

static void
h_pause_cancel(void *ctx, struct tcb *t)
{
	record(ctx, H_PAUSE_CANCEL, t, NULL, 0);
	t->flags &= ~TCB_PAUSE_PENDING;		/* as pause_forget */
}

static const struct trace_ops fake_ops = {
	.thread_new = h_new,
	.thread_gone = h_gone,
	.exit_stop = h_exit_stop,
	.pause_stop = h_pause_stop,
	.pause_cancel = h_pause_cancel,
};

static struct ctproc *proc;

static void
setup(void)
{
	S = (struct session) { 0 };
	S.progress = progress_table_new();
	trace_set_sys(&S, &fake_sys);
	trace_set_ops(&S, &fake_ops, &ctx_cookie);
	proc = proc_new(TGID);
	fake_now = 7 * MS;
	ncalls = ndrains = nhooks = 0;
	hold_exit = hold_pause = false;
	detach_esrch = false;
	thread_state = 0;
}

static void
teardown(void)
{
	while (tcb_first())
		tcb_free(tcb_first());
	while (proc_first())
		proc_free(proc_first());
	progress_table_free(S.progress);
}

/* A traced thread of proc, past its first stop, running. */
static struct tcb *
thread(pid_t tid)
{
	struct tcb *t = tcb_new(tid, proc);

	t->flags = 0;
	return t;
}

/* Both steps, as trace_handle_status(). */
static enum trace_event
handle(pid_t tid, int status)
{
	struct trace_stop ev;
	enum trace_event te = next_event(&S, tid, status, &ev);

	dispatch_event(&S, &ev);
	return te;
}

static bool
called(size_t i, int req, pid_t tid, long data)
{
	return i < ncalls && calls[i].req == req && calls[i].tid == tid && calls[i].data == data;
}

static void
test_decode(void)
{
	static const struct {
		int status;
		enum trace_event te;
		int sig, event;
	} cases[] = {
		{ EXITED(3), TE_EXITED, 0, 0 },
		{ SIGKILL, TE_SIGNALLED, 0, 0 },
		{ 0xffff, TE_NEXT, 0, 0 },	/* WIFCONTINUED */
		{ STOPPED(SIGUSR1, 0), TE_SIGNAL_DELIVERY_STOP, SIGUSR1, 0 },
		{ STOPPED(SIGTRAP, 0), TE_SIGNAL_DELIVERY_STOP, SIGTRAP, 0 },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_CLONE), TE_CLONE, SIGTRAP, PTRACE_EVENT_CLONE },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_FORK), TE_CLONE, SIGTRAP, PTRACE_EVENT_FORK },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_VFORK), TE_CLONE, SIGTRAP, PTRACE_EVENT_VFORK },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_EXEC), TE_STOP_BEFORE_EXECVE, SIGTRAP,
		  PTRACE_EVENT_EXEC },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_EXIT), TE_STOP_BEFORE_EXIT, SIGTRAP,
		  PTRACE_EVENT_EXIT },
		{ STOPPED(SIGSTOP, PTRACE_EVENT_STOP), TE_GROUP_STOP, SIGSTOP, PTRACE_EVENT_STOP },
		{ STOPPED(SIGTSTP, PTRACE_EVENT_STOP), TE_GROUP_STOP, SIGTSTP, PTRACE_EVENT_STOP },
		{ STOPPED(SIGTTIN, PTRACE_EVENT_STOP), TE_GROUP_STOP, SIGTTIN, PTRACE_EVENT_STOP },
		{ STOPPED(SIGTTOU, PTRACE_EVENT_STOP), TE_GROUP_STOP, SIGTTOU, PTRACE_EVENT_STOP },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_STOP), TE_INTERRUPT_STOP, SIGTRAP,
		  PTRACE_EVENT_STOP },
		{ STOPPED(SIGTRAP, PTRACE_EVENT_SECCOMP), TE_OTHER_STOP, SIGTRAP,
		  PTRACE_EVENT_SECCOMP },
	};
	struct trace_stop ev;
	struct tcb *t;

	setup();
	t = thread(T0 + 1);
	eventmsg = T0 + 1;		/* an exec by the thread itself */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum trace_event te = next_event(&S, T0 + 1, cases[i].status, &ev);

		CHECK(te == cases[i].te && ev.te == te, "status %#x: event %d, want %d",
		      cases[i].status, (int) te, (int) cases[i].te);
		CHECK(ev.tid == T0 + 1 && ev.status == cases[i].status &&
		      ev.t == (te == TE_NEXT ? NULL : t),
		      "status %#x: tid %d, tcb %p", cases[i].status, (int) ev.tid, (void *) ev.t);
		CHECK(te < TE_CLONE || (ev.sig == cases[i].sig && ev.event == cases[i].event),
		      "status %#x: sig %d event %d", cases[i].status, ev.sig, ev.event);
	}
	/* A new thread's first stop: not an interrupt's. */
	t->flags |= TCB_STARTUP;
	CHECK(next_event(&S, T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_STOP), &ev) == TE_STARTUP_STOP,
	      "first stop: %d", (int) ev.te);
	CHECK(next_event(&S, T0 + 1, STOPPED(SIGSTOP, PTRACE_EVENT_STOP), &ev) == TE_GROUP_STOP,
	      "a group-stop at the first stop: %d", (int) ev.te);
	/* The death of a tid never traced: no tcb, nothing else to do. */
	CHECK(next_event(&S, T0 + 8, EXITED(0), &ev) == TE_EXITED && !ev.t && !tcb_lookup(T0 + 8),
	      "an untraced tid's death");
	dispatch_event(&S, &ev);
	CHECK(nhooks == 0 && ncalls == 1 && calls[0].req == PTRACE_GETEVENTMSG,
	      "%zu hooks, %zu ptrace calls for decoding only", nhooks, ncalls);
	teardown();
}

/*
 * A stop of a tid not seen yet (its first stop overtook its parent's
 * clone event): a tcb on the spot, its accounting started (no parent
 * known).  Its process, not followed (no -f), is detached at this first
 * stop, and its tcb dropped.
 */
static void
test_adopt(void)
{
	struct trace_stop ev;
	struct tcb *t;

	setup();
	CHECK(next_event(&S, T0 + 9, STOPPED(SIGTRAP, PTRACE_EVENT_STOP), &ev) == TE_STARTUP_STOP,
	      "unknown tid's first stop: %d", (int) ev.te);
	t = tcb_lookup(T0 + 9);
	CHECK(t && ev.t == t && (t->flags & TCB_DETACH_NEXT) && t->proc->tgid == T0 + 9 &&
	      !t->proc->started, "adopted: flags %#x", t ? t->flags : 0);
	CHECK(nhooks == 1 && hooks[0].h == H_NEW && hooks[0].tid == T0 + 9 && !hooks[0].parent,
	      "thread_new hook: %zu", nhooks);
	dispatch_event(&S, &ev);
	CHECK(ncalls == 1 && called(0, PTRACE_DETACH, T0 + 9, 0) && !tcb_lookup(T0 + 9),
	      "not followed: detached at its first stop (%zu calls)", ncalls);
	CHECK(nhooks == 2 && hooks[1].h == H_GONE && hooks[1].tid == T0 + 9, "thread_gone hook");
	teardown();
}

/*
 * A thread other than the leader exec'ed: the event comes with the
 * leader's tid, and PTRACE_GETEVENTMSG gives the execing thread's old tid.
 * The old leader is gone without an exit report; the execing thread's
 * tcb takes the leader's tid.
 */
static void
test_exec_switch(void)
{
	struct trace_stop ev;
	struct tcb *leader, *execer;

	setup();
	leader = tcb_new(TGID, proc);
	leader->flags = 0;
	execer = thread(T0 + 2);
	eventmsg = T0 + 2;
	CHECK(next_event(&S, TGID, STOPPED(SIGTRAP, PTRACE_EVENT_EXEC), &ev) ==
	      TE_STOP_BEFORE_EXECVE, "exec: %d", (int) ev.te);
	CHECK(ev.t == execer && execer->tid == TGID && tcb_lookup(TGID) == execer &&
	      !tcb_lookup(T0 + 2), "tcbs not switched: tid %d", (int) execer->tid);
	CHECK(nhooks == 1 && hooks[0].h == H_GONE && hooks[0].tid == TGID && S.threads.exited == 1,
	      "the old leader dropped: %zu hooks", nhooks);
	CHECK(proc->nthreads == 1, "process threads %u", proc->nthreads);
	teardown();
}

/* A signal on its way: restarted with it, unchanged. */
static void
test_dispatch_signal(void)
{
	struct tcb *t;

	setup();
	t = thread(T0 + 1);
	t->flags |= TCB_STARTUP;
	CHECK(handle(T0 + 1, STOPPED(SIGUSR1, 0)) == TE_SIGNAL_DELIVERY_STOP, "decoded");
	CHECK(ncalls == 1 && called(0, PTRACE_CONT, T0 + 1, SIGUSR1),
	      "PTRACE_CONT with SIGUSR1: %zu calls, req %d data %ld", ncalls, calls[0].req,
	      calls[0].data);
	CHECK(!(t->flags & (TCB_STOPPED | TCB_STARTUP)) && nhooks == 0, "flags %#x", t->flags);
	teardown();
}

/*
 * A group-stop: a pause pending is moot (pause_cancel); restarted with
 * PTRACE_LISTEN, so it stays stopped as if untraced; SIGCONT's stop ends
 * it (PTRACE_CONT).  Marked for detaching, it is detached in the
 * group-stop (and stays stopped).
 */
static void
test_dispatch_group_stop(void)
{
	struct tcb *t, *u;

	setup();
	t = thread(T0 + 1);
	u = thread(T0 + 2);
	t->flags |= TCB_PAUSE_PENDING;
	handle(T0 + 1, STOPPED(SIGTSTP, PTRACE_EVENT_STOP));
	CHECK(nhooks == 1 && hooks[0].h == H_PAUSE_CANCEL && hooks[0].tid == T0 + 1,
	      "pause_cancel: %zu hooks", nhooks);
	CHECK(ncalls == 1 && called(0, PTRACE_LISTEN, T0 + 1, 0), "PTRACE_LISTEN: req %d",
	      calls[0].req);
	CHECK((t->flags & TCB_GROUP_STOP) && !(t->flags & TCB_STOPPED), "flags %#x", t->flags);
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));	/* SIGCONT */
	CHECK(ncalls == 2 && called(1, PTRACE_CONT, T0 + 1, 0) && !(t->flags & TCB_GROUP_STOP) &&
	      nhooks == 1, "end of the group-stop: req %d, flags %#x", calls[1].req, t->flags);
	u->flags |= TCB_DETACH_NEXT;
	handle(T0 + 2, STOPPED(SIGSTOP, PTRACE_EVENT_STOP));
	CHECK(ncalls == 3 && called(2, PTRACE_DETACH, T0 + 2, 0) && !tcb_lookup(T0 + 2),
	      "detached in group-stop: req %d", calls[2].req);
	teardown();
}

/*
 * The interrupt stop a pause asked for: the engine holds the thread there
 * (no restart) or lets it go (PTRACE_CONT, no signal); a thread with no
 * pause pending is not the engine's business; one marked for detaching
 * is detached, its pause not asked about.
 */
static void
test_dispatch_interrupt(void)
{
	struct tcb *t, *u;

	setup();
	t = thread(T0 + 1);
	u = thread(T0 + 2);
	t->flags |= TCB_PAUSE_PENDING;
	hold_pause = true;
	fake_now = 9 * MS;
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	CHECK(nhooks == 1 && hooks[0].h == H_PAUSE_STOP && hooks[0].now == 9 * MS,
	      "pause_stop at 9 ms: %zu hooks", nhooks);
	CHECK(ncalls == 0 && (t->flags & TCB_STOPPED), "held: %zu calls, flags %#x", ncalls,
	      t->flags);
	hold_pause = false;
	t->flags = TCB_PAUSE_PENDING;
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	CHECK(nhooks == 2 && ncalls == 1 && called(0, PTRACE_CONT, T0 + 1, 0),
	      "not held: restarted");
	handle(T0 + 2, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	CHECK(nhooks == 2 && ncalls == 2 && called(1, PTRACE_CONT, T0 + 2, 0),
	      "no pause pending: pause_stop asked");
	u->flags |= TCB_PAUSE_PENDING | TCB_DETACH_NEXT;
	handle(T0 + 2, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	CHECK(nhooks == 3 && hooks[2].h == H_GONE && ncalls == 3 &&
	      called(2, PTRACE_DETACH, T0 + 2, 0), "detaching: hooks %zu, req %d", nhooks,
	      calls[2].req);
	teardown();
}

/*
 * The exit event: marked exiting, its ring read while its mappings exist,
 * then the engine's exit_stop (what it owes paid there): held, or
 * restarted; without the engine, restarted.
 */
static void
test_dispatch_exit(void)
{
	struct tcb *t;

	setup();
	t = thread(T0 + 1);
	hold_exit = true;
	fake_now = 11 * MS;
	CHECK(handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_EXIT)) == TE_STOP_BEFORE_EXIT, "decoded");
	CHECK(t->flags & TCB_EXITING, "not marked exiting");
	CHECK(ndrains == 1 && drains[0].why == DRAIN_EXIT && drains[0].only == t->ring,
	      "%zu drains", ndrains);
	CHECK(nhooks == 1 && hooks[0].h == H_EXIT_STOP && hooks[0].now == 11 * MS && ncalls == 0,
	      "held at its exit: %zu hooks, %zu calls", nhooks, ncalls);
	hold_exit = false;
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_EXIT));
	CHECK(nhooks == 2 && ncalls == 1 && called(0, PTRACE_CONT, T0 + 1, 0), "not held: restarted");
	trace_set_ops(&S, NULL, NULL);
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_EXIT));
	CHECK(nhooks == 2 && ncalls == 2 && called(1, PTRACE_CONT, T0 + 1, 0),
	      "no engine: restarted");
	teardown();
}

static sem_t child_go;

static void *
child_main(void *arg)
{
	*(pid_t *) arg = (pid_t) syscall(SYS_gettid);
	sem_wait(&child_go);
	return NULL;
}

/*
 * A clone event: the child (a thread of this process: its /proc entry
 * names the process) gets a tcb, its accounting first started, then taken
 * from its parent; the parent is restarted with no signal.  A child whose
 * first stop came first is known already: nothing more.
 */
static void
test_dispatch_clone(void)
{
	struct tcb *parent, *child;
	pthread_t th;
	volatile pid_t ctid = 0;

	setup();
	proc_free(proc);
	proc = proc_new(getpid());
	parent = thread(getpid());
	CHECK(parent && tcb_count() == 1, "the parent's tcb");
	sem_init(&child_go, 0, 0);
	pthread_create(&th, NULL, child_main, (void *) &ctid);
	while (!ctid)
		sched_yield();
	eventmsg = (unsigned long) ctid;
	CHECK(handle(getpid(), STOPPED(SIGTRAP, PTRACE_EVENT_CLONE)) == TE_CLONE, "decoded");
	child = tcb_lookup(ctid);
	CHECK(child && child->proc == proc && (child->flags & TCB_STARTUP) &&
	      !(child->flags & TCB_DETACH_NEXT), "child tcb: flags %#x", child ? child->flags : 0);
	CHECK(nhooks == 2 && hooks[0].h == H_NEW && hooks[0].tid == ctid && !hooks[0].parent &&
	      hooks[1].h == H_NEW && hooks[1].tid == ctid && hooks[1].parent == getpid(),
	      "thread_new hooks: %zu", nhooks);
	CHECK(ncalls == 2 && calls[0].req == PTRACE_GETEVENTMSG &&
	      called(1, PTRACE_CONT, getpid(), 0), "parent restarted: %zu calls", ncalls);
	handle(getpid(), STOPPED(SIGTRAP, PTRACE_EVENT_CLONE));
	CHECK(nhooks == 2 && tcb_count() == 2, "a known child added again");
	sem_post(&child_go);
	pthread_join(th, NULL);
	sem_destroy(&child_go);
	teardown();
}

/* Deaths: the launched command's status is kept; the tcb goes. */
static void
test_dispatch_death(void)
{
	setup();
	thread(T0 + 1);
	thread(T0 + 2);
	S.launched = T0 + 1;
	CHECK(handle(T0 + 1, EXITED(3)) == TE_EXITED, "decoded");
	CHECK(S.launched_done && WIFEXITED(S.launched_status) &&
	      WEXITSTATUS(S.launched_status) == 3, "launched status %#x", S.launched_status);
	CHECK(!tcb_lookup(T0 + 1) && nhooks == 1 && hooks[0].h == H_GONE && S.threads.exited == 1,
	      "exited thread dropped");
	CHECK(handle(T0 + 2, SIGKILL) == TE_SIGNALLED && !tcb_lookup(T0 + 2) && nhooks == 2 &&
	      S.threads.exited == 2 && ncalls == 0, "killed thread dropped");
	CHECK(!proc_first(), "the process outlived its threads");
	teardown();
}


/*
 * A detach that fails with ESRCH: a SIGKILL (a group exit) took the
 * thread out of its stop.  Still running, it is kept and detached at its
 * next stop (its exit event); gone, it is dropped at once.
 */
static void
test_dispatch_detach_lost(void)
{
	struct tcb *t;

	setup();
	S.detaching = true;
	t = thread(T0 + 1);
	thread(T0 + 2);
	t->flags |= TCB_DETACH_NEXT;
	detach_esrch = true;
	thread_state = 'R';
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	CHECK(ncalls == 1 && called(0, PTRACE_DETACH, T0 + 1, 0), "detach tried: req %d",
	      calls[0].req);
	CHECK(tcb_lookup(T0 + 1) == t && (t->flags & TCB_DETACH_NEXT) && !(t->flags & TCB_STOPPED),
	      "still running: kept to be detached, flags %#x", t->flags);
	CHECK(S.threads.detached == 0 && nhooks == 0, "not counted, not gone: %" PRIu64
	      ", %zu hooks", S.threads.detached, nhooks);
	detach_esrch = false;
	handle(T0 + 1, STOPPED(SIGTRAP, PTRACE_EVENT_EXIT));
	CHECK(ncalls == 2 && called(1, PTRACE_DETACH, T0 + 1, 0) && !tcb_lookup(T0 + 1) &&
	      S.threads.detached == 1, "detached at its exit event: req %d", calls[1].req);
	detach_esrch = true;
	thread_state = 'Z';
	tcb_lookup(T0 + 2)->flags |= TCB_DETACH_NEXT;
	handle(T0 + 2, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	CHECK(!tcb_lookup(T0 + 2), "a zombie is dropped");
	teardown();
}

/*
 * trace_detach_all() lets each thread held in a stop go through the same
 * detach as a stop's (trace_detach_stopped), passing on the signal it was
 * held with; a thread a SIGKILL took out of its stop and gone since is
 * counted as exited, not detached (one that still runs is kept:
 * test_dispatch_detach_lost).
 */
static void
test_detach_all_stopped(void)
{
	struct tcb *t;

	setup();
	t = thread(T0 + 1);
	t->flags |= TCB_STOPPED;
	t->stop_sig = SIGUSR1;
	t = thread(T0 + 2);
	t->flags |= TCB_STOPPED;
	trace_detach_all(&S);
	/* In the order of the thread list, whichever that is. */
	CHECK(ncalls == 2 && ((called(0, PTRACE_DETACH, T0 + 1, SIGUSR1) &&
			       called(1, PTRACE_DETACH, T0 + 2, 0)) ||
			      (called(0, PTRACE_DETACH, T0 + 2, 0) &&
			       called(1, PTRACE_DETACH, T0 + 1, SIGUSR1))),
	      "both detached, the signal passed on: %zu calls, data %ld, %ld", ncalls,
	      calls[0].data, calls[1].data);
	CHECK(S.threads.detached == 2 && S.threads.exited == 0 && !tcb_first(),
	      "counted detached: %" PRIu64, S.threads.detached);
	teardown();

	setup();
	t = thread(T0 + 1);
	t->flags |= TCB_STOPPED;
	detach_esrch = true;
	thread_state = 'Z';
	trace_detach_all(&S);
	CHECK(ncalls == 1 && called(0, PTRACE_DETACH, T0 + 1, 0) && !tcb_first() &&
	      S.threads.exited == 1 && S.threads.detached == 0,
	      "gone: counted exited (%" PRIu64 "), not detached (%" PRIu64 ")",
	      S.threads.exited, S.threads.detached);
	teardown();
}

/* The counters of one thread, faked: a breakpoint at BP_ADDR only. */
#define BP_ADDR 0x401000UL
static int fake_counters;

bool __wrap_probe_thread_bp_at(const struct probe_thread *thread, uint64_t addr);

bool
__wrap_probe_thread_bp_at(const struct probe_thread *thread, uint64_t addr)
{
	return thread == (const struct probe_thread *) &fake_counters && addr == BP_ADDR;
}

/* A SIGTRAP stop of T0 + 1 with this siginfo; the signal it goes on with. */
static long
trap(int code, uintptr_t addr, long word, bool counters)
{
	struct tcb *t;
	long sig = -1;

	setup();
	t = thread(T0 + 1);
	t->probe = counters ? (struct probe_thread *) &fake_counters : NULL;
	siginfo = (siginfo_t) { .si_signo = SIGTRAP, .si_code = code };
	siginfo.si_addr = (void *) addr;
	peek_word = word;
	handle(T0 + 1, STOPPED(SIGTRAP, 0));
	if (ncalls && calls[ncalls - 1].req == PTRACE_CONT && calls[ncalls - 1].tid == T0 + 1)
		sig = calls[ncalls - 1].data;
	t->probe = NULL;
	return sig;
}

/*
 * The debug exceptions a KVM guest raised with no cause at our
 * breakpoints (trace.c, stray_trap) are dropped, and only they: the
 * thread resumes at the breakpoint, which then fires and counts.
 */
static void
test_dispatch_stray_trap(void)
{
	/* Every other SIGTRAP: calls, when not 0, the ptrace calls it takes. */
	static const struct {
		int code;
		uintptr_t addr;
		long word;
		bool counters;
		size_t calls;
		const char *what;
	} passed[] = {
		{ TRAP_BRKPT, BP_ADDR, 0xf1, true, 0, "an ICEBP just before it, the program's" },
		{ TRAP_BRKPT, BP_ADDR + 1, 0x90, true, 0, "no counter at the address" },
		{ SI_USER, BP_ADDR, 0x90, true, 0, "sent by kill()" },
		{ TRAP_BRKPT, BP_ADDR, 0x90, false, 1,
		  "a thread with no counters (siginfo not read)" },
	};
	long sig;

	sig = trap(TRAP_BRKPT, BP_ADDR, 0x90L, true);
	CHECK(sig == 0 && S.threads.stray_traps == 1,
	      "no cause, at a counter: dropped (signal %ld), counted (%" PRIu64 ")", sig,
	      S.threads.stray_traps);
	CHECK(ncalls == 3 && calls[0].req == PTRACE_GETSIGINFO &&
	      calls[1].req == PTRACE_PEEKTEXT && calls[1].tid == T0 + 1,
	      "the siginfo, then the byte before: %zu calls", ncalls);
	teardown();

	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		sig = trap(passed[i].code, passed[i].addr, passed[i].word, passed[i].counters);
		CHECK(sig == SIGTRAP && S.threads.stray_traps == 0 &&
		      (!passed[i].calls || ncalls == passed[i].calls),
		      "%s: passed on (signal %ld, %zu calls)", passed[i].what, sig, ncalls);
		teardown();
	}
}

int
main(void)
{
	test_decode();
	test_adopt();
	test_exec_switch();
	test_dispatch_signal();
	test_dispatch_group_stop();
	test_dispatch_interrupt();
	test_dispatch_exit();
	test_dispatch_clone();
	test_dispatch_death();
	test_dispatch_detach_lost();
	test_detach_all_stopped();
	test_dispatch_stray_trap();
	thread_stats_free_all();
	if (!failures)
		printf("unit-trace: all checks passed\n");
	return failures ? 1 : 0;
}
