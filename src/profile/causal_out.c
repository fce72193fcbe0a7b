/*
 * Writers of the experiments' results.  Every name written (paths,
 * symbols, progress point names) may come from the target, so each
 * format gets its own escaping: the tab format cannot quote, JSON
 * escapes, and the terminal table must never see control bytes.
 * Numbers are written in the C locale whatever the program's locale is
 * (a TUI calls setlocale, and a decimal comma would break both formats).
 */
#include "config.h"
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/escape.h"
#include "base/path.h"
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "perf/progress.h"
#include "profile/causal_out.h"
#include "ptrace/waitsite.h"
#include "sym/lines.h"
#include "sym/symname.h"

void
causal_target_describe(const struct lines_table *lt, unsigned id, bool is_func,
		       struct causal_target *d)
{
	size_t n = 0;

	memset(d, 0, sizeof(*d));
	if (!lt)
		return;
	if (is_func) {
		struct ct_func *const *f = lines_funcs(lt, &n);

		if (id < n) {
			d->func = f[id]->name;
			d->linkage = f[id]->linkage;
			d->dso = f[id]->dso;
			d->samples = f[id]->samples;
		}
	} else {
		struct ct_line *const *l = lines_lines(lt, &n);

		if (id < n) {
			d->file = l[id]->file;
			d->line = l[id]->line;
			d->func = l[id]->func ? l[id]->func->name : NULL;
			d->linkage = l[id]->func ? l[id]->func->linkage : NULL;
			d->dso = l[id]->func ? l[id]->func->dso : NULL;
			d->samples = l[id]->samples;
		}
	}
}

static const struct progress_point *
point_of(const struct progress_table *pt, unsigned id)
{
	size_t n = 0;
	struct progress_point *const *p = pt ? progress_points(pt, &n) : NULL;

	return id < n ? p[id] : NULL;
}

static const char *
point_kind(bool latency)
{
	return latency ? "latency" : "throughput";
}

/* Any record measured progress on this point. */
static bool
point_has_data(const struct exp_record *r, size_t n, unsigned point)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < r[i].npoints; k++)
			if (r[i].points[k].point == point &&
			    (r[i].points[k].delta || r[i].points[k].arrivals))
				return true;
	return false;
}

bool
causal_point_measured(const struct stats *st, unsigned point)
{
	size_t n;
	const struct exp_record *r = stats_records(st, &n);

	return point_has_data(r, n, point);
}

/* Numbers in the C locale for the duration of one writer. */
struct numeric_locale {
	locale_t c, saved;
};

static void
numeric_c_begin(struct numeric_locale *nl)
{
	nl->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t) 0);
	nl->saved = nl->c ? uselocale(nl->c) : (locale_t) 0;
}

static void
numeric_c_end(struct numeric_locale *nl)
{
	if (!nl->c)
		return;
	uselocale(nl->saved);
	freelocale(nl->c);
}

static int
finish(FILE *f)
{
	return fflush(f) || ferror(f) ? -1 : 0;
}

/* ---- Coz's tab format ---- */

/* No quoting exists: a tab or newline would split the record. */
static void
coz_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;

		fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, f);
	}
}

static void
coz_target(FILE *f, const struct lines_table *lt, unsigned id, bool is_func)
{
	struct causal_target d;

	causal_target_describe(lt, id, is_func, &d);
	if (is_func) {
		fputs("function:", f);
		if (d.func)
			coz_str(f, d.func);
		else
			fprintf(f, "#%u", id);
	} else if (d.file) {
		coz_str(f, d.file);
		fprintf(f, ":%u", d.line);
	} else {
		fprintf(f, "line#%u:0", id);
	}
}

static void
coz_point_name(FILE *f, const struct progress_table *pt, unsigned id)
{
	const struct progress_point *p = point_of(pt, id);

	if (p)
		coz_str(f, p->name);
	else
		fprintf(f, "point#%u", id);
}

int
causal_write_coz(FILE *f, const struct causal_meta *meta, struct stats *st,
		 const struct lines_table *lt, const struct progress_table *pt)
{
	struct numeric_locale nl;
	const struct exp_record *r;
	size_t n, nlines = 0;

	numeric_c_begin(&nl);
	r = stats_records(st, &n);
	fprintf(f, "startup\ttime=%llu\n",
		(unsigned long long) meta->startup_realtime_ns);
	for (size_t i = 0; i < n; i++) {
		/* Signed: a negative duration is one Coz's viewer discards. */
		long long dur = (long long) (r[i].wall_ns - r[i].delay_ns);

		/* Pooled runs stay runs, as Coz appends them. */
		if (i && r[i].run != r[i - 1].run)
			fprintf(f, "startup\ttime=%llu\n",
				(unsigned long long) meta->startup_realtime_ns);

		fputs("experiment\tselected=", f);
		coz_target(f, lt, r[i].target, r[i].is_func);
		/* Not %.2f: whole percents need no locale. */
		fprintf(f, "\tspeedup=%u.%02u\tduration=%lld\tselected-samples=%llu\n",
			r[i].pct / 100, r[i].pct % 100, dur,
			(unsigned long long) r[i].selected_samples);
		/* Coz writes every throughput point, then every latency point. */
		for (size_t k = 0; k < r[i].npoints; k++) {
			const struct exp_point *p = &r[i].points[k];

			if (p->latency)
				continue;
			fputs("throughput-point\tname=", f);
			coz_point_name(f, pt, p->point);
			fprintf(f, "\tdelta=%llu\n", (unsigned long long) p->delta);
		}
		for (size_t k = 0; k < r[i].npoints; k++) {
			const struct exp_point *p = &r[i].points[k];

			if (!p->latency)
				continue;
			fputs("latency-point\tname=", f);
			coz_point_name(f, pt, p->point);
			fprintf(f, "\tarrivals=%llu\tdepartures=%llu\tdifference=%llu\n",
				(unsigned long long) p->arrivals,
				(unsigned long long) p->delta,
				(unsigned long long) p->difference);
		}
	}
	fprintf(f, "runtime\ttime=%llu\n", (unsigned long long)
		(meta->end_ns > meta->start_ns ? meta->end_ns - meta->start_ns : 0));
	if (lt) {
		struct ct_line *const *l = lines_lines(lt, &nlines);

		for (size_t i = 0; i < nlines; i++) {
			if (!l[i]->samples)
				continue;
			fputs("samples\tlocation=", f);
			coz_str(f, l[i]->file);
			fprintf(f, ":%u\tcount=%llu\n", l[i]->line,
				(unsigned long long) l[i]->samples);
		}
	}
	numeric_c_end(&nl);
	return finish(f);
}

/* ---- JSON ---- */

static void
json_u64(FILE *f, uint64_t v)
{
	fprintf(f, "%llu", (unsigned long long) v);
}

/* The statistical interval, beside the one with the model error. */
static void
json_stat_interval(FILE *f, double lo, double hi)
{
	fputs(", \"stat_lo\": ", f);
	escape_json_num(f, lo);
	fputs(", \"stat_hi\": ", f);
	escape_json_num(f, hi);
}

static void
json_bool(FILE *f, bool v)
{
	fputs(v ? "true" : "false", f);
}



char *
causal_target_location(const struct lines_table *lt, unsigned id, bool is_func)
{
	struct causal_target d;

	causal_target_describe(lt, id, is_func, &d);
	if (is_func)
		return d.func ? xasprintf("function:%s", d.func) :
				xasprintf("function:#%u", id);
	return d.file ? xasprintf("%s:%u", d.file, d.line) :
			xasprintf("line#%u:0", id);
}

static void
json_target_id(FILE *f, const struct lines_table *lt, unsigned id, bool is_func)
{
	char *loc = causal_target_location(lt, id, is_func);

	fprintf(f, "\"kind\": \"%s\", \"id\": %u, \"location\": ",
		is_func ? "function" : "line", id);
	escape_json_str(f, loc);
	free(loc);
}

static void
json_run(FILE *f, const struct causal_meta *m, struct stats *st)
{
	uint64_t span = m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
	size_t nrecs;

	stats_records(st, &nrecs);
	fputs("  \"run\": {\n    \"command\": ", f);
	if (m->command) {
		fputc('[', f);
		for (char *const *a = m->command; *a; a++) {
			if (a != m->command)
				fputs(", ", f);
			escape_json_str(f, *a);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\n    \"pid\": %d,\n    \"pids\": [", (int) m->pid);
	for (size_t i = 0; i < (m->pids ? m->npids : 1); i++)
		fprintf(f, "%s%d", i ? ", " : "", (int) (m->pids ? m->pids[i] : m->pid));
	fputs("],\n    \"exe\": ", f);
	escape_json_str(f, m->exe);
	fputs(",\n    \"build_id\": ", f);
	escape_json_str(f, m->build_id);
	fputs(",\n    \"startup_realtime_ns\": ", f);
	json_u64(f, m->startup_realtime_ns);
	fputs(",\n    \"start_ns\": ", f);
	json_u64(f, m->start_ns);
	fputs(",\n    \"end_ns\": ", f);
	json_u64(f, m->end_ns);
	fputs(",\n    \"duration_ns\": ", f);
	json_u64(f, span);
	fputs(",\n    \"period_ns\": ", f);
	json_u64(f, m->period_ns);
	fputs(",\n    \"sampler\": ", f);
	escape_json_str(f, m->sampler);
	fputs(",\n    \"wake_tracking\": ", f);
	escape_json_str(f, m->wake_tracking);
	fprintf(f, ",\n    \"granularity\": \"%s\"",
		m->by_function ? "function" : "line");
	fputs(",\n    \"delay_ns\": ", f);
	if (m->delay_unknown)
		fputs("null", f);
	else
		json_u64(f, m->delay_ns);
	fputs(",\n    \"delay_pct\": ", f);
	escape_json_num(f, span && !m->delay_unknown ? 100.0 * m->delay_ns / span : NAN);
	fputs(",\n    \"samples_total\": ", f);
	json_u64(f, m->samples_total);
	fprintf(f, ",\n    \"runs\": %u", m->runs ? m->runs : 1);
	fprintf(f, ",\n    \"experiments\": %zu,\n    \"baselines\": %zu\n  }",
		nrecs - stats_baselines(st), stats_baselines(st));
}

static void
json_points(FILE *f, const struct progress_table *pt, const struct exp_record *r,
	    size_t nrecs)
{
	size_t n = 0;
	struct progress_point *const *p = pt ? progress_points(pt, &n) : NULL;

	fputs(",\n  \"progress_points\": [", f);
	for (size_t i = 0; i < n; i++) {
		bool lat = p[i]->kind == PROGRESS_LATENCY;

		fprintf(f, "%s\n    {\"index\": %zu, \"name\": ", i ? "," : "", i);
		escape_json_str(f, p[i]->name);
		fprintf(f, ", \"kind\": \"%s\", \"source\": ", point_kind(lat));
		escape_json_str(f, p[i]->source);
		fputs(", \"count\": ", f);
		json_u64(f, p[i]->count);
		if (lat) {
			fputs(", \"arrivals\": ", f);
			json_u64(f, p[i]->arrivals);
		}
		fputs(", \"measured\": ", f);
		json_bool(f, point_has_data(r, nrecs, (unsigned) i));
		fputc('}', f);
	}
	fputs(n ? "\n  ]" : "]", f);
}

static void
json_curve(FILE *f, const struct causal_meta *m, const struct lines_table *lt,
	   const struct stats_curve *cv, size_t rank)
{
	struct causal_target d;

	causal_target_describe(lt, cv->target, cv->is_func, &d);
	fprintf(f, "        {\"rank\": %zu, ", rank);
	json_target_id(f, lt, cv->target, cv->is_func);
	fputs(",\n         \"file\": ", f);
	escape_json_str(f, d.file);
	fputs(", \"line\": ", f);
	if (d.file)
		fprintf(f, "%u", d.line);
	else
		fputs("null", f);
	fputs(", \"function\": ", f);
	escape_json_str(f, d.func);
	fputs(", \"linkage_name\": ", f);
	escape_json_str(f, d.linkage ? d.linkage : d.func);
	fputs(", \"dso\": ", f);
	escape_json_str(f, d.dso);
	fputs(",\n         \"samples\": ", f);
	json_u64(f, d.samples);
	fputs(", \"samples_pct\": ", f);
	escape_json_num(f, m->samples_total ? 100.0 * d.samples / m->samples_total : NAN);
	fputs(", \"selected_samples\": ", f);
	json_u64(f, cv->selected_samples);
	fprintf(f, ", \"experiments\": %u,\n         \"levels\": [", cv->n_exp);
	for (size_t k = 0; k < cv->nlevels; k++) {
		const struct stats_level *lv = &cv->levels[k];

		fprintf(f, "%s\n          {\"speedup_pct\": %u, \"n_exp\": %u, \"events\": ",
			k ? "," : "", lv->pct, lv->n_exp);
		json_u64(f, lv->events);
		fputs(", \"valid\": ", f);
		json_bool(f, lv->valid);
		fputs(", ", f);
		escape_json_interval(f, lv->est, lv->lo, lv->hi);
		json_stat_interval(f, lv->stat_lo, lv->stat_hi);
		fputc('}', f);
	}
	fputs(cv->nlevels ? "\n         ],\n" : "],\n", f);
	fputs("         \"slope\": {\"valid\": ", f);
	json_bool(f, cv->slope_valid);
	fputs(", ", f);
	escape_json_interval(f, cv->slope, cv->slope_lo, cv->slope_hi);
	fputs("},\n         \"impact\": {", f);
	escape_json_interval(f, cv->impact, cv->impact_lo, cv->impact_hi);
	json_stat_interval(f, cv->impact_stat_lo, cv->impact_stat_hi);
	fprintf(f, "},\n         \"verdict\": \"%s\"}", stats_verdict_name(cv->verdict));
}

static void
json_results(FILE *f, const struct causal_meta *m, struct stats *st,
	     const struct lines_table *lt, const struct progress_table *pt,
	     const struct exp_record *r, size_t nrecs)
{
	size_t npoints = 0, nout = 0;

	if (pt)
		progress_points(pt, &npoints);
	fputs(",\n  \"results\": [", f);
	for (size_t i = 0; i < npoints; i++) {
		const struct progress_point *p = point_of(pt, (unsigned) i);
		const struct stats_curve *cv;
		size_t ncv;

		if (!point_has_data(r, nrecs, (unsigned) i))
			continue;
		cv = stats_curves(st, (unsigned) i, &ncv);
		fprintf(f, "%s\n    {\"point\": %zu, \"name\": ", nout++ ? "," : "", i);
		escape_json_str(f, p->name);
		fprintf(f, ", \"kind\": \"%s\",\n      \"targets\": [",
			point_kind(p->kind == PROGRESS_LATENCY));
		for (size_t k = 0; k < ncv; k++) {
			fputs(k ? ",\n" : "\n", f);
			json_curve(f, m, lt, &cv[k], k + 1);
		}
		fputs(ncv ? "\n      ]}" : "]}", f);
	}
	fputs(nout ? "\n  ]" : "]", f);
}

static void
json_experiments(FILE *f, const struct lines_table *lt,
		 const struct exp_record *r, size_t nrecs)
{
	fputs(",\n  \"experiments\": [", f);
	for (size_t i = 0; i < nrecs; i++) {
		fprintf(f, "%s\n    {\"index\": %zu, \"run\": %u, \"target\": {", i ? "," : "",
			i, r[i].run);
		json_target_id(f, lt, r[i].target, r[i].is_func);
		fprintf(f, "}, \"speedup_pct\": %u, \"start_ns\": ", r[i].pct);
		json_u64(f, r[i].start_ns);
		fputs(", \"wall_ns\": ", f);
		json_u64(f, r[i].wall_ns);
		fputs(", \"delay_ns\": ", f);
		json_u64(f, r[i].delay_ns);
		fprintf(f, ", \"duration_ns\": %lld, \"selected_samples\": ",
			(long long) (r[i].wall_ns - r[i].delay_ns));
		json_u64(f, r[i].selected_samples);
		if (r[i].steal_known) {
			fputs(", \"steal_ns\": ", f);
			json_u64(f, r[i].steal_ns);
		}
		fputs(",\n     \"points\": [", f);
		for (size_t k = 0; k < r[i].npoints; k++) {
			const struct exp_point *p = &r[i].points[k];

			fprintf(f, "%s{\"point\": %u, \"kind\": \"%s\", ", k ? ", " : "",
				p->point, point_kind(p->latency));
			if (p->latency) {
				fputs("\"departures\": ", f);
				json_u64(f, p->delta);
				fputs(", \"arrivals\": ", f);
				json_u64(f, p->arrivals);
				fputs(", \"inflight\": ", f);
				escape_json_num(f, p->inflight);
				fputs(", \"difference\": ", f);
				json_u64(f, p->difference);
			} else {
				fputs("\"delta\": ", f);
				json_u64(f, p->delta);
			}
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs(nrecs ? "\n  ]" : "]", f);
}

static void
json_wait_frame(FILE *f, const struct wait_frame *w)
{
	fputs("{\"function\": ", f);
	escape_json_str(f, w->func ? w->func->name : NULL);
	fputs(", \"dso\": ", f);
	escape_json_str(f, w->func ? w->func->dso : NULL);
	fputs(", \"file\": ", f);
	escape_json_str(f, w->line ? w->line->file : NULL);
	fprintf(f, ", \"line\": %u, \"in_scope\": ", w->line ? w->line->line : 0);
	json_bool(f, w->in_scope);
	fputc('}', f);
}

/* Written only by a session that took stacks; read back by nobody yet. */
static void
json_waits(FILE *f, const struct causal_meta *m)
{
	const struct wait_stats *ws = m->wait_stats;

	if (!ws || !ws->taken)
		return;
	fputs(",\n  \"wait_sites\": {\n    \"stacks\": ", f);
	json_u64(f, ws->taken);
	fputs(", \"skipped\": ", f);
	json_u64(f, ws->skipped);
	fputs(", \"unwind_ns_mean\": ", f);
	json_u64(f, ws->ns_total / ws->taken);
	fputs(", \"unwind_ns_max\": ", f);
	json_u64(f, ws->ns_max);
	fputs(",\n    \"sites\": [", f);
	for (size_t i = 0; i < m->nwaits; i++) {
		const struct wait_site *w = m->waits[i];

		fputs(i ? ",\n      {" : "\n      {", f);
		fputs("\"count\": ", f);
		json_u64(f, w->count);
		fprintf(f, ", \"syscall_nr\": %ld, \"syscall\": ", w->syscall);
		escape_json_str(f, w->syscall_name);
		fputs(", \"label\": ", f);
		escape_json_str(f, w->label);
		fputs(", \"call\": ", f);
		if (w->call >= 0)
			json_wait_frame(f, &w->frames[w->call]);
		else
			fputs("null", f);
		fputs(", \"caller\": ", f);
		if (w->caller >= 0)
			json_wait_frame(f, &w->frames[w->caller]);
		else
			fputs("null", f);
		fputs(",\n       \"frames\": [", f);
		for (unsigned k = 0; k < w->nframes; k++) {
			fputs(k ? ",\n         " : "\n         ", f);
			json_wait_frame(f, &w->frames[k]);
		}
		fputs("]}", f);
	}
	fputs("\n    ]\n  }", f);
}

int
causal_write_json(FILE *f, const struct causal_meta *meta, struct stats *st,
		  const struct lines_table *lt, const struct progress_table *pt)
{
	struct numeric_locale nl;
	const struct exp_record *r;
	size_t nrecs;

	numeric_c_begin(&nl);
	r = stats_records(st, &nrecs);
	fputs("{\n  \"format\": \"causaltop-profile\",\n  \"version\": 1,\n", f);
	json_run(f, meta, st);
	json_points(f, pt, r, nrecs);
	json_results(f, meta, st, lt, pt, r, nrecs);
	json_experiments(f, lt, r, nrecs);
	json_waits(f, meta);
	fputs("\n}\n", f);
	numeric_c_end(&nl);
	return finish(f);
}

/* ---- the --no-tui table ---- */

enum {
	COL_RANK = 4,
	COL_LOC = 18,
	COL_FUNC = 12,
	COL_SAMPLES = 6,
	COL_EXP = 4,
	COL_LEVEL = 10,
	COL_IMPACT = 11,
	NAME_WIDTH = 60,	/* a point's name in its header */
};

static const unsigned table_levels[] = { 10, 25, 50, 100 };

/*
 * Write s into out (at most 4 * width + 4 bytes) for a terminal: UTF-8
 * kept, every control character and invalid byte shown as '?', cut to
 * width columns with "..." at the end, or at the start when keep_tail
 * (a location's line number matters more than its directory).  Each
 * character counts one column.  Returns the columns used.
 */
static unsigned
term_text(char *out, const char *str, unsigned width, bool keep_tail)
{
	const unsigned char *s = (const unsigned char *) str;
	size_t n = 0, from = 0;
	unsigned cols = 0, skip, keep;
	char *o = out;

	for (const unsigned char *p = s; *p; n++) {
		unsigned cp, len = escape_utf8_len(p, &cp);

		p += len ? len : 1;
	}
	keep = n <= width ? (unsigned) n : width > 3 ? width - 3 : width;
	skip = keep_tail && n > width ? (unsigned) (n - keep) : 0;
	if (n > width && keep_tail && width > 3) {
		memcpy(o, "...", 3);
		o += 3;
		cols += 3;
	}
	for (const unsigned char *p = s; *p && from < skip + keep; from++) {
		unsigned cp, len = escape_utf8_len(p, &cp);
		bool printable = len && cp >= 0x20 && cp != 0x7f &&
				 !(cp >= 0x80 && cp < 0xa0);

		if (from >= skip) {
			if (printable) {
				memcpy(o, p, len);
				o += len;
			} else {
				*o++ = '?';
			}
			cols++;
		}
		p += len ? len : 1;
	}
	if (n > width && !keep_tail && width > 3) {
		memcpy(o, "...", 3);
		o += 3;
		cols += 3;
	}
	*o = '\0';
	return cols;
}

/* Text padded to width columns; right-aligned or left. */
static void
put_cell(FILE *f, const char *text, unsigned cols, unsigned width, bool right)
{
	unsigned pad = cols < width ? width - cols : 0;

	if (right)
		fprintf(f, "%*s%s", (int) pad, "", text);
	else
		fprintf(f, "%s%*s", text, (int) pad, "");
}

/* Columns of a string whose only non-ASCII character is one "±". */
static unsigned
pm_cols(const char *s)
{
	return (unsigned) strlen(s) - (strstr(s, "±") ? 1 : 0);
}

static double
clip(double v, double lim)
{
	return v > lim ? lim : v < -lim ? -lim : v;
}

/* "+12.3%±2.1", fewer decimals when wide. */
static unsigned
level_cell(char *buf, size_t size, const struct stats_level *lv)
{
	double est = 100 * lv->est, half = 100 * (lv->hi - lv->lo) / 2;

	snprintf(buf, size, "%+.1f%%±%.1f", est, half);
	if (pm_cols(buf) > COL_LEVEL)
		snprintf(buf, size, "%+.0f%%±%.0f", clip(est, 999), clip(half, 999));
	return pm_cols(buf);
}

/*
 * The impact, what the verdict rests on: the program speedup at 100%
 * fitted over every level, "+12.3%±2.1", fewer decimals when wide.
 */
static unsigned
impact_cell(char *buf, size_t size, const struct stats_curve *cv)
{
	double est = 100 * cv->impact, half = 100 * (cv->impact_hi - cv->impact_lo) / 2;

	snprintf(buf, size, "%+.1f%%±%.1f", est, half);
	if (pm_cols(buf) > COL_IMPACT)
		snprintf(buf, size, "%+.0f%%±%.0f", clip(est, 999), clip(half, 999));
	return pm_cols(buf);
}

static const struct stats_level *
level_of(const struct stats_curve *cv, unsigned pct)
{
	for (size_t k = 0; k < cv->nlevels; k++)
		if (cv->levels[k].pct == pct)
			return &cv->levels[k];
	return NULL;
}

static void
table_row(FILE *f, const struct causal_meta *m, const struct lines_table *lt,
	  const struct stats_curve *cv, size_t rank)
{
	char text[4 * COL_LOC + 8], cell[64], *brief;
	struct causal_target d;
	unsigned cols;

	causal_target_describe(lt, cv->target, cv->is_func, &d);
	/* A column is too narrow for C++'s templates and parameters. */
	brief = d.func ? symname_brief(d.func) : NULL;
	fprintf(f, "%*zu ", COL_RANK, rank);
	if (cv->is_func) {
		/* "binary+0xADDR" (no symbol): the address tells them apart. */
		cols = term_text(text, brief ? brief : "?", COL_LOC,
				 brief && strstr(brief, "+0x"));
	} else {
		char *loc = d.file ? xasprintf("%s:%u", base_name(d.file), d.line) :
				     xasprintf("line#%u", cv->target);

		cols = term_text(text, loc, COL_LOC, true);
		free(loc);
	}
	put_cell(f, text, cols, COL_LOC, false);
	fputc(' ', f);
	if (cv->is_func)
		cols = term_text(text, d.dso ? base_name(d.dso) : "?", COL_FUNC, true);
	else
		cols = term_text(text, brief ? brief : "?", COL_FUNC, false);
	put_cell(f, text, cols, COL_FUNC, false);
	free(brief);
	fputc(' ', f);
	if (m->samples_total)
		snprintf(cell, sizeof(cell), "%.1f%%", 100.0 * d.samples / m->samples_total);
	else
		snprintf(cell, sizeof(cell), "-");
	put_cell(f, cell, (unsigned) strlen(cell), COL_SAMPLES, true);
	/* The experiments behind the row's figures (baselines are shared). */
	snprintf(cell, sizeof(cell), "%u", cv->n_exp);
	fputc(' ', f);
	put_cell(f, cell, (unsigned) strlen(cell), COL_EXP, true);
	for (size_t k = 0; k < sizeof(table_levels) / sizeof(table_levels[0]); k++) {
		const struct stats_level *lv = level_of(cv, table_levels[k]);

		fputc(' ', f);
		if (lv && lv->valid)
			cols = level_cell(cell, sizeof(cell), lv);
		else
			cols = (unsigned) strlen(strcpy(cell, "-"));
		put_cell(f, cell, cols, COL_LEVEL, true);
	}
	fputc(' ', f);
	if (stats_curve_measured(cv))
		cols = impact_cell(cell, sizeof(cell), cv);
	else
		cols = (unsigned) strlen(strcpy(cell, "-"));
	put_cell(f, cell, cols, COL_IMPACT, true);
	fprintf(f, " %s\n", stats_verdict_name(cv->verdict));
}

static void
table_point(FILE *f, const struct causal_meta *m, struct stats *st,
	    const struct lines_table *lt, const struct progress_table *pt,
	    unsigned point, unsigned top)
{
	const struct progress_point *p = point_of(pt, point);
	const struct stats_curve *cv;
	char name[4 * NAME_WIDTH + 8];
	size_t ncv, nrecs, nbase = stats_baselines(st), shown;
	uint64_t span = m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;

	stats_records(st, &nrecs);
	cv = stats_curves(st, point, &ncv);
	term_text(name, p ? p->name : "?", NAME_WIDTH, false);
	fprintf(f, "Progress point \"%s\" (%s): %zu experiments, %zu baselines",
		name, point_kind(p && p->kind == PROGRESS_LATENCY),
		nrecs - nbase, nbase);
	if (m->runs > 1)
		fprintf(f, ", %u runs", m->runs);
	if (span && !m->delay_unknown)
		fprintf(f, ", delay inserted %.1f%% of wall time",
			100.0 * m->delay_ns / span);
	fprintf(f, "\nPredicted program speedup (95%% interval, model error in) if the %s is sped up by "
		"10/25/50/100%%; impact: at 100%%,\nfitted over every level, which the verdict "
		"rests on (optimize/contention only if it excludes 0).\n",
		m->by_function ? "function" : "line");
	fprintf(f, "%*s %-*s %-*s %*s %*s", COL_RANK, "rank", COL_LOC, "location",
		COL_FUNC, m->by_function ? "module" : "function", COL_SAMPLES,
		"samp%", COL_EXP, "exp");
	for (size_t k = 0; k < sizeof(table_levels) / sizeof(table_levels[0]); k++)
		fprintf(f, " %*u%%", COL_LEVEL - 1, table_levels[k]);
	fprintf(f, " %*s verdict\n", COL_IMPACT, "impact");
	shown = top && top < ncv ? top : ncv;
	for (size_t k = 0; k < shown; k++)
		table_row(f, m, lt, &cv[k], k + 1);
	if (shown < ncv)
		fprintf(f, "(%zu more not shown)\n", ncv - shown);
}

void
causal_print_table(FILE *f, const struct causal_meta *meta, struct stats *st,
		   const struct lines_table *lt, const struct progress_table *pt,
		   unsigned top)
{
	struct numeric_locale nl;
	const struct exp_record *r;
	size_t nrecs, npoints = 0, ntables = 0;

	numeric_c_begin(&nl);
	r = stats_records(st, &nrecs);
	if (pt)
		progress_points(pt, &npoints);
	if (nrecs == stats_baselines(st)) {
		if (!npoints)
			fputs("No causal experiments were run: no progress point was seen.\n", f);
		else if (!nrecs)
			fputs("No causal experiments were run.\n", f);
		else
			fprintf(f, "No causal experiments with a speedup were run "
				"(%zu baselines only).\n", nrecs);
		numeric_c_end(&nl);
		return;
	}
	for (size_t i = 0; i < npoints; i++) {
		if (!point_has_data(r, nrecs, (unsigned) i))
			continue;
		if (ntables++)
			fputc('\n', f);
		table_point(f, meta, st, lt, pt, (unsigned) i, top);
	}
	if (!ntables)
		fprintf(f, "No progress was measured during the %zu causal experiment%s.\n",
			nrecs, nrecs == 1 ? "" : "s");
	numeric_c_end(&nl);
}
