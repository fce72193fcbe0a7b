#include "config.h"
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "model/model.h"
#include "view.h"

const struct levels_preset levels_presets[] = {
	{ "all", 0, 100 },
	{ "low 5-30%", 5, 30 },
	{ "middle 30-70%", 30, 70 },
	{ "high 70-100%", 70, 100 },
};
const size_t n_levels_presets = sizeof(levels_presets) / sizeof(levels_presets[0]);

static const char *const sort_names[SORT_COUNT] = {
	[SORT_IMPACT] = "impact",
	[SORT_SAMPLES] = "samples",
	[SORT_EXPS] = "experiments",
	[SORT_AT50] = "speedup at 50%",
	[SORT_SLOPE] = "slope",
	[SORT_NAME] = "location",
};

/* Wheel and page steps. */
#define WHEEL_STEP 3

const char *
sort_name(enum sort_key k)
{
	return k < SORT_COUNT ? sort_names[k] : "?";
}

void
view_init(struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->list_h = 10;
	v->prev = SCR_LINES;
}

void
view_free(struct view *v)
{
	free(v->order);
	v->order = NULL;
}

void
view_status(struct view *v, bool error, uint64_t now, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->status, sizeof(v->status), fmt, ap);
	va_end(ap);
	v->status_error = error;
	v->status_ns = now;
}

const char *
view_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* Case-insensitive substring (ASCII folding; other bytes match themselves). */
static bool
contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return true;
	if (!hay)
		return false;
	for (; *hay; hay++) {
		size_t i = 0;

		while (i < n && hay[i] &&
		       tolower((unsigned char) hay[i]) == tolower((unsigned char) needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

static bool
row_matches(const struct model_row *r, const char *text)
{
	char loc[32];

	if (!*text)
		return true;
	snprintf(loc, sizeof(loc), ":%u", r->line);
	if (contains(r->func, text) || contains(r->file, text))
		return true;
	/* "file.c:12" as shown. */
	if (r->file) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s%s", view_base_name(r->file), loc);
		return contains(buf, text);
	}
	return false;
}

/* qsort has no context argument: the arrangement in progress. */
static const struct model *sort_model;
static enum sort_key sort_by;

static int
cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int
cmp_valid_desc(bool va, double a, bool vb, double b)
{
	if (va != vb)
		return va ? -1 : 1;
	if (!va || a == b)
		return 0;
	return a > b ? -1 : 1;
}

static int
cmp_name(const struct model_row *a, const struct model_row *b)
{
	int c;

	if (a->file && b->file) {
		c = strcmp(view_base_name(a->file), view_base_name(b->file));
		if (c)
			return c;
		c = strcmp(a->file, b->file);
		if (c)
			return c;
		return a->line < b->line ? -1 : a->line > b->line;
	}
	return strcmp(a->func ? a->func : "", b->func ? b->func : "");
}

static int
cmp_rows(const void *pa, const void *pb)
{
	const struct model_row *a = &sort_model->rows[*(const size_t *) pa];
	const struct model_row *b = &sort_model->rows[*(const size_t *) pb];
	int c = 0;

	switch (sort_by) {
	case SORT_IMPACT:
		/* Ranked rows first, in rank order; the others by samples. */
		if (!!a->rank != !!b->rank)
			return a->rank ? -1 : 1;
		if (a->rank != b->rank)
			return a->rank < b->rank ? -1 : 1;
		break;
	case SORT_SAMPLES:
		break;
	case SORT_EXPS:
		c = a->n_exp > b->n_exp ? -1 : a->n_exp < b->n_exp;
		break;
	case SORT_AT50:
		c = cmp_valid_desc(a->at50.valid, a->at50.est, b->at50.valid, b->at50.est);
		break;
	case SORT_SLOPE:
		c = cmp_valid_desc(a->slope_valid, a->slope, b->slope_valid, b->slope);
		break;
	case SORT_NAME:
		c = cmp_name(a, b);
		break;
	case SORT_COUNT:
		break;
	}
	if (c)
		return c;
	c = cmp_u64_desc(a->samples, b->samples);
	if (c)
		return c;
	return a->target < b->target ? -1 : a->target > b->target;
}

static void
clamp_list(size_t *sel, size_t *top, size_t n, int h)
{
	size_t page = h > 0 ? (size_t) h : 1;

	if (*sel >= n)
		*sel = n ? n - 1 : 0;
	if (*top > *sel)
		*top = *sel;
	if (*sel >= *top + page)
		*top = *sel - page + 1;
	if (*top + page > n)
		*top = n > page ? n - page : 0;
}

void
view_arrange(struct view *v, const struct model *m)
{
	if (m->nrows > v->order_cap)
		v->order = xgrowarray(v->order, &v->order_cap, m->nrows, sizeof(*v->order));
	v->norder = 0;
	for (size_t i = 0; i < m->nrows; i++)
		if (row_matches(&m->rows[i], v->filter))
			v->order[v->norder++] = i;
	sort_model = m;
	sort_by = v->sort;
	if (v->norder)
		qsort(v->order, v->norder, sizeof(*v->order), cmp_rows);
	if (v->reverse)
		for (size_t i = 0; i < v->norder / 2; i++) {
			size_t t = v->order[i];

			v->order[i] = v->order[v->norder - 1 - i];
			v->order[v->norder - 1 - i] = t;
		}
	/*
	 * A row the user chose is followed wherever the order moves it; until
	 * then the selection keeps its place (the top: the best line).
	 */
	if (v->have_sel && v->follow) {
		for (size_t i = 0; i < v->norder; i++) {
			const struct model_row *r = &m->rows[v->order[i]];

			if (r->target == v->sel_target && r->is_func == v->sel_is_func) {
				v->sel = i;
				break;
			}
		}
	}
	clamp_list(&v->sel, &v->top, v->norder, v->list_h);
	if (v->norder) {
		const struct model_row *r = &m->rows[v->order[v->sel]];

		v->have_sel = true;
		v->sel_target = r->target;
		v->sel_is_func = r->is_func;
	}
	clamp_list(&v->pt_sel, &v->pt_top, m->npoints, v->list_h);
	clamp_list(&v->th_sel, &v->th_top, m->nthreads, v->list_h);
	if (v->log_back > m->nlog)
		v->log_back = m->nlog;
}

const struct model_row *
view_row(const struct view *v, const struct model *m)
{
	if (!v->norder || v->sel >= v->norder || v->order[v->sel] >= m->nrows)
		return NULL;
	return &m->rows[v->order[v->sel]];
}

static void
select_pos(struct view *v, const struct model *m, size_t pos)
{
	v->follow = true;
	v->sel = pos;
	clamp_list(&v->sel, &v->top, v->norder, v->list_h);
	if (v->norder) {
		const struct model_row *r = &m->rows[v->order[v->sel]];

		v->have_sel = true;
		v->sel_target = r->target;
		v->sel_is_func = r->is_func;
	}
	v->src_scroll = 0;
}

/* Move a list selection by delta (clamped). */
static size_t
moved(size_t sel, long delta, size_t n)
{
	long s = (long) sel + delta;

	if (!n || s < 0)
		return 0;
	return (size_t) s >= n ? n - 1 : (size_t) s;
}

/* The first row matching the search from pos on (wrapping), if any. */
static void
search_from(struct view *v, const struct model *m, size_t pos)
{
	for (size_t k = 0; k < v->norder; k++) {
		size_t i = (pos + k) % v->norder;

		if (row_matches(&m->rows[v->order[i]], v->search)) {
			select_pos(v, m, i);
			return;
		}
	}
}

static void
text_edit(char *text, const struct key *k)
{
	size_t n = strlen(text);

	if (k->key == K_BACKSPACE) {
		/* Back over one UTF-8 character. */
		while (n > 0 && ((unsigned char) text[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
		text[n] = '\0';
		return;
	}
	if (k->key < 0x20 || k->key >= K_SPECIAL || k->key == 0x7f)
		return;
	{
		char u[5];
		int c = k->key;
		size_t len;

		if (c < 0x80)
			u[0] = (char) c, len = 1;
		else if (c < 0x800)
			u[0] = (char) (0xc0 | c >> 6), u[1] = (char) (0x80 | (c & 0x3f)), len = 2;
		else if (c < 0x10000)
			u[0] = (char) (0xe0 | c >> 12), u[1] = (char) (0x80 | (c >> 6 & 0x3f)),
			u[2] = (char) (0x80 | (c & 0x3f)), len = 3;
		else
			u[0] = (char) (0xf0 | c >> 18), u[1] = (char) (0x80 | (c >> 12 & 0x3f)),
			u[2] = (char) (0x80 | (c >> 6 & 0x3f)), u[3] = (char) (0x80 | (c & 0x3f)),
			len = 4;
		if (n + len < VIEW_TEXT) {
			memcpy(text + n, u, len);
			text[n + len] = '\0';
		}
	}
}

/* Keys while a prompt is open: everything goes to it. */
static void
prompt_key(struct view *v, const struct model *m, const struct key *k)
{
	char *text = v->prompt == PROMPT_SEARCH ? v->search : v->filter;

	switch (k->key) {
	case K_ENTER:
		v->prompt = PROMPT_NONE;
		return;
	case K_ESC:
		/* Esc drops a filter (htop's way); a search leaves the selection. */
		if (v->prompt == PROMPT_FILTER)
			v->filter[0] = '\0';
		v->prompt = PROMPT_NONE;
		view_arrange(v, m);
		return;
	case K_F(3):
		if (v->prompt == PROMPT_SEARCH)
			search_from(v, m, v->sel + 1);
		return;
	case K_UP:
	case K_DOWN:
		v->prompt = PROMPT_NONE;
		select_pos(v, m, moved(v->sel, k->key == K_UP ? -1 : 1, v->norder));
		return;
	}
	text_edit(text, k);
	if (v->prompt == PROMPT_SEARCH)
		search_from(v, m, v->sel);
	else
		view_arrange(v, m);
}

static void
go(struct view *v, enum screen s)
{
	if (s == v->screen)
		return;
	if (s == SCR_HELP || s == SCR_CURVE)
		v->prev = v->screen;
	v->screen = s;
	v->help_top = 0;
	v->src_scroll = 0;
}

/* The screens Tab cycles through. */
static const enum screen tab_order[] = { SCR_LINES, SCR_POINTS, SCR_THREADS, SCR_LOG };

static void
tab(struct view *v, int dir)
{
	size_t n = sizeof(tab_order) / sizeof(tab_order[0]), i = 0;

	for (size_t k = 0; k < n; k++)
		if (tab_order[k] == (v->screen == SCR_CURVE || v->screen == SCR_HELP ?
				     v->prev : v->screen))
			i = k;
	v->screen = tab_order[(i + n + (size_t) (dir > 0 ? 1 : n - 1)) % n];
}

static bool
on_row_screen(const struct view *v)
{
	return v->screen == SCR_LINES || v->screen == SCR_CURVE;
}

/* A steering command on the selected row. */
static void
row_cmd(struct view *v, const struct model *m, enum cmd_kind kind, struct view_cmd *cmd,
	uint64_t now)
{
	const struct model_row *r = view_row(v, m);

	if (!on_row_screen(v)) {
		view_status(v, true, now, "select a line in the Lines screen first (key 1)");
		return;
	}
	if (!r) {
		view_status(v, true, now, "no line selected");
		return;
	}
	if (kind == CMD_EXCLUDE_FILE && !r->file) {
		view_status(v, true, now, "a function has no file to exclude");
		return;
	}
	cmd->kind = kind;
	cmd->target = r->target;
	cmd->is_func = r->is_func;
}

static void
sort_step(struct view *v, int dir)
{
	v->sort = (enum sort_key) (((int) v->sort + SORT_COUNT + dir) % SORT_COUNT);
	v->reverse = false;
}

static void
list_move(struct view *v, const struct model *m, long delta, bool absolute)
{
	switch (v->screen) {
	case SCR_LINES:
	case SCR_CURVE:
		select_pos(v, m, absolute ? moved(0, delta, v->norder) : moved(v->sel, delta, v->norder));
		break;
	case SCR_POINTS:
		v->pt_sel = absolute ? moved(0, delta, m->npoints) : moved(v->pt_sel, delta, m->npoints);
		clamp_list(&v->pt_sel, &v->pt_top, m->npoints, v->list_h);
		break;
	case SCR_THREADS:
		v->th_sel = absolute ? moved(0, delta, m->nthreads) : moved(v->th_sel, delta, m->nthreads);
		clamp_list(&v->th_sel, &v->th_top, m->nthreads, v->list_h);
		break;
	case SCR_LOG:
		/* Up scrolls back in time. */
		if (absolute)
			v->log_back = delta < 0 ? 0 : m->nlog;
		else
			v->log_back = moved(v->log_back, -delta, m->nlog + 1);
		break;
	case SCR_HELP:
		v->help_top = moved(v->help_top, delta, 200);
		break;
	case SCR_COUNT:
		break;
	}
}

/* A mouse press becomes a key, or a selection. */
static bool
mouse(struct view *v, const struct model *m, const struct key *k, struct key *synth)
{
	int y = k->y, x = k->x;

	synth->key = K_NONE;
	if (k->button == M_WHEEL_UP || k->button == M_WHEEL_DOWN) {
		if (v->screen == SCR_CURVE)
			v->src_scroll += k->button == M_WHEEL_UP ? -WHEEL_STEP : WHEEL_STEP;
		else
			list_move(v, m, k->button == M_WHEEL_UP ? -WHEEL_STEP : WHEEL_STEP, false);
		return false;
	}
	if (k->button != M_LEFT)
		return false;
	if (y == v->rows - 1) {
		/* The function bar: ten slots of eight columns, F10 last. */
		int slot = x / 8;

		synth->key = K_F(slot < 9 ? slot + 1 : 10);
		return true;
	}
	if (v->screen == SCR_LINES && y == v->colhdr_y) {
		for (int i = 0; i < v->ncols; i++)
			if (x >= v->colx[i].x && x < v->colx[i].x + v->colx[i].w &&
			    v->colx[i].sort != SORT_COUNT) {
				if (v->sort == v->colx[i].sort)
					v->reverse = !v->reverse;
				else
					v->sort = v->colx[i].sort, v->reverse = false;
				view_arrange(v, m);
			}
		return false;
	}
	if (y < v->list_y || y >= v->list_y + v->list_h)
		return false;
	switch (v->screen) {
	case SCR_LINES: {
		size_t pos = v->top + (size_t) (y - v->list_y);

		if (pos >= v->norder)
			return false;
		if (pos == v->sel) {
			synth->key = K_ENTER;	/* a second click opens it */
			return true;
		}
		select_pos(v, m, pos);
		return false;
	}
	case SCR_POINTS:
		if (v->pt_top + (size_t) (y - v->list_y) < m->npoints)
			v->pt_sel = v->pt_top + (size_t) (y - v->list_y);
		return false;
	case SCR_THREADS:
		if (v->th_top + (size_t) (y - v->list_y) < m->nthreads)
			v->th_sel = v->th_top + (size_t) (y - v->list_y);
		return false;
	default:
		return false;
	}
}

void
view_key(struct view *v, const struct model *m, const struct key *key, struct view_cmd *cmd)
{
	struct key synth;
	const struct key *k = key;
	uint64_t now = v->now;
	size_t page = v->list_h > 1 ? (size_t) v->list_h - 1 : 1;

	memset(cmd, 0, sizeof(*cmd));
	if (k->key == K_MOUSE) {
		if (!mouse(v, m, k, &synth))
			return;
		k = &synth;
	}
	if (v->prompt != PROMPT_NONE) {
		prompt_key(v, m, k);
		return;
	}
	switch (k->key) {
	case K_F(10):
	case 'q':
		cmd->kind = CMD_QUIT;
		v->quit = true;
		return;
	case K_F(1):
	case 'h':
	case '?':
		if (v->screen == SCR_HELP)
			v->screen = v->prev;
		else
			go(v, SCR_HELP);
		return;
	case K_CTRL_L:
		v->redraw = true;
		return;
	case K_ESC:
	case K_BACKSPACE:
		if (v->screen == SCR_CURVE || v->screen == SCR_HELP)
			v->screen = v->prev == SCR_CURVE || v->prev == SCR_HELP ? SCR_LINES : v->prev;
		else if (v->screen != SCR_LINES)
			v->screen = SCR_LINES;
		else if (v->filter[0]) {
			v->filter[0] = '\0';
			view_arrange(v, m);
		}
		return;
	case K_TAB:
		tab(v, 1);
		return;
	case K_BTAB:
		tab(v, -1);
		return;
	case '1':
	case '2':
	case '3':
	case '4':
		v->screen = tab_order[k->key - '1'];
		return;
	case K_UP:
	case 'k':
		list_move(v, m, -1, false);
		return;
	case K_DOWN:
	case 'j':
		list_move(v, m, 1, false);
		return;
	case K_PGUP:
		if (v->screen == SCR_CURVE)
			v->src_scroll -= (int) page;
		else
			list_move(v, m, -(long) page, false);
		return;
	case K_PGDN:
		if (v->screen == SCR_CURVE)
			v->src_scroll += (int) page;
		else
			list_move(v, m, (long) page, false);
		return;
	case K_HOME:
		list_move(v, m, -1, true);
		/* The first row, whichever it will be: the top is kept, not the line. */
		v->follow = false;
		return;
	case K_END:
		list_move(v, m, 1L << 30, true);
		return;
	case K_ENTER:
		if (v->screen == SCR_LINES && view_row(v, m))
			go(v, SCR_CURVE);
		else if (v->screen == SCR_POINTS && v->pt_sel < m->npoints) {
			v->point = (unsigned) v->pt_sel;
			v->screen = SCR_LINES;
			view_status(v, false, now, "curves for progress point \"%s\"",
				    m->points[v->pt_sel].name);
		}
		return;
	case K_F(3):
	case '/':
		if (v->screen != SCR_LINES && v->screen != SCR_CURVE)
			v->screen = SCR_LINES;
		if (v->screen == SCR_CURVE)
			v->screen = SCR_LINES;
		v->prompt = PROMPT_SEARCH;
		v->search[0] = '\0';
		return;
	case K_F(4):
	case '\\':
		if (v->screen != SCR_LINES)
			v->screen = SCR_LINES;
		v->prompt = PROMPT_FILTER;
		return;
	case K_F(6):
	case '>':
	case '.':
		sort_step(v, 1);
		view_arrange(v, m);
		view_status(v, false, now, "sorted by %s", sort_name(v->sort));
		return;
	case '<':
	case ',':
		sort_step(v, -1);
		view_arrange(v, m);
		view_status(v, false, now, "sorted by %s", sort_name(v->sort));
		return;
	case 'I':
		v->reverse = !v->reverse;
		view_arrange(v, m);
		return;
	case K_F(2):
	case 'p':
		row_cmd(v, m, CMD_PIN, cmd, now);
		return;
	case K_F(8):
	case 'x':
		row_cmd(v, m, CMD_EXCLUDE, cmd, now);
		return;
	case 'X':
		row_cmd(v, m, CMD_EXCLUDE_FILE, cmd, now);
		return;
	case 'R':
		row_cmd(v, m, CMD_RESET, cmd, now);
		return;
	case K_F(5):
	case ' ':
		cmd->kind = CMD_PAUSE;
		cmd->on = !m->paused;
		return;
	case K_F(7):
	case 'l':
		v->levels_preset = (v->levels_preset + 1) % n_levels_presets;
		cmd->kind = CMD_LEVELS;
		cmd->lo = levels_presets[v->levels_preset].lo;
		cmd->hi = levels_presets[v->levels_preset].hi;
		return;
	case 'g':
		cmd->kind = CMD_GRANULARITY;
		cmd->on = !m->by_function;
		/* Lines and functions have ids of their own: the selection goes. */
		v->have_sel = false;
		v->follow = false;
		v->sel = v->top = 0;
		if (v->screen == SCR_CURVE)
			v->screen = SCR_LINES;
		return;
	case K_F(9):
	case 'w':
		cmd->kind = CMD_SAVE;
		return;
	}
}
