/* Command line: getopt_long into struct options; usage text. */
#ifndef CT_OPTIONS_H
# define CT_OPTIONS_H

# include <limits.h>
# include <stdbool.h>
# include <stdint.h>
# include <stdio.h>
# include <sys/types.h>
# include "perf/sampler.h"

struct options {
	pid_t pid;			/* the first -p; 0 when launching */
	pid_t *pids;			/* every -p, in order, none twice */
	size_t n_pids;
	char **cmd;			/* after "--"; NULL with -p */
	bool follow_forks;
	uint64_t period_ns;
	bool period_auto;		/* no --period: main.c measures what a sample costs */
	enum sampler_mode sampler;
	enum sampler_event event;
	unsigned unwind_stack;		/* --unwind: stack bytes per sample; 0: fp */
	const char **binary_scope;
	size_t n_binary_scope;
	const char **source_scope;
	size_t n_source_scope;
	const char *output;		/* -o; NULL: none */
	const char *trace_log;
	uint64_t duration_ns;		/* 0: until the target ends */
	uint64_t until_answer_ns;	/* --until-answer's limit; 0: not asked */
	unsigned top;
	bool no_tui;
	bool no_color;			/* --no-color, or NO_COLOR set */
	bool end_to_end;
	bool no_coz_shim;
	const char **progress;		/* --progress SPEC */
	size_t n_progress;
	const char **latency;		/* --latency BEGIN,END */
	size_t n_latency;
	int probe_mode;			/* enum probe_mode */
	/* causal experiments */
	bool no_experiments;
	const char *fixed_line;		/* FILE:LINE or FUNCTION */
	int fixed_speedup;		/* 0..100; -1 when not fixed */
	bool by_function;		/* --granularity=function */
	uint64_t seed;			/* 0: from the clock */
	int wake_tracking;		/* WAKE_TRACKING_* */
	const char *json;		/* --json FILE */
	uint64_t report_interval_ns;	/* 0: only at exit */
	const char *report;		/* --report FILE; NULL: stderr */
	bool quiet;			/* -q: no report, no notes */
	unsigned runs;
	int realtime;			/* SCHED_FIFO priority; 0: off (the default) */
	int verbose;
};

/* Stack copied per sample for DWARF unwinding (see unwind.h). */
# define OPT_UNWIND_STACK_DEFAULT	4096
# define OPT_UNWIND_STACK_MAX		32768
# define OPT_UNWIND_STACK_AUTO		UINT_MAX	/* while parsing */

enum { WAKE_TRACKING_AUTO, WAKE_TRACKING_SCHED, WAKE_TRACKING_WAKING, WAKE_TRACKING_SYSCALL };

/* Parse or exit: CT_EXIT_USAGE on bad input, 0 after --help/--version. */
void options_parse(struct options *, int argc, char **argv);
void options_free(struct options *);

#endif
