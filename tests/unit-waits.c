/*
 * The wait sites listed behind a line with a "contention" verdict
 * (profile/report.c, report_waits_behind): the sites whose calling frame
 * is in that line's function, and no other; nothing for a line whose
 * verdict is another.  The experiments are made up so that one line's
 * speedup slows the program by ~10% (contention) and another's speeds it
 * up (optimize).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "profile/report.h"
#include "ptrace/waitsite.h"
#include "sym/lines.h"
#include "unit.h"

/* One experiment: 0.5 s, a throughput point seeing rate * effect. */
static void
add(struct stats *st, unsigned target, unsigned pct, double effect, unsigned i)
{
	struct exp_record r = {
		.target = target,
		.pct = pct,
		.start_ns = (uint64_t) i * 510000000ULL,
		.wall_ns = 500000000ULL,
		.delay_ns = (uint64_t) (500000000ULL * 0.3 * pct / 100),
		.selected_samples = pct ? 20 : 0,
		.npoints = 1,
	};
	double secs = (r.wall_ns - r.delay_ns) / 1e9;
	/* 10,000 units a second at 0%, give or take 0.5%. */
	double jitter = 1 + 0.005 * ((int) (i * 7919 % 11) - 5) / 5.0;

	r.points = xcalloc(1, sizeof(*r.points));
	r.points[0].delta = (uint64_t) (10000 * secs * (1 + effect * pct / 100) * jitter);
	stats_add(st, &r);
}

static struct wait_site *
site(struct ct_func *call, struct ct_func *caller, struct ct_line *line, const char *label,
     uint64_t count)
{
	struct wait_site *w = xcalloc(1, sizeof(*w));

	w->syscall = 202;
	w->syscall_name = "futex";
	w->nframes = 3;
	w->frames[0] = (struct wait_frame) { .func = call };
	w->frames[1] = (struct wait_frame) { .func = call };
	w->frames[2] = (struct wait_frame) { .func = caller, .line = line, .in_scope = true };
	w->call = 1;
	w->caller = 2;
	w->count = count;
	w->label = xstrdup(label);
	return w;
}

int
main(void)
{
	struct lines_table *lt = lines_new();
	struct ct_func *lock = lines_func(lt, "/lib/libc.so.6", "pthread_mutex_lock");
	struct ct_func *worker = lines_func(lt, "/bin/prog", "worker");
	struct ct_func *other = lines_func(lt, "/bin/prog", "other");
	struct ct_line *hold = lines_line(lt, "/src/q.c", 42, worker);
	struct ct_line *wait_at = lines_line(lt, "/src/q.c", 40, worker);
	struct ct_line *fast = lines_line(lt, "/src/r.c", 7, other);
	struct ct_line *wait_other = lines_line(lt, "/src/r.c", 9, other);
	struct stats *st = stats_new();
	const struct stats_curve *cv;
	struct wait_site *w[2];
	char *text = NULL;
	size_t len = 0, n;
	FILE *out;
	unsigned i = 0;

	for (unsigned k = 0; k < 40; k++) {
		add(st, 99, 0, 0, i++);
		add(st, hold->id, k % 2 ? 50 : 100, -0.10, i++);
		add(st, fast->id, k % 2 ? 50 : 100, +0.20, i++);
	}
	cv = stats_curves(st, 0, &n);
	for (size_t k = 0; k < n; k++)
		printf("curve: line %u: %s, impact %.3f [%.3f, %.3f]\n", cv[k].target,
		       stats_verdict_name(cv[k].verdict), cv[k].impact, cv[k].impact_lo,
		       cv[k].impact_hi);
	w[0] = site(lock, worker, wait_at, "pthread_mutex_lock from worker (q.c:40)", 17);
	w[1] = site(lock, other, wait_other, "pthread_mutex_lock from other (r.c:9)", 5);

	out = open_memstream(&text, &len);
	report_waits_behind(out, st, lt, 1, (const struct wait_site *const *) w, 2);
	fclose(out);
	printf("%s", text);
	CHECK(strstr(text, "Waits behind the contention at /src/q.c:42:\n"
			   "      17  futex in pthread_mutex_lock from worker (q.c:40)\n") != NULL,
	      "the site in the contention line's function is listed under it:\n%s", text);
	CHECK(!strstr(text, "other"), "a site of another function is not:\n%s", text);
	CHECK(!strstr(text, "r.c:7"), "nor is a line whose verdict is optimize:\n%s", text);
	free(text);

	/* No site: nothing at all. */
	text = NULL;
	out = open_memstream(&text, &len);
	report_waits_behind(out, st, lt, 1, NULL, 0);
	fclose(out);
	CHECK(len == 0, "no sites, no text: %s", text);
	free(text);

	for (unsigned k = 0; k < 2; k++) {
		free(w[k]->label);
		free(w[k]);
	}
	stats_free(st);
	lines_free(lt);
	return failures ? 1 : 0;
}
