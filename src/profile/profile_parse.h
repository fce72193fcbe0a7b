/*
 * Between profile.c and its parsers (profile_coz.c, profile_json.c),
 * and for the fuzz harnesses, which call one parser each.
 */
#ifndef CT_PROFILE_PARSE_H
# define CT_PROFILE_PARSE_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include "calc/stats.h"
# include "perf/progress.h"
# include "profile/profile.h"

struct json_object;

/* One file being read. */
struct profile_parse {
	struct profile *p;
	const char *name;		/* for messages */
	char *err;
	size_t errsize;
};

/* "NAME:LINE: message" (line 0: "NAME: message"); returns CT_EXIT_PROFILE. */
int pp_error(struct profile_parse *, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Coz's records, tab-separated or JSON lines, mixed as Coz's viewer allows. */
int profile_parse_coz(struct profile_parse *, const char *data, size_t len);
/* causaltop's JSON document (doc/profile-json.md). */
int profile_parse_json(struct profile_parse *, const char *data, size_t len);

/* A new run, starting at line of the file; returns its number. */
unsigned profile_run_begin(struct profile *, const char *file, unsigned line,
			   const char *format);
/* A copy of s that lives as long as the profile. */
const char *profile_intern(struct profile *, const char *s);
/*
 * The target at location ("FILE:LINE", "function:NAME"; func and dso
 * when known): its id and kind.  -1 if location is malformed.
 */
int profile_target(struct profile *, const char *location, const char *func,
		   const char *dso, unsigned *id, bool *is_func);
/* Add samples to a target. */
void profile_target_samples(struct profile *, unsigned id, bool is_func, uint64_t n);
/* The point (name, kind), created with source if new. */
struct progress_point *profile_point(struct profile *, const char *name,
				     enum progress_kind, const char *source);
/* Into run r->run (begun already); takes r->points. */
void profile_add_experiment(struct profile *, const struct exp_record *);

/* Coz's cumulative samples records: the last of a run counts. */
void profile_coz_samples(struct profile *, unsigned line_id, uint64_t count);
void profile_coz_samples_flush(struct profile *);

/*
 * json-c values: 0 when o is what is asked for, -1 otherwise.  Integers
 * must be JSON integers (no fraction, no exponent), unsigned ones >= 0.
 */
int pj_u64(struct json_object *o, uint64_t *v);
int pj_i64(struct json_object *o, int64_t *v);
int pj_double(struct json_object *o, double *v);
/* A string without NUL bytes. */
int pj_str(struct json_object *o, const char **s);
/* JSON text of o, cut for a message (static buffer). */
const char *pj_show(struct json_object *o);

/* Line and column (1-based) of byte offset off in data. */
void pp_position(const char *data, size_t off, unsigned *line, unsigned *col);

#endif
