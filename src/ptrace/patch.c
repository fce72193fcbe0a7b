#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "ptrace/inject.h"
#include "ptrace/patch.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "sym/probe_addr.h"
#include "sym/relocate.h"

#ifndef MAP_FIXED_NOREPLACE
# define MAP_FIXED_NOREPLACE 0x100000
#endif

enum {
	PATCH_PAGE = 4096,
	PATCH_PAD_SLOT = 128,			/* RELOC_PAD_MAX */
	PATCH_PADS = PATCH_PAGE / PATCH_PAD_SLOT,
	PATCH_COUNTER_SLOT = 64,		/* a cache line each */
	PATCH_FUNC_MAX = 1 << 20,		/* bytes of a function read to check it */
};

/* How far from the code a region may be: rel32, less a margin. */
#define PATCH_REACH (INT32_MAX - 2 * PATCH_PAGE)
#define PATCH_FREEZE_NS 1000000000ULL
/* In the last 8 bytes of a region's counter page: it is ours. */
#define PATCH_MARK 0x6b61747061746e63ULL

static uint64_t
patch_mark_addr(uint64_t counter)
{
	return (counter & ~(uint64_t) (PATCH_PAGE - 1)) + PATCH_PAGE - 8;
}

/* A why with figures in it: valid until the next. */
static char patch_why[160];

struct patch_region {
	uint64_t code;			/* pads page, r-x; counters at code + PATCH_PAGE */
	unsigned npads;
};

struct patch_site {
	uint64_t addr;
	size_t displaced;
	uint8_t orig[RELOC_DISPLACED_MAX];	/* the text before */
	uint8_t bytes[RELOC_DISPLACED_MAX];	/* and ours */
	uint64_t counter;		/* its address in the target */
	uint64_t base;			/* its value when this process's count began */
	uint64_t last;			/* hits at the last read */
	bool live;			/* our bytes are in the text */
};

struct patch_proc {
	pid_t pid;
	int mem;			/* /proc/PID/mem, or -1 */
	struct patch_region *regions;
	size_t nregions;
	struct patch_site *sites;
	size_t nsites;
	pid_t *held;			/* threads stopped before patch_freeze */
	size_t nheld;
};

static struct patch_proc *
patch_of(struct ctproc *p)
{
	if (!p->patch) {
		p->patch = xcalloc(1, sizeof(*p->patch));
		p->patch->pid = p->tgid;
		p->patch->mem = -1;
	}
	return p->patch;
}

static int
patch_mem(struct patch_proc *pp)
{
	if (pp->mem < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int) pp->pid);
		pp->mem = open(path, O_RDWR | O_CLOEXEC);
	}
	return pp->mem;
}

static bool
patch_write(struct patch_proc *pp, uint64_t addr, const void *buf, size_t len)
{
	int fd = patch_mem(pp);

	return fd >= 0 && pwrite(fd, buf, len, (off_t) addr) == (ssize_t) len;
}

static bool
patch_read(struct patch_proc *pp, uint64_t addr, void *buf, size_t len)
{
	int fd = patch_mem(pp);

	return fd >= 0 && pread(fd, buf, len, (off_t) addr) == (ssize_t) len;
}

/* --- stopping a whole process ------------------------------------------ */

static bool
patch_all_stopped(const struct ctproc *p)
{
	for (struct tcb *t = tcb_first(); t; t = t->next)
		if (t->proc == p && !(t->flags & (TCB_STOPPED | TCB_STARTUP)))
			return false;
	return true;
}

bool
patch_freeze(struct session *s, struct ctproc *p)
{
	struct patch_proc *pp = patch_of(p);
	uint64_t deadline = clock_now_ns() + PATCH_FREEZE_NS;

	p->frozen = true;
	pp->nheld = 0;
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		if (t->proc != p || (t->flags & (TCB_STARTUP | TCB_EXITING)))
			continue;
		if (t->flags & TCB_STOPPED) {
			/* Held by someone else (a pause, the engine): theirs to restart. */
			pp->held = xrealloc(pp->held, (pp->nheld + 1) * sizeof(*pp->held));
			pp->held[pp->nheld++] = t->tid;
			continue;
		}
		if (!(t->flags & TCB_PAUSE_PENDING) && ptrace(PTRACE_INTERRUPT, t->tid, 0L, 0L) < 0 &&
		    errno != ESRCH)
			perror_msg("ptrace(INTERRUPT, %d)", (int) t->tid);
	}
	/* trace.c holds the threads of a frozen process at their stops. */
	while (!patch_all_stopped(p)) {
		int step = trace_wait_step(s);

		if (step < 0 || (!step && clock_now_ns() > deadline)) {
			debug_msg("patch: %d: threads would not stop", (int) p->tgid);
			patch_thaw(s, p);
			return false;
		}
	}
	return true;
}

static bool
patch_was_held(const struct patch_proc *pp, pid_t tid)
{
	for (size_t i = 0; i < pp->nheld; i++)
		if (pp->held[i] == tid)
			return true;
	return false;
}

/*
 * Every thread of p held at a stop since patch_freeze (those it
 * interrupted, and any born meanwhile), but those a pause holds: the
 * pause restarts them when paid.
 */
void
patch_thaw(struct session *s, struct ctproc *p)
{
	struct patch_proc *pp = patch_of(p);
	struct tcb *t, *next;

	p->frozen = false;
	for (t = tcb_first(); t; t = next) {
		next = t->next;
		if (t->proc != p || !(t->flags & TCB_STOPPED) || (t->flags & TCB_PAUSED) ||
		    patch_was_held(pp, t->tid))
			continue;
		trace_restart_held(s, t);
	}
	pp->nheld = 0;
}

/* --- regions ------------------------------------------------------------ */

/* A stopped thread of p to make system calls with. */
static struct tcb *
patch_agent(struct ctproc *p)
{
	for (struct tcb *t = tcb_first(); t; t = t->next)
		if (t->proc == p && (t->flags & TCB_STOPPED) &&
		    !(t->flags & (TCB_EXITING | TCB_STARTUP | TCB_GROUP_STOP)))
			return t;
	return NULL;
}

static int64_t
patch_syscall(struct tcb *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
	      uint64_t a3, uint64_t a4, uint64_t a5)
{
	const uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
	int64_t ret;
	int sig = 0;

	if (inject_syscall(t->tid, nr, args, &ret, &sig) < 0)
		ret = -errno;
	if (sig && !t->stop_sig)
		t->stop_sig = sig;
	return ret;
}

static uint64_t
patch_dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Two free pages within reach of addr, nearest first: the ends of the
 * gaps between p's mappings.  0 when none.
 */
static size_t
patch_candidates(pid_t pid, uint64_t addr, uint64_t *cand, size_t max)
{
	char *maps = procfs_maps(pid), *cur = maps;
	struct procfs_map m;
	uint64_t prev_end = 0x10000;	/* above mmap_min_addr */
	size_t n = 0;

	if (!maps)
		return 0;
	while (procfs_maps_next(&cur, &m) && n + 2 <= max) {
		if (m.start >= prev_end + 2 * PATCH_PAGE) {
			uint64_t lo = prev_end, hi = m.start - 2 * PATCH_PAGE;

			if (patch_dist(lo, addr) < PATCH_REACH)
				cand[n++] = lo;
			if (hi != lo && patch_dist(hi, addr) < PATCH_REACH)
				cand[n++] = hi;
		}
		if (m.end > prev_end)
			prev_end = m.end;
	}
	free(maps);
	/* Nearest first: fewest far jumps, and the likeliest to stay free. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && patch_dist(cand[j], addr) < patch_dist(cand[j - 1], addr); j--) {
			uint64_t x = cand[j];

			cand[j] = cand[j - 1];
			cand[j - 1] = x;
		}
	return n;
}

static struct patch_region *
patch_region_near(struct ctproc *p, uint64_t addr, const char **why)
{
	struct patch_proc *pp = patch_of(p);
	uint64_t cand[64];
	size_t n;
	struct tcb *agent;

	for (size_t i = 0; i < pp->nregions; i++) {
		struct patch_region *r = &pp->regions[i];

		if (r->npads < PATCH_PADS && patch_dist(r->code, addr) < PATCH_REACH)
			return r;
	}
	agent = patch_agent(p);
	if (!agent) {
		*why = "no stopped thread to map the pads with";
		return NULL;
	}
	n = patch_candidates(p->tgid, addr, cand, 64);
	for (size_t i = 0; i < n; i++) {
		int64_t at = patch_syscall(agent, SYS_mmap, cand[i], 2 * PATCH_PAGE,
					   PROT_READ | PROT_EXEC,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
					   (uint64_t) -1, 0);
		struct patch_region *r;

		if (at == -EEXIST || at == -ENOMEM)
			continue;
		if (at < 0 || (uint64_t) at != cand[i]) {
			snprintf(patch_why, sizeof(patch_why), "the target's mmap at %#" PRIx64
				 " failed: %s (%#" PRIx64 ")", cand[i], at < 0 ? strerror((int) -at) : "moved", (uint64_t) at);
			*why = patch_why;
			if (at > 0)
				patch_syscall(agent, SYS_munmap, (uint64_t) at, 2 * PATCH_PAGE, 0, 0, 0, 0);
			return NULL;
		}
		if (patch_syscall(agent, SYS_mprotect, cand[i] + PATCH_PAGE, PATCH_PAGE,
				  PROT_READ | PROT_WRITE, 0, 0, 0)) {
			*why = "the target's mprotect failed";
			return NULL;
		}
		if (!patch_write(pp, patch_mark_addr(cand[i] + PATCH_PAGE), &(uint64_t) { PATCH_MARK },
				 sizeof(uint64_t))) {
			*why = "cannot write to the target's memory";
			return NULL;
		}
		pp->regions = xrealloc(pp->regions, (pp->nregions + 1) * sizeof(*pp->regions));
		r = &pp->regions[pp->nregions++];
		*r = (struct patch_region) { .code = cand[i] };
		debug_msg("patch: %d: pads at %#" PRIx64 " for %#" PRIx64, (int) p->tgid,
			  r->code, addr);
		return r;
	}
	*why = "no free address within 2 GB of the code for the pads";
	return NULL;
}

/* --- sites ---------------------------------------------------------------- */

/* Does pid run with a shadow stack (CET)?  Then a call cannot move. */
static bool
patch_shstk(pid_t pid)
{
	char path[64], line[256];
	bool on = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "x86_Thread_features:", 20) && strstr(line, "shstk"))
			on = true;
	fclose(f);
	return on;
}

/* Is a thread of p stopped strictly inside [addr, addr + len)? */
static bool
patch_pc_inside(struct ctproc *p, uint64_t addr, size_t len)
{
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		struct user_regs_struct r;

		if (t->proc != p || !(t->flags & TCB_STOPPED) ||
		    ptrace(PTRACE_GETREGS, t->tid, 0L, &r) < 0)
			continue;
		if (r.rip > addr && r.rip < addr + len)
			return true;
	}
	return false;
}

static int
patch_site_find(const struct patch_proc *pp, uint64_t addr)
{
	for (size_t i = 0; i < pp->nsites; i++)
		if (pp->sites[i].addr == addr)
			return (int) i;
	return -1;
}

static int
patch_probe(void *ctx, pid_t pid, const struct probe_addr *at, const char **why)
{
	struct session *s = ctx;
	struct ctproc *p = proc_lookup(pid);
	struct patch_proc *pp;
	struct patch_region *r;
	struct reloc_pad pad;
	struct patch_site site = { .addr = at->addr };
	uint8_t *func;
	unsigned flags;
	int i;

	(void) s;
	if (!p) {
		*why = "not a process traced";
		return -1;
	}
	pp = patch_of(p);
	/* Inherited from a followed fork's parent, or found twice. */
	if ((i = patch_site_find(pp, at->addr)) >= 0)
		return i;
	if (!at->func_size) {
		*why = "its function's bounds are unknown (no symbol, no call frame entry)";
		return -1;
	}
	if (at->func_size > PATCH_FUNC_MAX) {
		*why = "its function is too large to check";
		return -1;
	}
	if (!patch_all_stopped(p)) {
		*why = "the process's threads are running";
		return -1;
	}
	func = xmalloc(at->func_size);
	if (!patch_read(pp, at->func_addr, func, at->func_size)) {
		free(func);
		*why = "cannot read its code";
		return -1;
	}
	flags = (at->entry ? RELOC_ENTRY : 0) | (patch_shstk(p->tgid) ? RELOC_SHSTK : 0);
	/* The code first, with a pad as if next to it: no region for nothing. */
	if (reloc_build(func, at->func_size, at->func_addr, at->addr, flags,
			(at->addr & ~(uint64_t) (PATCH_PAGE - 1)) + 2 * PATCH_PAGE,
			(at->addr & ~(uint64_t) (PATCH_PAGE - 1)) + 3 * PATCH_PAGE, &pad, why)) {
		free(func);
		return -1;
	}
	r = patch_region_near(p, at->addr, why);
	if (!r) {
		free(func);
		return -1;
	}
	/* A region's counters follow its pads one to one. */
	site.counter = r->code + PATCH_PAGE + (uint64_t) r->npads * PATCH_COUNTER_SLOT;
	if (reloc_build(func, at->func_size, at->func_addr, at->addr, flags,
			r->code + (uint64_t) r->npads * PATCH_PAD_SLOT, site.counter, &pad, why)) {
		free(func);
		return -1;
	}
	free(func);
	if (patch_pc_inside(p, at->addr, pad.displaced)) {
		*why = "a thread is stopped inside the bytes to replace";
		return -1;
	}
	site.displaced = pad.displaced;
	memcpy(site.orig, pad.orig, pad.displaced);
	memcpy(site.bytes, pad.patch, pad.displaced);
	if (!patch_write(pp, r->code + (uint64_t) r->npads * PATCH_PAD_SLOT, pad.code, pad.len) ||
	    !patch_write(pp, at->addr, site.bytes, site.displaced)) {
		*why = "cannot write to the target's memory";
		return -1;
	}
	r->npads++;
	site.live = true;
	pp->sites = xrealloc(pp->sites, (pp->nsites + 1) * sizeof(*pp->sites));
	pp->sites[pp->nsites] = site;
	debug_msg("patch: %d: %#" PRIx64 " (%zu bytes) counted at %#" PRIx64, (int) pid,
		  at->addr, site.displaced, site.counter);
	return (int) pp->nsites++;
}

/*
 * The counter, and the region's mark beside it: after an exec (before its
 * stop is handled) the address may hold anything of the new image.
 */
static void
patch_read_site(struct patch_proc *pp, struct patch_site *st)
{
	uint64_t v[2];
	struct iovec local = { .iov_base = v, .iov_len = sizeof(v) };
	struct iovec remote[2] = {
		{ .iov_base = (void *) (uintptr_t) st->counter, .iov_len = sizeof(v[0]) },
		{ .iov_base = (void *) (uintptr_t) patch_mark_addr(st->counter),
		  .iov_len = sizeof(v[1]) },
	};

	if (process_vm_readv(pp->pid, &local, 1, remote, 2, 0) == sizeof(v) &&
	    v[1] == PATCH_MARK && v[0] >= st->base)
		st->last = v[0] - st->base;
}

static uint64_t
patch_count(void *ctx, pid_t pid, int slot)
{
	struct ctproc *p = proc_lookup(pid);
	struct patch_proc *pp = p ? p->patch : NULL;

	(void) ctx;
	if (!pp || slot < 0 || (size_t) slot >= pp->nsites)
		return 0;
	patch_read_site(pp, &pp->sites[slot]);
	return pp->sites[slot].last;
}

/* The image is gone (exec): its regions and sites with it. */
static void
patch_forget(void *ctx, pid_t pid)
{
	struct ctproc *p = proc_lookup(pid);
	struct patch_proc *pp = p ? p->patch : NULL;

	(void) ctx;
	if (!pp)
		return;
	free(pp->regions);
	free(pp->sites);
	pp->regions = NULL;
	pp->sites = NULL;
	pp->nregions = pp->nsites = 0;
	if (pp->mem >= 0)
		close(pp->mem);
	pp->mem = -1;
}

const struct probe_patch_ops patch_probe_ops = {
	.patch = patch_probe,
	.count = patch_count,
	.forget = patch_forget,
};

void
patch_fork(struct ctproc *parent, struct ctproc *child)
{
	struct patch_proc *from = parent->patch, *pp;

	if (!from || !from->nsites)
		return;
	pp = patch_of(child);
	pp->regions = xmalloc(from->nregions * sizeof(*from->regions));
	memcpy(pp->regions, from->regions, from->nregions * sizeof(*from->regions));
	pp->nregions = from->nregions;
	pp->sites = xmalloc(from->nsites * sizeof(*from->sites));
	memcpy(pp->sites, from->sites, from->nsites * sizeof(*from->sites));
	pp->nsites = from->nsites;
	/* Its counters start as copies of the parent's: from there on. */
	for (size_t i = 0; i < pp->nsites; i++) {
		struct patch_site *st = &pp->sites[i];

		st->base = 0;
		st->last = 0;
		patch_read_site(pp, st);
		st->base = st->last;
		st->last = 0;
	}
}

static void
patch_unpatch(struct session *s, struct ctproc *p)
{
	struct patch_proc *pp = p->patch;
	unsigned kept = 0;

	/* The last counts, into the probe set: p is let go after this. */
	if (p->probes)
		probe_patch_sync(p->probes);
	/* Gone, or going: nothing to give back. */
	if (!p->nthreads || (kill(p->tgid, 0) < 0 && errno == ESRCH))
		return;
	if (!patch_freeze(s, p)) {
		error_msg("warning: process %d: its threads would not stop: its %zu progress "
			  "counters stay patched in (they keep working)", (int) p->tgid, pp->nsites);
		return;
	}
	for (size_t i = 0; i < pp->nsites; i++) {
		struct patch_site *st = &pp->sites[i];

		if (!st->live)
			continue;
		if (patch_write(pp, st->addr, st->orig, st->displaced))
			st->live = false;
		else
			kept++;
	}
	if (p->probes)
		probe_patch_sync(p->probes);
	patch_thaw(s, p);
	if (kept && !(kill(p->tgid, 0) < 0 && errno == ESRCH))
		error_msg("warning: process %d: %u progress counters could not be taken out "
			  "(they keep working)", (int) p->tgid, kept);
}

void
patch_unpatch_all(struct session *s)
{
	for (struct ctproc *p = proc_first(); p; p = p->next)
		if (p->patch && p->patch->nsites)
			patch_unpatch(s, p);
}

void
patch_proc_free(struct ctproc *p)
{
	struct patch_proc *pp = p->patch;

	if (!pp)
		return;
	if (pp->mem >= 0)
		close(pp->mem);
	free(pp->regions);
	free(pp->sites);
	free(pp->held);
	free(pp);
	p->patch = NULL;
}
