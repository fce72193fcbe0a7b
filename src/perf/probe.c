/*
 * The counters of progress points (probe.h): a hardware breakpoint or a
 * uprobe per point and thread, opened by the supervisor.  Specs are
 * parsed by sym/probe_spec.c and found in the process by
 * sym/probe_addr.c, over the symbolizer's Dwfl.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "perf/perf_sys.h"
#include "perf/probe.h"
#include "sym/disasm.h"
#include "sym/probe_addr.h"
#include "sym/probe_spec.h"

/* Not in every libc's errno.h: the kernel's "operation not supported". */
enum { PROBE_ENOTSUPP = 524 };
/* Ours: breakpoints open here but never fire (probe_breakpoints_dead). */
enum { PROBE_EBPDEAD = 4096 };
const char probe_bp_dead_msg[] = "hardware breakpoint events open but never fire "
				 "on this machine (a virtual machine without debug registers?)";

/* The kernel's refusal of breakpoints was said (a warning for the session). */
static unsigned probe_said_no_bp;

static const char probe_uprobe_type_path[] =
	"/sys/bus/event_source/devices/uprobe/type";

static const char *const probe_mode_names[] = {
	[PROBE_AUTO] = "auto",
	[PROBE_BREAKPOINT] = "breakpoint",
	[PROBE_UPROBE] = "uprobe",
	[PROBE_PATCH] = "patch",
};

struct probe {
	struct probe_spec spec;	/* its text as given */
	char *name;
	enum probe_kind kind;
	enum probe_state state;
	struct probe_addr at;	/* where it resolved, in this image */

	bool want_uprobe;	/* a thread had no debug register left */
	bool used_bp, used_uprobe, used_patch;
	int slot;		/* patched in this image (patch ops' slot), or -1 */
	uint64_t patch_last;	/* its count at the last read */
	uint64_t gone;		/* counts of closed counters, and of images gone */
	uint64_t uprobe_next;	/* the instruction after at.addr; 0: unknown */
	bool uprobe_next_tried;
};

struct probe_thread {
	pid_t tid;
	bool live;		/* counters open: not retired by a new image */
	struct probe_thread *prev, *next;
	size_t nfds;
	int *fds;		/* by probe index; -1: none */
	uint64_t *bp_addr;	/* where fds[i] is a breakpoint; else 0 */
	uint64_t *trap_ip;	/* where a sample after fds[i]'s trap lands; 0: none */
};

struct probe_set {
	enum probe_mode mode;
	struct probe *probes;
	size_t nprobes, alloc;
	struct probe_thread *threads;	/* every handle not closed */
	int uprobe_type;	/* -1: not read yet, -2: none */
	bool bp_unsupported;	/* the kernel refused breakpoints as such */
	const struct probe_patch_ops *patch;	/* NULL: no patching */
	void *patch_ctx;
	pid_t pid;		/* the process it was last resolved in */
};

int
probe_mode_from_name(const char *name)
{
	size_t n = sizeof(probe_mode_names) / sizeof(*probe_mode_names);

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(name, probe_mode_names[i]))
			return (int) i;
	}
	return -1;
}

/* Auto mode counts every point with uprobes when they are more than PROBE_BP_SLOTS. */
static bool
probe_auto_all_uprobes(size_t nprobes)
{
	return nprobes > PROBE_BP_SLOTS;
}

/* --- counters ----------------------------------------------------------- */

static uint64_t
probe_read_fd(int fd)
{
	uint64_t v;
	ssize_t n;

	do {
		n = read(fd, &v, sizeof(v));
	} while (n < 0 && errno == EINTR);
	return n == sizeof(v) ? v : 0;
}

static void
probe_explain(const struct probe *p, pid_t tid, const char *mech, int err)
{
	errno = err;
	if (err == PROBE_EBPDEAD)
		error_msg("cannot count progress point '%s' at %s on thread %d "
			  "with a breakpoint: %s%s", p->name, p->at.where, (int) tid,
			  probe_bp_dead_msg,
			  p->at.bp_only ? "" : "; --probe-mode=uprobe counts it");
	else if (err == PROBE_ENOTSUPP)
		error_msg("cannot count progress point '%s' at %s on thread %d "
			  "with a %s: uprobes cannot handle the instruction "
			  "there", p->name, p->at.where, (int) tid, mech);
	else
		perror_msg("cannot count progress point '%s' at %s on thread %d "
			   "with a %s", p->name, p->at.where, (int) tid, mech);
	if ((err == EACCES || err == EPERM) && !strcmp(mech, "uprobe"))
		error_msg("uprobe events need CAP_PERFMON (or root)");
	else if (err == EACCES || err == EPERM)
		error_msg("kernel.perf_event_paranoid is %d: counting another "
			  "process's threads needs <= 2 and the same user, or "
			  "CAP_PERFMON (or root)",
			  procfs_read_int("/proc/sys/kernel/perf_event_paranoid",
					      99));
	else if (err == ENOSPC && p->at.bp_only)
		error_msg("out of debug registers on that thread (x86 has 4, "
			  "shared with debuggers' watchpoints), and an address "
			  "that is neither a function's entry nor a line's "
			  "start is never given to a uprobe");
	else if (err == ENOSPC)
		error_msg("out of debug registers on that thread (x86 has 4, "
			  "shared with debuggers' watchpoints): use "
			  "--probe-mode=auto to count the others with uprobes");
	else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		error_msg("this kernel or machine offers no %s events", mech);
	else if (err == EMFILE || err == ENFILE)
		error_msg("one counter per progress point per thread: raise "
			  "the limit on open files (ulimit -n)");
	else if (err == EINVAL && p->at.bp_only)
		error_msg("0x%" PRIx64 " is not known to start an instruction",
			  p->at.addr);
}

static int
probe_uprobe_type(struct probe_set *ps)
{
	if (ps->uprobe_type == -1) {
		ps->uprobe_type = procfs_read_int(probe_uprobe_type_path, -2);
		if (ps->uprobe_type < 0)
			ps->uprobe_type = -2;
	}
	return ps->uprobe_type;
}

static int
probe_open_bp(const struct probe *p, pid_t tid)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = p->at.addr;
	/* What the kernel requires of execute breakpoints. */
	attr.bp_len = sizeof(long);
	/* Counting only: user mode, and permitted at perf_event_paranoid 2. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return perf_sys_open(&attr, tid, -1);
}

/* The self-test's target: called with a breakpoint on its entry. */
static void __attribute__((noinline))
probe_bp_canary(void)
{
	__asm__ volatile("" ::: "memory");
}

/*
 * Some hypervisors accept breakpoint events and never fire them (seen on
 * a Firecracker VM: the counter opens and stays 0), so a breakpoint that
 * opens proves nothing.  Ours counts three calls of a function of our
 * own, once.  A refusal to open is not a verdict: each counter then
 * reports its own errno.
 */
bool
probe_breakpoints_dead(void)
{
	static int dead = -1;
	struct perf_event_attr attr;
	int fd;

	if (dead >= 0)
		return dead;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (uint64_t) (uintptr_t) probe_bp_canary;
	attr.bp_len = sizeof(long);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = perf_sys_open(&attr, 0, -1);
	if (fd < 0)
		return false;
	for (int i = 0; i < 3; i++)
		probe_bp_canary();
	dead = probe_read_fd(fd) != 3;
	close(fd);
	if (dead)
		debug_msg("hardware breakpoint self-test: the counter opened "
			  "but did not count");
	return dead;
}

static int
probe_open_uprobe(struct probe_set *ps, const struct probe *p, pid_t tid)
{
	struct perf_event_attr attr;
	int type = probe_uprobe_type(ps);

	if (type < 0) {
		errno = ENOENT;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t) type;
	attr.config = 0;	/* the "retprobe" bit: entry, not return */
	attr.config1 = (uint64_t) (uintptr_t) p->at.upath;
	attr.config2 = p->at.uoffset;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return perf_sys_open(&attr, tid, -1);
}

/* A jump, call or return: the thread goes on elsewhere than after it. */
static bool
probe_insn_branches(const char *text)
{
	static const char *const prefixes[] = { "bnd ", "notrack ", "rep ", "repz " };
	static const char *const ops[] = { "j", "call", "ret", "loop", "int", "syscall",
					   "sysenter", "ud" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(text, prefixes[i], strlen(prefixes[i])))
			text += strlen(prefixes[i]);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(text, ops[i], strlen(ops[i])))
			return true;
	return false;
}

/*
 * Where the thread resumes after a uprobe's hit on a straight-line
 * instruction: the one after it, emulated or stepped out of line.  After
 * a branch it is the branch's target, not known here: 0.  Read from the
 * file the uprobe is set in, decoded once per image.
 */
static uint64_t
probe_uprobe_next(struct probe *p)
{
	unsigned char code[16];
	struct disasm_insn *insn = NULL;
	const char *why;
	ssize_t n = -1;
	int fd;

	if (p->uprobe_next_tried)
		return p->uprobe_next;
	p->uprobe_next_tried = true;
	fd = p->at.upath ? open(p->at.upath, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = pread(fd, code, sizeof(code), (off_t) p->at.uoffset);
		close(fd);
	}
	if (n > 0 && disasm_code(code, (size_t) n, p->at.addr, 1, &insn, &why) == 1 &&
	    !probe_insn_branches(insn[0].text))
		p->uprobe_next = p->at.addr + insn[0].size;
	free(insn);
	return p->uprobe_next;
}

/*
 * Where a sample that a trap of p put there lands (probe_thread_trap_at
 * in probe.h): a breakpoint's address, or the instruction after a
 * uprobe's.
 */
static uint64_t
probe_trap_ip(struct probe *p, uint64_t bp_addr)
{
	return bp_addr ? bp_addr : probe_uprobe_next(p);
}

static bool
probe_auto_uprobe(const struct probe_set *ps, const struct probe *p)
{
	return p->want_uprobe || ps->bp_unsupported || probe_auto_all_uprobes(ps->nprobes);
}

/*
 * One counter for p on tid: 0 with *fd and, when it is a breakpoint, its
 * address in *bp_addr (else 0); or -errno (printed but ESRCH).
 */
static int
probe_open_counter(struct probe_set *ps, struct probe *p, pid_t tid, int *fd,
		   uint64_t *bp_addr)
{
	int err;

	*bp_addr = 0;
	if (ps->mode == PROBE_BREAKPOINT || p->at.bp_only ||
	    (ps->mode == PROBE_AUTO && !probe_auto_uprobe(ps, p))) {
		if (probe_breakpoints_dead()) {
			*fd = -1;
			errno = PROBE_EBPDEAD;
		} else {
			*fd = probe_open_bp(p, tid);
		}
		if (*fd >= 0) {
			p->used_bp = true;
			*bp_addr = p->at.addr;
			return 0;
		}
		err = errno;
		if (err == ESRCH)
			return -ESRCH;
		if (ps->mode == PROBE_BREAKPOINT || p->at.bp_only ||
		    (err != ENOSPC && err != ENOENT && err != EOPNOTSUPP &&
		     err != ENODEV && err != PROBE_EBPDEAD)) {
			probe_explain(p, tid, "breakpoint", err);
			return -err;
		}
		if (err == ENOSPC) {
			/* Another thread would refuse as well: go straight on. */
			p->want_uprobe = true;
			error_msg("warning: progress point '%s': thread %d has "
				  "no debug register left (the program uses them); "
				  "counting it with a uprobe beside breakpoints, "
				  "which Linux has been seen to kill a process for "
				  "with a stray SIGTRAP (--probe-mode=uprobe avoids "
				  "it)", p->name, (int) tid);
		} else if (err == PROBE_EBPDEAD) {
			ps->bp_unsupported = true;
			/* Once, not once per process counted. */
			if (!probe_said_no_bp++)
				error_msg("warning: %s; counting progress points with "
					  "uprobes, which cost more per hit", probe_bp_dead_msg);
		} else if (probe_said_no_bp++) {
			ps->bp_unsupported = true;
		} else {
			ps->bp_unsupported = true;
			errno = err;
			perror_msg("warning: no hardware breakpoint events; "
				   "counting progress points with uprobes, "
				   "which cost more per hit");
		}
	}
	*fd = probe_open_uprobe(ps, p, tid);
	if (*fd >= 0) {
		p->used_uprobe = true;
		return 0;
	}
	err = errno;
	if (err == ESRCH)
		return -ESRCH;
	probe_explain(p, tid, "uprobe", err);
	if (ps->mode == PROBE_AUTO && probe_auto_uprobe(ps, p))
		error_msg("it needed a uprobe: %s", p->want_uprobe ?
			  "every debug register of the thread was taken (x86 "
			  "has 4)" : ps->bp_unsupported ?
			  "the kernel offers no hardware breakpoints" :
			  "more progress points than debug registers (x86 has 4)");
	return -err;
}

static void
probe_thread_grow(struct probe_thread *t, size_t n)
{
	if (t->nfds >= n)
		return;
	t->fds = xrealloc(t->fds, n * sizeof(*t->fds));
	t->bp_addr = xrealloc(t->bp_addr, n * sizeof(*t->bp_addr));
	t->trap_ip = xrealloc(t->trap_ip, n * sizeof(*t->trap_ip));
	for (; t->nfds < n; t->nfds++) {
		t->fds[t->nfds] = -1;
		t->bp_addr[t->nfds] = 0;
		t->trap_ip[t->nfds] = 0;
	}
}

/* Counts into the totals, counters closed; the handle stays listed. */
static void
probe_thread_retire(struct probe_set *ps, struct probe_thread *t)
{
	for (size_t i = 0; i < t->nfds; i++) {
		if (t->fds[i] < 0)
			continue;
		ps->probes[i].gone += probe_read_fd(t->fds[i]);
		close(t->fds[i]);
		t->fds[i] = -1;
		t->bp_addr[i] = 0;
		t->trap_ip[i] = 0;
	}
	t->live = false;
}

static void
probe_thread_free(struct probe_set *ps, struct probe_thread *t)
{
	probe_thread_retire(ps, t);
	if (t->prev)
		t->prev->next = t->next;
	else
		ps->threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	free(t->fds);
	free(t->bp_addr);
	free(t->trap_ip);
	free(t);
}

/* --- API ---------------------------------------------------------------- */

struct probe_set *
probe_set_new(enum probe_mode mode)
{
	struct probe_set *ps = xcalloc(1, sizeof(*ps));

	ps->mode = mode;
	ps->uprobe_type = -1;
	return ps;
}

static void
probe_forget(struct probe *p)
{
	probe_addr_clear(&p->at);
	p->uprobe_next = 0;
	p->uprobe_next_tried = false;
	p->want_uprobe = false;
	p->state = PROBE_PENDING;
	/* Its hits in the image gone stay counted. */
	p->gone += p->patch_last;
	p->patch_last = 0;
	p->slot = -1;
}

void
probe_set_patcher(struct probe_set *ps, const struct probe_patch_ops *ops, void *ctx)
{
	ps->patch = ops;
	ps->patch_ctx = ctx;
}

/* The patched-in count of p, kept as it was when it cannot be read. */
static uint64_t
probe_patch_read(struct probe_set *ps, struct probe *p)
{
	uint64_t v;

	if (p->slot < 0)
		return 0;
	v = ps->patch->count(ps->patch_ctx, ps->pid, p->slot);
	if (v > p->patch_last)
		p->patch_last = v;
	return p->patch_last;
}

void
probe_patch_sync(struct probe_set *ps)
{
	for (size_t i = 0; i < ps->nprobes; i++)
		probe_patch_read(ps, &ps->probes[i]);
}

/*
 * Count p inside the target if the mode allows it: true when patched in.
 * Refused in auto mode, it is counted by threads, with a note; in patch
 * mode that is an error (printed: *printed).
 */
static bool
probe_try_patch(struct probe_set *ps, struct probe *p, bool *printed)
{
	const char *why = "no patcher";
	int slot = -1;

	if (ps->mode != PROBE_AUTO && ps->mode != PROBE_PATCH)
		return false;
	if (!ps->patch && ps->mode == PROBE_AUTO)
		return false;
	if (p->at.bp_only)
		why = "not known to start an instruction";
	else if (ps->patch)
		slot = ps->patch->patch(ps->patch_ctx, ps->pid, &p->at, &why);
	if (slot >= 0) {
		p->slot = slot;
		p->used_patch = true;
		return true;
	}
	if (ps->mode == PROBE_PATCH) {
		error_msg("progress point '%s' at %s cannot be patched in: %s", p->name,
			  p->at.where, why);
		p->state = PROBE_FAILED;
		*printed = true;
		return true;
	}
	error_msg("progress point '%s' at %s: counted with traps, not patched in: %s",
		  p->name, p->at.where, why);
	return false;
}

void
probe_set_free(struct probe_set *ps)
{
	if (!ps)
		return;
	while (ps->threads)
		probe_thread_free(ps, ps->threads);
	for (size_t i = 0; i < ps->nprobes; i++) {
		struct probe *p = &ps->probes[i];

		probe_forget(p);
		probe_spec_free(&p->spec);
		free(p->name);
	}
	free(ps->probes);
	free(ps);
}

int
probe_add(struct probe_set *ps, const char *spec, enum probe_kind kind,
	  const char *name)
{
	struct probe p = { .kind = kind, .state = PROBE_PENDING, .slot = -1 };

	if (probe_spec_parse(&p.spec, spec))
		return -1;
	p.name = xstrdup(name ? name : spec);
	if (ps->nprobes == ps->alloc)
		ps->probes = xgrowarray(ps->probes, &ps->alloc, ps->nprobes + 1,
					sizeof(*ps->probes));
	ps->probes[ps->nprobes] = p;
	return (int) ps->nprobes++;
}

struct probe_set *
probe_set_clone(const struct probe_set *ps)
{
	struct probe_set *c = probe_set_new(ps->mode);

	probe_set_patcher(c, ps->patch, ps->patch_ctx);

	for (size_t i = 0; i < ps->nprobes; i++) {
		const struct probe *p = &ps->probes[i];

		/* Parsed once already: it parses again. */
		if (probe_add(c, p->spec.text, p->kind, p->name) < 0)
			abort();
	}
	return c;
}

/* Open the probe just resolved on every live thread; -1 when printed. */
static int
probe_open_on_live(struct probe_set *ps, size_t i)
{
	int rc = 0;

	for (struct probe_thread *t = ps->threads; t; t = t->next) {
		uint64_t bp_addr;
		int fd, err;

		if (!t->live)
			continue;
		probe_thread_grow(t, ps->nprobes);
		err = probe_open_counter(ps, &ps->probes[i], t->tid, &fd, &bp_addr);
		if (!err) {
			t->fds[i] = fd;
			t->bp_addr[i] = bp_addr;
			t->trap_ip[i] = probe_trap_ip(&ps->probes[i], bp_addr);
		} else if (err != -ESRCH) {
			rc = -1;	/* it exits: probe_thread_close comes */
		}
	}
	return rc;
}

/* What the resolver must know of how points will be counted. */
static enum probe_addr_use
probe_use(const struct probe_set *ps)
{
	if (ps->mode == PROBE_UPROBE)
		return PROBE_USE_UPROBE;
	if (ps->mode == PROBE_AUTO && probe_auto_all_uprobes(ps->nprobes))
		return PROBE_USE_UPROBES_AUTO;
	return PROBE_USE_ANY;
}

int
probe_resolve(struct probe_set *ps, pid_t pid, struct sym_proc *sp, unsigned flags)
{
	bool quiet = flags & PROBE_RESOLVE_QUIET;
	bool printed = false, all = true, todo = false;
	struct probe_image *img = NULL;

	if (!(flags & PROBE_RESOLVE_MORE)) {
		/* A new image: the old addresses mean nothing in it. */
		for (struct probe_thread *t = ps->threads; t; t = t->next)
			probe_thread_retire(ps, t);
		/* The old counters went with it: their last reads stay. */
		for (size_t i = 0; i < ps->nprobes; i++)
			probe_forget(&ps->probes[i]);
		if (ps->patch)
			ps->patch->forget(ps->patch_ctx, ps->pid);
	}
	ps->pid = pid;
	for (size_t i = 0; i < ps->nprobes; i++)
		todo |= ps->probes[i].state == PROBE_PENDING;
	if (todo && !(img = probe_image_open(sp, pid)))
		return -1;
	for (size_t i = 0; i < ps->nprobes && todo; i++) {
		struct probe *p = &ps->probes[i];

		if (p->state != PROBE_PENDING)
			continue;
		p->state = probe_addr_resolve(&p->spec, img, probe_use(ps),
					      (flags & PROBE_RESOLVE_STARTED) ?
					      p->spec.dso && !probe_addr_dso_mapped(p->spec.dso, img) :
					      quiet, &printed, &p->at);
		if (p->state == PROBE_RESOLVED && !probe_try_patch(ps, p, &printed) &&
		    probe_open_on_live(ps, i))
			printed = true;
	}
	probe_image_close(img);
	for (size_t i = 0; i < ps->nprobes; i++)
		all &= ps->probes[i].state == PROBE_RESOLVED;
	return printed ? -1 : !all;
}

bool
probe_pending(const struct probe_set *ps)
{
	for (size_t i = 0; i < ps->nprobes; i++)
		if (ps->probes[i].state == PROBE_PENDING)
			return true;
	return false;
}

bool
probe_resolved(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].state == PROBE_RESOLVED;
}

int
probe_thread_open(struct probe_set *ps, pid_t tid, struct probe_thread **thread)
{
	struct probe_thread *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	probe_thread_grow(t, ps->nprobes);
	for (size_t i = 0; i < ps->nprobes; i++) {
		int err;

		if (ps->probes[i].state != PROBE_RESOLVED || ps->probes[i].slot >= 0)
			continue;
		err = probe_open_counter(ps, &ps->probes[i], tid, &t->fds[i],
					 &t->bp_addr[i]);
		if (err) {
			for (size_t j = 0; j < i; j++) {
				if (t->fds[j] >= 0)
					close(t->fds[j]);
			}
			free(t->fds);
			free(t->bp_addr);
			free(t->trap_ip);
			free(t);
			*thread = NULL;
			return err;
		}
		t->trap_ip[i] = probe_trap_ip(&ps->probes[i], t->bp_addr[i]);
	}
	t->live = true;
	t->next = ps->threads;
	if (t->next)
		t->next->prev = t;
	ps->threads = t;
	*thread = t;
	return 0;
}

/* Does an open counter of t have addr in its slot of at[] (bp_addr, trap_ip)? */
static bool
probe_thread_has(const struct probe_thread *t, const uint64_t *at, uint64_t addr)
{
	for (size_t i = 0; addr && i < t->nfds; i++) {
		if (t->fds[i] >= 0 && at[i] == addr)
			return true;
	}
	return false;
}

bool
probe_thread_bp_at(const struct probe_thread *t, uint64_t addr)
{
	return t && probe_thread_has(t, t->bp_addr, addr);
}

bool
probe_thread_trap_at(const struct probe_thread *t, uint64_t ip)
{
	return t && probe_thread_has(t, t->trap_ip, ip);
}

void
probe_thread_close(struct probe_set *ps, struct probe_thread *t)
{
	if (t)
		probe_thread_free(ps, t);
}

uint64_t
probe_count(struct probe_set *ps, unsigned i)
{
	uint64_t n = ps->probes[i].gone + probe_patch_read(ps, &ps->probes[i]);

	/* Retired handles have no counters open: -1 everywhere. */
	for (const struct probe_thread *t = ps->threads; t; t = t->next) {
		if (i < t->nfds && t->fds[i] >= 0)
			n += probe_read_fd(t->fds[i]);
	}
	return n;
}

unsigned
probe_nprobes(const struct probe_set *ps)
{
	return (unsigned) ps->nprobes;
}

const char *
probe_name(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].name;
}

enum probe_kind
probe_kind_of(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].kind;
}

const char *
probe_mechanism(const struct probe_set *ps, unsigned i)
{
	const struct probe *p = &ps->probes[i];

	if (p->slot >= 0 || (p->used_patch && !p->used_bp && !p->used_uprobe))
		return "patch";
	if (p->used_bp && p->used_uprobe)
		return "breakpoint+uprobe";
	if (p->used_bp)
		return "breakpoint";
	if (p->used_uprobe)
		return "uprobe";
	if (ps->mode == PROBE_UPROBE ||
	    (ps->mode == PROBE_AUTO && !p->at.bp_only &&
	     probe_auto_uprobe(ps, p)))
		return "uprobe";
	return "breakpoint";
}

const char *
probe_location(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].state == PROBE_RESOLVED ? ps->probes[i].at.where : NULL;
}
