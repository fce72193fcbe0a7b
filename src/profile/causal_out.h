/*
 * What the experiments produced, written out: Coz's profile.coz text
 * format (so Coz's viewer reads it), causaltop's JSON document, and the
 * ranked table printed by --no-tui.
 */
#ifndef CT_CAUSAL_OUT_H
# define CT_CAUSAL_OUT_H

# include <stdbool.h>
# include <stdint.h>
# include <stdio.h>
# include <sys/types.h>

struct lines_table;
struct progress_table;
struct stats;

struct causal_meta {
	char *const *command;		/* argv, NULL-terminated; NULL with -p */
	pid_t pid;			/* target process (the first of pids) */
	const pid_t *pids;		/* -p's list; NULL: pid alone */
	size_t npids;
	uint64_t startup_realtime_ns;	/* CLOCK_REALTIME at start */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC: profiling span */
	uint64_t period_ns;		/* sampling period */
	const char *sampler;		/* sampler_describe() */
	const char *wake_tracking;	/* "sched_waking" or "syscall" */
	const char *build_id;		/* hex of the main binary, or NULL */
	const char *exe;		/* path of the main binary, or NULL */
	bool by_function;		/* --granularity function */
	uint64_t delay_ns;		/* all delay inserted */
	bool delay_unknown;		/* delay_ns is not known (Coz's files) */
	uint64_t samples_total;		/* samples of traced threads */
	unsigned runs;			/* runs pooled (report); 0 taken as 1 */
	/* Where threads waited (ptrace/waitsite.h), most stacks first; none: 0. */
	const struct wait_site *const *waits;
	size_t nwaits;
	const struct wait_stats *wait_stats;
};

/* What a target (a line, or a function) is called. */
struct causal_target {
	const char *file;	/* line targets; NULL if unknown */
	unsigned line;
	const char *func;	/* function name (demangled), NULL if unknown */
	const char *linkage;	/* its mangled symbol, NULL if func is it */
	const char *dso;	/* module of the function */
	uint64_t samples;
};

void causal_target_describe(const struct lines_table *, unsigned id, bool is_func,
			    struct causal_target *);
/* "FILE:LINE" or "function:NAME", as profile.coz writes it.  Malloc'ed. */
char *causal_target_location(const struct lines_table *, unsigned id, bool is_func);

/* Some experiment measured progress on this point. */
bool causal_point_measured(const struct stats *, unsigned point);

/*
 * Coz's legacy tab format (research/coz.md section 4.1): startup, one
 * experiment record per experiment followed by its throughput-point and
 * latency-point records, then runtime and samples records.  Function
 * targets are written as "function:NAME" selected locations; Coz's
 * viewer treats them as opaque names.
 */
int causal_write_coz(FILE *, const struct causal_meta *, struct stats *,
		     const struct lines_table *, const struct progress_table *);

/* The JSON document described in doc/profile-json.md. */
int causal_write_json(FILE *, const struct causal_meta *, struct stats *,
		      const struct lines_table *, const struct progress_table *);

/*
 * The ranked table: location, function, samples %, predicted program
 * speedup at 10/25/50/100% with CI, verdict; top rows only (0: all).
 */
void causal_print_table(FILE *, const struct causal_meta *, struct stats *,
			const struct lines_table *, const struct progress_table *,
			unsigned top);

#endif
