/*
 * expstats: causaltop's statistics (src/calc/stats.c) over a list of causal
 * experiments, whichever profiler ran them.  bench/run feeds it the
 * experiments of causaltop's --json profiles and of Coz's profile.coz,
 * so that both tools' data go through the very same estimator, the
 * model error (src/calc/stats.h) joined to both tools' intervals:
 * measured on causaltop's checks, it is the one error estimate there is.
 *
 * Input, one experiment per line, in the order they ended, one progress
 * point (throughput):
 *
 *	TARGET PCT START_NS WALL_NS DELAY_NS SELECTED_SAMPLES DELTA
 *
 * TARGET is any word (a file:line); PCT the line speedup, 0 for a
 * baseline; WALL_NS - DELAY_NS the effective duration (for Coz, whose
 * profile gives only that, WALL_NS = duration and DELAY_NS = 0).
 *
 * Output: with -e, after each experiment K (1-based) the target ranked
 * first then,
 *
 *	top K TARGET VERDICT IMPACT LO HI
 *
 * ("top K - none nan nan nan" while nothing is ranked); then the
 * ranked curves of all the experiments,
 *
 *	curve RANK TARGET VERDICT IMPACT LO HI N_EXP SELECTED_SAMPLES
 *	level TARGET PCT N_EXP EVENTS VALID EST LO HI
 *
 * Verdicts are written with '_' for spaces.  Exit status 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calc/stats.h"

#define MAX_NAME 4096

static char **names;
static size_t nnames;

static unsigned
target_id(const char *name)
{
	size_t i;

	for (i = 0; i < nnames; i++)
		if (!strcmp(names[i], name))
			return i;
	names = realloc(names, (nnames + 1) * sizeof(*names));
	if (!names || !(names[nnames] = strdup(name))) {
		fprintf(stderr, "expstats: out of memory\n");
		exit(1);
	}
	return nnames++;
}

static void
verdict_word(enum stats_verdict v, char *buf, size_t len)
{
	snprintf(buf, len, "%s", stats_verdict_name(v));
	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '_';
}

static void
print_top(struct stats *st, size_t k)
{
	const struct stats_curve *cv;
	char v[32];
	size_t n;

	cv = stats_curves(st, 0, &n);
	if (!n) {
		printf("top %zu - none nan nan nan\n", k);
		return;
	}
	verdict_word(cv[0].verdict, v, sizeof(v));
	printf("top %zu %s %s %.6f %.6f %.6f\n", k, names[cv[0].target], v,
	       cv[0].impact, cv[0].impact_lo, cv[0].impact_hi);
}

static void
print_curves(struct stats *st)
{
	const struct stats_curve *cv;
	char v[32];
	size_t n;

	cv = stats_curves(st, 0, &n);
	for (size_t i = 0; i < n; i++) {
		verdict_word(cv[i].verdict, v, sizeof(v));
		printf("curve %zu %s %s %.6f %.6f %.6f %u %llu\n", i + 1,
		       names[cv[i].target], v, cv[i].impact, cv[i].impact_lo,
		       cv[i].impact_hi, cv[i].n_exp,
		       (unsigned long long)cv[i].selected_samples);
		for (size_t j = 0; j < cv[i].nlevels; j++) {
			const struct stats_level *lv = &cv[i].levels[j];

			printf("level %s %u %u %llu %d %.6f %.6f %.6f\n",
			       names[cv[i].target], lv->pct, lv->n_exp,
			       (unsigned long long)lv->events, lv->valid,
			       lv->est, lv->lo, lv->hi);
		}
	}
}

int
main(int argc, char **argv)
{
	char name[MAX_NAME], line[MAX_NAME + 256];
	unsigned long long start, wall, delay, sel, delta;
	struct stats *st = stats_new();
	int each = 0, c;
	unsigned pct;
	size_t k = 0;

	while ((c = getopt(argc, argv, "e")) != -1) {
		if (c != 'e') {
			fprintf(stderr, "usage: expstats [-e] < EXPERIMENTS\n");
			return 2;
		}
		each = 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		struct exp_record r = { 0 };
		struct exp_point *p;

		if (sscanf(line, "%4095s %u %llu %llu %llu %llu %llu", name, &pct,
			   &start, &wall, &delay, &sel, &delta) != 7 || pct > STATS_MAX_PCT) {
			fprintf(stderr, "expstats: bad line: %s", line);
			return 2;
		}
		p = calloc(1, sizeof(*p));
		if (!p) {
			fprintf(stderr, "expstats: out of memory\n");
			return 1;
		}
		p->point = 0;
		p->delta = delta;
		r.target = target_id(name);
		r.pct = pct;
		r.start_ns = start;
		r.wall_ns = wall;
		r.delay_ns = delay;
		r.selected_samples = sel;
		r.npoints = 1;
		r.points = p;
		stats_add(st, &r);
		if (each)
			print_top(st, ++k);
	}
	print_curves(st);
	stats_free(st);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	return 0;
}
