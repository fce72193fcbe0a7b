/*
 * causaltop's JSON document (doc/profile-json.md), read with json-c.
 * The experiments are the data; "results" only lends the targets their
 * function, module and sample counts (the curves are recomputed).
 * Errors in the syntax name line and column; errors in the content name
 * the member, as "experiments[3].points[0].delta".
 */
#include "config.h"
#include <json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "profile/profile_parse.h"
#include "sym/lines.h"

enum { J_ABSENT = -1 };	/* an optional member is missing or null */

enum { PATH_MAX_LEN = 128 };

/* What "results" says about one target of the file. */
struct tinfo {
	bool is_func;
	uint64_t id;
	const char *location, *func, *dso;
	uint64_t samples;
};

struct jdoc {
	struct profile_parse *pp;
	unsigned *point_map;		/* file's point index -> table id */
	bool *point_latency;
	size_t npoints;
	struct tinfo *tinfo;
	size_t ntinfo;
	size_t first_run;		/* the document's first run in the profile */
	size_t nexperiments;
};

static int __attribute__((format(printf, 3, 4)))
jerr(struct jdoc *d, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pp_error(d->pp, 0, "%s: %s", path, msg);
}

/* The member, NULL when absent or null. */
static struct json_object *
member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* A member's path for messages, cut if it must be. */
static void __attribute__((format(printf, 2, 3)))
pathf(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, PATH_MAX_LEN, fmt, ap);
	va_end(ap);
}

static void
subpath(char *out, const char *path, const char *key)
{
	pathf(out, "%s%s%s", path, *path ? "." : "", key);
}

static int
get_u64(struct jdoc *d, struct json_object *o, const char *path, const char *key,
	bool required, uint64_t *v)
{
	struct json_object *m = member(o, key);
	char at[PATH_MAX_LEN];

	subpath(at, path, key);
	if (!m)
		return required ? jerr(d, at, "missing") : J_ABSENT;
	if (pj_u64(m, v))
		return jerr(d, at, "%s is not an unsigned integer", pj_show(m));
	return 0;
}

static int
get_str(struct jdoc *d, struct json_object *o, const char *path, const char *key,
	bool required, const char **v)
{
	struct json_object *m = member(o, key);
	char at[PATH_MAX_LEN];

	subpath(at, path, key);
	if (!m)
		return required ? jerr(d, at, "missing") : J_ABSENT;
	if (pj_str(m, v))
		return jerr(d, at, "%s is not a string", pj_show(m));
	return 0;
}

static int
get_typed(struct jdoc *d, struct json_object *o, const char *path, const char *key,
	  bool required, enum json_type type, struct json_object **v)
{
	char at[PATH_MAX_LEN];

	*v = member(o, key);
	subpath(at, path, key);
	if (!*v)
		return required ? jerr(d, at, "missing") : J_ABSENT;
	if (!json_object_is_type(*v, type))
		return jerr(d, at, "%s is not %s", pj_show(*v),
			    type == json_type_array ? "an array" : "an object");
	return 0;
}

/* "line" or "function". */
static int
get_kind(struct jdoc *d, struct json_object *o, const char *path, bool *is_func)
{
	const char *k;
	int rc;

	if ((rc = get_str(d, o, path, "kind", true, &k)) > 0)
		return rc;
	if (strcmp(k, "line") && strcmp(k, "function")) {
		char at[PATH_MAX_LEN];

		subpath(at, path, "kind");
		return jerr(d, at, "\"%.40s\" is neither \"line\" nor \"function\"", k);
	}
	*is_func = !strcmp(k, "function");
	return 0;
}

/* ---- run ---- */

static char **
copy_argv(struct json_object *a, char **joined)
{
	size_t n = json_object_array_length(a), len = 1;
	char **argv = xcalloc(n + 1, sizeof(*argv));

	for (size_t i = 0; i < n; i++) {
		argv[i] = xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
		len += strlen(argv[i]) + 1;
	}
	*joined = xcalloc(1, len);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(*joined, " ");
		strcat(*joined, argv[i]);
	}
	return argv;
}

static int
read_run(struct jdoc *d, struct json_object *run)
{
	struct profile *p = d->pp->p;
	struct profile_run *r = &p->runs[p->nruns - 1];
	struct causal_meta *m = &p->meta;
	const char *strs[] = { "exe", "build_id", "sampler", "wake_tracking" };
	const char **meta_strs[] = { &m->exe, &m->build_id, &m->sampler, &m->wake_tracking };
	struct json_object *cmd;
	uint64_t v, start = 0, end = 0;
	const char *s;
	int rc;

	if ((rc = get_typed(d, run, "run", "command", false, json_type_array, &cmd)) > 0)
		return rc;
	if (!rc) {
		char **argv, *joined;

		for (size_t i = 0; i < json_object_array_length(cmd); i++) {
			if (pj_str(json_object_array_get_idx(cmd, i), &s))
				return jerr(d, "run.command", "element %zu is not a string", i);
		}
		argv = copy_argv(cmd, &joined);
		r->command = joined;
		if (!p->command) {
			p->command = argv;
		} else {
			for (char **a = argv; *a; a++)
				free(*a);
			free(argv);
		}
	}
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if ((rc = get_str(d, run, "run", strs[i], false, &s)) > 0)
			return rc;
		if (!rc && !*meta_strs[i])
			*meta_strs[i] = profile_intern(p, s);
	}
	if ((rc = get_u64(d, run, "run", "pid", false, &v)) > 0)
		return rc;
	if (!rc && !m->pid && v <= 0x7fffffff)
		m->pid = (pid_t) v;
	if ((rc = get_u64(d, run, "run", "period_ns", false, &v)) > 0)
		return rc;
	if (!rc && !m->period_ns)
		m->period_ns = v;
	if ((rc = get_u64(d, run, "run", "startup_realtime_ns", false, &v)) > 0)
		return rc;
	if (!rc) {
		r->startup_realtime_ns = v;
		if (!m->startup_realtime_ns)
			m->startup_realtime_ns = v;
	}
	if ((rc = get_u64(d, run, "run", "start_ns", false, &start)) > 0 ||
	    (rc = get_u64(d, run, "run", "end_ns", false, &end)) > 0)
		return rc;
	if ((rc = get_u64(d, run, "run", "duration_ns", false, &v)) > 0)
		return rc;
	r->duration_ns = !rc ? v : end > start ? end - start : 0;
	p->duration_ns += r->duration_ns;
	if ((rc = get_u64(d, run, "run", "delay_ns", false, &v)) > 0)
		return rc;
	if (!rc)
		p->delay_ns += v;
	else
		p->runs_delay_unknown++;
	if ((rc = get_u64(d, run, "run", "samples_total", false, &v)) > 0)
		return rc;
	if (!rc)
		p->samples_total += v;
	if ((rc = get_str(d, run, "run", "granularity", false, &s)) > 0)
		return rc;
	if (!rc && !strcmp(s, "function"))
		p->runs_function++;
	return 0;
}

/* ---- progress points ---- */

static int
read_points(struct jdoc *d, struct json_object *arr)
{
	d->npoints = json_object_array_length(arr);
	d->point_map = xcalloc(d->npoints, sizeof(*d->point_map));
	d->point_latency = xcalloc(d->npoints, sizeof(*d->point_latency));
	for (size_t i = 0; i < d->npoints; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		char path[PATH_MAX_LEN], at[PATH_MAX_LEN];
		const char *name, *kind, *source = "file";
		struct progress_point *pt;
		uint64_t v;
		int rc;

		pathf(path, "progress_points[%zu]", i);
		if (!json_object_is_type(o, json_type_object))
			return jerr(d, path, "not an object");
		if ((rc = get_str(d, o, path, "name", true, &name)) > 0 ||
		    (rc = get_str(d, o, path, "kind", true, &kind)) > 0 ||
		    (rc = get_str(d, o, path, "source", false, &source)) > 0)
			return rc;
		if ((rc = get_u64(d, o, path, "index", false, &v)) > 0)
			return rc;
		if (!rc && v != i) {
			subpath(at, path, "index");
			return jerr(d, at, "%llu, not its position %zu", (unsigned long long) v, i);
		}
		if (strcmp(kind, "throughput") && strcmp(kind, "latency")) {
			subpath(at, path, "kind");
			return jerr(d, at, "\"%.40s\" is neither \"throughput\" nor \"latency\"",
				    kind);
		}
		d->point_latency[i] = !strcmp(kind, "latency");
		pt = profile_point(d->pp->p, name, d->point_latency[i] ? PROGRESS_LATENCY :
				   PROGRESS_THROUGHPUT, source);
		d->point_map[i] = pt->id;
		if ((rc = get_u64(d, o, path, "count", false, &v)) > 0)
			return rc;
		if (!rc)
			pt->count += v;
		if ((rc = get_u64(d, o, path, "arrivals", false, &v)) > 0)
			return rc;
		if (!rc)
			pt->arrivals += v;
	}
	return 0;
}

/* ---- what results say of targets ---- */

static int
by_kind_id(const void *a, const void *b)
{
	const struct tinfo *x = a, *y = b;

	if (x->is_func != y->is_func)
		return x->is_func ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct tinfo *
tinfo_find(struct jdoc *d, bool is_func, uint64_t id)
{
	struct tinfo key = { .is_func = is_func, .id = id };

	return d->ntinfo ? bsearch(&key, d->tinfo, d->ntinfo, sizeof(key), by_kind_id) : NULL;
}

static int
read_target_info(struct jdoc *d, struct json_object *t, const char *path, size_t *alloc)
{
	struct tinfo ti = { 0 };
	int rc;

	if (!json_object_is_type(t, json_type_object))
		return jerr(d, path, "not an object");
	if ((rc = get_kind(d, t, path, &ti.is_func)) > 0 ||
	    (rc = get_u64(d, t, path, "id", true, &ti.id)) > 0 ||
	    (rc = get_str(d, t, path, "location", true, &ti.location)) > 0 ||
	    (rc = get_str(d, t, path, "function", false, &ti.func)) > 0 ||
	    (rc = get_str(d, t, path, "dso", false, &ti.dso)) > 0 ||
	    (rc = get_u64(d, t, path, "samples", false, &ti.samples)) > 0)
		return rc;
	if (d->ntinfo == *alloc)
		d->tinfo = xgrowarray(d->tinfo, alloc, d->ntinfo + 1, sizeof(*d->tinfo));
	d->tinfo[d->ntinfo++] = ti;
	return 0;
}

static int
read_results(struct jdoc *d, struct json_object *arr)
{
	size_t alloc = 0, n = 0;
	int rc;

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *res = json_object_array_get_idx(arr, i), *tg;
		char path[PATH_MAX_LEN];

		pathf(path, "results[%zu]", i);
		if (!json_object_is_type(res, json_type_object))
			return jerr(d, path, "not an object");
		if ((rc = get_typed(d, res, path, "targets", true, json_type_array, &tg)) > 0)
			return rc;
		for (size_t k = 0; k < json_object_array_length(tg); k++) {
			char tp[PATH_MAX_LEN];

			pathf(tp, "results[%zu].targets[%zu]", i, k);
			if ((rc = read_target_info(d, json_object_array_get_idx(tg, k), tp,
						   &alloc)) > 0)
				return rc;
		}
	}
	/* A target is listed once per progress point: keep one. */
	if (d->ntinfo)	/* tinfo is NULL then, which qsort must not get */
		qsort(d->tinfo, d->ntinfo, sizeof(*d->tinfo), by_kind_id);
	for (size_t i = 0; i < d->ntinfo; i++)
		if (!n || by_kind_id(&d->tinfo[n - 1], &d->tinfo[i]))
			d->tinfo[n++] = d->tinfo[i];
	d->ntinfo = n;
	for (size_t i = 0; i < d->ntinfo; i++) {
		struct tinfo *ti = &d->tinfo[i];
		unsigned id;
		bool is_func;

		if (profile_target(d->pp->p, ti->location, ti->func, ti->dso, &id, &is_func) < 0 ||
		    is_func != ti->is_func)
			return jerr(d, "results", "target %s %llu: bad location \"%.60s\"",
				    ti->is_func ? "function" : "line",
				    (unsigned long long) ti->id, ti->location);
		profile_target_samples(d->pp->p, id, is_func, ti->samples);
	}
	return 0;
}

/* ---- experiments ---- */

static int
read_exp_point(struct jdoc *d, struct json_object *o, const char *path, struct exp_point *ep)
{
	char at[PATH_MAX_LEN];
	const char *kind;
	uint64_t idx;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return jerr(d, path, "not an object");
	if ((rc = get_u64(d, o, path, "point", true, &idx)) > 0 ||
	    (rc = get_str(d, o, path, "kind", false, &kind)) > 0)
		return rc;
	if (idx >= d->npoints) {
		subpath(at, path, "point");
		return jerr(d, at, "%llu: no such progress point (%zu are listed)",
			    (unsigned long long) idx, d->npoints);
	}
	ep->point = d->point_map[idx];
	ep->latency = d->point_latency[idx];
	if (rc == 0 && strcmp(kind, ep->latency ? "latency" : "throughput")) {
		subpath(at, path, "kind");
		return jerr(d, at, "\"%.40s\", but progress point %llu is a %s point", kind,
			    (unsigned long long) idx, ep->latency ? "latency" : "throughput");
	}
	if (!ep->latency)
		return get_u64(d, o, path, "delta", true, &ep->delta) > 0 ? CT_EXIT_PROFILE : 0;
	if ((rc = get_u64(d, o, path, "departures", true, &ep->delta)) > 0 ||
	    (rc = get_u64(d, o, path, "arrivals", true, &ep->arrivals)) > 0 ||
	    (rc = get_u64(d, o, path, "difference", false, &ep->difference)) > 0)
		return rc;
	subpath(at, path, "inflight");
	if (!member(o, "inflight") || pj_double(member(o, "inflight"), &ep->inflight) ||
	    !(ep->inflight >= 0))
		return jerr(d, at, "%s is not a number >= 0", pj_show(member(o, "inflight")));
	return 0;
}

static int
read_experiment(struct jdoc *d, struct json_object *o, const char *path)
{
	struct exp_record r = { 0 };
	struct json_object *t, *pts;
	char tp[PATH_MAX_LEN], at[PATH_MAX_LEN];
	const char *loc;
	struct tinfo *ti;
	uint64_t id, v;
	bool is_func;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return jerr(d, path, "not an object");
	if ((rc = get_typed(d, o, path, "target", true, json_type_object, &t)) > 0)
		return rc;
	subpath(tp, path, "target");
	if ((rc = get_kind(d, t, tp, &is_func)) > 0 ||
	    (rc = get_u64(d, t, tp, "id", true, &id)) > 0 ||
	    (rc = get_str(d, t, tp, "location", true, &loc)) > 0)
		return rc;
	ti = tinfo_find(d, is_func, id);
	if (profile_target(d->pp->p, loc, ti ? ti->func : NULL, ti ? ti->dso : NULL,
			   &r.target, &r.is_func) < 0 || r.is_func != is_func) {
		subpath(at, tp, "location");
		return jerr(d, at, "\"%.60s\" is not a %s location", loc,
			    is_func ? "function:NAME" : "FILE:LINE");
	}
	/* A pool of runs written by causaltop report: each its own run. */
	if ((rc = get_u64(d, o, path, "run", false, &v)) > 0)
		return rc;
	if (!rc) {
		if (v >= d->nexperiments) {
			subpath(at, path, "run");
			return jerr(d, at, "%llu: more runs than experiments", (unsigned long long) v);
		}
		while (d->pp->p->nruns - d->first_run <= v)
			profile_run_begin(d->pp->p, d->pp->name, 1, "causaltop-json");
		r.run = (unsigned) (d->first_run + v);
	} else {
		r.run = (unsigned) d->first_run;
	}
	if ((rc = get_u64(d, o, path, "speedup_pct", true, &v)) > 0)
		return rc;
	if (v > STATS_MAX_PCT) {
		subpath(at, path, "speedup_pct");
		return jerr(d, at, "%llu is not 0 to 100", (unsigned long long) v);
	}
	r.pct = (unsigned) v;
	if ((rc = get_u64(d, o, path, "start_ns", true, &r.start_ns)) > 0 ||
	    (rc = get_u64(d, o, path, "wall_ns", true, &r.wall_ns)) > 0 ||
	    (rc = get_u64(d, o, path, "delay_ns", true, &r.delay_ns)) > 0 ||
	    (rc = get_u64(d, o, path, "selected_samples", false, &r.selected_samples)) > 0)
		return rc;
	if ((rc = get_u64(d, o, path, "steal_ns", false, &r.steal_ns)) > 0)
		return rc;
	r.steal_known = rc == 0;
	if ((rc = get_typed(d, o, path, "points", true, json_type_array, &pts)) > 0)
		return rc;
	r.npoints = json_object_array_length(pts);
	r.points = xcalloc(r.npoints, sizeof(*r.points));
	for (size_t k = 0; k < r.npoints; k++) {
		char pp[PATH_MAX_LEN];

		pathf(pp, "%s.points[%zu]", path, k);
		if ((rc = read_exp_point(d, json_object_array_get_idx(pts, k), pp,
					 &r.points[k])) > 0) {
			free(r.points);
			return rc;
		}
	}
	profile_add_experiment(d->pp->p, &r);
	return 0;
}

static int
read_document(struct jdoc *d, struct json_object *root)
{
	struct json_object *run, *points, *results, *exps;
	const char *format;
	uint64_t version;
	int rc;

	if (!json_object_is_type(root, json_type_object))
		return pp_error(d->pp, 0, "not a causal profile (a JSON %s, not an object)",
				json_type_to_name(json_object_get_type(root)));
	if (get_str(d, root, "", "format", true, &format) > 0 ||
	    strcmp(format, "causaltop-profile"))
		return pp_error(d->pp, 0, "not a causaltop profile (no \"format\": "
				"\"causaltop-profile\")");
	if ((rc = get_u64(d, root, "", "version", true, &version)) > 0)
		return rc;
	if (version != 1)
		return jerr(d, "version", "%llu is not supported (1 is)",
			    (unsigned long long) version);
	if ((rc = get_typed(d, root, "", "run", true, json_type_object, &run)) > 0 ||
	    (rc = get_typed(d, root, "", "progress_points", true, json_type_array, &points)) > 0 ||
	    (rc = get_typed(d, root, "", "results", false, json_type_array, &results)) > 0 ||
	    (rc = get_typed(d, root, "", "experiments", true, json_type_array, &exps)) > 0)
		return rc;
	d->first_run = profile_run_begin(d->pp->p, d->pp->name, 1, "causaltop-json");
	d->nexperiments = json_object_array_length(exps);
	if ((rc = read_run(d, run)) || (rc = read_points(d, points)))
		return rc;
	if (results && (rc = read_results(d, results)))
		return rc;
	for (size_t i = 0; i < json_object_array_length(exps); i++) {
		char path[PATH_MAX_LEN];

		pathf(path, "experiments[%zu]", i);
		if ((rc = read_experiment(d, json_object_array_get_idx(exps, i), path)))
			return rc;
	}
	return 0;
}

int
profile_parse_json(struct profile_parse *pp, const char *data, size_t len)
{
	struct jdoc d = { .pp = pp };
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	enum json_tokener_error e;
	unsigned line, col;
	size_t end;
	int rc;

	if (!tok)
		error_msg_and_die(CT_EXIT_INTERNAL, "out of memory");
	root = json_tokener_parse_ex(tok, data, (int) len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (e == json_tokener_success) {
		/* One document, then only white space. */
		while (end < len && (data[end] == ' ' || data[end] == '\t' ||
				     data[end] == '\n' || data[end] == '\r'))
			end++;
	}
	if (e != json_tokener_success || end < len) {
		pp_position(data, end, &line, &col);
		if (e == json_tokener_continue)
			rc = pp_error(pp, line, "JSON document cut short");
		else if (e != json_tokener_success)
			rc = pp_error(pp, line, "column %u: JSON syntax error: %s", col,
				      json_tokener_error_desc(e));
		else
			rc = pp_error(pp, line, "column %u: text after the JSON document", col);
	} else {
		rc = read_document(&d, root);
	}
	json_object_put(root);
	json_tokener_free(tok);
	free(d.point_map);
	free(d.point_latency);
	free(d.tinfo);
	return rc;
}
