#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "engine/experiment.h"
#include "perf/sampler.h"
#include "profile/causal_out.h"
#include "profile/output.h"
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
	};
}

struct save_ctx {
	struct session *s;
	const struct causal_meta *m;
	bool json;
};

static int
write_profile(FILE *f, void *ctx)
{
	const struct save_ctx *c = ctx;

	return (c->json ? causal_write_json : causal_write_coz)(f, c->m, exp_stats(c->s->exp),
								 c->s->lines, c->s->progress);
}

int
save_profile(struct session *s, const char *path, bool json)
{
	struct causal_meta m;
	struct save_ctx c = { s, &m, json };

	if (!path || !s->exp)
		return 0;
	save_fill_meta(s, &m);
	return output_write(path, write_profile, &c) ? -1 : 0;
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
