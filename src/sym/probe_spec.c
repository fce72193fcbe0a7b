#include "config.h"
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "sym/probe_spec.h"
#include "sym/symname.h"

static bool
probe_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

static bool
probe_is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++) {
		/* Symbol names: C identifiers, mangled names, "foo.cold". */
		if (!(*s == '_' || *s == '.' || *s == '$' ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return false;
	}
	return true;
}

static void
probe_syntax_error(const char *spec, const char *why)
{
	error_msg("bad progress point '%s': %s; expected FUNCTION, DSO:FUNCTION, "
		  "FILE:LINE or DSO:0xADDR", spec, why);
}

/* The fields of p from spec, but its text. */
static int
probe_parse(struct probe_spec *p, const char *spec)
{
	/* Not a "::" of a C++ name: "app::Queue::push" is a function. */
	const char *colon = symname_colon(spec);
	const char *tail;
	char *end;

	if (!colon) {
		if (!probe_is_ident(spec) && !symname_valid(spec)) {
			probe_syntax_error(spec, *spec ? "not a function name" :
					   "empty");
			return -1;
		}
		p->type = SPEC_FUNC;
		p->func = xstrdup(spec);
		return 0;
	}
	tail = colon + 1;
	if (colon == spec) {
		probe_syntax_error(spec, "nothing before ':'");
		return -1;
	}
	if (probe_all_digits(tail)) {
		long line = strtol(tail, &end, 10);

		if (line <= 0 || line > 0x7fffffff) {
			probe_syntax_error(spec, line <= 0 ?
					   "line numbers start at 1" :
					   "line number too large");
			return -1;
		}
		p->type = SPEC_LINE;
		p->file = xasprintf("%.*s", (int) (colon - spec), spec);
		p->line = (int) line;
		return 0;
	}
	if (tail[0] == '0' && (tail[1] == 'x' || tail[1] == 'X')) {
		errno = 0;
		p->vaddr = strtoull(tail + 2, &end, 16);
		/* strtoull takes signs and blanks, an address does not. */
		if (!isxdigit((unsigned char) tail[2]) || *end || errno) {
			probe_syntax_error(spec, "bad hexadecimal address");
			return -1;
		}
		p->type = SPEC_ADDR;
		p->dso = xasprintf("%.*s", (int) (colon - spec), spec);
		return 0;
	}
	if (probe_is_ident(tail) || symname_valid(tail)) {
		p->type = SPEC_FUNC;
		p->func = xstrdup(tail);
		p->dso = xasprintf("%.*s", (int) (colon - spec), spec);
		return 0;
	}
	probe_syntax_error(spec, *tail ? "what follows the last ':' is neither "
			   "a line number, a 0x address nor a function name" :
			   "nothing after ':'");
	return -1;
}

int
probe_spec_parse(struct probe_spec *sp, const char *text)
{
	*sp = (struct probe_spec) { .text = NULL };
	if (probe_parse(sp, text))
		return -1;
	sp->text = xstrdup(text);
	return 0;
}

void
probe_spec_free(struct probe_spec *sp)
{
	free(sp->text);
	free(sp->dso);
	free(sp->func);
	free(sp->file);
	*sp = (struct probe_spec) { .text = NULL };
}
