/*
 * The drawing surface: a grid of cells, each a character and a role (what
 * it means: positive, contention, selected...).  Screens draw into a
 * canvas only; two backends show one: term.c through curses, mapping
 * roles to colours or to monochrome attributes, and canvas_dump() as
 * plain text, for the snapshot tests.  No curses here.
 */
#ifndef CT_TUI_CANVAS_H
# define CT_TUI_CANVAS_H

# include <stdbool.h>
# include <stdint.h>
# include <stdio.h>

enum role {
	R_NORMAL,
	R_DIM,		/* secondary text, not significant */
	R_TITLE,	/* screen titles, meter labels */
	R_VALUE,	/* meter values */
	R_HEADER,	/* column header bar */
	R_SORTED,	/* the column sorted by */
	R_SELECTED,	/* the selection bar */
	R_FKEY,		/* function bar: key */
	R_FLABEL,	/* function bar: label */
	R_POSITIVE,	/* speeding it up helps: optimize */
	R_NEGATIVE,	/* contention */
	R_NEUTRAL,	/* no effect */
	R_UNKNOWN,	/* not enough data */
	R_WARN,		/* warnings, the log's stderr lines */
	R_MARK,		/* pinned, the experiment under way */
	R_EXCLUDED,
	R_AXIS,		/* plot axes and grid */
	R_PROMPT,	/* search and filter input */
	R_HOT,		/* sample counts in source and code */
	R_COUNT
};

struct cell {
	uint32_t ch;		/* code point; 0: right half of a wide character */
	uint8_t role;
};

struct canvas {
	int rows, cols;
	bool unicode;		/* may draw non-ASCII; else '?' and ASCII glyphs */
	struct cell *cells;
};

/* Glyphs that have an ASCII fallback. */
enum glyph {
	G_VLINE, G_HLINE, G_CROSS, G_TEE_UP, G_POINT, G_DOT, G_ELLIPSIS, G_PM,
	G_ARROW, G_WHISKER_TOP, G_WHISKER_BOT, G_BLOCK_FULL, G_UP, G_DOWN,
	G_COUNT
};

void canvas_init(struct canvas *, int rows, int cols, bool unicode);
void canvas_free(struct canvas *);
void canvas_clear(struct canvas *);
/* One cell; out of bounds is ignored. */
void canvas_set(struct canvas *, int y, int x, uint32_t ch, enum role);
/*
 * UTF-8 text at (y, x), at most maxw columns (cut; no "..." here).
 * Control characters and invalid bytes become '?', as does anything
 * non-ASCII without unicode.  Returns the columns used.
 */
int canvas_text(struct canvas *, int y, int x, int maxw, enum role, const char *s);
int canvas_printf(struct canvas *, int y, int x, int maxw, enum role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Fill w cells with ch. */
void canvas_fill(struct canvas *, int y, int x, int w, uint32_t ch, enum role);
/* Give w cells a role, keeping their characters. */
void canvas_paint(struct canvas *, int y, int x, int w, enum role);
/* Columns the text would take (the same rules as canvas_text). */
int canvas_width(const struct canvas *, const char *s);
uint32_t canvas_glyph(const struct canvas *, enum glyph);
/* Eight heights, 0 (lowest) to 7: block characters or ASCII. */
uint32_t canvas_bar(const struct canvas *, unsigned level);

/*
 * The text backend: every row, trailing blanks trimmed.  With roles, each
 * row is followed by a row of its cells' role letters (role_letters;
 * trailing R_NORMAL trimmed).
 */
void canvas_dump(const struct canvas *, FILE *, bool roles);
extern const char role_letters[R_COUNT + 1];

#endif
