#include "config.h"
#include <string.h>
#include "app/session.h"
#include "engine/collect.h"
#include "engine/experiment.h"
#include "perf/probe.h"
#include "ptrace/tcb.h"
#include "sym/lines.h"
#include "sym/pchist.h"
#include "sym/symbolizer.h"
#include "sym/unwind.h"

/* Deeper in-scope frames are rare; this bounds the cost of a sample. */
#define MAX_FRAMES 64

static bool
pc_in_scope(void *sym, uint64_t pc)
{
	return sym_lookup(sym, pc)->in_scope;
}

/*
 * The frames of a sample, leaf first then return addresses, into pcs
 * (MAX_FRAMES): the kernel's frame-pointer chain without its context
 * markers, or, when the leaf is out of scope (a library built without
 * frame pointers may have made the walk skip its caller), the DWARF
 * unwind of the sample up to where the kernel's walk is right again,
 * then the rest of the kernel's chain; or the unwind alone if it found
 * the program's code but the walk never became right (the program's own
 * code without frame pointers).
 */
static unsigned
sample_frames(struct session *s, struct tcb *t, const struct ct_sample *smp, uint64_t *pcs)
{
	uint64_t dw[MAX_FRAMES];
	struct unwind_regs regs;
	unsigned n = 0, k;
	bool joined;

	for (uint64_t i = 0; i < smp->nr && n < MAX_FRAMES; i++)
		if (smp->chain[i] < (uint64_t) PERF_CONTEXT_MAX)
			pcs[n++] = smp->chain[i];
	if (!n)
		pcs[n++] = smp->ip;
	if (!t->proc->unw || !smp->stack_size || sym_lookup(t->proc->sym, pcs[0])->in_scope)
		return n;
	/* Registers of a 64-bit task only: the unwinder knows x86-64's. */
	if (!CT_SAMPLE_UNWIND || smp->regs_abi != PERF_SAMPLE_REGS_ABI_64)
		return n;
	regs = (struct unwind_regs) {
		.bp = smp->regs[CT_REG_BP],
		.sp = smp->regs[CT_REG_SP],
		.ip = smp->regs[CT_REG_IP],
		.stack = smp->stack,
		.stack_size = smp->stack_size,
	};
	k = unwind_sample(t->proc->unw, &regs, dw, MAX_FRAMES, pc_in_scope, t->proc->sym, &joined);
	if (!k)
		return n;
	s->samples.unwound++;
	if (joined && n > 1 && dw[k - 1] == pcs[1]) {
		/* dw[k - 1] is pcs[1]: the kernel's chain from there on. */
		k--;
		if (k + n - 1 > MAX_FRAMES)
			n = MAX_FRAMES + 1 - k;
		memmove(pcs + k, pcs + 1, (n - 1) * sizeof(*pcs));
		memcpy(pcs, dw, k * sizeof(*pcs));
		return k + n - 1;
	}
	/* Not joined: the unwind alone. */
	memcpy(pcs, dw, k * sizeof(*pcs));
	return k;
}

/*
 * Does any in-scope frame of the sample lie in the experiment's target?
 * Inclusive, as Coz: time in what the target calls (in scope or not) is
 * time of the target.  Frame 0 is the leaf, the others return addresses.
 */
static bool
hits_target(struct session *s, struct tcb *t, const uint64_t *pcs, unsigned n)
{
	const struct ct_line *line = exp_target_line(s->exp);
	const struct ct_func *func = exp_target_func(s->exp);

	for (unsigned i = 0; i < n; i++) {
		const struct sym_loc *loc = sym_lookup(t->proc->sym, i ? pcs[i] - 1 : pcs[i]);

		if (loc->in_scope && ((line && loc->line == line) || (func && loc->func == func)))
			return true;
	}
	return false;
}

/* Per-instruction counts, for the TUI's view of a line's code. */
static void
record_pc(struct session *s, struct tcb *t, const struct sym_loc *loc, uint64_t pc)
{
	pchist_add(s->pcs, true, loc->func->id, t->proc->tgid, pc);
	if (loc->line)
		pchist_add(s->pcs, false, loc->line->id, t->proc->tgid, pc);
}

static void
on_sample(void *ctx, void *owner, const struct ct_sample *smp)
{
	struct session *s = ctx;
	struct tcb *t = owner ? owner : tcb_lookup((pid_t) smp->tid);
	uint64_t pcs[MAX_FRAMES];
	bool attributed = false;
	bool full = s->exp && exp_wants_full_chains(s->exp);
	unsigned n;

	/* Cpu mode: some other process.  Or our launched child before exec. */
	if (!t || !t->proc->started)
		return;
	/* It ran: if it owes delay, it may be paused again. */
	t->flags &= ~TCB_BLOCKED;
	s->samples.total++;
	t->stats->samples++;
	if (!t->proc->sym) {
		s->samples.out_of_scope++;
		return;
	}
	/*
	 * Where one of our --progress traps left the thread: time the trap
	 * took (probe_thread_trap_at says why it lands there).  Not the
	 * program's: the probes' cost.
	 */
	if (probe_thread_trap_at(t->probe, smp->ip)) {
		s->samples.in_trap++;
		if (s->exp)
			exp_ran(s->exp, t, smp->time);
		return;
	}
	n = sample_frames(s, t, smp, pcs);
	for (unsigned i = 0; i < n; i++) {
		/* A return address: its call is the instruction before it. */
		uint64_t pc = i ? pcs[i] - 1 : pcs[i];
		const struct sym_loc *loc = sym_lookup(t->proc->sym, pc);

		if (!i) {
			loc->func->self++;
			t->stats->func = loc->func;
		}
		if (loc->in_scope && !attributed) {
			loc->func->samples++;
			if (loc->line)
				loc->line->samples++;
			else
				loc->func->unlined++;
			if (s->pcs)
				record_pc(s, t, loc, pc);
			t->stats->in_scope++;
			s->samples.in_scope++;
			attributed = true;
			/* The lines of callers are only wanted to find a fixed target. */
			if (!full)
				break;
		}
	}
	if (!attributed)
		s->samples.out_of_scope++;
	if (!s->exp)
		return;
	exp_ran(s->exp, t, smp->time);
	if (exp_hitting(s->exp, smp->time) && hits_target(s, t, pcs, n))
		exp_hit(s->exp, t, smp->time);
}

static void
on_exec_mmap(void *ctx, uint32_t pid)
{
	struct ctproc *p = proc_lookup((pid_t) pid);

	if (p && p->sym)
		sym_proc_maps_changed(p->sym);
	if (p && p->probes)
		p->probes_mapped = true;
	(void) ctx;
}

static void
on_lost(void *ctx, void *owner, uint64_t n)
{
	struct session *s = ctx;
	struct tcb *t = owner;

	s->samples.lost += n;
	if (t)
		t->stats->lost += n;
}

const struct sampler_ops collect_ops = {
	.sample = on_sample,
	.exec_mmap = on_exec_mmap,
	.lost = on_lost,
};
