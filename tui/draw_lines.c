/*
 * The lines screen: one row per line (or function), htop's process list.
 * Columns shrink with the terminal: below 110 columns the intervals are
 * shorter and the inline curve narrower.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "draw.h"

struct layout {
	bool wide;
	int mark, rank, loc, func, samp, exp, at50, impact, verdict, curve;
};

static void
layout_for(int w, struct layout *l)
{
	int fixed;

	l->wide = w >= 110;
	l->mark = 2;
	l->rank = 3;
	l->samp = 6;
	l->exp = 4;
	l->at50 = l->wide ? 12 : 9;
	l->impact = l->wide ? 12 : 7;
	l->verdict = 10;
	l->curve = l->wide ? 12 : 6;
	/* Every column but loc and func, with one space after each. */
	fixed = l->mark + l->rank + 1 + l->samp + 1 + l->exp + 1 + l->at50 + 1 + l->impact + 1 +
		l->verdict + 1 + l->curve;
	l->loc = (w - fixed - 2) * 3 / 5;
	l->func = w - fixed - 2 - l->loc;
	if (l->loc < 8 || l->func < 4) {
		/* Very narrow: the curve and the impact go first. */
		l->curve = 0;
		l->impact = 0;
		fixed = l->mark + l->rank + 1 + l->samp + 1 + l->exp + 1 + l->at50 + 1 + l->verdict;
		l->loc = (w - fixed - 2) * 3 / 5;
		l->func = w - fixed - 2 - l->loc;
		if (l->loc < 4)
			l->loc = 4;
		if (l->func < 0)
			l->func = 0;
	}
}

static int
col(struct view *v, struct canvas *cv, int y, int x, int w, const char *name,
    enum sort_key key, bool right)
{
	enum role r = key != SORT_COUNT && key == v->sort ? R_SORTED : R_HEADER;

	if (w <= 0)
		return x;
	if (right)
		draw_right(cv, y, x, w, r, name);
	else
		draw_cut(cv, y, x, w, r, name, false);
	canvas_paint(cv, y, x, w, r);
	if (v->ncols < (int) (sizeof(v->colx) / sizeof(v->colx[0])))
		v->colx[v->ncols++] = (struct view_col) { .x = x, .w = w + 1, .sort = key };
	return x + w + 1;
}

static void
column_header(struct canvas *cv, struct view *v, const struct layout *l, int y, int w,
	      bool by_func)
{
	int x = l->mark;

	canvas_fill(cv, y, 0, w, ' ', R_HEADER);
	x = col(v, cv, y, x, l->rank, "#", SORT_IMPACT, true);
	x = col(v, cv, y, x, l->loc, by_func ? "FUNCTION" : "LOCATION", SORT_NAME, false);
	x = col(v, cv, y, x, l->func, by_func ? "MODULE" : "FUNCTION", SORT_COUNT, false);
	x = col(v, cv, y, x, l->samp, "SAMP%", SORT_SAMPLES, true);
	x = col(v, cv, y, x, l->exp, "EXP", SORT_EXPS, true);
	x = col(v, cv, y, x, l->at50, "@50%", SORT_AT50, true);
	x = col(v, cv, y, x, l->impact, "IMPACT", SORT_IMPACT, true);
	x = col(v, cv, y, x, l->verdict, "VERDICT", SORT_IMPACT, false);
	col(v, cv, y, x, l->curve, "CURVE", SORT_COUNT, false);
	/* The sort direction, beside the sorted column's name. */
	for (int i = 0; i < v->ncols; i++)
		if (v->colx[i].sort == v->sort && v->colx[i].sort != SORT_COUNT) {
			canvas_set(cv, y, v->colx[i].x + v->colx[i].w - 1,
				   canvas_glyph(cv, v->reverse ? G_UP : G_DOWN), R_SORTED);
			break;
		}
}

/* "+19.2%±4.1" (wide) or "+19%±4" */
static void
level_cell(char *buf, size_t size, const struct model_level *lv, bool wide, bool unicode)
{
	double est = 100 * lv->est, half = 100 * (lv->hi - lv->lo) / 2;
	const char *pm = unicode ? "\u00b1" : "~";

	if (!lv->valid || !isfinite(est) || !isfinite(half)) {
		snprintf(buf, size, "-");
		return;
	}
	if (est > 999)
		est = 999;
	if (est < -999)
		est = -999;
	if (half > 999)
		half = 999;
	if (wide)
		snprintf(buf, size, "%+.1f%%%s%.1f", est, pm, half);
	else
		snprintf(buf, size, "%+.0f%%%s%.0f", est, pm, half);
}

/*
 * What the verdict rests on: the program speedup at 100% fitted over every
 * level, as the level cells print theirs.
 */
static void
impact_cell(char *buf, size_t size, const struct model_row *r, bool wide, bool unicode)
{
	struct model_level lv = {
		.valid = isfinite(r->impact_lo) && isfinite(r->impact_hi),
		.est = r->impact, .lo = r->impact_lo, .hi = r->impact_hi,
	};

	level_cell(buf, size, &lv, wide, unicode);
}

static const char *
verdict_short(enum model_verdict v)
{
	return v == MODEL_NOT_ENOUGH ? "not enough" : model_verdict_name(v);
}

/*
 * The inline curve: w cells over 0-100% line speedup, each the estimate
 * of the best-measured valid level in its range, scaled to the row's
 * largest estimate so that the shape shows (linear, a knee, flat).
 */
static void
inline_curve(struct canvas *cv, int y, int x, int w, const struct model_row *r, enum role role)
{
	double max = 0.01;

	for (size_t k = 0; k < r->nlevels; k++)
		if (r->levels[k].valid && fabs(r->levels[k].est) > max)
			max = fabs(r->levels[k].est);
	for (int i = 0; i < w; i++) {
		unsigned lo = (unsigned) (100 * i / w), hi = (unsigned) (100 * (i + 1) / w);
		const struct model_level *best = NULL;

		for (size_t k = 0; k < r->nlevels; k++) {
			const struct model_level *lv = &r->levels[k];

			if (lv->valid && lv->pct > lo && lv->pct <= hi && isfinite(lv->est) &&
			    (!best || lv->n_exp > best->n_exp))
				best = lv;
		}
		if (!best) {
			canvas_set(cv, y, x + i, canvas_glyph(cv, G_DOT), R_DIM);
			continue;
		}
		canvas_set(cv, y, x + i, canvas_bar(cv, (unsigned) lrint(7 * fabs(best->est) / max)),
			   best->est < 0 ? R_NEGATIVE : role);
	}
}

static void
row_line(struct canvas *cv, const struct model *m, const struct model_row *r,
	 const struct layout *l, int y, int w, bool selected)
{
	char buf[512];
	int x = 0;
	enum role vr = verdict_role(r->verdict);
	bool excl = r->flags & (MODEL_ROW_EXCLUDED | MODEL_ROW_FILE_EXCL);

	if (r->flags & MODEL_ROW_CURRENT)
		canvas_set(cv, y, 0, canvas_glyph(cv, G_ARROW), R_MARK);
	if (r->flags & MODEL_ROW_PINNED)
		canvas_set(cv, y, 1, 'P', R_MARK);
	else if (excl)
		canvas_set(cv, y, 1, 'x', R_EXCLUDED);
	x = l->mark;
	if (r->rank)
		snprintf(buf, sizeof(buf), "%u", r->rank);
	else
		snprintf(buf, sizeof(buf), "-");
	draw_right(cv, y, x, l->rank, R_DIM, buf);
	x += l->rank + 1;
	if (r->is_func || !r->file)
		draw_cut(cv, y, x, l->loc, excl ? R_EXCLUDED : R_NORMAL, r->func ? r->func : "?", false);
	else
		draw_cut(cv, y, x, l->loc, excl ? R_EXCLUDED : R_NORMAL,
			 row_location(r, buf, sizeof(buf)), true);
	x += l->loc + 1;
	if (r->is_func)
		draw_cut(cv, y, x, l->func, R_DIM, r->dso ? view_base_name(r->dso) : "?", true);
	else
		draw_cut(cv, y, x, l->func, R_DIM, r->func ? r->func : "?", false);
	x += l->func + 1;
	snprintf(buf, sizeof(buf), "%.1f%%", r->samples_pct);
	draw_right(cv, y, x, l->samp, R_NORMAL, buf);
	x += l->samp + 1;
	snprintf(buf, sizeof(buf), "%u", r->n_exp);
	draw_right(cv, y, x, l->exp, r->n_exp ? R_NORMAL : R_DIM, buf);
	x += l->exp + 1;
	level_cell(buf, sizeof(buf), &r->at50, l->wide, cv->unicode);
	draw_right(cv, y, x, l->at50,
		   interval_role(r->at50.valid, r->at50.lo, r->at50.hi), buf);
	x += l->at50 + 1;
	if (l->impact) {
		impact_cell(buf, sizeof(buf), r, l->wide, cv->unicode);
		draw_right(cv, y, x, l->impact,
			   interval_role(isfinite(r->impact_lo), r->impact_lo, r->impact_hi), buf);
		x += l->impact + 1;
	}
	draw_cut(cv, y, x, l->verdict, vr, r->rank ? verdict_short(r->verdict) : "", false);
	x += l->verdict + 1;
	if (l->curve && r->nlevels)
		inline_curve(cv, y, x, l->curve, r, vr == R_UNKNOWN ? R_DIM : vr);
	if (selected)
		canvas_paint(cv, y, 0, w, R_SELECTED);
	(void) m;
}

void
draw_lines(struct canvas *cv, const struct model *m, struct view *v, struct area a)
{
	struct layout l;
	int y;

	layout_for(a.w, &l);
	column_header(cv, v, &l, a.y, a.w, m->by_function);
	v->colhdr_y = a.y;
	v->list_y = a.y + 1;
	v->list_h = a.h - 1;
	if (v->list_h <= 0)
		return;
	/* Keep the selection in sight with this frame's height. */
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + (size_t) v->list_h)
		v->top = v->sel - (size_t) v->list_h + 1;
	if (!v->norder) {
		const char *msg = m->nrows ? "No line matches the filter." :
				  m->samples ? "No sample in scope yet (see -b and -s in the help)." :
				  "Waiting for samples...";

		draw_cut(cv, v->list_y + v->list_h / 2, 2, a.w - 4, R_DIM, msg, false);
		return;
	}
	y = v->list_y;
	for (size_t i = v->top; i < v->norder && y < v->list_y + v->list_h; i++, y++)
		row_line(cv, m, &m->rows[v->order[i]], &l, y, a.w, i == v->sel);
}
