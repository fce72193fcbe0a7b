#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "causal_out.h"
#include "error_prints.h"
#include "experiment.h"
#include "sampler.h"
#include "save.h"
#include "session.h"
#include "xmalloc.h"

void
save_fill_meta(struct session *s, struct causal_meta *m)
{
	struct exp_summary sm;
	struct exp_steering st;

	exp_summary(s->exp, now_ns(), &sm);
	exp_steering(s->exp, &st);
	*m = (struct causal_meta) {
		.command = s->opts.cmd,
		.pid = s->opts.pid ? s->opts.pid : s->launched,
		.startup_realtime_ns = s->startup_realtime_ns,
		.start_ns = s->start_ns,
		.end_ns = s->end_ns ? s->end_ns : now_ns(),
		.period_ns = s->opts.period_ns,
		.sampler = sampler_describe(s->smp),
		.wake_tracking = s->wake_mode,
		.exe = s->exe,
		.by_function = st.by_function,
		.delay_ns = sm.delay_ns,
		.samples_total = s->samples.total,
	};
}

int
save_profile(struct session *s, const char *path, bool json)
{
	struct causal_meta m;
	char *tmp;
	FILE *f;
	int err;

	if (!path || !s->exp)
		return 0;
	save_fill_meta(s, &m);
	tmp = xasprintf("%s.tmp%d", path, (int) getpid());
	if (!(f = fopen(tmp, "we"))) {
		perror_msg("cannot write %s", tmp);
		free(tmp);
		return -1;
	}
	err = json ? causal_write_json(f, &m, exp_stats(s->exp), s->lines, s->progress)
		   : causal_write_coz(f, &m, exp_stats(s->exp), s->lines, s->progress);
	if (fclose(f) || err < 0 || rename(tmp, path) < 0) {
		perror_msg("writing %s", path);
		unlink(tmp);
		err = -1;
	}
	free(tmp);
	return err < 0 ? -1 : 0;
}

const char *
save_coz_path(const struct session *s)
{
	return s->opts.output ? s->opts.output : SAVE_DEFAULT_COZ;
}

const char *
save_json_path(const struct session *s)
{
	return s->opts.json ? s->opts.json : SAVE_DEFAULT_JSON;
}
