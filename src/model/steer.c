#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "app/session.h"
#include "base/path.h"
#include "engine/experiment.h"
#include "model/steer.h"
#include "profile/save.h"
#include "sym/lines.h"

static bool __attribute__((format(printf, 4, 5)))
say(bool ok, char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return ok;
}

/* Steering needs an engine, and a session still running. */
static bool
can_steer(struct session *s, char *msg, size_t size)
{
	if (!s->exp)
		return say(false, msg, size, "no causal experiments in this session");
	if (s->end_ns)
		return say(false, msg, size, "the session is over: nothing to steer");
	return true;
}

/* "file.c:12" or "function foo" into buf. */
static const char *
name_of(struct session *s, unsigned target, bool is_func, char *buf, size_t size)
{
	size_t n;

	if (is_func) {
		struct ct_func *const *f = lines_funcs(s->lines, &n);

		snprintf(buf, size, "%s", target < n ? f[target]->name : "?");
	} else {
		struct ct_line *const *l = lines_lines(s->lines, &n);

		if (target < n)
			snprintf(buf, size, "%s:%u", base_name(l[target]->file), l[target]->line);
		else
			snprintf(buf, size, "line #%u", target);
	}
	return buf;
}

bool
steer_pin(struct session *s, unsigned target, bool is_func, char *msg, size_t size)
{
	struct exp_steering st;
	char name[128];

	/* A function of code without line info is pinned in line mode too. */
	if (!can_steer(s, msg, size))
		return false;
	exp_steering(s->exp, &st);
	if (st.pinned && st.pin == target && st.pin_is_func == is_func)
		return steer_unpin(s, msg, size);
	if (exp_excluded(s->exp, target, is_func))
		return say(false, msg, size, "%s is excluded: include it first",
			   name_of(s, target, is_func, name, sizeof(name)));
	exp_pin(s->exp, target, is_func);
	return say(true, msg, size, "experiments pinned to %s",
		   name_of(s, target, is_func, name, sizeof(name)));
}

bool
steer_unpin(struct session *s, char *msg, size_t size)
{
	struct exp_steering st;

	if (!can_steer(s, msg, size))
		return false;
	exp_steering(s->exp, &st);
	if (!st.pinned)
		return say(false, msg, size, "nothing is pinned");
	exp_unpin(s->exp);
	return say(true, msg, size, "pin released: the scheduler chooses again");
}

bool
steer_exclude(struct session *s, unsigned target, bool is_func, char *msg, size_t size)
{
	bool now;
	char name[128];

	if (!can_steer(s, msg, size))
		return false;
	now = !exp_excluded(s->exp, target, is_func);
	exp_exclude(s->exp, target, is_func, now);
	return say(true, msg, size, "%s %s the experiments",
		   name_of(s, target, is_func, name, sizeof(name)), now ? "left out of" : "back in");
}

bool
steer_exclude_file(struct session *s, unsigned line_target, char *msg, size_t size)
{
	struct ct_line *const *l;
	size_t n;
	bool now;

	if (!can_steer(s, msg, size))
		return false;
	l = lines_lines(s->lines, &n);
	if (line_target >= n)
		return say(false, msg, size, "no such line");
	now = !exp_file_excluded(s->exp, l[line_target]->file);
	exp_exclude_file(s->exp, l[line_target]->file, now);
	return say(true, msg, size, "every line of %s %s the experiments",
		   base_name(l[line_target]->file), now ? "left out of" : "back in");
}

bool
steer_levels(struct session *s, unsigned lo, unsigned hi, char *msg, size_t size)
{
	if (!can_steer(s, msg, size))
		return false;
	exp_levels_focus(s->exp, lo, hi);
	if (lo == 0 && hi == 100)
		return say(true, msg, size, "speedup levels: all");
	return say(true, msg, size, "speedup levels: %u%% to %u%% only", lo, hi);
}

bool
steer_pause(struct session *s, bool paused, char *msg, size_t size)
{
	if (!can_steer(s, msg, size))
		return false;
	exp_set_paused(s->exp, paused);
	return say(true, msg, size, paused ? "experiments paused (sampling goes on)" :
					     "experiments resumed");
}

bool
steer_reset(struct session *s, unsigned target, bool is_func, char *msg, size_t size)
{
	char name[128];

	if (!can_steer(s, msg, size))
		return false;
	exp_reset_target(s->exp, target, is_func);
	return say(true, msg, size, "%s: experiments forgotten, its curve starts over",
		   name_of(s, target, is_func, name, sizeof(name)));
}

bool
steer_granularity(struct session *s, bool by_function, char *msg, size_t size)
{
	if (!can_steer(s, msg, size))
		return false;
	exp_set_granularity(s->exp, by_function);
	return say(true, msg, size, "experiments on %s", by_function ? "functions" : "lines");
}

bool
steer_save(struct session *s, char *msg, size_t size)
{
	const char *coz = s->save_coz.path, *json = s->save_json.path;

	if (!s->exp)
		return say(false, msg, size, "no causal experiments: no profile to save");
	if (!coz && !json)
		return say(false, msg, size, "no file to save to (see the log)");
	if (save_profiles(s))
		return say(false, msg, size, "cannot save the profile (see the log)");
	return say(true, msg, size, "profile saved: %s%s%s", coz ? coz : "",
		   coz && json ? ", " : "", json ? json : "");
}

void
steer_quit(struct session *s)
{
	s->stop_requested = true;
}
