/*
 * Text from the profiled program (paths, symbols, point names) made safe
 * for each output: JSON strings, HTML text.  Both always produce valid
 * UTF-8 whatever the bytes were.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include "base/escape.h"

/*
 * Length of the valid UTF-8 sequence at s (1..4), 0 if it is not one:
 * no overlong forms, no surrogates, nothing past U+10FFFF.
 */
unsigned
escape_utf8_len(const unsigned char *s, unsigned *cp)
{
	unsigned len, c = s[0];
	unsigned min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (unsigned i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * A string, always valid UTF-8 JSON: bytes that are not UTF-8 become
 * \u00XX (the byte read as Latin-1), control characters, DEL and the
 * JavaScript line separators are escaped.
 */
void
escape_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *) str;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		unsigned cp, len = escape_utf8_len(s, &cp);

		if (!len) {
			fprintf(f, "\\u%04x", *s++);
			continue;
		}
		switch (cp) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
			    cp == 0x2028 || cp == 0x2029)
				fprintf(f, "\\u%04x", cp);
			else
				fwrite(s, 1, len, f);
		}
		s += len;
	}
	fputc('"', f);
}

void
escape_json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

void
escape_html(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *) str;

	while (s && *s) {
		unsigned cp, len = escape_utf8_len(s, &cp);

		if (!len) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD for a byte that is not UTF-8 */
			s++;
			continue;
		}
		switch (cp) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
				fputs("\xef\xbf\xbd", f);
			else
				fwrite(s, 1, len, f);
		}
		s += len;
	}
}

void
escape_json_interval(FILE *f, double est, double lo, double hi)
{
	fputs("\"est\": ", f);
	escape_json_num(f, est);
	fputs(", \"lo\": ", f);
	escape_json_num(f, lo);
	fputs(", \"hi\": ", f);
	escape_json_num(f, hi);
}
