/*
 * The experiment engine's own state, shared by its three parts and by no
 * one else (the rest of causaltop goes through experiment.h):
 *  - account.c: the accounting of one experiment: hits, wake-ups, context
 *    switches, and the delays owed and paid (who is paused, and when);
 *  - schedule.c: what to speed up and by how much, the life cycle of an
 *    experiment on the supervisor's tick, its record for the statistics;
 *  - steering.c: what the TUI asks of the scheduler (pin, exclude,
 *    focus, pause, reset, granularity).
 */
#ifndef CT_EXP_ENGINE_H
# define CT_EXP_ENGINE_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include <sys/types.h>
# include "calc/delay.h"
# include "engine/experiment.h"

/* Cool-off after an experiment: every debt forgiven, every thread running. */
# define COOLOFF_NS		10000000ULL

/*
 * Each tick preempts the thread on the CPU the supervisor wakes on, and
 * what a preemption costs it depends on the host: ~13 us on the VMs the
 * 1 ms tick was tuned on, 25-80 us on PVM guests, where every switch goes
 * through the hypervisor.  There the 1 ms tick cost the target ~4% of
 * its work at 0% (bench/spinners 16: 9.3% against 5.5% without
 * experiments), and the preemptions the accounting cannot credit made
 * every paying line read low; 2 ms halves both, and read closer to the
 * truth (gt-unequal long at 50% and 100%: 0.29-0.33 and 0.27-0.28 at 1
 * ms, 0.30-0.36 and 0.31-0.36 at 2 ms, real 0.39).  So once the first
 * DEAR_STEALS preemptions in experiments (give_back) cost DEAR_STEAL_NS
 * or more on average, the tick is TICK_DEAR_NS for the rest of the run.
 */
# define TICK_DEAR_NS		2000000ULL
# define DEAR_STEAL_NS		20000ULL
# define DEAR_STEALS		200

enum exp_state { ST_IDLE, ST_RUNNING, ST_DRAINING, ST_COOLOFF };

struct dead_thread {
	pid_t tid;
	struct delay_thread d;
};

/* What the TUI asked for (exp_pin and the others: steering.c). */
struct exp_steer {
	bool paused;
	bool pinned;
	unsigned pin;			/* target id */
	bool pin_is_func;		/* of a function, or of a line */
	unsigned focus_lo, focus_hi;	/* speedup levels drawn, in percent */
	unsigned char *excl[2];		/* excluded ids: [0] lines, [1] functions */
	size_t nexcl[2];
	char **excl_files;		/* every line of these files is excluded */
	size_t nexcl_files;
};

struct exp_engine {
	struct session *s;
	const struct exp_sys_ops *sys;	/* the clock, /proc, the pauses' kernel */
	struct exp_config cfg;
	struct stats *stats;
	struct pauser *pz;
	enum exp_state state;
	struct delay_global g;

	/* the current experiment */
	struct ct_line *line;		/* one of these two is the target */
	struct ct_func *func;
	unsigned target, pct;
	bool is_func;			/* func: by --granularity, or code
					   without line info */
	uint64_t d_ns;			/* delay per hit */
	uint64_t start_ns, hits_end_ns, end_ns, drain_start, g_start, cool_until;
	uint64_t len_ns;
	uint64_t selected;
	size_t npts;
	uint64_t *c0, *a0;
	double *area;
	uint64_t last_ns;

	/* turn: baseline, then levels on one target */
	unsigned phase;
	bool have_turn_target;
	unsigned turn_target;
	bool turn_is_func;
	unsigned *level_idx;		/* by target * 2 + is_func */
	size_t n_level_idx;

	/* fixed target, once found */
	bool fixed_found;
	unsigned fixed_target;

	struct wake_event *wk;
	size_t nwk, capwk;
	struct hit_event { pid_t tid; uint64_t time; } *hit;	/* not applied yet */
	size_t nhit, caphit;
	struct dead_thread *dead;
	size_t ndead, capdead;
	uint64_t rng;

	/* exp_pay(): the threads found ready to run that owe enough */
	struct tcb **ready;
	size_t cap_ready;
	unsigned ncpus;		/* online */
	uint64_t online_mask;	/* taken as CPUs 0 to ncpus - 1; 0: over 64 */
	uint64_t ready_cpus;	/* where the ready ones may run */
	uint64_t deferred;	/* ready, but left to pay once on a CPU */
	bool crowded;		/* more ready than CPUs, at the last exp_pay() */

	/* Context switches (cfg.cpu_switches): each CPU, by its number. */
	struct exp_cpu *cpu;
	size_t ncpu_slots;
	unsigned cpu_scale;	/* weight of hits, in 1/1000 (exp_update_cpu_scale) */

	unsigned done, baselines;
	uint64_t delay_total, wall_total, wakes, wakes_credited;
	uint64_t cpu_waits, cpu_waits_credited, revoked_ns;
	pid_t self;		/* the supervisor's tid */
	uint64_t stolen_ns, steals, stolen_paid_ns;
	uint64_t stolen_first;	/* stolen_ns at the DEAR_STEALS-th, 0: not yet */
	/* Wake-ups onto an idle CPU seen to their switch in: their lag summed. */
	uint64_t idle_wakes, idle_wake_ns;
	/* Lags of sleeps that were all delay, credited (some the mean of the above). */
	uint64_t wake_lags, wake_lag_ns, wake_lags_guessed;
	/* The host's steal time: at the experiment's start, and summed. */
	bool steal_ok;		/* steal0 was read */
	uint64_t steal0;
	bool steal_known;	/* some experiment's was read */
	uint64_t steal_total, steal_wall;
	unsigned steal_disturbed;

	struct exp_steer steer;
};

/* A CPU as its context switches show it. */
struct exp_cpu {
	uint64_t since;		/* its last switch, 0: none seen */
	uint64_t ours, others;	/* ns it ran our threads, other tasks (not idle) */
	uint64_t ours0, others0;	/* at the last exp_update_cpu_scale */
	pid_t last_tid;		/* the last of our threads to leave it, 0: none */
	uint64_t last_out;	/* when */
	pid_t cur;		/* taking it at since */
	bool robbed;		/* the supervisor took it from last_tid, ready */
};

/* Delays are being inserted: hits and wake-ups count. */
static inline bool
exp_on(const struct exp_engine *e)
{
	return e->state == ST_RUNNING || e->state == ST_DRAINING;
}

/* account.c */
/* Hits and wake-ups queued so far, applied in time order. */
void exp_apply_events(struct exp_engine *);
/* Every thread forgiven what it owes, every held thread released. */
void exp_forgive_all(struct exp_engine *, uint64_t now);
/* Pause the threads that owe enough; how many are paying or about to. */
unsigned exp_pay(struct exp_engine *, uint64_t now);
/* The weights of hits: per thread (schedstat, utime), per CPU (switches). */
void exp_update_scales(struct exp_engine *, uint64_t now);
void exp_update_cpu_scale(struct exp_engine *);

/* steering.c */
/* An excluded target, or a line of an excluded file. */
bool exp_steer_skips(const struct exp_engine *, unsigned target, bool is_func);
/* A speedup level within the focus. */
bool exp_steer_level_ok(const struct exp_engine *, unsigned pct);

#endif
