/*
 * Building the TUI's model from the session.  Cheap things are read on
 * every update (a few times a second); rates, thread states and the
 * checks that log events (a thread gone, a progress point gone quiet)
 * once a second.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "app/session.h"
#include "base/path.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "engine/experiment.h"
#include "model/codeview.h"
#include "model/logcap.h"
#include "model/model.h"
#include "perf/progress.h"
#include "perf/sampler.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "ptrace/waitsite.h"
#include "sym/lines.h"

#define SECOND_NS	1000000000ULL
/* No visit for this long, after some: the point has gone quiet. */
#define QUIET_NS	(5 * SECOND_NS)
/* Thread states are read from /proc for at most this many threads. */
#define STATE_READS_MAX	2000
/* At most this many "thread exited" notes a second. */
#define EXIT_NOTES_MAX	5

struct point_hist {
	uint64_t last_count;	/* at the last second */
	uint64_t last_event_ns;	/* when the count last moved */
	bool seen;		/* it ever counted */
	bool quiet;
	double rate;
	float hist[MODEL_HIST];
	unsigned n;
};

struct model_priv {
	/* Rebuilt by every update. */
	struct model_level *levels;
	size_t levels_cap;
	size_t rows_cap, threads_cap;
	char *exp_what, *pin_what, *end_reason;
	char *command;

	/* Once a second. */
	uint64_t sec_ns;		/* last tick of the second */
	uint64_t sec_samples;
	uint64_t sec_cpu_ns;
	double sample_rate, cpu_pct;
	struct point_hist *ph;
	size_t nph;
	bool *alive;			/* per thread_stats entry */
	size_t nalive;
	unsigned running, blocked, stopped;

	/* The log, copied from logcap. */
	struct model_log_line *log;
	char *log_text[LOGCAP_MAX];
	uint64_t log_seen;

	struct codeview *cv;
};

struct model *
model_new(void)
{
	struct model *m = xcalloc(1, sizeof(*m));

	m->priv = xcalloc(1, sizeof(*m->priv));
	m->priv->log = xcalloc(LOGCAP_MAX, sizeof(*m->priv->log));
	m->priv->cv = codeview_new();
	return m;
}

void
model_free(struct model *m)
{
	struct model_priv *p;

	if (!m)
		return;
	p = m->priv;
	free(m->rows);
	free(m->threads);
	free(m->points);
	free(m->log);
	free(p->levels);
	free(p->exp_what);
	free(p->pin_what);
	free(p->end_reason);
	free(p->command);
	free(p->ph);
	free(p->alive);
	for (size_t i = 0; i < LOGCAP_MAX; i++)
		free(p->log_text[i]);
	free(p->log);
	codeview_free(p->cv);
	free(p);
	free(m);
}

static enum model_verdict
verdict_of(enum stats_verdict v)
{
	switch (v) {
	case VERDICT_OPTIMIZE:
		return MODEL_OPTIMIZE;
	case VERDICT_NO_EFFECT:
		return MODEL_NO_EFFECT;
	case VERDICT_CONTENTION:
		return MODEL_CONTENTION;
	case VERDICT_NOT_ENOUGH:
		break;
	}
	return MODEL_NOT_ENOUGH;
}

/* "file.c:12", or a function's name. */
static char *
describe(struct session *s, unsigned target, bool is_func)
{
	size_t n;

	if (is_func) {
		struct ct_func *const *f = lines_funcs(s->lines, &n);

		return target < n ? xstrdup(f[target]->name) : xasprintf("function #%u", target);
	} else {
		struct ct_line *const *l = lines_lines(s->lines, &n);

		return target < n ? xasprintf("%s:%u", base_name(l[target]->file), l[target]->line) :
				    xasprintf("line #%u", target);
	}
}

static void
set_str(char **slot, char *v)
{
	free(*slot);
	*slot = v;
}

static void
fill_target(struct model *m, struct session *s)
{
	struct model_priv *p = m->priv;

	if (!p->command) {
		if (s->opts.cmd) {
			size_t len = 0;

			for (char **a = s->opts.cmd; *a; a++)
				len += strlen(*a) + 1;
			p->command = xcalloc(1, len + 1);
			for (char **a = s->opts.cmd; *a; a++) {
				if (a != s->opts.cmd)
					strcat(p->command, " ");
				strcat(p->command, *a);
			}
		} else if (s->exe) {
			p->command = xstrdup(s->exe);
		}
	}
	m->command = p->command ? p->command : "?";
	m->pid = s->opts.pid ? s->opts.pid : s->launched;
	m->attached = s->opts.pid != 0;
	m->nprocs = 0;
	for (struct ctproc *c = proc_first(); c; c = c->next)
		m->nprocs += c->nthreads > 0;
	m->phase = s->end_ns ? MODEL_ENDED : MODEL_PROFILING;
	if (s->end_ns && !p->end_reason) {
		int st = s->launched_status;

		if (s->launched_done && WIFEXITED(st))
			p->end_reason = xasprintf("exited with status %d", WEXITSTATUS(st));
		else if (s->launched_done && WIFSIGNALED(st))
			p->end_reason = xasprintf("killed by %s", signame(WTERMSIG(st)));
		else if (s->stop_signal)
			p->end_reason = xasprintf("detached on %s", signame(s->stop_signal));
		else
			p->end_reason = xstrdup(tcb_count() ? "detached" : "detached: the target is gone");
	}
	m->end_reason = p->end_reason;
	m->threads_traced = tcb_count();
	m->threads_paused = 0;
	for (struct tcb *t = tcb_first(); t; t = t->next)
		m->threads_paused += !!(t->flags & (TCB_PAUSED | TCB_PAUSE_PENDING));
	m->threads_running = p->running;
	m->threads_blocked = p->blocked;
	m->threads_stopped = p->stopped;
	m->threads_ever = s->threads.traced;
}

static void
fill_experiments(struct model *m, struct session *s, uint64_t now)
{
	struct model_priv *p = m->priv;
	struct exp_summary sm;
	struct exp_steering st;
	uint64_t span;

	m->experiments = s->exp != NULL;
	m->by_function = s->opts.by_function;
	if (!s->exp)
		return;
	exp_summary(s->exp, now, &sm);
	exp_steering(s->exp, &st);
	span = (s->end_ns ? s->end_ns : now) - s->start_ns;
	m->exp_done = sm.done;
	m->exp_baselines = sm.baselines;
	m->exp_rate = span ? sm.done / (span / 1e9) : 0;
	m->delay_pct = span ? 100.0 * sm.delay_ns / span : 0;
	m->steal_pct = exp_steal_pct(&sm);
	m->steal_warn = exp_steal_worrying(&sm);
	m->exp_running = (sm.line || sm.func) && !s->end_ns;
	if (m->exp_running)
		set_str(&p->exp_what, sm.func ? xstrdup(sm.func->name) :
			xasprintf("%s:%u", base_name(sm.line->file), sm.line->line));
	m->exp_what = m->exp_running ? p->exp_what : NULL;
	m->exp_pct = sm.pct;
	m->exp_left_ns = sm.left_ns;
	m->exp_len_ns = sm.len_ns;
	m->paused = st.paused;
	m->pinned = st.pinned;
	if (st.pinned)
		set_str(&p->pin_what, describe(s, st.pin, st.pin_is_func));
	m->pin_what = st.pinned ? p->pin_what : NULL;
	m->by_function = st.by_function;
	m->focus_lo = st.focus_lo;
	m->focus_hi = st.focus_hi;
	m->n_excluded = st.nexcl;
	m->n_excluded_files = st.nexcl_files;
}

static struct model_row *
add_row(struct model *m)
{
	struct model_priv *p = m->priv;

	if (m->nrows == p->rows_cap)
		m->rows = xgrowarray(m->rows, &p->rows_cap, m->nrows + 1, sizeof(*m->rows));
	memset(&m->rows[m->nrows], 0, sizeof(m->rows[0]));
	return &m->rows[m->nrows++];
}

static void
row_curve(struct model *m, struct model_row *r, const struct stats_curve *cv,
	  unsigned rank, size_t *nlev)
{
	struct model_level *lv = m->priv->levels + *nlev;

	r->rank = rank;
	r->n_exp = cv->n_exp;
	r->slope_valid = cv->slope_valid;
	r->slope = cv->slope;
	r->slope_lo = cv->slope_lo;
	r->slope_hi = cv->slope_hi;
	r->impact = cv->impact;
	r->impact_lo = cv->impact_lo;
	r->impact_hi = cv->impact_hi;
	r->verdict = verdict_of(cv->verdict);
	for (size_t k = 0; k < cv->nlevels; k++) {
		const struct stats_level *sl = &cv->levels[k];

		lv[k] = (struct model_level) {
			.pct = sl->pct, .n_exp = sl->n_exp, .valid = sl->valid,
			.est = sl->est, .lo = sl->lo, .hi = sl->hi,
		};
		if (sl->pct == 50)
			r->at50 = lv[k];
	}
	r->levels = lv;
	r->nlevels = cv->nlevels;
	*nlev += cv->nlevels;
}

static unsigned
row_flags(struct session *s, const struct model_row *r, const struct exp_summary *sm,
	  const struct exp_steering *st)
{
	unsigned f = 0;

	if (!s->exp)
		return 0;
	if (st->pinned && st->pin == r->target && st->pin_is_func == r->is_func)
		f |= MODEL_ROW_PINNED;
	if (exp_excluded(s->exp, r->target, r->is_func))
		f |= MODEL_ROW_EXCLUDED;
	if (r->file && st->nexcl_files && exp_file_excluded(s->exp, r->file))
		f |= MODEL_ROW_FILE_EXCL;
	if (!s->end_ns && ((r->is_func && sm->func && sm->func->id == r->target) ||
			   (!r->is_func && sm->line && sm->line->id == r->target)))
		f |= MODEL_ROW_CURRENT;
	return f;
}

static void
fill_rows(struct model *m, struct session *s, unsigned point, uint64_t now)
{
	struct model_priv *p = m->priv;
	const struct stats_curve *cv = NULL;
	struct exp_summary sm = { 0 };
	struct exp_steering st = { 0 };
	bool by_func = m->by_function;
	size_t ncv = 0, n, nlev = 0, total = 0;
	int *curve_of;
	unsigned *rank_of, rank = 0;

	m->nrows = 0;
	if (s->exp) {
		struct stats *stats = exp_stats(s->exp);
		size_t nrecs;

		exp_summary(s->exp, now, &sm);
		exp_steering(s->exp, &st);
		stats_records(stats, &nrecs);
		if (point < m->npoints)
			cv = stats_curves(stats, point, &ncv);
		for (size_t k = 0; k < ncv; k++)
			total += cv[k].nlevels;
	}
	if (total > p->levels_cap)
		p->levels = xgrowarray(p->levels, &p->levels_cap, total, sizeof(*p->levels));
	if (by_func)
		lines_funcs(s->lines, &n);
	else
		lines_lines(s->lines, &n);
	curve_of = xmalloc((n + 1) * sizeof(*curve_of));
	for (size_t i = 0; i < n; i++)
		curve_of[i] = -1;
	/* Ranks among this granularity's curves (stats ranks both kinds together). */
	rank_of = xmalloc((ncv + 1) * sizeof(*rank_of));
	for (size_t k = 0; k < ncv; k++) {
		rank_of[k] = cv[k].is_func == by_func ? ++rank : 0;
		if (cv[k].is_func == by_func && cv[k].target < n)
			curve_of[cv[k].target] = (int) k;
	}

	for (size_t i = 0; i < n; i++) {
		struct model_row *r;
		int k = curve_of[i];

		if (by_func) {
			struct ct_func *f = lines_funcs(s->lines, &n)[i];

			if (!f->samples && k < 0)
				continue;
			r = add_row(m);
			r->is_func = true;
			r->target = f->id;
			r->func = f->name;
			r->dso = f->dso;
			r->samples = f->samples;
		} else {
			struct ct_line *l = lines_lines(s->lines, &n)[i];

			if (!l->samples && k < 0)
				continue;
			r = add_row(m);
			r->target = l->id;
			r->file = l->file;
			r->line = l->line;
			r->func = l->func ? l->func->name : NULL;
			r->dso = l->func ? l->func->dso : NULL;
			r->samples = l->samples;
		}
		r->samples_pct = s->samples.total ? 100.0 * r->samples / s->samples.total : 0;
		r->impact = r->impact_lo = r->impact_hi = NAN;
		r->slope = r->slope_lo = r->slope_hi = NAN;
		if (k >= 0)
			row_curve(m, r, &cv[k], rank_of[k], &nlev);
		r->flags = row_flags(s, r, &sm, &st);
	}
	free(curve_of);
	free(rank_of);
}

static void
fill_points(struct model *m, struct session *s, uint64_t now, bool second)
{
	struct model_priv *p = m->priv;
	size_t n;
	struct progress_point *const *pts = progress_points(s->progress, &n);

	if (n > p->nph) {
		p->ph = xrealloc(p->ph, n * sizeof(*p->ph));
		memset(p->ph + p->nph, 0, (n - p->nph) * sizeof(*p->ph));
		for (size_t i = p->nph; i < n; i++)
			p->ph[i].last_event_ns = now;
		p->nph = n;
	}
	m->points = xrealloc(m->points, (n + 1) * sizeof(*m->points));
	m->npoints = n;
	for (size_t i = 0; i < n; i++) {
		struct point_hist *h = &p->ph[i];
		uint64_t c = pts[i]->kind == PROGRESS_LATENCY ? pts[i]->arrivals : pts[i]->count;

		/* Once the session is over, the history stands still. */
		if (second && !s->end_ns) {
			double dt = p->sec_ns ? (now - p->sec_ns) / 1e9 : 0;

			h->rate = dt > 0 && c >= h->last_count ? (c - h->last_count) / dt : 0;
			if (h->n == MODEL_HIST)
				memmove(h->hist, h->hist + 1, (MODEL_HIST - 1) * sizeof(h->hist[0]));
			else
				h->n++;
			h->hist[h->n - 1] = (float) h->rate;
			if (c != h->last_count) {
				h->last_event_ns = now;
				h->seen = true;
				if (h->quiet && s->logcap)
					logcap_add(s->logcap, MODEL_LOG_INFO,
						   "progress point \"%s\" is counting again", pts[i]->name);
				h->quiet = false;
			} else if (h->seen && !h->quiet && !s->end_ns && now - h->last_event_ns >= QUIET_NS) {
				h->quiet = true;
				if (s->logcap)
					logcap_add(s->logcap, MODEL_LOG_INFO,
						   "progress point \"%s\" has gone quiet: no event for %u s",
						   pts[i]->name, (unsigned) (QUIET_NS / SECOND_NS));
			}
			h->last_count = c;
		}
		m->points[i] = (struct model_point) {
			.name = pts[i]->name,
			.latency = pts[i]->kind == PROGRESS_LATENCY,
			.source = pts[i]->source,
			.count = pts[i]->count,
			.arrivals = pts[i]->arrivals,
			.rate = s->end_ns ? 0 : h->rate,
			.nhist = h->n,
			.quiet = h->quiet,
		};
		memcpy(m->points[i].hist, h->hist, sizeof(h->hist));
	}
}

static enum model_thread_state
state_of(const struct tcb *t, bool read_proc)
{
	char c;

	if (t->flags & (TCB_PAUSED | TCB_PAUSE_PENDING))
		return MODEL_T_PAUSED;
	if (t->flags & TCB_GROUP_STOP)
		return MODEL_T_STOPPED;
	if (!read_proc)
		return MODEL_T_UNKNOWN;
	c = procfs_state(t->tid);
	switch (c) {
	case 'R':
		return MODEL_T_RUNNING;
	case 'S':
	case 'D':
		return MODEL_T_BLOCKED;
	case 'T':
	case 't':
		return MODEL_T_STOPPED;
	case 0:
	case 'Z':
	case 'X':
		return MODEL_T_EXITED;
	}
	return MODEL_T_UNKNOWN;
}

/* Once a second: thread states for the header, threads gone. */
static void
second_threads(struct model *m, struct session *s)
{
	struct model_priv *p = m->priv;
	size_t n, notes = 0, more = 0;
	struct thread_stats *const *all = thread_stats_all(&n);
	unsigned reads = 0;

	p->running = p->blocked = p->stopped = 0;
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		enum model_thread_state st = state_of(t, reads++ < STATE_READS_MAX);

		p->running += st == MODEL_T_RUNNING;
		p->blocked += st == MODEL_T_BLOCKED;
		p->stopped += st == MODEL_T_STOPPED;
	}
	if (n > p->nalive) {
		p->alive = xrealloc(p->alive, n * sizeof(*p->alive));
		for (size_t i = p->nalive; i < n; i++)
			p->alive[i] = true;
		p->nalive = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct tcb *t;

		if (!p->alive[i])
			continue;
		t = tcb_lookup(all[i]->tid);
		/* A tid can be reused: the tcb must be this entry's. */
		if ((t && t->stats == all[i]) || s->end_ns)
			continue;
		p->alive[i] = false;
		if (!s->logcap)
			continue;
		if (notes++ < EXIT_NOTES_MAX)
			logcap_add(s->logcap, MODEL_LOG_INFO, "thread %d (%s) is gone",
				   (int) all[i]->tid, all[i]->comm);
		else
			more++;
	}
	if (more)
		logcap_add(s->logcap, MODEL_LOG_INFO, "... and %zu more threads are gone", more);
}

static void
fill_threads(struct model *m, struct session *s)
{
	struct model_priv *p = m->priv;
	size_t n;
	struct thread_stats *const *all = thread_stats_all(&n);
	unsigned reads = 0;

	size_t ngroups = 0, g;
	pid_t *groups = NULL;

	m->nthreads = 0;
	if (n > p->threads_cap)
		m->threads = xgrowarray(m->threads, &p->threads_cap, n, sizeof(*m->threads));
	/* The processes, in the order their first thread appeared. */
	for (size_t i = 0; i < n; i++) {
		for (g = 0; g < ngroups && groups[g] != all[i]->tgid; g++)
			;
		if (g == ngroups) {
			groups = xrealloc(groups, (ngroups + 1) * sizeof(*groups));
			groups[ngroups++] = all[i]->tgid;
		}
	}
	/* Live threads first, then the exited; by process, as they appeared. */
	for (int pass = 0; pass < 2; pass++)
	    for (g = 0; g < ngroups; g++)
		for (size_t i = 0; i < n; i++) {
			struct tcb *t;
			bool live;
			struct model_thread *mt;

			if (all[i]->tgid != groups[g])
				continue;
			t = tcb_lookup(all[i]->tid);
			live = t && t->stats == all[i];
			if ((pass == 0) != live)
				continue;
			mt = &m->threads[m->nthreads++];
			*mt = (struct model_thread) {
				.tid = all[i]->tid,
				.tgid = all[i]->tgid,
				.state = live ? state_of(t, reads++ < STATE_READS_MAX) : MODEL_T_EXITED,
				.samples = all[i]->samples,
				.delay_paid_ns = live ? t->delay.paid_ns : all[i]->paid_ns,
				.func = all[i]->func ? all[i]->func->name : NULL,
				.wait = live && t->wait ? t->wait->label : NULL,
			};
			memcpy(mt->comm, all[i]->comm, sizeof(mt->comm));
			mt->comm[sizeof(mt->comm) - 1] = '\0';
		}
	free(groups);
}

static void
fill_log(struct model *m, struct session *s)
{
	struct model_priv *p = m->priv;
	uint64_t total, first;

	if (!s->logcap)
		return;
	total = logcap_total(s->logcap);
	first = total > LOGCAP_MAX ? total - LOGCAP_MAX : 0;
	if (p->log_seen < first)
		p->log_seen = first;
	for (; p->log_seen < total; p->log_seen++) {
		const struct logcap_line *l = logcap_get(s->logcap, p->log_seen);
		size_t slot = p->log_seen % LOGCAP_MAX;

		free(p->log_text[slot]);
		p->log_text[slot] = xstrdup(l->text);
		p->log[slot] = (struct model_log_line) {
			.t_ns = l->t_ns > s->start_ns ? l->t_ns - s->start_ns : 0,
			.kind = l->kind,
			.text = p->log_text[slot],
		};
	}
	/* Oldest first: the ring from its oldest slot. */
	m->nlog = total - first;
	m->log_total = total;
	if (!m->log)
		m->log = xcalloc(LOGCAP_MAX, sizeof(*m->log));
	for (uint64_t i = first; i < total; i++)
		m->log[i - first] = p->log[i % LOGCAP_MAX];
}

static uint64_t
self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * SECOND_NS +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

void
model_update(struct model *m, struct session *s, const struct model_query *q, uint64_t now)
{
	struct model_priv *p = m->priv;
	bool second = !p->sec_ns || now - p->sec_ns >= SECOND_NS;

	m->elapsed_ns = (s->end_ns ? s->end_ns : now) - s->start_ns;
	if (second) {
		uint64_t cpu = self_cpu_ns();
		double dt = p->sec_ns ? (now - p->sec_ns) / 1e9 : 0;

		p->sample_rate = dt > 0 ? (s->samples.total - p->sec_samples) / dt : 0;
		p->cpu_pct = dt > 0 && cpu >= p->sec_cpu_ns ? (cpu - p->sec_cpu_ns) / 1e7 / dt : 0;
		p->sec_samples = s->samples.total;
		p->sec_cpu_ns = cpu;
		second_threads(m, s);
	}
	fill_target(m, s);
	m->sampler = s->smp ? sampler_describe(s->smp) : "";
	m->samples = s->samples.total;
	m->samples_in_scope = s->samples.in_scope;
	m->samples_lost = s->samples.lost;
	m->samples_in_trap = s->samples.in_trap;
	m->sample_rate = s->end_ns ? 0 : p->sample_rate;
	m->cpu_pct = p->cpu_pct;
	fill_experiments(m, s, now);
	fill_points(m, s, now, second);
	if (second)
		p->sec_ns = now;
	m->point = q->point < m->npoints ? q->point : 0;
	fill_rows(m, s, m->point, now);
	if (q->threads)
		fill_threads(m, s);
	else
		m->nthreads = 0;
	fill_log(m, s);
	if (q->detail)
		codeview_fill(p->cv, s, q->detail_target, q->detail_is_func, &m->detail);
	else
		m->detail.valid = false;
}
