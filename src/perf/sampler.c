#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "perf/perf_sys.h"
#include "perf/sampler.h"

struct sampler_ring {
	int fd;
	void *map;
	size_t map_size;
	void *owner;
	struct perf_ring ring;
	struct sampler_ring *prev, *next;	/* all open rings */
};

struct sampler {
	struct sampler_config cfg;
	struct sampler_ops ops;
	void *ctx;
	uint64_t sample_type;
	uint32_t perf_type;
	uint64_t perf_config;
	uint64_t perf_period;
	struct sampler_ring *rings;
	struct sampler_stats stats;
	char desc[96];
};


static void
explain_perf_refusal(int err, const char *what)
{
	int paranoid = procfs_read_int("/proc/sys/kernel/perf_event_paranoid", 99);

	errno = err;
	perror_msg("perf_event_open (%s) refused", what);
	if (err == EACCES || err == EPERM)
		error_msg("kernel.perf_event_paranoid is %d: sampling another process's "
			  "threads needs <= 2 and the same user, per-CPU sampling <= 0, "
			  "or CAP_PERFMON (or root); try "
			  "'sysctl kernel.perf_event_paranoid=1'", paranoid);
	else if (err == ENOSYS || err == ENOENT)
		error_msg("this kernel has no perf events (CONFIG_PERF_EVENTS)");
}

/* Cycles per ns from /proc/cpuinfo, for converting the period. */
static double
cpu_ghz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
				break;
		fclose(f);
	}
	return mhz > 0 ? mhz / 1000 : 2.0;
}

/*
 * Data pages for a ring to hold RING_HOLD_NS of samples at one per
 * period (a thread, or a CPU, always running), at least min_pages: a
 * stack copy makes each sample kilobytes, where it is ~200 bytes
 * without (header, ip, tid, time, a callchain of a dozen frames).  The
 * tick drains every 20 ms, give or take a quarter, when causaltop is not
 * busy elsewhere.  Measured on tests/libcall, --sampler=thread, 16
 * pages: 27 of 2,354 samples lost with a 2 KB copy, 373 of 1,181 with
 * 4 KB.  At 1 ms and 4 KB: 128 pages (512 KB), perf record's own size.
 */
#define RING_HOLD_NS	100000000ULL
#define RING_MAX_PAGES	512

static unsigned
ring_pages_for(const struct sampler *s, unsigned min_pages)
{
	uint64_t rec = 256, page = (uint64_t) sysconf(_SC_PAGESIZE), need;
	unsigned pages = min_pages;

	if (s->sample_type & PERF_SAMPLE_STACK_USER)
		rec += 8 + 8 * CT_SAMPLE_NREGS + 16 + s->cfg.stack_dump;
	need = rec * (RING_HOLD_NS / s->cfg.period_ns + 1);
	while (pages < RING_MAX_PAGES && pages * page < need)
		pages *= 2;
	return pages;
}

static void
fill_attr(const struct sampler *s, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = s->perf_type;
	attr->config = s->perf_config;
	attr->sample_period = s->perf_period;
	attr->sample_type = s->sample_type;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_idle = 1;
	attr->exclude_callchain_kernel = 1;
	if (s->sample_type & PERF_SAMPLE_STACK_USER) {
		attr->sample_regs_user = CT_SAMPLE_REGS_MASK;
		attr->sample_stack_user = s->cfg.stack_dump;
	}
	/* Executable mappings only (mmap_data = 0): dlopen refreshes symbols. */
	attr->mmap = 1;
	attr->mmap2 = 1;
	/* Sample times on the supervisor's clock, to line up with experiments. */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/*
	 * No wake-up per sample (wakeup_events): the kernel raises it with
	 * an irq_work, a self-IPI, which in this VM cost the sampled thread
	 * ~20 us a sample, read or not: gt-unequal's items took 5.37 ms
	 * under --no-experiments against 5.27 without it (native 5.14).
	 * The supervisor reads the rings on its tick instead (1 ms during
	 * experiments; doc/design.md).
	 */
	if (s->cfg.mode == SAMPLER_CPU)
		attr->disabled = 1;	/* enabled in turn: stagger_cpus */
}

static void
set_event(struct sampler *s, enum sampler_event ev)
{
	s->cfg.event = ev;
	switch (ev) {
	case SAMPLER_EV_CYCLES:
		s->perf_type = PERF_TYPE_HARDWARE;
		s->perf_config = PERF_COUNT_HW_CPU_CYCLES;
		s->perf_period = (uint64_t) (s->cfg.period_ns * cpu_ghz());
		break;
	case SAMPLER_EV_CPU_CLOCK:
		s->perf_type = PERF_TYPE_SOFTWARE;
		s->perf_config = PERF_COUNT_SW_CPU_CLOCK;
		s->perf_period = s->cfg.period_ns;
		break;
	default:
		s->perf_type = PERF_TYPE_SOFTWARE;
		s->perf_config = PERF_COUNT_SW_TASK_CLOCK;
		s->perf_period = s->cfg.period_ns;
		break;
	}
	if (!s->perf_period)
		s->perf_period = 1;
}

/* Can we open the current event this way?  Returns 0 or -errno. */
static int
probe(struct sampler *s, pid_t pid, int cpu)
{
	struct perf_event_attr attr;
	long fd;

	fill_attr(s, &attr);
	attr.disabled = 1;
	fd = perf_sys_open(&attr, pid, cpu);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int
online_cpus(int *cpus, int max)
{
	int n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int a, b;
	char sep;

	if (!f) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		for (int i = 0; i < c && n < max; i++)
			cpus[n++] = i;
		return n;
	}
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = 0;
		}
		for (int i = a; i <= b && n < max; i++)
			cpus[n++] = i;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n;
}

static int
ring_open(struct sampler *s, pid_t pid, int cpu, void *owner, struct sampler_ring **out)
{
	struct perf_event_attr attr;
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned pages = s->cfg.ring_pages;
	struct sampler_ring *r;
	long fd;
	void *map;

	fill_attr(s, &attr);
	fd = perf_sys_open(&attr, pid, cpu);
	if (fd < 0)
		return -errno;
	map = perf_sys_map_ring(fd, &pages, page);
	if (map == MAP_FAILED) {
		int err = errno;

		close(fd);
		return -err;
	}
	r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->map = map;
	r->map_size = (pages + 1) * page;
	r->owner = owner;
	perf_ring_init(&r->ring, map, (unsigned char *) map + page, pages * page);
	r->next = s->rings;
	if (s->rings)
		s->rings->prev = r;
	s->rings = r;
	if (++s->stats.rings_open > s->stats.rings_peak)
		s->stats.rings_peak = s->stats.rings_open;
	*out = r;
	return 0;
}

/*
 * Start the per-CPU events a fraction of a period apart.  A cpu-clock
 * event's timer keeps the phase it was started with; opened together,
 * every CPU sampled at the same instant, and the wake-up that causaltop
 * (at real-time priority) took from one CPU's sample, when it was woken
 * at every sample, put it on another CPU just as that one sampled: its
 * thread lost the sample.  Measured on
 * gt-unequal, short branch pinned to CPU 1: 1,262-2,872 samples for 4.5 s
 * of CPU time at 0%, 511-783 at 25%, against 4,700 by perf record -a.
 */
static void
stagger_cpus(struct sampler *s, int ncpus)
{
	uint64_t gap = ncpus > 1 && s->cfg.event != SAMPLER_EV_CYCLES ?
		       s->cfg.period_ns / (uint64_t) ncpus : 0;

	for (struct sampler_ring *r = s->rings; r; r = r->next) {
		ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
		if (gap && r->next) {
			struct timespec ts = { 0, (long) gap };

			nanosleep(&ts, NULL);
		}
	}
}

int
sampler_new(struct sampler **out, const struct sampler_config *cfg,
	    const struct sampler_ops *ops, void *ctx)
{
	struct sampler *s = xcalloc(1, sizeof(*s));
	pid_t self = getpid();
	int err;

	s->cfg = *cfg;
	s->ops = *ops;
	s->ctx = ctx;
	s->sample_type = CT_SAMPLE_TYPE;
	if (CT_SAMPLE_UNWIND && cfg->stack_dump)
		s->sample_type |= CT_SAMPLE_UNWIND;
	else
		s->cfg.stack_dump = 0;
	/* Cycles where a PMU exists; this VM has none, so task-clock. */
	if (cfg->event == SAMPLER_EV_AUTO) {
		set_event(s, SAMPLER_EV_CYCLES);
		if (probe(s, self, -1) < 0)
			set_event(s, SAMPLER_EV_TASK_CLOCK);
	} else {
		set_event(s, cfg->event);
	}

	if (s->cfg.mode == SAMPLER_AUTO || s->cfg.mode == SAMPLER_CPU) {
		enum sampler_event ev = s->cfg.event;

		/* A CPU-wide event counts CPU time, whoever runs. */
		if (ev == SAMPLER_EV_TASK_CLOCK)
			set_event(s, SAMPLER_EV_CPU_CLOCK);
		err = probe(s, -1, 0);
		if (err < 0 && s->cfg.mode == SAMPLER_CPU) {
			explain_perf_refusal(-err, "per-CPU sampling, --sampler=cpu");
			free(s);
			return err;
		}
		if (err < 0) {
			set_event(s, ev);
			s->cfg.mode = SAMPLER_THREAD;
		} else {
			s->cfg.mode = SAMPLER_CPU;
		}
	}

	/*
	 * A per-CPU ring takes every process's samples on its CPU, and
	 * there are only as many as CPUs: larger.  With 16 pages, the
	 * 10,000-thread test at 0.1 ms lost 599 samples (63 threads got
	 * none) while another causaltop at real-time priority profiled 256
	 * spinning threads; with two CPU-bound loops beside it, none.
	 */
	if (!s->cfg.ring_pages)
		s->cfg.ring_pages = ring_pages_for(s, s->cfg.mode == SAMPLER_CPU ? 128 : 16);

	if (s->cfg.mode == SAMPLER_THREAD) {
		err = probe(s, self, -1);
		if (err < 0) {
			explain_perf_refusal(-err, "per-thread sampling");
			free(s);
			return err;
		}
	} else {
		int cpus[1024];
		int n = online_cpus(cpus, 1024);

		s->sample_type |= PERF_SAMPLE_CPU;
		for (int i = 0; i < n; i++) {
			struct sampler_ring *r;

			err = ring_open(s, -1, cpus[i], NULL, &r);
			if (err < 0) {
				explain_perf_refusal(-err, "per-CPU sampling");
				sampler_free(s);
				return err;
			}
		}
		stagger_cpus(s, n);
	}
	snprintf(s->desc, sizeof(s->desc), "%s %s %.3f ms, %s",
		 s->cfg.mode == SAMPLER_CPU ? "cpu" : "thread",
		 s->cfg.event == SAMPLER_EV_CYCLES ? "cycles" :
		 s->cfg.event == SAMPLER_EV_CPU_CLOCK ? "cpu-clock" : "task-clock",
		 s->cfg.period_ns / 1e6,
		 s->cfg.stack_dump ? "unwind dwarf" : "unwind fp");
	*out = s;
	return 0;
}

struct drain_ctx {
	struct sampler *s;
	struct sampler_ring *r;
};

static void
on_record(void *arg, const struct perf_event_header *rec)
{
	struct drain_ctx *d = arg;
	struct sampler *s = d->s;
	struct ct_sample smp;

	s->stats.records++;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if (!perf_parse_sample(rec, s->sample_type, &smp)) {
			s->stats.bad++;
			return;
		}
		s->stats.samples++;
		s->ops.sample(s->ctx, d->r->owner, &smp);
		break;
	case PERF_RECORD_LOST: {
		/* struct { header; u64 id; u64 lost; } */
		uint64_t v[2];

		if (rec->size < sizeof(*rec) + sizeof(v))
			return;
		memcpy(v, rec + 1, sizeof(v));
		s->stats.lost += v[1];
		s->ops.lost(s->ctx, d->r->owner, v[1]);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		uint32_t pid;

		if (rec->size < sizeof(*rec) + sizeof(pid))
			return;
		memcpy(&pid, rec + 1, sizeof(pid));
		s->ops.exec_mmap(s->ctx, pid);
		break;
	}
	default:
		break;
	}
}

void
sampler_drain(struct sampler *s, struct sampler_ring *only)
{
	struct drain_ctx d = { .s = s };

	for (struct sampler_ring *r = only ? only : s->rings; r; r = r->next) {
		d.r = r;
		perf_ring_read(&r->ring, on_record, &d);
		s->stats.bad += r->ring.bad_records;
		r->ring.bad_records = 0;
		if (only)
			break;
	}
}

int
sampler_thread_open(struct sampler *s, pid_t tid, void *owner, struct sampler_ring **ring)
{
	int err;

	*ring = NULL;
	if (s->cfg.mode == SAMPLER_CPU)
		return 0;
	err = ring_open(s, tid, -1, owner, ring);
	if (err < 0 && err != -ESRCH) {
		char what[64];

		snprintf(what, sizeof(what), "thread %d", (int) tid);
		explain_perf_refusal(-err, what);
	}
	return err;
}

void
sampler_ring_close(struct sampler *s, struct sampler_ring *r)
{
	if (!r)
		return;
	sampler_drain(s, r);
	if (r->prev)
		r->prev->next = r->next;
	else
		s->rings = r->next;
	if (r->next)
		r->next->prev = r->prev;
	perf_ring_fini(&r->ring);
	munmap(r->map, r->map_size);
	close(r->fd);
	s->stats.rings_open--;
	free(r);
}

void
sampler_free(struct sampler *s)
{
	if (!s)
		return;
	while (s->rings)
		sampler_ring_close(s, s->rings);
	free(s);
}

enum sampler_mode
sampler_mode(const struct sampler *s)
{
	return s->cfg.mode;
}

const char *
sampler_describe(const struct sampler *s)
{
	return s->desc;
}

const struct sampler_stats *
sampler_stats(const struct sampler *s)
{
	return &s->stats;
}
