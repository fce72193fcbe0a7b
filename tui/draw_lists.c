/* The progress points, threads, log and help screens. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "draw.h"

static void
colhead(struct canvas *cv, int y, int x, int w, const char *name, bool right)
{
	if (w <= 0)
		return;
	if (right)
		draw_right(cv, y, x, w, R_HEADER, name);
	else
		draw_cut(cv, y, x, w, R_HEADER, name, false);
}

/* The list's rows: selection kept in sight, as in the lines screen. */
static void
list_window(struct view *v, size_t *sel, size_t *top, size_t n, struct area a)
{
	v->list_y = a.y + 1;
	v->list_h = a.h - 1;
	if (v->list_h <= 0)
		return;
	if (*sel >= n)
		*sel = n ? n - 1 : 0;
	if (*sel < *top)
		*top = *sel;
	if (*sel >= *top + (size_t) v->list_h)
		*top = *sel - (size_t) v->list_h + 1;
}

void
draw_points(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	/* KIND, SOURCE, COUNT, RATE/s take 47 columns; the name and history share the rest. */
	int rest = a.w - 2 - 11 - 11 - 13 - 11, name_w = rest, hist_w = 0, y;
	char buf[64];

	if (rest >= 30) {
		name_w = rest / 2 > 30 ? 30 : rest / 2;
		hist_w = rest - name_w - 1;
		if (hist_w > MODEL_HIST)
			hist_w = MODEL_HIST;
	}
	canvas_fill(cv, a.y, a.x, a.w, ' ', R_HEADER);
	{
		int x = 2;

		colhead(cv, a.y, x, name_w, "PROGRESS POINT", false);
		x += name_w + 1;
		colhead(cv, a.y, x, 10, "KIND", false);
		x += 11;
		colhead(cv, a.y, x, 10, "SOURCE", false);
		x += 11;
		colhead(cv, a.y, x, 12, "COUNT", true);
		x += 13;
		colhead(cv, a.y, x, 10, "RATE/s", true);
		x += 11;
		if (hist_w)
			colhead(cv, a.y, x, hist_w, "LAST MINUTE", false);
	}
	list_window(v, &v->pt_sel, &v->pt_top, m->npoints, a);
	if (!m->npoints) {
		draw_cut(cv, a.y + 2, 2, a.w - 4, R_DIM,
			 "No progress point yet: mark units of work (CAUSALTOP_PROGRESS, coz.h), "
			 "or use --progress, --latency or --end-to-end.", false);
		return;
	}
	y = v->list_y;
	for (size_t i = v->pt_top; i < m->npoints && y < v->list_y + v->list_h; i++, y++) {
		const struct model_point *p = &m->points[i];
		int x = 0;

		if (i == m->point)
			canvas_set(cv, y, 0, canvas_glyph(cv, G_ARROW), R_MARK);
		x = 2;
		draw_cut(cv, y, x, name_w, p->quiet ? R_WARN : R_NORMAL, p->name, false);
		x += name_w + 1;
		canvas_text(cv, y, x, 10, R_DIM, p->latency ? "latency" : "throughput");
		x += 11;
		draw_cut(cv, y, x, 10, R_DIM, p->source ? p->source : "?", false);
		x += 11;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long) (p->latency ? p->arrivals :
									   p->count));
		draw_right(cv, y, x, 12, R_VALUE, buf);
		x += 13;
		draw_right(cv, y, x, 10, R_VALUE, fmt_count(buf, sizeof(buf), p->rate));
		x += 11;
		if (hist_w)
			draw_spark(cv, y, x, hist_w, p->hist, p->nhist, p->quiet ? R_WARN : R_POSITIVE);
		if (i == v->pt_sel)
			canvas_paint(cv, y, 0, a.w, R_SELECTED);
	}
}

static const char *
state_name(enum model_thread_state s, enum role *r)
{
	*r = R_NORMAL;
	switch (s) {
	case MODEL_T_RUNNING:
		*r = R_POSITIVE;
		return "running";
	case MODEL_T_BLOCKED:
		return "blocked";
	case MODEL_T_PAUSED:
		*r = R_MARK;
		return "paused";
	case MODEL_T_STOPPED:
		*r = R_WARN;
		return "stopped";
	case MODEL_T_EXITED:
		*r = R_DIM;
		return "exited";
	case MODEL_T_UNKNOWN:
		break;
	}
	*r = R_DIM;
	return "?";
}

void
draw_threads(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	int func_w = a.w - 1 - 8 - 8 - 17 - 9 - 10 - 12, y;
	char buf[64];

	canvas_fill(cv, a.y, a.x, a.w, ' ', R_HEADER);
	{
		int x = 1;

		colhead(cv, a.y, x, 7, "PID", true);
		x += 8;
		colhead(cv, a.y, x, 7, "TID", true);
		x += 8;
		colhead(cv, a.y, x, 16, "NAME", false);
		x += 17;
		colhead(cv, a.y, x, 8, "STATE", false);
		x += 9;
		colhead(cv, a.y, x, 9, "SAMPLES", true);
		x += 10;
		colhead(cv, a.y, x, 11, "DELAY PAID", true);
		x += 12;
		colhead(cv, a.y, x, func_w, "FUNCTION / WAIT", false);
	}
	list_window(v, &v->th_sel, &v->th_top, m->nthreads, a);
	y = v->list_y;
	for (size_t i = v->th_top; i < m->nthreads && y < v->list_y + v->list_h; i++, y++) {
		const struct model_thread *t = &m->threads[i];
		enum role r;
		const char *st = state_name(t->state, &r);
		int x = 1;

		/* Grouped by process (model.c): its pid on its first row only. */
		snprintf(buf, sizeof(buf), "%d", t->tgid);
		if (i == v->th_top || m->threads[i - 1].tgid != t->tgid)
			draw_right(cv, y, x, 7, R_TITLE, buf);
		x += 8;
		snprintf(buf, sizeof(buf), "%d", t->tid);
		draw_right(cv, y, x, 7, t->tid == t->tgid ? R_TITLE : R_NORMAL, buf);
		x += 8;
		draw_cut(cv, y, x, 16, t->state == MODEL_T_EXITED ? R_DIM : R_NORMAL, t->comm, false);
		x += 17;
		canvas_text(cv, y, x, 8, r, st);
		x += 9;
		draw_right(cv, y, x, 9, R_VALUE, fmt_count(buf, sizeof(buf), (double) t->samples));
		x += 10;
		if (t->delay_paid_ns >= 1000000000ULL)
			draw_right(cv, y, x, 11, R_VALUE, fmt_dur(buf, sizeof(buf), t->delay_paid_ns));
		else if (t->delay_paid_ns) {
			snprintf(buf, sizeof(buf), "%.0f ms", t->delay_paid_ns / 1e6);
			draw_right(cv, y, x, 11, R_VALUE, buf);
		}
		x += 12;
		/* A blocked thread: where it waits, when a pause found it there. */
		if (t->state == MODEL_T_BLOCKED && t->wait) {
			draw_cut(cv, y, x, func_w, R_WARN, t->wait, false);
		} else {
			draw_cut(cv, y, x, func_w, R_DIM, t->func ? t->func : "", false);
		}
		if (i == v->th_sel)
			canvas_paint(cv, y, 0, a.w, R_SELECTED);
	}
}

void
draw_log(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	int rows = a.h - 1;
	size_t end, first;

	canvas_fill(cv, a.y, a.x, a.w, ' ', R_HEADER);
	canvas_printf(cv, a.y, 1, a.w - 1, R_HEADER, "LOG  %llu line%s%s",
		      (unsigned long long) m->log_total, m->log_total == 1 ? "" : "s",
		      m->log_total > m->nlog ? " (the oldest dropped)" : "");
	v->list_y = a.y + 1;
	v->list_h = rows;
	if (rows <= 0)
		return;
	if (!m->nlog) {
		draw_cut(cv, a.y + 1, 2, a.w - 4, R_DIM,
			 "Nothing yet: warnings, threads that went away, progress points gone "
			 "quiet and the command's output show here.", false);
		return;
	}
	/* Follow the end unless scrolled back. */
	end = m->nlog - (v->log_back < m->nlog ? v->log_back : m->nlog);
	first = end > (size_t) rows ? end - (size_t) rows : 0;
	for (size_t i = first; i < end; i++) {
		const struct model_log_line *l = &m->log[i];
		int y = a.y + 1 + (int) (i - first), x = 1;
		enum role r = l->kind == MODEL_LOG_WARN ? R_WARN :
			      l->kind == MODEL_LOG_INFO ? R_DIM : R_NORMAL;
		char text[512];
		size_t o = 0;

		x += canvas_printf(cv, y, x, 9, R_DIM, "%8.1fs", l->t_ns / 1e9) + 1;
		if (l->kind == MODEL_LOG_TARGET)
			x += canvas_text(cv, y, x, 2, R_DIM, "> ");
		/* A tab is a space here: the canvas shows no control character. */
		for (const char *p = l->text; *p && o + 1 < sizeof(text); p++)
			text[o++] = *p == '\t' ? ' ' : *p;
		text[o] = '\0';
		draw_cut(cv, y, x, a.w - x, r, text, false);
	}
}

static const char *const help_text[] = {
	"causaltop: which lines would make the program faster if they ran faster.",
	"",
	"One row per source line (g: per function).  @50%: the predicted program",
	"speedup if the line ran 50% faster, with its 95% interval.  IMPACT: at 100%,",
	"fitted over every level: # ranks by it, VERDICT rests on it (optimize or",
	"contention only when its interval excludes 0; no effect; not enough data).",
	"",
	"Keys",
	"  F1 h ?       this help            F10 q       quit (detach, save)",
	"  Up Down j k  select               PgUp PgDn   page; the source in a curve",
	"  Home End     top (kept), last     Enter       the line's curve",
	"  Esc          back                 Tab         next screen (Shift-Tab back)",
	"  1 2 3 4      Lines, Progress, Threads, Log    Ctrl-L  redraw",
	"  F3 /         search (F3: next)    F4 \\        filter (Esc clears it)",
	"  F6 > <       sort column          I           invert the order",
	"",
	"Steering the experiments",
	"  F2 p         pin experiments to the selected line; again: release",
	"  F8 x         exclude the line (again: include it); X: its whole file",
	"  R            reset: forget the line's experiments",
	"  F5 Space     pause or resume experiments (sampling goes on)",
	"  F7 l         speedup levels: all, low, middle, high",
	"  g            experiments on lines, or on whole functions",
	"  F9 w         save the profile now: -o and --json, or profile.coz",
	"               and profile.json in the current directory (a run is",
	"               added to profile.coz; the old profile.json kept as .old)",
	"",
	"Mouse: click selects (again: opens), a column header sorts, the function",
	"bar works, the wheel scrolls.",
	"",
	"Marks: the experiment under way (an arrow), P pinned, x excluded.",
	"Colours: green helps, red is contention, plain is no effect, dim is not",
	"known yet.  --no-color or NO_COLOR: monochrome.",
};

void
draw_help(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	size_t n = sizeof(help_text) / sizeof(help_text[0]);

	(void) m;
	if (v->help_top + (size_t) a.h > n)
		v->help_top = n > (size_t) a.h ? n - (size_t) a.h : 0;
	for (int i = 0; i < a.h && v->help_top + (size_t) i < n; i++) {
		const char *t = help_text[v->help_top + (size_t) i];
		bool heading = t[0] && t[0] != ' ' && i + v->help_top > 0 &&
			       !strchr(t, '.') && !strchr(t, ':');

		draw_cut(cv, a.y + i, 1, a.w - 2, heading ? R_TITLE : R_NORMAL, t, false);
	}
}
