#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"

const char *program_name = "causaltop";
bool debug_flag;
static void (*die_hook)(void);

void
set_die_hook(void (*hook)(void))
{
	die_hook = hook;
}

static void __attribute__((format(printf, 2, 0)))
verror_msg(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", program_name);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void
error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_msg(0, fmt, ap);
	va_end(ap);
}

void
perror_msg(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	verror_msg(err, fmt, ap);
	va_end(ap);
}

void
debug_msg_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_msg(0, fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn))
die(int code)
{
	void (*hook)(void) = die_hook;

	/* A hook that dies again must not recurse. */
	die_hook = NULL;
	if (hook)
		hook();
	exit(code);
}

void
error_msg_and_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_msg(0, fmt, ap);
	va_end(ap);
	die(code);
}

void
perror_msg_and_die(int code, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	verror_msg(err, fmt, ap);
	va_end(ap);
	die(code);
}
