/*
 * The experiment engine's scheduler and the life of an experiment (see
 * experiment.h; account.c keeps its accounts, delay.h has the rules,
 * doc/design.md the reasons).
 *
 * Scheduling.  Targets are the in-scope lines (or functions) with the
 * most samples.  Each turn picks one target and runs, on it, a 0%
 * baseline followed by two speedup levels (one in fixed-speedup mode):
 * baselines are interleaved with the measurements they are compared to,
 * and every target has baselines of its own, as Coz's viewer wants.  A
 * target with fewer than EXPLORE_MIN experiments is served first, by
 * sample count; after that, mostly the first-ranked target or its
 * closest rival, whichever interval is wider, until the first is ahead
 * (toward_answer); once it is, the target whose impact could still be
 * the largest (the upper end of its interval); one turn in
 * five a target drawn in proportion to samples, so that no line is
 * starved.  Levels cycle through a fixed sequence weighted towards
 * 10/25/50/100%.
 *
 * Length.  An experiment lasts until its progress points have seen about
 * TARGET_EVENTS events: the length doubles when the least frequent point
 * saw fewer than that, halves when it saw four times more.
 */
#include "config.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app/session.h"
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "engine/exp_engine.h"
#include "engine/experiment.h"
#include "perf/progress.h"
#include "ptrace/pause.h"
#include "ptrace/tcb.h"
#include "sym/lines.h"
#include "sym/symname.h"

#define DRAIN_MAX_NS		20000000ULL
#define TARGET_EVENTS		40
#define MIN_EVENTS		5
#define EXPLORE_MIN		4
#define CANDIDATES_MAX		16
#define TICK_EXPERIMENT_NS	1000000ULL
#define TICK_IDLE_NS		20000000ULL

static const unsigned char levels[] = {
	25, 50, 10, 100, 75, 5, 50, 25, 15, 100, 30, 10, 40, 60, 20, 50, 25,
	35, 45, 100, 55, 65, 70, 10, 80, 85, 90, 95,
};

static const char *const state_names[] = { "idle", "running", "draining", "cool-off" };

static uint64_t
rnd(struct exp_engine *e)
{
	/* xorshift64* */
	e->rng ^= e->rng >> 12;
	e->rng ^= e->rng << 25;
	e->rng ^= e->rng >> 27;
	return e->rng * 2685821657736338717ULL;
}

struct exp_engine *
exp_new(struct session *s, const struct exp_config *cfg, const struct exp_sys_ops *sys)
{
	struct exp_engine *e = xcalloc(1, sizeof(*e));

	e->s = s;
	e->sys = sys;
	e->cfg = *cfg;
	if (!e->cfg.min_len_ns)
		e->cfg.min_len_ns = 200000000ULL;
	if (!e->cfg.max_len_ns)
		e->cfg.max_len_ns = 8000000000ULL;
	e->len_ns = e->cfg.min_len_ns;
	e->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ULL;
	e->stats = stats_new();
	e->pz = pause_new(s, &e->g, cfg->cpu_switches, sys->pause);
	e->steer.focus_hi = 100;
	e->ncpus = sys->cpus_online();
	e->cpu_scale = 1000;
	e->self = getpid();
	e->online_mask = e->ncpus < 64 ? (1ULL << e->ncpus) - 1 : 0;
	return e;
}

void
exp_free(struct exp_engine *e)
{
	if (!e)
		return;
	pause_free(e->pz);
	stats_free(e->stats);
	free(e->c0);
	free(e->a0);
	free(e->area);
	free(e->wk);
	free(e->hit);
	free(e->dead);
	free(e->ready);
	free(e->cpu);
	free(e->level_idx);
	free(e->steer.excl[0]);
	free(e->steer.excl[1]);
	for (size_t i = 0; i < e->steer.nexcl_files; i++)
		free(e->steer.excl_files[i]);
	free(e->steer.excl_files);
	free(e);
}

struct stats *
exp_stats(struct exp_engine *e)
{
	return e->stats;
}

bool
exp_hitting(const struct exp_engine *e, uint64_t t)
{
	return exp_on(e) && e->d_ns &&
	       t >= e->start_ns && t < e->hits_end_ns;
}

const struct ct_line *
exp_target_line(const struct exp_engine *e)
{
	return e->line;
}

const struct ct_func *
exp_target_func(const struct exp_engine *e)
{
	return e->func;
}

bool
exp_wants_full_chains(const struct exp_engine *e)
{
	return e->cfg.fixed_line && !e->fixed_found;
}

/* Points with something counted: experiments need one. */
static bool
progress_seen(struct exp_engine *e, unsigned *primary)
{
	size_t n;
	struct progress_point *const *pts = progress_points(e->s->progress, &n);

	for (size_t i = 0; i < n; i++)
		if (pts[i]->count || pts[i]->arrivals) {
			*primary = (unsigned) i;
			return true;
		}
	return false;
}

static void
integrate(struct exp_engine *e, uint64_t now)
{
	size_t n;
	struct progress_point *const *pts = progress_points(e->s->progress, &n);

	for (size_t i = 0; i < e->npts && i < n; i++) {
		int64_t in = (int64_t) (pts[i]->arrivals - pts[i]->count);

		if (pts[i]->kind == PROGRESS_LATENCY && in > 0)
			e->area[i] += (double) in * (double) (now - e->last_ns);
	}
	e->last_ns = now;
}

static void
snapshot(struct exp_engine *e, uint64_t now)
{
	struct progress_point *const *pts = progress_points(e->s->progress, &e->npts);

	e->c0 = xrealloc(e->c0, (e->npts + 1) * sizeof(*e->c0));
	e->a0 = xrealloc(e->a0, (e->npts + 1) * sizeof(*e->a0));
	e->area = xrealloc(e->area, (e->npts + 1) * sizeof(*e->area));
	for (size_t i = 0; i < e->npts; i++) {
		e->c0[i] = pts[i]->count;
		e->a0[i] = pts[i]->arrivals;
		e->area[i] = 0;
	}
	e->last_ns = now;
}

/* FILE:LINE as a suffix of the path (Coz's rule), or a function name. */
static bool
find_fixed(struct exp_engine *e)
{
	const char *spec = e->cfg.fixed_line;
	/* "ns::Queue::push" is a function, "queue.cc:12" a line. */
	const char *colon = symname_colon(spec);
	size_t n;

	if (e->fixed_found)
		return true;
	if (e->cfg.by_function || !colon) {
		struct ct_func *const *f = lines_funcs(e->s->lines, &n);

		for (size_t i = 0; i < n; i++)
			if (!strcmp(f[i]->name, spec) ||
			    symname_matches(lines_func_symbol(f[i]), spec)) {
				e->fixed_target = f[i]->id;
				e->cfg.by_function = true;
				return e->fixed_found = true;
			}
		return false;
	}
	{
		struct ct_line *const *l = lines_lines(e->s->lines, &n);
		size_t flen = (size_t) (colon - spec);
		unsigned long want = strtoul(colon + 1, NULL, 10);

		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(l[i]->file);

			if (l[i]->line != want || len < flen ||
			    strncmp(l[i]->file + len - flen, spec, flen))
				continue;
			/* A whole path component: "a.c" must not match "data.c". */
			if (len > flen && flen && spec[0] != '/' && l[i]->file[len - flen - 1] != '/')
				continue;
			e->fixed_target = l[i]->id;
			return e->fixed_found = true;
		}
	}
	return false;
}

struct cand {
	unsigned target;
	uint64_t samples;
	bool is_func;
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->samples > y->samples ? -1 : x->samples < y->samples;
}

/* The in-scope targets with the most samples, best first. */
static size_t
candidates(struct exp_engine *e, struct cand *c)
{
	size_t n, nf, k = 0;
	uint64_t total = 0;
	struct cand *all;

	struct ct_func *const *f = lines_funcs(e->s->lines, &nf);
	struct ct_line *const *l = lines_lines(e->s->lines, &n);

	all = xcalloc(n + nf + 1, sizeof(*all));
	if (e->cfg.by_function) {
		for (size_t i = 0; i < nf; i++)
			if (f[i]->samples && !exp_steer_skips(e, f[i]->id, true))
				all[k++] = (struct cand) { f[i]->id, f[i]->samples, true };
	} else {
		for (size_t i = 0; i < n; i++)
			if (l[i]->samples && !exp_steer_skips(e, l[i]->id, false))
				all[k++] = (struct cand) { l[i]->id, l[i]->samples, false };
		/*
		 * Code without line info (a stripped binary, a library without
		 * its -dbg package) is a function: its samples would otherwise
		 * reach no experiment at all.
		 */
		for (size_t i = 0; i < nf; i++)
			if (f[i]->unlined && !exp_steer_skips(e, f[i]->id, true))
				all[k++] = (struct cand) { f[i]->id, f[i]->unlined, true };
	}
	qsort(all, k, sizeof(*all), cand_cmp);
	for (size_t i = 0; i < k; i++)
		total += all[i].samples;
	if (k > CANDIDATES_MAX)
		k = CANDIDATES_MAX;
	/* Below 1% of the samples a line cannot matter much: not worth a turn. */
	while (k > 1 && all[k - 1].samples * 100 < total)
		k--;
	memcpy(c, all, k * sizeof(*c));
	free(all);
	return k;
}

/*
 * Toward the answer, as LUCB does (Kalyanakrishnan et al., ICML 2012):
 * while the first line is not yet ahead (stats_answer), turn to the first
 * or its closest rival, whichever interval is the wider.  The answer
 * waits for the first's lower bound to clear the rival's upper bound,
 * and the wider interval is the one a turn narrows most; the upper bound
 * alone kept turning to a first already well measured while a rival with
 * a few experiments held the answer back.  False when the answer is in,
 * or when neither is a candidate any more.
 */
static bool
toward_answer(struct exp_engine *e, unsigned point, const struct cand *c, size_t n,
	      size_t *pick)
{
	size_t ncv, rival;
	const struct stats_curve *cv, *want;
	double w0, w1;

	if (stats_answer(e->stats, point, &rival) != STATS_UNDECIDED || !rival)
		return false;
	cv = stats_curves(e->stats, point, &ncv);
	/* What a turn narrows: the statistical part (the model error stays). */
	w0 = cv[0].impact_stat_hi - cv[0].impact_stat_lo;
	w1 = cv[rival].impact_stat_hi - cv[rival].impact_stat_lo;
	want = !isfinite(w0) || (isfinite(w1) && w0 >= w1) ? &cv[0] : &cv[rival];
	for (size_t i = 0; i < n; i++)
		if (c[i].target == want->target && c[i].is_func == want->is_func) {
			*pick = i;
			return true;
		}
	return false;
}

static bool
choose_target(struct exp_engine *e, unsigned point, unsigned *target, bool *is_func)
{
	struct cand c[CANDIDATES_MAX + 1];
	size_t n;
	uint64_t sum = 0, r;
	double best = -1e300;
	size_t pick = 0;

	*is_func = e->cfg.by_function;
	if (e->steer.pinned) {
		*target = e->steer.pin;
		*is_func = e->steer.pin_is_func;
		return true;
	}
	if (e->cfg.fixed_line) {
		if (!find_fixed(e))
			return false;
		*target = e->fixed_target;
		*is_func = e->cfg.by_function;
		return true;
	}
	if (!(n = candidates(e, c)))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct stats_curve *cv = stats_curve_of(e->stats, point, c[i].target,
							      c[i].is_func);

		if (!cv || cv->n_exp < EXPLORE_MIN) {
			*target = c[i].target;
			*is_func = c[i].is_func;
			return true;
		}
	}
	if (rnd(e) % 5 == 0) {
		for (size_t i = 0; i < n; i++)
			sum += c[i].samples;
		r = rnd(e) % sum;
		for (pick = 0; pick + 1 < n && r >= c[pick].samples; pick++)
			r -= c[pick].samples;
		*target = c[pick].target;
		*is_func = c[pick].is_func;
		return true;
	}
	if (!toward_answer(e, point, c, n, &pick))
		for (size_t i = 0; i < n; i++) {
			const struct stats_curve *cv = stats_curve_of(e->stats, point,
								      c[i].target, c[i].is_func);
			double ucb = cv ? cv->impact_hi : 1e300;

			if (ucb > best) {
				best = ucb;
				pick = i;
			}
		}
	*target = c[pick].target;
	*is_func = c[pick].is_func;
	return true;
}

static unsigned
next_level(struct exp_engine *e, unsigned target, bool is_func)
{
	unsigned pct;

	/* Lines and functions have ids of their own: one cycle each. */
	target = target * 2 + is_func;
	if (e->cfg.fixed_speedup >= 0)
		return (unsigned) e->cfg.fixed_speedup;
	if (target >= e->n_level_idx) {
		size_t n = target + 64;

		e->level_idx = xrealloc(e->level_idx, n * sizeof(*e->level_idx));
		memset(e->level_idx + e->n_level_idx, 0,
		       (n - e->n_level_idx) * sizeof(*e->level_idx));
		e->n_level_idx = n;
	}
	/* The first level of the cycle that the focus allows. */
	for (size_t tries = 0; tries < sizeof(levels); tries++) {
		pct = levels[e->level_idx[target] % sizeof(levels)];
		e->level_idx[target]++;
		if (exp_steer_level_ok(e, pct))
			break;
	}
	return pct;
}

/*
 * Where each thread may run (exp_pay() counts the CPUs of the ready ones).
 * Once an experiment: threads pin themselves early, if at all, and a
 * syscall a thread costs ~0.2 us here (50 us at 256 threads).
 */
static void
read_affinity(struct exp_engine *e)
{
	for (struct tcb *t = tcb_first(); t; t = t->next)
		t->cpus = e->online_mask ? e->sys->affinity(t, e->ncpus) : 0;
}

static void
try_start(struct exp_engine *e, uint64_t now)
{
	unsigned point, target, per_turn = e->cfg.fixed_speedup >= 0 ? 1 : 2;
	bool is_func;
	size_t n;

	if (e->steer.paused) {
		e->state = ST_IDLE;
		return;
	}
	if (!progress_seen(e, &point))
		return;
	if (e->phase == 0 || !e->have_turn_target) {
		if (!choose_target(e, point, &target, &is_func))
			return;
		e->turn_target = target;
		e->turn_is_func = is_func;
		e->have_turn_target = true;
		e->phase = 0;
	}
	target = e->turn_target;
	e->is_func = e->turn_is_func;
	e->pct = e->phase == 0 ? 0 : next_level(e, target, e->is_func);
	e->phase = (e->phase + 1) % (per_turn + 1);
	e->target = target;
	if (e->is_func) {
		e->func = lines_funcs(e->s->lines, &n)[target];
		e->line = NULL;
	} else {
		e->line = lines_lines(e->s->lines, &n)[target];
		e->func = NULL;
	}
	e->d_ns = e->cfg.period_ns * e->pct / 100;
	read_affinity(e);
	exp_forgive_all(e, now);
	e->g_start = e->g.global;
	e->steal_ok = e->sys->steal && e->sys->steal(&e->steal0);
	e->start_ns = now;
	e->hits_end_ns = UINT64_MAX;
	e->end_ns = now + e->len_ns;
	e->selected = 0;
	snapshot(e, now);
	e->state = ST_RUNNING;
}

static void
finish(struct exp_engine *e, uint64_t now)
{
	size_t n;
	struct progress_point *const *pts = progress_points(e->s->progress, &n);
	uint64_t wall = now - e->start_ns, delay = e->g.global - e->g_start;
	uint64_t min_events = UINT64_MAX;
	struct exp_record r = {
		.target = e->target,
		.is_func = e->is_func,
		.pct = e->pct,
		.run = e->s->runs.done,		/* --runs: this run's baselines */
		.start_ns = e->start_ns,
		.wall_ns = wall,
		.delay_ns = delay,
		.selected_samples = e->selected,
	};
	uint64_t steal;

	integrate(e, now);
	debug_msg("exp: end at %" PRIu64 ": %" PRIu64 " us of hits, %" PRIu64 " us of draining",
		  now / 1000, ((e->hits_end_ns < now ? e->hits_end_ns : now) - e->start_ns) / 1000,
		  e->hits_end_ns < now ? (now - e->hits_end_ns) / 1000 : 0);
	exp_forgive_all(e, now);
	e->state = ST_COOLOFF;
	e->cool_until = now + COOLOFF_NS;
	/* More delay than time: the accounting went wrong; keep nothing. */
	if (delay >= wall)
		return;
	if (e->steal_ok && e->sys->steal(&steal) && steal >= e->steal0) {
		r.steal_known = true;
		r.steal_ns = steal - e->steal0;
	}
	r.npoints = e->npts < n ? e->npts : n;
	r.points = xcalloc(r.npoints + 1, sizeof(*r.points));
	for (size_t i = 0; i < r.npoints; i++) {
		struct exp_point *p = &r.points[i];
		uint64_t events;

		p->point = (unsigned) i;
		p->latency = pts[i]->kind == PROGRESS_LATENCY;
		p->delta = pts[i]->count - e->c0[i];
		p->arrivals = pts[i]->arrivals - e->a0[i];
		p->inflight = e->area[i] / (double) wall;
		p->difference = pts[i]->arrivals > pts[i]->count ?
				pts[i]->arrivals - pts[i]->count : 0;
		events = p->latency ? p->arrivals : p->delta;
		if (events && events < min_events)
			min_events = events;
	}
	/*
	 * Too few events make a period out of a rounding error (Coz's HEAD
	 * drops them too); such a window only tells the length to grow.
	 */
	if (min_events == UINT64_MAX || min_events < MIN_EVENTS) {
		free(r.points);
	} else {
		stats_add(e->stats, &r);
		e->done++;
		e->baselines += e->pct == 0;
		e->delay_total += delay;
		e->wall_total += wall;
		if (r.steal_known) {
			e->steal_known = true;
			e->steal_total += r.steal_ns;
			e->steal_wall += wall;
			e->steal_disturbed += r.steal_ns >= EXP_STEAL_DISTURBED_MIN_NS &&
					      r.steal_ns * 100 > wall * e->ncpus * EXP_STEAL_DISTURBED_PCT;
		}
	}

	/* Enough events per experiment for a period worth measuring. */
	if (min_events == UINT64_MAX || min_events < TARGET_EVENTS)
		e->len_ns = e->len_ns * 2 < e->cfg.max_len_ns ? e->len_ns * 2 : e->cfg.max_len_ns;
	else if (min_events > 4 * TARGET_EVENTS && e->len_ns / 2 >= e->cfg.min_len_ns)
		e->len_ns /= 2;
}

void
exp_tick(struct exp_engine *e, uint64_t now)
{
	switch (e->state) {
	case ST_COOLOFF:
	case ST_IDLE:
		/* Switches and wake-ups keep coming: keep the accounts current. */
		exp_apply_events(e);
		if (e->state == ST_COOLOFF && now < e->cool_until)
			return;
		try_start(e, now);
		return;
	case ST_RUNNING:
		exp_apply_events(e);
		integrate(e, now);
		exp_update_scales(e, now);
		exp_update_cpu_scale(e);
		pause_settle(e->pz, now);
		if (now >= e->end_ns) {
			/* No more hits: let the running threads pay up. */
			e->state = ST_DRAINING;
			e->hits_end_ns = now;
			e->drain_start = now;
		}
		exp_pay(e, now);
		return;
	case ST_DRAINING:
		exp_apply_events(e);
		integrate(e, now);
		pause_settle(e->pz, now);
		if (!exp_pay(e, now) || now - e->drain_start >= DRAIN_MAX_NS)
			finish(e, now);
		return;
	}
}

void
exp_finish(struct exp_engine *e)
{
	/* A partial experiment is dropped: the end of a run is not a sample. */
	exp_forgive_all(e, e->sys->now());
	e->state = ST_IDLE;
	e->nwk = 0;
	e->nhit = 0;
	e->ndead = 0;
}

/* The tick during experiments: longer once preemptions proved dear. */
static uint64_t
experiment_tick_ns(const struct exp_engine *e)
{
	return e->stolen_first >= DEAR_STEALS * DEAR_STEAL_NS ? TICK_DEAR_NS : TICK_EXPERIMENT_NS;
}

void
exp_summary(const struct exp_engine *e, uint64_t now, struct exp_summary *sm)
{
	const struct pause_stats *ps = pause_stats(e->pz);

	*sm = (struct exp_summary) {
		.done = e->done,
		.baselines = e->baselines,
		.delay_ns = e->delay_total,
		.exp_wall_ns = e->wall_total,
		.state = state_names[e->state],
		.line = e->state == ST_RUNNING ? e->line : NULL,
		.func = e->state == ST_RUNNING ? e->func : NULL,
		.pct = e->pct,
		.left_ns = e->state == ST_RUNNING && e->end_ns > now ? e->end_ns - now : 0,
		.len_ns = e->len_ns,
		.wakes = e->wakes,
		.wakes_credited = e->wakes_credited,
		.cpu_waits = e->cpu_waits,
		.cpu_waits_credited = e->cpu_waits_credited,
		.revoked_ns = e->revoked_ns,
		.tick_ns = experiment_tick_ns(e),
		.first_steal_ns = e->stolen_first / DEAR_STEALS,
		.first_steals = DEAR_STEALS,
		.steals = e->steals,
		.stolen_ns = e->stolen_ns,
		.stolen_paid_ns = e->stolen_paid_ns,
		.pauses = ps->held,
		.pauses_blocked = ps->in_syscall,
		.pauses_cleared = ps->cleared,
		.pauses_deferred = e->deferred,
		.stop_lag_ns = ps->stop_lag_ns,
		.restart_lag_ns = ps->restart_lag_ns,
		.wake_lags = e->wake_lags,
		.wake_lag_ns = e->wake_lag_ns,
		.wake_lags_guessed = e->wake_lags_guessed,
		.idle_wakes = e->idle_wakes,
		.idle_wake_ns = e->idle_wake_ns,
		.steal_known = e->steal_known,
		.steal_ns = e->steal_total,
		.steal_wall_ns = e->steal_wall,
		.steal_disturbed = e->steal_disturbed,
		.ncpus = e->ncpus,
	};
}

double
exp_steal_pct(const struct exp_summary *sm)
{
	double cpu = (double) sm->steal_wall_ns * (sm->ncpus ? sm->ncpus : 1);

	return sm->steal_known && cpu > 0 ? 100.0 * (double) sm->steal_ns / cpu : 0;
}

bool
exp_steal_worrying(const struct exp_summary *sm)
{
	return sm->steal_known && (exp_steal_pct(sm) >= EXP_STEAL_WARN_PCT || sm->steal_disturbed);
}

uint64_t
exp_tick_ns(const struct exp_engine *e)
{
	return e->state == ST_IDLE ? TICK_IDLE_NS : experiment_tick_ns(e);
}
