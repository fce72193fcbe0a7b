#include "config.h"
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "sym/scope.h"

struct scope_patterns {
	char **pat;
	size_t n, alloc;
};

struct scope {
	struct scope_patterns binary;
	struct scope_patterns source;
	bool main_named;	/* "MAIN" was given as a binary pattern */
};

static const char scope_main_pattern[] = "MAIN";

struct scope *
scope_new(void)
{
	return xcalloc(1, sizeof(struct scope));
}

static void
patterns_free(struct scope_patterns *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->pat[i]);
	free(p->pat);
}

void
scope_free(struct scope *s)
{
	if (!s)
		return;
	patterns_free(&s->binary);
	patterns_free(&s->source);
	free(s);
}

/* Coz users write '%' where fnmatch wants '*'. */
static void
patterns_add(struct scope_patterns *p, const char *pattern)
{
	char *copy = xstrdup(pattern);

	for (char *c = copy; *c; c++) {
		if (*c == '%')
			*c = '*';
	}
	if (p->n == p->alloc)
		p->pat = xgrowarray(p->pat, &p->alloc, p->n + 1, sizeof(*p->pat));
	p->pat[p->n++] = copy;
}

void
scope_add_binary(struct scope *s, const char *pattern)
{
	if (!strcmp(pattern, scope_main_pattern))
		s->main_named = true;
	else
		patterns_add(&s->binary, pattern);
}

void
scope_add_source(struct scope *s, const char *pattern)
{
	patterns_add(&s->source, pattern);
}

/*
 * No FNM_PATHNAME: "*" crossing '/' lets "%src/foo%" style patterns from
 * Coz work on absolute paths.
 */
static bool
patterns_match(const struct scope_patterns *p, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : NULL;

	for (size_t i = 0; i < p->n; i++) {
		if (!fnmatch(p->pat[i], path, 0))
			return true;
		if (base && !fnmatch(p->pat[i], base, 0))
			return true;
	}
	return false;
}

bool
scope_binary_match(const struct scope *s, const char *path, bool is_main_exe)
{
	if (!s->binary.n && !s->main_named)
		return is_main_exe;
	if (is_main_exe && s->main_named)
		return true;
	return path && patterns_match(&s->binary, path);
}

bool
scope_source_match(const struct scope *s, const char *file)
{
	if (!s->source.n)
		return true;
	return file && patterns_match(&s->source, file);
}
