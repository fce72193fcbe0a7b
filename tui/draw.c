/*
 * The frame: four rows of meters at the top (htop's header), the
 * screen, a status line, the function bar.  Smaller terminals lose the
 * meters first, then the status line; nothing is drawn outside the
 * canvas whatever its size.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "draw.h"

/* A status message stays this long. */
#define STATUS_NS 5000000000ULL

const char *
row_location(const struct model_row *r, char *buf, size_t size)
{
	if (r->is_func || !r->file)
		snprintf(buf, size, "%s", r->func ? r->func : "?");
	else
		snprintf(buf, size, "%s:%u", view_base_name(r->file), r->line);
	return buf;
}

enum role
verdict_role(enum model_verdict v)
{
	switch (v) {
	case MODEL_OPTIMIZE:
		return R_POSITIVE;
	case MODEL_CONTENTION:
		return R_NEGATIVE;
	case MODEL_NO_EFFECT:
		return R_NEUTRAL;
	case MODEL_NOT_ENOUGH:
		break;
	}
	return R_UNKNOWN;
}

enum role
interval_role(bool valid, double lo, double hi)
{
	if (!valid || !isfinite(lo) || !isfinite(hi))
		return R_UNKNOWN;
	if (lo > 0)
		return R_POSITIVE;
	if (hi < 0)
		return R_NEGATIVE;
	return R_NEUTRAL;
}

int
draw_cut(struct canvas *cv, int y, int x, int w, enum role r, const char *s, bool keep_tail)
{
	int full;

	if (w <= 0 || !s)
		return 0;
	full = canvas_width(cv, s);
	if (full <= w)
		return canvas_text(cv, y, x, w, r, s);
	if (w == 1) {
		canvas_set(cv, y, x, canvas_glyph(cv, G_ELLIPSIS), r);
		return 1;
	}
	if (!keep_tail) {
		int used = canvas_text(cv, y, x, w - 1, r, s);

		canvas_set(cv, y, x + used, canvas_glyph(cv, G_ELLIPSIS), r);
		return used + 1;
	}
	/* The tail: skip characters until the rest fits in w - 1. */
	{
		const unsigned char *p = (const unsigned char *) s;

		while (*p && canvas_width(cv, (const char *) p) > w - 1) {
			p++;
			while ((*p & 0xc0) == 0x80)
				p++;
		}
		canvas_set(cv, y, x, canvas_glyph(cv, G_ELLIPSIS), r);
		return 1 + canvas_text(cv, y, x + 1, w - 1, r, (const char *) p);
	}
}

void
draw_right(struct canvas *cv, int y, int x, int w, enum role r, const char *s)
{
	int sw = canvas_width(cv, s);

	if (sw > w)
		draw_cut(cv, y, x, w, r, s, false);
	else
		canvas_text(cv, y, x + w - sw, sw, r, s);
}

void
draw_spark(struct canvas *cv, int y, int x, int w, const float *v, unsigned n, enum role r)
{
	unsigned from = n > (unsigned) w ? n - (unsigned) w : 0;
	float max = 0;

	if (w <= 0)
		return;
	for (unsigned i = from; i < n; i++)
		if (v[i] > max)
			max = v[i];
	/* Right-aligned: the newest value in the last cell. */
	for (unsigned i = from; i < n; i++) {
		int cx = x + w - (int) (n - i);
		unsigned lvl = max > 0 ? (unsigned) lrintf(7 * v[i] / max) : 0;

		canvas_set(cv, y, cx, canvas_bar(cv, lvl), r);
	}
}

const char *
fmt_pct(char *buf, size_t size, double frac)
{
	double p = 100 * frac;

	if (!isfinite(p))
		snprintf(buf, size, "-");
	else if (fabs(p) >= 99.5)
		snprintf(buf, size, "%+.0f%%", p);
	else
		snprintf(buf, size, "%+.1f%%", p);
	return buf;
}

const char *
fmt_dur(char *buf, size_t size, uint64_t ns)
{
	uint64_t s = ns / 1000000000ULL;

	if (s >= 3600)
		snprintf(buf, size, "%u:%02u:%02u", (unsigned) (s / 3600),
			 (unsigned) (s / 60 % 60), (unsigned) (s % 60));
	else if (s >= 60)
		snprintf(buf, size, "%u:%02u", (unsigned) (s / 60), (unsigned) (s % 60));
	else
		snprintf(buf, size, "%.1f s", ns / 1e9);
	return buf;
}

const char *
fmt_count(char *buf, size_t size, double v)
{
	if (v >= 1e9)
		snprintf(buf, size, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else if (v == floor(v) || v >= 100)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.1f", v);
	return buf;
}

/* ---- header meters ---- */

/* A "Label value" pair, only if it fits whole; *x moves past it. */
static bool
meter(struct canvas *cv, int y, int *x, int end, const char *label, const char *value,
      enum role vr)
{
	int lw = label ? canvas_width(cv, label) : 0, vw = canvas_width(cv, value);

	if (*x + lw + (lw ? 1 : 0) + vw > end)
		return false;
	if (lw) {
		canvas_text(cv, y, *x, lw, R_TITLE, label);
		*x += lw + 1;
	}
	*x += canvas_text(cv, y, *x, vw, vr, value);
	*x += 2;
	return true;
}

static void
header(struct canvas *cv, const struct model *m, const struct view *v, int w)
{
	char a[256], b[64], c[64];
	int x = 1;
	const struct model_point *pt = m->point < m->npoints ? &m->points[m->point] : NULL;

	/* Row 0: what is profiled, and for how long. */
	canvas_text(cv, 0, x, 9, R_TITLE, "causaltop");
	x += 10;
	if (m->phase == MODEL_ENDED)
		snprintf(a, sizeof(a), "ended (%s) after %s", m->end_reason ? m->end_reason : "",
			 fmt_dur(b, sizeof(b), m->elapsed_ns));
	else
		snprintf(a, sizeof(a), "%s %s", m->attached ? "attached" : "profiling",
			 fmt_dur(b, sizeof(b), m->elapsed_ns));
	{
		int aw = canvas_width(cv, a), room = w - x - aw - 2;
		char pid[32];

		if (m->nprocs > 1)
			snprintf(pid, sizeof(pid), "  pid %d +%u", m->pid, m->nprocs - 1);
		else
			snprintf(pid, sizeof(pid), "  pid %d", m->pid);
		if (room > 8) {
			int used = draw_cut(cv, 0, x, room - (int) strlen(pid), R_VALUE, m->command, false);

			canvas_text(cv, 0, x + used, (int) strlen(pid), R_DIM, pid);
		}
		if (w - aw - 1 > x)
			canvas_text(cv, 0, w - aw - 1, aw,
				    m->phase == MODEL_ENDED ? R_WARN : R_DIM, a);
	}

	/* Row 1: threads and sampling. */
	x = 1;
	snprintf(a, sizeof(a), "%u traced, %u running, %u paused, %u blocked", m->threads_traced,
		 m->threads_running, m->threads_paused, m->threads_blocked);
	if (m->threads_stopped)
		snprintf(a + strlen(a), sizeof(a) - strlen(a), ", %u stopped", m->threads_stopped);
	meter(cv, 1, &x, w, "Threads", a, R_VALUE);
	snprintf(a, sizeof(a), "%s/s", fmt_count(b, sizeof(b), m->sample_rate));
	if (meter(cv, 1, &x, w, "Samples", a, R_VALUE) && m->sampler && *m->sampler) {
		snprintf(a, sizeof(a), "(%s)", m->sampler);
		meter(cv, 1, &x, w, NULL, a, R_DIM);
	}

	/* Row 2: experiments and steering, the most telling first. */
	x = 1;
	if (!m->experiments) {
		meter(cv, 2, &x, w, "Experiments", "none in this session", R_DIM);
	} else {
		snprintf(a, sizeof(a), "%u, %.2f/s", m->exp_done, m->exp_rate);
		meter(cv, 2, &x, w, "Experiments", a, R_VALUE);
		if (m->phase == MODEL_ENDED)
			;
		else if (m->paused)
			meter(cv, 2, &x, w, "now", "paused", R_WARN);
		else if (m->exp_running) {
			/* On the pinned line, "pinned" names it: the room goes to
			   the steal warning, and at 80 columns both still fit. */
			bool on_pin = m->pinned && m->pin_what && m->exp_what &&
				      !strcmp(m->pin_what, m->exp_what);

			snprintf(a, sizeof(a), "%s%s%+d%% %.1fs", on_pin ? "" : m->exp_what,
				 on_pin ? "" : " ", (int) m->exp_pct, m->exp_left_ns / 1e9);
			meter(cv, 2, &x, w, "now", a, R_MARK);
		} else {
			meter(cv, 2, &x, w, "now", "-", R_DIM);
		}
		/* Other guests of the host moved the program's speed: before the
		   steering, which the user knows of already. */
		if (m->steal_warn) {
			snprintf(a, sizeof(a), "%.1f%%", m->steal_pct);
			meter(cv, 2, &x, w, "steal", a, R_WARN);
		}
		if (m->pinned)
			meter(cv, 2, &x, w, "pinned", m->pin_what, R_MARK);
		if (m->focus_lo != 0 || m->focus_hi != 100) {
			snprintf(a, sizeof(a), "%u-%u%%", m->focus_lo, m->focus_hi);
			meter(cv, 2, &x, w, "levels", a, R_MARK);
		}
		if (m->n_excluded || m->n_excluded_files) {
			snprintf(a, sizeof(a), "%zu", m->n_excluded + m->n_excluded_files);
			meter(cv, 2, &x, w, "excluded", a, R_EXCLUDED);
		}
	}

	/* Row 3: progress and what causaltop costs (which keeps its room). */
	x = 1;
	snprintf(c, sizeof(c), "delay %.1f%%, CPU %.1f%%", m->delay_pct, m->cpu_pct);
	if (m->samples_in_trap)
		snprintf(c + strlen(c), sizeof(c) - strlen(c), ", traps %.1f%%",
			 100.0 * m->samples_in_trap / m->samples);
	if (!pt) {
		meter(cv, 3, &x, w, "Progress", "no progress point yet", R_WARN);
	} else {
		int room = w - (int) strlen(c) - 8;	/* "Cost ", the gaps */

		snprintf(a, sizeof(a), "%s %s/s", pt->name, fmt_count(b, sizeof(b), pt->rate));
		if (pt->quiet)
			snprintf(a + strlen(a), sizeof(a) - strlen(a), " (quiet)");
		if (meter(cv, 3, &x, room, "Progress", a, pt->quiet ? R_WARN : R_VALUE)) {
			char more[32] = "";
			int sw;

			if (m->npoints > 1)
				snprintf(more, sizeof(more), "(+%zu more)", m->npoints - 1);
			sw = room - x - (int) strlen(more) - 1;
			if (sw > 20)
				sw = 20;
			if (sw >= 5) {
				draw_spark(cv, 3, x - 1, sw, pt->hist, pt->nhist, R_POSITIVE);
				x += sw + 1;
			}
			if (more[0])
				meter(cv, 3, &x, room, NULL, more, R_DIM);
		}
	}
	meter(cv, 3, &x, w, "Cost", c, R_VALUE);
	(void) v;
}

/* ---- status line and function bar ---- */

static const char *const screen_names[] = { "Lines", "Progress", "Threads", "Log" };
static const enum screen screen_of[] = { SCR_LINES, SCR_POINTS, SCR_THREADS, SCR_LOG };

static void
status_line(struct canvas *cv, const struct model *m, const struct view *v, int y, int w,
	    uint64_t now)
{
	int x = 0;

	if (v->prompt != PROMPT_NONE) {
		const char *label = v->prompt == PROMPT_SEARCH ? "Search: " : "Filter: ";
		const char *text = v->prompt == PROMPT_SEARCH ? v->search : v->filter;
		int used;

		x += canvas_text(cv, y, x, w, R_PROMPT, label);
		used = draw_cut(cv, y, x, w - x - 1, R_PROMPT, text, true);
		canvas_set(cv, y, x + used, '_', R_PROMPT);
		x += used + 2;
		if (v->prompt == PROMPT_SEARCH && v->search[0] && !view_row(v, m))
			canvas_text(cv, y, x, w - x, R_WARN, "(no match)");
		else
			canvas_text(cv, y, x, w - x, R_DIM,
				    v->prompt == PROMPT_SEARCH ? "Enter: done  F3: next  Esc: leave" :
				    "Enter: keep  Esc: clear");
		return;
	}
	if (v->status[0] && now - v->status_ns < STATUS_NS) {
		draw_cut(cv, y, 0, w, v->status_error ? R_WARN : R_VALUE, v->status, false);
		return;
	}
	if (v->banner[0]) {
		draw_cut(cv, y, 0, w, R_WARN, v->banner, false);
		return;
	}
	/* The screens, the current one marked; then what the list holds. */
	for (size_t i = 0; i < 4 && x < w; i++) {
		bool cur = v->screen == screen_of[i] ||
			   ((v->screen == SCR_CURVE || v->screen == SCR_HELP) && v->prev == screen_of[i] &&
			    screen_of[i] == SCR_LINES && v->screen == SCR_CURVE);

		x += canvas_printf(cv, y, x, w - x, cur ? R_SELECTED : R_DIM, "%zu %s", i + 1,
				   screen_names[i]);
		x++;
	}
	x++;
	if (v->screen == SCR_LINES || v->screen == SCR_CURVE) {
		char a[160];

		snprintf(a, sizeof(a), "%zu %s%s, by %s%s", v->norder,
			 m->by_function ? "functions" : "lines", v->filter[0] ? " matching" : "",
			 sort_name(v->sort), v->reverse ? " (reversed)" : "");
		x += draw_cut(cv, y, x, w - x, R_DIM, a, false) + 1;
		if (v->filter[0] && x < w - 4) {
			x += canvas_text(cv, y, x, w - x, R_DIM, "filter: ");
			draw_cut(cv, y, x, w - x, R_PROMPT, v->filter, false);
		}
	}
}

struct fkey {
	const char *label;
};

static void
function_bar(struct canvas *cv, const struct model *m, const struct view *v, int y, int w)
{
	const char *labels[10] = {
		"Help", "Pin", "Search", "Filter", m->paused ? "Resume" : "Pause",
		"SortBy", "Levels", "Excl", "Save", "Quit",
	};

	canvas_fill(cv, y, 0, w, ' ', R_FLABEL);
	if (v->screen == SCR_HELP)
		labels[0] = "Back";
	for (int i = 0; i < 10; i++) {
		int x = 8 * i;
		char key[4];

		if (x >= w)
			break;
		snprintf(key, sizeof(key), "F%d", i + 1);
		x += canvas_text(cv, y, x, w - x, R_FKEY, key);
		canvas_text(cv, y, x, (i < 9 ? 8 * (i + 1) : w) - x, R_FLABEL, labels[i]);
	}
}

void
draw_frame(struct canvas *cv, const struct model *m, struct view *v, uint64_t now)
{
	int rows = cv->rows, cols = cv->cols;
	int hdr = rows >= 16 ? 4 : rows >= 10 ? 1 : 0;
	int bottom = rows >= 6 ? 2 : rows >= 2 ? 1 : 0;
	struct area a = { .y = hdr, .x = 0, .h = rows - hdr - bottom, .w = cols };

	canvas_clear(cv);
	v->rows = rows;
	v->cols = cols;
	v->list_y = v->colhdr_y = -1;
	v->list_h = 0;
	v->ncols = 0;
	if (rows <= 0 || cols <= 0)
		return;
	if (hdr == 4)
		header(cv, m, v, cols);
	else if (hdr == 1)
		canvas_printf(cv, 0, 0, cols, R_TITLE, "causaltop %s", m->command);
	if (a.h > 0) {
		switch (v->screen) {
		case SCR_LINES:
			draw_lines(cv, m, v, a);
			break;
		case SCR_CURVE:
			draw_curve(cv, m, v, a);
			break;
		case SCR_POINTS:
			draw_points(cv, m, v, a);
			break;
		case SCR_THREADS:
			draw_threads(cv, m, v, a);
			break;
		case SCR_LOG:
			draw_log(cv, m, v, a);
			break;
		case SCR_HELP:
			draw_help(cv, m, v, a);
			break;
		case SCR_COUNT:
			break;
		}
	}
	if (bottom == 2)
		status_line(cv, m, v, rows - 2, cols, now);
	if (bottom >= 1)
		function_bar(cv, m, v, rows - 1, cols);
}
