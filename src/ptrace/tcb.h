/*
 * Traced threads (struct tcb) and the processes they belong to (struct
 * ctproc).  Per-process state (symbolizer) lives in ctproc; per-thread
 * sample counts live in thread_stats, which outlive their tcb so that the
 * report can list threads that have exited.
 */
#ifndef CT_TCB_H
# define CT_TCB_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>
# include "base/procfs.h"
# include "calc/delay.h"

struct ct_func;
struct patch_proc;
struct probe_set;
struct probe_thread;
struct progress_page;
struct sampler_ring;
struct sym_proc;
struct wait_site;
struct unwinder;

struct ctproc {
	pid_t tgid;
	unsigned nthreads;		/* live tcbs pointing here */
	bool started;			/* sampling: after the launched
					   command's exec, at once otherwise */
	struct sym_proc *sym;		/* NULL if the symbolizer failed */
	struct unwinder *unw;		/* over sym's modules; NULL with it */
	struct probe_set *probes;	/* --progress counted here; NULL: not */
	bool probes_mapped;		/* executable mappings since the last
					   look for pending probes */
	void *unw_as;			/* libunwind's address space (waitsite.c) */
	struct progress_page *page;	/* its progress page, once found */
	struct patch_proc *patch;	/* in-target counters (patch.h), or NULL */
	bool frozen;			/* patch_freeze: its stops are held */
	uint64_t page_scan_ns;		/* when to look for it next */
	struct ctproc *next;
};

struct thread_stats {
	pid_t tid;
	pid_t tgid;
	char comm[16];
	uint64_t samples;		/* all samples of the thread */
	uint64_t in_scope;		/* of which attributed in scope */
	uint64_t lost;			/* lost in its ring (thread mode) */
	const struct ct_func *func;	/* of its last sample (the leaf) */
	uint64_t paid_ns;		/* delay paid, kept when it is freed */
};

/* No first stop seen yet: seized, or auto-attached at clone. */
# define TCB_STARTUP		0x01
/* In a ptrace-stop that we have not restarted. */
# define TCB_STOPPED		0x02
/* In group-stop, restarted with PTRACE_LISTEN (still stopped). */
# define TCB_GROUP_STOP		0x04
/* Detach at the next stop: cleanup, or a process we do not follow. */
# define TCB_DETACH_NEXT	0x08
/* PTRACE_EVENT_EXIT seen: the thread is on its way out. */
# define TCB_EXITING		0x10
/* PTRACE_INTERRUPT sent to pay a delay; its stop has not come yet. */
# define TCB_PAUSE_PENDING	0x20
/* Held in that stop until pause_until_ns (TCB_STOPPED is set too). */
# define TCB_PAUSED		0x40
/* Seen blocked while owing delay; nothing to pause until a wake-up. */
# define TCB_BLOCKED		0x80

struct tcb {
	pid_t tid;
	unsigned flags;
	int stop_sig;			/* signal to pass on when restarted */
	struct ctproc *proc;
	struct sampler_ring *ring;	/* thread sampler, NULL in cpu mode */
	struct probe_thread *probe;	/* its --progress counters */
	struct thread_stats *stats;
	struct delay_thread delay;	/* virtual-speedup accounting */
	uint64_t pause_req_ns;		/* when the pause was asked for, then
					   when it began (the stop) */
	uint64_t pause_until_ns;	/* when to restart it */
	/* At the PTRACE_INTERRUPT: when, and schedstat's wait. */
	uint64_t pause_ask_ns, pause_wait0;
	int pause_clock;		/* its CPU time since then, or -1;
				   pause.c closes it */
	/* Its hits weigh (run + wait for a CPU) / run, in 1/1000 (see engine/account.c). */
	unsigned hit_scale;
	/*
	 * Last seen running (samples, wake-ups), newest first.  More than
	 * one: a sample taken after a wake-up may be read before it.
	 */
# define TCB_RUN_HISTORY	4
	uint64_t ran_ns[TCB_RUN_HISTORY];
	/* Its last sample, and its last that hit the sped-up line. */
	uint64_t sampled_ns, hit_ns;
	/* Its samples in this experiment, and of them hits (its share of the line). */
	unsigned exp_samples, exp_hits;
	uint64_t exp_blocked_ns;	/* time it slept in this experiment (not paused) */
	pid_t woken_by;			/* by its last wake-up (0: none seen) */
	/* --wake-tracking=syscall: when last found waiting in a futex, or 0. */
	uint64_t futex_seen_ns;
	/* Where a pause's interrupt last found it blocked (waitsite.h), when. */
	const struct wait_site *wait;
	uint64_t wait_ns;
	void *unw_upt;			/* its libunwind-ptrace handle, or NULL */
	/* When last found ready to run but left waiting for a CPU, or 0. */
	uint64_t ready_seen_ns;
	/*
	 * Context switches followed (wake.h): when it last became ready to
	 * run, woken or preempted, and not yet back on a CPU (0: not known).
	 */
	uint64_t ready_ns;
	/* Woken then from a sleep that was all inserted delay (0: not; account.c). */
	uint64_t vsleep_woken_ns;
	/* Its last switch out: when, from which CPU, that CPU's time on ours then. */
	uint64_t out_ns, out_ours;
	int out_cpu;
	/* CPUs 0-63 it may run on, read at each experiment's start; 0: unknown. */
	uint64_t cpus;
	uint64_t paid_at_wake;		/* delay.paid_ns then */
	uint64_t lag_at_wake;		/* its waker's debt it took on then */
	uint64_t ss_run, ss_wait, ss_hits;	/* at the last look */
	/* User CPU time one of its samples stands for, in 1/1000 of the period. */
	unsigned sample_scale;
	uint64_t cal_utime, cal_samples, cal_next_ns;	/* since the first look */
	struct procfs_task pf;		/* its /proc files, kept open */
	struct tcb *hnext;		/* hash chain */
	struct tcb *prev, *next;	/* list of all tcbs */
};

struct tcb *tcb_lookup(pid_t tid);
/* A new tcb in proc; the caller fills the rest. */
struct tcb *tcb_new(pid_t tid, struct ctproc *proc);
/* Unlink and free; the caller closed the ring.  Drops an empty proc's count. */
void tcb_free(struct tcb *);
/* The execing thread takes its leader's tid. */
void tcb_rename(struct tcb *, pid_t new_tid);
struct tcb *tcb_first(void);
unsigned tcb_count(void);

struct ctproc *proc_lookup(pid_t tgid);
struct ctproc *proc_new(pid_t tgid);
/* Unlink and free; the caller freed proc->sym. */
void proc_free(struct ctproc *);
struct ctproc *proc_first(void);

/* Every thread ever traced, in order of appearance. */
struct thread_stats *const *thread_stats_all(size_t *n);
/* At exit, after every tcb and proc is gone. */
void thread_stats_free_all(void);

#endif
