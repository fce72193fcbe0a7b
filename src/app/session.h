/*
 * The state of one profiling session, passed explicitly to the modules
 * that need more than their own piece of it.
 */
#ifndef CT_SESSION_H
# define CT_SESSION_H

# include <stdbool.h>
# include <signal.h>
# include <stdint.h>
# include <stdio.h>
# include <sys/types.h>
# include "app/options.h"
# include "profile/save.h"

struct evloop;
struct exp_engine;
struct lines_table;
struct logcap;
struct pchist;
struct progress_point;
struct probe_set;
struct progress_table;
struct sampler;
struct scope;
struct trace_ops;
struct trace_sys_ops;
struct wait_sites;
struct wake;

struct session {
	struct options opts;
	struct evloop *ev;
	struct sampler *smp;
	struct lines_table *lines;
	struct scope *scope;
	struct progress_table *progress;
	struct probe_set *probes;	/* --progress/--latency; NULL if none:
					   counts in the first process */
	struct probe_set **probe_sets;	/* [0] probes, then a clone per other
					   process counted: kept to the end */
	unsigned nprobe_sets;
	pid_t probes_pid;		/* that first process: the launched
					   command or the first -p */
	struct {
		uint64_t addr;		/* the launched program's entry, an
					   int3 planted on it; 0: none */
		long word;		/* the text the int3 replaced */
		pid_t tid;		/* the thread that will hit it */
	} entry_bp;
	struct progress_point **probe_points;	/* per probe, once resolved */

	struct exp_engine *exp;		/* NULL with --no-experiments */
	const struct trace_ops *trace_ops;	/* trace_set_ops; NULL: none */
	void *trace_ctx;
	const struct trace_sys_ops *trace_sys;	/* trace_set_sys: the kernel */
	struct wait_sites *waits;	/* stacks of blocked threads; NULL: none */
	struct wake *wake;		/* wake-up tracker, NULL if none */
	const char *wake_mode;		/* "sched_waking" or "syscall" */
	uint64_t tick_ns;		/* current tick period */
	int realtime;			/* our SCHED_FIFO priority, 0 if none */
	uint64_t sample_cost_ns;	/* a timer sample's cost here (hostcost.h) */
	bool sample_cost_measured;	/* and the period chosen from it */
	uint64_t startup_realtime_ns;	/* CLOCK_REALTIME at start */
	char *exe;			/* the target's main binary, first seen */

	/* The TUI's (NULL, 0 without it). */
	struct logcap *logcap;		/* stderr and the command's output */
	int child_output;		/* the command's stdout and stderr,
					   stdin from /dev/null; 0: inherited */
	struct pchist *pcs;		/* samples per instruction */
	FILE *report;			/* stderr, --report's, or NULL (-q) */
	struct save_target save_coz;	/* -o (the TUI: or profile.coz) */
	struct save_target save_json;	/* --json (the TUI: or profile.json) */
	bool save_failed;		/* exit with CT_EXIT_IO */

	sigset_t orig_sigmask;		/* before causaltop blocked its own */
	char *coz_shim;			/* library preloaded into the command */
	pid_t launched;			/* the command's pid; 0 with -p */
	bool launched_done;		/* its exit was reported */
	int launched_status;		/* wait status, once done */
	bool launch_execed;		/* a launched command got to its exec */

	int stop_signal;		/* SIGINT/TERM/HUP that ended the session */
	bool forward_signal;		/* it was sent to causaltop alone */
	bool stop_requested;		/* by a signal, --duration, --until-answer */
	struct {
		int kind;		/* enum stats_answer; -1: not asked */
		uint64_t at_ns;		/* when it came, or the limit passed */
		uint64_t next_ns;	/* the next look */
	} answer;
	bool detaching;			/* trace_detach_all is running */
	bool ring_opened;		/* a thread ring opened once: later
					   refusals are not about permission */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	uint64_t run_start_ns;		/* of the current run */
	struct {
		unsigned done;		/* --end-to-end runs completed */
		uint64_t total_ns, min_ns, max_ns;
	} runs;

	struct {
		uint64_t traced;	/* tcbs ever created */
		uint64_t exited;	/* reported dead while traced */
		uint64_t detached;	/* let go alive at the end */
		uint64_t stray_traps;	/* SIGTRAPs of our breakpoints, dropped */
	} threads;
	struct {
		uint64_t total;		/* samples of traced threads */
		uint64_t in_scope;	/* attributed to an in-scope frame */
		uint64_t out_of_scope;	/* no in-scope frame in the chain */
		uint64_t unwound;	/* chain repaired by DWARF unwinding */
		uint64_t in_trap;	/* at a --progress trap: its cost */
		uint64_t lost;		/* reported lost by the kernel */
	} samples;
	unsigned fds_at_start, fds_peak, fds_at_exit;
	uint64_t fds_next_ns;		/* next look at the fds for their peak */
};

#endif
