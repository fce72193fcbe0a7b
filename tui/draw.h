/*
 * The screens, drawn from a model and a view into a canvas.  draw.c
 * lays out the frame (header meters, status line, function bar) and
 * calls the screen's own drawing: draw_lines.c, draw_curve.c,
 * draw_lists.c (progress points, threads, log, help).
 */
#ifndef CT_TUI_DRAW_H
# define CT_TUI_DRAW_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include "canvas.h"
# include "model/model.h"
# include "view.h"

/* The whole frame: what the terminal shows. */
void draw_frame(struct canvas *, const struct model *, struct view *, uint64_t now);

/* ---- for the screens ---- */

/* The area a screen draws in. */
struct area {
	int y, x, h, w;
};

void draw_lines(struct canvas *, const struct model *, struct view *, struct area);
void draw_curve(struct canvas *, const struct model *, struct view *, struct area);
void draw_points(struct canvas *, const struct model *, struct view *, struct area);
void draw_threads(struct canvas *, const struct model *, struct view *, struct area);
void draw_log(struct canvas *, const struct model *, struct view *, struct area);
void draw_help(struct canvas *, const struct model *, struct view *, struct area);

/* Helpers shared by the screens. */
enum role verdict_role(enum model_verdict);
/* The role of an interval: above 0, below 0, across it. */
enum role interval_role(bool valid, double lo, double hi);
/* "file.c:12", or a function's name, into buf. */
const char *row_location(const struct model_row *, char *buf, size_t size);
/* Text cut to w columns with an ellipsis at its end (or start: keep_tail). */
int draw_cut(struct canvas *, int y, int x, int w, enum role, const char *s, bool keep_tail);
/* Right-aligned in w columns. */
void draw_right(struct canvas *, int y, int x, int w, enum role, const char *s);
/* A sparkline of n values in w cells (the last w values), scaled to their maximum. */
void draw_spark(struct canvas *, int y, int x, int w, const float *v, unsigned n, enum role);
/* "+12.3%" of a fraction, fewer decimals when large. */
const char *fmt_pct(char *buf, size_t size, double frac);
/* "1:02:03", "4:05", "12.3 s" */
const char *fmt_dur(char *buf, size_t size, uint64_t ns);
/* 1234567 as "1.23M" */
const char *fmt_count(char *buf, size_t size, double v);

#endif
