#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "app/session.h"
#include "base/path.h"
#include "base/xmalloc.h"
#include "perf/progress.h"
#include "perf/sampler.h"
#include "profile/report.h"
#include "calc/stats.h"
#include "engine/experiment.h"
#include "profile/causal_out.h"
#include "ptrace/tcb.h"
#include "ptrace/waitsite.h"
#include "sym/lines.h"
#include "sym/symname.h"

static double
pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static int
by_line_samples(const void *a, const void *b)
{
	const struct ct_line *x = *(const struct ct_line *const *) a;
	const struct ct_line *y = *(const struct ct_line *const *) b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_func_samples(const void *a, const void *b)
{
	const struct ct_func *x = *(const struct ct_func *const *) a;
	const struct ct_func *y = *(const struct ct_func *const *) b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_func_self(const void *a, const void *b)
{
	const struct ct_func *x = *(const struct ct_func *const *) a;
	const struct ct_func *y = *(const struct ct_func *const *) b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_thread_samples(const void *a, const void *b)
{
	const struct thread_stats *x = *(const struct thread_stats *const *) a;
	const struct thread_stats *y = *(const struct thread_stats *const *) b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return 0;
}

/* A sorted copy, so the table's id order is left alone. */
static void *
sorted(const void *arr, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	void *copy = xmalloc(n * size);

	if (n)
		memcpy(copy, arr, n * size);
	qsort(copy, n, size, cmp);
	return copy;
}

static void
report_lines(const struct session *s, FILE *out)
{
	size_t n;
	struct ct_line *const *all = lines_lines(s->lines, &n);
	struct ct_line **v = sorted(all, n, sizeof(*v), by_line_samples);

	fprintf(out, "\nTop lines (in scope):\n");
	fprintf(out, "  %8s %6s  %-40s %s\n", "samples", "%", "line", "function");
	for (size_t i = 0; i < n && i < s->opts.top && v[i]->samples; i++) {
		/* The function's name in brief: Top functions has it whole. */
		char where[4096], *fn = v[i]->func ? symname_brief(v[i]->func->name) : NULL;

		snprintf(where, sizeof(where), "%s:%u", base_name(v[i]->file), v[i]->line);
		fprintf(out, "  %8llu %5.1f%%  %-40s %s\n",
			(unsigned long long) v[i]->samples,
			pct(v[i]->samples, s->samples.in_scope), where, fn ? fn : "?");
		free(fn);
	}
	free(v);
}

static void
report_funcs(const struct session *s, FILE *out)
{
	size_t n;
	struct ct_func *const *all = lines_funcs(s->lines, &n);
	struct ct_func **v = sorted(all, n, sizeof(*v), by_func_samples);

	fprintf(out, "\nTop functions (in scope):\n");
	fprintf(out, "  %8s %6s  %-40s %s\n", "samples", "%", "function", "binary");
	for (size_t i = 0; i < n && i < s->opts.top && v[i]->samples; i++)
		fprintf(out, "  %8llu %5.1f%%  %-40s %s\n",
			(unsigned long long) v[i]->samples,
			pct(v[i]->samples, s->samples.in_scope), v[i]->name,
			base_name(v[i]->dso));
	free(v);

	/* Where the time really goes, libraries included. */
	if (!s->opts.verbose)
		return;
	v = sorted(all, n, sizeof(*v), by_func_self);
	fprintf(out, "\nTop functions by self samples (any scope):\n");
	fprintf(out, "  %8s %6s  %-40s %s\n", "samples", "%", "function", "binary");
	for (size_t i = 0; i < n && i < s->opts.top && v[i]->self; i++)
		fprintf(out, "  %8llu %5.1f%%  %-40s %s\n",
			(unsigned long long) v[i]->self,
			pct(v[i]->self, s->samples.total), v[i]->name,
			base_name(v[i]->dso));
	free(v);
}

static void
report_threads(const struct session *s, FILE *out)
{
	size_t n, with = 0;
	struct thread_stats *const *all = thread_stats_all(&n);
	struct thread_stats **v = sorted(all, n, sizeof(*v), by_thread_samples);

	for (size_t i = 0; i < n; i++)
		with += v[i]->samples > 0;
	fprintf(out, "\nThreads: %zu traced, %zu with samples, %zu without\n",
		n, with, n - with);
	fprintf(out, "  %7s %8s %8s  %s\n", "tid", "samples", "in-scope", "comm");
	for (size_t i = 0; i < n && i < s->opts.top; i++)
		fprintf(out, "  %7d %8llu %8llu  %s\n", (int) v[i]->tid,
			(unsigned long long) v[i]->samples,
			(unsigned long long) v[i]->in_scope, v[i]->comm);
	if (n > s->opts.top)
		fprintf(out, "  ... %zu more threads\n", n - s->opts.top);
	free(v);
}

static void
report_supervisor(const struct session *s, FILE *out)
{
	const struct sampler_stats *st = sampler_stats(s->smp);
	struct rusage ru;
	double cpu = 0;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	fprintf(out, "\nSupervisor: %.3f s CPU; %llu perf records; rings peak %u; "
		"fds %u at start, %u peak, %u at exit; ", cpu,
		(unsigned long long) st->records, st->rings_peak,
		s->fds_at_start, s->fds_peak, s->fds_at_exit);
	if (s->realtime)
		fprintf(out, "SCHED_FIFO %d\n", s->realtime);
	else
		fprintf(out, "normal priority\n");
}

static void
report_progress(const struct session *s, FILE *out, double secs)
{
	size_t n;
	struct progress_point *const *v = progress_points(s->progress, &n);

	if (!n) {
		fprintf(out, "\nNo progress point: mark units of work with CAUSALTOP_PROGRESS "
			"(causaltop.h) or COZ_PROGRESS (coz.h), or count a location with "
			"--progress=SPEC, or use --end-to-end.\n");
		return;
	}
	fprintf(out, "\nProgress points:\n");
	fprintf(out, "  %-32s %-10s %-10s %12s %12s %10s\n", "name", "kind", "source",
		"arrivals", "count", "per second");
	for (size_t i = 0; i < n; i++) {
		char arr[24] = "-";

		if (v[i]->kind == PROGRESS_LATENCY)
			snprintf(arr, sizeof(arr), "%llu", (unsigned long long) v[i]->arrivals);
		fprintf(out, "  %-32s %-10s %-10s %12s %12llu %10.1f\n", v[i]->name,
			v[i]->kind == PROGRESS_LATENCY ? "latency" : "throughput", v[i]->source,
			arr, (unsigned long long) v[i]->count, secs > 0 ? v[i]->count / secs : 0);
	}
	if (s->threads.stray_traps)
		fprintf(out, "  %llu SIGTRAP(s) of the breakpoint counters themselves kept from "
			"the program\n", (unsigned long long) s->threads.stray_traps);
}

void
report_flat(const struct session *s, FILE *out)
{
	double secs = (s->end_ns - s->start_ns) / 1e9;

	fprintf(out, "causaltop: %s %d", s->launched ? "launched" : "attached to",
		(int) (s->launched ? s->launched : s->opts.pid));
	for (size_t i = 1; !s->launched && i < s->opts.n_pids; i++)
		fprintf(out, ",%d", (int) s->opts.pids[i]);
	fprintf(out, " for %.3f s; sampler %s", secs, sampler_describe(s->smp));
	if (s->sample_cost_measured)
		fprintf(out, "; a sample costs %.1f us here", s->sample_cost_ns / 1e3);
	fputc('\n', out);
	fprintf(out, "Samples: %llu, %llu in scope (%.1f%%), %llu out of scope, %llu lost, "
		"%llu unwound with CFI",
		(unsigned long long) s->samples.total,
		(unsigned long long) s->samples.in_scope,
		pct(s->samples.in_scope, s->samples.total),
		(unsigned long long) s->samples.out_of_scope,
		(unsigned long long) s->samples.lost,
		(unsigned long long) s->samples.unwound);
	/* The time our traps took, kept out of the program's lines. */
	if (s->samples.in_trap)
		fprintf(out, ", %llu (%.1f%%) in progress traps",
			(unsigned long long) s->samples.in_trap,
			pct(s->samples.in_trap, s->samples.total));
	fputc('\n', out);
	if (!s->samples.in_scope)
		fprintf(out, "No sample fell in scope: was the program built with -g, and does "
			"--binary-scope/--source-scope name its code?\n");
	report_progress(s, out, secs);
	if (s->runs.done && (s->opts.end_to_end || s->opts.runs > 1))
		fprintf(out, "%s: %u runs, %.3f s mean, %.3f s min, %.3f s max\n",
			s->opts.end_to_end ? "End-to-end" : "Runs", s->runs.done, s->runs.total_ns / 1e9 / s->runs.done,
			s->runs.min_ns / 1e9, s->runs.max_ns / 1e9);
	report_lines(s, out);
	report_funcs(s, out);
	report_threads(s, out);
	if (s->opts.verbose)
		report_supervisor(s, out);
	fprintf(out, "causaltop: detached from %llu threads (%llu exited while traced)\n",
		(unsigned long long) s->threads.detached,
		(unsigned long long) s->threads.exited);
}

/* --- where threads wait ------------------------------------------------- */

#define WAITS_SHOWN 8

static const struct ct_func *
target_func(struct lines_table *lt, const struct stats_curve *cv)
{
	size_t n;

	if (cv->is_func) {
		struct ct_func *const *f = lines_funcs(lt, &n);

		return cv->target < n ? f[cv->target] : NULL;
	} else {
		struct ct_line *const *l = lines_lines(lt, &n);

		return cv->target < n ? l[cv->target]->func : NULL;
	}
}

/*
 * A line whose speedup slows the program down waits on others, or makes
 * them wait: the stacks of threads found blocked from the same function
 * say on what (which lock or queue, reached from where).
 */
void
report_waits_behind(FILE *out, struct stats *st, struct lines_table *lt, size_t npoints,
		    const struct wait_site *const *w, size_t nw)
{
	for (unsigned p = 0; p < npoints; p++) {
		size_t ncv;
		const struct stats_curve *cv = stats_curves(st, p, &ncv);

		for (size_t k = 0; k < ncv; k++) {
			const struct ct_func *f;
			char *where;
			bool said = false;

			if (cv[k].verdict != VERDICT_CONTENTION || !(f = target_func(lt, &cv[k])))
				continue;
			where = causal_target_location(lt, cv[k].target, cv[k].is_func);
			for (size_t i = 0; i < nw; i++) {
				if (w[i]->caller < 0 || w[i]->frames[w[i]->caller].func != f)
					continue;
				if (!said)
					fprintf(out, "Waits behind the contention at %s:\n", where);
				said = true;
				fprintf(out, "  %6llu  %s in %s\n", (unsigned long long) w[i]->count,
					w[i]->syscall_name ? w[i]->syscall_name : "syscall",
					w[i]->label);
			}
			free(where);
		}
	}
}

void
report_waits(const struct session *s, FILE *out)
{
	const struct wait_stats *ws = wait_sites_stats(s->waits);
	const struct wait_site *const *w;
	size_t n;

	if (!s->waits || !ws->taken)
		return;
	w = wait_sites_sorted(s->waits, &n);
	fprintf(out, "\nWhere threads wait: %llu stacks of threads that a pause found blocked, "
		"unwound with libunwind-ptrace (%.0f us each, at most %.0f; %llu skipped, at most "
		"one a thread every %llu ms)\n", (unsigned long long) ws->taken,
		ws->ns_total / 1e3 / ws->taken, ws->ns_max / 1e3, (unsigned long long) ws->skipped,
		WAIT_MIN_GAP_NS / 1000000ULL);
	fprintf(out, "  %6s %6s  %-16s %s\n", "stacks", "%", "system call", "waits in");
	for (size_t i = 0; i < n && i < WAITS_SHOWN; i++) {
		char sc[32];

		if (!w[i]->syscall_name)
			snprintf(sc, sizeof(sc), "%ld", w[i]->syscall);
		fprintf(out, "  %6llu %5.1f%%  %-16s %s\n", (unsigned long long) w[i]->count,
			pct(w[i]->count, ws->taken), w[i]->syscall_name ? w[i]->syscall_name : sc,
			w[i]->label);
	}
	if (n > WAITS_SHOWN)
		fprintf(out, "  (%zu more sites)\n", n - WAITS_SHOWN);
	if (s->exp) {
		size_t np = 0;

		progress_points(s->progress, &np);
		report_waits_behind(out, exp_stats(s->exp), s->lines, np, w, n);
	}
}

/* --- --until-answer ------------------------------------------------------ */

static void
curve_text(FILE *out, struct lines_table *lt, const struct stats_curve *cv)
{
	char *where = causal_target_location(lt, cv->target, cv->is_func);

	fprintf(out, "%s, impact %+.1f%% [%+.1f%%, %+.1f%%] (%u experiment%s)", where,
		100 * cv->impact, 100 * cv->impact_lo, 100 * cv->impact_hi, cv->n_exp,
		cv->n_exp == 1 ? "" : "s");
	free(where);
}

/* Each point as it stands: decided or not, beside its closest rival. */
static void
answer_points(FILE *out, struct stats *st, struct lines_table *lt,
	      struct progress_point *const *pts, size_t np)
{
	for (unsigned p = 0; p < np; p++) {
		size_t n, rival;
		const struct stats_curve *cv = stats_curves(st, p, &n);
		enum stats_answer a;

		if (!n || !isfinite(cv[0].impact))
			continue;
		fprintf(out, "; \"%s\": ", pts[p]->name);
		a = stats_answer(st, p, &rival);
		if (a == STATS_NOTHING) {
			fputs("no line tried would speed it up", out);
		} else if (cv[0].verdict == VERDICT_OPTIMIZE) {
			fputs(a == STATS_TOP_LINE ? "optimize " : "the first, ", out);
			curve_text(out, lt, &cv[0]);
			if (rival) {
				fputs(a == STATS_TOP_LINE ? ", ahead of all, the closest " :
				      ", not yet ahead of ", out);
				curve_text(out, lt, &cv[rival]);
			}
		} else {
			/* The table ranks a line tried once or twice, without
			 * an interval, by its estimate: not one to name here. */
			size_t i = 0;

			while (i < n && !stats_curve_measured(&cv[i]))
				i++;
			fputs("no line significant yet", out);
			if (i < n) {
				fputs("; the first measured, ", out);
				curve_text(out, lt, &cv[i]);
			}
		}
	}
}

void
report_answer(const struct session *s, FILE *out)
{
	double secs = (s->answer.at_ns - s->start_ns) / 1e9;
	struct progress_point *const *pts;
	struct stats *st;
	size_t np = 0, nrecs = 0;

	if (s->answer.kind < 0 || !s->exp)
		return;
	st = exp_stats(s->exp);
	pts = progress_points(s->progress, &np);
	fprintf(out, "\n%s after %.1f s", s->answer.kind > STATS_UNDECIDED ? "Answer" : "Undecided",
		secs);
	if (!np)
		fputs(": no progress point was seen", out);
	else if (!stats_records(st, &nrecs) || nrecs == stats_baselines(st))
		fputs(": no experiment with a speedup yet", out);
	answer_points(out, st, s->lines, pts, np);
	fputs(s->answer.kind > STATS_UNDECIDED ? ".\n" :
	      ".\n(--until-answer=SECONDS waits longer; --runs=N pools runs of a short command.)\n",
	      out);
}

void
report_pooled_answer(FILE *out, struct stats *st, struct lines_table *lt,
		     struct progress_table *progress)
{
	size_t np = 0;
	struct progress_point *const *pts = progress_points(progress, &np);
	int kind = stats_answer_any(st, np);	/* as --until-answer decides */

	if (kind < 0)
		return;
	fprintf(out, "\n%s from the pooled experiments",
		kind > STATS_UNDECIDED ? "Answer" : "Undecided");
	answer_points(out, st, lt, pts, np);
	fputs(kind > STATS_UNDECIDED ? ".\n" : ".\n(more runs pooled may decide it.)\n", out);
}
