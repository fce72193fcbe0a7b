/* Escaping of untrusted text for JSON and HTML output. */
#ifndef CT_ESCAPE_H
# define CT_ESCAPE_H

# include <stdio.h>

/*
 * Length of the valid UTF-8 sequence at s (1..4) with its code point in
 * *cp, 0 if it is not one: no overlong forms, no surrogates, nothing
 * past U+10FFFF.
 */
unsigned escape_utf8_len(const unsigned char *s, unsigned *cp);

/*
 * A JSON string, quotes included ("null" for NULL), always valid UTF-8:
 * bytes that are not UTF-8 become \u00XX (the byte read as Latin-1),
 * control characters, DEL, C1 controls and U+2028/U+2029 are escaped.
 */
void escape_json_str(FILE *, const char *);

/* A JSON number; null if it is not finite. */
void escape_json_num(FILE *, double);
/* "est", "lo", "hi" members, after an opening brace or a comma. */
void escape_json_interval(FILE *, double est, double lo, double hi);

/*
 * HTML text or attribute value (quoted with " or '): & < > " ' as
 * entities, control characters and bytes that are not UTF-8 as U+FFFD.
 */
void escape_html(FILE *, const char *);

#endif
