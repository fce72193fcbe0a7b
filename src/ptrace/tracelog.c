#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include "ptrace/tracelog.h"

static FILE *log_file;

int
tracelog_open(const char *path)
{
	log_file = fopen(path, "we");
	if (!log_file)
		return -1;
	/* Line-buffered: a test may read it while causaltop runs. */
	setvbuf(log_file, NULL, _IOLBF, 0);
	return 0;
}

void
tracelog_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

void
tracelog(pid_t tid, const char *fmt, ...)
{
	va_list ap;

	if (!log_file)
		return;
	fprintf(log_file, "%-5d ", (int) tid);
	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
	fputc('\n', log_file);
}
