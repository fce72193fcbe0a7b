/*
 * The curve screen: the selected line's speedup curve as a plot (x: line
 * speedup 0-100%, y: program speedup), each measured level a point with
 * its 95% interval as a whisker and the number of experiments under the
 * axis, the fit through all of them dotted; beside it the source around
 * the line with its samples, and the line's machine code with each
 * instruction's samples.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "draw.h"

/*
 * The y range of the plot: 0, the estimates and the fit, with room for
 * the intervals, but not so much that one wide early interval flattens
 * the curve: whiskers longer than the range are cut at its edge.
 */
static void
y_range(const struct model_row *r, double *ymin, double *ymax)
{
	double elo = 0, ehi = 0.05, lo, hi, span;

	for (size_t k = 0; k < r->nlevels; k++) {
		const struct model_level *lv = &r->levels[k];

		if (!lv->valid || !isfinite(lv->est))
			continue;
		if (lv->est < elo)
			elo = lv->est;
		if (lv->est > ehi)
			ehi = lv->est;
	}
	if (isfinite(r->impact)) {
		if (r->impact > ehi)
			ehi = r->impact;
		if (r->impact < elo)
			elo = r->impact;
	}
	span = ehi - elo;
	lo = elo;
	hi = ehi;
	for (size_t k = 0; k < r->nlevels; k++) {
		const struct model_level *lv = &r->levels[k];

		if (!lv->valid)
			continue;
		if (isfinite(lv->lo) && lv->lo < lo)
			lo = lv->lo < elo - span ? elo - span : lv->lo;
		if (isfinite(lv->hi) && lv->hi > hi)
			hi = lv->hi > ehi + span ? ehi + span : lv->hi;
	}
	/* Program speedups live in [-100%, 100%]; round out to 5%. */
	lo = lo < -1 ? -1 : floor(lo * 20) / 20;
	hi = hi > 1 ? 1 : ceil(hi * 20) / 20;
	if (hi - lo < 0.1)
		hi = lo + 0.1;
	*ymin = lo;
	*ymax = hi;
}

static int
row_of(double y, double ymin, double ymax, int top, int h)
{
	double f = (ymax - y) / (ymax - ymin);
	int r = (int) lround(f * (h - 1));

	if (r < 0)
		r = 0;
	if (r > h - 1)
		r = h - 1;
	return top + r;
}

/* An axis label: whole percents, "0%" for zero. */
static const char *
axis_pct(char *buf, size_t size, double frac)
{
	double p = 100 * frac;

	if (fabs(p) < 0.5)
		snprintf(buf, size, "0%%");
	else
		snprintf(buf, size, "%+.0f%%", p);
	return buf;
}

static bool
free_cell(const struct canvas *cv, int y, int x)
{
	if (y < 0 || x < 0 || y >= cv->rows || x >= cv->cols)
		return false;
	return cv->cells[y * cv->cols + x].ch == ' ';
}

static void
plot(struct canvas *cv, const struct model_row *r, struct area a)
{
	const int lab = 6;			/* "+100%" and a space */
	int ph = a.h - 2, pw = a.w - lab - 1;	/* plot cells; two rows under it */
	int px = a.x + lab + 1, py = a.y;
	double ymin, ymax;
	char buf[32];
	int zero;

	if (ph < 3 || pw < 10) {
		draw_cut(cv, a.y, a.x, a.w, R_DIM, "(too small for the plot)", false);
		return;
	}
	y_range(r, &ymin, &ymax);
	zero = row_of(0, ymin, ymax, py, ph);
	/* Axes: the y axis, the zero line, labels. */
	for (int y = py; y < py + ph; y++)
		canvas_set(cv, y, px - 1, canvas_glyph(cv, G_VLINE), R_AXIS);
	for (int x = px; x < px + pw; x++)
		canvas_set(cv, zero, x, canvas_glyph(cv, G_HLINE), R_AXIS);
	canvas_set(cv, zero, px - 1, canvas_glyph(cv, G_CROSS), R_AXIS);
	draw_right(cv, py, a.x, lab, R_AXIS, axis_pct(buf, sizeof(buf), ymax));
	if (zero != py && zero != py + ph - 1)
		draw_right(cv, zero, a.x, lab, R_AXIS, "0%");
	draw_right(cv, py + ph - 1, a.x, lab, R_AXIS, axis_pct(buf, sizeof(buf), ymin));
	/* x labels under the plot. */
	for (int q = 0; q <= 4; q++) {
		int x = px + (pw - 1) * q / 4;
		int len;

		snprintf(buf, sizeof(buf), "%d%%", 25 * q);
		len = (int) strlen(buf);
		if (q == 4)
			x -= len - 1;
		else if (q)
			x -= len / 2;
		if (pw >= 30 || q == 0 || q == 4)
			canvas_text(cv, py + ph, x, len, R_AXIS, buf);
	}
	/* The fit, y = impact x, dotted where nothing else is. */
	if (isfinite(r->impact))
		for (int c = 0; c < pw; c++) {
			double yv = r->impact * c / (pw - 1);
			int y = row_of(yv, ymin, ymax, py, ph);

			if (yv >= ymin && yv <= ymax && (free_cell(cv, y, px + c) || y == zero))
				canvas_set(cv, y, px + c, canvas_glyph(cv, G_DOT), R_DIM);
		}
	/* Each level: whisker, point, and its count under the axis. */
	canvas_text(cv, py + ph + 1, a.x, lab, R_DIM, "n");
	for (size_t k = 0; k < r->nlevels; k++) {
		const struct model_level *lv = &r->levels[k];
		int x = px + (int) lround((pw - 1) * lv->pct / 100.0);
		enum role role = interval_role(lv->valid, lv->lo, lv->hi);
		int len;

		if (lv->valid && isfinite(lv->lo) && isfinite(lv->hi)) {
			int top = row_of(lv->hi, ymin, ymax, py, ph);
			int bot = row_of(lv->lo, ymin, ymax, py, ph);

			for (int y = top; y <= bot; y++)
				canvas_set(cv, y, x, canvas_glyph(cv, G_VLINE), role);
			/* Ends: a tick, or an arrow where the range cut the whisker. */
			if (bot > top) {
				canvas_set(cv, top, x, canvas_glyph(cv, lv->hi > ymax ? G_UP : G_WHISKER_TOP),
					   role);
				canvas_set(cv, bot, x, canvas_glyph(cv, lv->lo < ymin ? G_DOWN :
								     G_WHISKER_BOT), role);
			}
		}
		if (isfinite(lv->est))
			canvas_set(cv, row_of(lv->est, ymin, ymax, py, ph), x,
				   lv->valid ? canvas_glyph(cv, G_POINT) : '?',
				   lv->valid ? (role == R_NEUTRAL ? R_NORMAL : role) : R_UNKNOWN);
		snprintf(buf, sizeof(buf), "%u", lv->n_exp);
		len = (int) strlen(buf);
		/* A count only where it does not run into its neighbour's. */
		if (free_cell(cv, py + ph + 1, x - 1) || x == px) {
			bool room = true;

			for (int i = 0; i < len + 1; i++)
				room = room && (x + i >= px + pw || free_cell(cv, py + ph + 1, x + i));
			if (room)
				canvas_text(cv, py + ph + 1, x, len, R_DIM, buf);
		}
	}
}

static void
source_pane(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	const struct model_detail *d = &m->detail;
	uint64_t max = 0;
	size_t first, center_i = 0;
	int rows = a.h - 1;

	canvas_fill(cv, a.y, a.x, a.w, ' ', R_HEADER);
	canvas_text(cv, a.y, a.x + 1, a.w - 1, R_HEADER, "Source");
	if (!d->valid)
		return;
	if (d->src_error || !d->nsrc) {
		draw_cut(cv, a.y + 1, a.x + 1, a.w - 2, R_DIM,
			 d->src_error ? d->src_error : "no source", false);
		return;
	}
	for (size_t i = 0; i < d->nsrc; i++) {
		if (d->src[i].samples > max)
			max = d->src[i].samples;
		if (d->src[i].line == d->center)
			center_i = i;
	}
	/* The line in the middle, moved by PgUp/PgDn. */
	{
		long f = (long) center_i - rows / 2 + v->src_scroll;
		long maxf = (long) d->nsrc - rows;

		if (maxf < 0)
			maxf = 0;
		if (f > maxf)
			f = maxf, v->src_scroll = (int) (f - (long) center_i + rows / 2);
		if (f < 0)
			f = 0, v->src_scroll = (int) (-(long) center_i + rows / 2);
		first = (size_t) f;
	}
	for (int i = 0; i < rows && first + (size_t) i < d->nsrc; i++) {
		const struct model_src_line *s = &d->src[first + (size_t) i];
		bool target = s->line == d->center;
		char num[16], cnt[24] = "";
		int x = a.x;

		snprintf(num, sizeof(num), "%5u", s->line);
		if (s->samples)
			fmt_count(cnt, sizeof(cnt), (double) s->samples);
		x += canvas_text(cv, a.y + 1 + i, x, 6, target ? R_MARK : R_DIM, num) + 1;
		draw_right(cv, a.y + 1 + i, x, 6, s->samples == max && max ? R_HOT : R_VALUE, cnt);
		x += 7;
		canvas_set(cv, a.y + 1 + i, x++, canvas_glyph(cv, G_VLINE), R_AXIS);
		x++;
		/* Tabs become spaces: the canvas shows no control characters. */
		{
			char line[512];
			size_t o = 0;

			for (const char *p = s->text; *p && o + 8 < sizeof(line); p++) {
				if (*p == '\t') {
					do
						line[o++] = ' ';
					while (o % 8);
				} else {
					line[o++] = *p;
				}
			}
			line[o] = '\0';
			draw_cut(cv, a.y + 1 + i, x, a.x + a.w - x, target ? R_SELECTED : R_NORMAL, line,
				 false);
		}
		if (target)
			canvas_paint(cv, a.y + 1 + i, x, a.x + a.w - x, R_SELECTED);
	}
}

static void
code_pane(struct canvas *cv, const struct model *m, struct area a)
{
	const struct model_detail *d = &m->detail;
	uint64_t total = 0, max = 0;
	char buf[64];
	int y = a.y + 1;
	size_t hot = 0, first = 0;

	for (size_t i = 0; i < d->ninsns; i++) {
		total += d->insns[i].samples;
		if (d->insns[i].samples > max) {
			max = d->insns[i].samples;
			hot = i;
		}
	}
	/* The hottest instruction in sight. */
	if (a.h > 1 && hot >= (size_t) (a.h - 1))
		first = hot - (size_t) (a.h - 1) / 2;
	canvas_fill(cv, a.y, a.x, a.w, ' ', R_HEADER);
	if (d->valid && d->ninsns)
		canvas_printf(cv, a.y, a.x + 1, a.w - 1, R_HEADER, "Code  %zu instructions, %llu samples",
			      d->ninsns, (unsigned long long) total);
	else
		canvas_text(cv, a.y, a.x + 1, a.w - 1, R_HEADER, "Code");
	if (!d->valid)
		return;
	if (!d->ninsns) {
		draw_cut(cv, y, a.x + 1, a.w - 2, R_DIM, d->asm_error ? d->asm_error : "no code", false);
		return;
	}
	for (size_t i = first; i < d->ninsns && y < a.y + a.h; i++, y++) {
		const struct model_insn *in = &d->insns[i];
		int x = a.x;

		if (in->samples)
			draw_right(cv, y, x, 6, in->samples == max ? R_HOT : R_VALUE,
				   fmt_count(buf, sizeof(buf), (double) in->samples));
		x += 7;
		/* The low digits tell the instructions apart; jumps name whole addresses. */
		snprintf(buf, sizeof(buf), "%06llx", (unsigned long long) (in->addr & 0xffffff));
		x += canvas_text(cv, y, x, a.x + a.w - x, R_DIM, buf) + 2;
		draw_cut(cv, y, x, a.x + a.w - x, in->in_target ? R_NORMAL : R_DIM, in->text, false);
	}
	if (y == a.y + a.h && d->ninsns > first + (size_t) (a.h - 1))
		canvas_set(cv, a.y + a.h - 1, a.x + a.w - 1, canvas_glyph(cv, G_DOWN), R_DIM);
}

static void
title(struct canvas *cv, const struct model_row *r, bool by_func, struct area a)
{
	char loc[256], b1[32], b2[32], b3[32], text[256];
	int x = a.x + 1;

	(void) by_func;
	x += draw_cut(cv, a.y, x, a.w / 2, R_TITLE, row_location(r, loc, sizeof(loc)), true) + 1;
	if (!r->is_func && r->func)
		x += draw_cut(cv, a.y, x, a.w / 4, R_DIM, r->func, false) + 2;
	if (!r->rank) {
		canvas_text(cv, a.y, x, a.x + a.w - x, R_DIM, "no experiment yet");
		return;
	}
	x += draw_cut(cv, a.y, x, a.x + a.w - x, verdict_role(r->verdict),
		      model_verdict_name(r->verdict), false) + 2;
	snprintf(text, sizeof(text), "impact %s [%s, %s]  slope ", fmt_pct(b1, sizeof(b1), r->impact),
		 fmt_pct(b2, sizeof(b2), r->impact_lo), fmt_pct(b3, sizeof(b3), r->impact_hi));
	if (r->slope_valid)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%+.2f [%+.2f, %+.2f]",
			 r->slope, r->slope_lo, r->slope_hi);
	else
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "-");
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "  %u experiments", r->n_exp);
	draw_cut(cv, a.y, x, a.x + a.w - x, R_VALUE, text, false);
}

void
draw_curve(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	const struct model_row *r = view_row(v, m);
	struct area p, s, c;
	int body = a.h - 1;

	if (!r) {
		draw_cut(cv, a.y, 1, a.w - 2, R_DIM, "No line selected: Esc goes back.", false);
		return;
	}
	title(cv, r, m->by_function, a);
	if (body <= 0)
		return;
	if (a.w >= 120) {
		/* Plot left; source over code on the right. */
		p = (struct area) { a.y + 1, a.x, body, a.w / 2 - 1 };
		s = (struct area) { a.y + 1, a.x + a.w / 2, (body + 1) / 2, a.w - a.w / 2 };
		c = (struct area) { s.y + s.h, s.x, body - s.h, s.w };
	} else if (body >= 14) {
		/* Plot on top; source and code side by side under it. */
		int ph = body * 11 / 20;

		p = (struct area) { a.y + 1, a.x, ph, a.w };
		s = (struct area) { a.y + 1 + ph, a.x, body - ph, a.w / 2 };
		c = (struct area) { s.y, a.x + a.w / 2 + 1, body - ph, a.w - a.w / 2 - 1 };
	} else {
		p = (struct area) { a.y + 1, a.x, body, a.w };
		s = c = (struct area) { 0, 0, 0, 0 };
	}
	plot(cv, r, p);
	if (s.h >= 2 && s.w >= 20)
		source_pane(cv, m, v, s);
	if (c.h >= 2 && c.w >= 20)
		code_pane(cv, m, c);
}
