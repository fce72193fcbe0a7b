/*
 * The estimator.
 *
 * Measure.  On one progress point every experiment i gives a ratio
 * m_i = N_i / D_i, the time per unit of progress over its effective
 * duration d_i = wall - delay:
 *   throughput:  N = d,            D = visits     (m: period per visit)
 *   latency:     N = inflight * d, D = arrivals   (m: W = L / lambda)
 * Experiments with D = 0 carry no ratio and are skipped.
 *
 * Local baselines.  0% experiments insert no delay, so they are pooled
 * over targets.  Experiment i is compared with the (up to) 3 baselines
 * just before and 3 just after its midpoint in time (6 from one side at
 * the ends of the run).  `causaltop report` pools runs, which may differ
 * in speed as a whole: a run with 6 baselines or more keeps them to its
 * own experiments; runs with fewer (Coz's, with one experiment per run
 * in --end-to-end mode) take the nearest of any run, in run order.
 * The pool is a ratio of sums m0_i = sum N / sum D: a slow drift of the
 * program's speed is nearly linear over the window and cancels.  y_i = 1 - m_i / m0_i,
 * positive when the program got faster, for both kinds of point.
 *
 * Weights: the events D_i.  Then the weighted mean of a level is
 * sum D_i y_i / sum D_i = 1 - sum (N_i / m0_i) / sum D_i, a ratio of
 * sums like Coz's per-bin sum(duration) / sum(delta): the counts enter
 * linearly.  Averaging the per-experiment ratios with weights that do
 * not depend on the outcome (durations) would not be: E[1/D] > 1/E[D],
 * which biases every y down by about 1/D per experiment, 10 points at
 * 10 events.  Events are also the inverse-variance weights, by the
 * noise model below.
 *
 * Noise model.  A ratio over D events has a relative error e with
 * var(e) = sigma2 / D (counts: variance proportional to the count,
 * overdispersion in sigma2).  The relative error of a pool of baselines
 * is then their D-weighted mean error, exactly what the ratio of sums
 * does.  sigma2 is estimated from the baselines: each baseline's y
 * against its own neighbours (itself excluded) has variance
 * sigma2 (1/D_j + 1/P_j), P_j the neighbours' events.  This is the noise
 * the whole run shows, its drift and phases included, with as many
 * degrees of freedom as there are baselines.
 *
 * Fits.  Every estimate is one weighted least-squares line through the
 * origin (y = 0 at s = 0 by construction), y = b x, over a set of
 * experiments:
 *   a level:  x = 1 over its experiments (b: their weighted mean);
 *   slope:    x = s over the experiments with 0 < s <= 50%;
 *   impact:   x = s over every experiment of the target.
 * The variance of b has two parts:
 *   experiment noise: the residual spread, sum w (y - b x)^2 /
 *     ((n-1) sum w x^2) with n-1 degrees of freedom, but never less
 *     than what the noise model predicts for these experiments,
 *     sigma2 sum w x^2 (1-y)^2 / (sum w x^2)^2 (with the baselines'
 *     degrees of freedom), so that two experiments that agree by chance
 *     do not make a narrow interval;
 *   baseline noise: b moves with the errors of the baselines it was
 *     compared with, and experiments near in time share baselines, so
 *     this part does not shrink with n.  To first order
 *     db = sum_i a_i eps_i, a_i = w_i x_i (1 - y_i) / sum w x^2, with
 *     eps_i the relative error of i's pool; collecting the terms of each
 *     baseline j, var = sigma2 sum_j D_j g_j^2 with g_j = the sum over
 *     the experiments i whose pool holds j of a_i / P_i.
 * The independent part of the baseline noise is in both terms: the
 * interval errs on the wide side.  The parts are combined with
 * Welch-Satterthwaite degrees of freedom; the interval is
 * b +- t95(df) sqrt(var).
 *
 * Robustness.  A VM's host stalls the program now and then: one 200 ms
 * experiment runs at 60% of its rate, for reasons of its own.  Counts
 * do not have such tails, and one stall among 34 experiments set the
 * residual spread (and sigma2, and the pools of the six experiments
 * around it) of a whole run: a ground-truth check's interval went from
 * +-0.03 to +-0.12 in CI.  So the errors are weighed as Huber's M-
 * estimator does, at STATS_HUBER standard deviations: sigma2 is a
 * winsorized mean (a baseline first against its neighbours' median),
 * a straying baseline weighs less in its neighbours' pools, a level is
 * an M-estimate from its median, and slope and impact take the weights
 * of the levels (a curved curve is no outlier).  With fewer than
 * STATS_ROBUST_MIN observations there is no robust scale: plain means.
 *
 * Validity.  An estimate needs 2 usable experiments, 5 progress events
 * (Coz's MIN_DELTA) and 2 baselines (for sigma2).  A verdict needs 3.
 *
 * Impact: the program speedup a 100% line speedup would give, by the fit
 * over all levels.  It uses every experiment (the high levels carry the
 * most signal), it is comparable between targets whatever levels each
 * happened to draw, and it counts curves that only rise past a knee,
 * which a slope near 0 misses.  The slope near 0 is reported beside it:
 * what a small optimization of the line is worth.
 *
 * Model error.  The interval above is the estimator's noise, as if a
 * virtual speedup were a real one.  It is not quite: pauses are paid
 * late, samples go missing, the supervisor costs the program time.  On
 * the ground-truth checks, whose truth is measured, the statistical
 * intervals held 52% of the truths (745 checks, 2026-11-26 to 29): the
 * errors were a point or two where the intervals were half a point.  So
 * every level's and impact's interval joins a model error of standard
 * deviation a + b |estimate| (stats.h: calibrated on those checks, the
 * validation set only judges it): half-width sqrt(h^2 + (1.96 m)^2).
 * The slope's interval is the statistical one (no truth measures it).
 * The statistical intervals are kept beside (stat_lo, stat_hi).
 *
 * Verdicts, on the impact's interval [lo, hi], model error in (an
 * effect the method's own error could make is no finding):
 *   optimize:    lo > 0 and impact >= 0.02;
 *   contention:  hi < 0 and impact <= -0.02;
 *   no effect:   -0.05 < lo and hi < 0.05;
 *   not enough data otherwise (or fewer than 3 experiments).
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "calc/stats.h"

enum {
	STATS_NEIGHBOURS = 3,		/* baselines on each side */
	STATS_MIN_EVENTS = 5,		/* Coz's MIN_DELTA */
	STATS_MIN_EXP = 2,		/* for an estimate */
	STATS_MIN_VERDICT_EXP = 3,	/* for a verdict */
	STATS_SLOPE_MAX_PCT = 50,
	STATS_RUN_BASELINES = 2 * STATS_NEIGHBOURS,	/* a run's own, if it has */
	STATS_ROBUST_MIN = 6,		/* observations for a robust scale */
	STATS_ROBUST_ITER = 3,		/* reweightings of a level's fit */
};

#define STATS_WORTH 0.02	/* smallest impact worth optimizing for */
#define STATS_NEGLIGIBLE 0.05	/* an interval within +-this: no effect */
/* Huber's constant, in standard deviations, and E[min(Z^2, c^2)] for a
 * standard normal Z: the winsorized variance's correction. */
#define STATS_HUBER 2.5
#define STATS_HUBER_KAPPA 0.977573

/* The curves of one point, until the next stats_add. */
struct stats_cache {
	bool fresh;
	struct stats_curve *curves;
	size_t ncurves;
	struct stats_level *levels;
};

struct stats {
	struct exp_record *recs;
	size_t nrecs, recs_alloc;
	size_t nbaselines;
	struct stats_cache *cache;
	size_t ncache;
	double model_abs, model_rel;	/* model error (stats.h) */
};

/* One record seen from one point. */
struct obs {
	bool ok;		/* has a ratio */
	double num, den;	/* m = num / den */
	double w;		/* weight: events */
	double t;		/* midpoint, seconds */
	double u;		/* robust weight in (0, 1]: below 1 if it strays */
	uint64_t events;
	/* non-baselines: */
	bool usable;		/* has a y */
	double y;
	double pool_w;		/* events of its baselines */
	unsigned nnb;
	size_t nb[2 * STATS_NEIGHBOURS];	/* positions in the baseline order */
};

/* What one computation of a point's curves works on. */
struct calc {
	const struct exp_record *recs;
	struct obs *obs;
	size_t *base;		/* record indices of usable baselines, by time */
	size_t nbase;
	double sigma2;		/* relative noise variance per event */
	double df_base;		/* its degrees of freedom; 0: unknown */
	double *g;		/* per baseline position, zero between fits */
	bool *used;		/* g[pos] is in touched[] */
	size_t *touched;
	double *z, *tmp;	/* scratch for a level's robust weights */
	double model_abs, model_rel;	/* model error (stats.h) */
};

struct fit {
	bool valid;
	unsigned n;
	uint64_t events;
	double est, lo, hi;
};

struct stats *
stats_new(void)
{
	struct stats *st = xcalloc(1, sizeof(struct stats));

	st->model_abs = STATS_MODEL_ABS;
	st->model_rel = STATS_MODEL_REL;
	return st;
}

void
stats_set_model_error(struct stats *st, double abs_sd, double rel_sd)
{
	st->model_abs = abs_sd;
	st->model_rel = rel_sd;
	for (size_t p = 0; p < st->ncache; p++)
		st->cache[p].fresh = false;
}

static void
cache_clear(struct stats_cache *c)
{
	free(c->curves);
	free(c->levels);
	memset(c, 0, sizeof(*c));
}

void
stats_free(struct stats *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nrecs; i++)
		free(st->recs[i].points);
	free(st->recs);
	for (size_t i = 0; i < st->ncache; i++)
		cache_clear(&st->cache[i]);
	free(st->cache);
	free(st);
}

void
stats_add(struct stats *st, const struct exp_record *r)
{
	if (st->nrecs == st->recs_alloc)
		st->recs = xgrowarray(st->recs, &st->recs_alloc, st->nrecs + 1,
				      sizeof(*st->recs));
	st->recs[st->nrecs++] = *r;
	if (r->pct == 0)
		st->nbaselines++;
	for (size_t i = 0; i < st->ncache; i++)
		st->cache[i].fresh = false;
}

size_t
stats_forget(struct stats *st, unsigned target, bool is_func)
{
	size_t k = 0, dropped;

	for (size_t i = 0; i < st->nrecs; i++) {
		struct exp_record *r = &st->recs[i];

		if (r->pct && r->target == target && r->is_func == is_func)
			free(r->points);
		else
			st->recs[k++] = *r;
	}
	dropped = st->nrecs - k;
	st->nrecs = k;
	if (dropped)
		for (size_t i = 0; i < st->ncache; i++)
			st->cache[i].fresh = false;
	return dropped;
}

const struct exp_record *
stats_records(const struct stats *st, size_t *n)
{
	*n = st->nrecs;
	return st->recs;
}

size_t
stats_baselines(const struct stats *st)
{
	return st->nbaselines;
}

/*
 * Could cv's effect be as large as lo?  A line with no interval yet (one
 * or two experiments) has no say: the schedule tries the lines that hold
 * the samples first, and such a line would keep any answer out for long.
 */
static bool
could_reach(const struct stats_curve *cv, double lo)
{
	if (cv->verdict == VERDICT_NO_EFFECT || cv->verdict == VERDICT_CONTENTION)
		return false;
	return stats_curve_measured(cv) && cv->impact_hi >= lo;
}

enum stats_answer
stats_answer(struct stats *st, unsigned point, size_t *rival)
{
	size_t n, decided = 0, r = 1;
	const struct stats_curve *cv = stats_curves(st, point, &n);

	/* The closest to the first: the highest upper bound. */
	for (size_t k = 2; k < n; k++)
		if (stats_curve_measured(&cv[k]) &&
		    (!stats_curve_measured(&cv[r]) || cv[k].impact_hi > cv[r].impact_hi))
			r = k;
	if (rival)
		*rival = n > 1 ? r : 0;
	if (n < STATS_ANSWER_MIN)
		return STATS_UNDECIDED;
	/* Ahead of every other line tried, not of the second alone. */
	if (cv[0].verdict == VERDICT_OPTIMIZE) {
		for (size_t k = 1; k < n; k++)
			if (could_reach(&cv[k], cv[0].impact_lo))
				return STATS_UNDECIDED;
		return STATS_TOP_LINE;
	}
	for (size_t k = 0; k < n; k++)
		decided += cv[k].verdict != VERDICT_NOT_ENOUGH;
	return decided == n ? STATS_NOTHING : STATS_UNDECIDED;
}

int
stats_answer_any(struct stats *st, size_t npoints)
{
	int kind = -1;

	for (unsigned p = 0; p < npoints && kind <= STATS_UNDECIDED; p++) {
		size_t n;
		const struct stats_curve *cv = stats_curves(st, p, &n);

		if (n && isfinite(cv[0].impact))
			kind = stats_answer(st, p, NULL);
	}
	return kind;
}

bool
stats_curve_measured(const struct stats_curve *cv)
{
	return isfinite(cv->impact) && isfinite(cv->impact_lo) && isfinite(cv->impact_hi);
}

const char *
stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case VERDICT_OPTIMIZE:
		return "optimize";
	case VERDICT_NO_EFFECT:
		return "no effect";
	case VERDICT_CONTENTION:
		return "contention";
	case VERDICT_NOT_ENOUGH:
		break;
	}
	return "not enough data";
}

double
stats_t95(unsigned df)
{
	static const double t[] = {
		INFINITY, 12.706205, 4.302653, 3.182446, 2.776445, 2.570582,
		2.446912, 2.364624, 2.306004, 2.262157, 2.228139, 2.200985,
		2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816,
		2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658,
		2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230,
		2.042272,
	};
	const double z = 1.959964;
	double v, z3, z5, z7;

	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	/* Cornish-Fisher: within 1e-6 of the exact quantile past 30. */
	v = df;
	z3 = z * z * z;
	z5 = z3 * z * z;
	z7 = z5 * z * z;
	return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

/* Fractional degrees of freedom (Welch-Satterthwaite): round down. */
static double
t95_df(double df)
{
	if (!(df >= 1))
		return INFINITY;
	if (df > 1e6)
		return stats_t95(1000000);
	return stats_t95((unsigned) df);
}

static const struct exp_point *
find_point(const struct exp_record *r, unsigned point)
{
	for (size_t i = 0; i < r->npoints; i++)
		if (r->points[i].point == point)
			return &r->points[i];
	return NULL;
}

static void
observe(const struct exp_record *r, unsigned point, struct obs *o)
{
	const struct exp_point *p = find_point(r, point);
	double d;

	memset(o, 0, sizeof(*o));
	o->u = 1;
	o->t = (r->start_ns + r->wall_ns / 2) / 1e9;
	if (!p || r->wall_ns <= r->delay_ns)
		return;
	d = (r->wall_ns - r->delay_ns) / 1e9;
	if (p->latency) {
		o->events = p->arrivals;
		if (!p->arrivals || !isfinite(p->inflight) || p->inflight < 0)
			return;
		o->num = p->inflight * d;
		o->den = (double) p->arrivals;
	} else {
		o->events = p->delta;
		if (!p->delta)
			return;
		o->num = d;
		o->den = (double) p->delta;
	}
	o->w = o->den;
	o->ok = true;
}

/*
 * The baselines nearest to time t, within the positions [lo, hi):
 * positions before `before` going back and from `after` on,
 * STATS_NEIGHBOURS each side, topped up from the other side at the ends
 * of the run.
 */
static unsigned
neighbours(size_t lo, size_t hi, size_t before, size_t after, size_t *nb)
{
	size_t nb_before = before - lo, nb_after = hi - after;
	size_t want = 2 * STATS_NEIGHBOURS;
	size_t take_before, take_after;
	unsigned n = 0;

	take_before = nb_before < STATS_NEIGHBOURS ? nb_before : STATS_NEIGHBOURS;
	take_after = nb_after < STATS_NEIGHBOURS ? nb_after : STATS_NEIGHBOURS;
	if (take_before + take_after < want) {
		if (take_before < STATS_NEIGHBOURS)
			take_after = nb_after < want - take_before ?
				     nb_after : want - take_before;
		else
			take_before = nb_before < want - take_after ?
				      nb_before : want - take_after;
	}
	for (size_t k = 0; k < take_before; k++)
		nb[n++] = before - 1 - k;
	for (size_t k = 0; k < take_after; k++)
		nb[n++] = after + k;
	return n;
}

/* Pool the baselines nb[]: m0 and their events; false if none. */
static bool
pool(const struct calc *c, const size_t *nb, unsigned n, double *m0, double *w)
{
	double num = 0, den = 0;

	*w = 0;
	for (unsigned k = 0; k < n; k++) {
		const struct obs *b = &c->obs[c->base[nb[k]]];

		num += b->u * b->num;
		den += b->u * b->den;
		*w += b->u * b->w;
	}
	if (!(den > 0) || !(num > 0) || !(*w > 0))
		return false;
	*m0 = num / den;
	return true;
}

/* Baselines by run, then by time. */
static int
by_time(const void *a, const void *b, void *arg)
{
	const struct calc *c = arg;
	size_t x = *(const size_t *) a, y = *(const size_t *) b;

	if (c->recs[x].run != c->recs[y].run)
		return c->recs[x].run < c->recs[y].run ? -1 : 1;
	if (c->obs[x].t != c->obs[y].t)
		return c->obs[x].t < c->obs[y].t ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Where run's baselines are looked for: its own positions [*lo, *hi) if
 * it has enough of them, else every run's (short runs, as Coz's are with
 * --end-to-end, have too few baselines of their own).
 */
static void
run_window(const struct calc *c, unsigned run, size_t *lo, size_t *hi)
{
	size_t a = 0, b = c->nbase;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (c->recs[c->base[mid]].run < run)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	b = c->nbase;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (c->recs[c->base[mid]].run <= run)
			a = mid + 1;
		else
			b = mid;
	}
	*hi = a;
	if (*hi - *lo < STATS_RUN_BASELINES) {
		*lo = 0;
		*hi = c->nbase;
	}
}

/* First baseline position in [lo, hi) at or after (run, t), in by_time order. */
static size_t
baseline_after(const struct calc *c, size_t lo, size_t hi, unsigned run, double t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		unsigned r = c->recs[c->base[mid]].run;

		if (r < run || (r == run && c->obs[c->base[mid]].t < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n), n > 0, which it sorts. */
static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A robust standard deviation of the standardized errors z[0..n)
 * (centred on 0 by construction): 1.4826 times the median of |z|, the
 * normal's MAD; 0 when there are too few to tell.  tmp: n doubles.
 */
static double
robust_sd(const double *z, size_t n, double *tmp)
{
	if (n < STATS_ROBUST_MIN)
		return 0;
	for (size_t k = 0; k < n; k++)
		tmp[k] = fabs(z[k]);
	return 1.4826 * median(tmp, n);
}

/* Huber's weight of an error z for the scale sd (0: none). */
static double
huber_weight(double z, double sd)
{
	double lim = STATS_HUBER * sd;

	return sd > 0 && fabs(z) > lim ? lim / fabs(z) : 1;
}

/* The median of the rates m = num / den of the baselines nb[0..n). */
static double
median_rate(const struct calc *c, const size_t *nb, unsigned n, double *tmp)
{
	for (unsigned k = 0; k < n; k++) {
		const struct obs *b = &c->obs[c->base[nb[k]]];

		tmp[k] = b->num / b->den;
	}
	return median(tmp, n);
}

/*
 * sigma2 from the baselines, each against its neighbours.  A stall of
 * the host (a baseline at half the rate) is noise of another kind than
 * the counts': it would inflate sigma2 and move the pools of the six
 * experiments around it.  So the errors are winsorized at STATS_HUBER
 * robust deviations (and corrected for it), and a baseline beyond gets
 * a Huber weight in its neighbours' pools; twice, the second time with
 * the pools the first weights give.
 */
static void
calc_sigma2(struct calc *c)
{
	double *z = c->z, *tmp = c->tmp;
	size_t *who = xcalloc(c->nbase, sizeof(*who));

	for (int pass = 0; pass < 2; pass++) {
		double sum = 0, sd, lim;
		size_t cnt = 0;

		for (size_t k = 0; k < c->nbase; k++) {
			const struct obs *b = &c->obs[c->base[k]];
			size_t nb[2 * STATS_NEIGHBOURS], lo, hi;
			unsigned n;
			double m0, w, y;

			run_window(c, c->recs[c->base[k]].run, &lo, &hi);
			n = neighbours(lo, hi, k, k + 1, nb);
			if (!n || !pool(c, nb, n, &m0, &w))
				continue;
			/* First against the neighbours' median: a stalled
			 * neighbour would move a pool's mean. */
			if (pass == 0)
				m0 = median_rate(c, nb, n, tmp);
			y = 1 - b->num / b->den / m0;
			if (!isfinite(y))
				continue;
			z[cnt] = y / sqrt(1 / b->w + 1 / w);
			who[cnt++] = c->base[k];
		}
		if (cnt < 2)
			break;
		sd = robust_sd(z, cnt, tmp);
		lim = STATS_HUBER * sd;
		for (size_t k = 0; k < cnt; k++) {
			sum += sd > 0 && fabs(z[k]) > lim ? lim * lim : z[k] * z[k];
			c->obs[who[k]].u = huber_weight(z[k], sd);
		}
		c->sigma2 = sd > 0 ? sum / cnt / STATS_HUBER_KAPPA : sum / cnt;
		/* Neighbouring baselines' y share terms: one df less. */
		c->df_base = cnt - 1;
	}
	free(who);
}

/* Baselines in time order, their noise, and every experiment's y. */
static void
calc_prepare(struct calc *c, const struct exp_record *recs, size_t nrecs,
	     unsigned point)
{
	memset(c, 0, sizeof(*c));
	c->recs = recs;
	c->obs = xcalloc(nrecs, sizeof(*c->obs));
	c->base = xcalloc(nrecs, sizeof(*c->base));
	for (size_t i = 0; i < nrecs; i++) {
		observe(&recs[i], point, &c->obs[i]);
		if (recs[i].pct == 0 && c->obs[i].ok)
			c->base[c->nbase++] = i;
	}
	qsort_r(c->base, c->nbase, sizeof(*c->base), by_time, c);
	c->g = xcalloc(c->nbase, sizeof(*c->g));
	c->used = xcalloc(c->nbase, sizeof(*c->used));
	c->touched = xcalloc(c->nbase, sizeof(*c->touched));
	c->z = xcalloc(nrecs, sizeof(*c->z));
	c->tmp = xcalloc(nrecs, sizeof(*c->tmp));
	calc_sigma2(c);

	for (size_t i = 0; i < nrecs; i++) {
		struct obs *o = &c->obs[i];
		size_t after, lo, hi;
		double m0;

		if (recs[i].pct == 0 || !o->ok)
			continue;
		run_window(c, recs[i].run, &lo, &hi);
		after = baseline_after(c, lo, hi, recs[i].run, o->t);
		o->nnb = neighbours(lo, hi, after, after, o->nb);
		if (!o->nnb || !pool(c, o->nb, o->nnb, &m0, &o->pool_w))
			continue;
		o->y = 1 - o->num / o->den / m0;
		o->usable = isfinite(o->y);
	}
}

static void
calc_release(struct calc *c)
{
	free(c->obs);
	free(c->base);
	free(c->g);
	free(c->used);
	free(c->touched);
	free(c->z);
	free(c->tmp);
}

/*
 * Robust weights of one level's experiments idx[0..n): an experiment
 * the host stalled (its rate halved for reasons of its own) would set
 * the residual spread, and so the interval, of its level and of the
 * curve.  Huber's M-estimate of the level, from its median, with the
 * scale the noise model gives each experiment (or the level's robust
 * spread, if wider): those beyond STATS_HUBER deviations weigh less.
 * The slope and impact fits take the weights their levels found: a
 * curve that is not a line through the origin is no outlier.
 */
static void
level_weights(struct calc *c, const size_t *idx, size_t n)
{
	double est, sd = 1, *e = c->z;
	size_t m = 0;

	if (!(c->sigma2 > 0))
		return;
	for (size_t k = 0; k < n; k++)
		if (c->obs[idx[k]].usable)
			e[m++] = c->obs[idx[k]].y;
	if (m < STATS_ROBUST_MIN)
		return;
	est = median(e, m);
	for (int it = 0; it < STATS_ROBUST_ITER; it++) {
		double sw = 0, swy = 0;

		m = 0;
		for (size_t k = 0; k < n; k++) {
			const struct obs *o = &c->obs[idx[k]];

			if (!o->usable)
				continue;
			e[m++] = (o->y - est) / (fabs(1 - est) *
				sqrt(c->sigma2 * (1 / o->w + 1 / o->pool_w)));
		}
		if (it == 0) {
			sd = robust_sd(e, m, c->tmp);
			if (sd < 1)
				sd = 1;
		}
		m = 0;
		for (size_t k = 0; k < n; k++) {
			struct obs *o = &c->obs[idx[k]];

			if (!o->usable)
				continue;
			o->u = huber_weight(e[m++], sd);
			sw += o->w * o->u;
			swy += o->w * o->u * o->y;
		}
		est = swy / sw;
	}
}

/*
 * The fit y = b x over the records idx[0..n), x from pct (or 1 when
 * level_fit); records that are not usable are passed over.  Each
 * weighs its events times its robust weight.
 */
static struct fit
fit_origin(struct calc *c, const size_t *idx, size_t n, bool level_fit)
{
	struct fit f = { .est = NAN, .lo = NAN, .hi = NAN };
	double swx2 = 0, swxy = 0, resid = 0, model = 0, base = 0;
	double v_exp, df_exp, v, df, half;
	size_t ntouched = 0;

	if (level_fit)
		level_weights(c, idx, n);
	for (size_t k = 0; k < n; k++) {
		const struct obs *o = &c->obs[idx[k]];
		double x = level_fit ? 1 : c->recs[idx[k]].pct / 100.0;

		if (!o->usable)
			continue;
		f.n++;
		f.events += o->events;
		swx2 += o->w * o->u * x * x;
		swxy += o->w * o->u * x * o->y;
	}
	if (!f.n || !(swx2 > 0))
		return f;
	f.est = swxy / swx2;
	if (f.n < STATS_MIN_EXP || f.events < STATS_MIN_EVENTS || !(c->df_base >= 1))
		return f;

	for (size_t k = 0; k < n; k++) {
		const struct obs *o = &c->obs[idx[k]];
		double x = level_fit ? 1 : c->recs[idx[k]].pct / 100.0;
		double r, a;

		if (!o->usable)
			continue;
		r = o->y - f.est * x;
		/* u^2: a straying experiment's residual counts as Huber's
		 * psi does, up to STATS_HUBER deviations and no more. */
		resid += o->w * o->u * o->u * r * r;
		model += o->w * o->u * o->u * x * x * (1 - o->y) * (1 - o->y);
		a = o->w * o->u * x * (1 - o->y) / swx2;
		for (unsigned j = 0; j < o->nnb; j++) {
			size_t pos = o->nb[j];

			if (!c->used[pos]) {
				c->used[pos] = true;
				c->touched[ntouched++] = pos;
			}
			c->g[pos] += a / o->pool_w;
		}
	}
	for (size_t k = 0; k < ntouched; k++) {
		size_t pos = c->touched[k];
		const struct obs *b = &c->obs[c->base[pos]];
		double g = c->g[pos];

		base += b->w * b->u * b->u * g * g;
		c->g[pos] = 0;
		c->used[pos] = false;
	}
	resid /= (f.n - 1) * swx2;
	model *= c->sigma2 / (swx2 * swx2);
	base *= c->sigma2;
	if (resid >= model) {
		v_exp = resid;
		df_exp = f.n - 1;
	} else {
		v_exp = model;
		df_exp = c->df_base;
	}
	v = v_exp + base;
	if (v > 0)
		df = v * v / (v_exp * v_exp / df_exp + base * base / c->df_base);
	else
		df = df_exp;
	half = t95_df(df) * sqrt(v);
	if (!isfinite(half))
		return f;
	f.lo = f.est - half;
	f.hi = f.est + half;
	f.valid = true;
	return f;
}

/* The interval of the real speedup: f's joined to the model error. */
static void
with_model(const struct calc *c, const struct fit *f, double *lo, double *hi)
{
	double h = (f->hi - f->lo) / 2;
	double m = 1.96 * (c->model_abs + c->model_rel * fabs(f->est));

	h = sqrt(h * h + m * m);
	*lo = f->est - h;
	*hi = f->est + h;
}

static enum stats_verdict
verdict(const struct stats_curve *cv, unsigned n_usable)
{
	if (!stats_curve_measured(cv) || n_usable < STATS_MIN_VERDICT_EXP)
		return VERDICT_NOT_ENOUGH;
	if (cv->impact_lo > 0 && cv->impact >= STATS_WORTH)
		return VERDICT_OPTIMIZE;
	if (cv->impact_hi < 0 && cv->impact <= -STATS_WORTH)
		return VERDICT_CONTENTION;
	if (cv->impact_lo > -STATS_NEGLIGIBLE && cv->impact_hi < STATS_NEGLIGIBLE)
		return VERDICT_NO_EFFECT;
	return VERDICT_NOT_ENOUGH;
}

static int
by_target(const void *a, const void *b, void *arg)
{
	const struct exp_record *r = arg;
	const struct exp_record *x = &r[*(const size_t *) a];
	const struct exp_record *y = &r[*(const size_t *) b];

	if (x->is_func != y->is_func)
		return x->is_func ? 1 : -1;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->pct != y->pct)
		return x->pct < y->pct ? -1 : 1;
	return *(const size_t *) a < *(const size_t *) b ? -1 : 1;
}

static int
rank_group(enum stats_verdict v)
{
	return v == VERDICT_OPTIMIZE ? 0 : v == VERDICT_CONTENTION ? 2 : 1;
}

static int
by_rank(const void *a, const void *b)
{
	const struct stats_curve *x = a, *y = b;
	int gx = rank_group(x->verdict), gy = rank_group(y->verdict);
	bool fx = isfinite(x->impact), fy = isfinite(y->impact);

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (fx != fy)
		return fx ? -1 : 1;
	if (fx && x->impact != y->impact)
		return x->impact > y->impact ? -1 : 1;
	if (x->selected_samples != y->selected_samples)
		return x->selected_samples > y->selected_samples ? -1 : 1;
	if (x->is_func != y->is_func)
		return x->is_func ? 1 : -1;
	return x->target < y->target ? -1 : x->target > y->target;
}

/* One target's curve from its records idx[0..n), sorted by level. */
static void
build_curve(struct calc *c, const size_t *idx, size_t n, struct stats_curve *cv,
	    struct stats_level *levels, size_t *sel)
{
	const struct exp_record *first = &c->recs[idx[0]];
	size_t nsel = 0;
	unsigned n_usable = 0;
	struct fit f;

	memset(cv, 0, sizeof(*cv));
	cv->target = first->target;
	cv->is_func = first->is_func;
	cv->n_exp = (unsigned) n;
	cv->levels = levels;
	for (size_t k = 0; k < n;) {
		size_t end = k;
		struct stats_level *lv = &levels[cv->nlevels++];

		while (end < n && c->recs[idx[end]].pct == c->recs[idx[k]].pct)
			end++;
		f = fit_origin(c, idx + k, end - k, true);
		lv->pct = c->recs[idx[k]].pct;
		lv->n_exp = f.n;
		lv->events = f.events;
		lv->valid = f.valid;
		lv->est = f.est;
		lv->stat_lo = f.lo;
		lv->stat_hi = f.hi;
		with_model(c, &f, &lv->lo, &lv->hi);
		k = end;
	}
	for (size_t k = 0; k < n; k++) {
		cv->selected_samples += c->recs[idx[k]].selected_samples;
		if (c->obs[idx[k]].usable)
			n_usable++;
		if (c->recs[idx[k]].pct <= STATS_SLOPE_MAX_PCT)
			sel[nsel++] = idx[k];
	}
	f = fit_origin(c, sel, nsel, false);
	cv->slope_valid = f.valid;
	cv->slope = f.est;
	cv->slope_lo = f.lo;
	cv->slope_hi = f.hi;
	f = fit_origin(c, idx, n, false);
	cv->impact = f.est;
	cv->impact_stat_lo = f.lo;
	cv->impact_stat_hi = f.hi;
	with_model(c, &f, &cv->impact_lo, &cv->impact_hi);
	cv->verdict = verdict(cv, n_usable);
}

static void
compute(struct stats *st, unsigned point, struct stats_cache *cache)
{
	struct calc c;
	size_t *idx, *sel, n = 0, nlevels = 0;

	cache_clear(cache);
	calc_prepare(&c, st->recs, st->nrecs, point);
	c.model_abs = st->model_abs;
	c.model_rel = st->model_rel;
	idx = xcalloc(st->nrecs, sizeof(*idx));
	sel = xcalloc(st->nrecs, sizeof(*sel));
	for (size_t i = 0; i < st->nrecs; i++)
		if (st->recs[i].pct)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), by_target, st->recs);

	/* Upper bounds: one curve and one level per record at most. */
	cache->curves = xcalloc(n, sizeof(*cache->curves));
	cache->levels = xcalloc(n, sizeof(*cache->levels));
	for (size_t k = 0; k < n;) {
		const struct exp_record *r = &st->recs[idx[k]];
		struct stats_curve *cv = &cache->curves[cache->ncurves++];
		size_t end = k;

		while (end < n && st->recs[idx[end]].target == r->target &&
		       st->recs[idx[end]].is_func == r->is_func)
			end++;
		build_curve(&c, idx + k, end - k, cv, cache->levels + nlevels, sel);
		cv->point = point;
		nlevels += cv->nlevels;
		k = end;
	}
	qsort(cache->curves, cache->ncurves, sizeof(*cache->curves), by_rank);
	free(idx);
	free(sel);
	calc_release(&c);
	cache->fresh = true;
}

const struct stats_curve *
stats_curves(struct stats *st, unsigned point, size_t *n)
{
	struct stats_cache *cache;

	if (point >= st->ncache) {
		size_t old = st->ncache;

		st->cache = xgrowarray(st->cache, &st->ncache, (size_t) point + 1,
				       sizeof(*st->cache));
		memset(st->cache + old, 0, (st->ncache - old) * sizeof(*st->cache));
	}
	cache = &st->cache[point];
	if (!cache->fresh)
		compute(st, point, cache);
	*n = cache->ncurves;
	return cache->curves;
}

const struct stats_curve *
stats_curve_of(struct stats *st, unsigned point, unsigned target, bool is_func)
{
	size_t n;
	const struct stats_curve *cv = stats_curves(st, point, &n);

	for (size_t i = 0; i < n; i++)
		if (cv[i].target == target && cv[i].is_func == is_func)
			return &cv[i];
	return NULL;
}
