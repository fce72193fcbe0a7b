#include "config.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "base/clock.h"
#include "perf/hostcost.h"
#include "perf/perf_sys.h"

/*
 * Sampled every 200 us, a window of 1 ms takes ~5 samples: at 45 us
 * each (measured on a PVM guest, where 1 kHz sampling cost a CPU-bound
 * program 4.8% of its rate) the window grows by a fifth; at 2 us, by 1%.
 * Each window sampled is compared with the one just before it, and the
 * median of the differences kept: the pair shares the machine's speed
 * of the moment, and the median drops the pairs another task or the host
 * cut into.  Until 2026-11-30 each side's fastest window was kept; that
 * probe read 0 to 3 times the cost, mostly for the reason given at
 * hostcost_spin (bench/hostcost-20261130).
 */
#define PROBE_PERIOD_NS		200000ULL
#define PROBE_WINDOW_NS		1000000ULL
#define PROBE_PAIRS		16

static volatile uint64_t sink;

/*
 * n dependent multiply-adds.  Never inlined: both windows of a pair
 * must run the very same instructions.  Inlined, the compiler made a
 * copy for each, and the probe read 0, 10 or 25 us a sample on the same
 * host and minute as the link placed the copies.
 */
__attribute__((noinline)) uint64_t
hostcost_spin(uint64_t n)
{
	uint64_t t = clock_now_ns(), x = 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + i;
	sink = x;
	return clock_now_ns() - t;
}

uint64_t
hostcost_steps_for(uint64_t ns)
{
	uint64_t n = 1000, t;

	while ((t = hostcost_spin(n)) < ns / 4 && n < (1ULL << 40))
		n *= 2;
	return t ? n * ns / t : n;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0; sorts v. */
static int64_t
median_i64(int64_t *v, int n)
{
	qsort(v, (size_t) n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool
hostcost_sample_ns(uint64_t *cost_ns)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = PROBE_PERIOD_NS,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int64_t diff[PROBE_PAIRS], on[PROBE_PAIRS], d, o;
	uint64_t n, off;
	int fd = perf_sys_open(&attr, 0, -1), k = 0;

	if (fd < 0)
		return false;
	n = hostcost_steps_for(PROBE_WINDOW_NS);
	for (; k < PROBE_PAIRS; k++) {
		off = hostcost_spin(n);
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			break;
		on[k] = (int64_t) hostcost_spin(n);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		diff[k] = on[k] - (int64_t) off;
	}
	close(fd);
	if (!k)
		return false;
	d = median_i64(diff, k);
	o = median_i64(on, k);
	/* on = off + (on / period) samples x cost */
	*cost_ns = d > 0 && o > 0 ? (uint64_t) d * PROBE_PERIOD_NS / (uint64_t) o : 0;
	return true;
}

bool
hostcost_parse_steal(const char *stat, long hz, uint64_t *ns)
{
	unsigned long long v[8], h = (unsigned long long) hz;

	/* "cpu  user nice system idle iowait irq softirq steal ...": steal since 2.6.11. */
	if (hz <= 0 || strncmp(stat, "cpu ", 4) ||
	    sscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		return false;
	/* Whole seconds, then the rest: exact, and no overflow. */
	*ns = v[7] / h * 1000000000ULL + v[7] % h * 1000000000ULL / h;
	return true;
}

bool
hostcost_steal_ns(uint64_t *ns)
{
	/* The first line, and room to spare: the rest is never parsed. */
	char buf[512];
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return hostcost_parse_steal(buf, sysconf(_SC_CLK_TCK), ns);
}

uint64_t
hostcost_period_ns(uint64_t cost_ns)
{
	return cost_ns >= HOSTCOST_SAMPLE_DEAR_NS ? 2000000ULL : 1000000ULL;
}
