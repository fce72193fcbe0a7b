/*
 * `causaltop diff OLD NEW`: the lines whose causal impact changed
 * significantly between two profiles, matched by progress point (name
 * and kind) and location.
 *
 * The impact of a line is the program speedup a 100% line speedup would
 * give (stats.c), est +- h with h the half-width of its 95% interval.  A
 * change d = new - old is significant when the 95% interval of the
 * difference of two independent estimates, d +- sqrt(h_old^2 + h_new^2),
 * excludes 0 and |d| is at least 2 points (the smallest impact worth
 * optimizing for, stats.c).  Significant in one profile means the
 * verdict optimize or contention there.  Then:
 *   flipped:  significant in both, of opposite signs;
 *   appeared: significant in NEW only (absent from OLD, without interval
 *             there, or a significant change from OLD);
 *   vanished: the same, the other way round;
 *   grew, shrank: the magnitude of the impact changed significantly.
 * A regression is a line whose verdict in NEW is optimize and that
 * appeared, flipped or grew: it became a new, or a larger, bottleneck.
 */
#include "config.h"
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/cmd.h"
#include "base/error_prints.h"
#include "base/escape.h"
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "perf/progress.h"
#include "profile/causal_out.h"
#include "profile/output.h"
#include "profile/profile.h"

#define DIFF_WORTH 0.02		/* as stats.c's STATS_WORTH */

static const char diff_usage[] =
"Usage: causaltop diff [OPTIONS] OLD NEW\n"
"\n"
"Compare two causal profiles (any format causaltop report reads): list the\n"
"lines whose causal impact changed significantly, as appeared, vanished,\n"
"grew, shrank or flipped sign.\n"
"\n"
"      --json[=FILE]         write the changes as JSON (default: standard output)\n"
"      --fail-on-regression  exit with status 3 when a line became a significant\n"
"                            new or larger bottleneck\n"
"  -h, --help                show this help and exit\n";

enum { OPT_JSON = 0x100, OPT_FAIL };

static const struct option diff_options[] = {
	{ "json",		optional_argument, NULL, OPT_JSON },
	{ "fail-on-regression",	no_argument,	   NULL, OPT_FAIL },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

enum change { CH_SAME, CH_APPEARED, CH_VANISHED, CH_GREW, CH_SHRANK, CH_FLIPPED };

static const char *const change_names[] = {
	[CH_SAME] = "same", [CH_APPEARED] = "appeared", [CH_VANISHED] = "vanished",
	[CH_GREW] = "grew", [CH_SHRANK] = "shrank", [CH_FLIPPED] = "flipped",
};

/* One target of one point in one profile. */
struct side {
	char *location;
	const char *func;
	const struct stats_curve *cv;
};

struct diff_row {
	const struct progress_point *point;	/* of NEW, or of OLD */
	unsigned point_order;
	struct side *o, *n;
	enum change ch;
	bool regression;
	double d, d_half;		/* NAN unless both have intervals */
};

struct diff {
	const char *old_name, *new_name;
	struct profile *old, *new;
	struct diff_row *rows;
	size_t nrows, alloc;
	struct side **sides;		/* to free */
	size_t nsides, sides_alloc;
	size_t nregressions;
	unsigned npoints;		/* points compared so far */
};

static bool
has_interval(const struct stats_curve *cv)
{
	return cv && isfinite(cv->impact) && isfinite(cv->impact_stat_lo) &&
	       isfinite(cv->impact_stat_hi);
}

static bool
significant(const struct stats_curve *cv)
{
	return cv && (cv->verdict == VERDICT_OPTIMIZE || cv->verdict == VERDICT_CONTENTION);
}

/*
 * The statistical half-width: two profiles of one line share the
 * estimator's model error (stats.h), which cancels in their difference.
 */
static double
half(const struct stats_curve *cv)
{
	return (cv->impact_stat_hi - cv->impact_stat_lo) / 2;
}

static void
classify(struct diff_row *r)
{
	const struct stats_curve *o = r->o ? r->o->cv : NULL, *n = r->n ? r->n->cv : NULL;

	r->d = r->d_half = NAN;
	r->ch = CH_SAME;
	if (has_interval(o) && has_interval(n)) {
		r->d = n->impact - o->impact;
		r->d_half = sqrt(half(o) * half(o) + half(n) * half(n));
		if (!(fabs(r->d) > r->d_half && fabs(r->d) >= DIFF_WORTH))
			return;
		if (significant(o) && significant(n) && (o->impact > 0) != (n->impact > 0))
			r->ch = CH_FLIPPED;
		else if (significant(n) && !significant(o))
			r->ch = CH_APPEARED;
		else if (significant(o) && !significant(n))
			r->ch = CH_VANISHED;
		else
			r->ch = fabs(n->impact) > fabs(o->impact) ? CH_GREW : CH_SHRANK;
	} else if (significant(n)) {
		r->ch = CH_APPEARED;
	} else if (significant(o)) {
		r->ch = CH_VANISHED;
	}
	r->regression = n && n->verdict == VERDICT_OPTIMIZE &&
			(r->ch == CH_APPEARED || r->ch == CH_FLIPPED || r->ch == CH_GREW);
}

static int
by_location(const void *a, const void *b)
{
	return strcmp((*(struct side *const *) a)->location,
		      (*(struct side *const *) b)->location);
}

/* The curves of one point, by location. */
static struct side **
sides_of(struct diff *df, struct profile *p, const struct progress_point *pt, size_t *n)
{
	const struct stats_curve *cv;
	struct side **v;

	*n = 0;
	if (!pt)
		return NULL;
	cv = stats_curves(p->stats, pt->id, n);
	v = xcalloc(*n ? *n : 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++) {
		struct causal_target d;
		struct side *s = xcalloc(1, sizeof(*s));

		causal_target_describe(p->lines, cv[i].target, cv[i].is_func, &d);
		s->location = causal_target_location(p->lines, cv[i].target, cv[i].is_func);
		s->func = d.func;
		s->cv = &cv[i];
		v[i] = s;
		if (df->nsides == df->sides_alloc)
			df->sides = xgrowarray(df->sides, &df->sides_alloc, df->nsides + 1,
					       sizeof(*df->sides));
		df->sides[df->nsides++] = s;
	}
	qsort(v, *n, sizeof(*v), by_location);
	return v;
}

static void
add_row(struct diff *df, const struct progress_point *pt, struct side *o, struct side *n)
{
	struct diff_row r = { .point = pt, .point_order = df->npoints, .o = o, .n = n };

	classify(&r);
	if (r.ch == CH_SAME)
		return;
	if (df->nrows == df->alloc)
		df->rows = xgrowarray(df->rows, &df->alloc, df->nrows + 1, sizeof(*df->rows));
	df->rows[df->nrows++] = r;
	df->nregressions += r.regression;
}

static const struct progress_point *
find_point(const struct profile *p, const struct progress_point *like)
{
	size_t n;
	struct progress_point *const *v = progress_points(p->progress, &n);

	for (size_t i = 0; i < n; i++)
		if (v[i]->kind == like->kind && !strcmp(v[i]->name, like->name))
			return v[i];
	return NULL;
}

/* Merge-join the two sides of one point. */
static void
diff_point(struct diff *df, const struct progress_point *op, const struct progress_point *np)
{
	size_t no, nn, i = 0, k = 0;
	struct side **o = sides_of(df, df->old, op, &no);
	struct side **n = sides_of(df, df->new, np, &nn);
	const struct progress_point *pt = np ? np : op;

	while (i < no || k < nn) {
		int c = i == no ? 1 : k == nn ? -1 : strcmp(o[i]->location, n[k]->location);

		if (c < 0)
			add_row(df, pt, o[i++], NULL);
		else if (c > 0)
			add_row(df, pt, NULL, n[k++]);
		else
			add_row(df, pt, o[i++], n[k++]);
	}
	free(o);
	free(n);
	df->npoints++;
}

static void
diff_compute(struct diff *df)
{
	size_t n;
	struct progress_point *const *v = progress_points(df->new->progress, &n);

	for (size_t i = 0; i < n; i++)
		diff_point(df, find_point(df->old, v[i]), v[i]);
	v = progress_points(df->old->progress, &n);
	for (size_t i = 0; i < n; i++)
		if (!find_point(df->new, v[i]))
			diff_point(df, v[i], NULL);
}

static void
diff_free(struct diff *df)
{
	for (size_t i = 0; i < df->nsides; i++) {
		free(df->sides[i]->location);
		free(df->sides[i]);
	}
	free(df->sides);
	free(df->rows);
}

/* ---- text ---- */

/* Untrusted text for a terminal: control bytes and invalid UTF-8 as '?'. */
static void
term_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *) str;

	while (*s) {
		unsigned cp, len = escape_utf8_len(s, &cp);

		if (!len || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			fputc('?', f);
			s += len ? len : 1;
		} else {
			fwrite(s, 1, len, f);
			s += len;
		}
	}
}

static void
text_impact(FILE *f, const struct side *s)
{
	const struct stats_curve *cv = s ? s->cv : NULL;

	if (!cv) {
		fputs("-", f);
		return;
	}
	if (!isfinite(cv->impact))
		fputs("?", f);
	else if (has_interval(cv))
		fprintf(f, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * cv->impact, 100 * cv->impact_lo,
			100 * cv->impact_hi);
	else
		fprintf(f, "%+.1f%%", 100 * cv->impact);
	fprintf(f, " (%s)", stats_verdict_name(cv->verdict));
}

static int
write_text(FILE *f, void *ctx)
{
	struct diff *df = ctx;
	const struct progress_point *last = NULL;

	for (size_t i = 0; i < df->nrows; i++) {
		const struct diff_row *r = &df->rows[i];
		const struct side *s = r->n ? r->n : r->o;

		if (r->point != last) {
			fprintf(f, "%sProgress point \"", last ? "\n" : "");
			term_str(f, r->point->name);
			fprintf(f, "\" (%s): impact if the line ran 100%% faster, old -> new\n",
				r->point->kind == PROGRESS_LATENCY ? "latency" : "throughput");
			last = r->point;
		}
		fprintf(f, "%-9s ", change_names[r->ch]);
		term_str(f, s->location);
		if (s->func) {
			fputs(" (", f);
			term_str(f, s->func);
			fputc(')', f);
		}
		fputs(": ", f);
		text_impact(f, r->o);
		fputs(" -> ", f);
		text_impact(f, r->n);
		if (isfinite(r->d))
			fprintf(f, ", %+.1f points [%+.1f, %+.1f]", 100 * r->d,
				100 * (r->d - r->d_half), 100 * (r->d + r->d_half));
		fputs(r->regression ? "  REGRESSION\n" : "\n", f);
	}
	if (!df->nrows)
		fputs("No significant change of causal impact.\n", f);
	else
		fprintf(f, "\n%zu significant change%s, %zu regression%s.\n", df->nrows,
			df->nrows == 1 ? "" : "s", df->nregressions,
			df->nregressions == 1 ? "" : "s");
	return fflush(f) || ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

static void
json_side(FILE *f, const struct side *s)
{
	const struct stats_curve *cv = s ? s->cv : NULL;

	if (!cv) {
		fputs("null", f);
		return;
	}
	fputs("{\"impact\": {", f);
	escape_json_interval(f, cv->impact, cv->impact_lo, cv->impact_hi);
	fprintf(f, "}, \"verdict\": \"%s\", \"experiments\": %u}",
		stats_verdict_name(cv->verdict), cv->n_exp);
}

static int
write_json(FILE *f, void *ctx)
{
	struct diff *df = ctx;

	fputs("{\n  \"format\": \"causaltop-diff\",\n  \"version\": 1,\n  \"old\": ", f);
	escape_json_str(f, df->old_name);
	fputs(",\n  \"new\": ", f);
	escape_json_str(f, df->new_name);
	fprintf(f, ",\n  \"regressions\": %zu,\n  \"changes\": [", df->nregressions);
	for (size_t i = 0; i < df->nrows; i++) {
		const struct diff_row *r = &df->rows[i];
		const struct side *s = r->n ? r->n : r->o;

		fprintf(f, "%s\n    {\"point\": ", i ? "," : "");
		escape_json_str(f, r->point->name);
		fprintf(f, ", \"kind\": \"%s\", \"change\": \"%s\", \"regression\": %s,\n"
			"     \"location\": ",
			r->point->kind == PROGRESS_LATENCY ? "latency" : "throughput",
			change_names[r->ch], r->regression ? "true" : "false");
		escape_json_str(f, s->location);
		fputs(", \"function\": ", f);
		escape_json_str(f, s->func);
		fputs(",\n     \"old\": ", f);
		json_side(f, r->o);
		fputs(",\n     \"new\": ", f);
		json_side(f, r->n);
		fputs(",\n     \"delta\": ", f);
		if (isfinite(r->d)) {
			fputc('{', f);
			escape_json_interval(f, r->d, r->d - r->d_half, r->d + r->d_half);
			fputc('}', f);
		} else {
			fputs("null", f);
		}
		fputc('}', f);
	}
	fputs(df->nrows ? "\n  ]\n}\n" : "]\n}\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}

/* Regressions first, then by kind of change, then by size. */
static int
by_importance(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = isfinite(x->d) ? fabs(x->d) : INFINITY;
	double dy = isfinite(y->d) ? fabs(y->d) : INFINITY;

	if (x->point_order != y->point_order)
		return x->point_order < y->point_order ? -1 : 1;
	if (x->regression != y->regression)
		return x->regression ? -1 : 1;
	if (x->ch != y->ch)
		return x->ch < y->ch ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp((x->n ? x->n : x->o)->location, (y->n ? y->n : y->o)->location);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
diff_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s diff: ", program_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'causaltop diff --help' for more information.\n", stderr);
	exit(CT_EXIT_USAGE);
}

int
cmd_diff(int argc, char **argv)
{
	struct diff df = { 0 };
	const char *json = NULL;
	bool fail = false;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", diff_options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = optarg ? optarg : "-";
			break;
		case OPT_FAIL:
			fail = true;
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return 0;
		default:
			fputs("Try 'causaltop diff --help' for more information.\n", stderr);
			return CT_EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		diff_usage_error("give two profiles, OLD and NEW");
	df.old_name = argv[optind];
	df.new_name = argv[optind + 1];
	if ((rc = cmd_load(&df.old, argv + optind, 1)))
		return rc;
	if ((rc = cmd_load(&df.new, argv + optind + 1, 1))) {
		profile_free(df.old);
		return rc;
	}
	/*
	 * The curves of one profile's points are computed one point at a
	 * time and stay valid until the next stats_add: none comes.
	 */
	diff_compute(&df);
	if (df.nrows)	/* rows is NULL then, which qsort must not get */
		qsort(df.rows, df.nrows, sizeof(*df.rows), by_importance);
	rc = json ? output_write(json, write_json, &df) : output_write("-", write_text, &df);
	if (!rc && fail && df.nregressions)
		rc = CT_EXIT_REGRESSION;
	diff_free(&df);
	profile_free(df.old);
	profile_free(df.new);
	return rc;
}
