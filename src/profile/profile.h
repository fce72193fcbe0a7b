/*
 * Causal profiles read back from files, for `causaltop report` and
 * `causaltop diff`: Coz's profile.coz text records, Coz's JSON-lines
 * records (profile.jsonl) and causaltop's JSON document.  Whatever the
 * format, a profile becomes the tables causal_out.c writes from (lines,
 * progress points, experiments in a struct stats), so the statistics are
 * recomputed by stats.c from the experiments, never taken from the file.
 *
 * Several files (and the several runs a Coz file appends) are pooled:
 * targets are matched by location ("FILE:LINE", "function:NAME"),
 * progress points by name and kind; each run keeps its own number so
 * that stats.c compares experiments with their own run's baselines.
 *
 * Files are untrusted input: every malformed record is an error naming
 * the file and the line (for a JSON document: line and column of a
 * syntax error, else the member's path), never a crash.
 */
#ifndef CT_PROFILE_H
# define CT_PROFILE_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include "profile/causal_out.h"

/* One run of the program, as read. */
struct profile_run {
	char *file;			/* the file it came from */
	unsigned line;			/* where it starts there (1-based) */
	const char *format;		/* "coz", "coz-jsonl", "causaltop-json" */
	char *command;			/* argv joined by spaces, or NULL */
	uint64_t startup_realtime_ns;	/* 0: unknown */
	uint64_t duration_ns;		/* 0: unknown */
	size_t experiments, baselines;
};

struct profile {
	struct lines_table *lines;
	struct progress_table *progress;
	struct stats *stats;
	struct profile_run *runs;
	size_t nruns, runs_alloc;
	/* Run metadata pooled, for the writers; filled by profile_finish(). */
	struct causal_meta meta;
	/* internal */
	char **strings;			/* owned: names the tables point to */
	size_t nstrings, strings_alloc;
	char **command;			/* the first run's argv, NULL-terminated */
	uint64_t *run_samples;		/* per line id: the current Coz run's */
	size_t run_samples_alloc;
	uint64_t delay_ns, samples_total, duration_ns;
	unsigned runs_function, runs_delay_unknown;
};

struct profile *profile_new(void);
void profile_free(struct profile *);

/*
 * Read one file into p, pooled with what p holds already.  Returns 0, or
 * an exit status (CT_EXIT_PROFILE: malformed; CT_EXIT_IO: unreadable)
 * with the message, which names the file, in err.
 */
int profile_read_file(struct profile *, const char *path, char *err, size_t errsize);

/* The same from memory; name is what messages call it. */
int profile_read_buffer(struct profile *, const char *name, const char *data,
			size_t len, char *err, size_t errsize);

/* Fill p->meta from the runs read; call before writing. */
void profile_finish(struct profile *);

#endif
