/*
 * Every wait status of the target, in strace's two steps: next_event()
 * decodes it into the vocabulary of trace_event.h (and finds the thread's
 * tcb, allocating one for a thread not seen yet, switching tcbs at an
 * exec), dispatch_event() acts on it and restarts the thread the way that
 * keeps the target's behaviour intact:
 *  - signal-delivery-stop: re-inject the signal;
 *  - group-stop: PTRACE_LISTEN, which ends the ptrace-stop but not the
 *    group-stop, so kill -STOP / -CONT behave as if untraced;
 *  - clone/fork/vfork/exec/exit events and interrupt stops: continue.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <inttypes.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "perf/drain.h"
#include "perf/probe.h"
#include "perf/progress.h"
#include "perf/sampler.h"
#include "ptrace/patch.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "ptrace/trace_event.h"
#include "ptrace/tracelog.h"
#include "ptrace/waitsite.h"
#include "sym/symbolizer.h"
#include "sym/unwind.h"

const char *
signame(int sig)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, sizeof(buf), "SIGRT_%d", sig - SIGRTMIN);
	else
		snprintf(buf, sizeof(buf), "%d", sig);
	return buf;
}

void
trace_set_ops(struct session *s, const struct trace_ops *ops, void *ctx)
{
	s->trace_ops = ops;
	s->trace_ctx = ctx;
}

void
trace_set_sys(struct session *s, const struct trace_sys_ops *sys)
{
	s->trace_sys = sys;
}

static long
sys_ptrace(struct session *s, int request, pid_t tid, void *addr, void *data)
{
	return s->trace_sys->ptrace(request, tid, addr, data);
}

/* ESRCH is never fatal: the thread may have died under us. */
static void
restart(struct session *s, struct tcb *t, int op, int sig)
{
	t->flags &= ~TCB_STOPPED;
	if (sys_ptrace(s, op, t->tid, NULL, (void *) (long) sig) < 0 && errno != ESRCH)
		perror_msg("ptrace(%s, %d)", op == PTRACE_LISTEN ? "LISTEN" : "CONT",
			   (int) t->tid);
}

static void
open_ring(struct session *s, struct tcb *t)
{
	int err;

	if (t->ring || !t->proc->started)
		return;
	err = sampler_thread_open(s->smp, t->tid, t, &t->ring);
	if (!err) {
		s->ring_opened = true;
		return;
	}
	if (err == -ESRCH)
		return;
	/* The first refusal is about permission: nothing can be sampled. */
	if (!s->ring_opened && (err == -EACCES || err == -EPERM))
		error_msg_and_die(CT_EXIT_PERF, "cannot sample the target's threads");
	/* Later ones (EMFILE, ENOMEM) cost this thread's samples only. */
	error_msg("thread %d will not be sampled%s", (int) t->tid,
		  err == -EMFILE ? " (out of file descriptors: try --sampler=cpu)" : "");
}

/*
 * Whose /proc entry shows the process's maps, fds and exe: the leader's,
 * unless it has left with pthread_exit() and is a zombie, whose entries
 * are empty; then any live thread's.
 */
static pid_t
proc_query_pid(struct ctproc *p)
{
	if (procfs_state(p->tgid) != 'Z')
		return p->tgid;
	for (struct tcb *t = tcb_first(); t; t = t->next)
		if (t->proc == p && !(t->flags & TCB_EXITING) && t->tid != p->tgid)
			return t->tid;
	return p->tgid;
}

void
trace_proc_image(struct session *s, struct ctproc *p)
{
	/* The first image of the first process names the profile. */
	if (!s->exe && p->started) {
		char path[64], buf[4096];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/exe", (int) proc_query_pid(p));
		if ((n = readlink(path, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = 0;
			s->exe = xstrdup(buf);
		}
	}
	/* Samples taken on the old image are symbolized against it. */
	s->trace_sys->drain(s, NULL, DRAIN_IMAGE);
	wait_sites_forget_proc(p);
	unwind_free(p->unw);
	sym_proc_free(p->sym);
	p->sym = sym_proc_new(proc_query_pid(p), s->lines, s->scope);
	p->unw = p->sym ? unwind_new(p->sym, proc_query_pid(p)) : NULL;
	/* The old image's page went with its close-on-exec fd. */
	progress_page_close(s->progress, p->page);
	p->page = NULL;
	p->page_scan_ns = 0;
}

void
trace_progress_poll(struct session *s, struct ctproc *p, uint64_t now)
{
	if (!p->started)
		return;
	/* Looking through /proc/PID/fd costs more than a poll: not every tick. */
	if (!p->page && (!now || now >= p->page_scan_ns)) {
		p->page = progress_page_find(proc_query_pid(p), true, s->launched != 0);
		p->page_scan_ns = now + 100000000ULL;
	}
	progress_page_poll(s->progress, p->page);
}

/*
 * p is counted from now: the session's set for the first process (whose
 * specs must be found), a copy for any other (-p A,B, a child of one,
 * with -f a fork), its counts summed with the others' per point.
 */
void
trace_probe_proc(struct session *s, struct ctproc *p)
{
	if (!s->probes || p->probes)
		return;
	if (!s->probes_pid) {
		s->probes_pid = p->tgid;
		p->probes = s->probes;
		return;
	}
	p->probes = probe_set_clone(s->probes);
	s->probe_sets = xrealloc(s->probe_sets, (s->nprobe_sets + 1) * sizeof(*s->probe_sets));
	s->probe_sets[s->nprobe_sets++] = p->probes;
}

/* --progress counters on a thread of a process counted. */
void
trace_probe_open(struct session *s, struct tcb *t)
{
	(void) s;
	if (!t->proc->probes || t->probe)
		return;
	probe_thread_open(t->proc->probes, t->tid, &t->probe);
}

static void
probe_close(struct session *s, struct tcb *t)
{
	(void) s;
	if (t->probe)
		probe_thread_close(t->proc->probes, t->probe);
	t->probe = NULL;
}

/*
 * A spec that cannot be counted, found before the launched command did
 * any work (at its exec, or at its entry point): it is killed there, not
 * left to run unprofiled once detached.
 */
static void __attribute__((noreturn))
spec_error(struct session *s, struct tcb *t, const char *where)
{
	if (s->launched && s->launched == t->proc->tgid)
		kill(s->launched, SIGKILL);
	error_msg_and_die(CT_EXIT_SPEC, "cannot count the --progress/--latency locations%s",
			  where);
}

/*
 * Specs still pending at an exec wait for the program's start-up
 * libraries, which the dynamic linker maps before it jumps to the
 * program's entry point (AT_ENTRY): an int3 there stops the program
 * before it does any work of its own, where a spec found nowhere is an
 * error (entry_bp_hit).  x86-64 only; elsewhere they are reported at the
 * end, as before.  Never left behind: taken out when hit, at a new exec
 * (gone with the image) and at a detach (entry_bp_forget).
 */
static void
entry_bp_plant(struct session *s, struct tcb *t)
{
#ifdef __x86_64__
	uint64_t entry;
	long word;

	s->entry_bp.addr = 0;
	if (!procfs_auxv(t->proc->tgid, AT_ENTRY, &entry) || !entry)
		return;
	errno = 0;
	word = sys_ptrace(s, PTRACE_PEEKTEXT, t->tid, (void *) (uintptr_t) entry, NULL);
	if (errno || sys_ptrace(s, PTRACE_POKETEXT, t->tid, (void *) (uintptr_t) entry,
				(void *) ((word & ~0xffL) | 0xcc)) < 0) {
		debug_msg("trace: %d: no int3 at the entry %#" PRIx64 ": %s", (int) t->tid, entry,
			  strerror(errno));
		return;
	}
	s->entry_bp.addr = entry;
	s->entry_bp.word = word;
	s->entry_bp.tid = t->tid;
#else
	(void) s;
	(void) t;
#endif
}

void
trace_entry_bp_forget(struct session *s, struct tcb *t)
{
	if (!s->entry_bp.addr || t->proc->tgid != s->probes_pid)
		return;
	if (sys_ptrace(s, PTRACE_POKETEXT, t->tid, (void *) (uintptr_t) s->entry_bp.addr,
		       (void *) s->entry_bp.word) < 0 && errno != ESRCH)
		perror_msg("ptrace(POKETEXT, %d): the entry point's int3 stays", (int) t->tid);
	s->entry_bp.addr = 0;
}

/*
 * Is t just past the entry's int3 (its SIGTRAP)?  Then the text is put
 * back and the thread rewound to the entry, as if it had never been.
 */
static bool
entry_bp_rewind(struct session *s, struct tcb *t)
{
#ifdef __x86_64__
	struct user_regs_struct r;

	if (!s->entry_bp.addr || t->tid != s->entry_bp.tid ||
	    sys_ptrace(s, PTRACE_GETREGS, t->tid, NULL, &r) < 0 || r.rip != s->entry_bp.addr + 1)
		return false;
	trace_entry_bp_forget(s, t);
	r.rip--;
	if (sys_ptrace(s, PTRACE_SETREGS, t->tid, NULL, &r) < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "ptrace(SETREGS, %d)", (int) t->tid);
	return true;
#else
	(void) s;
	(void) t;
	return false;
#endif
}

/*
 * The SIGTRAP of the entry's int3?  Then, rewound, every spec must be
 * found, or a DSO:... wait for a dlopen: otherwise the command is killed
 * there, before its work, and causaltop exits with CT_EXIT_SPEC.
 */
static bool
entry_bp_hit(struct session *s, struct tcb *t)
{
	if (!entry_bp_rewind(s, t))
		return false;
	if (probe_resolve(t->proc->probes, s->probes_pid, t->proc->sym,
			  PROBE_RESOLVE_MORE | PROBE_RESOLVE_STARTED) < 0)
		spec_error(s, t, ": the command was stopped at its entry point (a library "
			   "it loads later with dlopen is named as DSO:FUNCTION)");
	return true;
}

/*
 * The image of a process counted changed (the launched command's first
 * exec, or a later one, or a followed child's): find the locations
 * again.  Libraries are not mapped yet at an exec: their probes stay
 * pending until the mappings appear (PERF_RECORD_MMAP2, then
 * trace_probe_more), and in the first process until the entry point at
 * the latest (entry_bp_plant).  Another process (a child running some
 * other program) need not have them at all.
 */
static void
probe_image(struct session *s, struct tcb *t)
{
	struct ctproc *p = t->proc;
	bool first;
	int rc;

	if (p->tgid == s->launched && !s->probes_pid)
		trace_probe_proc(s, p);
	if (!p->probes)
		return;
	first = p->tgid == s->probes_pid;
	rc = probe_resolve(p->probes, p->tgid, p->sym, PROBE_RESOLVE_QUIET);
	if (rc < 0 && first)
		spec_error(s, t, "");
	probe_close(s, t);
	trace_probe_open(s, t);
	if (!first)
		return;
	if (rc > 0)
		entry_bp_plant(s, t);
	else
		s->entry_bp.addr = 0;
}

/*
 * Libraries mapped (dlopen): the pending specs are looked for again,
 * with the process frozen so that those found can be patched in.
 */
void
trace_probe_more(struct session *s)
{
	for (struct ctproc *p = proc_first(); p; p = p->next) {
		bool frozen;

		if (!p->probes || !p->probes_mapped)
			continue;
		p->probes_mapped = false;
		frozen = probe_pending(p->probes) && patch_freeze(s, p);
		probe_resolve(p->probes, p->tgid, p->sym, PROBE_RESOLVE_MORE | PROBE_RESOLVE_QUIET);
		if (frozen)
			patch_thaw(s, p);
	}
}

struct tcb *
trace_new_thread(struct session *s, pid_t tid, struct ctproc *proc)
{
	struct tcb *t = tcb_new(tid, proc);

	s->threads.traced++;
	if (s->detaching)
		t->flags |= TCB_DETACH_NEXT;
	procfs_comm(tid, t->stats->comm);
	if (s->trace_ops)
		s->trace_ops->thread_new(s->trace_ctx, t, NULL);
	open_ring(s, t);
	trace_probe_open(s, t);
	return t;
}

void
trace_drop_thread(struct session *s, struct tcb *t)
{
	struct ctproc *p = t->proc;

	if (s->trace_ops)
		s->trace_ops->thread_gone(s->trace_ctx, t);
	probe_close(s, t);
	if (t->ring)
		sampler_ring_close(s->smp, t->ring);
	else if (s->smp && sampler_mode(s->smp) == SAMPLER_CPU)	/* no sampler: unit-trace */
		s->trace_sys->drain(s, NULL, DRAIN_GONE);
	t->ring = NULL;
	wait_sites_forget_thread(t);
	tcb_free(t);
	if (!p->nthreads) {
		wait_sites_forget_proc(p);
		unwind_free(p->unw);
		sym_proc_free(p->sym);
		progress_page_close(s->progress, p->page);
		proc_free(p);
	}
}

/* A process we start tracing: followed (-f) or let go at its first stop. */
static struct ctproc *
new_child_proc(struct session *s, pid_t tgid)
{
	struct ctproc *p = proc_new(tgid);

	if (s->opts.follow_forks) {
		p->started = true;
		trace_proc_image(s, p);
	}
	return p;
}

static struct tcb *
new_child_thread(struct session *s, struct ctproc *p, pid_t tid)
{
	struct tcb *t = trace_new_thread(s, tid, p);

	if (!s->opts.follow_forks && p->tgid == tid && !p->started)
		t->flags |= TCB_DETACH_NEXT;
	return t;
}

/*
 * A stop from a tid we have no tcb for: a new thread whose first stop
 * overtook its parent's clone event.  Allocate it on the spot.
 */
static struct tcb *
adopt(struct session *s, pid_t tid)
{
	pid_t tgid = procfs_tgid(tid);
	struct ctproc *p;

	if (tgid <= 0)
		tgid = tid;
	p = proc_lookup(tgid);
	if (!p)
		p = new_child_proc(s, tgid);
	return new_child_thread(s, p, tid);
}

/*
 * A followed fork of a process counted is counted too, in its own set:
 * its layout is the parent's copy until it execs (probe_image).
 */
static void
fork_probes(struct session *s, struct tcb *parent, struct ctproc *p)
{
	if (!parent->proc->probes || p->probes || p == parent->proc || !s->opts.follow_forks)
		return;
	trace_probe_proc(s, p);
	patch_fork(parent->proc, p);
	probe_resolve(p->probes, p->tgid, p->sym, PROBE_RESOLVE_QUIET);
}

static void
on_new_child(struct session *s, struct tcb *parent, int event)
{
	unsigned long msg = 0;
	pid_t child, tgid;
	struct ctproc *p;

	struct tcb *t;

	if (sys_ptrace(s, PTRACE_GETEVENTMSG, parent->tid, NULL, &msg) < 0)
		return;
	child = (pid_t) msg;
	t = tcb_lookup(child);
	tgid = t ? t->proc->tgid : procfs_tgid(child);
	if (parent->proc->started)
		tracelog(parent->tid, "+++ %s %d", event == PTRACE_EVENT_CLONE &&
			 (tgid <= 0 || tgid == parent->proc->tgid) ? "clone" : "fork",
			 (int) child);
	/*
	 * Known: its first stop was handled before this event.  Gone from
	 * /proc: its first stop came first too, and it has since run, exited
	 * and been reaped; a tcb made now would wait for it forever (the
	 * 10,000-thread test hung that way, once in ~30 runs).  A child not
	 * yet reaped still has its /proc entry, zombie or not.
	 */
	if (tgid <= 0)
		return;
	if (t) {
		fork_probes(s, parent, t->proc);
		trace_probe_open(s, t);
		return;
	}
	p = proc_lookup(tgid);
	if (!p)
		p = new_child_proc(s, tgid);
	fork_probes(s, parent, p);
	t = new_child_thread(s, p, child);
	/* It starts where its parent's delay accounting is. */
	if (s->trace_ops)
		s->trace_ops->thread_new(s->trace_ctx, t, parent);
}

/*
 * PTRACE_EVENT_EXEC is reported with the thread group id.  If a
 * non-leader thread exec'ed, it has taken the leader's tid: the old
 * leader is gone without an exit report, and the execing thread's tcb is
 * found under its old tid (PTRACE_GETEVENTMSG).  strace's
 * maybe_switch_tcbs().
 */
static struct tcb *
switch_tcbs(struct session *s, pid_t tid)
{
	unsigned long old = tid;
	struct tcb *t;

	if (sys_ptrace(s, PTRACE_GETEVENTMSG, tid, NULL, &old) < 0)
		old = tid;
	if ((pid_t) old != tid) {
		struct tcb *leader = tcb_lookup(tid);
		struct tcb *execer = tcb_lookup((pid_t) old);

		if (leader) {
			tracelog(tid, "+++ superseded by execve in %d +++", (int) old);
			s->threads.exited++;
			trace_drop_thread(s, leader);
		}
		if (execer)
			tcb_rename(execer, tid);
	}
	t = tcb_lookup(tid);
	if (!t)
		t = adopt(s, tid);
	return t;
}

/* The process of t, which exec'ed, has a new image. */
static void
on_exec(struct session *s, struct tcb *t)
{
	t->proc->started = true;
	if (t->proc->tgid == s->launched)
		s->launch_execed = true;
	trace_proc_image(s, t->proc);
	wait_sites_forget_thread(t);
	procfs_comm(t->tid, t->stats->comm);
	/* The event survives exec; a launched command gets its first ring here. */
	open_ring(s, t);
	probe_image(s, t);
	tracelog(t->tid, "+++ execve");
}

/*
 * A SIGKILL, that of a group exit included (Ctrl-C reaches the command
 * as well as causaltop), takes a thread out of its ptrace-stop: then
 * PTRACE_DETACH fails with ESRCH, yet the thread is still ours, and stops
 * again at its exit event.  Dropped as gone, it was never let go of: its
 * process stayed unreaped, causaltop waited for it forever (seen under
 * `timeout -s INT`, which signals the whole group).  So a thread that
 * still runs is kept, to be detached at that stop or dropped at its death.
 */
static bool
detach_lost(struct session *s, struct tcb *t)
{
	char st = s->trace_sys->state(t);

	if (!st || st == 'Z' || st == 'X')
		return false;
	t->flags &= ~TCB_STOPPED;
	t->flags |= TCB_DETACH_NEXT;
	debug_msg("trace: %d left its stop before the detach (state %c): kept",
		  (int) t->tid, st);
	return true;
}

/*
 * Let t go from the ptrace-stop it is held in, passing sig on: the one
 * way out for a stopped thread, at its stop here and for detach.c's
 * detach of them all.  Any other failure than ESRCH leaves it traced
 * until causaltop exits, when the kernel lets it go.
 */
void
trace_detach_stopped(struct session *s, struct tcb *t, int sig)
{
	/* Held with the entry int3's SIGTRAP (trace_restart_held): not the
	 * program's to get, and the text goes back anyway. */
	if (sig == SIGTRAP && entry_bp_rewind(s, t))
		sig = 0;
	trace_entry_bp_forget(s, t);
	if (sys_ptrace(s, PTRACE_DETACH, t->tid, NULL, (void *) (long) sig) == 0) {
		if (t->proc->started)
			tracelog(t->tid, "+++ detached");
		if (s->detaching)
			s->threads.detached++;
	} else if (errno != ESRCH) {
		perror_msg("ptrace(DETACH, %d)", (int) t->tid);
	} else if (detach_lost(s, t)) {
		return;
	} else if (s->detaching) {
		s->threads.exited++;
	}
	trace_drop_thread(s, t);
}

static bool
is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * A SIGTRAP sent for a debug exception with no cause in DR6 (si_code
 * TRAP_BRKPT, what the kernel says of an ICEBP instruction) right at one
 * of our breakpoint counters is not the program's: a KVM guest raised such
 * exceptions in bursts (22 in 5*10^7 counted hits of a stress run of
 * unit-probe, 10 in one run of its target; the untraced target died of
 * them).  Drop it: the thread resumes at the breakpoint, which fires and
 * counts (the stress run's counts stayed exact).  An ICEBP (0xf1) just
 * before the address is the program's own and goes through (x86: the
 * word's low byte is the one at addr - 1).
 */
static bool
stray_trap(struct session *s, struct tcb *t)
{
	siginfo_t si;
	uint64_t addr;
	long word;

	if (!t->probe || sys_ptrace(s, PTRACE_GETSIGINFO, t->tid, NULL, &si) < 0 ||
	    si.si_code != TRAP_BRKPT)
		return false;
	addr = (uintptr_t) si.si_addr;
	if (!probe_thread_bp_at(t->probe, addr))
		return false;
	errno = 0;
	word = sys_ptrace(s, PTRACE_PEEKTEXT, t->tid, (void *) (uintptr_t) (addr - 1), NULL);
	if (!errno && (word & 0xff) == 0xf1)
		return false;
	s->threads.stray_traps++;
	debug_msg("trace: %d: SIGTRAP with no cause at breakpoint %#" PRIx64
		  " dropped", (int) t->tid, addr);
	return true;
}

/*
 * Decode the wait status of tid into ev->te, and find its tcb: at a stop
 * of a thread not seen yet (its first stop overtook its parent's clone
 * event), allocated on the spot; at an exec, switched (switch_tcbs).
 */
enum trace_event
next_event(struct session *s, pid_t tid, int status, struct trace_stop *ev)
{
	*ev = (struct trace_stop) { .tid = tid, .status = status };
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		ev->t = tcb_lookup(tid);
		return ev->te = WIFEXITED(status) ? TE_EXITED : TE_SIGNALLED;
	}
	if (!WIFSTOPPED(status))
		return ev->te = TE_NEXT;
	ev->sig = WSTOPSIG(status);
	ev->event = (unsigned) status >> 16;
	if (ev->event == PTRACE_EVENT_EXEC)
		ev->t = switch_tcbs(s, tid);
	else if (!(ev->t = tcb_lookup(tid)))
		ev->t = adopt(s, tid);

	switch (ev->event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		return ev->te = TE_CLONE;
	case PTRACE_EVENT_EXEC:
		return ev->te = TE_STOP_BEFORE_EXECVE;
	case PTRACE_EVENT_EXIT:
		return ev->te = TE_STOP_BEFORE_EXIT;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(ev->sig))
			return ev->te = TE_GROUP_STOP;
		return ev->te = ev->t->flags & TCB_STARTUP ? TE_STARTUP_STOP : TE_INTERRUPT_STOP;
	case 0:
		return ev->te = TE_SIGNAL_DELIVERY_STOP;
	default:
		return ev->te = TE_OTHER_STOP;
	}
}

static void on_death(struct session *, const struct trace_stop *);

/* Act on ev (trace_event.h says what each event means here). */
void
dispatch_event(struct session *s, const struct trace_stop *ev)
{
	struct tcb *t = ev->t;
	pid_t tid = ev->tid;
	int sig = ev->sig;

	switch (ev->te) {
	case TE_NEXT:
		return;
	case TE_EXITED:
	case TE_SIGNALLED:
		on_death(s, ev);
		return;
	default:
		break;
	}
	t->flags &= ~TCB_STARTUP;
	t->flags |= TCB_STOPPED;
	debug_msg("trace: %d stop sig %d event %d at %" PRIu64, (int) tid, sig, ev->event,
		  s->trace_sys->now() / 1000);

	switch (ev->te) {
	case TE_STOP_BEFORE_EXECVE:
		/* Marked stopped first: an error there detaches it at once. */
		on_exec(s, t);
		sig = 0;
		break;
	case TE_CLONE:
		on_new_child(s, t, ev->event);
		sig = 0;
		break;
	case TE_STOP_BEFORE_EXIT:
		/*
		 * Collect its last samples while its mappings still exist, and
		 * its progress page while its fds do: a short run may end
		 * before the tick found it.
		 */
		t->flags |= TCB_EXITING;
		s->trace_sys->drain(s, t->ring, DRAIN_EXIT);
		probe_close(s, t);
		if (t->tid == t->proc->tgid || t->proc->nthreads == 1) {
			trace_progress_poll(s, t->proc, 0);
			if (t->proc->probes)
				probe_patch_sync(t->proc->probes);
		}
		sig = 0;
		if (s->trace_ops && !(t->flags & TCB_DETACH_NEXT) &&
		    s->trace_ops->exit_stop(s->trace_ctx, t, s->trace_sys->now()))
			return;
		break;
	case TE_GROUP_STOP:
		/* Stopped anyway: a pause asked for is moot. */
		if ((t->flags & TCB_PAUSE_PENDING) && s->trace_ops)
			s->trace_ops->pause_cancel(s->trace_ctx, t);
		if (!(t->flags & TCB_GROUP_STOP) && t->proc->started)
			tracelog(tid, "--- stopped by %s ---", signame(sig));
		t->flags |= TCB_GROUP_STOP;
		if (t->flags & TCB_DETACH_NEXT) {
			/* Detached in group-stop, it stays stopped. */
			trace_detach_stopped(s, t, 0);
			return;
		}
		/* Held in ptrace-stop while its code is patched. */
		if (t->proc->frozen)
			return;
		restart(s, t, PTRACE_LISTEN, 0);
		return;
	case TE_STARTUP_STOP:
	case TE_INTERRUPT_STOP:
		/* An interrupt stop, a new thread's first stop, or SIGCONT. */
		t->flags &= ~TCB_GROUP_STOP;
		sig = 0;
		/* Ours, to pay a delay: held there until it is paid. */
		if ((t->flags & TCB_PAUSE_PENDING) && s->trace_ops && !(t->flags & TCB_DETACH_NEXT)) {
			bool was_blocked = t->flags & TCB_BLOCKED;
			uint64_t now = s->trace_sys->now();

			if (s->trace_ops->pause_stop(s->trace_ctx, t, now))
				return;
			/* Found blocked in a system call: where it waits, while stopped. */
			if (!was_blocked && (t->flags & TCB_BLOCKED))
				wait_sites_take(s->waits, t, now);
		}
		break;
	case TE_SIGNAL_DELIVERY_STOP:
		/* Pass the signal on unchanged. */
		if (sig == SIGTRAP && (entry_bp_hit(s, t) || stray_trap(s, t))) {
			sig = 0;
			break;
		}
		if (t->proc->started)
			tracelog(tid, "--- %s ---", signame(sig));
		break;
	default:
		sig = 0;
		break;
	}
	if (t->flags & TCB_DETACH_NEXT) {
		trace_detach_stopped(s, t, sig);
		return;
	}
	if (t->proc->frozen) {
		t->stop_sig = sig;
		return;
	}
	restart(s, t, PTRACE_CONT, sig);
}

void
trace_restart_held(struct session *s, struct tcb *t)
{
	int sig = t->stop_sig;

	t->stop_sig = 0;
	/*
	 * A SIGTRAP kept while the thread was held (a system call injected
	 * into it: patch.c) may be the entry int3's, executed just before
	 * the stop that held it: handled as at its own stop, never passed on
	 * (the program would die of it, or run on from the middle of an
	 * instruction).
	 */
	if (sig == SIGTRAP && !(t->flags & TCB_DETACH_NEXT) && entry_bp_hit(s, t)) {
		debug_msg("trace: %d: the entry int3's SIGTRAP, kept while held", (int) t->tid);
		sig = 0;
	}
	if (t->flags & TCB_DETACH_NEXT)
		trace_detach_stopped(s, t, sig);
	else if (t->flags & TCB_GROUP_STOP)
		restart(s, t, PTRACE_LISTEN, 0);
	else
		restart(s, t, PTRACE_CONT, sig);
}

static void
on_death(struct session *s, const struct trace_stop *ev)
{
	struct tcb *t = ev->t;
	pid_t tid = ev->tid;
	int status = ev->status;

	if (tid == s->launched) {
		s->launched_done = true;
		s->launched_status = status;
	}
	if (!t)
		return;
	if (t->proc->started) {
		if (WIFEXITED(status))
			tracelog(tid, "+++ exited with %d +++", WEXITSTATUS(status));
		else
			tracelog(tid, "+++ killed by %s +++", signame(WTERMSIG(status)));
	}
	s->threads.exited++;
	trace_drop_thread(s, t);
}

void
trace_handle_status(struct session *s, pid_t tid, int status)
{
	struct trace_stop ev;

	next_event(s, tid, status, &ev);
	dispatch_event(s, &ev);
}

void
trace_reap(struct session *s)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
		trace_handle_status(s, tid, status);
}

int
trace_wait_step(struct session *s)
{
	const struct timespec ms = { 0, 1000000 };
	int status;
	pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);

	if (tid > 0) {
		trace_handle_status(s, tid, status);
		return 1;
	}
	if (tid < 0 && errno != EINTR)
		return -1;
	nanosleep(&ms, NULL);
	return 0;
}

/* The kernel's side (trace_sys_ops). */
static long
real_ptrace(int request, pid_t tid, void *addr, void *data)
{
	return ptrace((enum __ptrace_request) request, tid, addr, data);
}

static void
real_drain(struct session *s, struct sampler_ring *only, enum drain_why why)
{
	drain_rings(s->smp, s->wake, only, why);
}

static char
real_state(struct tcb *t)
{
	return procfs_task_state(&t->pf, t->proc->tgid, t->tid);
}

const struct trace_sys_ops trace_sys_real = {
	.now = clock_now_ns,
	.ptrace = real_ptrace,
	.drain = real_drain,
	.state = real_state,
};
