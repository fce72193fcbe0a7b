/*
 * Wait sites (waitsite.h): libunwind-ptrace walks a stopped thread's
 * stack from its registers, reading memory with PTRACE_PEEKDATA and the
 * unwind tables from the mapped files; the process's symbolizer names
 * the frames.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libunwind-ptrace.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/path.h"
#include "base/xmalloc.h"
#include "ptrace/tcb.h"
#include "ptrace/waitsite.h"
#include "sym/lines.h"
#include "sym/symbolizer.h"

struct wait_sites {
	struct wait_site **sites;
	size_t n, cap;
	bool sorted;
	struct wait_stats st;
};

/* The calls programs wait in, by x86-64 number. */
static const struct {
	long nr;
	const char *name;
} wait_syscalls[] = {
	{ 0, "read" }, { 1, "write" }, { 7, "poll" }, { 23, "select" },
	{ 34, "pause" }, { 35, "nanosleep" }, { 43, "accept" }, { 45, "recvfrom" },
	{ 47, "recvmsg" }, { 61, "wait4" }, { 128, "rt_sigtimedwait" },
	{ 202, "futex" }, { 230, "clock_nanosleep" }, { 232, "epoll_wait" },
	{ 247, "waitid" }, { 270, "pselect6" }, { 271, "ppoll" }, { 281, "epoll_pwait" },
	{ 288, "accept4" }, { 299, "recvmmsg" }, { 441, "epoll_pwait2" },
	{ 449, "futex_waitv" },
};

static const char *
syscall_name(long nr)
{
	for (size_t i = 0; i < sizeof(wait_syscalls) / sizeof(wait_syscalls[0]); i++)
		if (wait_syscalls[i].nr == nr)
			return wait_syscalls[i].name;
	return NULL;
}

struct wait_sites *
wait_sites_new(void)
{
	return xcalloc(1, sizeof(struct wait_sites));
}

void
wait_sites_free(struct wait_sites *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->sites[i]->label);
		free(w->sites[i]);
	}
	free(w->sites);
	free(w);
}

/*
 * libunwind-ptrace's accessors, given one handle (a pid), read memory a
 * word per PTRACE_PEEKDATA and keep one ELF file open: the first stack
 * of a process read ~600 words and opened its files once per frame (2.6
 * to 4.5 ms a stack on the AMD EPYC host; the next, through the address
 * space's cache, 50 us).  So, per process: one handle per module for the
 * unwind tables, whose file then stays open; per stack: the thread's
 * own handle for its registers, and its memory read a page at a time
 * with process_vm_readv, kept for that stack only (other threads run).
 */
#define UNW_MODS	32
#define UNW_PAGES	8
#define UNW_PAGE	4096
#define UNW_NO_PAGE	1	/* no page starts there: an empty slot */

struct unw_mod {
	uint64_t lo, hi;
	void *upt;		/* _UPT_create(tgid): its tables and file */
};

struct unw_proc {
	unw_addr_space_t as;
	struct unw_mod mods[UNW_MODS];
	unsigned nmods;
};

/* The stack being read: the supervisor reads one at a time. */
static struct {
	struct tcb *t;
	struct unw_proc *up;
	uint64_t page_addr[UNW_PAGES];
	unsigned char page[UNW_PAGES][UNW_PAGE];
	unsigned npages, next;
	bool mem_failed;	/* fall back to PEEKDATA for the rest */
} cur;

static void *
mod_upt(uint64_t ip)
{
	struct unw_proc *up = cur.up;
	uint64_t lo, hi;
	unsigned i;

	for (i = 0; i < up->nmods; i++)
		if (ip >= up->mods[i].lo && ip < up->mods[i].hi)
			return up->mods[i].upt;
	if (!sym_module_range(cur.t->proc->sym, ip, &lo, &hi))
		return cur.t->unw_upt;		/* JIT code, or no module: ask the thread's */
	if (up->nmods == UNW_MODS)
		return cur.t->unw_upt;
	up->mods[up->nmods] = (struct unw_mod) { lo, hi, _UPT_create(cur.t->proc->tgid) };
	if (!up->mods[up->nmods].upt)
		return cur.t->unw_upt;
	return up->mods[up->nmods++].upt;
}

static int
acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need,
		   void *arg)
{
	(void) arg;
	return _UPT_find_proc_info(as, ip, pi, need, mod_upt(ip));
}

static void
acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void) arg;
	_UPT_put_unwind_info(as, pi, cur.t->unw_upt);
}

static int
acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void) arg;
	return _UPT_get_dyn_info_list_addr(as, addr, cur.t->unw_upt);
}

static const unsigned char *
page_of(uint64_t addr)
{
	uint64_t base = addr & ~(uint64_t) (UNW_PAGE - 1);
	struct iovec local, remote;
	unsigned i;

	for (i = 0; i < cur.npages; i++)
		if (cur.page_addr[i] == base)
			return cur.page[i];
	if (cur.mem_failed)
		return NULL;
	i = cur.npages < UNW_PAGES ? cur.npages++ : cur.next++ % UNW_PAGES;
	local = (struct iovec) { cur.page[i], UNW_PAGE };
	remote = (struct iovec) { (void *) (uintptr_t) base, UNW_PAGE };
	if (process_vm_readv(cur.t->tid, &local, 1, &remote, 1, 0) != UNW_PAGE) {
		/* Not readable so (a guard page, no permission): word by word. */
		cur.page_addr[i] = UNW_NO_PAGE;
		cur.mem_failed = errno == EPERM || errno == ENOSYS;
		return NULL;
	}
	cur.page_addr[i] = base;
	return cur.page[i];
}

static int
acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	const unsigned char *pg;

	(void) arg;
	if (!write && (addr & 7) == 0 && (pg = page_of(addr))) {
		memcpy(val, pg + (addr & (UNW_PAGE - 1)), sizeof(*val));
		return 0;
	}
	if (write)
		return -UNW_EINVAL;	/* never the target's memory */
	return _UPT_access_mem(as, addr, val, write, cur.t->unw_upt);
}

static int
acc_access_reg(unw_addr_space_t as, unw_regnum_t r, unw_word_t *val, int write, void *arg)
{
	(void) arg;
	if (write)
		return -UNW_EINVAL;
	return _UPT_access_reg(as, r, val, write, cur.t->unw_upt);
}

static int
acc_access_fpreg(unw_addr_space_t as, unw_regnum_t r, unw_fpreg_t *val, int write,
		 void *arg)
{
	(void) arg;
	if (write)
		return -UNW_EINVAL;
	return _UPT_access_fpreg(as, r, val, write, cur.t->unw_upt);
}

static int
acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void) as;
	(void) c;
	(void) arg;
	return -UNW_EINVAL;	/* we only look */
}

static int
acc_get_proc_name(unw_addr_space_t as, unw_word_t ip, char *buf, size_t len,
		  unw_word_t *off, void *arg)
{
	(void) arg;
	return _UPT_get_proc_name(as, ip, buf, len, off, mod_upt(ip));
}

static unw_accessors_t acc = {
	.find_proc_info = acc_find_proc_info,
	.put_unwind_info = acc_put_unwind_info,
	.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
	.access_mem = acc_access_mem,
	.access_reg = acc_access_reg,
	.access_fpreg = acc_access_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_get_proc_name,
};

/* An address space per image of a process: its cache holds for all its threads. */
static struct unw_proc *
proc_unw(struct ctproc *p)
{
	struct unw_proc *up = p->unw_as;

	if (!up) {
		up = xcalloc(1, sizeof(*up));
		up->as = unw_create_addr_space(&acc, 0);
		if (!up->as) {
			free(up);
			return NULL;
		}
		unw_set_caching_policy(up->as, UNW_CACHE_GLOBAL);
		p->unw_as = up;
	}
	return up;
}

void
wait_sites_forget_proc(struct ctproc *p)
{
	struct unw_proc *up = p->unw_as;

	if (!up)
		return;
	for (unsigned i = 0; i < up->nmods; i++)
		_UPT_destroy(up->mods[i].upt);
	unw_destroy_addr_space(up->as);
	free(up);
	p->unw_as = NULL;
}

void
wait_sites_forget_thread(struct tcb *t)
{
	if (t->unw_upt)
		_UPT_destroy(t->unw_upt);
	t->unw_upt = NULL;
	t->wait = NULL;
}

/* The return addresses of t's stack, leaf first; how many. */
static unsigned
unwind_ips(struct tcb *t, uint64_t *ips, unsigned max)
{
	struct unw_proc *up = proc_unw(t->proc);
	unw_cursor_t c;
	unsigned n = 0;

	if (!up)
		return 0;
	if (!t->unw_upt && !(t->unw_upt = _UPT_create(t->tid)))
		return 0;
	cur.t = t;
	cur.up = up;
	cur.npages = cur.next = 0;
	cur.mem_failed = false;
	if (unw_init_remote(&c, up->as, NULL) == 0) {
		do {
			unw_word_t ip;

			if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			ips[n++] = ip;
		} while (n < max && unw_step(&c) > 0);
	}
	cur.t = NULL;
	cur.up = NULL;
	return n;
}

/* Fill s's frames from ips; the leaf is where it is, the others called. */
static void
symbolize(struct wait_site *s, struct sym_proc *sp, const uint64_t *ips, unsigned n)
{
	s->nframes = 0;
	s->call = s->caller = -1;
	for (unsigned i = 0; i < n; i++) {
		const struct sym_loc *loc = sp ? sym_lookup(sp, i ? ips[i] - 1 : ips[i]) : NULL;
		struct wait_frame *f = &s->frames[s->nframes++];

		*f = (struct wait_frame) {
			.func = loc ? loc->func : NULL,
			.line = loc ? loc->line : NULL,
			.in_scope = loc && loc->in_scope,
		};
		if (f->in_scope && s->caller < 0) {
			s->caller = (int) i;
			s->call = i ? (int) i - 1 : -1;
		}
	}
}

/*
 * One site: the same system call, reached through the same call from the
 * same line (the libc frames inside the call, and the frames above the
 * caller, may differ); with no frame in scope, the same stack.
 */
static bool
same_frame(const struct wait_frame *a, const struct wait_frame *b)
{
	return a->func == b->func && a->line == b->line;
}

static bool
same_site(const struct wait_site *a, const struct wait_site *b)
{
	if (a->syscall != b->syscall || (a->caller < 0) != (b->caller < 0))
		return false;
	if (a->caller >= 0)
		return same_frame(&a->frames[a->caller], &b->frames[b->caller]) &&
		       (a->call < 0) == (b->call < 0) &&
		       (a->call < 0 || same_frame(&a->frames[a->call], &b->frames[b->call]));
	if (a->nframes != b->nframes)
		return false;
	for (unsigned i = 0; i < a->nframes; i++)
		if (!same_frame(&a->frames[i], &b->frames[i]))
			return false;
	return true;
}

static const char *
func_name(const struct wait_frame *f)
{
	return f->func ? f->func->name : "[unknown]";
}

static char *
make_label(const struct wait_site *s)
{
	const struct wait_frame *call = s->call >= 0 ? &s->frames[s->call] : NULL;
	const struct wait_frame *from = s->caller >= 0 ? &s->frames[s->caller] : NULL;
	char sc[32];
	const char *what = s->syscall_name;

	if (!what) {
		snprintf(sc, sizeof(sc), "syscall %ld", s->syscall);
		what = sc;
	}
	if (!from)
		return xasprintf("%s in %s", what, s->nframes ? func_name(&s->frames[0]) : "?");
	if (from->line)
		return xasprintf("%s from %s (%s:%u)", call ? func_name(call) : what,
				 func_name(from), base_name(from->line->file), from->line->line);
	return xasprintf("%s from %s", call ? func_name(call) : what, func_name(from));
}

void
wait_sites_take(struct wait_sites *w, struct tcb *t, uint64_t now)
{
#ifdef __x86_64__
	struct user_regs_struct r;
	uint64_t ips[WAIT_FRAMES], t0;
	struct wait_site s = { .syscall = -1 };
	unsigned n;
	size_t i;

	if (!w)
		return;
	if (t->wait_ns && now - t->wait_ns < WAIT_MIN_GAP_NS) {
		w->st.skipped++;
		return;
	}
	/*
	 * A process's first stack opens its files (1.1-2.5 ms on the AMD
	 * EPYC host, the next ~60 us): it delays the restart of threads
	 * held meanwhile, once a process.  Skipping it while any thread was
	 * held left no stack at all: a pause that finds a thread blocked is
	 * one of several asked for together.
	 */
	t->wait_ns = now;
	t0 = clock_now_ns();
	if (ptrace(PTRACE_GETREGS, t->tid, 0L, &r) == 0)
		s.syscall = (long) r.orig_rax;
	n = unwind_ips(t, ips, WAIT_FRAMES);
	if (!n) {
		w->st.failed++;
		return;
	}
	s.syscall_name = syscall_name(s.syscall);
	symbolize(&s, t->proc->sym, ips, n);
	for (i = 0; i < w->n && !same_site(w->sites[i], &s); i++)
		;
	if (i == w->n && w->n < WAIT_SITES_MAX) {
		if (w->n == w->cap)
			w->sites = xgrowarray(w->sites, &w->cap, w->n + 1, sizeof(*w->sites));
		w->sites[w->n] = xmalloc(sizeof(s));
		*w->sites[w->n] = s;
		w->sites[w->n]->label = make_label(&s);
		w->n++;
	}
	if (i < w->n) {
		w->sites[i]->count++;
		t->wait = w->sites[i];
		w->sorted = false;
	} else {
		w->st.other++;
	}
	w->st.taken++;
	t0 = clock_now_ns() - t0;
	w->st.ns_total += t0;
	if (t0 > w->st.ns_max)
		w->st.ns_max = t0;
#else
	(void) w;
	(void) t;
	(void) now;
#endif
}

static int
by_count(const void *a, const void *b)
{
	const struct wait_site *x = *(const struct wait_site *const *) a;
	const struct wait_site *y = *(const struct wait_site *const *) b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

const struct wait_site *const *
wait_sites_sorted(struct wait_sites *w, size_t *n)
{
	*n = w ? w->n : 0;
	if (!w)
		return NULL;
	if (!w->sorted && w->n) {
		/* Sites are stable: tcbs point at them. */
		qsort(w->sites, w->n, sizeof(*w->sites), by_count);
		w->sorted = true;
	}
	return (const struct wait_site *const *) w->sites;
}

const struct wait_stats *
wait_sites_stats(const struct wait_sites *w)
{
	static const struct wait_stats none;

	return w ? &w->st : &none;
}
