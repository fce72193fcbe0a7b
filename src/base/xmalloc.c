#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"

static void
die_oom(size_t size)
{
	error_msg_and_die(CT_EXIT_INTERNAL, "out of memory allocating %zu bytes", size);
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_oom(size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		die_oom(size);
	return p;
}

void *
xgrowarray(void *ptr, size_t *nmemb, size_t min_nmemb, size_t elem_size)
{
	size_t n = *nmemb ? *nmemb * 2 : 16;

	if (n < min_nmemb)
		n = min_nmemb;
	if (n > ((size_t) -1) / elem_size)
		die_oom((size_t) -1);
	ptr = xrealloc(ptr, n * elem_size);
	*nmemb = n;
	return ptr;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die_oom(0);
	va_end(ap);
	return s;
}
