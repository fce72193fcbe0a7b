/*
 * Statistics of causal experiments: pure, no I/O.
 *
 * Each experiment ran one target (a line, or a function) at one speedup
 * level and measured every progress point over its effective time (wall
 * time minus the delay inserted).  A 0% experiment inserts no delay at
 * all, so it is the same whatever its target: baselines are pooled over
 * targets, and each experiment is compared with the 0% experiments
 * nearest to it in time, so that a drift of the program's speed over the
 * run does not bias the curves.
 *
 * Program speedup (Coz's convention): the fractional reduction of the
 * time per unit of progress, 1 - p_s/p_0 for a throughput point (p: time
 * per visit), 1 - W_s/W_0 for a latency point (W: mean latency by
 * Little's law, W = L/lambda).  Positive is better for both kinds.
 */
#ifndef CT_STATS_H
# define CT_STATS_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>

/* Speedup levels are whole percents, 0..100. */
# define STATS_MAX_PCT 100

/* What one experiment measured on one progress point. */
struct exp_point {
	unsigned point;		/* index of the point (progress table order) */
	bool latency;		/* a latency point (else throughput) */
	uint64_t delta;		/* throughput: visits; latency: departures */
	uint64_t arrivals;	/* latency: begins during the experiment */
	double inflight;	/* latency: time-averaged number in flight */
	uint64_t difference;	/* latency: in flight at the end (Coz's record) */
};

struct exp_record {
	unsigned target;	/* line id, or function id */
	bool is_func;		/* target is a function id */
	unsigned pct;		/* speedup level, 0..100 */
	unsigned run;		/* run of the program (pooled profiles): baselines
				   are only compared within a run */
	uint64_t start_ns;	/* CLOCK_MONOTONIC, within its run */
	uint64_t wall_ns;	/* wall time of the experiment */
	uint64_t delay_ns;	/* delay inserted (global delay growth) */
	uint64_t selected_samples; /* samples that hit the target */
	bool steal_known;	/* steal_ns was measured */
	uint64_t steal_ns;	/* CPU time the hypervisor took meanwhile (all CPUs) */
	size_t npoints;
	struct exp_point *points;	/* owned by the record once added */
};

/* What a curve says about its line. */
enum stats_verdict {
	VERDICT_NOT_ENOUGH,	/* too few experiments, or CI too wide */
	VERDICT_OPTIMIZE,	/* significant positive effect */
	VERDICT_NO_EFFECT,	/* CI excludes any effect worth having */
	VERDICT_CONTENTION,	/* significant negative effect */
};

struct stats_level {
	unsigned pct;		/* speedup level */
	unsigned n_exp;		/* experiments at this level */
	uint64_t events;	/* progress events they saw (delta or arrivals) */
	bool valid;		/* enough data for an estimate */
	double est;		/* program speedup (fraction: 0.1 = 10%) */
	double lo, hi;		/* 95% interval of the real speedup: the
				   statistical one and the model error */
	double stat_lo, stat_hi;	/* the statistical one alone */
};

struct stats_curve {
	unsigned target;
	bool is_func;
	unsigned point;		/* progress point index */
	unsigned n_exp;		/* non-baseline experiments on the target */
	uint64_t selected_samples;
	size_t nlevels;		/* levels with at least one experiment, by pct */
	struct stats_level *levels;
	bool slope_valid;
	double slope, slope_lo, slope_hi;	/* d(program)/d(line) near 0, 95% CI */
	double impact;		/* ranking score (see stats.c) */
	double impact_lo, impact_hi;	/* its 95% interval, model error in */
	double impact_stat_lo, impact_stat_hi;	/* the statistical one */
	enum stats_verdict verdict;
};

struct stats;

/*
 * The estimator's own error, beside its noise: what a virtual speedup
 * gets wrong about a real one (pauses paid late, samples lost, the
 * supervisor's cost).  A standard deviation of STATS_MODEL_ABS plus
 * STATS_MODEL_REL of the estimate, joined to the statistical interval
 * of every level and impact.  Calibrated on the ground-truth checks
 * (the tuning side), never on the validation set: `bench/validate
 * --calibrate bench/validate-data/gt-*.jsonl` picks the narrowest pair
 * whose intervals hold 95% of the checks' truths (2026-11-29: the same
 * pair from 745 checks and from 774).
 */
# define STATS_MODEL_ABS 0.0175
# define STATS_MODEL_REL 0.015

/* Model error STATS_MODEL_*: a new stats' default. */
struct stats *stats_new(void);
/* Another model error (0, 0: statistical intervals alone, as the
 * simulations of tests/unit-stats.c, whose truth is the virtual speedup). */
void stats_set_model_error(struct stats *, double abs_sd, double rel_sd);
void stats_free(struct stats *);
/* Takes ownership of r->points (copies the record itself). */
void stats_add(struct stats *, const struct exp_record *r);
/*
 * Forget the non-zero experiments of one target (the TUI's "reset"):
 * its curve starts over.  0% baselines serve every target: kept.
 * Returns how many were dropped.
 */
size_t stats_forget(struct stats *, unsigned target, bool is_func);
/* Every experiment added, in order. */
const struct exp_record *stats_records(const struct stats *, size_t *n);
size_t stats_baselines(const struct stats *);

/*
 * The curves of every target that had a non-zero experiment, for one
 * progress point, ranked: significant positive effects first by impact,
 * then the rest by impact, contention last.  The array and the curves
 * are valid until the next stats_add (each point's are computed once,
 * then kept).
 */
const struct stats_curve *stats_curves(struct stats *, unsigned point, size_t *n);
/* One target's curve for one point, NULL if it has no experiment. */
const struct stats_curve *stats_curve_of(struct stats *, unsigned point,
					 unsigned target, bool is_func);

/*
 * Is the answer in for a point (--until-answer)?  STATS_TOP_LINE: the
 * first-ranked target is significant (optimize) and ahead of every other
 * target tried, each of whose interval lies below its own or whose
 * verdict is no effect or contention (one with too few experiments for an
 * interval has no say); STATS_NOTHING: every target tried has a verdict
 * and none is optimize.  Either needs STATS_ANSWER_MIN targets with
 * experiments.  Else STATS_UNDECIDED.  *rival (if not NULL): the index of
 * the first's closest rival in stats_curves (the highest upper bound), 0
 * when there is none.  A target never experimented on has no curve: an
 * answer speaks for those with an estimate.
 */
enum stats_answer { STATS_UNDECIDED, STATS_TOP_LINE, STATS_NOTHING };
# define STATS_ANSWER_MIN 2
enum stats_answer stats_answer(struct stats *, unsigned point, size_t *rival);
/*
 * Over points 0..npoints: the first point's answer that is in, else
 * STATS_UNDECIDED; -1 when no point has an estimate (a point without one
 * has no say).
 */
int stats_answer_any(struct stats *, size_t npoints);

/*
 * The curve's impact has its interval: false where too few experiments
 * stand behind it (a line tried once), whose impact is not to be shown
 * or named alone.
 */
bool stats_curve_measured(const struct stats_curve *);

/* "optimize", "no effect", "contention", "not enough data" */
const char *stats_verdict_name(enum stats_verdict);

/* Two-sided 95% Student t quantile for df degrees of freedom. */
double stats_t95(unsigned df);

#endif
