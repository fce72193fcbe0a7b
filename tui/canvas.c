#include "config.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "base/xmalloc.h"
#include "canvas.h"

/* One letter per role, for the snapshots' role rows ('.' is R_NORMAL). */
const char role_letters[R_COUNT + 1] = ".dtvhosfkpnzuwmxaPH";

static const struct {
	uint32_t uni;
	char ascii;
} glyphs[G_COUNT] = {
	[G_VLINE] = { 0x2502, '|' },		/* │ */
	[G_HLINE] = { 0x2500, '-' },		/* ─ */
	[G_CROSS] = { 0x253c, '+' },		/* ┼ */
	[G_TEE_UP] = { 0x2534, '+' },		/* ┴ */
	[G_POINT] = { 0x25cf, 'o' },		/* ● */
	[G_DOT] = { 0x00b7, '.' },		/* · */
	[G_ELLIPSIS] = { 0x2026, '~' },		/* … */
	[G_PM] = { 0x00b1, '~' },		/* ± */
	[G_ARROW] = { 0x25b6, '>' },		/* ▶ */
	[G_WHISKER_TOP] = { 0x252c, '-' },	/* ┬ */
	[G_WHISKER_BOT] = { 0x2534, '-' },	/* ┴ */
	[G_BLOCK_FULL] = { 0x2588, '#' },	/* █ */
	[G_UP] = { 0x25b2, '^' },		/* ▲ */
	[G_DOWN] = { 0x25bc, 'v' },		/* ▼ */
};

static const char bars_ascii[8] = { '_', '_', '.', '-', '-', '=', '^', '#' };

void
canvas_init(struct canvas *cv, int rows, int cols, bool unicode)
{
	cv->rows = rows > 0 ? rows : 0;
	cv->cols = cols > 0 ? cols : 0;
	cv->unicode = unicode;
	cv->cells = xcalloc((size_t) cv->rows * cv->cols + 1, sizeof(*cv->cells));
	canvas_clear(cv);
}

void
canvas_free(struct canvas *cv)
{
	free(cv->cells);
	cv->cells = NULL;
	cv->rows = cv->cols = 0;
}

void
canvas_clear(struct canvas *cv)
{
	for (int i = 0; i < cv->rows * cv->cols; i++)
		cv->cells[i] = (struct cell) { ' ', R_NORMAL };
}

void
canvas_set(struct canvas *cv, int y, int x, uint32_t ch, enum role r)
{
	struct cell *c;

	if (y < 0 || x < 0 || y >= cv->rows || x >= cv->cols)
		return;
	c = &cv->cells[y * cv->cols + x];
	/* Overwriting half of a wide character blanks its other half. */
	if (c->ch == 0 && x > 0)
		cv->cells[y * cv->cols + x - 1].ch = ' ';
	if (x + 1 < cv->cols && cv->cells[y * cv->cols + x + 1].ch == 0)
		cv->cells[y * cv->cols + x + 1].ch = ' ';
	c->ch = ch;
	c->role = (uint8_t) r;
}

/* The next code point of s (advancing it); 0xfffd for an invalid byte. */
static uint32_t
next_cp(const unsigned char **s)
{
	const unsigned char *p = *s;
	uint32_t c = p[0], min;
	unsigned len;

	if (c < 0x80) {
		*s = p + 1;
		return c;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, c &= 0x07, min = 0x10000;
	else
		goto bad;
	for (unsigned i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto bad;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*s = p + len;
	return c;
bad:
	*s = p + 1;
	return 0xfffd;
}

/* What a code point is drawn as, and its width (0: draw nothing). */
static uint32_t
shown(const struct canvas *cv, uint32_t c, int *w)
{
	int cw;

	*w = 1;
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0xfffd)
		return '?';
	if (c < 0x80)
		return c;
	if (!cv->unicode)
		return '?';
	cw = wcwidth((wchar_t) c);
	if (cw < 0)
		return '?';
	*w = cw;
	return c;
}

int
canvas_width(const struct canvas *cv, const char *str)
{
	const unsigned char *s = (const unsigned char *) str;
	int cols = 0;

	while (*s) {
		int w;

		shown(cv, next_cp(&s), &w);
		cols += w;
	}
	return cols;
}

int
canvas_text(struct canvas *cv, int y, int x, int maxw, enum role r, const char *str)
{
	const unsigned char *s = (const unsigned char *) str;
	int used = 0;

	if (!str)
		return 0;
	while (*s && used < maxw) {
		int w;
		uint32_t c = shown(cv, next_cp(&s), &w);

		if (w == 0)
			continue;	/* combining marks: dropped, widths stay exact */
		if (used + w > maxw)
			break;
		canvas_set(cv, y, x + used, c, r);
		if (w == 2) {
			if (x + used + 1 >= cv->cols) {
				/* No room for its right half: a blank instead. */
				canvas_set(cv, y, x + used, ' ', r);
			} else {
				canvas_set(cv, y, x + used + 1, ' ', r);
				cv->cells[y * cv->cols + x + used + 1].ch = 0;
			}
		}
		used += w;
	}
	return used;
}

int
canvas_printf(struct canvas *cv, int y, int x, int maxw, enum role r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_text(cv, y, x, maxw, r, buf);
}

void
canvas_fill(struct canvas *cv, int y, int x, int w, uint32_t ch, enum role r)
{
	for (int i = 0; i < w; i++)
		canvas_set(cv, y, x + i, ch, r);
}

void
canvas_paint(struct canvas *cv, int y, int x, int w, enum role r)
{
	if (y < 0 || y >= cv->rows)
		return;
	for (int i = x < 0 ? 0 : x; i < x + w && i < cv->cols; i++)
		cv->cells[y * cv->cols + i].role = (uint8_t) r;
}

uint32_t
canvas_glyph(const struct canvas *cv, enum glyph g)
{
	return cv->unicode ? glyphs[g].uni : (uint32_t) glyphs[g].ascii;
}

uint32_t
canvas_bar(const struct canvas *cv, unsigned level)
{
	if (level > 7)
		level = 7;
	return cv->unicode ? 0x2581 + level : (uint32_t) bars_ascii[level];
}

static void
put_utf8(FILE *f, uint32_t c)
{
	if (c < 0x80) {
		fputc((int) c, f);
	} else if (c < 0x800) {
		fputc((int) (0xc0 | c >> 6), f);
		fputc((int) (0x80 | (c & 0x3f)), f);
	} else if (c < 0x10000) {
		fputc((int) (0xe0 | c >> 12), f);
		fputc((int) (0x80 | (c >> 6 & 0x3f)), f);
		fputc((int) (0x80 | (c & 0x3f)), f);
	} else {
		fputc((int) (0xf0 | c >> 18), f);
		fputc((int) (0x80 | (c >> 12 & 0x3f)), f);
		fputc((int) (0x80 | (c >> 6 & 0x3f)), f);
		fputc((int) (0x80 | (c & 0x3f)), f);
	}
}

void
canvas_dump(const struct canvas *cv, FILE *f, bool roles)
{
	for (int y = 0; y < cv->rows; y++) {
		const struct cell *row = &cv->cells[y * cv->cols];
		int end = cv->cols, rend = cv->cols;

		while (end > 0 && row[end - 1].ch == ' ')
			end--;
		for (int x = 0; x < end; x++)
			if (row[x].ch)
				put_utf8(f, row[x].ch);
		fputc('\n', f);
		if (!roles)
			continue;
		while (rend > 0 && row[rend - 1].role == R_NORMAL)
			rend--;
		for (int x = 0; x < rend; x++)
			fputc(role_letters[row[x].role], f);
		fputc('\n', f);
	}
}
