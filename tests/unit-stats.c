/*
 * stats.c on synthetic experiments drawn from known curves with a seeded
 * generator (so every run sees the same numbers): the intervals cover
 * the truth at about their rate, a drift of the program's speed does not
 * bias the curves, latency has the right sign, verdicts and ranking.
 * causal_out.c: the Coz records, JSON validity and escaping of hostile
 * names, the table.
 * Exit status: 0 pass, 1 fail.
 */
#include "config.h"
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "perf/progress.h"
#include "profile/causal_out.h"
#include "sym/lines.h"
#include "unit.h"

/* ---- a seeded generator ---- */

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
rng_unit(void)
{
	return (rng_next() >> 11) * 0x1.0p-53;
}

static double
rng_gauss(void)
{
	double u = rng_unit(), v = rng_unit();

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* ---- a synthetic program ---- */

typedef double (*curve_fn)(double s);

struct sim_target {
	unsigned id;
	bool is_func;
	curve_fn curve;		/* true program speedup at line speedup s */
	const unsigned *levels;	/* 0-terminated; drawn uniformly */
	double from, to;	/* the part of the run it is selected in (0..1) */
};

struct sim {
	double period;		/* seconds per visit at the start */
	double drift;		/* relative change of the period over the run */
	double noise;		/* count noise, in units of sqrt(expected count) */
	double wall;		/* seconds per experiment */
	unsigned nexp;		/* experiments in the run */
	double p_base;		/* probability of a 0% experiment */
	bool latency;		/* point 0 is a latency point */
	double rate;		/* latency: arrivals per second */
	unsigned run;		/* exp_record.run of its experiments */
	double stall_p;		/* probability that the host stalls an experiment */
	double stall_f;		/* and the rate it then keeps */
};

static uint64_t
noisy_count(double mean, double noise)
{
	double v = mean + noise * sqrt(mean) * rng_gauss();

	return v < 0 ? 0 : (uint64_t) llround(v);
}

/*
 * One run: experiments back to back.  A target is drawn among those
 * active at this point of the run (a baseline when none is, or with
 * probability p_base).
 */
static void
simulate_into(struct stats *st, const struct sim *sim,
	      const struct sim_target *targets, size_t ntargets)
{
	const double gap = 0.01;

	for (unsigned i = 0; i < sim->nexp; i++) {
		double frac = (double) i / sim->nexp;
		const struct sim_target *active[16];
		size_t nactive = 0;
		struct exp_record r = { 0 };
		double s = 0, y = 0, d, p;

		for (size_t k = 0; k < ntargets; k++)
			if (frac >= targets[k].from && frac < targets[k].to)
				active[nactive++] = &targets[k];
		if (nactive && rng_unit() >= sim->p_base) {
			const struct sim_target *t = active[rng_next() % nactive];
			unsigned nlev = 0;

			while (t->levels[nlev])
				nlev++;
			r.target = t->id;
			r.is_func = t->is_func;
			r.pct = t->levels[rng_next() % nlev];
			s = r.pct / 100.0;
			y = t->curve(s);
		} else {
			r.target = (unsigned) (rng_next() % 4);
		}
		r.run = sim->run;
		r.start_ns = (uint64_t) (i * (sim->wall + gap) * 1e9);
		r.wall_ns = (uint64_t) (sim->wall * 1e9);
		/* The line holds 30% of the samples: that much delay per s. */
		r.delay_ns = (uint64_t) (r.wall_ns * 0.3 * s);
		r.selected_samples = (uint64_t) (100 * s * 0.3 * sim->wall);
		d = (r.wall_ns - r.delay_ns) / 1e9;
		/* Time per unit of progress now, at this speedup. */
		p = sim->period * (1 + sim->drift * frac) * (1 - y);
		if (sim->stall_p > 0 && rng_unit() < sim->stall_p)
			p /= sim->stall_f;
		r.npoints = 1;
		r.points = xcalloc(1, sizeof(*r.points));
		r.points[0].point = 0;
		if (sim->latency) {
			uint64_t a = noisy_count(sim->rate * d, sim->noise);

			r.points[0].latency = true;
			r.points[0].arrivals = a;
			r.points[0].delta = a;
			/* L = lambda W, measured with the count's noise. */
			r.points[0].inflight = a / d * p *
				(1 + sim->noise * rng_gauss() / sqrt(a ? a : 1));
			r.points[0].difference = (uint64_t) llround(r.points[0].inflight);
		} else {
			r.points[0].delta = noisy_count(d / p, sim->noise);
		}
		stats_add(st, &r);
	}
}

static struct stats *
simulate(const struct sim *sim, const struct sim_target *targets, size_t ntargets)
{
	struct stats *st = stats_new();

	/* The simulation's truth is the virtual speedup itself: no model
	 * error to join (test_model_error does). */
	stats_set_model_error(st, 0, 0);
	simulate_into(st, sim, targets, ntargets);
	return st;
}

static double
curve_flat(double s)
{
	(void) s;
	return 0;
}

static double
curve_lin03(double s)
{
	return 0.3 * s;
}

static double
curve_lin003(double s)
{
	return 0.03 * s;
}

static double
curve_lin01(double s)
{
	return 0.1 * s;
}

static double
curve_lin05(double s)
{
	return 0.5 * s;
}

static double
curve_lin09(double s)
{
	return 0.9 * s;
}

static double
curve_neg03(double s)
{
	return -0.3 * s;
}

/* Linear up to 50%, then another path becomes critical. */
static double
curve_knee(double s)
{
	return s <= 0.5 ? 0.5 * s : 0.25 + 0.1 * (s - 0.5);
}

static const unsigned levels_main[] = { 10, 25, 50, 75, 100, 0 };
static const unsigned levels_table[] = { 10, 25, 50, 100, 0 };
static const unsigned levels_50[] = { 50, 0 };

static bool
covers(double lo, double hi, double truth)
{
	return lo <= truth && truth <= hi;
}

static void
test_t95(void)
{
	check(fabs(stats_t95(1) - 12.706) < 1e-3, "t95(1) = %.4f", stats_t95(1));
	check(fabs(stats_t95(10) - 2.228) < 1e-3, "t95(10) = %.4f", stats_t95(10));
	check(fabs(stats_t95(30) - 2.042) < 1e-3, "t95(30) = %.4f", stats_t95(30));
	check(fabs(stats_t95(60) - 2.0003) < 1e-3, "t95(60) = %.4f", stats_t95(60));
	check(fabs(stats_t95(1000000) - 1.96) < 1e-3, "t95(1e6) = %.4f",
	      stats_t95(1000000));
	check(isinf(stats_t95(0)), "t95(0) is infinite");
	bool mono = true;

	for (unsigned df = 1; df < 500; df++)
		mono = mono && stats_t95(df + 1) < stats_t95(df);
	check(mono, "t95 decreases with df");
}

/*
 * 200 runs of a program whose line has a known curve: how often do the
 * 95% intervals cover the truth?  The estimator is built to err on the
 * wide side; 90% is the floor, and the intervals must still be useful.
 */
static void
test_coverage(void)
{
	struct sim sim = {
		.period = 1e-3, .noise = 2, .wall = 0.5, .nexp = 60, .p_base = 0.3,
	};
	struct sim_target t = {
		.id = 7, .curve = curve_knee, .levels = levels_main, .from = 0, .to = 1,
	};
	unsigned lv_n = 0, lv_in = 0, sl_n = 0, sl_in = 0, im_n = 0, im_in = 0;
	double lv_width = 0;

	rng_state = 1;
	for (unsigned run = 0; run < 200; run++) {
		struct stats *st;
		const struct stats_curve *cv;
		const struct exp_record *r;
		size_t n;
		double sw = 0, swy = 0;

		sim.drift = 0.4 * rng_gauss();
		st = simulate(&sim, &t, 1);
		cv = stats_curve_of(st, 0, 7, false);
		if (!cv) {
			stats_free(st);
			continue;
		}
		for (size_t k = 0; k < cv->nlevels; k++) {
			const struct stats_level *lv = &cv->levels[k];

			if (!lv->valid)
				continue;
			lv_n++;
			lv_in += covers(lv->lo, lv->hi, curve_knee(lv->pct / 100.0));
			lv_width += lv->hi - lv->lo;
		}
		if (cv->slope_valid) {
			sl_n++;
			sl_in += covers(cv->slope_lo, cv->slope_hi, 0.5);
		}
		/* The impact's truth: the same fit (events weights) on the true curve. */
		r = stats_records(st, &n);
		for (size_t i = 0; i < n; i++) {
			double s = r[i].pct / 100.0, w = r[i].points[0].delta;

			if (!r[i].pct)
				continue;
			sw += w * s * s;
			swy += w * s * curve_knee(s);
		}
		if (isfinite(cv->impact_lo)) {
			im_n++;
			im_in += covers(cv->impact_lo, cv->impact_hi, swy / sw);
		}
		stats_free(st);
	}
	check(lv_n > 500, "coverage: %u valid levels in 200 runs", lv_n);
	check(lv_in >= 0.9 * lv_n, "coverage: levels %u/%u = %.1f%% (>= 90%%), mean width %.3f",
	      lv_in, lv_n, 100.0 * lv_in / lv_n, lv_width / lv_n);
	check(lv_width / lv_n < 0.25, "coverage: level intervals are useful (mean width %.3f)",
	      lv_width / lv_n);
	check(sl_n > 150 && sl_in >= 0.9 * sl_n, "coverage: slope %u/%u = %.1f%%",
	      sl_in, sl_n, 100.0 * sl_in / sl_n);
	check(im_n > 150 && im_in >= 0.9 * im_n, "coverage: impact %u/%u = %.1f%%",
	      im_in, im_n, 100.0 * im_in / im_n);
}

/*
 * The shape of a ground-truth check (tests/gt-lib.sh): one line at 50%,
 * 200 ms experiments of ~85 events, half of them baselines.  Then the
 * host stalls one experiment in 20 (it keeps 60% of its rate, whatever
 * the experiment): the truth is the same, and the intervals must still
 * cover it without growing much.  With plain means (before the Huber
 * weights) the mean half-width grew from 0.030 to 0.077 and 96 of the
 * 400 intervals were wider than +-0.10; a check failed as imprecise in
 * CI on such a run.
 */
static void
test_stalls(void)
{
	struct sim sim = {
		.period = 2.35e-3, .noise = 0.4, .wall = 0.2, .nexp = 34, .p_base = 0.5,
		.stall_f = 0.6,
	};
	struct sim_target t = {
		.id = 9, .curve = curve_lin03, .levels = levels_50, .from = 0, .to = 1,
	};
	double half[2] = { 0 }, err[2] = { 0 };
	unsigned n[2] = { 0 }, in[2] = { 0 }, wide[2] = { 0 };

	for (int stalls = 0; stalls < 2; stalls++) {
		sim.stall_p = stalls ? 0.05 : 0;
		rng_state = 11;
		for (unsigned run = 0; run < 400; run++) {
			struct stats *st = simulate(&sim, &t, 1);
			const struct stats_curve *cv = stats_curve_of(st, 0, 9, false);

			if (cv && cv->levels[0].valid) {
				const struct stats_level *lv = &cv->levels[0];

				n[stalls]++;
				in[stalls] += covers(lv->lo, lv->hi, 0.15);
				half[stalls] += (lv->hi - lv->lo) / 2;
				err[stalls] += fabs(lv->est - 0.15);
				wide[stalls] += (lv->hi - lv->lo) / 2 > 0.10;
			}
			stats_free(st);
		}
	}
	for (int k = 0; k < 2; k++)
		printf("      stalls %s: %u runs, %u cover, mean half-width %.4f, "
		       "mean |error| %.4f, %u wider than +-0.10\n", k ? "1 in 20" : "none",
		       n[k], in[k], half[k] / n[k], err[k] / n[k], wide[k]);
	check(n[0] == 400 && in[0] >= 0.9 * n[0], "stalls: none, %u/%u cover", in[0], n[0]);
	check(n[1] == 400 && in[1] >= 0.9 * n[1], "stalls: 1 in 20, %u/%u cover", in[1], n[1]);
	check(half[1] / n[1] <= 1.4 * half[0] / n[0],
	      "stalls: mean half-width %.4f, within 1.4 times the %.4f without",
	      half[1] / n[1], half[0] / n[0]);
	check(wide[1] <= n[1] / 100, "stalls: %u of %u intervals wider than +-0.10",
	      wide[1], n[1]);
}

/*
 * About 10 events per experiment: the mean of per-experiment ratios
 * would be biased by 1/10; the ratio of sums is not.
 */
static void
test_few_events(void)
{
	struct sim sim = {
		.period = 0.05, .noise = 1, .wall = 0.5, .nexp = 60, .p_base = 0.3,
	};
	struct sim_target t = {
		.id = 8, .curve = curve_lin05, .levels = levels_50, .from = 0, .to = 1,
	};
	unsigned n = 0, in = 0;
	double sum = 0;

	rng_state = 7;
	for (unsigned run = 0; run < 200; run++) {
		struct stats *st = simulate(&sim, &t, 1);
		const struct stats_curve *cv = stats_curve_of(st, 0, 8, false);

		if (cv && cv->levels[0].valid) {
			n++;
			sum += cv->levels[0].est;
			in += covers(cv->levels[0].lo, cv->levels[0].hi, 0.25);
		}
		stats_free(st);
	}
	check(n == 200 && fabs(sum / n - 0.25) < 0.015,
	      "few events: mean estimate %.3f (0.25) over %u runs", sum / n, n);
	check(in >= 0.9 * n, "few events: %u/%u intervals cover the truth", in, n);
}

/*
 * The program slows down by 60% over the run, and the line is only
 * selected in the last quarter: compared with all the baselines it would
 * look 12 points worse than it is; compared with its neighbours it is
 * right.
 */
static void
test_drift(void)
{
	struct sim sim = {
		.period = 1e-3, .drift = 0.6, .noise = 2, .wall = 0.5, .nexp = 800,
		.p_base = 0.3,
	};
	struct sim_target t[] = {
		{ .id = 1, .curve = curve_lin03, .levels = levels_50, .from = 0, .to = 0.75 },
		{ .id = 2, .curve = curve_lin03, .levels = levels_50, .from = 0.75, .to = 1 },
	};
	const struct exp_record *r;
	const struct stats_curve *cv;
	double num = 0, den = 0, m = 0, md = 0, naive;
	size_t n;
	struct stats *st;

	rng_state = 2;
	st = simulate(&sim, t, 2);
	r = stats_records(st, &n);
	for (size_t i = 0; i < n; i++) {
		double d = (r[i].wall_ns - r[i].delay_ns) / 1e9;

		if (!r[i].pct) {
			num += d;
			den += r[i].points[0].delta;
		} else if (r[i].target == 2) {
			m += d;
			md += r[i].points[0].delta;
		}
	}
	naive = 1 - (m / md) / (num / den);
	cv = stats_curve_of(st, 0, 2, false);
	check(cv && cv->nlevels == 1 && cv->levels[0].valid,
	      "drift: the late line has a valid 50%% level");
	if (cv && cv->nlevels == 1 && cv->levels[0].valid) {
		const struct stats_level *lv = &cv->levels[0];

		check(covers(lv->lo, lv->hi, 0.15) && fabs(lv->est - 0.15) < 0.03,
		      "drift: local baselines: %.3f [%.3f, %.3f] covers 0.15",
		      lv->est, lv->lo, lv->hi);
		check(!covers(lv->lo, lv->hi, naive) && naive < 0.1,
		      "drift: a global baseline would say %.3f (biased)", naive);
	}
	cv = stats_curve_of(st, 0, 1, false);
	check(cv && cv->levels[0].valid && covers(cv->levels[0].lo, cv->levels[0].hi, 0.15),
	      "drift: the early line covers 0.15 too (%.3f)", cv ? cv->levels[0].est : NAN);
	stats_free(st);
}

/*
 * Two runs pooled (causaltop report), the second three times slower as a
 * whole, both with their experiments timed from their own start: each
 * experiment must be compared with its own run's baselines only, else
 * the fast run's lines look faster and the slow run's slower.
 */
static void
test_runs(void)
{
	struct sim sim = {
		.period = 1e-3, .noise = 1, .wall = 0.5, .nexp = 300, .p_base = 0.3,
	};
	struct sim_target t[] = {
		{ .id = 1, .curve = curve_lin03, .levels = levels_50, .from = 0, .to = 1 },
	};
	const struct stats_curve *cv;
	struct stats *st = stats_new();

	rng_state = 11;
	simulate_into(st, &sim, t, 1);
	sim.run = 1;
	sim.period = 3e-3;
	simulate_into(st, &sim, t, 1);
	cv = stats_curve_of(st, 0, 1, false);
	check(cv && cv->nlevels == 1 && cv->levels[0].valid &&
	      covers(cv->levels[0].lo, cv->levels[0].hi, 0.15) &&
	      fabs(cv->levels[0].est - 0.15) < 0.03,
	      "runs: two runs of different speeds pooled: %.3f [%.3f, %.3f] covers 0.15",
	      cv ? cv->levels[0].est : NAN, cv ? cv->levels[0].lo : NAN,
	      cv ? cv->levels[0].hi : NAN);
	stats_free(st);

	/* Coz's --end-to-end style: one experiment per run, each run too short
	   to hold the baselines it needs: they come from the nearby runs. */
	st = stats_new();
	sim.period = 1e-3;
	sim.nexp = 1;
	sim.p_base = 0.4;
	for (unsigned run = 0; run < 400; run++) {
		sim.run = run;
		simulate_into(st, &sim, t, 1);
	}
	cv = stats_curve_of(st, 0, 1, false);
	check(cv && cv->nlevels == 1 && cv->levels[0].valid &&
	      covers(cv->levels[0].lo, cv->levels[0].hi, 0.15),
	      "runs: 400 runs of one experiment each: %.3f [%.3f, %.3f] covers 0.15",
	      cv ? cv->levels[0].est : NAN, cv ? cv->levels[0].lo : NAN,
	      cv ? cv->levels[0].hi : NAN);
	stats_free(st);
}

/* A line that cuts latency is a speedup; one that adds to it is not. */
static void
test_latency(void)
{
	struct sim sim = {
		.period = 10e-3, .noise = 1, .wall = 0.5, .nexp = 150, .p_base = 0.3,
		.latency = true, .rate = 2000,
	};
	struct sim_target t[] = {
		{ .id = 3, .curve = curve_lin05, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 4, .curve = curve_neg03, .levels = levels_table, .from = 0, .to = 1 },
	};
	const struct stats_curve *cv;
	const struct stats_level *lv = NULL;
	struct stats *st;

	rng_state = 3;
	st = simulate(&sim, t, 2);
	cv = stats_curve_of(st, 0, 3, false);
	for (size_t k = 0; cv && k < cv->nlevels; k++)
		if (cv->levels[k].pct == 50)
			lv = &cv->levels[k];
	check(lv && lv->valid && lv->est > 0 && covers(lv->lo, lv->hi, 0.25),
	      "latency: lowering latency is a positive speedup: %.3f [%.3f, %.3f]",
	      lv ? lv->est : NAN, lv ? lv->lo : NAN, lv ? lv->hi : NAN);
	check(cv && cv->verdict == VERDICT_OPTIMIZE, "latency: optimize (%s)",
	      cv ? stats_verdict_name(cv->verdict) : "none");
	cv = stats_curve_of(st, 0, 4, false);
	check(cv && cv->impact < 0 && cv->verdict == VERDICT_CONTENTION,
	      "latency: raising latency is contention (impact %.3f, %s)",
	      cv ? cv->impact : NAN, cv ? stats_verdict_name(cv->verdict) : "none");
	stats_free(st);
}

/*
 * Slope of a curve that bends at 50%: the slope sees only the start, the
 * impact sees the knee.  Over 50 runs: unbiased, covered, and narrow.
 */
static void
test_slope(void)
{
	struct sim sim = {
		.period = 1e-3, .noise = 1, .wall = 0.5, .nexp = 300, .p_base = 0.3,
	};
	struct sim_target t = {
		.id = 5, .curve = curve_knee, .levels = levels_main, .from = 0, .to = 1,
	};
	unsigned n = 0, in = 0, below = 0;
	double sum = 0, width = 0;

	rng_state = 4;
	for (unsigned run = 0; run < 50; run++) {
		struct stats *st = simulate(&sim, &t, 1);
		const struct stats_curve *cv = stats_curve_of(st, 0, 5, false);

		if (cv && cv->slope_valid) {
			n++;
			sum += cv->slope;
			width += cv->slope_hi - cv->slope_lo;
			in += covers(cv->slope_lo, cv->slope_hi, 0.5);
			below += cv->impact < cv->slope_lo;
		}
		stats_free(st);
	}
	check(n == 50 && fabs(sum / n - 0.5) < 0.02 && in >= 45 && width / n < 0.1,
	      "slope: mean %.3f (0.5), %u/%u intervals cover it, mean width %.3f",
	      sum / n, in, n, width / n);
	check(below >= 45, "slope: the impact sees the knee, the slope does not (%u/%u)",
	      below, n);
}

static const struct stats_curve *
rank_of(const struct stats_curve *cv, size_t n, unsigned id, size_t *rank)
{
	for (size_t i = 0; i < n; i++)
		if (cv[i].target == id && !cv[i].is_func) {
			*rank = i;
			return &cv[i];
		}
	*rank = n;
	return NULL;
}

/* Verdicts and the order of the table. */
static void
test_verdicts(void)
{
	struct sim sim = {
		.period = 1e-3, .noise = 1, .wall = 0.5, .nexp = 500, .p_base = 0.3,
	};
	struct sim_target t[] = {
		{ .id = 10, .curve = curve_lin01, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 11, .curve = curve_lin05, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 12, .curve = curve_flat, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 13, .curve = curve_neg03, .levels = levels_table, .from = 0, .to = 1 },
	};
	const struct stats_curve *cv, *c;
	size_t n, rank[5];
	struct stats *st;
	struct exp_record r = { 0 };

	rng_state = 5;
	st = simulate(&sim, t, 4);
	/* Two experiments of a line that looks great: not enough to say. */
	for (unsigned k = 0; k < 2; k++) {
		r.target = 14;
		r.pct = 100;
		r.start_ns = (uint64_t) ((k + 1) * 100 * 0.51e9);
		r.wall_ns = 500000000;
		r.delay_ns = 150000000;
		r.npoints = 1;
		r.points = xcalloc(1, sizeof(*r.points));
		r.points[0].delta = 350 * 10;
		stats_add(st, &r);
	}
	cv = stats_curves(st, 0, &n);
	check(n == 5, "verdicts: 5 curves (got %zu)", n);
	c = rank_of(cv, n, 10, &rank[0]);
	check(c && c->verdict == VERDICT_OPTIMIZE && covers(c->impact_lo, c->impact_hi, 0.1),
	      "verdicts: 10%% line: optimize, impact %.3f [%.3f, %.3f]",
	      c ? c->impact : NAN, c ? c->impact_lo : NAN, c ? c->impact_hi : NAN);
	c = rank_of(cv, n, 11, &rank[1]);
	check(c && c->verdict == VERDICT_OPTIMIZE, "verdicts: 50%% line: optimize");
	c = rank_of(cv, n, 12, &rank[2]);
	check(c && c->verdict == VERDICT_NO_EFFECT,
	      "verdicts: flat line: no effect, impact %.3f [%.3f, %.3f] (%s)",
	      c ? c->impact : NAN, c ? c->impact_lo : NAN, c ? c->impact_hi : NAN,
	      c ? stats_verdict_name(c->verdict) : "none");
	c = rank_of(cv, n, 13, &rank[3]);
	check(c && c->verdict == VERDICT_CONTENTION, "verdicts: negative line: contention");
	c = rank_of(cv, n, 14, &rank[4]);
	check(c && c->verdict == VERDICT_NOT_ENOUGH && c->n_exp == 2 &&
	      c->nlevels == 1 && c->levels[0].n_exp == 2,
	      "verdicts: 2 experiments: not enough data (%s)",
	      c ? stats_verdict_name(c->verdict) : "none");
	check(rank[1] == 0 && rank[0] == 1, "ranking: optimize first, by impact (%zu, %zu)",
	      rank[1], rank[0]);
	check(rank[3] == 4, "ranking: contention last (%zu)", rank[3]);
	check(rank[4] == 2 && rank[2] == 3,
	      "ranking: the rest by impact between (%zu, %zu)", rank[4], rank[2]);
	check(stats_curves(st, 0, &n) == cv, "curves are cached until the next add");
	check(stats_baselines(st) > 100, "baselines counted (%zu)", stats_baselines(st));
	/* A line tried once has an impact and no interval: not "measured"
	 * (what report.c names and the tables print need both). */
	r.target = 16;
	r.start_ns = (uint64_t) (3 * 100 * 0.51e9);
	r.points = xcalloc(1, sizeof(*r.points));
	r.points[0].delta = 350 * 10;
	stats_add(st, &r);
	c = stats_curve_of(st, 0, 16, false);
	check(c && c->n_exp == 1 && isfinite(c->impact) && !stats_curve_measured(c),
	      "measured: a line tried once has an impact (%.3f) and no interval",
	      c ? c->impact : NAN);
	c = stats_curve_of(st, 0, 10, false);
	check(c && stats_curve_measured(c), "measured: the 10%% line has its interval");
	stats_free(st);
}

/*
 * The model error (stats.h): every level's and impact's interval joins
 * it, the statistical one is kept beside, and the verdict reads the
 * joined one.  A 3% line whose statistical interval excludes 0 is no
 * finding when the method's own error is 2 points.  Fails if a level or
 * the impact keeps its statistical interval, if the verdict reads it,
 * or if a new model error is not seen by curves already computed.
 */
static void
test_model_error(void)
{
	struct sim sim = {
		.period = 1e-3, .noise = 1, .wall = 0.5, .nexp = 600, .p_base = 0.3,
	};
	struct sim_target t = {
		.id = 15, .curve = curve_lin003, .levels = levels_table, .from = 0, .to = 1,
	};
	const struct stats_curve *cv;
	struct stats *st, *dflt;
	double worst = 0;
	bool stat_same = true;
	size_t n;

	rng_state = 21;
	st = simulate(&sim, &t, 1);
	cv = stats_curve_of(st, 0, 15, false);
	check(cv && cv->verdict == VERDICT_OPTIMIZE && cv->impact_hi - cv->impact_lo < 0.03,
	      "model error: none, a 3%% line is optimize, impact %.3f [%.3f, %.3f]",
	      cv ? cv->impact : NAN, cv ? cv->impact_lo : NAN, cv ? cv->impact_hi : NAN);
	if (!cv)
		goto out;
	double lo0[8], hi0[8], ilo0 = cv->impact_stat_lo, ihi0 = cv->impact_stat_hi;
	size_t nlv = cv->nlevels < 8 ? cv->nlevels : 8;

	for (size_t k = 0; k < nlv; k++) {
		lo0[k] = cv->levels[k].stat_lo;
		hi0[k] = cv->levels[k].stat_hi;
		/* With none, the joined interval is the statistical one. */
		if (fabs(cv->levels[k].lo - lo0[k]) > worst)
			worst = fabs(cv->levels[k].lo - lo0[k]);
	}
	stats_set_model_error(st, 0.02, 0.1);
	cv = stats_curve_of(st, 0, 15, false);
	for (size_t k = 0; k < nlv; k++) {
		const struct stats_level *lv = &cv->levels[k];
		double h = (hi0[k] - lo0[k]) / 2, m = 1.96 * (0.02 + 0.1 * fabs(lv->est));
		double want = sqrt(h * h + m * m);

		stat_same &= lv->valid && lv->stat_lo == lo0[k] && lv->stat_hi == hi0[k];
		if (fabs((lv->hi - lv->lo) / 2 - want) > worst)
			worst = fabs((lv->hi - lv->lo) / 2 - want);
		if (fabs((lv->lo + lv->hi) / 2 - lv->est) > worst)
			worst = fabs((lv->lo + lv->hi) / 2 - lv->est);
	}
	check(nlv >= 4 && stat_same, "model error: %zu levels, valid, keep their statistical "
	      "interval", nlv);
	check(worst < 1e-12, "model error: levels' half-width sqrt(h^2 + (1.96 m)^2), "
	      "centred (off by %.2g)", worst);
	check(cv->impact_stat_lo == ilo0 && cv->impact_stat_hi == ihi0 &&
	      cv->impact_lo < ilo0 - 0.02 && cv->impact_hi > ihi0 + 0.02,
	      "model error: impact [%.3f, %.3f] around its statistical [%.3f, %.3f]",
	      cv->impact_lo, cv->impact_hi, cv->impact_stat_lo, cv->impact_stat_hi);
	check(cv->verdict == VERDICT_NOT_ENOUGH,
	      "model error: the 3%% line within it is no finding (%s)",
	      stats_verdict_name(cv->verdict));
out:
	stats_free(st);

	/* A new stats joins STATS_MODEL_*. */
	rng_state = 21;
	dflt = stats_new();
	simulate_into(dflt, &sim, &t, 1);
	cv = stats_curves(dflt, 0, &n);
	check(n == 1 && cv[0].levels[0].valid &&
	      (cv[0].levels[0].hi - cv[0].levels[0].lo) / 2 >= 1.96 * STATS_MODEL_ABS,
	      "model error: stats_new joins STATS_MODEL_ABS (half-width %.4f)",
	      n ? (cv[0].levels[0].hi - cv[0].levels[0].lo) / 2 : NAN);
	stats_free(dflt);
}

/* Records without the point, empty periods, a point never measured. */
static void
test_edges(void)
{
	struct stats *st = stats_new();
	struct exp_record r = { 0 };
	const struct stats_curve *cv;
	size_t n;

	cv = stats_curves(st, 3, &n);
	check(n == 0, "edges: no records, no curves");
	r.target = 1;
	r.pct = 50;
	r.wall_ns = 500000000;
	stats_add(st, &r);		/* no points at all */
	r.start_ns = 1000000000;
	r.delay_ns = 600000000;		/* more delay than wall time */
	r.npoints = 1;
	r.points = xcalloc(1, sizeof(*r.points));
	r.points[0].delta = 100;
	stats_add(st, &r);
	r.pct = 0;
	r.start_ns = 2000000000;
	r.delay_ns = 0;
	r.points = xcalloc(1, sizeof(*r.points));
	r.points[0].delta = 0;		/* a baseline without progress */
	stats_add(st, &r);
	cv = stats_curves(st, 0, &n);
	check(n == 1 && cv[0].n_exp == 2 && cv[0].nlevels == 1 &&
	      !cv[0].levels[0].valid && cv[0].levels[0].n_exp == 0 &&
	      !cv[0].slope_valid && cv[0].verdict == VERDICT_NOT_ENOUGH,
	      "edges: nothing usable: one curve, no estimate");
	check(stats_curve_of(st, 0, 1, true) == NULL, "edges: a function id is another target");
	check(stats_curve_of(st, 9, 1, false) != NULL, "edges: an unseen point still lists targets");
	check(stats_baselines(st) == 1, "edges: one baseline");
	stats_free(st);
	stats_free(NULL);
}

/* ---- causal_out ---- */

/* A strict JSON validator: enough to tell a broken document. */
struct jp {
	const char *s;
	bool ok;
};

static void jp_value(struct jp *p, int depth);

static void
jp_ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r')
		p->s++;
}

static void
jp_fail(struct jp *p)
{
	p->ok = false;
}

static void
jp_string(struct jp *p)
{
	if (*p->s != '"')
		return jp_fail(p);
	for (p->s++; *p->s != '"'; p->s++) {
		unsigned char ch = *p->s;

		if (!ch || ch < 0x20)
			return jp_fail(p);
		if (ch == '\\') {
			p->s++;
			if (*p->s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p->s[i]) || !p->s[i])
						return jp_fail(p);
				p->s += 4;
			} else if (!*p->s || !strchr("\"\\/bfnrt", *p->s)) {
				return jp_fail(p);
			}
		} else if (ch >= 0x80) {
			/* Must be well-formed UTF-8. */
			int len = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc2 ? 2 : 0;

			if (!len || ch > 0xf4)
				return jp_fail(p);
			for (int i = 1; i < len; i++)
				if (((unsigned char) p->s[i] & 0xc0) != 0x80)
					return jp_fail(p);
			p->s += len - 1;
		}
	}
	p->s++;
}

static void
jp_number(struct jp *p)
{
	const char *start = p->s;

	if (*p->s == '-')
		p->s++;
	if (*p->s == '0')
		p->s++;
	else if (*p->s >= '1' && *p->s <= '9')
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	else
		return jp_fail(p);
	if (*p->s == '.') {
		p->s++;
		if (!(*p->s >= '0' && *p->s <= '9'))
			return jp_fail(p);
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (*p->s == 'e' || *p->s == 'E') {
		p->s++;
		if (*p->s == '+' || *p->s == '-')
			p->s++;
		if (!(*p->s >= '0' && *p->s <= '9'))
			return jp_fail(p);
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (p->s == start)
		jp_fail(p);
}

static void
jp_value(struct jp *p, int depth)
{
	jp_ws(p);
	if (depth > 64)
		return jp_fail(p);
	if (*p->s == '{' || *p->s == '[') {
		char close = *p->s == '{' ? '}' : ']';
		bool obj = close == '}';

		p->s++;
		jp_ws(p);
		if (*p->s == close) {
			p->s++;
			return;
		}
		while (p->ok) {
			if (obj) {
				jp_ws(p);
				jp_string(p);
				jp_ws(p);
				if (*p->s++ != ':')
					return jp_fail(p);
			}
			jp_value(p, depth + 1);
			jp_ws(p);
			if (*p->s == ',') {
				p->s++;
				continue;
			}
			if (*p->s++ != close)
				jp_fail(p);
			return;
		}
	} else if (*p->s == '"') {
		jp_string(p);
	} else if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4)) {
		p->s += 4;
	} else if (!strncmp(p->s, "false", 5)) {
		p->s += 5;
	} else {
		jp_number(p);
	}
}

static bool
json_valid(const char *doc)
{
	struct jp p = { doc, true };

	jp_value(&p, 0);
	jp_ws(&p);
	return p.ok && !*p.s;
}

/* Columns of a UTF-8 line: one per character. */
static size_t
line_cols(const char *s, size_t len)
{
	size_t cols = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char) s[i] & 0xc0) != 0x80)
			cols++;
	return cols;
}

static bool
has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char) *s < 0x20 && *s != '\n') || *s == 0x7f)
			return true;
	return false;
}

static const char hostile_file[] = "/src/we\"ird\\\n\tna\x01me\x1b[31m\xff\xc3\xa9.c";
static const char hostile_point[] = "req\t\"lat\"\n\\x";

struct out_fixture {
	struct lines_table *lt;
	struct progress_table *pt;
	struct stats *st;
	struct causal_meta meta;
	unsigned nsamples_lines;	/* lines with samples */
};

static char *const fixture_argv[] = { "./prog", "--in", "a \"b\"\n", NULL };

static void
fixture_init(struct out_fixture *fx)
{
	struct sim sim = {
		.period = 1e-3, .noise = 1, .wall = 0.5, .nexp = 200, .p_base = 0.3,
	};
	struct sim_target t[] = {
		{ .id = 0, .curve = curve_lin05, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 1, .curve = curve_flat, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 2, .curve = curve_lin09, .levels = levels_table, .from = 0, .to = 1 },
		{ .id = 0, .is_func = true, .curve = curve_lin03, .levels = levels_table,
		  .from = 0, .to = 1 },
	};
	struct ct_func *f, *g;
	struct ct_line *l;
	struct exp_record *r;
	size_t n;

	memset(fx, 0, sizeof(*fx));
	fx->lt = lines_new();
	f = lines_func(fx->lt, "/usr/bin/prog", "compute");
	g = lines_func(fx->lt, "/usr/lib/libhostile.so", "evil\"\n\x1b]0;pwn\x07");
	f->samples = 600;
	g->samples = 100;
	l = lines_line(fx->lt, "/src/prog.c", 42, f);
	l->samples = 500;
	l = lines_line(fx->lt, "/src/prog.c", 43, f);
	l->samples = 0;
	l = lines_line(fx->lt, hostile_file, 7, g);
	l->samples = 100;
	fx->nsamples_lines = 2;
	fx->pt = progress_table_new();
	progress_point(fx->pt, "ops", PROGRESS_THROUGHPUT, "page");
	progress_point(fx->pt, hostile_point, PROGRESS_LATENCY, "page");

	rng_state = 6;
	fx->st = simulate(&sim, t, 4);
	/* One experiment of the flat line at 5%: a level without estimate. */
	r = &(struct exp_record) {
		.target = 1, .pct = 5, .start_ns = 50000000000ULL,
		.wall_ns = 500000000, .delay_ns = 7500000, .npoints = 1,
		.points = xcalloc(1, sizeof(struct exp_point)),
	};
	r->points[0].delta = 500;
	stats_add(fx->st, r);
	/* A latency point measured alongside, point 1. */
	r = (struct exp_record *) stats_records(fx->st, &n);
	for (size_t i = 0; i < n; i++) {
		r[i].points = xrealloc(r[i].points, 2 * sizeof(*r[i].points));
		r[i].npoints = 2;
		r[i].points[1] = (struct exp_point) {
			.point = 1, .latency = true, .delta = 100, .arrivals = 101,
			.inflight = 2.5, .difference = 3,
		};
	}
	fx->meta = (struct causal_meta) {
		.command = fixture_argv, .pid = 1234,
		.startup_realtime_ns = 1700000000123456789ULL,
		.start_ns = 1000, .end_ns = 1000 + 110000000000ULL,
		.period_ns = 1000000, .sampler = "cpu-clock per thread",
		.wake_tracking = "sched_waking", .build_id = "00ff",
		.exe = "/usr/bin/prog", .delay_ns = 11000000000ULL,
		.samples_total = 1000,
	};
}

static void
fixture_free(struct out_fixture *fx)
{
	stats_free(fx->st);
	lines_free(fx->lt);
	progress_table_free(fx->pt);
}

static char *
field(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	size_t len;

	if (!p)
		return NULL;
	p += strlen(key);
	len = strcspn(p, "\t\n");
	return strndup(p, len);
}

static void
test_coz(void)
{
	struct out_fixture fx;
	char *buf = NULL, *line, *save = NULL;
	size_t size = 0, nrecs;
	FILE *f;
	unsigned nexp = 0, ntp = 0, nlp = 0, nsamp = 0, nrun = 0, nstart = 0, bad = 0;
	unsigned nfunc = 0, zero_pct = 0;
	bool order_ok = true, after_exp = false;
	const struct exp_record *r;

	fixture_init(&fx);
	r = stats_records(fx.st, &nrecs);
	f = open_memstream(&buf, &size);
	check(causal_write_coz(f, &fx.meta, fx.st, fx.lt, fx.pt) == 0, "coz: written");
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v;

		if (!strncmp(line, "startup\t", 8)) {
			nstart++;
			v = field(line, "time=");
			bad += !v || strcmp(v, "1700000000123456789");
			free(v);
		} else if (!strncmp(line, "experiment\t", 11)) {
			const struct exp_record *e = nexp < nrecs ? &r[nexp] : NULL;
			char want[32];

			v = field(line, "speedup=");
			if (e)
				snprintf(want, sizeof(want), "%u.%02u", e->pct / 100, e->pct % 100);
			bad += !v || !e || strcmp(v, want);
			zero_pct += v && !strcmp(v, "0.00");
			free(v);
			v = field(line, "duration=");
			if (e)
				snprintf(want, sizeof(want), "%llu",
					 (unsigned long long) (e->wall_ns - e->delay_ns));
			bad += !v || !e || strcmp(v, want);
			free(v);
			v = field(line, "selected-samples=");
			bad += !v;
			free(v);
			v = field(line, "selected=");
			bad += !v;
			nfunc += v && !strncmp(v, "function:compute", 16);
			free(v);
			nexp++;
			after_exp = true;
		} else if (!strncmp(line, "throughput-point\t", 17)) {
			v = field(line, "name=");
			bad += !v || strcmp(v, "ops") || !strstr(line, "\tdelta=");
			free(v);
			order_ok = order_ok && after_exp;
			ntp++;
		} else if (!strncmp(line, "latency-point\t", 14)) {
			v = field(line, "name=");
			bad += !v || strcmp(v, "req?\"lat\"?\\x");
			free(v);
			bad += !strstr(line, "\tarrivals=101\tdepartures=100\tdifference=3");
			order_ok = order_ok && ntp == nexp;
			nlp++;
		} else if (!strncmp(line, "runtime\t", 8)) {
			nrun++;
			bad += !strstr(line, "time=110000000000");
			after_exp = false;
		} else if (!strncmp(line, "samples\t", 8)) {
			nsamp++;
			bad += !strstr(line, "\tcount=");
			if (strstr(line, "prog.c:43"))
				bad++;
		} else {
			fprintf(stderr, "coz: unexpected line: %s\n", line);
			bad++;
		}
	}
	check(nstart == 1 && nrun == 1, "coz: one startup, one runtime record");
	check(nexp == nrecs && ntp == nrecs && nlp == nrecs,
	      "coz: %zu experiments with their points (%u, %u, %u)", nrecs, nexp, ntp, nlp);
	check(nfunc > 0, "coz: function targets as function:NAME (%u)", nfunc);
	check(zero_pct > 0, "coz: baselines as speedup=0.00 (%u)", zero_pct);
	check(order_ok, "coz: throughput records, then latency, after each experiment");
	check(nsamp == fx.nsamples_lines, "coz: samples records for lines with samples (%u)",
	      nsamp);
	check(!bad, "coz: every record well-formed (%u bad)", bad);
	free(buf);
	fixture_free(&fx);
}

static void
test_json(void)
{
	struct out_fixture fx;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	struct stats *empty;

	fixture_init(&fx);
	f = open_memstream(&buf, &size);
	check(causal_write_json(f, &fx.meta, fx.st, fx.lt, fx.pt) == 0, "json: written");
	fclose(f);
	check(!json_valid("{\"a\": 1,}") && !json_valid("{\"a\": nan}") &&
	      !json_valid("[\"\x01\"]") && !json_valid("[\"\xff\"]") &&
	      json_valid("{\"a\": [1.5e-3, null, \"\\u00ff\"]}"),
	      "json: the validator tells broken documents");
	check(json_valid(buf), "json: a valid document");
	check(!has_control(buf), "json: no raw control characters");
	check(strstr(buf, "we\\\"ird\\\\\\n\\tna\\u0001me\\u001b[31m\\u00ff\xc3\xa9.c:7") != NULL,
	      "json: the hostile path escaped, UTF-8 kept, a stray byte as \\u00ff");
	check(strstr(buf, "\"req\\t\\\"lat\\\"\\n\\\\x\"") != NULL, "json: the hostile point name");
	check(strstr(buf, "\"function\": \"evil\\\"\\n\\u001b]0;pwn\\u0007\"") != NULL,
	      "json: the hostile function name");
	check(strstr(buf, "\"command\": [\"./prog\", \"--in\", \"a \\\"b\\\"\\n\"]") != NULL,
	      "json: the command");
	check(strstr(buf, "\"verdict\": \"optimize\"") && strstr(buf, "\"speedup_pct\": 100"),
	      "json: curves with levels and verdicts");
	check(strstr(buf, "\"lo\": null") != NULL, "json: no interval written as null");
	check(!strstr(buf, ": nan") && !strstr(buf, ": -nan") && !strstr(buf, ": inf") &&
	      !strstr(buf, ": -inf"), "json: no nan or inf");

	/* Python's parser too, when there is one. */
	if (system("python3 -c '' >/dev/null 2>&1") == 0) {
		char path[] = "/tmp/unit-stats-XXXXXX";
		int fd = mkstemp(path);
		char *cmd;

		if (fd >= 0 && write(fd, buf, strlen(buf)) == (ssize_t) strlen(buf)) {
			cmd = xasprintf("python3 -c 'import json,sys\n"
					"d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
					"t = d[\"results\"][0][\"targets\"]\n"
					"assert d[\"progress_points\"][1][\"name\"] == \"req\\t\\\"lat\\\"\\n\\\\x\"\n"
					"assert t[0][\"rank\"] == 1 and t[0][\"verdict\"] == \"optimize\"\n"
					"assert len(d[\"experiments\"]) == d[\"run\"][\"experiments\"] + d[\"run\"][\"baselines\"]\n"
					"' %s", path);
			check(system(cmd) == 0, "json: python3 reads it back");
			free(cmd);
		}
		if (fd >= 0)
			close(fd);
		unlink(path);
	} else {
		printf("skip: no python3\n");
	}
	free(buf);

	/* Nothing at all is still a document. */
	empty = stats_new();
	buf = NULL;
	f = open_memstream(&buf, &size);
	causal_write_json(f, &fx.meta, empty, NULL, NULL);
	fclose(f);
	check(json_valid(buf), "json: an empty profile is a valid document");
	free(buf);
	stats_free(empty);
	fixture_free(&fx);
}

static void
test_table(void)
{
	struct out_fixture fx;
	char *buf = NULL, *line, *save = NULL;
	size_t size = 0, widest = 0;
	unsigned rows = 0, tables = 0;
	FILE *f;
	struct stats *empty;
	struct progress_table *nopt;

	fixture_init(&fx);
	f = open_memstream(&buf, &size);
	causal_print_table(f, &fx.meta, fx.st, fx.lt, fx.pt, 0);
	fclose(f);
	fputs(buf, stdout);
	check(!has_control(buf), "table: no control characters from hostile names");
	check(strstr(buf, "prog.c:42") && strstr(buf, "compute"), "table: the line row");
	check(strstr(buf, "%\xc2\xb1") != NULL, "table: estimates with intervals");
	check(strstr(buf, " optimize\n") && strstr(buf, " not enough data\n"), "table: verdicts");
	check(strstr(buf, "delay inserted 10.0% of wall time") != NULL, "table: delay share");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t cols = line_cols(line, strlen(line));

		widest = cols > widest ? cols : widest;
		tables += !strncmp(line, "Progress point", 14);
		rows += line[0] == ' ' && line[3] >= '0' && line[3] <= '9';
	}
	check(widest <= 120, "table: lines within 120 columns (%zu)", widest);
	check(tables == 2 && rows == 8, "table: one table per point (%u), 4 rows each (%u)",
	      tables, rows);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &size);
	causal_print_table(f, &fx.meta, fx.st, fx.lt, fx.pt, 2);
	fclose(f);
	check(strstr(buf, "(2 more not shown)") != NULL, "table: top 2");
	free(buf);

	empty = stats_new();
	nopt = progress_table_new();
	buf = NULL;
	f = open_memstream(&buf, &size);
	causal_print_table(f, &fx.meta, empty, fx.lt, nopt, 0);
	fclose(f);
	check(!strcmp(buf, "No causal experiments were run: no progress point was seen.\n"),
	      "table: no experiments, no point: %s", buf);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &size);
	causal_print_table(f, &fx.meta, empty, fx.lt, fx.pt, 0);
	fclose(f);
	check(!strcmp(buf, "No causal experiments were run.\n"), "table: no experiments: %s",
	      buf);
	free(buf);
	/* Experiments that saw no progress at all. */
	stats_add(empty, &(struct exp_record) {
		.target = 0, .pct = 50, .wall_ns = 500000000, .npoints = 1,
		.points = xcalloc(1, sizeof(struct exp_point)),
	});
	buf = NULL;
	f = open_memstream(&buf, &size);
	causal_print_table(f, &fx.meta, empty, fx.lt, fx.pt, 0);
	fclose(f);
	check(!strcmp(buf, "No progress was measured during the 1 causal experiment.\n"),
	      "table: no progress: %s", buf);
	free(buf);
	progress_table_free(nopt);
	stats_free(empty);
	fixture_free(&fx);
}

/* A decimal comma in the program's locale must not reach the files. */
static void
test_locale(void)
{
	static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", NULL };
	struct out_fixture fx;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	const char *got = NULL;

	for (const char *const *n = names; *n && !got; n++)
		got = setlocale(LC_NUMERIC, *n);
	if (!got) {
		printf("skip: no locale with a decimal comma\n");
		return;
	}
	fixture_init(&fx);
	f = open_memstream(&buf, &size);
	causal_write_json(f, &fx.meta, fx.st, fx.lt, fx.pt);
	fclose(f);
	check(json_valid(buf), "locale %s: JSON still valid", got);
	free(buf);
	fixture_free(&fx);
	setlocale(LC_NUMERIC, "C");
}

/* The TUI's reset: one target's experiments go, baselines and others stay. */
static void
test_forget(void)
{
	struct sim sim = {
		.period = 1e-3, .noise = 1, .wall = 0.5, .nexp = 80, .p_base = 0.3,
	};
	struct sim_target t[2] = {
		{ .id = 3, .curve = curve_lin05, .levels = levels_main, .from = 0, .to = 1 },
		{ .id = 4, .curve = curve_flat, .levels = levels_main, .from = 0, .to = 1 },
	};
	struct stats *st;
	const struct exp_record *r;
	size_t n, n0, base0, dropped, of3 = 0;
	unsigned exp4;

	rng_state = 5;
	st = simulate(&sim, t, 2);
	r = stats_records(st, &n0);
	for (size_t i = 0; i < n0; i++)
		of3 += r[i].pct && r[i].target == 3 && !r[i].is_func;
	base0 = stats_baselines(st);
	check(stats_curve_of(st, 0, 3, false) != NULL, "forget: target 3 has a curve");
	exp4 = stats_curve_of(st, 0, 4, false)->n_exp;
	dropped = stats_forget(st, 3, false);
	stats_records(st, &n);
	check(dropped == of3 && of3 > 0 && n == n0 - of3, "forget: %zu of %zu dropped (%zu of 3)",
	      dropped, n0, of3);
	check(stats_curve_of(st, 0, 3, false) == NULL, "forget: target 3 has no curve any more");
	check(stats_baselines(st) == base0, "forget: the %zu baselines stay", base0);
	check(stats_curve_of(st, 0, 4, false) && stats_curve_of(st, 0, 4, false)->n_exp == exp4,
	      "forget: target 4 keeps its %u experiments", exp4);
	check(stats_forget(st, 3, true) == 0, "forget: function 3 had nothing");
	stats_free(st);
}

int
main(void)
{
	test_t95();
	test_coverage();
	test_few_events();
	test_stalls();
	test_drift();
	test_runs();
	test_latency();
	test_slope();
	test_verdicts();
	test_model_error();
	test_edges();
	test_coz();
	test_json();
	test_table();
	test_locale();
	test_forget();
	if (failures) {
		printf("%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
