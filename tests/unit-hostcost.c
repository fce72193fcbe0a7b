/*
 * hostcost: the period's thresholds, and the short probe's figure
 * against a longer measurement of its own kind: a busy loop's rate with
 * and without 1 kHz task-clock sampling, 61 pairs of windows of 20 ms
 * (the median of each pair's difference, so that a window another task
 * or the host took, or a drift of the machine's speed, does not count;
 * with 21 pairs it read 0.42 to 2.82% in six runs within a minute on
 * one host, and CI failed a probe of 37.5 us against 0.75%, with 61
 * 1.71 to 2.17% there, 2026-12-02),
 * the slowdown that 1 ms sampling costs a program here.  The probe's
 * cost times 1,000 samples a second must predict that slowdown within 2
 * points, or within a factor of two where the slowdown is larger: a
 * probe that measured the wrong thing (no sample taken, a loop optimized
 * away) would read ~0 on a host where 1 ms sampling costs 5% (AMD EPYC
 * PVM guests: 4-5% on some days), and a probe without its paired median
 * reads the host's noise.  Nor may it read 0 where sampling costs 0.5%
 * or more: with its loop inlined, a copy for each window, it read 0 in
 * 9 runs of 11 where 1 ms sampling cost -0.1 to 1.2%
 * (bench/hostcost-20261130).  Both run at real-time priority, as
 * causaltop's probe does.
 */
#include "config.h"
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "base/clock.h"
#include "perf/hostcost.h"
#include "perf/perf_sys.h"
#include "unit.h"

#define PAIRS 61

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

/* The slowdown, in percent, that 1 ms task-clock sampling costs a loop. */
static double
slowdown_1ms(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = 1000000,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	double d[PAIRS], off[PAIRS];
	uint64_t n = hostcost_steps_for(20000000), t;
	int fd = perf_sys_open(&attr, 0, -1);

	if (fd < 0)
		return -1;
	for (int i = 0; i < PAIRS; i++) {
		off[i] = (double) hostcost_spin(n);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t = hostcost_spin(n);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		d[i] = (double) t - off[i];
		/* Below the real-time throttle's 95% of each second. */
		usleep(10000);
	}
	close(fd);
	qsort(d, PAIRS, sizeof(*d), cmp_double);
	qsort(off, PAIRS, sizeof(*off), cmp_double);
	return 100.0 * d[PAIRS / 2] / off[PAIRS / 2];
}

/* /proc/stat's first line: the 8th figure, in ticks of 1/hz s. */
static void
test_steal(void)
{
	uint64_t ns = 7;

	CHECK(hostcost_parse_steal("cpu  8420453 4399 555550 5431197 9182 0 46948 13687 0 0\n"
				   "cpu0 4416148 2260 242901 2547544 562 0 26981 6241 0 0\n", 100, &ns) &&
	      ns == 136870000000ULL, "steal %llu ns, want 136.87 s", (unsigned long long) ns);
	CHECK(hostcost_parse_steal("cpu 1 2 3 4 5 6 7 3\n", 1000, &ns) && ns == 3000000,
	      "at 1000 Hz: %llu ns", (unsigned long long) ns);
	CHECK(hostcost_parse_steal("cpu 1 2 3 4 5 6 7 1536\n", 1024, &ns) && ns == 1500000000,
	      "at 1024 Hz: %llu ns", (unsigned long long) ns);
	CHECK(hostcost_parse_steal("cpu 1 2 3 4 5 6 7 1099511627776\n", 100, &ns) &&
	      ns == 10995116277760000000ULL, "2^40 ticks: %llu ns", (unsigned long long) ns);
	ns = 7;
	CHECK(!hostcost_parse_steal("cpu  1 2 3 4 5 6 7\n", 100, &ns) && ns == 7,
	      "no steal figure (before 2.6.11): not read");
	CHECK(!hostcost_parse_steal("cpu0 1 2 3 4 5 6 7 8\n", 100, &ns), "not the sum line");
	CHECK(!hostcost_parse_steal("", 100, &ns), "empty");
	CHECK(!hostcost_parse_steal("cpu 1 2 3 4 5 6 7 8\n", 0, &ns), "no tick rate");
}

int
main(void)
{
	uint64_t cost = 0, steal0 = 0, steal1 = 0, t0, t1;
	double want, got, steal_pct = -1;
	bool have_steal;

	CHECK(hostcost_period_ns(0) == 1000000, "free samples: 1 ms");
	CHECK(hostcost_period_ns(HOSTCOST_SAMPLE_DEAR_NS - 1) == 1000000, "just below: 1 ms");
	CHECK(hostcost_period_ns(HOSTCOST_SAMPLE_DEAR_NS) == 2000000, "dear: 2 ms");
	CHECK(hostcost_period_ns(500000) == 2000000, "very dear: still 2 ms");
	test_steal();

	/*
	 * causaltop measures at its real-time priority, where no other task
	 * takes the CPU from the loop; at normal priority beside busy
	 * programs, both figures here read anything.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param) { .sched_priority = 1 })) {
		printf("no real-time priority here: the probe is not judged\n");
		return failures ? 1 : 77;
	}
	/*
	 * The host's other guests' share of the CPUs while both measure, for
	 * the record: a failure under steal says how much there was (CI's
	 * one failure, 2026-12-02: the probe 37.5 us, the slowdown 0.75%,
	 * steal 7 to 17% in the checks minutes after).
	 */
	t0 = clock_now_ns();
	have_steal = hostcost_steal_ns(&steal0);
	if (!hostcost_sample_ns(&cost)) {
		printf("no perf_event_open here: the probe is not judged\n");
		return failures ? 1 : 77;
	}
	want = slowdown_1ms();
	t1 = clock_now_ns();
	if (have_steal && hostcost_steal_ns(&steal1) && steal1 >= steal0 && t1 > t0)
		steal_pct = 100.0 * (double) (steal1 - steal0) /
			    ((double) (t1 - t0) * (double) sysconf(_SC_NPROCESSORS_ONLN));
	/* cost per sample x 1,000 samples per second of CPU time */
	got = cost / 1e4;
	printf("probe: a sample costs %.1f us, so 1 ms sampling %.2f%%; measured %.2f%%; "
	       "steal %.1f%% of the CPUs meanwhile (-1: not known)\n",
	       cost / 1e3, got, want, steal_pct);
	CHECK(cost < 1000000, "%.1f us a sample: not a sample's cost", cost / 1e3);
	CHECK(want < 0.5 || cost > 0, "the probe reads no cost where 1 ms sampling costs %.2f%%", want);
	CHECK(want < 0 || (got - want <= 2 && want - got <= 2) ||
	      (got >= want / 2 && got <= want * 2),
	      "the probe predicts %.2f%%, 1 ms sampling costs %.2f%% (steal %.1f%%)",
	      got, want, steal_pct);
	return failures ? 1 : 0;
}
