/*
 * sleeplog.so: logs every nanosleep() of a process, asked against slept,
 * to see how long Coz's pauses really last.  Coz makes each thread pay
 * its delays with nanosleep() (from its SIGPROF handler), called through
 * libcoz's PLT: preloaded before libcoz.so,
 *
 *	SLEEPLOG=FILE LD_PRELOAD=.../sleeplog.so coz run --- PROG
 *
 * (coz appends libcoz.so to LD_PRELOAD), this nanosleep() is the one it
 * calls.  Each call appends a line "TID ASKED_NS SLEPT_NS" to FILE, slept
 * measured on CLOCK_MONOTONIC around the real call.  Async-signal-safe:
 * one write(2) per line, formatted by hand.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static int (*real_nanosleep)(const struct timespec *, struct timespec *);

__attribute__((constructor)) static void
sleeplog_init(void)
{
	const char *path = getenv("SLEEPLOG");

	real_nanosleep = (int (*)(const struct timespec *, struct timespec *))
		dlsym(RTLD_NEXT, "nanosleep");
	if (path)
		log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static unsigned long long
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Decimal digits of v before end; returns where they start. */
static char *
put_u(char *end, unsigned long long v)
{
	do
		*--end = '0' + v % 10;
	while (v /= 10);
	return end;
}

int
nanosleep(const struct timespec *req, struct timespec *rem)
{
	unsigned long long t0, t1, asked;
	char buf[80], *p = buf + sizeof(buf);
	int rc;

	if (!real_nanosleep)
		return -1;
	t0 = mono_ns();
	rc = real_nanosleep(req, rem);
	t1 = mono_ns();
	if (log_fd < 0 || !req)
		return rc;
	asked = req->tv_sec * 1000000000ULL + req->tv_nsec;
	*--p = '\n';
	p = put_u(p, t1 - t0);
	*--p = ' ';
	p = put_u(p, asked);
	*--p = ' ';
	p = put_u(p, (unsigned long long)syscall(SYS_gettid));
	if (write(log_fd, p, buf + sizeof(buf) - p) < 0)
		return rc;
	return rc;
}
