#include "config.h"
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "sym/symbolizer.h"
#include "sym/unwind.h"

/* DWARF register numbers on x86-64 (the psABI's, not perf's). */
enum { DW_X86_64_RBP = 6, DW_X86_64_RSP = 7 };

struct unwinder {
	struct sym_proc *sp;
	pid_t pid;
	int attached;			/* 0 not yet, 1 yes, -1 refused */
	/* The unwind in progress. */
	const struct unwind_regs *r;
	uint64_t *pcs;
	unsigned n, max;
	unwind_scope_fn in_scope;
	void *scope_arg;
	bool prev_in_scope;		/* of pcs[n - 1] */
	bool reached;			/* some frame past the first in scope */
	bool joined;
};

static pid_t
uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void) dwfl;
	(void) arg;
	(void) thread_argp;
	return 0;	/* threads are named by dwfl_getthread_frames only */
}

static bool
uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void) dwfl;
	(void) tid;
	*thread_argp = arg;
	return true;
}

/* Only the copy of the stack in the sample: the thread has run on. */
static bool
uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct unwind_regs *r = ((struct unwinder *) arg)->r;
	uint64_t sp = r->sp;

	(void) dwfl;
	if (addr < sp || r->stack_size < sizeof(*result) ||
	    addr - sp > r->stack_size - sizeof(*result))
		return false;
	memcpy(result, r->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool
uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct unwind_regs *r = ((struct unwinder *) arg)->r;
	Dwarf_Word regs[] = { r->bp, r->sp };

	if (!dwfl_thread_state_registers(thread, DW_X86_64_RBP, 2, regs))
		return false;
	dwfl_thread_state_register_pc(thread, r->ip);
	return true;
}

static const Dwfl_Thread_Callbacks uw_callbacks = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

static int
uw_frame(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	uint64_t fp = u->r->bp;
	Dwarf_Addr pc;
	Dwarf_Word sp;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = pc;
	/*
	 * The kernel's walk read its first return address at fp + 8: if the
	 * frame below this one is the program's and its CFA (this frame's
	 * stack pointer) is fp + 16, fp was that frame's own frame pointer,
	 * and the walk from there on is what it is for any sample taken in
	 * the program's code.  A library frame may own fp too (alloca keeps
	 * one), but its callers in the library may not: not there.
	 */
	if (u->n > 1 && u->prev_in_scope && dwfl_frame_reg(state, DW_X86_64_RSP, &sp) == 0 &&
	    fp <= UINT64_MAX - 16 && sp == fp + 16) {
		u->joined = true;
		return DWARF_CB_ABORT;
	}
	u->prev_in_scope = u->n > 1 && u->in_scope(u->scope_arg, pc - 1);
	u->reached |= u->prev_in_scope;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct unwinder *
unwind_new(struct sym_proc *sp, pid_t pid)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->sp = sp;
	u->pid = pid;
	return u;
}

void
unwind_free(struct unwinder *u)
{
	free(u);
}

unsigned
unwind_sample(struct unwinder *u, const struct unwind_regs *r, uint64_t *pcs,
	      unsigned max, unwind_scope_fn in_scope, void *scope_arg, bool *joined)
{
	Dwfl *dwfl;

	*joined = false;
	if (!max || !r->stack_size || !u || u->attached < 0)
		return 0;
	dwfl = sym_proc_dwfl(u->sp);
	if (!dwfl)
		return 0;
	/* Once per Dwfl, after its modules are reported (for the arch). */
	if (!u->attached)
		u->attached = dwfl_attach_state(dwfl, NULL, u->pid, &uw_callbacks, u) ? 1 : -1;
	if (u->attached < 0)
		return 0;
	u->r = r;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	u->in_scope = in_scope;
	u->scope_arg = scope_arg;
	u->prev_in_scope = false;
	u->reached = false;
	u->joined = false;
	/* Ends with an error where the stack copy or the CFI ends: fine. */
	dwfl_getthread_frames(dwfl, u->pid, uw_frame, u);
	u->r = NULL;
	*joined = u->joined;
	return u->reached ? u->n : 0;
}
