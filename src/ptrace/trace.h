/*
 * The ptrace core: start or attach to the target (attach.c), react to
 * every stop (trace.c), and let every thread go (detach.c).  Threads are
 * restarted with PTRACE_CONT only, never PTRACE_SYSCALL: per-syscall stops
 * would dominate the overhead.
 */
#ifndef CT_TRACE_H
# define CT_TRACE_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>
# include "perf/drain.h"

struct session;
struct sampler_ring;
struct tcb;
struct ctproc;

/*
 * What the ptrace core tells the layer above it, which it does not call
 * by name: the experiment engine's accounting of threads, and its pauses
 * (engine/experiment.h's exp_trace_ops, installed by app/main.c with the
 * engine as ctx; none without experiments).
 */
struct trace_ops {
	/* A new thread t, created by parent (NULL: not known). */
	void (*thread_new)(void *ctx, struct tcb *t, struct tcb *parent);
	/* t is about to be freed. */
	void (*thread_gone)(void *ctx, struct tcb *t);
	/* t stopped at its exit event: true if it is held there for now. */
	bool (*exit_stop)(void *ctx, struct tcb *t, uint64_t now);
	/* t, with a pause pending, reached an interrupt stop: true if held. */
	bool (*pause_stop)(void *ctx, struct tcb *t, uint64_t now);
	/* t will not take the pause asked of it (it entered a group-stop). */
	void (*pause_cancel)(void *ctx, struct tcb *t);
};
/* Install ops (NULL: none) before the first thread is traced. */
void trace_set_ops(struct session *, const struct trace_ops *, void *ctx);

/*
 * What trace.c asks of the kernel and of the rings, as a table so that
 * next_event() and dispatch_event() (trace_event.h) run on scripted wait
 * statuses too (tests/unit-trace.c).  trace_sys_real is the kernel's,
 * installed by app/main.c before anything is traced (trace_set_sys).
 * attach.c and detach.c call the kernel themselves.
 */
struct trace_sys_ops {
	/* The clock: base/clock.h's clock_now_ns(). */
	uint64_t (*now)(void);
	/* ptrace(2): -1 with errno set on failure (PEEKTEXT: errno tells). */
	long (*ptrace)(int request, pid_t tid, void *addr, void *data);
	/* drain_rings(s->smp, s->wake, only, why) (perf/drain.h). */
	void (*drain)(struct session *, struct sampler_ring *only, enum drain_why why);
	/* The state letter of /proc/TID/stat; 0: the thread is gone. */
	char (*state)(struct tcb *);
};
extern const struct trace_sys_ops trace_sys_real;
void trace_set_sys(struct session *, const struct trace_sys_ops *);

/* Fork and exec opts.cmd traced from its first instruction; dies on error. */
void trace_launch(struct session *);
/* PTRACE_SEIZE every thread of opts.pid; dies (with a diagnosis) on error. */
void trace_attach(struct session *);

/*
 * Restart t, held in its ptrace-stop while its process was frozen
 * (patch.h), as its stop asked: the signal it stopped with passed on
 * (t->stop_sig), PTRACE_LISTEN in group-stop, detached if it was due.
 */
void trace_restart_held(struct session *, struct tcb *t);

/* Reap and handle every pending wait status (on SIGCHLD). */
void trace_reap(struct session *);
/*
 * Outside the event loop, waiting for stops: handle one pending wait
 * status (1), or sleep 1 ms when none is pending (0); -1 when there is
 * no child left to wait for.
 */
int trace_wait_step(struct session *);
/* Handle one wait status of tid. */
void trace_handle_status(struct session *, pid_t tid, int status);

/* Detach from every thread, leaving none stopped.  Idempotent. */
void trace_detach_all(struct session *);
/*
 * PTRACE_DETACH of t, held in a ptrace-stop, passing sig on; dropped
 * unless a SIGKILL took it out of its stop first and it still runs (kept,
 * to be detached at its next stop).
 */
void trace_detach_stopped(struct session *, struct tcb *t, int sig);
/*
 * waitpid(pid, status, options) for the launched command once detached,
 * letting go of any thread of ours that reports a stop meanwhile.
 */
pid_t trace_wait_launched(pid_t pid, int *status, int options);

/* Shared by attach.c, trace.c and detach.c. */
struct tcb *trace_new_thread(struct session *, pid_t tid, struct ctproc *proc);
void trace_drop_thread(struct session *, struct tcb *);
/* Open the symbolizer for proc's current image (after exec, after attach). */
void trace_proc_image(struct session *, struct ctproc *);
const char *signame(int sig);
/* Take the launched program's entry int3 out, t stopped (before a detach). */
void trace_entry_bp_forget(struct session *, struct tcb *);
/* Count the --progress/--latency points in p as well (a set of its own). */
void trace_probe_proc(struct session *, struct ctproc *);
/* Open the --progress counters on a new thread, if they apply to it. */
void trace_probe_open(struct session *, struct tcb *);
/* Executable mappings appeared: look for probes still pending. */
void trace_probe_more(struct session *);
/* Find (rate-limited by now; 0: at once) and poll proc's progress page. */
void trace_progress_poll(struct session *, struct ctproc *, uint64_t now);

#endif
