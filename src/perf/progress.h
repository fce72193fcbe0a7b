/*
 * Progress points: what "the program got work done" means.  Points come
 * from the target's shared page (causaltop.h, or the Coz shim), from
 * counters on code locations (--progress, --latency) and from whole runs
 * (--end-to-end); all of them land in one table of points.
 *
 * The page is untrusted input: every field is bounds-checked, names are
 * copied once, counts that go backwards are ignored (with a warning), and
 * a page that is malformed or could shrink under us is refused.
 */
#ifndef CT_PROGRESS_H
# define CT_PROGRESS_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>
# include "causaltop_abi.h"

enum progress_kind { PROGRESS_THROUGHPUT, PROGRESS_LATENCY };

struct progress_point {
	char *name;
	enum progress_kind kind;
	const char *source;	/* "page", "coz shim", "breakpoint", ... */
	uint64_t count;		/* throughput: visits; latency: departures */
	uint64_t arrivals;	/* latency only */
	unsigned id;
};

struct progress_table;
struct progress_page;

struct progress_table *progress_table_new(void);
void progress_table_free(struct progress_table *);
/* Find or create the point (name, kind, source). */
struct progress_point *progress_point(struct progress_table *, const char *name,
				      enum progress_kind, const char *source);
struct progress_point *const *progress_points(const struct progress_table *, size_t *n);

/*
 * Look for pid's page among its open fds.  NULL when it has none (yet);
 * a page that is there but unusable is reported once and NULL returned.
 * enable: set the page's enabled flag, so the target's macros count.
 * from_zero: every count so far is ours (a command launched with
 * PROGRESS_ENV counts from its start); otherwise counts start now.
 */
struct progress_page *progress_page_find(pid_t pid, bool enable, bool from_zero);
/* Add what changed since the last poll to the table's points. */
void progress_page_poll(struct progress_table *, struct progress_page *);
/* Final poll, clear the enabled flag, unmap.  NULL is fine. */
void progress_page_close(struct progress_table *, struct progress_page *);

/* The environment variable a launched command gets: count from the start. */
# define PROGRESS_ENV CAUSALTOP_PROFILED_ENV

/*
 * The Coz compatibility library to preload into a launched command: the
 * one beside the causaltop binary (a build tree), else the installed one;
 * NULL if neither exists.  Malloc'ed.
 */
char *progress_coz_shim_path(void);

#endif
