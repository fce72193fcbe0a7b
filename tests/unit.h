/* The checks of the C unit tests: count the failures, say where. */
#ifndef CT_TESTS_UNIT_H
# define CT_TESTS_UNIT_H

# include <stdarg.h>
# include <stdbool.h>
# include <stdio.h>

static int failures;

/* CHECK(cond, fmt, ...): silent when cond holds. */
# define CHECK(cond, ...) do { \
		if (!(cond)) \
			check_failed(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

static void __attribute__((format(printf, 4, 5), unused))
check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
	const char *base = file;
	va_list ap;

	for (const char *p = file; *p; p++)
		if (*p == '/')
			base = p + 1;
	fprintf(stderr, "%s:%d: FAIL: %s: ", base, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

/* check(ok, fmt, ...): prints every check, ok or FAIL. */
static void __attribute__((format(printf, 2, 3), unused))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failures++;
}

#endif
