/*
 * The model the TUI reads: a snapshot of the session in plain structs,
 * rebuilt by model_update() on the TUI's frame timer.  The view draws
 * from it and nothing else; it changes the session only through steer.h.
 * Neither header says anything of ptrace, perf or libdw, so that tui/
 * can include them (tests/layering.test).
 *
 * Strings point into the session's tables or into the model's own
 * storage: valid until the next model_update() or model_free().  A model
 * can also be filled by hand (the TUI's snapshot tests do).
 */
#ifndef CT_MODEL_H
# define CT_MODEL_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>

struct session;

enum model_verdict {
	MODEL_NOT_ENOUGH,	/* too few experiments, or a wide interval */
	MODEL_OPTIMIZE,		/* significant positive effect */
	MODEL_NO_EFFECT,	/* the interval excludes any effect worth having */
	MODEL_CONTENTION,	/* significant negative effect */
};

/* Predicted program speedup (fractions: 0.1 = 10%) at one line speedup. */
struct model_level {
	unsigned pct;		/* line speedup, percent */
	unsigned n_exp;		/* experiments behind it */
	bool valid;		/* enough data for an estimate */
	double est, lo, hi;	/* 95% interval, model error in (stats.h) */
};

# define MODEL_ROW_PINNED	0x01	/* experiments are pinned to it */
# define MODEL_ROW_EXCLUDED	0x02	/* left out of the experiments */
# define MODEL_ROW_FILE_EXCL	0x04	/* its whole file is */
# define MODEL_ROW_CURRENT	0x08	/* the experiment under way */

/* One line (or function) of the profile. */
struct model_row {
	unsigned target;	/* line id, or function id: what steer.h takes */
	bool is_func;
	const char *file;	/* absolute path; NULL for a function */
	unsigned line;
	const char *func;	/* function name (the line's first seen) */
	const char *dso;	/* module path */
	uint64_t samples;
	double samples_pct;	/* of every sample of the target */
	unsigned n_exp;		/* non-baseline experiments on it */
	unsigned rank;		/* by impact, 1 first; 0 without a curve */
	struct model_level at50;	/* the 50% level (valid: false if none) */
	bool slope_valid;
	double slope, slope_lo, slope_hi;
	double impact, impact_lo, impact_hi;	/* at 100%, by the fit */
	enum model_verdict verdict;
	const struct model_level *levels;	/* by pct, nlevels of them */
	size_t nlevels;
	unsigned flags;		/* MODEL_ROW_* */
};

enum model_thread_state {
	MODEL_T_RUNNING,	/* R */
	MODEL_T_BLOCKED,	/* S, D */
	MODEL_T_PAUSED,		/* held by causaltop to pay a delay */
	MODEL_T_STOPPED,	/* job control, or another ptrace-stop */
	MODEL_T_EXITED,
	MODEL_T_UNKNOWN,
};

struct model_thread {
	int tid, tgid;
	char comm[16];
	enum model_thread_state state;
	uint64_t samples;
	uint64_t delay_paid_ns;	/* held to pay delays, whole session */
	const char *func;	/* of its last sample; NULL if none */
	const char *wait;	/* where a pause last found it blocked
				   ("pthread_mutex_lock from worker (x.c:40)"),
				   shown while it is blocked; NULL if none */
};

# define MODEL_HIST 60		/* seconds of rate history per point */

struct model_point {
	const char *name;
	bool latency;
	const char *source;	/* "page", "coz shim", "breakpoint", ... */
	uint64_t count;		/* visits, or departures */
	uint64_t arrivals;	/* latency points */
	double rate;		/* per second, over the last second */
	float hist[MODEL_HIST];	/* rates, oldest first */
	unsigned nhist;
	bool quiet;		/* counted before, nothing for a while */
};

enum model_log_kind {
	MODEL_LOG_INFO,		/* causaltop's own notes (a thread exited) */
	MODEL_LOG_WARN,		/* what causaltop wrote to stderr */
	MODEL_LOG_TARGET,	/* the launched command's output */
};

struct model_log_line {
	uint64_t t_ns;		/* since the session started */
	enum model_log_kind kind;
	const char *text;
};

/* The curve screen's companions: source around the line, its code. */
struct model_src_line {
	unsigned line;
	const char *text;
	uint64_t samples;	/* of every target line of that number */
};

struct model_insn {
	uint64_t addr;
	const char *text;
	uint64_t samples;
	bool in_target;		/* belongs to the line (else context) */
};

struct model_detail {
	bool valid;
	unsigned target;
	bool is_func;
	unsigned center;	/* line shown in the middle of the source */
	struct model_src_line *src;
	size_t nsrc;
	const char *src_error;	/* why there is no source, or NULL */
	struct model_insn *insns;
	size_t ninsns;
	const char *asm_error;	/* why there is no code, or NULL */
};

enum model_phase {
	MODEL_PROFILING,
	MODEL_ENDED,		/* the target is gone or detached: results stay */
};

struct model_priv;

struct model {
	/* The target. */
	const char *command;	/* the command line, or the executable with -p */
	int pid;		/* the launched command, or the first -p */
	unsigned nprocs;	/* processes traced now (-p A,B; -f) */
	bool attached;		/* -p */
	enum model_phase phase;
	const char *end_reason;	/* "exited with status 0", ... */
	uint64_t elapsed_ns;
	unsigned threads_traced, threads_running, threads_paused;
	unsigned threads_blocked, threads_stopped;
	uint64_t threads_ever;

	/* Sampling. */
	const char *sampler;	/* "cpu cpu-clock 1.000 ms" */
	uint64_t samples, samples_in_scope, samples_lost;
	uint64_t samples_in_trap;	/* at a --progress trap: its cost */
	double sample_rate;	/* per second, over the last second */

	/* Experiments. */
	bool experiments;	/* the session runs them at all */
	unsigned exp_done, exp_baselines;
	double exp_rate;	/* per second of the session */
	bool exp_running;	/* one is under way: */
	const char *exp_what;	/* its target, "file.c:12" or a function */
	unsigned exp_pct;
	uint64_t exp_left_ns, exp_len_ns;

	/* Steering, as the engine has it. */
	bool paused, pinned;
	const char *pin_what;
	bool by_function;
	unsigned focus_lo, focus_hi;
	size_t n_excluded, n_excluded_files;

	/* causaltop's own cost. */
	double delay_pct;	/* delay inserted, % of wall time */
	/* The host's steal time, % of the CPUs' time in experiments, and
	   whether it is worth a warning (exp_steal_worrying). */
	double steal_pct;
	bool steal_warn;
	double cpu_pct;		/* supervisor CPU, over the last second */

	struct model_point *points;
	size_t npoints;
	unsigned point;		/* the point whose curves the rows show */

	struct model_row *rows;	/* unordered: the view sorts */
	size_t nrows;
	struct model_thread *threads;	/* traced now, then exited */
	size_t nthreads;
	struct model_log_line *log;	/* oldest first */
	size_t nlog;
	uint64_t log_total;	/* lines ever logged (older ones dropped) */
	struct model_detail detail;

	struct model_priv *priv;
};

/* What the view wants this time. */
struct model_query {
	unsigned point;		/* progress point for the rows' curves */
	bool threads;		/* fill threads[] (reads /proc per thread) */
	bool detail;		/* fill detail for: */
	unsigned detail_target;
	bool detail_is_func;
};

struct model *model_new(void);
void model_free(struct model *);
void model_update(struct model *, struct session *, const struct model_query *, uint64_t now);

/* "optimize", "no effect", "contention", "not enough data" (inline: the
 * view's tests link no session). */
static inline const char *
model_verdict_name(enum model_verdict v)
{
	return v == MODEL_OPTIMIZE ? "optimize" : v == MODEL_NO_EFFECT ? "no effect" :
	       v == MODEL_CONTENTION ? "contention" : "not enough data";
}

#endif
