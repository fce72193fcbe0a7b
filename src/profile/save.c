#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/readall.h"
#include "base/xmalloc.h"
#include "engine/experiment.h"
#include "perf/sampler.h"
#include "profile/causal_out.h"
#include "ptrace/waitsite.h"
#include "profile/output.h"
#include "profile/profile.h"
#include "profile/save.h"

void
save_fill_meta(struct session *s, struct causal_meta *m)
{
	struct exp_summary sm;
	struct exp_steering st;

	exp_summary(s->exp, clock_now_ns(), &sm);
	exp_steering(s->exp, &st);
	*m = (struct causal_meta) {
		.command = s->opts.cmd,
		.pid = s->opts.pid ? s->opts.pid : s->launched,
		.pids = s->opts.pid ? s->opts.pids : NULL,
		.npids = s->opts.pid ? s->opts.n_pids : 0,
		.startup_realtime_ns = s->startup_realtime_ns,
		.start_ns = s->start_ns,
		.end_ns = s->end_ns ? s->end_ns : clock_now_ns(),
		.period_ns = s->opts.period_ns,
		.sampler = sampler_describe(s->smp),
		.wake_tracking = s->wake_mode,
		.exe = s->exe,
		.by_function = st.by_function,
		.delay_ns = sm.delay_ns,
		.samples_total = s->samples.total,
		/* --runs: the runs begun (the last may have been cut short). */
		.runs = s->opts.runs > 1 ? s->runs.done + !s->launched_done : 1,
		.wait_stats = s->waits ? wait_sites_stats(s->waits) : NULL,
	};
	m->waits = wait_sites_sorted(s->waits, &m->nwaits);
}

/* The whole of a file; NULL (said) if it cannot be read. */
static char *
slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	char *data = NULL;

	err = fd < 0 ? errno : read_all(fd, &data, len);
	if (fd >= 0)
		close(fd);
	if (err) {
		errno = err;
		perror_msg("cannot read %s", path);
	}
	return data;
}

/* What a Coz-format file holds must be Coz runs, kept before this one. */
static int
keep_runs(struct save_target *t)
{
	struct profile *p;
	char err[512];
	size_t i = 0;

	if (!(t->runs = slurp(t->path, &t->runs_len)))
		return CT_EXIT_IO;
	while (i < t->runs_len && strchr(" \t\r\n", t->runs[i]))
		i++;
	if (i == t->runs_len) {
		/* Empty: nothing to keep. */
		free(t->runs);
		t->runs = NULL;
		t->runs_len = 0;
		return 0;
	}
	p = profile_new();
	/* -o writes Coz's tab-separated records: not after JSON. */
	if (t->runs[i] == '{')
		snprintf(err, sizeof(err), "it is JSON");
	else if (profile_read_buffer(p, t->path, t->runs, t->runs_len, err, sizeof(err)))
		;
	else if (!p->nruns)
		snprintf(err, sizeof(err), "no run in it");
	else
		err[0] = 0;
	t->nruns = (unsigned) p->nruns;
	profile_free(p);
	if (err[0]) {
		error_msg("%s holds something other than Coz-format runs (%s): it is left "
			  "as it is; give -o another file", t->path, err);
		free(t->runs);
		t->runs = NULL;
		return CT_EXIT_IO;
	}
	return 0;
}

int
save_target_init(struct save_target *t, const char *path, bool json)
{
	struct stat st;

	*t = (struct save_target) { .path = path, .json = json };
	if (!path)
		return 0;
	if (output_check(path))
		goto fail;
	if (strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		if (json)
			t->move_old = true;
		else if (keep_runs(t))
			goto fail;
	}
	return 0;
fail:
	t->path = NULL;
	return CT_EXIT_IO;
}

void
save_target_release(struct save_target *t)
{
	free(t->runs);
	t->runs = NULL;
}

struct save_ctx {
	struct session *s;
	const struct causal_meta *m;
	const struct save_target *t;
};

static int
write_profile(FILE *f, void *ctx)
{
	const struct save_ctx *c = ctx;
	const struct save_target *t = c->t;

	if (t->json)
		return causal_write_json(f, c->m, exp_stats(c->s->exp), c->s->lines,
					 c->s->progress);
	if (t->runs_len) {
		if (fwrite(t->runs, 1, t->runs_len, f) != t->runs_len)
			return -1;
		if (t->runs[t->runs_len - 1] != '\n')
			putc('\n', f);
	}
	return causal_write_coz(f, c->m, exp_stats(c->s->exp), c->s->lines, c->s->progress);
}

static void __attribute__((format(printf, 2, 3)))
note(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->opts.quiet)
		return;
	fprintf(stderr, "%s: ", program_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
save_profile(struct session *s, struct save_target *t)
{
	struct causal_meta m;
	struct save_ctx c = { s, &m, t };

	if (!t->path || !s->exp)
		return 0;
	if (t->move_old) {
		char *old = xasprintf("%s.old", t->path);

		if (rename(t->path, old)) {
			perror_msg("cannot move %s to %s, so as not to write over it", t->path,
				   old);
			free(old);
			return CT_EXIT_IO;
		}
		note(s, "the %s there before is now %s", t->path, old);
		free(old);
		t->move_old = false;
	}
	save_fill_meta(s, &m);
	if (output_write(t->path, write_profile, &c))
		return CT_EXIT_IO;
	if (!t->written && t->nruns)
		note(s, "this run added to %s, after the %u run%s it held", t->path, t->nruns,
		     t->nruns == 1 ? "" : "s");
	t->written = true;
	return 0;
}

int
save_profiles(struct session *s)
{
	int coz = save_profile(s, &s->save_coz), json = save_profile(s, &s->save_json);

	return coz ? coz : json;
}
