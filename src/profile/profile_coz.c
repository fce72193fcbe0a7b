/*
 * Coz's records (research/coz.md section 4.1), one per line: the
 * tab-separated "type<TAB>key=value..." of profile.coz, or a JSON object
 * with a "type" member (profile.jsonl; "throughput_point" with an
 * underscore as some Coz versions wrote it).  As in Coz's viewer, a line
 * starting with "{" is JSON, and both kinds may be mixed.
 *
 * Each "startup" starts a run (Coz appends every run to one file).  An
 * experiment's point records follow it.  Coz logs delay-subtracted
 * durations only: wall time is taken to be the duration, with no delay,
 * and an experiment's start is the sum of the durations before it in its
 * run (Coz runs them back to back).  A latency point's "difference" (in
 * flight at the end) stands for the time-averaged number in flight, as
 * in Coz's viewer.  "samples" records are running totals: the largest of
 * a run counts.  Unknown record types are skipped, as Coz's viewer does.
 */
#include "config.h"
#include <json.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "profile/profile_parse.h"

enum { COZ_MAX_FIELDS = 16 };

/* One record, whichever syntax it came in. */
struct coz_rec {
	unsigned line;
	const char *type;
	struct json_object *obj;		/* JSON; else the fields: */
	const char *key[COZ_MAX_FIELDS], *val[COZ_MAX_FIELDS];
	unsigned nfields;
};

struct coz_state {
	struct profile_parse *pp;
	bool in_run;
	bool have_exp;
	struct exp_record exp;		/* the experiment being read */
	size_t points_alloc;
	uint64_t clock_ns;		/* the run's time so far */
	const char *format;
};

/* Value of key: its text, or NULL; for JSON, *jv is set instead. */
static const char *
rec_get(const struct coz_rec *r, const char *key, struct json_object **jv)
{
	*jv = NULL;
	if (r->obj) {
		json_object_object_get_ex(r->obj, key, jv);
		return NULL;
	}
	for (unsigned i = 0; i < r->nfields; i++)
		if (!strcmp(r->key[i], key))
			return r->val[i];
	return NULL;
}

static bool
rec_has(const struct coz_rec *r, const char *key)
{
	struct json_object *jv;

	return rec_get(r, key, &jv) || jv;
}

/* Decimal digits only, no sign, no overflow. */
static int
parse_u64(const char *s, uint64_t *v)
{
	*v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || *v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t) (*s - '0');
	}
	return 0;
}

static int
need_u64(struct coz_state *cs, const struct coz_rec *r, const char *key, uint64_t *v)
{
	struct json_object *jv;
	const char *s = rec_get(r, key, &jv);

	if (s ? !parse_u64(s, v) : jv && !pj_u64(jv, v))
		return 0;
	if (!s && !jv)
		return pp_error(cs->pp, r->line, "%s record without %s", r->type, key);
	return pp_error(cs->pp, r->line, "%s record: bad %s '%s' (an unsigned integer)",
			r->type, key, s ? s : pj_show(jv));
}

/* u read as two's complement, without an implementation-defined cast. */
static int64_t
wrap_i64(uint64_t u)
{
	return u <= INT64_MAX ? (int64_t) u : (int64_t) (u - ((uint64_t) 1 << 63)) + INT64_MIN;
}

/*
 * Coz's duration: signed (an experiment can lose more than it lasted).
 * Coz before 0.2 wrote it unsigned: past 2^63 it is a negative one
 * wrapped around.
 */
static int
need_i64(struct coz_state *cs, const struct coz_rec *r, const char *key, int64_t *v)
{
	struct json_object *jv;
	const char *s = rec_get(r, key, &jv);
	uint64_t u;

	if (s) {
		bool neg = *s == '-';

		if (!parse_u64(s + neg, &u) && (!neg || u <= (uint64_t) INT64_MAX)) {
			*v = neg ? -(int64_t) u : wrap_i64(u);
			return 0;
		}
	} else if (jv && !pj_i64(jv, v)) {
		return 0;
	} else if (jv && !pj_u64(jv, &u)) {
		*v = wrap_i64(u);
		return 0;
	}
	if (!s && !jv)
		return pp_error(cs->pp, r->line, "%s record without %s", r->type, key);
	return pp_error(cs->pp, r->line, "%s record: bad %s '%s' (an integer)",
			r->type, key, s ? s : pj_show(jv));
}

static int
need_str(struct coz_state *cs, const struct coz_rec *r, const char *key, const char **v)
{
	struct json_object *jv;
	const char *s = rec_get(r, key, &jv);

	if (s) {
		*v = s;
		return 0;
	}
	if (jv && !pj_str(jv, v))
		return 0;
	if (!jv)
		return pp_error(cs->pp, r->line, "%s record without %s", r->type, key);
	return pp_error(cs->pp, r->line, "%s record: bad %s %s (a string)",
			r->type, key, pj_show(jv));
}

/* "0.25" (0 to 1, as Coz prints it) to a whole percent. */
static int
parse_speedup(const char *s, unsigned *pct)
{
	const uint64_t unit = 1000000000;	/* fixed point, 1e-9 */
	uint64_t scaled = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		scaled = scaled * 10 + (uint64_t) (*s - '0');
		if (scaled > 1)
			return -1;
	}
	scaled *= unit;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (uint64_t u = unit / 10; *s >= '0' && *s <= '9'; s++, u /= 10)
			scaled += (uint64_t) (*s - '0') * u;
	}
	if (*s || scaled > unit)
		return -1;
	*pct = (unsigned) ((scaled + unit / 200) / (unit / 100));
	return 0;
}

static int
need_speedup(struct coz_state *cs, const struct coz_rec *r, unsigned *pct)
{
	struct json_object *jv;
	const char *s = rec_get(r, "speedup", &jv);
	double d;

	if (s && !parse_speedup(s, pct))
		return 0;
	if (!s && jv && !pj_double(jv, &d) && d >= 0 && d <= 1) {
		*pct = (unsigned) (d * 100 + 0.5);
		return 0;
	}
	if (!s && !jv)
		return pp_error(cs->pp, r->line, "experiment record without speedup");
	return pp_error(cs->pp, r->line, "experiment record: bad speedup '%s' (0 to 1)",
			s ? s : pj_show(jv));
}

/* The experiment read so far goes to the profile. */
static void
flush_exp(struct coz_state *cs)
{
	if (!cs->have_exp)
		return;
	profile_add_experiment(cs->pp->p, &cs->exp);
	memset(&cs->exp, 0, sizeof(cs->exp));
	cs->points_alloc = 0;
	cs->have_exp = false;
}

static void
run_begin(struct coz_state *cs, unsigned line)
{
	struct profile *p = cs->pp->p;

	flush_exp(cs);
	profile_run_begin(p, cs->pp->name, line, cs->format);
	p->runs_delay_unknown++;
	cs->in_run = true;
	cs->clock_ns = 0;
}

static int
on_startup(struct coz_state *cs, const struct coz_rec *r)
{
	struct profile *p = cs->pp->p;
	uint64_t t;
	int rc;

	if ((rc = need_u64(cs, r, "time", &t)))
		return rc;
	run_begin(cs, r->line);
	p->runs[p->nruns - 1].startup_realtime_ns = t;
	if (!p->meta.startup_realtime_ns)
		p->meta.startup_realtime_ns = t;
	return 0;
}

static int
on_experiment(struct coz_state *cs, const struct coz_rec *r)
{
	struct profile *p = cs->pp->p;
	const char *sel;
	unsigned pct = 0;
	int64_t dur;
	uint64_t ss = 0;
	bool is_func;
	unsigned id;
	int rc;

	if ((rc = need_str(cs, r, "selected", &sel)) || (rc = need_speedup(cs, r, &pct)) ||
	    (rc = need_i64(cs, r, "duration", &dur)))
		return rc;
	if (rec_has(r, "selected-samples"))
		rc = need_u64(cs, r, "selected-samples", &ss);
	else if (rec_has(r, "selected_samples"))
		rc = need_u64(cs, r, "selected_samples", &ss);
	if (rc)
		return rc;
	if (!cs->in_run)
		run_begin(cs, r->line);
	flush_exp(cs);
	if (profile_target(p, sel, NULL, NULL, &id, &is_func) < 0)
		return pp_error(cs->pp, r->line, "experiment record: bad selected '%s' "
				"(FILE:LINE or function:NAME)", sel);
	cs->exp.target = id;
	cs->exp.is_func = is_func;
	cs->exp.run = (unsigned) (p->nruns - 1);
	cs->exp.pct = pct;
	cs->exp.start_ns = cs->clock_ns;
	/* Negative: more delay than wall time, which stats.c passes over. */
	if (dur >= 0)
		cs->exp.wall_ns = (uint64_t) dur;
	else
		cs->exp.delay_ns = (uint64_t) -(dur + 1) + 1;
	cs->exp.selected_samples = ss;
	cs->clock_ns += cs->exp.wall_ns;
	cs->have_exp = true;
	return 0;
}

static struct exp_point *
new_point(struct coz_state *cs)
{
	struct exp_record *e = &cs->exp;

	if (e->npoints == cs->points_alloc)
		e->points = xgrowarray(e->points, &cs->points_alloc, e->npoints + 1,
				       sizeof(*e->points));
	memset(&e->points[e->npoints], 0, sizeof(*e->points));
	return &e->points[e->npoints++];
}

static int
on_point(struct coz_state *cs, const struct coz_rec *r, bool latency)
{
	struct progress_point *pt;
	struct exp_point *ep;
	const char *name;
	uint64_t delta = 0, arr = 0, diff = 0;
	int rc;

	if (!cs->have_exp)
		return pp_error(cs->pp, r->line, "%s record before any experiment record",
				r->type);
	if ((rc = need_str(cs, r, "name", &name)))
		return rc;
	if (latency) {
		if ((rc = need_u64(cs, r, "arrivals", &arr)) ||
		    (rc = need_u64(cs, r, "departures", &delta)) ||
		    (rc = need_u64(cs, r, "difference", &diff)))
			return rc;
	} else if ((rc = need_u64(cs, r, "delta", &delta))) {
		return rc;
	}
	pt = profile_point(cs->pp->p, name, latency ? PROGRESS_LATENCY : PROGRESS_THROUGHPUT,
			   "coz");
	ep = new_point(cs);
	ep->point = pt->id;
	ep->latency = latency;
	ep->delta = delta;
	ep->arrivals = arr;
	ep->difference = diff;
	ep->inflight = (double) diff;
	pt->count += delta;
	pt->arrivals += arr;
	return 0;
}

static int
on_runtime(struct coz_state *cs, const struct coz_rec *r)
{
	struct profile *p = cs->pp->p;
	struct profile_run *run;
	uint64_t t;
	int rc;

	if ((rc = need_u64(cs, r, "time", &t)))
		return rc;
	if (!cs->in_run)
		return 0;
	/* Coz's periodic ones are per experiment; the last, the largest, is real. */
	run = &p->runs[p->nruns - 1];
	if (t > run->duration_ns) {
		p->duration_ns += t - run->duration_ns;
		run->duration_ns = t;
	}
	return 0;
}

static int
on_samples(struct coz_state *cs, const struct coz_rec *r)
{
	const char *loc;
	uint64_t n;
	unsigned id;
	bool is_func;
	int rc;

	if ((rc = need_str(cs, r, "location", &loc)) || (rc = need_u64(cs, r, "count", &n)))
		return rc;
	if (profile_target(cs->pp->p, loc, NULL, NULL, &id, &is_func) < 0)
		return pp_error(cs->pp, r->line, "samples record: bad location '%s'", loc);
	if (!cs->in_run)
		run_begin(cs, r->line);
	if (!is_func)
		profile_coz_samples(cs->pp->p, id, n);
	return 0;
}

static bool
type_is(const char *type, const char *dash)
{
	for (; *type && *dash; type++, dash++)
		if (*type != *dash && !(*dash == '-' && *type == '_'))
			return false;
	return *type == *dash;
}

/* A record type we do not know must at least look like one. */
static bool
plausible_type(const char *t)
{
	if (*t < 'a' || *t > 'z')
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9') || *t == '-' ||
		      *t == '_'))
			return false;
	return true;
}

static int
on_throughput(struct coz_state *cs, const struct coz_rec *r)
{
	return on_point(cs, r, false);
}

static int
on_latency(struct coz_state *cs, const struct coz_rec *r)
{
	return on_point(cs, r, true);
}

static int
on_ignored(struct coz_state *cs, const struct coz_rec *r)
{
	return 0;
}

static const struct {
	const char *type;
	int (*fn)(struct coz_state *, const struct coz_rec *);
} coz_records[] = {
	{ "startup", on_startup },
	{ "experiment", on_experiment },
	{ "throughput-point", on_throughput },
	{ "progress-point", on_throughput },	/* Coz before 0.1 */
	{ "latency-point", on_latency },
	{ "runtime", on_runtime },
	{ "samples", on_samples },
	{ "shutdown", on_ignored },		/* Coz before 0.1 */
};

static int
on_record(struct coz_state *cs, const struct coz_rec *r, unsigned *known)
{
	for (size_t i = 0; i < sizeof(coz_records) / sizeof(coz_records[0]); i++) {
		if (type_is(r->type, coz_records[i].type)) {
			++*known;
			return coz_records[i].fn(cs, r);
		}
	}
	if (!plausible_type(r->type))
		return pp_error(cs->pp, r->line, "not a Coz record: '%.40s'", r->type);
	return 0;
}

/* "type\tkey=value\t..." in place. */
static int
split_tabs(struct coz_state *cs, char *s, struct coz_rec *r)
{
	char *tab;

	r->type = s;
	while ((tab = strchr(s, '\t'))) {
		char *eq;

		*tab = 0;
		s = tab + 1;
		if (!*s)
			continue;	/* a trailing tab */
		if (!(eq = strchr(s, '=')))
			return pp_error(cs->pp, r->line, "%s record: field '%.40s' is not key=value",
					r->type, s);
		if (r->nfields == COZ_MAX_FIELDS)
			return pp_error(cs->pp, r->line, "%s record: too many fields", r->type);
		*eq = 0;
		r->key[r->nfields] = s;
		r->val[r->nfields++] = eq + 1;
		s = eq + 1;
	}
	return 0;
}

static int
parse_json_line(struct coz_state *cs, struct json_tokener *tok, const char *s, size_t len,
		struct coz_rec *r)
{
	struct json_object *o, *t;
	enum json_tokener_error e;
	size_t end;

	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, s, (int) len);
	e = json_tokener_get_error(tok);
	if (!o || e != json_tokener_success) {
		json_object_put(o);
		if (e == json_tokener_continue)
			return pp_error(cs->pp, r->line, "JSON record cut short");
		return pp_error(cs->pp, r->line, "column %zu: JSON syntax error: %s",
				json_tokener_get_parse_end(tok) + 1, json_tokener_error_desc(e));
	}
	for (end = json_tokener_get_parse_end(tok); end < len; end++)
		if (s[end] != ' ' && s[end] != '\t' && s[end] != '\r')
			break;
	if (end < len) {
		json_object_put(o);
		return pp_error(cs->pp, r->line, "column %zu: text after the JSON record",
				end + 1);
	}
	r->obj = o;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "type", &t) || pj_str(t, &r->type))
		return pp_error(cs->pp, r->line, "JSON record without a \"type\" string");
	return 0;
}

int
profile_parse_coz(struct profile_parse *pp, const char *data, size_t len)
{
	struct coz_state cs = { .pp = pp, .format = "coz" };
	struct json_tokener *tok = json_tokener_new();
	unsigned line = 0, known = 0;
	size_t pos = 0;
	char *buf = NULL;
	size_t buf_alloc = 0;
	int rc = 0;

	if (!tok)
		error_msg_and_die(CT_EXIT_INTERNAL, "out of memory");
	while (pos < len && !rc) {
		const char *s = data + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t) (nl - s) : len - pos;
		struct coz_rec r = { .line = ++line };

		pos += n + (nl != NULL);
		if (n && s[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		if (memchr(s, 0, n)) {
			rc = pp_error(pp, line, "NUL byte: not a text profile");
			break;
		}
		if (s[0] == '{') {
			if (line == 1 || !known)
				cs.format = "coz-jsonl";
			rc = parse_json_line(&cs, tok, s, n, &r);
		} else {
			if (n + 1 > buf_alloc)
				buf = xgrowarray(buf, &buf_alloc, n + 1, 1);
			memcpy(buf, s, n);
			buf[n] = 0;
			rc = split_tabs(&cs, buf, &r);
		}
		if (!rc)
			rc = on_record(&cs, &r, &known);
		json_object_put(r.obj);
	}
	if (!rc && !known)
		rc = pp_error(pp, 0, "no Coz record: not a causal profile");
	if (!rc)
		flush_exp(&cs);
	free(cs.exp.points);
	free(buf);
	json_tokener_free(tok);
	return rc;
}
