#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>
#include "base/xmalloc.h"
#include "perf/perf_ring.h"
#include "perf/perf_sys.h"
#include "perf/wake.h"

/*
 * Data pages per CPU, perf record's default: 512 KiB hold 8192 records of
 * 64 bytes, 45 ms of a futex ping-pong pinned to one CPU (bench/wake-cost:
 * 180k records/s), where 256 KiB lost records on a 20 ms tick.
 */
#define WAKE_RING_PAGES 128

#define WAKE_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

/*
 * common_flags bits, include/linux/trace_events.h enum trace_flag_type
 * (HARDIRQ and SOFTIRQ unmoved since 2.6, NMI since 4.x; 0x02 and 0x80
 * changed meaning over time, these did not).  Filled from preempt_count()
 * in the waker's context, the same for perf as for ftrace.  Seen on
 * 6.18: 0x09 (hardirq, irqs off) for an hrtimer wake-up, 0x01 for a pipe
 * or futex wake by a task (ttwu holds pi_lock with irqs off).
 */
#define WAKE_TRACE_FLAG_HARDIRQ	0x08
#define WAKE_TRACE_FLAG_SOFTIRQ	0x10	/* serving one, not merely BH off */
#define WAKE_TRACE_FLAG_NMI	0x40
#define WAKE_TRACE_FLAGS_IRQ \
	(WAKE_TRACE_FLAG_HARDIRQ | WAKE_TRACE_FLAG_SOFTIRQ | WAKE_TRACE_FLAG_NMI)

#define WAKE_EVENT_DIR "events/sched/sched_waking"
#define WAKE_XMIT_DIR "events/net/netif_rx"
#define WAKE_SWITCH_DIR "events/sched/sched_switch"

/*
 * prev_state's low byte holds the reasons a task left its CPU blocked
 * (S, D, T, t, X, Z, P, I: TASK_REPORT and TASK_REPORT_IDLE); none is
 * "R", still ready to run.  The bit above says it was preempted.
 */
#define WAKE_PREV_STATE_BLOCKED	0xffU

struct wake_cpu {
	struct wake *w;
	int cpu;
	int fd;
	int xmit_fd;		/* net:netif_rx, output into fd's ring; -1: none */
	int switch_fd;		/* sched:sched_switch, the same; -1: none */
	void *map;
	size_t map_size;
	struct perf_ring ring;
	struct wake_xmit xmit;	/* the last loopback transmit on this CPU */
};

struct wake {
	wake_cb cb;
	void *ctx;
	struct wake_format fmt;
	struct wake_stats stats;
	size_t ncpus;
	struct wake_cpu *cpus;
};

/* Where tracefs may be: its own mount point, or debugfs's legacy link. */
static const char *const wake_tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};
#define WAKE_NDIRS (sizeof(wake_tracefs_dirs) / sizeof(wake_tracefs_dirs[0]))

enum wake_rec
wake_parse(const struct perf_event_header *hdr, const struct wake_format *fmt,
	   struct wake_event *ev)
{
	const unsigned char *p = (const void *) (hdr + 1);
	size_t left;
	uint32_t pid, tid, raw_size;
	uint64_t time;
	uint16_t type;
	unsigned char flags;
	int32_t wakee;

	memset(ev, 0, sizeof(*ev));
	if (hdr->type != PERF_RECORD_SAMPLE || hdr->size < sizeof(*hdr))
		return WAKE_REC_BAD;
	left = hdr->size - sizeof(*hdr);
	/* Field order is fixed by the ABI: tid, time, raw. */
	if (left < sizeof(pid) + sizeof(tid) + sizeof(time) + sizeof(raw_size))
		return WAKE_REC_BAD;
	memcpy(&pid, p, sizeof(pid));
	memcpy(&tid, p + 4, sizeof(tid));
	memcpy(&time, p + 8, sizeof(time));
	memcpy(&raw_size, p + 16, sizeof(raw_size));
	p += 20;
	left -= 20;
	/* Offsets come from a file: compare without overflowing. */
	if (raw_size > left || fmt->type_off > raw_size || raw_size - fmt->type_off < sizeof(type))
		return WAKE_REC_BAD;
	memcpy(&type, p + fmt->type_off, sizeof(type));
	if (fmt->xmit_type && type == fmt->xmit_type) {
		ev->time = time;
		ev->waker_pid = (pid_t) pid;
		ev->waker_tid = (pid_t) tid;
		return WAKE_REC_XMIT;
	}
	if (fmt->switch_type && type == fmt->switch_type) {
		uint64_t state = 0;
		int32_t next;

		if (fmt->prev_state_off > raw_size ||
		    raw_size - fmt->prev_state_off < fmt->prev_state_size ||
		    fmt->next_pid_off > raw_size || raw_size - fmt->next_pid_off < sizeof(next) ||
		    (fmt->prev_state_size != 4 && fmt->prev_state_size != 8))
			return WAKE_REC_BAD;
		if (fmt->prev_state_size == 4) {
			uint32_t v;

			memcpy(&v, p + fmt->prev_state_off, sizeof(v));
			state = v;
		} else {
			memcpy(&state, p + fmt->prev_state_off, sizeof(state));
		}
		memcpy(&next, p + fmt->next_pid_off, sizeof(next));
		if (next < 0)
			return WAKE_REC_BAD;
		ev->time = time;
		ev->waker_pid = (pid_t) pid;
		ev->waker_tid = (pid_t) tid;
		ev->wakee = next;
		ev->sw = true;
		ev->prev_ready = !(state & WAKE_PREV_STATE_BLOCKED);
		return WAKE_REC_SWITCH;
	}
	if (type != fmt->waking_type || fmt->flags_off >= raw_size ||
	    fmt->pid_off > raw_size || raw_size - fmt->pid_off < sizeof(wakee))
		return WAKE_REC_BAD;
	memcpy(&flags, p + fmt->flags_off, sizeof(flags));
	memcpy(&wakee, p + fmt->pid_off, sizeof(wakee));
	if (wakee <= 0)
		return WAKE_REC_BAD;	/* the idle task is never woken */
	ev->time = time;
	ev->waker_pid = (pid_t) pid;
	ev->waker_tid = (pid_t) tid;
	ev->wakee = wakee;
	ev->irq = (flags & WAKE_TRACE_FLAGS_IRQ) != 0;
	ev->softirq = (flags & WAKE_TRACE_FLAGS_IRQ) == WAKE_TRACE_FLAG_SOFTIRQ;
	return WAKE_REC_WAKING;
}

bool
wake_loopback(const struct wake_xmit *x, struct wake_event *ev)
{
	if (!ev->softirq || !x->tid || x->tid != ev->waker_tid || ev->time < x->time ||
	    ev->time - x->time > WAKE_LOOPBACK_NS)
		return false;
	ev->irq = false;
	return true;
}

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:M;..." line: its name (array
 * brackets dropped) into name, offset and size.  False if not such a line.
 */
static bool
wake_format_line(const char *line, const char *eol, char *name, size_t name_size,
		 unsigned long *off, unsigned long *size)
{
	const char *decl, *semi, *n, *p;
	char *end;

	while (line < eol && (*line == ' ' || *line == '\t'))
		line++;
	if ((size_t) (eol - line) > 6 && !strncmp(line, "field:", 6))
		decl = line + 6;
	else if ((size_t) (eol - line) > 14 && !strncmp(line, "field special:", 14))
		decl = line + 14;
	else
		return false;
	semi = memchr(decl, ';', eol - decl);
	if (!semi)
		return false;
	/* The name is the declaration's last word. */
	n = semi;
	while (n > decl && n[-1] != ' ' && n[-1] != '\t')
		n--;
	for (p = n; p < semi && *p != '['; p++)
		;
	if (p == n || (size_t) (p - n) >= name_size)
		return false;
	memcpy(name, n, p - n);
	name[p - n] = '\0';

	p = semi + 1;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t) (eol - p) < 7 || strncmp(p, "offset:", 7))
		return false;
	p += 7;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	*off = strtoul(p, &end, 10);
	if (errno || end >= eol || *end != ';')
		return false;
	p = end + 1;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t) (eol - p) < 5 || strncmp(p, "size:", 5))
		return false;
	p += 5;
	if (*p < '0' || *p > '9')
		return false;
	*size = strtoul(p, &end, 10);
	if (errno || end >= eol || *end != ';')
		return false;
	return true;
}

/* Field offsets past this are refused: a record is tens of bytes. */
#define WAKE_MAX_FIELD_OFF 4096UL

/*
 * The field called name in a format file's text, with its offset and
 * size, if there is exactly one (twice would be ambiguous).
 */
static bool
wake_find_field(const char *text, const char *name, unsigned long *off, unsigned long *size)
{
	int found = 0;

	while (*text) {
		const char *eol = strchr(text, '\n');
		char n[64];
		unsigned long o, sz;

		if (!eol)
			eol = text + strlen(text);
		if (wake_format_line(text, eol, n, sizeof(n), &o, &sz) && !strcmp(n, name)) {
			if (found++)
				return false;
			*off = o;
			*size = sz;
		}
		text = *eol ? eol + 1 : eol;
	}
	return found == 1 && *off < WAKE_MAX_FIELD_OFF;
}

bool
wake_parse_format(const char *text, struct wake_format *fmt)
{
	unsigned long type_off, type_size, flags_off, flags_size, pid_off, pid_size;

	memset(fmt, 0, sizeof(*fmt));
	if (!wake_find_field(text, "common_type", &type_off, &type_size) || type_size != 2 ||
	    !wake_find_field(text, "common_flags", &flags_off, &flags_size) || flags_size != 1 ||
	    !wake_find_field(text, "pid", &pid_off, &pid_size) || pid_size != 4)
		return false;
	fmt->type_off = type_off;
	fmt->flags_off = flags_off;
	fmt->pid_off = pid_off;
	return true;
}

bool
wake_parse_switch_format(const char *text, struct wake_format *fmt)
{
	unsigned long state_off, state_size, next_off, next_size;

	if (!wake_find_field(text, "prev_state", &state_off, &state_size) ||
	    (state_size != 4 && state_size != 8) ||
	    !wake_find_field(text, "next_pid", &next_off, &next_size) || next_size != 4)
		return false;
	fmt->prev_state_off = state_off;
	fmt->prev_state_size = state_size;
	fmt->next_pid_off = next_off;
	return true;
}

/*
 * Read a small file whole, NUL-terminated, into buf.  Returns the length
 * or -errno (-EFBIG when it does not fit).
 */
static ssize_t
wake_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			return -err;
		}
		if (n == 0)
			break;
		len += n;
		if (len == size - 1) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/*
 * Find the event's directory in a mounted tracefs, mounting it if need
 * be.  Returns 0 with path filled, or -errno and *why.
 */
static int
wake_find_event(char *path, size_t size, const char **why)
{
	bool denied = false;
	bool mounted = false;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < WAKE_NDIRS; i++) {
			char events[64];

			snprintf(path, size, "%s/" WAKE_EVENT_DIR "/id", wake_tracefs_dirs[i]);
			/* As open would: with the effective ids. */
			if (!faccessat(AT_FDCWD, path, R_OK, AT_EACCESS)) {
				snprintf(path, size, "%s/" WAKE_EVENT_DIR, wake_tracefs_dirs[i]);
				return 0;
			}
			if (errno == EACCES || errno == EPERM)
				denied = true;
			snprintf(events, sizeof(events), "%s/events", wake_tracefs_dirs[i]);
			if (!faccessat(AT_FDCWD, events, F_OK, AT_EACCESS))
				mounted = true;
			else if (errno == EACCES)
				denied = true;
		}
		if (denied) {
			*why = "tracefs is not readable (sched_waking's id is root-only: need root)";
			return -EACCES;
		}
		if (mounted) {
			*why = "tracefs has no sched:sched_waking event (kernel without it?)";
			return -ENOENT;
		}
		if (pass)
			break;
		/* Nothing mounted anywhere: do what perf does, mount it. */
		if (geteuid() != 0) {
			*why = "tracefs is not mounted and cannot be mounted (not root)";
			return -EPERM;
		}
		/*
		 * Left mounted at close: another user of tracefs may have
		 * started using it meanwhile, and a mounted tracefs costs
		 * nothing.
		 */
		if (mount("nodev", wake_tracefs_dirs[0], "tracefs", 0, NULL) < 0) {
			int err = errno;

			if (err == ENOENT || err == ENOTDIR)
				*why = "tracefs is not mounted and /sys/kernel/tracing does not exist to mount it on";
			else if (err == ENODEV)
				*why = "tracefs is not mounted and this kernel has no tracefs (CONFIG_TRACING)";
			else if (err == EPERM || err == EACCES)
				*why = "tracefs is not mounted and cannot be mounted (mount refused: no CAP_SYS_ADMIN in this namespace?)";
			else
				*why = "tracefs is not mounted and mounting it on /sys/kernel/tracing failed";
			return -err;
		}
	}
	*why = "tracefs mounted on /sys/kernel/tracing has no sched:sched_waking event";
	return -ENOENT;
}

/* Online CPUs from sysfs ("0-3,5"), or 0..nprocs-1 if it is unreadable. */
static size_t
wake_online_cpus(int **cpus)
{
	char buf[4096];
	size_t n = 0, alloc = 0;
	const char *p = buf;
	int *v = NULL;

	if (wake_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		if (c < 1)
			c = 1;
		v = xcalloc(c, sizeof(*v));
		for (long i = 0; i < c; i++)
			v[n++] = i;
		*cpus = v;
		return n;
	}
	while (*p >= '0' && *p <= '9') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (b < a || b > 1 << 20)
			break;
		for (long i = a; i <= b; i++) {
			if (n == alloc)
				v = xgrowarray(v, &alloc, n + 1, sizeof(*v));
			v[n++] = i;
		}
		if (*end != ',')
			break;
		p = end + 1;
	}
	*cpus = v;
	return n;
}

static const char *
wake_perf_why(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "perf_event_paranoid forbids per-CPU raw tracepoint events (need root or CAP_PERFMON)";
	case ENOSYS:
		return "this kernel has no perf events (CONFIG_PERF_EVENTS)";
	case ENOENT:
	case EINVAL:
		return "perf_event_open refused the sched_waking tracepoint event (kernel without use_clockid or tracepoint perf support?)";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors opening one sched_waking event per CPU";
	case EBUSY:
		return "perf_event_open: sched_waking event busy";
	default:
		return "perf_event_open of the per-CPU sched_waking events failed";
	}
}

static void
wake_attr(struct perf_event_attr *attr, uint64_t id)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	attr->sample_period = 1;
	attr->sample_type = WAKE_SAMPLE_TYPE;
	/* Same clock as the sampler's samples, to line them up. */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
}

/*
 * Another event of the CPU (net:netif_rx, sched:sched_switch), written
 * into the sched_waking ring so that all come in the order they
 * happened.  Optional: without netif_rx a loopback wake-up counts as an
 * interrupt's; without sched_switch, waits for a CPU are not followed.
 * Returns its fd or -1.
 */
static int
wake_open_extra(struct wake_cpu *c, uint64_t id)
{
	struct perf_event_attr attr;
	int fd;

	wake_attr(&attr, id);
	fd = perf_sys_open(&attr, -1, c->cpu);
	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int
wake_open_cpu(struct wake_cpu *c, uint64_t id, uint64_t xmit_id, uint64_t switch_id,
	      const char **why)
{
	struct perf_event_attr attr;
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned pages = WAKE_RING_PAGES;
	void *map;
	int fd;

	c->xmit_fd = -1;
	c->switch_fd = -1;
	wake_attr(&attr, id);
	fd = perf_sys_open(&attr, -1, c->cpu);
	if (fd < 0) {
		int err = errno;

		*why = wake_perf_why(err);
		return -err;
	}
	map = perf_sys_map_ring(fd, &pages, page);
	if (map == MAP_FAILED) {
		int err = errno;

		close(fd);
		*why = err == EPERM ?
		       "perf_event_mlock_kb is too small for one ring per CPU (need CAP_IPC_LOCK or a larger kernel.perf_event_mlock_kb)" :
		       "mmap of a per-CPU sched_waking ring failed";
		return -err;
	}
	c->fd = fd;
	c->map = map;
	c->map_size = (pages + 1) * page;
	perf_ring_init(&c->ring, map, (unsigned char *) map + page, pages * page);
	if (xmit_id)
		c->xmit_fd = wake_open_extra(c, xmit_id);
	if (switch_id)
		c->switch_fd = wake_open_extra(c, switch_id);
	return 0;
}

/* An event's id from its tracefs directory; 0 if unreadable. */
static uint64_t
wake_event_id(const char *dir)
{
	char path[192], buf[64], *end;
	uint64_t id;

	snprintf(path, sizeof(path), "%s/id", dir);
	if (wake_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	errno = 0;
	id = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return 0;
	return id;
}

int
wake_open(struct wake **out, wake_cb cb, void *ctx, bool switches, const char **why)
{
	char dir[128], path[160], buf[8192];
	struct wake_format fmt;
	struct wake *w;
	int *cpus = NULL;
	size_t ncpus, rootlen;
	ssize_t len;
	uint64_t id, xmit_id, switch_id;
	int err;

	*out = NULL;
	*why = NULL;
	err = wake_find_event(dir, sizeof(dir), why);
	if (err < 0)
		return err;

	/* common_type is 16 bits: a larger id could not be told apart. */
	id = wake_event_id(dir);
	if (!id || id > UINT16_MAX) {
		*why = "cannot read the sched_waking event's id from tracefs";
		return -EPROTO;
	}

	snprintf(path, sizeof(path), "%s/format", dir);
	len = wake_read_file(path, buf, sizeof(buf));
	if (len < 0) {
		*why = "cannot read the sched_waking event's format from tracefs";
		return (int) len;
	}
	if (!wake_parse_format(buf, &fmt)) {
		*why = "the sched_waking format lacks common_type (2 bytes), common_flags (1 byte) or pid (4 bytes)";
		return -EPROTO;
	}
	fmt.waking_type = (uint16_t) id;
	/* The same tracefs, the loopback transmit's event: optional. */
	rootlen = strlen(dir) - strlen(WAKE_EVENT_DIR);
	snprintf(path, sizeof(path), "%.*s" WAKE_XMIT_DIR, (int) rootlen, dir);
	xmit_id = wake_event_id(path);
	if (xmit_id > UINT16_MAX || xmit_id == id)
		xmit_id = 0;
	fmt.xmit_type = (uint16_t) xmit_id;
	/* And the context switch's, also optional, with its own layout. */
	snprintf(path, sizeof(path), "%.*s" WAKE_SWITCH_DIR, (int) rootlen, dir);
	switch_id = switches ? wake_event_id(path) : 0;
	if (switch_id > UINT16_MAX || switch_id == id || switch_id == xmit_id)
		switch_id = 0;
	if (switch_id) {
		snprintf(path, sizeof(path), "%.*s" WAKE_SWITCH_DIR "/format", (int) rootlen, dir);
		if (wake_read_file(path, buf, sizeof(buf)) < 0 ||
		    !wake_parse_switch_format(buf, &fmt))
			switch_id = 0;
	}
	fmt.switch_type = (uint16_t) switch_id;

	ncpus = wake_online_cpus(&cpus);
	if (!ncpus) {
		free(cpus);
		*why = "cannot tell which CPUs are online (/sys/devices/system/cpu/online)";
		return -ENOENT;
	}
	w = xcalloc(1, sizeof(*w));
	w->cb = cb;
	w->ctx = ctx;
	w->fmt = fmt;
	w->cpus = xcalloc(ncpus, sizeof(*w->cpus));
	w->stats.xmit_watched = xmit_id != 0;
	w->stats.switch_watched = switch_id != 0;
	for (size_t i = 0; i < ncpus; i++) {
		struct wake_cpu *c = &w->cpus[w->ncpus];

		c->w = w;
		c->cpu = cpus[i];
		err = wake_open_cpu(c, id, xmit_id, switch_id, why);
		/* Gone offline since we read the list: nothing to watch there. */
		if (err == -ENODEV)
			continue;
		if (err < 0) {
			free(cpus);
			wake_close(w);
			return err;
		}
		if (c->xmit_fd < 0)
			w->stats.xmit_watched = false;
		if (c->switch_fd < 0)
			w->stats.switch_watched = false;
		w->ncpus++;
	}
	free(cpus);
	/* Followed on some CPUs only, a wait would be half seen: on none. */
	for (size_t i = 0; i < w->ncpus && !w->stats.switch_watched; i++) {
		if (w->cpus[i].switch_fd >= 0)
			close(w->cpus[i].switch_fd);
		w->cpus[i].switch_fd = -1;
	}
	if (!w->ncpus) {
		wake_close(w);
		*why = "every CPU went offline while opening the sched_waking events";
		return -ENODEV;
	}
	*why = NULL;
	*out = w;
	return 0;
}

void
wake_close(struct wake *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->ncpus; i++) {
		perf_ring_fini(&w->cpus[i].ring);
		munmap(w->cpus[i].map, w->cpus[i].map_size);
		if (w->cpus[i].xmit_fd >= 0)
			close(w->cpus[i].xmit_fd);
		if (w->cpus[i].switch_fd >= 0)
			close(w->cpus[i].switch_fd);
		close(w->cpus[i].fd);
	}
	free(w->cpus);
	free(w);
}

static void
wake_on_record(void *arg, const struct perf_event_header *rec)
{
	struct wake_cpu *c = arg;
	struct wake *w = c->w;
	struct wake_event ev;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		switch (wake_parse(rec, &w->fmt, &ev)) {
		case WAKE_REC_BAD:
			w->stats.bad++;
			return;
		case WAKE_REC_XMIT:
			c->xmit = (struct wake_xmit) { ev.waker_tid, ev.time };
			w->stats.xmits++;
			return;
		case WAKE_REC_SWITCH:
			ev.cpu = c->cpu;
			w->stats.switches++;
			w->cb(w->ctx, &ev);
			return;
		case WAKE_REC_WAKING:
			break;
		}
		if (wake_loopback(&c->xmit, &ev))
			w->stats.loopback++;
		w->stats.events++;
		w->cb(w->ctx, &ev);
		break;
	case PERF_RECORD_LOST: {
		/* struct { header; u64 id; u64 lost; } */
		uint64_t v[2];

		if (rec->size < sizeof(*rec) + sizeof(v)) {
			w->stats.bad++;
			return;
		}
		memcpy(v, rec + 1, sizeof(v));
		w->stats.lost += v[1];
		/* What came between is unknown: no transmit to go by. */
		c->xmit.tid = 0;
		break;
	}
	default:
		/* Throttling and the like: nothing about wake-ups. */
		break;
	}
}

void
wake_drain(struct wake *w)
{
	for (size_t i = 0; i < w->ncpus; i++) {
		struct perf_ring *r = &w->cpus[i].ring;

		perf_ring_read(r, wake_on_record, &w->cpus[i]);
		w->stats.bad += r->bad_records;
		r->bad_records = 0;
	}
}

const struct wake_stats *
wake_stats(const struct wake *w)
{
	return &w->stats;
}
