/*
 * Steering: what the TUI asks of the scheduler (model/steer.c, through
 * experiment.h).  Whatever makes the experiment under way pointless drops
 * it, as the end of a session does: a partial window is not a sample.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "app/session.h"
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "engine/exp_engine.h"
#include "engine/experiment.h"
#include "sym/lines.h"

bool
exp_steer_level_ok(const struct exp_engine *e, unsigned pct)
{
	return pct >= e->steer.focus_lo && pct <= e->steer.focus_hi;
}

static bool
excl_test(const struct exp_steer *st, bool is_func, unsigned id)
{
	return id < st->nexcl[is_func] && st->excl[is_func][id];
}

/* An excluded target, or a line of an excluded file. */
bool
exp_steer_skips(const struct exp_engine *e, unsigned target, bool is_func)
{
	const struct exp_steer *st = &e->steer;
	struct ct_line *const *l;
	size_t n;

	if (excl_test(st, is_func, target))
		return true;
	if (is_func || !st->nexcl_files)
		return false;
	l = lines_lines(e->s->lines, &n);
	for (size_t i = 0; target < n && i < st->nexcl_files; i++)
		if (!strcmp(l[target]->file, st->excl_files[i]))
			return true;
	return false;
}

/*
 * Drop the experiment under way (as at the end of a session: a partial
 * window is not a sample) and start a new turn, so that the next
 * experiment follows what was just asked.
 */
static void
steer_drop(struct exp_engine *e)
{
	uint64_t now = e->sys->now();

	if (exp_on(e)) {
		exp_forgive_all(e, now);
		e->state = ST_COOLOFF;
		e->cool_until = now + COOLOFF_NS;
		e->nwk = 0;
		e->nhit = 0;
		e->ndead = 0;
	}
	e->phase = 0;
	e->have_turn_target = false;
}

/* Is the experiment under way on this target? */
static bool
steer_current(const struct exp_engine *e, unsigned target, bool is_func)
{
	return exp_on(e) && e->target == target && e->is_func == is_func;
}

void
exp_pin(struct exp_engine *e, unsigned target, bool is_func)
{
	bool same = steer_current(e, target, is_func);

	e->steer.pinned = true;
	e->steer.pin = target;
	e->steer.pin_is_func = is_func;
	if (!same)
		steer_drop(e);
	else
		e->turn_target = target;
}

void
exp_unpin(struct exp_engine *e)
{
	e->steer.pinned = false;
}

void
exp_exclude(struct exp_engine *e, unsigned target, bool is_func, bool excluded)
{
	struct exp_steer *st = &e->steer;

	if (target >= st->nexcl[is_func]) {
		size_t n = target + 64;

		if (!excluded)
			return;
		st->excl[is_func] = xrealloc(st->excl[is_func], n);
		memset(st->excl[is_func] + st->nexcl[is_func], 0, n - st->nexcl[is_func]);
		st->nexcl[is_func] = n;
	}
	st->excl[is_func][target] = excluded;
	if (excluded && st->pinned && st->pin == target && is_func == st->pin_is_func)
		st->pinned = false;
	if (excluded && steer_current(e, target, is_func))
		steer_drop(e);
}

bool
exp_excluded(const struct exp_engine *e, unsigned target, bool is_func)
{
	return excl_test(&e->steer, is_func, target);
}

void
exp_exclude_file(struct exp_engine *e, const char *file, bool excluded)
{
	struct exp_steer *st = &e->steer;
	size_t i;

	for (i = 0; i < st->nexcl_files && strcmp(st->excl_files[i], file); i++)
		;
	if (excluded && i == st->nexcl_files) {
		st->excl_files = xrealloc(st->excl_files, (i + 1) * sizeof(*st->excl_files));
		st->excl_files[st->nexcl_files++] = xstrdup(file);
	} else if (!excluded && i < st->nexcl_files) {
		free(st->excl_files[i]);
		st->excl_files[i] = st->excl_files[--st->nexcl_files];
	}
	if (excluded && exp_on(e) && e->line &&
	    !strcmp(e->line->file, file))
		steer_drop(e);
}

bool
exp_file_excluded(const struct exp_engine *e, const char *file)
{
	for (size_t i = 0; i < e->steer.nexcl_files; i++)
		if (!strcmp(e->steer.excl_files[i], file))
			return true;
	return false;
}

void
exp_levels_focus(struct exp_engine *e, unsigned lo, unsigned hi)
{
	if (lo > hi || hi > 100)
		lo = 0, hi = 100;
	e->steer.focus_lo = lo;
	e->steer.focus_hi = hi;
}

void
exp_set_paused(struct exp_engine *e, bool paused)
{
	e->steer.paused = paused;
	if (paused)
		steer_drop(e);
}

void
exp_reset_target(struct exp_engine *e, unsigned target, bool is_func)
{
	if (steer_current(e, target, is_func))
		steer_drop(e);
	stats_forget(e->stats, target, is_func);
	if (target < e->n_level_idx)
		e->level_idx[target] = 0;
}

void
exp_set_granularity(struct exp_engine *e, bool by_function)
{
	if (e->cfg.by_function == by_function)
		return;
	steer_drop(e);
	e->cfg.by_function = by_function;
	/* Ids name lines or functions: a pin means nothing any more. */
	e->steer.pinned = false;
}

void
exp_steering(const struct exp_engine *e, struct exp_steering *out)
{
	const struct exp_steer *st = &e->steer;

	*out = (struct exp_steering) {
		.paused = st->paused,
		.pinned = st->pinned,
		.pin = st->pin,
		.pin_is_func = st->pin_is_func,
		.by_function = e->cfg.by_function,
		.focus_lo = st->focus_lo,
		.focus_hi = st->focus_hi,
		.nexcl_files = st->nexcl_files,
	};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < st->nexcl[k]; i++)
			out->nexcl += st->excl[k][i];
}
